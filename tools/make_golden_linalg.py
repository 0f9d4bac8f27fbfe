"""Record dot, batch_dot and the linalg operators as computed by MXNet 1.9.1.

Run under real MXNet (never imported by mxlite):

    /tmp/mxref/bin/python tools/make_golden_linalg.py

It writes tests/operator/golden/linalg.npz. For each case (an operator under ``mx.nd``, its
keyword arguments, and how to draw each input) it stores the inputs ``<id>:in<i>``, the
outputs ``<id>:out<j>``, a random head gradient per output ``<id>:head<j>``, and the input
gradients from MXNet's autograd ``<id>:grad<i>``. The case table itself is stored as JSON under
the key ``__cases__``, so the tests need no second file.
"""

import json
import os
import sys

import mxnet as mx
import numpy as np

F32, F64 = "float32", "float64"

# (id, operator path under mx.nd, params, [(input kind, shape, dtype)], record gradients)
CASES = [
    ("dot_2d", "dot", {}, [("n", (3, 4), F32), ("n", (4, 5), F32)], True),
    ("dot_ta", "dot", {"transpose_a": True}, [("n", (4, 3), F32), ("n", (4, 5), F32)], True),
    ("dot_tb", "dot", {"transpose_b": True}, [("n", (3, 4), F64), ("n", (5, 4), F64)], True),
    (
        "dot_tab",
        "dot",
        {"transpose_a": True, "transpose_b": True},
        [("n", (4, 3), F32), ("n", (5, 4), F32)],
        True,
    ),
    ("dot_3d2d", "dot", {}, [("n", (2, 3, 4), F32), ("n", (4, 5), F32)], True),
    ("dot_3d3d", "dot", {}, [("n", (2, 3, 4), F64), ("n", (4, 2, 2), F64)], True),
    ("dot_3d_ta", "dot", {"transpose_a": True}, [("n", (2, 3, 4), F32), ("n", (2, 5), F32)], True),
    ("dot_3d_tb", "dot", {"transpose_b": True}, [("n", (5, 4), F32), ("n", (2, 3, 4), F32)], True),
    ("dot_1d1d", "dot", {}, [("n", (5,), F32), ("n", (5,), F32)], True),
    ("dot_1d2d", "dot", {}, [("n", (4,), F32), ("n", (4, 3), F32)], True),
    ("dot_1d2d_ta", "dot", {"transpose_a": True}, [("n", (4,), F64), ("n", (4, 3), F64)], True),
    ("dot_2d1d", "dot", {}, [("n", (3, 4), F32), ("n", (4,), F32)], True),
    ("dot_2d1d_tb", "dot", {"transpose_b": True}, [("n", (3, 4), F32), ("n", (4,), F32)], True),
    ("bdot", "batch_dot", {}, [("n", (2, 3, 4), F32), ("n", (2, 4, 5), F32)], True),
    (
        "bdot_ta",
        "batch_dot",
        {"transpose_a": True},
        [("n", (2, 4, 3), F64), ("n", (2, 4, 5), F64)],
        True,
    ),
    (
        "bdot_tb",
        "batch_dot",
        {"transpose_b": True},
        [("n", (2, 3, 4), F32), ("n", (2, 5, 4), F32)],
        True,
    ),
    (
        "bdot_tab",
        "batch_dot",
        {"transpose_a": True, "transpose_b": True},
        [("n", (2, 4, 3), F32), ("n", (2, 5, 4), F32)],
        True,
    ),
    ("bdot_4d", "batch_dot", {}, [("n", (2, 2, 3, 4), F32), ("n", (2, 2, 4, 2), F32)], True),
    (
        "gemm_2d",
        "linalg.gemm",
        {},
        [("n", (3, 4), F32), ("n", (4, 5), F32), ("n", (3, 5), F32)],
        True,
    ),
    (
        "gemm_t",
        "linalg.gemm",
        {"transpose_a": True, "transpose_b": True, "alpha": 0.5, "beta": -2.0},
        [("n", (2, 4, 3), F64), ("n", (2, 5, 4), F64), ("n", (2, 3, 5), F64)],
        True,
    ),
    (
        "gemm_axis1",
        "linalg.gemm",
        {"axis": 1, "transpose_b": True, "alpha": 1.5},
        [("n", (2, 3, 2, 4), F32), ("n", (2, 5, 2, 4), F32), ("n", (2, 3, 2, 5), F32)],
        True,
    ),
    ("gemm2_2d", "linalg.gemm2", {}, [("n", (3, 4), F32), ("n", (4, 5), F32)], True),
    (
        "gemm2_ta",
        "linalg.gemm2",
        {"transpose_a": True, "alpha": 2.0},
        [("n", (2, 4, 3), F64), ("n", (2, 4, 5), F64)],
        True,
    ),
    (
        "gemm2_axis0",
        "linalg.gemm2",
        {"axis": 0, "transpose_a": True},
        [("n", (4, 2, 3), F32), ("n", (4, 2, 5), F32)],
        True,
    ),
    ("syrk", "linalg.syrk", {}, [("n", (2, 3, 4), F32)], True),
    ("syrk_t", "linalg.syrk", {"transpose": True, "alpha": 0.5}, [("n", (3, 4), F64)], True),
    ("potrf", "linalg.potrf", {}, [("spd_l", (2, 3, 3), F64)], True),
    ("potrf_f32", "linalg.potrf", {}, [("spd_l", (4, 4), F32)], True),
    ("potrf_up", "linalg.potrf", {"lower": False}, [("spd_u", (2, 3, 3), F64)], True),
    ("potri", "linalg.potri", {}, [("tri", (2, 3, 3), F64)], True),
    ("potri_up", "linalg.potri", {"lower": False}, [("tri", (3, 3), F32)], True),
    ("gelqf", "linalg.gelqf", {}, [("n", (2, 3), F64)], True),
    ("gelqf_b", "linalg.gelqf", {}, [("n", (2, 3, 5), F32)], True),
    ("syevd", "linalg.syevd", {}, [("n", (3, 3), F64)], True),
    ("syevd_b", "linalg.syevd", {}, [("n", (2, 4, 4), F32)], True),
    ("inverse", "linalg.inverse", {}, [("n", (2, 3, 3), F64)], True),
    ("inverse_f32", "linalg.inverse", {}, [("n", (3, 3), F32)], True),
    ("det", "linalg.det", {}, [("n", (3, 3), F64)], True),
    ("det_b", "linalg.det", {}, [("n", (3, 2, 2), F32)], True),
    ("det_sing", "linalg.det", {}, [("sing", (2, 3, 3), F64)], True),
    ("slogdet", "linalg.slogdet", {}, [("n", (2, 3, 3), F64)], True),
    ("slogdet_f32", "linalg.slogdet", {}, [("n", (4, 4), F32)], True),
    ("slogdet_sing", "linalg.slogdet", {}, [("sing", (2, 3, 3), F64)], True),
    ("sumlogdiag", "linalg.sumlogdiag", {}, [("posdiag", (3, 3), F32)], True),
    ("sumlogdiag_b", "linalg.sumlogdiag", {}, [("posdiag", (2, 2, 3, 3), F64)], True),
    ("extractdiag", "linalg.extractdiag", {}, [("n", (2, 3, 3), F32)], True),
    ("extractdiag_p", "linalg.extractdiag", {"offset": 1}, [("n", (4, 4), F64)], True),
    ("extractdiag_m", "linalg.extractdiag", {"offset": -2}, [("n", (2, 4, 4), F32)], True),
    ("makediag", "linalg.makediag", {}, [("n", (2, 3), F32)], True),
    ("makediag_p", "linalg.makediag", {"offset": 2}, [("n", (3,), F64)], True),
    ("makediag_m", "linalg.makediag", {"offset": -1}, [("n", (2, 2, 3), F32)], True),
    ("extracttrian", "linalg.extracttrian", {}, [("n", (2, 4, 4), F32)], True),
    ("extracttrian_up", "linalg.extracttrian", {"lower": False}, [("n", (4, 4), F64)], True),
    ("extracttrian_p", "linalg.extracttrian", {"offset": 1}, [("n", (2, 4, 4), F32)], True),
    (
        "extracttrian_m",
        "linalg.extracttrian",
        {"offset": -2, "lower": False},
        [("n", (4, 4), F64)],
        True,
    ),
    ("maketrian", "linalg.maketrian", {}, [("n", (2, 6), F32)], True),
    ("maketrian_up", "linalg.maketrian", {"lower": False}, [("n", (10,), F64)], True),
    ("maketrian_p", "linalg.maketrian", {"offset": 2}, [("n", (2, 3), F32)], True),
    ("maketrian_m", "linalg.maketrian", {"offset": -1}, [("n", (2, 2, 6), F64)], True),
]
# trmm and trsm: every combination of transpose, rightside and lower
for _t in (False, True):
    for _r in (False, True):
        for _lo in (True, False):
            _p = {"transpose": _t, "rightside": _r, "lower": _lo, "alpha": 0.75 if _t else 1.0}
            _b = (2, 4, 3) if _r else (2, 3, 4)
            _dt = F64 if _lo else F32
            _tag = f"{'t' if _t else 'n'}{'r' if _r else 'l'}{'l' if _lo else 'u'}"
            CASES.append(
                (f"trmm_{_tag}", "linalg.trmm", _p, [("tri", (2, 3, 3), _dt), ("n", _b, _dt)], True)
            )
            CASES.append(
                (f"trsm_{_tag}", "linalg.trsm", _p, [("tri", (2, 3, 3), _dt), ("n", _b, _dt)], True)
            )


def draw(rng, kind, shape):
    """One input: 'n' normal; 'spd_l'/'spd_u' symmetric positive definite in the lower/upper
    triangle with noise in the other one (the operator must not read it); 'tri' a full matrix
    with a strong positive diagonal (triangular operators read one triangle); 'posdiag' a
    positive diagonal; 'sing' a batch whose first matrix is exactly singular."""
    x = rng.standard_normal(shape)
    n = shape[-1]
    if kind in ("spd_l", "spd_u"):
        spd = x @ x.swapaxes(-1, -2) + n * np.eye(n)
        noise = 10 * rng.standard_normal(shape)
        return spd + (np.triu(noise, 1) if kind == "spd_l" else np.tril(noise, -1))
    if kind in ("tri", "posdiag"):
        idx = np.arange(n)
        x[..., idx, idx] = np.abs(x[..., idx, idx]) + (1.5 if kind == "tri" else 0.5)
        return x
    if kind == "sing":
        x = np.round(4 * x)
        x[0, 1] = 2 * x[0, 0]
        return x
    return x


def run_case(rng, op, params, specs):
    fn = mx.nd
    for part in op.split("."):
        fn = getattr(fn, part)
    xs = [draw(rng, kind, shape).astype(dt) for kind, shape, dt in specs]
    arrs = [mx.nd.array(x, dtype=x.dtype) for x in xs]
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record():
        y = fn(*arrs, **params)
    ys = y if isinstance(y, list) else [y]
    heads = [rng.standard_normal(o.shape).astype(o.dtype) for o in ys]
    mx.autograd.backward(ys, [mx.nd.array(h, dtype=h.dtype) for h in heads])
    return xs, [o.asnumpy() for o in ys], heads, [a.grad.asnumpy() for a in arrs]


def main():
    rng = np.random.default_rng(20240519)
    data = {}
    table = []
    for cid, op, params, specs, grad in CASES:
        xs, ys, heads, grads = run_case(rng, op, params, specs)
        table.append(
            {
                "id": cid,
                "op": op,
                "params": params,
                "grad": grad,
                "dtypes": [dt for _, _, dt in specs],
            }
        )
        for i, x in enumerate(xs):
            data[f"{cid}:in{i}"] = x
        for j, (y, h) in enumerate(zip(ys, heads)):
            data[f"{cid}:out{j}"] = y
            data[f"{cid}:head{j}"] = h
        for i, g in enumerate(grads):
            data[f"{cid}:grad{i}"] = g
    data["__cases__"] = np.array(json.dumps(table))
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "tests", "operator", "golden", "linalg.npz")
    np.savez_compressed(path, **data)
    print(f"wrote {len(CASES)} cases to {os.path.normpath(path)}", file=sys.stderr)


if __name__ == "__main__":
    main()
