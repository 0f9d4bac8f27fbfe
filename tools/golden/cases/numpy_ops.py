"""mx.np operators imperatively and in hybridized blocks (tests/numpy/test_ops_golden.py; the
tables of tests/numpy/numpy_ops_cases.py): case ``v<k>`` holds value expression ``k``'s
``dtype`` and ``shape`` and its outputs ``out0`` (imperative) and ``out1`` (hybridized); case
``g<k>`` gradient expression ``k``'s ``dtypes`` and ``grad<h>_<n>`` (input ``n``, hybridized
``h``); cases ``shapes``, ``errors``, ``others`` and ``symbols`` map each expression of those
tables to what MXNet gave (dtype and shape per run, the exception's class, the result's type
and text, the symbol's JSON)."""

import json

import mxnet as mx
from core import Golden, load_module

FILE = "tests/numpy/golden/numpy_ops_cases.npz"


def _error(expr: str, scope: dict) -> str:
    try:
        eval(expr, dict(scope))
    except Exception as e:  # noqa: BLE001  (its class is what is recorded)
        return type(e).__name__
    return "no error"


def record(golden: Golden) -> None:
    c = load_module("tests/numpy/numpy_ops_cases.py")
    mx.npx.set_np()
    env = c.context(mx)
    run = env["run"]
    for k, (expr, names) in enumerate(c.VALUES):
        outs = [run(expr, list(names), hybrid)[0] for hybrid in (False, True)]
        meta = {"expr": expr, "dtype": str(outs[0].dtype), "shape": list(outs[0].shape)}
        golden.put(f"v{k}", meta, **{f"out{h}": o.asnumpy() for h, o in enumerate(outs)})
    for k, (expr, names, wrt) in enumerate(c.GRADS):
        arrays = {}
        for h in (0, 1):
            _, grads = run(expr, list(names), h, wrt)
            arrays.update({f"grad{h}_{n}": g.asnumpy() for n, g in zip(wrt, grads)})
        golden.put(f"g{k}", {"expr": expr, "dtypes": [str(g.dtype) for g in grads]}, **arrays)
    shapes = {}
    for expr, names in c.SHAPES:
        outs = [run(expr, list(names), hybrid)[0] for hybrid in (False, True)]
        shapes[expr] = [{"dtype": str(o.dtype), "shape": list(o.shape)} for o in outs]
    golden.put("shapes", shapes)
    scope = {**env, **env["ARRAYS"]}
    golden.put("errors", {expr: _error(expr, scope) for expr in c.ERRORS})
    others = {}
    for expr in c.OTHERS:
        res = eval(expr, dict(scope))
        others[expr] = {"type": type(res).__name__, "value": str(res)}
    golden.put("others", others)
    golden.put("symbols", {e: json.loads(eval(e, dict(env)).tojson()) for e in c.SYMBOLS})
