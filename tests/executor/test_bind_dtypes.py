"""simple_bind, bind and Module with float64 and float16 data, against real MXNet 1.9.1.

The golden file comes from ``tools/golden/cases/spine.py``: MXNet's example image-classification
networks (resnet, resnext, inception-bn, mobilenet, lenet) bound with
``type_dict={'data': 'float64'}``, so that every other dtype comes from the InferType pass, and
trained one step; a conv+BN+FC network trained by Module in float64 and a BatchNorm network in
float16. Inputs and parameters are made by ``spine_cases.init_array`` on both sides.
"""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError

from ..golden_file import load
from . import spine_cases as tool


@pytest.fixture(scope="module")
def golden() -> dict:
    return load("executor/golden/spine.npz").cases


def _close(got: list, want: list, what: str, rtol: float) -> None:
    """Compare a :func:`tool.summary` (or a small array) with MXNet's: a summary's three
    numbers are checked against the 2-norm, since a sum or projection may cancel to ~0; values
    below 1e-12 are rounding noise (the gradient of a bias that BatchNorm follows)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, what
    scale = abs(want[1]) if want.size == 3 else np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale + 1e-12, err_msg=what)


@pytest.mark.parametrize("net", [n for n, *_ in tool.NETWORKS])
def test_example_network_trains_in_float64_as_mxnet(golden: dict, net: str) -> None:
    want = golden["networks"][net]
    exe, got = tool.train_network(mx, mx.sym.load_json(want["symbol"]), want["data_shape"])
    assert got["dtypes"] == want["dtypes"]
    assert all(g.dtype == np.float64 for g in exe.grad_dict.values() if g is not None)
    for key in ("infer_outputs", "train_outputs"):
        for i, (g, w) in enumerate(zip(got[key], want[key], strict=True)):
            _close(g, w, f"{net}: {key} {i}", 1e-9)
    assert sorted(got["grads"]) == sorted(want["grads"])
    for k, g in got["grads"].items():
        _close(g, want["grads"][k], f"{net}: gradient of {k}", 1e-8)
    for k, a in got["aux_after"].items():
        _close(a, want["aux_after"][k], f"{net}: aux {k}", 1e-9)


@pytest.mark.parametrize("run", sorted(tool.MODULE_RUNS))
def test_module_trains_in_float64_and_float16_as_mxnet(golden: dict, run: str) -> None:
    want = golden["module"][run]
    got = tool.train_module(mx, *tool.MODULE_RUNS[run])
    assert got["dtypes"] == want["dtypes"]
    assert got["param_dtypes"] == want["param_dtypes"]
    assert got["aux_dtypes"] == want["aux_dtypes"]
    rtol = 1e-9 if tool.MODULE_RUNS[run][2] == "float64" else 2e-3
    for i, (g, w) in enumerate(zip(got["outputs"], want["outputs"], strict=True)):
        _close(g, w, f"{run}: batch {i}", rtol)
    for key in ("params", "aux"):
        assert sorted(got[key]) == sorted(want[key])
        for k, g in got[key].items():
            _close(g, want[key][k], f"{run}: {key} {k}", rtol)


def test_simple_bind_infers_weight_dtypes_as_mxnet(golden: dict) -> None:
    got = tool.bind_dtypes(mx)
    for dt in ("float64", "float16"):
        # float16 data: BatchNorm keeps gamma, beta, stats float32
        assert got[dt] == golden["bind_dtypes"][dt], dt


def test_conflicting_dtypes_are_refused_as_mxnet(golden: dict) -> None:
    # MXNet: "Error in operator fc: ... Incompatible attr in node fc at 1-th input: expected
    # float32, got float16"
    assert "Error in operator fc" in golden["bind_dtypes"]["conflict_error"]
    with pytest.raises(DTypeError, match="Error in operator fc.*weight.*float16.*float32"):
        tool.conv_bn_fc(mx).simple_bind(
            mx.cpu(), type_dict={"data": "float32", "fc_weight": "float16"}, data=(2, 2, 5, 5)
        )


def test_bind_with_arrays_of_one_dtype_runs_in_that_dtype() -> None:
    sym = tool.conv_bn_fc(mx)
    arg_shapes, _, aux_shapes = sym.infer_shape(data=(2, 2, 5, 5))
    names = sym.list_arguments()
    args = {
        k: mx.nd.array(tool.init_array(k, s), dtype="float64") for k, s in zip(names, arg_shapes)
    }
    grads = {k: mx.nd.zeros(s, dtype="float64") for k, s in zip(names, arg_shapes)}
    aux = [
        mx.nd.array(tool.init_array(k, s), dtype="float64")
        for k, s in zip(sym.list_auxiliary_states(), aux_shapes)
    ]
    exe = sym.bind(mx.cpu(), args, grads, aux_states=aux)
    exe.forward(is_train=True)
    exe.backward()
    assert exe.outputs[0].dtype == np.float64
    assert all(g.dtype == np.float64 for g in exe.grad_arrays)
    ref = sym.simple_bind(mx.cpu(), type_dict={"data": "float64"}, data=(2, 2, 5, 5))
    for k, a in [*ref.arg_dict.items(), *ref.aux_dict.items()]:
        a[:] = tool.init_array(k, a.shape)
    ref.forward(is_train=True)
    ref.backward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), ref.outputs[0].asnumpy())
    np.testing.assert_array_equal(
        exe.grad_dict["conv_weight"].asnumpy(), ref.grad_dict["conv_weight"].asnumpy()
    )


def test_type_dict_leaving_an_input_undecided_is_an_error_as_mxnet() -> None:
    # MXNet: "InferType pass cannot decide dtypes for the following arguments ... b: -1"
    a, b = mx.sym.var("a"), mx.sym.var("b")
    with pytest.raises(DTypeError, match=r"cannot decide the dtypes of \['b'\]"):
        mx.sym.Group([a * 2, b * 2]).simple_bind(
            mx.cpu(), type_dict={"a": "float64"}, a=(2,), b=(2,)
        )
    exe = mx.sym.Group([a * 2, b * 2]).simple_bind(mx.cpu(), a=(2,), b=(2,))
    assert [x.dtype for x in exe.arg_arrays] == [np.float32, np.float32]  # no type_dict
