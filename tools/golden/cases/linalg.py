"""dot, batch_dot and the linalg operators (tests/operator/test_dot.py, test_linalg.py): each
case draws its inputs by kind (see :func:`draw`); head gradients are standard normal."""

import numpy as np

FILE = "tests/operator/golden/linalg.npz"
SEED = 20240519
GENERATOR = "default_rng"

F32, F64 = "float32", "float64"

# (id, operator path under mx.nd, params, [(input kind, shape, dtype)])
# fmt: off
CASES = [
    ("dot_2d", "dot", {}, [("n", (3, 4), F32), ("n", (4, 5), F32)]),
    ("dot_ta", "dot", {"transpose_a": True}, [("n", (4, 3), F32), ("n", (4, 5), F32)]),
    ("dot_tb", "dot", {"transpose_b": True}, [("n", (3, 4), F64), ("n", (5, 4), F64)]),
    ("dot_tab", "dot", {"transpose_a": True, "transpose_b": True},
     [("n", (4, 3), F32), ("n", (5, 4), F32)]),
    ("dot_3d2d", "dot", {}, [("n", (2, 3, 4), F32), ("n", (4, 5), F32)]),
    ("dot_3d3d", "dot", {}, [("n", (2, 3, 4), F64), ("n", (4, 2, 2), F64)]),
    ("dot_3d_ta", "dot", {"transpose_a": True}, [("n", (2, 3, 4), F32), ("n", (2, 5), F32)]),
    ("dot_3d_tb", "dot", {"transpose_b": True}, [("n", (5, 4), F32), ("n", (2, 3, 4), F32)]),
    ("dot_1d1d", "dot", {}, [("n", (5,), F32), ("n", (5,), F32)]),
    ("dot_1d2d", "dot", {}, [("n", (4,), F32), ("n", (4, 3), F32)]),
    ("dot_1d2d_ta", "dot", {"transpose_a": True}, [("n", (4,), F64), ("n", (4, 3), F64)]),
    ("dot_2d1d", "dot", {}, [("n", (3, 4), F32), ("n", (4,), F32)]),
    ("dot_2d1d_tb", "dot", {"transpose_b": True}, [("n", (3, 4), F32), ("n", (4,), F32)]),
    ("bdot", "batch_dot", {}, [("n", (2, 3, 4), F32), ("n", (2, 4, 5), F32)]),
    ("bdot_ta", "batch_dot", {"transpose_a": True}, [("n", (2, 4, 3), F64), ("n", (2, 4, 5), F64)]),
    ("bdot_tb", "batch_dot", {"transpose_b": True}, [("n", (2, 3, 4), F32), ("n", (2, 5, 4), F32)]),
    ("bdot_tab", "batch_dot", {"transpose_a": True, "transpose_b": True},
     [("n", (2, 4, 3), F32), ("n", (2, 5, 4), F32)]),
    ("bdot_4d", "batch_dot", {}, [("n", (2, 2, 3, 4), F32), ("n", (2, 2, 4, 2), F32)]),
    ("gemm_2d", "linalg.gemm", {}, [("n", (3, 4), F32), ("n", (4, 5), F32), ("n", (3, 5), F32)]),
    ("gemm_t", "linalg.gemm",
     {"transpose_a": True, "transpose_b": True, "alpha": 0.5, "beta": -2.0},
     [("n", (2, 4, 3), F64), ("n", (2, 5, 4), F64), ("n", (2, 3, 5), F64)]),
    ("gemm_axis1", "linalg.gemm", {"axis": 1, "transpose_b": True, "alpha": 1.5},
     [("n", (2, 3, 2, 4), F32), ("n", (2, 5, 2, 4), F32), ("n", (2, 3, 2, 5), F32)]),
    ("gemm2_2d", "linalg.gemm2", {}, [("n", (3, 4), F32), ("n", (4, 5), F32)]),
    ("gemm2_ta", "linalg.gemm2", {"transpose_a": True, "alpha": 2.0},
     [("n", (2, 4, 3), F64), ("n", (2, 4, 5), F64)]),
    ("gemm2_axis0", "linalg.gemm2", {"axis": 0, "transpose_a": True},
     [("n", (4, 2, 3), F32), ("n", (4, 2, 5), F32)]),
    ("syrk", "linalg.syrk", {}, [("n", (2, 3, 4), F32)]),
    ("syrk_t", "linalg.syrk", {"transpose": True, "alpha": 0.5}, [("n", (3, 4), F64)]),
    ("potrf", "linalg.potrf", {}, [("spd_l", (2, 3, 3), F64)]),
    ("potrf_f32", "linalg.potrf", {}, [("spd_l", (4, 4), F32)]),
    ("potrf_up", "linalg.potrf", {"lower": False}, [("spd_u", (2, 3, 3), F64)]),
    ("potri", "linalg.potri", {}, [("tri", (2, 3, 3), F64)]),
    ("potri_up", "linalg.potri", {"lower": False}, [("tri", (3, 3), F32)]),
    ("gelqf", "linalg.gelqf", {}, [("n", (2, 3), F64)]),
    ("gelqf_b", "linalg.gelqf", {}, [("n", (2, 3, 5), F32)]),
    ("syevd", "linalg.syevd", {}, [("n", (3, 3), F64)]),
    ("syevd_b", "linalg.syevd", {}, [("n", (2, 4, 4), F32)]),
    ("inverse", "linalg.inverse", {}, [("n", (2, 3, 3), F64)]),
    ("inverse_f32", "linalg.inverse", {}, [("n", (3, 3), F32)]),
    ("det", "linalg.det", {}, [("n", (3, 3), F64)]),
    ("det_b", "linalg.det", {}, [("n", (3, 2, 2), F32)]),
    ("det_sing", "linalg.det", {}, [("sing", (2, 3, 3), F64)]),
    ("slogdet", "linalg.slogdet", {}, [("n", (2, 3, 3), F64)]),
    ("slogdet_f32", "linalg.slogdet", {}, [("n", (4, 4), F32)]),
    ("slogdet_sing", "linalg.slogdet", {}, [("sing", (2, 3, 3), F64)]),
    ("sumlogdiag", "linalg.sumlogdiag", {}, [("posdiag", (3, 3), F32)]),
    ("sumlogdiag_b", "linalg.sumlogdiag", {}, [("posdiag", (2, 2, 3, 3), F64)]),
    ("extractdiag", "linalg.extractdiag", {}, [("n", (2, 3, 3), F32)]),
    ("extractdiag_p", "linalg.extractdiag", {"offset": 1}, [("n", (4, 4), F64)]),
    ("extractdiag_m", "linalg.extractdiag", {"offset": -2}, [("n", (2, 4, 4), F32)]),
    ("makediag", "linalg.makediag", {}, [("n", (2, 3), F32)]),
    ("makediag_p", "linalg.makediag", {"offset": 2}, [("n", (3,), F64)]),
    ("makediag_m", "linalg.makediag", {"offset": -1}, [("n", (2, 2, 3), F32)]),
    ("extracttrian", "linalg.extracttrian", {}, [("n", (2, 4, 4), F32)]),
    ("extracttrian_up", "linalg.extracttrian", {"lower": False}, [("n", (4, 4), F64)]),
    ("extracttrian_p", "linalg.extracttrian", {"offset": 1}, [("n", (2, 4, 4), F32)]),
    ("extracttrian_m", "linalg.extracttrian", {"offset": -2, "lower": False}, [("n", (4, 4), F64)]),
    ("maketrian", "linalg.maketrian", {}, [("n", (2, 6), F32)]),
    ("maketrian_up", "linalg.maketrian", {"lower": False}, [("n", (10,), F64)]),
    ("maketrian_p", "linalg.maketrian", {"offset": 2}, [("n", (2, 3), F32)]),
    ("maketrian_m", "linalg.maketrian", {"offset": -1}, [("n", (2, 2, 6), F64)]),
]
# fmt: on
# trmm and trsm: every combination of transpose, rightside and lower (tag: t/n, r/l, l/u)
# fmt: off
CASES += [(f"{op}_{'tn'[not t]}{'rl'[not r]}{'lu'[not lo]}", f"linalg.{op}",
           {"transpose": t, "rightside": r, "lower": lo, "alpha": 0.75 if t else 1.0},
           [("tri", (2, 3, 3), F64 if lo else F32), ("n", (2, 4, 3) if r else (2, 3, 4),
            F64 if lo else F32)])
          for t in (False, True) for r in (False, True) for lo in (True, False)
          for op in ("trmm", "trsm")]
# fmt: on


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


def cases(rng: np.random.Generator):
    for cid, op, params, specs in CASES:
        xs = [draw(rng, kind, shape).astype(dt) for kind, shape, dt in specs]
        yield cid, op, xs, params, {"head": "normal", "dtypes": [dt for _, _, dt in specs]}
