"""A small MobileFaceNet trained with Module against MXNet 1.9.1 (issue 32, item 2).

``mobilefacenet_case.py`` holds the workload (PReLU blocks, depthwise separable blocks, the GDC
head, a softmax head, an SGD optimizer object); ``tools/golden/cases/mobilefacenet.py`` records
MXNet's values. Compared: every gradient of the first step, every parameter after the first
step (relative to its update) and after the third (within what MXNet's own result moves when
the input moves by 1e-4), and the losses.

MXNet's two kernel sets disagree on this network: with ``MXNET_MKLDNN_ENABLED=0`` every PReLU
slope gradient is the slope times the true one (the graph runs LeakyReLU in place and its
backward then reads the output where it needs the input), while the default oneDNN kernels,
MXNet's imperative mode and mxlite give the true gradient. The golden values are the default
kernels'; the reference kernels' trajectory parts from them within a few steps.
"""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load
from tests.module import mobilefacenet_case as case

STEPS = 3


@pytest.fixture(scope="module")
def results() -> tuple[dict, dict]:
    return case.run(mx, STEPS), load("module/golden/mobilefacenet.npz").arrays("run")


def _initial(name: str, size: int) -> np.ndarray:
    sym = case.network(mx)
    names = sym.list_arguments()
    shapes = sym.infer_shape(data=(case.BATCH, 3, case.SIZE, case.SIZE))[0]
    k = names.index(name)
    a = case._initial(name, shapes[k], k).astype("float32")
    return a if a.size == size else case._sample(a)


def _keys(want: dict, prefix: str) -> list[str]:
    return sorted(k for k in want if k.startswith(prefix))


def test_first_step_gradients(results: tuple[dict, dict]) -> None:
    got, want = results
    keys = _keys(want, "grad/")
    assert keys and sorted(k for k in got if k.startswith("grad/")) == keys
    for key in keys:
        a, b = got[key], want[key]
        err = np.linalg.norm(a - b)
        assert err <= 5e-3 * np.linalg.norm(b) + 1e-6, f"{key}: off by {err:.3g}"


def test_first_step_updates(results: tuple[dict, dict]) -> None:
    """Learning rate, momentum, weight decay and rescale_grad on every parameter: the update
    of each, not its value, is compared (a wrong slope gradient moves a slope by a few 1e-3)."""
    got, want = results
    for key in _keys(want, "after1/"):
        init = _initial(key.split("/", 1)[1], want[key].size)
        step_got, step_want = got[key] - init, want[key] - init
        err = np.linalg.norm(step_got - step_want)
        assert err <= 5e-3 * np.linalg.norm(step_want) + 1e-7, f"{key}: off by {err:.3g}"


def test_three_steps(results: tuple[dict, dict]) -> None:
    """Per array, within ten times what MXNet's own result moves when the input moves by 1e-4
    (the betas of BatchNorms followed by another BatchNorm have rounding-noise gradients and
    move by as much as they are worth in three steps)."""
    got, want = results
    for key in [*_keys(want, f"after{STEPS}/"), "losses"]:
        a, b = got[key], want[key]
        err = np.linalg.norm(a - b)
        tol = 1e-4 * np.linalg.norm(b) + 10 * np.linalg.norm(want[f"spread/{key}"])
        assert err <= tol, f"{key}: off by {err:.3g}, tolerance {tol:.3g}"


def test_prelu_slope_gradient_in_a_graph_reads_the_input() -> None:
    """PReLU after BatchNorm in a bound graph: the slope gradient is sum(dy * min(x, 0)) per
    channel, as autograd gives it (MXNet's reference kernels give the slope times that)."""
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (2, 3, 4, 4)).astype("float32")
    head = rs.uniform(-1, 1, x.shape).astype("float32")
    slope = np.array([0.25, 0.5, 0.1], dtype="float32")
    bn = mx.sym.BatchNorm(mx.sym.var("data"), fix_gamma=False, name="bn")
    ex = mx.sym.LeakyReLU(bn, act_type="prelu", name="act").simple_bind(mx.cpu(), data=x.shape)
    ex.arg_dict["data"][:] = x
    ex.arg_dict["act_gamma"][:] = slope
    ex.arg_dict["bn_gamma"][:] = 1
    ex.arg_dict["bn_beta"][:] = 0
    ex.forward(is_train=True)
    ex.backward(mx.nd.array(head))
    xhat = (x - x.mean(axis=(0, 2, 3), keepdims=True)) / np.sqrt(
        x.var(axis=(0, 2, 3), keepdims=True) + 1e-3
    )
    want = (head * np.minimum(xhat, 0)).sum(axis=(0, 2, 3))
    np.testing.assert_allclose(ex.grad_dict["act_gamma"].asnumpy(), want, rtol=1e-4, atol=1e-5)
