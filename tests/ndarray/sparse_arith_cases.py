"""NDArray arithmetic on sparse operands, as expressions that run unchanged on MXNet 1.9.1 and on
mxlite: ``tools/golden/cases/sparse_arith.py`` records what MXNet returns for each,
``test_sparse_arith.py`` compares.

Operands: ``rsp1``/``rsp2`` row-sparse (5, 4) with different stored rows (``rsp1`` stores an
all-zero row), ``csr1``/``csr2`` CSR (4, 5), ``dns`` and ``dns45`` dense arrays of those shapes,
``row`` a dense (1, 4) and ``s`` the scalar 2.5. In-place expressions are statements on a fresh
copy of their target (``x``), and the result is ``x`` afterwards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

STORED_ROWS = {"rsp1": [0, 2, 3], "rsp2": [1, 3]}
PAIRS = [("rsp1", "rsp2"), ("rsp1", "rsp1"), ("csr1", "csr2"), ("rsp1", "dns"), ("dns", "rsp1"),
         ("csr1", "dns45"), ("dns45", "csr1"), ("rsp1", "s"), ("s", "rsp1"), ("csr1", "s"),
         ("s", "csr1"), ("rsp1", "row"), ("row", "rsp1")]  # fmt: skip
EXPRS = [f"{a} {o} {b}" for a, b in PAIRS for o in "+-*/"] + [
    "-rsp1", "-csr1", "x = rsp1; x += rsp2", "x = rsp1; x -= rsp2", "x = rsp1; x *= rsp2",
    "x = csr1; x += csr2", "x = csr1; x *= csr2", "x = rsp1; x += dns", "x = rsp1; x *= s",
    "x = csr1; x *= s", "x = rsp1; x += s", "x = dns; x += rsp1", "x = dns; x *= rsp1",
]  # fmt: skip


def operands() -> dict[str, np.ndarray]:
    """The operands' dense values."""
    rsp1, rsp2 = np.zeros((5, 4), np.float32), np.zeros((5, 4), np.float32)
    rsp1[0], rsp1[3] = [1, 0, 2, 0], [0, -3, 0, 4]
    rsp2[1], rsp2[3] = [5, 6, 0, 0], [1, 3, 0, -4]
    csr1 = np.array([[0, 1, 0, 0, 2], [0, 0, 0, 0, 0], [3, 0, 0, -1, 0], [0, 0, 4, 0, 0]],
                    np.float32)  # fmt: skip
    csr2 = np.array([[0, -1, 0, 5, 0], [6, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, -4, 0, 7]],
                    np.float32)  # fmt: skip
    rng = np.random.RandomState(0)
    dense = {k: rng.uniform(0.5, 1.5, s).astype(np.float32)
             for k, s in (("dns", (5, 4)), ("dns45", (4, 5)), ("row", (1, 4)))}  # fmt: skip
    return {"rsp1": rsp1, "rsp2": rsp2, "csr1": csr1, "csr2": csr2, **dense}


def nd_operands(mx: Any, values: dict[str, np.ndarray]) -> dict[str, Any]:
    """The operands as ``mx`` arrays of their storage types."""
    out = {}
    for name, v in values.items():
        if name in STORED_ROWS:
            rows = STORED_ROWS[name]
            out[name] = mx.nd.sparse.row_sparse_array((v[rows], rows), shape=v.shape)
        else:
            out[name] = mx.nd.array(v).tostype("csr" if name.startswith("csr") else "default")
    return out


def evaluate(expr: str, arrays: dict[str, Any]) -> Any:
    """``expr`` on fresh copies of the operands."""
    env = {k: v.copy() for k, v in arrays.items()}
    env["s"] = 2.5
    if ";" in expr:
        exec(expr, {}, env)
        return env["x"]
    return eval(expr, {}, env)
