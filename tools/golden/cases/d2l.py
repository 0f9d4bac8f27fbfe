"""d2l 1.0.3's package functions on mxlite's ``mxnet`` alias (tests/run/test_d2l.py; needs
``d2l==1.0.3`` installed ``--no-deps`` beside the reference MXNet, with matplotlib, pandas,
requests and IPython and ``numpy==1.23.5`` on the same pip line): one case per workload of
tests/run/d2l_cases.py (parameters and data from seeded NumPy streams), with its arrays and the
``seconds`` it took."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import d2l  # noqa: F401  (fails early without d2l beside the reference MXNet)
import numpy as np
from core import ROOT

FILE = "tests/run/golden/d2l/d2l_cases.npz"
SEED = 0
SCRIPT = "d2l_cases.py"


def run_cases(script: str) -> tuple[dict, list]:
    """The arrays and per-case metadata of ``tests/run/<script>``, run in a fresh interpreter
    (block names count up from the same start as in the test) in a scratch directory (the
    files its cells save)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "outputs.npz"
        env = dict(os.environ, MPLBACKEND="Agg")
        cmd = [sys.executable, str(ROOT / "tests" / "run" / script), str(out)]
        subprocess.run(cmd, check=True, cwd=tmp, env=env)
        with np.load(out) as found:
            arrays = dict(found.items())
    times = json.loads(str(arrays.pop("times")))
    return arrays, [{"name": case, "seconds": t} for case, t in times.items()]


def record(golden: Any) -> None:
    golden.take(*run_cases(SCRIPT))
