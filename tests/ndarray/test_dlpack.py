"""mx.nd.to_dlpack_for_read / to_dlpack_for_write / from_dlpack (NumPy's DLPack)."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError


def test_round_trip_through_a_capsule():
    x = mx.nd.arange(6).reshape((2, 3)) * 2
    cap = mx.nd.to_dlpack_for_read(x)
    y = mx.nd.from_dlpack(cap)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    assert y.dtype == np.float32


def test_write_capsule_sees_pending_writes_and_numpy_reads_it():
    x = mx.nd.zeros((3,))
    x += 5
    view = np.from_dlpack(_Holder(x.to_dlpack_for_write()))
    np.testing.assert_array_equal(view, [5, 5, 5])


def test_from_dlpack_takes_objects_and_rejects_junk():
    z = mx.nd.from_dlpack(np.arange(4, dtype=np.int32))
    assert z.dtype == np.int32 and z.shape == (4,)
    with pytest.raises(MXNetError, match="from_dlpack"):
        mx.nd.from_dlpack(object())


class _Holder:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)
