"""bfloat16 NDArrays as MXNet 1.9.1's front end shows them: the record dtype
``[('bfloat16', '<u2')]``, ``asnumpy()`` as raw bits, flag 12 in files (golden values from
tools/golden/cases/bf16.py)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import BFLOAT16, MX_BFLOAT16
from tests.golden_file import load
from tests.operator import bfloat16_cases

GOLDEN = load("operator/golden/bf16.npz")
BF = np.dtype([("bfloat16", np.uint16)])  # what MXNet users write


def _f32(x: mx.nd.NDArray) -> np.ndarray:
    return x.astype("float32").asnumpy()


def test_dtype_and_asnumpy_are_mxnets() -> None:
    x = mx.nd.array([1.0, 2.5, -1e-3]).astype(BF)
    assert x.dtype == BF == MX_BFLOAT16 and x._data.dtype == BFLOAT16
    host = x.asnumpy()
    assert host.dtype == BF
    np.testing.assert_array_equal(host["bfloat16"], [0x3F80, 0x4020, 0xBA83])
    assert "(16256,)" in repr(x)  # printed as MXNet prints it: records of bits
    assert x.asnumpy()[0] == np.array((16256,), BF)


@pytest.mark.parametrize("dtype", [BF, "bfloat16", BFLOAT16])
def test_creation_takes_every_spelling(dtype: object) -> None:
    for arr in (mx.nd.zeros((2,), dtype=dtype), mx.nd.ones((2,), dtype=dtype),
                mx.nd.full((2,), 3.3, dtype=dtype), mx.nd.empty((2,), dtype=dtype),
                mx.nd.array([1.0, 3.3], dtype=dtype)):  # fmt: skip
        assert arr.dtype == BF
    np.testing.assert_array_equal(_f32(mx.nd.full((2,), 3.3, dtype=dtype)), [3.296875] * 2)
    # values are rounded to the nearest bfloat16 (MXNet's array() stores the float values as
    # bit patterns instead, a bug this does not copy)
    np.testing.assert_array_equal(_f32(mx.nd.array([1.0, 3.3], dtype=dtype)), [1.0, 3.296875])


def test_casts_and_copies() -> None:
    x = mx.nd.array([1.0, 2.5, 3.14159, 65504.0])
    y = x.astype(BF)
    np.testing.assert_array_equal(_f32(y), [1.0, 2.5, 3.140625, 65536.0])
    np.testing.assert_array_equal(y.astype("int32").asnumpy(), [1, 2, 3, 65536])
    np.testing.assert_array_equal(y.copyto(mx.nd.zeros((4,))).asnumpy(), _f32(y))
    z = mx.nd.zeros((4,), dtype=BF)
    x.copyto(z)
    np.testing.assert_array_equal(_f32(z), _f32(y))
    z[:] = 2.7
    np.testing.assert_array_equal(_f32(z), [2.703125] * 4)
    z[:] = np.array([1.7, 2.7, 3.7, 4.7])
    np.testing.assert_array_equal(_f32(z), [1.703125, 2.703125, 3.703125, 4.6875])
    z[:] = y.asnumpy()  # records of bits, as MXNet's asnumpy gives them, are bits here too
    np.testing.assert_array_equal(_f32(z), _f32(y))
    assert mx.nd.array(y).dtype == BF
    np.testing.assert_array_equal(_f32(pickle.loads(pickle.dumps(y))), _f32(y))


def test_params_file_both_ways_with_mxnet(tmp_path: Path) -> None:
    raw = GOLDEN.arrays("params")["raw"].tobytes()  # MXNet's mx.nd.save of a dict
    got = mx.nd.load_frombuffer(raw)
    assert list(got) == ["bf", "f32"] and got["bf"].dtype == BF
    want_bits = GOLDEN.arrays("edges")["amp_cast"][:6].reshape(2, 3)
    np.testing.assert_array_equal(got["bf"].asnumpy()["bfloat16"], want_bits)
    path = tmp_path / "x.params"
    mx.nd.save(str(path), {"bf": got["bf"], "f32": got["f32"]})
    assert path.read_bytes() == raw
    mine = mx.nd.amp_cast(mx.nd.array(bfloat16_cases.EDGES[:6].reshape(2, 3)), dtype=BF)
    mx.nd.save(str(path), {"bf": mine, "f32": mx.nd.array([1.5, -2.0])})
    assert path.read_bytes() == raw


def test_symbol_dtype_attribute_is_flag_12() -> None:
    for dtype in (BF, "bfloat16"):
        v = mx.sym.var("a", dtype=dtype)
        assert v.attr("__dtype__") == "12"
        assert v.infer_type()[0] == [BF]
    loaded = mx.sym.load_json(mx.sym.var("a", dtype=BF).tojson())
    assert loaded.infer_type()[0] == [BF]


@pytest.mark.gpu
def test_gpu_has_no_bfloat16() -> None:
    pytest.importorskip("cupy")
    if mx.context.num_gpus() == 0:
        pytest.skip("no GPU")
    with pytest.raises(mx.base.DTypeError, match="bfloat16.*CPU only"):
        mx.nd.zeros((256, 1024), ctx=mx.gpu(0), dtype="bfloat16")
