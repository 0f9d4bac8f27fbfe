"""mx.np through HybridBlocks (tests/numpy/test_golden_hybrid.py): for every case of
tests/numpy/hybrid_cases.py and each way it runs, MXNet 1.9.1's outputs, their dtypes and the
input gradients (``<case>/<mode>/out<j>``, ``<case>/<mode>/grad<i>``), or why MXNet refused it;
and the signatures ``mx._numpy_op_doc`` documents (case ``signatures``)."""

import inspect
from typing import Any

import mxnet as mx
from core import Golden, load_module, refusal

FILE = "tests/numpy/golden/numpy_hybrid.npz"


def record(golden: Golden) -> None:
    c = load_module("tests/numpy/hybrid_cases.py")
    mx.npx.set_np()
    for name, expr, inputs, modes in c.CASES:
        values = c.case_inputs(inputs)
        meta: dict[str, Any] = {"expr": expr, "modes": {}}
        arrays = {f"in{i}": v for i, v in enumerate(values.values())}
        for mode in modes:
            try:
                res = c.run_case(mx, expr, values, mode)
            except Exception as e:  # MXNet refuses it
                meta["modes"][mode] = {"error": refusal(e)}
                continue
            meta["modes"][mode] = {"dtypes": res["dtypes"], "n_out": len(res["outs"])}
            arrays.update({f"{mode}/out{j}": o for j, o in enumerate(res["outs"])})
            arrays.update(
                {f"{mode}/grad{i}": g for i, g in enumerate(res["grads"]) if g is not None}
            )
        golden.put(name, meta, **arrays)
    from mxnet import _numpy_op_doc

    sigs = {
        n: str(inspect.signature(getattr(_numpy_op_doc, n)))
        for n in dir(_numpy_op_doc)
        if n.startswith(("_np_", "_npx_"))
    }
    golden.put("signatures", {"signatures": sigs})
