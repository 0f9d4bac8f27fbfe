"""Golden values for the small MobileFaceNet trained with Module (issue 32, item 2), from real
MXNet 1.9.1 with its default kernels (oneDNN). Run from the repository root::

    /tmp/mxref/bin/python tools/make_golden_mobilefacenet.py

Runs ``tests/module/mobilefacenet_case.py`` twice: as is, and with the input scaled by
``1 + 1e-4`` (the spread: how far MXNet's own result moves with the input, the test's
tolerance for the last step). Writes ``tests/module/golden/mobilefacenet.npz``.

Also prints how far MXNet's reference kernels (``MXNET_MKLDNN_ENABLED=0``, run in a child
process) are from the default ones; those differ by a factor of the slope itself on every PReLU
slope gradient (see the test module), so they are not the reference here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import mxnet as mx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "module" / "golden" / "mobilefacenet.npz"
STEPS = 3


def _case():
    sys.path.insert(0, str(ROOT / "tests" / "module"))
    import mobilefacenet_case

    return mobilefacenet_case


def main() -> None:
    case = _case()
    if len(sys.argv) > 1:  # the child: --reference OUT.npz
        np.savez_compressed(sys.argv[2], **case.run(mx, STEPS))
        return
    got = case.run(mx, STEPS)
    batches = case.batches
    case.batches = lambda n: ((x * np.float32(1 + 1e-4), y) for x, y in batches(n))
    moved = case.run(mx, STEPS)
    case.batches = batches
    last = f"after{STEPS}/"
    for key, value in moved.items():
        if key.startswith(last) or key == "losses":
            got[f"spread/{key}"] = np.abs(value - got[key])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **got)
    print(f"{len(got)} arrays -> {OUT}; losses {got['losses']}")
    ref = OUT.with_name("_reference_kernels.npz")
    env = dict(os.environ, MXNET_MKLDNN_ENABLED="0", MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    subprocess.run([sys.executable, __file__, "--reference", str(ref)], env=env, check=True)
    with np.load(ref) as other:
        for key in sorted(k for k in got if k.startswith("grad/") and k.endswith("prelu_gamma")):
            ratio = np.median(other[key] / got[key])
            print(f"reference/oneDNN {key}: {ratio:.4f}")
        print("reference kernels' losses", other["losses"])
    ref.unlink()


if __name__ == "__main__":
    main()
