"""Symbols under NumPy shape semantics: JSON marks, legacy shapes, partial inference."""

import json

import mxlite as mx
from mxlite.test_utils import getenv, setenv, use_np
from mxlite.util import is_np_shape


def _fc():
    weight = mx.sym.var("weight", shape=(128, 0))
    return mx.sym.FullyConnected(mx.sym.var("data"), weight, num_hidden=128)


def test_use_np_turns_on_numpy_shapes():
    @use_np
    def inside():
        return is_np_shape()

    assert inside() is True
    assert is_np_shape() is False


def test_getenv_setenv_round_trip():
    setenv("MXLITE_TEST_ENV_X", "7")
    assert getenv("MXLITE_TEST_ENV_X") == "7"
    setenv("MXLITE_TEST_ENV_X", None)
    assert getenv("MXLITE_TEST_ENV_X") is None


def test_tojson_marks_numpy_shape_files():
    plain = json.loads(_fc().tojson())
    assert plain["attrs"] == {"mxnet_version": ["int", 10901]}
    with mx.np_shape(True):
        marked = json.loads(_fc().tojson())
    assert marked["attrs"] == {"is_np_shape": ["int", 1], "mxnet_version": ["int", 10901]}


def test_legacy_file_loaded_with_numpy_shapes_keeps_unknown_dims():
    text = _fc().tojson()
    with mx.np_shape(True):
        net = mx.sym.load_json(text)
        assert net.get_internals()["weight"].list_attr()["__shape__"] == "[128,-1]"
        args, outs, _ = net.infer_shape(data=(10, 784))
    assert args == [(10, 784), (128, 784), (128,)]
    assert outs == [(10, 128)]


def test_legacy_empty_shape_becomes_none():
    text = _fc().tojson().replace("(128, 0)", "()")
    with mx.np_shape(True):
        net = mx.sym.load_json(text)
    assert net.get_internals()["weight"].list_attr()["__shape__"] == "None"
    assert net.infer_shape(data=(10, 784))[0][1] == (128, 784)


def test_partial_inference_reports_numpy_unknowns():
    ret = mx.sym.sin(mx.sym.var("data"))
    assert ret.infer_shape_partial() == ([()], [()], [])
    with mx.np_shape(True):
        assert ret.infer_shape_partial() == ([None], [None], [])
        fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4, name="fc")
        args, outs, _ = fc.infer_shape_partial(x=(-1, 3))
    assert args == [(-1, 3), (4, 3), (4,)]
    assert outs == [(-1, 4)]
