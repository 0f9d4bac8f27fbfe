"""AMP's casts and finiteness checks (mxlite/operator/tensor/amp.py); the expected values are
what real MXNet 1.9.1 gives for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx


def test_amp_cast_casts_only_between_float16_and_float32():
    x = mx.sym.var("x", dtype=np.float32)
    exe = mx.sym.amp_cast(x, dtype=np.float16).bind(
        mx.cpu(),
        {"x": mx.nd.array([1.5, 70000, -3])},
        args_grad={"x": mx.nd.zeros(3)},
    )
    exe.forward(is_train=True)
    assert exe.outputs[0].dtype == np.float16
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [1.5, np.inf, -3])  # no warning
    exe.backward(mx.nd.array([1, 2, 3], dtype="float16"))
    assert exe.grad_arrays[0].dtype == np.float32
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [1, 2, 3])
    ints = mx.nd.amp_cast(mx.nd.array([1, 2], dtype="int32"), dtype="float16")
    assert ints.dtype == np.int32  # other dtypes pass unchanged


def test_amp_multicast_casts_to_the_widest_or_narrowest_float():
    a = mx.sym.var("a", dtype=np.float16)
    b = mx.sym.var("b", dtype=np.float32)
    c = mx.sym.var("c", dtype="int32")
    wide = mx.sym.amp_multicast(a, b, c, num_outputs=3)
    assert wide.list_arguments() == ["a", "b", "c"]
    assert wide.infer_type()[1] == [np.float32, np.float32, np.int32]
    narrow = mx.sym.amp_multicast(a, b, c, num_outputs=3, cast_narrow=True)
    assert narrow.infer_type()[1] == [np.float16, np.float16, np.int32]
    exe = wide.bind(
        mx.cpu(),
        {
            "a": mx.nd.array([1, 2], dtype="float16"),
            "b": mx.nd.array([3, 4]),
            "c": mx.nd.array([5, 6], dtype="int32"),
        },
        args_grad={"a": mx.nd.zeros(2, dtype="float16"), "b": mx.nd.zeros(2)},
        grad_req={"a": "write", "b": "write", "c": "null"},
    )
    outs = exe.forward(is_train=True)
    assert [o.dtype for o in outs] == [np.float32, np.float32, np.int32]
    exe.backward([mx.nd.ones(2), mx.nd.ones(2) * 2, mx.nd.ones(2, dtype="int32")])
    assert exe.grad_dict["a"].dtype == np.float16
    np.testing.assert_array_equal(exe.grad_dict["a"].asnumpy(), [1, 1])
    np.testing.assert_array_equal(exe.grad_dict["b"].asnumpy(), [2, 2])


def test_all_finite_and_multi_all_finite():
    finite, inf = mx.nd.array([[0, 0]]), mx.nd.array([[np.inf, 1]])
    assert mx.nd.all_finite(finite).asnumpy().tolist() == [1]
    assert mx.nd.all_finite(inf).dtype == np.float32
    assert mx.nd.all_finite(inf).asnumpy().tolist() == [0]
    nan = mx.nd.array([np.nan], dtype="float16")
    assert mx.nd.multi_all_finite(finite, nan, num_arrays=2).asnumpy().tolist() == [0]
    assert mx.nd.multi_all_finite(finite, finite, num_arrays=2).asnumpy().tolist() == [1]
    out = mx.nd.zeros((1,))
    mx.nd.all_finite(finite, init_output=False, out=out)  # a finite input keeps the output
    assert out.asnumpy().tolist() == [0]
    d = mx.sym.var("data")
    assert mx.sym.multi_all_finite(d, d, num_arrays=2).list_arguments() == ["data"]
    with pytest.raises(mx.MXNetError, match="non-differentiable"):
        mx.sym.all_finite(d).simple_bind(mx.cpu(), data=(2,))
