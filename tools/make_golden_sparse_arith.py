"""Record what MXNet 1.9.1's NDArray arithmetic operators (``a + b``, ``a - b``, ``a * b``,
``a / b``, their reflected and in-place forms) return for sparse operands: storage type,
values and stored indices, into tests/ndarray/golden/sparse/sparse_arith.npz, for
tests/ndarray/test_sparse_arith.py.

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_sparse_arith.py [OUT_FILE]

Operands (named in ``__cases__``): ``rsp1``/``rsp2`` row-sparse (5, 4) with different stored
rows (``rsp1`` stores an all-zero row), ``csr1``/``csr2`` CSR (4, 5), ``dns`` and ``dns45``
dense arrays of those shapes, ``row`` a dense (1, 4) and ``s`` the scalar 2.5 (in the
expressions). For case ``i`` the file holds ``i_value`` (the result's dense value) and, for a
sparse result, ``i_indices`` (and ``i_indptr`` for CSR; its stored entries only);
``__cases__`` is a JSON list of ``{"expr", "stype"}``, or ``{"expr", "error"}`` where MXNet
raises. In-place expressions are statements on a fresh copy of their target (``x`` in the
expression), and the result is ``x`` afterwards.
"""

from __future__ import annotations

import json
import os
import sys
import warnings

import mxnet as mx
import numpy as np

OUT = os.path.join(
    os.path.dirname(__file__), "..", "tests", "ndarray", "golden", "sparse", "sparse_arith.npz"
)


def operands() -> dict[str, np.ndarray]:
    rsp1 = np.zeros((5, 4), np.float32)
    rsp1[0] = [1, 0, 2, 0]
    rsp1[3] = [0, -3, 0, 4]
    rsp2 = np.zeros((5, 4), np.float32)
    rsp2[1] = [5, 6, 0, 0]
    rsp2[3] = [1, 3, 0, -4]
    csr1 = np.array(
        [[0, 1, 0, 0, 2], [0, 0, 0, 0, 0], [3, 0, 0, -1, 0], [0, 0, 4, 0, 0]], np.float32
    )
    csr2 = np.array(
        [[0, -1, 0, 5, 0], [6, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, -4, 0, 7]], np.float32
    )
    rng = np.random.RandomState(0)
    return {
        "rsp1": rsp1,
        "rsp2": rsp2,
        "csr1": csr1,
        "csr2": csr2,
        "dns": rng.uniform(0.5, 1.5, (5, 4)).astype(np.float32),
        "dns45": rng.uniform(0.5, 1.5, (4, 5)).astype(np.float32),
        "row": rng.uniform(0.5, 1.5, (1, 4)).astype(np.float32),
    }


def nd_operands(values: dict[str, np.ndarray]) -> dict[str, mx.nd.NDArray]:
    out = {}
    for name, v in values.items():
        a = mx.nd.array(v)
        if name.startswith("rsp"):
            a = mx.nd.sparse.row_sparse_array(
                (v[[0, 2, 3]] if name == "rsp1" else v[[1, 3]],
                 [0, 2, 3] if name == "rsp1" else [1, 3]),
                shape=v.shape,
            )  # fmt: skip
        elif name.startswith("csr"):
            a = a.tostype("csr")
        out[name] = a
    return out


BINARY = ["+", "-", "*", "/"]
PAIRS = [
    ("rsp1", "rsp2"),
    ("rsp1", "rsp1"),
    ("csr1", "csr2"),
    ("rsp1", "dns"),
    ("dns", "rsp1"),
    ("csr1", "dns45"),
    ("dns45", "csr1"),
    ("rsp1", "s"),
    ("s", "rsp1"),
    ("csr1", "s"),
    ("s", "csr1"),
    ("rsp1", "row"),
    ("row", "rsp1"),
]
EXPRS = [f"{a} {o} {b}" for a, b in PAIRS for o in BINARY] + [
    "-rsp1",
    "-csr1",
    "x = rsp1; x += rsp2",
    "x = rsp1; x -= rsp2",
    "x = rsp1; x *= rsp2",
    "x = csr1; x += csr2",
    "x = csr1; x *= csr2",
    "x = rsp1; x += dns",
    "x = rsp1; x *= s",
    "x = csr1; x *= s",
    "x = rsp1; x += s",
    "x = dns; x += rsp1",
    "x = dns; x *= rsp1",
]


def evaluate(expr: str, arrays: dict[str, mx.nd.NDArray]) -> mx.nd.NDArray:
    env = {k: v.copy() for k, v in arrays.items()}
    env["s"] = 2.5
    if ";" in expr:
        exec(expr, {}, env)
        return env["x"]
    return eval(expr, {}, env)


def main(out: str) -> None:
    values = operands()
    arrays = nd_operands(values)
    saved: dict[str, np.ndarray] = {f"operand_{k}": v for k, v in values.items()}
    table = []
    warnings.simplefilter("ignore")
    for i, expr in enumerate(EXPRS):
        try:
            res = evaluate(expr, arrays)
            res.wait_to_read()
        except Exception as exc:  # MXNet refuses the expression
            table.append({"expr": expr, "error": type(exc).__name__})
            continue
        table.append({"expr": expr, "stype": res.stype})
        saved[f"{i}_value"] = res.asnumpy()
        if res.stype == "row_sparse":
            saved[f"{i}_indices"] = res.indices.asnumpy()
        elif res.stype == "csr":
            # MXNet's csr + csr leaves its indices buffer at the operands' joint size, with
            # junk past indptr[-1]: the stored entries are the first indptr[-1]
            indptr = res.indptr.asnumpy()
            saved[f"{i}_indptr"] = indptr
            saved[f"{i}_indices"] = res.indices.asnumpy()[: indptr[-1]]
    saved["__cases__"] = np.array(json.dumps(table))
    np.savez_compressed(out, **saved)
    print(f"wrote {len(table)} cases to {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else OUT)
