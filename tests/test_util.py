"""mx.util's NumPy-array scope (MXNet's _NumpyArrayScope), per thread."""

import threading

import mxlite as mx
from mxlite.util import _NumpyArrayScope


def test_np_array_false_scope_nests_and_restores():
    assert not mx.is_np_array()
    with mx.np_array(False) as outer:
        assert _NumpyArrayScope._current.value is outer
        with mx.np_array(False) as inner:
            assert _NumpyArrayScope._current.value is inner
        assert _NumpyArrayScope._current.value is outer
    assert not mx.is_np_array()


def test_np_array_true_turns_the_mode_on_in_its_scope():
    with mx.np_array(True):
        assert mx.is_np_array()
    assert not mx.is_np_array()
    mx.npx.set_np()
    try:
        assert mx.is_np_array() and mx.is_np_shape()
    finally:
        mx.npx.reset_np()
    assert not mx.is_np_array() and not mx.is_np_shape()


def test_np_array_scope_is_per_thread():
    seen = []
    started, release = threading.Event(), threading.Event()

    def other():
        with mx.np_array(False):
            started.set()
            release.wait()
            seen.append(_NumpyArrayScope._current.value._is_np_array)

    t = threading.Thread(target=other)
    t.start()
    started.wait()
    # a scope set in this thread is not the other thread's
    _NumpyArrayScope._current.value = _NumpyArrayScope(True)
    try:
        assert mx.is_np_array()
        release.set()
        t.join()
    finally:
        del _NumpyArrayScope._current.value
    assert seen == [False] and not mx.is_np_array()
