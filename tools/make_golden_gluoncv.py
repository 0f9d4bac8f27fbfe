"""Golden files for GluonCV 0.10.5 on mxlite's ``mxnet`` alias, from real MXNet 1.9.1.

Run under the reference interpreter (with ``gluoncv==0.10.5.post0`` installed beside it)::

    /tmp/mxref/bin/python tools/make_golden_gluoncv.py

Writes into ``tests/run/golden/gluoncv/``:

- ``cifar_resnet20_v1.params``: ``save_parameters`` of GluonCV's ``cifar_resnet20_v1``
  (Xavier, ``mx.random.seed(0)``), for the ``load_parameters`` case;
- ``outputs.npz``: every array of the workloads in ``tests/run/gluoncv_cases.py`` (which sets
  all other parameters from seeded NumPy streams, so no large file is stored), with the
  ``--spread`` of the training cases.
"""

from __future__ import annotations

import os
import subprocess
import sys

import gluoncv
import mxnet as mx

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "run", "golden", "gluoncv")
CASES = os.path.join(ROOT, "tests", "run", "gluoncv_cases.py")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    mx.random.seed(0)
    net = gluoncv.model_zoo.get_model("cifar_resnet20_v1", classes=10)
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 3, 32, 32)))
    params = os.path.join(OUT, "cifar_resnet20_v1.params")
    net.save_parameters(params)
    # a fresh interpreter, so that block names start from the same counters as in the test
    cmd = [sys.executable, CASES, os.path.join(OUT, "outputs.npz"), f"--params={params}"]
    subprocess.run([*cmd, "--spread", "load_parameters", *_all_cases()], check=True)


def _all_cases() -> list:
    sys.path.insert(0, os.path.dirname(CASES))
    import gluoncv_cases

    return list(gluoncv_cases.CASES)


if __name__ == "__main__":
    main()
