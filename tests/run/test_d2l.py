"""d2l 1.0.3 (``d2l/mxnet.py``) and cells of *Dive into Deep Learning*'s MXNet code, unchanged,
on mxlite's ``mxnet`` alias: outputs equal to MXNet 1.9.1's.

The workloads (``d2l_cases.py``: d2l's package functions and classes; ``d2l_book_cases.py``:
short cells of the book at tag v1.0.3) run once each, in a fresh interpreter under
``python -m mxlite.run``, and are compared with ``golden/d2l/*.npz`` from the ``d2l`` family
of ``tools/golden/``. Parameters and data come from official NumPy's
seeded streams (``mx.random`` differs between the two), so the training runs are deterministic
on both.
Skipped with a reason when d2l is not installed (``pip install --no-deps d2l==1.0.3``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "d2l"
FILES = ("d2l_cases", "d2l_book_cases")

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("d2l") is None,
        reason="d2l is not installed (pip install --no-deps d2l==1.0.3)",
    ),
    # d2l binds mx.np.meshgrid at import (np-new's mx.np functions)
    pytest.mark.skipif(not hasattr(mx.np, "meshgrid"), reason="mx.np.meshgrid is missing"),
]


def _golden(name: str) -> dict:
    if not (GOLDEN / f"{name}.npz").exists():
        pytest.skip(f"no golden file {name}.npz")
    return dict(load(f"run/golden/d2l/{name}.npz").items())


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out_dir = tmp_path_factory.mktemp("d2l")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXLITE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["MPLBACKEND"] = "Agg"
    got = {}
    for name in FILES:
        out = out_dir / f"{name}.npz"
        work = out_dir / name  # the files the cells save
        work.mkdir()
        run = subprocess.run(
            [sys.executable, "-m", "mxlite.run", str(HERE / f"{name}.py"), str(out)],
            env=env, cwd=work, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        with np.load(out) as f:
            got[name] = dict(f.items())
    return got


def _cases(name: str) -> list[str]:
    if not (GOLDEN / f"{name}.npz").exists():
        return [f"{name}:-"]
    return [f"{name}:{case}" for case in load(f"run/golden/d2l/{name}.npz").cases]


@pytest.mark.parametrize("case", [c for name in FILES for c in _cases(name)])
def test_equal_to_mxnet(results: dict, case: str) -> None:
    name, case = case.split(":")
    want = _golden(name)
    got = results[name]
    keys = [k for k in want if k.split("/", 1)[0] == case]
    assert keys
    for key in keys:
        assert key in got, f"{key}: missing from mxlite's run"
        a, b = got[key], want[key]
        assert a.shape == b.shape, f"{key}: shape {a.shape}, MXNet {b.shape}"
        if b.dtype.kind in "biuU":
            np.testing.assert_array_equal(a, b, err_msg=key)
            continue
        tol = 1e-4 * (np.abs(b) + float(np.abs(b).max(initial=0.0)) + 1e-3)
        worst = float(np.max(np.abs(a.astype("f8") - b) - tol, initial=0.0))
        assert worst <= 0, f"{key}: off by {worst:.3g} beyond the tolerance"
