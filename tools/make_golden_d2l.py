"""Golden files for d2l 1.0.3 and the book's MXNet cells on mxlite's ``mxnet`` alias, from real
MXNet 1.9.1.

Run under the reference interpreter (with ``d2l==1.0.3`` installed beside it, ``--no-deps``,
and matplotlib, pandas, requests, IPython with ``numpy==1.23.5`` on the same pip line)::

    /tmp/mxref/bin/python tools/make_golden_d2l.py

Writes ``tests/run/golden/d2l/d2l_cases.npz`` and ``d2l_book_cases.npz``: every array of the
workloads in ``tests/run/d2l_cases.py`` and ``tests/run/d2l_book_cases.py``, each run in a fresh
interpreter so that block names count up from the same start as in the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import mxnet  # noqa: F401  (fails early outside the reference interpreter)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "run", "golden", "d2l")
FILES = ("d2l_cases", "d2l_book_cases")


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    env = dict(os.environ, MPLBACKEND="Agg")
    for name in FILES:
        script = os.path.join(ROOT, "tests", "run", f"{name}.py")
        out = os.path.join(OUT, f"{name}.npz")
        subprocess.run([sys.executable, script, out], check=True, env=env,
                       cwd=tempfile.mkdtemp())  # fmt: skip


if __name__ == "__main__":
    main()
