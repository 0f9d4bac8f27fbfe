"""The dist_* stores in real MPI jobs: small scripts (scripts/) run under
``python -m mxlite.launch`` (and plain mpiexec); each rank checks its own results."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
MPIEXEC = os.path.join(os.path.dirname(sys.executable), "mpiexec")
if not os.path.exists(MPIEXEC):
    MPIEXEC = shutil.which("mpiexec") or ""

try:
    import mpi4py  # noqa: F401

    HAVE_MPI = bool(MPIEXEC)
except ImportError:
    HAVE_MPI = False

pytestmark = pytest.mark.skipif(
    not HAVE_MPI, reason="needs mpi4py and mpiexec (pip install mxlite[dist])"
)
# A hung job is a failure, not a wait: far above the few seconds a job takes.
JOB_TIMEOUT = 240


def run_job(args: list[str], launcher: bool = True, **env: str) -> subprocess.CompletedProcess:
    full_env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])
    )
    full_env.update(env)
    if launcher:
        cmd = [sys.executable, "-m", "mxlite.launch", *args]
    else:
        cmd = [MPIEXEC, "--oversubscribe", "--allow-run-as-root", *args]
    return subprocess.run(
        cmd, env=full_env, capture_output=True, text=True, timeout=JOB_TIMEOUT, cwd=ROOT
    )


def script(name: str) -> str:
    return os.path.join(SCRIPTS, name)


def test_dist_sync_on_3_workers_from_a_hostfile(tmp_path):
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("localhost slots=3\n")
    job = run_job(["-n", "3", "-H", str(hosts), script("dist_sync_store.py")], EXPECT_WORKERS="3")
    assert job.returncode == 0, job.stdout + job.stderr
    assert sorted(line for line in job.stdout.splitlines() if line.startswith("OK")) == [
        f"OK dist_sync rank {r} of 3" for r in range(3)
    ]


def test_dist_sync_and_async_on_2_workers_and_2_servers():
    job = run_job(
        ["-n", "2", "-s", "2", script("dist_async_store.py")], MXNET_KVSTORE_BIGARRAY_BOUND="50"
    )
    assert job.returncode == 0, job.stdout + job.stderr
    assert job.stdout.count("OK dist_async rank") == 2, job.stdout + job.stderr


def test_dist_sync_module_on_2_workers_matches_one_process_on_the_whole_batch():
    job = run_job(["-n", "2", script("dist_module.py")])
    assert job.returncode == 0, job.stdout + job.stderr
    assert job.stdout.count("OK dist_sync module rank") == 2, job.stdout + job.stderr


def test_a_raising_rank_ends_the_job():
    job = run_job(["-n", "2", script("dist_fail.py"), "raise"])
    out = job.stdout + job.stderr
    assert job.returncode != 0, out
    assert "rank 1 failed: ValueError: boom from the failing rank" in out, out
    assert "the job was not ended" not in out


def test_a_raising_rank_ends_a_plain_mpiexec_job():
    job = run_job(["-n", "2", sys.executable, script("dist_fail.py"), "raise"], launcher=False)
    out = job.stdout + job.stderr
    assert job.returncode != 0, out
    assert "mxlite.kvstore: rank 1 failed: ValueError: boom from the failing rank" in out, out


def test_a_killed_rank_ends_the_job():
    job = run_job(["-n", "2", script("dist_fail.py"), "kill"])
    out = job.stdout + job.stderr
    assert job.returncode != 0, out
    assert "rank 1" in out and "the job was not ended" not in out, out
