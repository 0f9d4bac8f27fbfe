"""Milliseconds per ``dot(csr, dense)`` and ``dot(csr.T, dense)`` (row_sparse result) with a
20000x20000 CSR of density 0.001 and a 20000x64 dense array, each followed by a wait; mxlite
vs MXNet 1.9.1 in one run. Issue 16 asks for mxlite <= 1.5x MXNet (goal 1.0x)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

N, K, DENSITY = 20_000, 64, 0.001


def measure(impl: str, repeat: int) -> dict[str, float]:
    import numpy as np
    import scipy.sparse as sp

    mx = import_mx(impl)
    m = sp.random(N, N, density=DENSITY, format="csr", dtype=np.float32, random_state=0)
    csr = mx.nd.sparse.csr_matrix((m.data, m.indices, m.indptr), shape=(N, N))
    rhs = mx.nd.array(np.random.RandomState(1).uniform(size=(N, K)).astype(np.float32))
    mx.nd.waitall()

    def forward() -> None:
        mx.nd.sparse.dot(csr, rhs).wait_to_read()

    def transposed() -> None:
        mx.nd.sparse.dot(csr, rhs, transpose_a=True).wait_to_read()

    return {
        "dot_ms": round(median_time(forward, repeat) * 1e3, 3),
        "dot_transpose_ms": round(median_time(transposed, repeat) * 1e3, 3),
    }


if __name__ == "__main__":
    run("sparse_dot", measure, parser(__doc__).parse_args(), ["dot_ms", "dot_transpose_ms"])
