"""Golden values for BatchNorm's fixed gamma (issue 32, item 1) from real MXNet 1.9.1.

Run from the repository root under the reference interpreter::

    /tmp/mxref/bin/python tools/make_golden_bn_fixed_gamma.py

MXNet's BatchNorm kernels (reference and oneDNN alike) write ones into the gamma *input* in
every forward that writes the mean output when ``fix_gamma=True``; BatchNorm_v1 and
SyncBatchNorm do it in every forward. A fixed gamma therefore reads 1 after a training forward,
and an optimizer step (weight decay, momentum) moves it from 1, not from what it held.
The cases (``tests/operator/bn_fixed_gamma_cases.py``, run here with ``mxnet``) record every
parameter after the workload; writes ``tests/operator/golden/bn_fixed_gamma.npz``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mxnet as mx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "operator" / "golden" / "bn_fixed_gamma.npz"


def main() -> None:
    sys.path.insert(0, str(ROOT / "tests" / "operator"))
    import bn_fixed_gamma_cases as cases

    arrays: dict[str, np.ndarray] = {}
    for name, fn in cases.CASES.items():
        for key, value in fn(mx).items():
            arrays[f"{name}/{key}"] = value
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"{len(cases.CASES)} cases, {len(arrays)} arrays -> {OUT}")


if __name__ == "__main__":
    main()
