"""Record MXNet 1.9.1's ``_random_pdf_*`` operators (values and gradients) with real MXNet.

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_random_pdf.py [OUT_DIR]

OUT_DIR defaults to tests/operator/golden. Writes ``random_pdf.json`` (the case list: operator,
``is_log``, dtype, input shapes) and ``random_pdf.npz`` with, for case ``i``: its inputs
``i/in0..``, the forward output ``i/out``, a random head gradient ``i/head`` and the input
gradients of autograd ``i/grad0..``. Inputs lie inside each distribution's support; the seed is
fixed, so the files are the same on every run.
"""

from __future__ import annotations

import json
import os
import sys

import mxnet as mx
import numpy as np

RNG = np.random.default_rng(20240611)


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


def cases():
    out = []
    for dist in DISTS:
        for dtype in ("float32", "float64"):
            for sshape, pshape in LAYOUTS:
                for is_log in (False, True):
                    out.append((dist, dtype, sshape, pshape, is_log))
    for dist in HALF:
        for is_log in (False, True):
            out.append((dist, "float16", (2, 3), (2,), is_log))
    for dtype in ("float32", "float64"):
        for sshape, pshape in DIRICHLET_LAYOUTS:
            for is_log in (False, True):
                out.append(("dirichlet", dtype, sshape, pshape, is_log))
    return out


def run_case(i, dist, dtype, sshape, pshape, is_log, arrays):
    if dist == "dirichlet":
        inputs = [_dirichlet_samples(sshape), RNG.uniform(0.5, 2.5, size=pshape)]
    else:
        make_sample, makers = DISTS[dist]
        inputs = [make_sample(sshape)] + [m(pshape) for m in makers]
    inputs = [np.asarray(a, dtype=dtype) for a in inputs]
    nds = [mx.nd.array(a, dtype=dtype) for a in inputs]
    for x in nds:
        x.attach_grad()
    op = getattr(mx.nd._internal, f"_random_pdf_{dist}")
    with mx.autograd.record():
        y = op(*nds, is_log=is_log)
    head = RNG.uniform(-1.0, 1.0, size=y.shape).astype(dtype)
    y.backward(mx.nd.array(head, dtype=dtype))
    for j, a in enumerate(inputs):
        arrays[f"{i}/in{j}"] = a
        arrays[f"{i}/grad{j}"] = nds[j].grad.asnumpy()
    arrays[f"{i}/out"] = y.asnumpy()
    arrays[f"{i}/head"] = head
    return {"op": f"_random_pdf_{dist}", "dtype": dtype, "is_log": is_log, "n_in": len(inputs)}


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = (
        sys.argv[1]
        if len(sys.argv) > 1
        else os.path.join(here, "..", "tests", "operator", "golden")
    )
    arrays: dict[str, np.ndarray] = {}
    table = [run_case(i, *case, arrays) for i, case in enumerate(cases())]
    np.savez_compressed(os.path.join(out_dir, "random_pdf.npz"), **arrays)
    with open(os.path.join(out_dir, "random_pdf.json"), "w") as f:
        json.dump({"cases": table}, f, indent=0)
    print(f"{len(table)} cases")


if __name__ == "__main__":
    main()
