"""mxlite.engine as a module: get(), create(), bulk(), settings, fork and interpreter exit.

Settings, fork and exit are checked in fresh interpreters (``python -c``), since the process-wide
engine is made once per process; a timeout on each guards against a hang.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mxlite as mx
from mxlite import engine
from mxlite.base import MXNetError

from .contract import call_with_timeout

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"]


def run_python(
    code: str, env: dict[str, str] | None = None, *args: str
) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("MXNET_")}
    full_env["PYTHONPATH"] = os.pathsep.join([str(ROOT), full_env.get("PYTHONPATH", "")])
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-W", "ignore", "-c", textwrap.dedent(code), *args],
        env=full_env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,  # the hang guard: pending work and exit normally take well under a second
    )


def test_get_returns_one_engine() -> None:
    assert engine.get() is engine.get()
    assert mx.engine.get() is engine.get()
    assert isinstance(engine.get(), engine.Engine)


@pytest.mark.parametrize("kind", KINDS)
def test_create_makes_a_private_engine(kind: str) -> None:
    e = engine.create(kind)
    try:
        assert type(e).__name__ == kind
        assert e is not engine.get()
    finally:
        call_with_timeout(e.shutdown)


def test_create_pooled_alias() -> None:
    e = engine.create("ThreadedEnginePooled")
    try:
        assert isinstance(e, engine.ThreadedEngine)
    finally:
        call_with_timeout(e.shutdown)


def test_create_rejects_unknown_kind() -> None:
    with pytest.raises(MXNetError, match="create.*'kind'.*'Turbo'"):
        engine.create("Turbo")


# ---- bulk --------------------------------------------------------------------------------------


def test_set_bulk_size_returns_previous_size() -> None:
    # MXNet 1.9.1: set_bulk_size returns the previous size; bulk() restores it on exit
    old = engine.set_bulk_size(16)
    try:
        assert engine.set_bulk_size(8) == 16
        with mx.engine.bulk(4):
            assert engine.set_bulk_size(4) == 4
            with mx.engine.bulk(2):
                assert engine.set_bulk_size(2) == 2
            assert engine.set_bulk_size(4) == 4
        assert engine.set_bulk_size(8) == 8
    finally:
        engine.set_bulk_size(old)


def test_bulk_restores_size_after_an_exception() -> None:
    old = engine.set_bulk_size(3)
    try:
        with pytest.raises(KeyError):
            with mx.engine.bulk(16):
                raise KeyError("inside")
        assert engine.set_bulk_size(3) == 3
    finally:
        engine.set_bulk_size(old)


def test_program_inside_bulk_gives_sequential_results() -> None:
    eng = engine.get()
    a, b = eng.new_var(), eng.new_var()
    vals = {"a": 0, "b": 0}

    def step(rctx: engine.RunContext) -> None:
        vals["b"] = vals["b"] * 3 + vals["a"]

    def bump(rctx: engine.RunContext) -> None:
        vals["a"] += 1

    with mx.engine.bulk(16):
        for _ in range(50):
            eng.push_sync(bump, mx.cpu(), [], [a])
            eng.push_sync(step, mx.cpu(), [a], [b])
    call_with_timeout(eng.wait_for_var, b)
    expect_a = expect_b = 0
    for _ in range(50):
        expect_a += 1
        expect_b = expect_b * 3 + expect_a
    assert vals == {"a": expect_a, "b": expect_b}


# ---- settings ----------------------------------------------------------------------------------


def test_engine_type_selects_the_kind() -> None:
    code = """
        import mxlite as mx
        print(type(mx.engine.get()).__name__)
    """
    for kind in [*KINDS, "ThreadedEnginePooled"]:
        proc = run_python(code, {"MXNET_ENGINE_TYPE": kind})
        assert proc.returncode == 0, proc.stderr
        expected = "ThreadedEngine" if kind == "ThreadedEnginePooled" else kind
        assert proc.stdout.split() == [expected]
    proc = run_python(code)
    assert proc.stdout.split() == ["ThreadedEnginePerDevice"]  # MXNet's default


def test_bad_engine_type_names_the_variable() -> None:
    code = """
        import mxlite as mx
        try:
            mx.engine.get()
        except mx.MXNetError as exc:
            print(exc)
    """
    proc = run_python(code, {"MXNET_ENGINE_TYPE": "FastEngine"})
    assert proc.returncode == 0, proc.stderr
    assert "MXNET_ENGINE_TYPE" in proc.stdout and "'FastEngine'" in proc.stdout


def test_zero_cpu_workers_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXNET_CPU_WORKER_NTHREADS", "0")
    for kind in ("ThreadedEngine", "ThreadedEnginePerDevice"):
        with pytest.raises(MXNetError, match="MXNET_CPU_WORKER_NTHREADS.*>= 1.*'0'"):
            engine.create(kind)


# ---- fork and exit -----------------------------------------------------------------------------

FORK_SCRIPT = """
    import os, sys, threading
    import mxlite as mx

    eng = mx.engine.get()
    v = eng.new_var()
    out = []
    gate = threading.Event()
    if eng.kind == "NaiveEngine":
        gate.set()  # it runs each function at push
    eng.push_sync(lambda rctx: gate.wait(30), mx.cpu(), [], [v])
    for i in range(50):
        eng.push_sync(lambda rctx, i=i: out.append(i), mx.cpu(), [], [v])
    # Hooks registered later run first: the gate opens just before the engine's own hook, so
    # the work is still pending when fork() begins.
    os.register_at_fork(before=gate.set)
    pid = os.fork()
    if pid == 0:
        child = mx.engine.get()
        w = child.new_var()
        res = []
        for i in range(10):
            child.push_sync(lambda rctx, i=i: res.append(i), mx.cpu(), [], [w])
        child.wait_for_var(w)
        child.wait_for_all()
        ok = child is not eng and type(child) is type(eng) and res == list(range(10))
        os._exit(0 if ok and out == list(range(50)) else 3)
    done_at_fork = out == list(range(50))
    _, status = os.waitpid(pid, 0)
    eng.wait_for_all()
    print(os.waitstatus_to_exitcode(status), done_at_fork, out == list(range(50)))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("kind", KINDS)
def test_fork_child_gets_a_working_engine(kind: str) -> None:
    proc = run_python(FORK_SCRIPT, {"MXNET_ENGINE_TYPE": kind})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "True", "True"], proc.stderr


EXIT_SCRIPT = """
    import atexit, sys, threading
    import mxlite as mx

    path = sys.argv[1]
    eng = mx.engine.get()
    v = eng.new_var()
    gate = threading.Event()
    if eng.kind == "NaiveEngine":
        gate.set()  # it runs each function at push
    eng.push_sync(lambda rctx: gate.wait(30), mx.cpu(), [], [v])

    def write(rctx, i):
        with open(path, "a") as f:
            f.write(f"{i}\\n")

    for i in range(100):
        eng.push_sync(lambda rctx, i=i: write(rctx, i), mx.cpu(), [], [v])
    eng.push_sync(lambda rctx: 1 / 0, mx.cpu(), [], [eng.new_var()])  # a failure left unread
    atexit.register(gate.set)  # runs before the engine's exit hook: all 100 are pending then
    print("leaving")
"""


@pytest.mark.parametrize("kind", KINDS)
def test_exit_runs_pending_work_and_returns(kind: str, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    proc = run_python(EXIT_SCRIPT, {"MXNET_ENGINE_TYPE": kind}, str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["leaving"]
    assert out.read_text().split() == [str(i) for i in range(100)]


def test_builtin_failure_kinds_are_raised_as_both_kinds() -> None:
    # MXNet raises IndexError/ValueError/... failures as the builtin; ours also stay MXNetError
    eng = engine.create("ThreadedEngine")
    try:
        v = eng.new_var()
        eng.push_sync(lambda rctx: [][1], mx.cpu(), [], [v], name="index_out_of_range")
        with pytest.raises(IndexError, match="index_out_of_range") as info:
            eng.wait_for_var(v)
        assert isinstance(info.value, mx.MXNetError)
        assert isinstance(info.value.__cause__, IndexError)
    finally:
        eng.shutdown()
