"""The ``_random_pdf_*`` operators (tests/operator/test_random_pdf.py): values and gradients
for inputs inside each distribution's support, in float16/32/64, as densities and as logs."""

import numpy as np

FILE = "tests/operator/golden/random_pdf.npz"
SEED = 20240611
RNG = np.random.default_rng(SEED)


def _u(lo, hi):
    return lambda shape: RNG.uniform(lo, hi, size=shape)


def _ints(hi):
    return lambda shape: RNG.integers(0, hi, size=shape).astype(np.float64)


# name: (sample maker, parameter makers)
DISTS = {
    "uniform": (_u(0.0, 1.0), [_u(-1.0, -0.1), _u(1.0, 2.0)]),
    "normal": (_u(-2.0, 2.0), [_u(-1.0, 1.0), _u(0.5, 2.0)]),
    "gamma": (_u(0.5, 3.0), [_u(1.5, 4.0), _u(0.5, 2.0)]),
    "exponential": (_u(0.1, 3.0), [_u(0.5, 2.0)]),
    "poisson": (_ints(6), [_u(0.5, 4.0)]),
    "negative_binomial": (_ints(6), [_u(0.5, 3.0), _u(0.2, 0.8)]),
    "generalized_negative_binomial": (_ints(6), [_u(0.5, 3.0), _u(0.3, 1.5)]),
}
# (sample shape, parameter shape)
LAYOUTS = [((2, 3, 4), (2,)), ((3, 4), (3, 4)), ((2, 3, 2), (2, 3))]
DIRICHLET_LAYOUTS = [((2, 3, 4), (2, 4)), ((5, 3), (3,)), ((3,), (3,)), ((2, 2, 3), (2, 2, 3))]
HALF = ["uniform", "normal", "exponential", "gamma"]


def _dirichlet_samples(shape):
    x = RNG.gamma(1.5, size=shape)
    return x / x.sum(axis=-1, keepdims=True)


BOTH = (False, True)  # densities and their logs
# the cases, in order: (distribution, dtype, sample shape, parameter shape, is_log)
TABLE = [(dist, dtype, sshape, pshape, is_log) for dist in DISTS for dtype in ("float32", "float64")
         for sshape, pshape in LAYOUTS for is_log in BOTH]  # fmt: skip
TABLE += [(dist, "float16", (2, 3), (2,), is_log) for dist in HALF for is_log in BOTH]
TABLE += [("dirichlet", dtype, sshape, pshape, is_log) for dtype in ("float32", "float64")
          for sshape, pshape in DIRICHLET_LAYOUTS for is_log in BOTH]  # fmt: skip


def cases(rng: np.random.Generator):
    for i, (dist, dtype, sshape, pshape, is_log) in enumerate(TABLE):
        if dist == "dirichlet":
            inputs = [_dirichlet_samples(sshape), RNG.uniform(0.5, 2.5, size=pshape)]
        else:
            make_sample, makers = DISTS[dist]
            inputs = [make_sample(sshape)] + [m(pshape) for m in makers]
        inputs = [np.asarray(a, dtype=dtype) for a in inputs]
        opts = {"head_dtype": dtype, "dtype": dtype, "is_log": is_log}
        yield str(i), f"_random_pdf_{dist}", inputs, {"is_log": is_log}, opts
