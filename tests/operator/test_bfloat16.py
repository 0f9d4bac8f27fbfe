"""bfloat16 at the operator layer (mxlite/operator/bfloat16.py): float16's type rules, float32
kernels with results rounded to bfloat16, against MXNet 1.9.1's CPU build
(tools/golden/cases/bf16.py)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import BFLOAT16, MX_BFLOAT16, DTypeError
from mxlite.operator import registry
from mxlite.operator.bfloat16 import Float32Kernel
from tests.golden_file import load

from . import bfloat16_cases

GOLDEN = load("operator/golden/bf16.npz")
CASES = {c[0]: c for c in bfloat16_cases.cases()}
# MXNet's bfloat16 reductions add in bfloat16 (each partial sum rounded); here they add in float32
ULPS = {"sum": 2}


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many bfloat16 steps apart the bit patterns ``a`` and ``b`` are."""

    def ordered(x: np.ndarray) -> np.ndarray:
        x = x.astype(np.int32)
        return np.where(x & 0x8000, 0x8000 - x, x)

    return np.abs(ordered(a) - ordered(b))


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_within_one_rounding_of_mxnet(name: str) -> None:
    _, op, inputs, params, fp32 = CASES[name]
    out = bfloat16_cases.run(mx, op, inputs, params, fp32)
    assert out.dtype == MX_BFLOAT16
    got = out.asnumpy()["bfloat16"]
    want = GOLDEN.arrays(name)["out_bits"]
    assert got.shape == want.shape
    assert _ulps(got, want).max() <= ULPS.get(name, 1)


def test_amp_cast_rounds_as_mxnet() -> None:
    x = mx.nd.array(bfloat16_cases.EDGES)
    got = mx.nd.amp_cast(x, dtype=MX_BFLOAT16).asnumpy()["bfloat16"]
    want = GOLDEN.arrays("edges")["amp_cast"]
    # MXNet's oneDNN flushes float32 subnormals to zero; ml_dtypes keeps the smallest bfloat16
    sub = np.abs(bfloat16_cases.EDGES) < np.finfo(np.float32).tiny
    sub &= bfloat16_cases.EDGES != 0
    np.testing.assert_array_equal(got[~sub], want[~sub])
    # MXNet's astype truncates (mshadow's bf16_t); here it rounds like amp_cast: one step at most
    got = x.astype(MX_BFLOAT16).asnumpy()["bfloat16"]
    assert _ulps(got[~sub], GOLDEN.arrays("edges")["astype"][~sub]).max() <= 1


def test_type_rules_are_float16s() -> None:
    data = mx.sym.var("data", dtype=MX_BFLOAT16)
    bn = mx.sym.BatchNorm(data, name="bn")
    args, outs, aux = bn.infer_type()
    assert args == [MX_BFLOAT16, np.float32, np.float32] and aux == [np.float32, np.float32]
    assert outs == [MX_BFLOAT16]
    fc = mx.sym.FullyConnected(data, mx.sym.var("w", dtype="float32"), num_hidden=2, no_bias=True)
    with pytest.raises(DTypeError, match="FullyConnected.*'weight'.*float32.*bfloat16"):
        fc.infer_type()
    x = mx.nd.ones((2, 2), dtype=MX_BFLOAT16)
    with pytest.raises(DTypeError, match="elemwise_add.*mix bfloat16 and float16"):
        mx.nd.elemwise_add(x, mx.nd.ones((2, 2), dtype="float16"))
    with pytest.raises(DTypeError, match="InstanceNorm.*bfloat16"):  # float32 only, as MXNet
        mx.nd.InstanceNorm(x.reshape((1, 2, 2)), mx.nd.ones((2,)), mx.nd.zeros((2,)))


def test_kernels_see_float32_only() -> None:
    prop = registry.get("relu").get_prop({})
    op = prop.operator_for(mx.cpu(), [BFLOAT16])
    assert isinstance(op, Float32Kernel) and op is prop.operator_for(mx.cpu(), [BFLOAT16])
    assert prop.operator_for(mx.cpu(), [np.dtype(np.float32)]) is prop.operator(mx.cpu())
    cast = registry.get("amp_cast").get_prop({"dtype": "bfloat16"})
    assert cast.operator_for(mx.cpu(), [BFLOAT16]) is cast.operator(mx.cpu())


def test_requests_write_add_and_auxiliary_states() -> None:
    x = mx.nd.array([[1.0, -2.0, 3.0]]).astype(MX_BFLOAT16)
    out = mx.nd.ones((1, 3), dtype=MX_BFLOAT16)
    mx.nd.relu(x, out=out)
    np.testing.assert_array_equal(out.astype("float32").asnumpy(), [[1.0, 0.0, 3.0]])
    g = mx.nd.ones((1, 3), dtype=MX_BFLOAT16)
    x.attach_grad(grad_req="add")
    x.grad[:] = 1
    for _ in range(2):
        with mx.autograd.record():
            y = mx.nd.square(x)
        y.backward(g)
    assert x.grad.dtype == MX_BFLOAT16
    np.testing.assert_array_equal(x.grad.astype("float32").asnumpy(), [[5.0, -7.0, 13.0]])
    # BatchNorm in training updates its float32 moving statistics (in its backward, as MXNet's)
    # from bfloat16 data as from float32 data (the values are exact in bfloat16)
    stats = []
    for dtype in (MX_BFLOAT16, np.float32):
        data = mx.nd.array(np.arange(16, dtype=np.float32).reshape(2, 4, 1, 2)).astype(dtype)
        data.attach_grad()
        mean, var = mx.nd.zeros((4,)), mx.nd.ones((4,))
        with mx.autograd.record(train_mode=True):
            y = mx.nd.BatchNorm(data, mx.nd.ones((4,)), mx.nd.zeros((4,)), mean, var)
        y.backward()
        stats.append(np.concatenate([mean.asnumpy(), var.asnumpy()]))
    np.testing.assert_array_equal(stats[0], stats[1])
    assert stats[0].any()


def test_graph_and_imperative_agree() -> None:
    data = mx.sym.var("data")
    net = mx.sym.Activation(mx.sym.Convolution(data, kernel=(3, 3), num_filter=2, name="c"),
                            act_type="relu")  # fmt: skip
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, (1, 2, 5, 5))).astype(MX_BFLOAT16)
    w = mx.nd.array(rng.uniform(-1, 1, (2, 2, 3, 3))).astype(MX_BFLOAT16)
    b = mx.nd.array(rng.uniform(-1, 1, (2,))).astype(MX_BFLOAT16)
    exe = net.simple_bind(mx.cpu(), data=(1, 2, 5, 5), type_dict={"data": MX_BFLOAT16})
    assert [a.dtype for a in exe.arg_arrays] == [MX_BFLOAT16] * 3
    got = exe.forward(data=x, c_weight=w, c_bias=b)[0]
    want = mx.nd.relu(mx.nd.Convolution(x, w, b, kernel=(3, 3), num_filter=2))
    assert got.dtype == MX_BFLOAT16
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_dtype_parameters_take_bfloat16_as_mxnets() -> None:
    # MXNet's MXNET_ADD_ALL_TYPES operators (one_hot, the init operators, Cast, amp_cast)
    hot = mx.nd.one_hot(mx.nd.array([0, 2]), 3, dtype=MX_BFLOAT16)
    for out in (
        hot,
        mx.nd.zeros((2, 3), dtype="bfloat16") + hot,
        mx.nd.Cast(mx.nd.one_hot(mx.nd.array([0, 2]), 3), dtype="bfloat16"),
    ):
        assert out.dtype == MX_BFLOAT16
        np.testing.assert_array_equal(out.astype("float32").asnumpy(), [[1, 0, 0], [0, 0, 1]])


@pytest.mark.parametrize(
    ("op", "kwargs"),
    [("Dropout", {}), ("UpSampling", {"scale": 2, "sample_type": "nearest"}),
     ("L2Normalization", {}), ("dot", {"transpose_b": True})],
)  # fmt: skip
def test_operators_mxnet_refuses_refuse_bfloat16(op: str, kwargs: dict) -> None:
    # MXNet 1.9.1 stops these with "Unknown type enum 12" (dot: "only supports float32/64")
    x = mx.nd.ones((1, 2, 3, 3), dtype=MX_BFLOAT16)
    args = [x, x] if op == "dot" else [x]
    with pytest.raises(DTypeError, match=f"{op}: MXNet 1.9.1 has no bfloat16 kernel"):
        getattr(mx.nd, op)(*args, **kwargs)
    f32 = [mx.nd.amp_cast(a, dtype="float32") for a in args]
    assert getattr(mx.nd, op)(*f32, **kwargs).dtype == np.float32  # the way out it names
