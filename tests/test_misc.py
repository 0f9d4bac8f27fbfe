"""mx.misc's schedulers, with values MXNet 1.9.1's formula gives."""

import ctypes
import logging

import pytest

import mxlite as mx


def test_factor_scheduler_steps_down_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    sched = mx.misc.FactorScheduler(step=3, factor=0.5)
    sched.base_lr = 0.2
    with caplog.at_level(logging.INFO):
        lrs = [sched(i) for i in range(8)]
    assert lrs == pytest.approx([0.2, 0.2, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05])
    assert "At Iteration [3]: Swith to new learning rate 0.10000" in caplog.text
    assert isinstance(sched, mx.misc.LearningRateScheduler)


def test_bad_settings_and_the_abstract_base() -> None:
    with pytest.raises(ValueError, match="greater or equal than 1"):
        mx.misc.FactorScheduler(step=0)
    with pytest.raises(ValueError, match="less than 1"):
        mx.misc.FactorScheduler(step=2, factor=1.5)
    with pytest.raises(NotImplementedError):
        mx.misc.LearningRateScheduler()(0)


def test_the_c_library_names_import_and_say_why_when_used() -> None:
    # libraries import these at module level; only calling into libmxnet.so must fail
    from mxlite.base import _LIB, SymbolHandle, c_array, c_str, c_str_array, check_call, mx_float

    assert c_str("hé").value == "hé".encode()
    assert list(c_str_array(["a", "b"])) == [b"a", b"b"]
    assert list(c_array(mx_float, [1, 2.5])) == [1.0, 2.5]
    assert SymbolHandle is ctypes.c_void_p
    check_call(0)
    with pytest.raises(mx.base.NotInMxliteError, match=r"_LIB\.MXGetVersion .*no C library"):
        _LIB.MXGetVersion()
    with pytest.raises(mx.base.MXNetError, match="returned 1"):
        check_call(1)
