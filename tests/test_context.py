"""Context: construction, equality and hashing, repr, the thread-local default, errors."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.context import Context


def test_constructors_and_repr_as_mxnet():
    assert repr(mx.cpu()) == "cpu(0)" and str(mx.gpu(1)) == "gpu(1)"
    assert repr(mx.cpu_pinned(2)) == "cpu_pinned(2)"
    assert mx.gpu(3).device_type == "gpu" and mx.gpu(3).device_id == 3
    assert mx.gpu(3).device_typeid == 2
    assert Context(mx.gpu(1)) == mx.gpu(1)  # copy of a Context


def test_equality_and_hashing():
    assert mx.cpu(0) == Context("cpu", 0)
    assert mx.cpu(0) != mx.cpu(1) and mx.cpu(0) != mx.gpu(0) and mx.cpu(0) != "cpu(0)"
    assert len({mx.cpu(0), Context("cpu", 0), mx.gpu(0)}) == 2


def test_with_sets_the_default_and_restores_it():
    assert mx.current_context() == mx.cpu(0)
    with mx.gpu(1):
        assert mx.current_context() == mx.gpu(1)
        with mx.cpu(2):
            assert mx.Context.default_ctx == mx.cpu(2)
        assert mx.current_context() == mx.gpu(1)
    assert mx.current_context() == mx.cpu(0)


def test_default_is_per_thread():
    seen = []
    with mx.cpu(5):
        t = threading.Thread(target=lambda: seen.append(mx.current_context()))
        t.start()
        t.join()
    assert seen == [mx.cpu(0)]


def test_arrays_take_the_default_context():
    with mx.cpu(1):
        assert mx.nd.zeros((2,)).context == mx.cpu(1)


def test_bad_arguments_name_the_argument():
    with pytest.raises(MXNetError, match="device_type.*'tpu'"):
        Context("tpu")
    with pytest.raises(MXNetError, match="device_id"):
        Context("cpu", -1)


def test_num_gpus_is_zero_without_cupy_or_a_gpu():
    n = mx.context.num_gpus()
    assert isinstance(n, int) and n >= 0
    try:
        import cupy  # noqa: F401
    except ImportError:
        assert n == 0


def test_pickle_and_numpy_device_ids():
    assert pickle.loads(pickle.dumps(mx.gpu(2))) == mx.gpu(2)
    assert Context("cpu", np.int64(1)) == mx.cpu(1)
    assert mx.cpu().xp is np
