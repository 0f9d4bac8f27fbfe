"""Pickles both ways with MXNet 1.9.1 (mxlite/run/pickles.py).

``golden/pickles`` holds what MXNet pickled (``tools/golden/cases/pickles.py`` under
/tmp/mxref, with the objects of ``pickle_check.py``): NDArrays (float32, float16, int64, CSR,
row-sparse), a Symbol, an SGD optimizer, SGD and Adam updaters after two updates, a DataBatch,
a Gluon Parameter and a HybridSequential of Dense layers, with the summary of each
(``expected.npz``). They load in mxlite without the alias through
:func:`mxlite.fileio.restricted_loads`, and with plain ``pickle.load`` under the alias; what
mxlite pickles under the alias loads in MXNet with the same content. Alias runs happen in fresh
interpreters, so this process never gets the alias.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mxlite as mx
from mxlite.fileio import restricted_loads

from ..golden_file import load
from . import pickle_check

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden" / "pickles"
CHECK = Path(pickle_check.__file__)  # run as a program under MXNet or python -m mxlite.run
MXREF = "/tmp/mxref/bin/python"

EXPECTED = load("run/golden/pickles/expected.npz")
NAMES = sorted(EXPECTED.cases)


def _run(*args: str, python: str = sys.executable) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXLITE_")}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [python, *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    return out.stdout


def _assert_all_ok(log: str) -> None:
    ok = {line.split()[1] for line in log.splitlines() if line.startswith("ok ")}
    assert ok == set(NAMES), log


def test_golden_set_is_complete() -> None:
    assert set(NAMES) == set(pickle_check.build(mx))
    assert all((GOLDEN / f"{name}.pkl").exists() for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_mxnet_pickle_loads_without_alias(name: str) -> None:
    """restricted_loads maps MXNet's module paths onto mxlite's classes."""
    obj = restricted_loads((GOLDEN / f"{name}.pkl").read_bytes(), "test")
    assert type(obj).__module__.startswith("mxlite.")
    assert pickle_check.compare(pickle_check.summary(mx, name, obj), EXPECTED, name) is None


@pytest.mark.parametrize("name", ["nd_float32", "nd_csr", "symbol", "parameter", "block"])
def test_mxlite_pickle_round_trip_without_alias(name: str) -> None:
    obj = pickle_check.build(mx)[name]
    data = pickle.dumps(obj)
    assert b"mxnet." not in data  # without the alias there is no mxnet to name
    for loaded in (pickle.loads(data), restricted_loads(data, "test")):
        assert pickle_check.compare(pickle_check.summary(mx, name, loaded), EXPECTED, name) is None


def test_mxnet_pickles_load_under_alias() -> None:
    """Plain pickle.load of MXNet's module paths, with ``import mxnet`` being mxlite."""
    log = _run("-m", "mxlite.run", str(CHECK), "--check", str(GOLDEN))
    _assert_all_ok(log)
    assert "ok parameter mxnet.gluon.parameter.Parameter" in log  # named as MXNet names it


@pytest.fixture(scope="module")
def mxlite_pickles(tmp_path_factory: Any) -> Path:
    """The golden set pickled by mxlite under the alias."""
    out = tmp_path_factory.mktemp("mxlite_pickles")
    _run("-m", "mxlite.run", str(CHECK), "--out", str(out))
    return out


def test_alias_pickles_name_mxnet_modules(mxlite_pickles: Path) -> None:
    data = (mxlite_pickles / "parameter.pkl").read_bytes()
    assert b"mxnet.gluon.parameter" in data and b"mxlite" not in data
    for name in NAMES:  # and mxlite without the alias still reads them
        obj = restricted_loads((mxlite_pickles / f"{name}.pkl").read_bytes(), "test")
        assert pickle_check.compare(pickle_check.summary(mx, name, obj), EXPECTED, name) is None


@pytest.mark.skipif(not os.path.exists(MXREF), reason="real MXNet (/tmp/mxref) is absent")
def test_mxlite_pickles_load_in_mxnet(mxlite_pickles: Path) -> None:
    log = _run(str(CHECK), "--check", str(mxlite_pickles), "--expected",
               str(GOLDEN / "expected.npz"), python=MXREF)  # fmt: skip
    _assert_all_ok(log)


def test_restricted_loads_still_refuses_other_globals() -> None:
    with pytest.raises(pickle.UnpicklingError, match="refusing to unpickle os.system"):
        restricted_loads(b"cos\nsystem\n(S'true'\ntR.", "test")
    with pytest.raises(pickle.UnpicklingError, match="numpy._private"):
        restricted_loads(b"cnumpy\n_private\n.", "test")
