"""NDArray arithmetic on sparse operands (tests/ndarray/test_sparse_arith.py; the expressions of
tests/ndarray/sparse_arith_cases.py): case ``operands`` holds their dense values; case ``e<i>``
the ``expr`` and the result's ``stype`` (or MXNet's ``error``), its dense ``value`` and, for a
sparse result, its stored ``indices`` (and ``indptr`` for CSR)."""

import warnings

import mxnet as mx
from core import Golden, load_module

FILE = "tests/ndarray/golden/sparse/sparse_arith.npz"


def record(golden: Golden) -> None:
    c = load_module("tests/ndarray/sparse_arith_cases.py")
    values = c.operands()
    golden.put("operands", {}, **values)
    arrays = c.nd_operands(mx, values)
    warnings.simplefilter("ignore")
    for i, expr in enumerate(c.EXPRS):
        try:
            res = c.evaluate(expr, arrays)
            res.wait_to_read()
        except Exception as exc:  # MXNet refuses the expression
            golden.put(f"e{i}", {"expr": expr, "error": type(exc).__name__})
            continue
        found = {"value": res.asnumpy()}
        if res.stype == "row_sparse":
            found["indices"] = res.indices.asnumpy()
        elif res.stype == "csr":
            # MXNet's csr + csr leaves its indices buffer at the operands' joint size, with
            # junk past indptr[-1]: the stored entries are the first indptr[-1]
            found["indptr"] = res.indptr.asnumpy()
            found["indices"] = res.indices.asnumpy()[: found["indptr"][-1]]
        golden.put(f"e{i}", {"expr": expr, "stype": res.stype}, **found)
