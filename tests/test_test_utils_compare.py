"""mx.test_utils' comparisons (compare.py): assert_almost_equal's messages, as real MXNet 1.9.1
prints them, and the default tolerances per dtype."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite import test_utils as tu
from mxlite.base import DTypeError, ShapeError

F32 = np.float32

# Each case below was run once under real MXNet 1.9.1 (NumPy 1.23); its AssertionError text
# and, for some, what it printed, are embedded as they came.
CASES = {
    "one": lambda: tu.assert_almost_equal(np.array([1, 2, 3], F32), np.array([1, 2.5, 3], F32)),
    "two2d": lambda: tu.assert_almost_equal(
        np.arange(12, dtype=F32).reshape(3, 4),
        np.arange(12, dtype=F32).reshape(3, 4)
        + np.array([0, 0, 0.5, 0], F32) * np.array([[1], [0], [3]], F32),
        names=("x", "y"),
    ),
    "atleast": lambda: tu.assert_almost_equal(
        np.zeros((4, 5), F32), np.arange(20, dtype=F32).reshape(4, 5), mismatches=(3, 4)
    ),
    "mism0": lambda: tu.assert_almost_equal(
        np.zeros((2, 3)), np.arange(6.0).reshape(2, 3) + 1, mismatches=(2, 0)
    ),
    "scalar": lambda: tu.assert_almost_equal(np.array(1.0, F32), np.array(2.0, F32)),
    "pyscalar": lambda: tu.assert_almost_equal(1.0, 1.5),
    "f16f64b": lambda: tu.assert_almost_equal(np.array([1.0], np.float16), np.array([1.2])),
    "f64": lambda: tu.assert_almost_equal(np.array([1.0]), np.array([1.00002])),
    "int": lambda: tu.assert_almost_equal(
        np.array([1, 2, 3], np.int32), np.array([1, 2, 4], np.int32)
    ),
    "nd": lambda: tu.assert_almost_equal(mx.nd.array([1, 2, 3]), mx.nd.array([1, 2, 4])),
    "ndnp": lambda: tu.assert_almost_equal(mx.nd.array([1, 2, 3]), np.array([1, 2, 4.0])),
    "err2": lambda: tu.assert_almost_equal_with_err(
        np.array([1, 2, 3, 4.0]), np.array([1, 2, 6, 5.0]), etol=0.3
    ),
    "ignnan": lambda: tu.assert_almost_equal_ignore_nan(
        np.array([1, np.nan, 3.0]), np.array([np.nan, 2, 3.5]), names=("p", "q")
    ),
    "big": lambda: tu.assert_almost_equal(np.arange(30, dtype=F32), np.arange(30, dtype=F32) * 1.1),
    "shape": lambda: tu.assert_almost_equal(np.zeros((2, 3)), np.zeros((3,)), use_broadcast=False),
    "nan": lambda: tu.assert_almost_equal(np.array([1.0, np.nan]), np.array([1.0, np.nan])),
}

MXNET_MESSAGES = {
    "one": (
        "\n"
        "Items are not equal:\n"
        "Error 400.000000 exceeds tolerance rtol=1.000000e-04,"
        " atol=1.000000e-03 (mismatch 33.333333%).\n"
        "Location of maximum error: (1,), a=2.00000000, b=2.50000000\n"
        " ACTUAL: array([1., 2., 3.], dtype=float32)\n"
        " DESIRED: array([1. , 2.5, 3. ], dtype=float32)"
    ),
    "two2d": (
        "\n"
        "Items are not equal:\n"
        "Error 697.674377 exceeds tolerance rtol=1.000000e-04,"
        " atol=1.000000e-03 (mismatch 16.666667%).\n"
        "Location of maximum error: (2, 2), x=10.00000000, y=11.50000000\n"
        " ACTUAL: array([[ 0.,  1.,  2.,  3.],\n"
        "       [ 4.,  5.,  6.,  7.],\n"
        "       [ 8.,  9., 10., 11.]], dtype=float32)\n"
        " DESIRED: array([[ 0. ,  1. ,  2.5,  3. ],\n"
        "       [ 4. ,  5. ,  6. ,  7. ],\n"
        "       [ 8. ,  9. , 11.5, 11. ]], dtype=float32)"
    ),
    "atleast": (
        "\n"
        "Items are not equal:\n"
        "Error 6551.724121 exceeds tolerance rtol=1.000000e-04,"
        " atol=1.000000e-03 (mismatch at least 25.000000%).\n"
        "Location of maximum error: (3, 4), a=0.00000000, b=19.00000000\n"
        " ACTUAL: array([[0., 0., 0., 0., 0.],\n"
        "       [0., 0., 0., 0., 0.],\n"
        "       [0., 0., 0., 0., 0.],\n"
        "       [0., 0., 0., 0., 0.]], dtype=float32)\n"
        " DESIRED: array([[ 0.,  1.,  2.,  3.,  4.],\n"
        "       [ 5.,  6.,  7.,  8.,  9.],\n"
        "       [10., 11., 12., 13., 14.],\n"
        "       [15., 16., 17., 18., 19.]], dtype=float32)"
    ),
    "mism0": (
        "\n"
        "Items are not equal:\n"
        "Error 100000.000000 exceeds tolerance rtol=1.000000e-05,"
        " atol=1.000000e-20 (mismatch 100.000000%).\n"
        "Location of maximum error: (1, 1), a=0.00000000, b=5.00000000\n"
        " ACTUAL: array([[0., 0., 0.],\n"
        "       [0., 0., 0.]])\n"
        " DESIRED: array([[1., 2., 3.],\n"
        "       [4., 5., 6.]])"
    ),
    "scalar": (
        "\n"
        "Items are not equal:\n"
        "Error 833.333333 exceeds tolerance rtol=1.000000e-04, atol=1.000000e-03.\n"
        "\n"
        " ACTUAL: array(1., dtype=float32)\n"
        " DESIRED: array(2., dtype=float32)"
    ),
    "pyscalar": (
        "\n"
        "Items are not equal:\n"
        "Error 33333.333333 exceeds tolerance rtol=1.000000e-05, atol=1.000000e-20.\n"
        "\n"
        " ACTUAL: 1.0\n"
        " DESIRED: 1.5"
    ),
    "f16f64b": (
        "\n"
        "Items are not equal:\n"
        "Error 1.785714 exceeds tolerance rtol=1.000000e-02,"
        " atol=1.000000e-01 (mismatch 100.000000%).\n"
        "Location of maximum error: (0,), a=1.00000000, b=1.20000000\n"
        " ACTUAL: array([1.], dtype=float16)\n"
        " DESIRED: array([1.2])"
    ),
    "f64": (
        "\n"
        "Items are not equal:\n"
        "Error 1.999960 exceeds tolerance rtol=1.000000e-05,"
        " atol=1.000000e-20 (mismatch 100.000000%).\n"
        "Location of maximum error: (0,), a=1.00000000, b=1.00002000\n"
        " ACTUAL: array([1.])\n"
        " DESIRED: array([1.00002])"
    ),
    "shape": (
        "\n"
        "Items are not equal: a.shape = (2, 3) and b.shape = (3,) are not equal\n"
        " ACTUAL: array([[0., 0., 0.],\n"
        "       [0., 0., 0.]])\n"
        " DESIRED: array([0., 0., 0.])"
    ),
    "nan": (
        "\n"
        "Items are not equal:\n"
        "Error nan exceeds tolerance rtol=1.000000e-05, atol=1.000000e-20"
        " (mismatch 50.000000%).\n"
        "Location of maximum error: (1,), a=nan, b=nan\n"
        " ACTUAL: array([ 1., nan])\n"
        " DESIRED: array([ 1., nan])"
    ),
    "nd": (
        "\n"
        "Items are not equal:\n"
        "Error 714.285706 exceeds tolerance rtol=1.000000e-04,"
        " atol=1.000000e-03 (mismatch 33.333333%).\n"
        "Location of maximum error: (2,), a=3.00000000, b=4.00000000\n"
        " ACTUAL: array([1., 2., 3.], dtype=float32)\n"
        " DESIRED: array([1., 2., 4.], dtype=float32)"
    ),
    "ndnp": (
        "\n"
        "Items are not equal:\n"
        "Error 714.285714 exceeds tolerance rtol=1.000000e-04,"
        " atol=1.000000e-03 (mismatch 33.333333%).\n"
        "Location of maximum error: (2,), a=3.00000000, b=4.00000000\n"
        " ACTUAL: array([1., 2., 3.], dtype=float32)\n"
        " DESIRED: array([1., 2., 4.])"
    ),
    "int": (
        "\n"
        "Items are not equal:\n"
        "Error 100000000000000000000.000000 exceeds tolerance"
        " rtol=0.000000e+00, atol=0.000000e+00 (mismatch 33.333333%).\n"
        "Location of maximum error: (2,), a=3.00000000, b=4.00000000\n"
        " ACTUAL: array([1, 2, 3], dtype=int32)\n"
        " DESIRED: array([1, 2, 4], dtype=int32)"
    ),
    "err2": (
        "\n"
        "Items are not equal:\n"
        "Error 50000.000000 exceeds tolerance rtol=1.000000e-05,"
        " atol=1.000000e-20 (mismatch 50.000000%).\n"
        "Location of maximum error: (2,), a=3.00000000, b=6.00000000\n"
        " ACTUAL: array([1., 2., 3., 4.])\n"
        " DESIRED: array([1., 2., 6., 5.])"
    ),
    "ignnan": (
        "\n"
        "Items are not equal:\n"
        "Error 14285.714286 exceeds tolerance rtol=1.000000e-05,"
        " atol=1.000000e-20 (mismatch 33.333333%).\n"
        "Location of maximum error: (2,), p=3.00000000, q=3.50000000\n"
        " ACTUAL: array([0., 0., 3.])\n"
        " DESIRED: array([0. , 0. , 3.5])"
    ),
    "big": (
        "\n"
        "Items are not equal:\n"
        "Error 692.124451 exceeds tolerance rtol=1.000000e-04,"
        " atol=1.000000e-03 (mismatch at least 36.666667%).\n"
        "Location of maximum error: (29,), a=29.00000000, b=31.90000153\n"
        " ACTUAL: array([ 0.,  1.,  2., ..., 27., 28., 29.], dtype=float32)\n"
        " DESIRED: array([ 0.      ,  1.1     ,  2.2     , ..., 29.7     ,"
        " 30.800001,\n"
        "       31.900002], dtype=float32)"
    ),
}
MXNET_STDOUT = {
    "one": (
        "\n"
        "*** Maximum errors for vector of size 3:  rtol=0.0001, atol=0.001\n"
        "\n"
        "  1: Error 400.000000  Location of error: (1,), a=2.00000000, b=2.50000000\n"
    ),
    "atleast": (
        "\n"
        "*** Maximum errors for vector of size 20:  rtol=0.0001, atol=0.001\n"
        "\n"
        "  1: Error 6551.724121  Location of error: (3, 4), a=0.00000000,"
        " b=19.00000000\n"
        "  2: Error 6428.571777  Location of error: (3, 3), a=0.00000000,"
        " b=18.00000000\n"
        "  3: Error 6296.295898  Location of error: (3, 2), a=0.00000000,"
        " b=17.00000000\n"
    ),
    "big": (
        "\n"
        "*** Maximum errors for vector of size 30:  rtol=0.0001, atol=0.001\n"
        "\n"
        "  1: Error 692.124451  Location of error: (29,), a=29.00000000,"
        " b=31.90000153\n"
        "  2: Error 686.274841  Location of error: (28,), a=28.00000000,"
        " b=30.80000114\n"
        "  3: Error 680.100952  Location of error: (27,), a=27.00000000,"
        " b=29.70000076\n"
        "  4: Error 673.575195  Location of error: (26,), a=26.00000000,"
        " b=28.60000038\n"
        "  5: Error 666.666626  Location of error: (25,), a=25.00000000,"
        " b=27.50000000\n"
        "  6: Error 659.341064  Location of error: (24,), a=24.00000000,"
        " b=26.40000153\n"
        "  7: Error 651.558411  Location of error: (23,), a=23.00000000,"
        " b=25.30000114\n"
        "  8: Error 643.275085  Location of error: (22,), a=22.00000000,"
        " b=24.20000076\n"
        "  9: Error 634.441162  Location of error: (21,), a=21.00000000,"
        " b=23.10000038\n"
        " 10: Error 625.000000  Location of error: (20,), a=20.00000000,"
        " b=22.00000000\n"
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_assert_almost_equal_message_matches_mxnet(case, capsys):
    with pytest.raises(AssertionError) as info:
        CASES[case]()
    assert str(info.value) == MXNET_MESSAGES[case]
    if case in MXNET_STDOUT:
        assert capsys.readouterr().out == MXNET_STDOUT[case]


@pytest.mark.parametrize(
    "a, b, kwargs",
    [
        (np.array([1.0], np.float16), np.array([1.05]), {}),  # float16's tolerance wins
        (np.array([1.0], F32), np.array([1.0005], F32), {}),
        (np.zeros((2, 3)), np.zeros((3,)), {}),  # broadcasting is allowed by default
        (np.array([1.0, np.nan]), np.array([1.0, np.nan]), {"equal_nan": True}),
        (np.array([1.0], F32), np.array([1.002], F32), {"rtol": {np.dtype(F32): 1e-2}}),
        (1.0, 1.0 + 1e-6, {}),
        (mx.nd.array([1, 2]), [1.00001, 2], {}),
        (mx.nd.array([1, 2]), mx.nd.array([1, 2.0001]), {}),
    ],
)
def test_assert_almost_equal_passes_within_tolerance(a, b, kwargs):
    tu.assert_almost_equal(a, b, **kwargs)


def test_assert_almost_equal_leaves_print_options_alone():
    before = np.get_printoptions()
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.arange(30.0), np.arange(30.0) + 1)
    assert np.get_printoptions() == before


def test_assert_almost_equal_compares_bools_exactly():
    tu.assert_almost_equal(np.array([True, False]), np.array([True, False]))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        tu.assert_almost_equal(np.array([True, False]), np.array([True, True]))


def test_assert_almost_equal_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(ShapeError, match=r"assert_almost_equal.*\(2, 3\).*\(2,\)"):
        tu.assert_almost_equal(np.zeros((2, 3)), np.zeros(2))


def test_assert_almost_equal_with_err_allows_a_share_of_mismatches():
    tu.assert_almost_equal_with_err(np.array([1, 2, 3, 4.0]), np.array([1, 2, 3, 5.0]), etol=0.3)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(np.array([1, 2, 3, 4.0]), np.array([1, 2, 3, 5.0]))


def test_assert_allclose_uses_tight_defaults():
    tu.assert_allclose(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    with pytest.raises(AssertionError):
        tu.assert_allclose(np.array([1.0], F32), np.array([1.0001], F32))


def test_almost_equal_uses_float64_defaults():
    assert tu.almost_equal(np.array([1.0]), np.array([1.0 + 1e-6]))
    assert not tu.almost_equal(np.array([1.0]), np.array([1.0 + 1e-4]))
    assert tu.almost_equal(mx.nd.array([1.0]), np.array([1.0 + 1e-4]), rtol=1e-3)
    with pytest.raises(AssertionError, match=r"a.shape = \(2, 3\) and b.shape = \(3,\)"):
        tu.almost_equal(np.zeros((2, 3)), np.zeros((3,)), use_broadcast=False)


def test_default_tolerances_per_dtype():
    assert tu.get_tols(np.zeros(1, np.float16), np.zeros(1), None, None) == (0.01, 0.1)
    assert tu.get_tols(1.0, np.zeros(1, F32), None, None) == (1e-4, 1e-3)
    assert tu.get_tols(np.zeros(1), np.zeros(1), None, None) == (1e-5, 1e-20)
    assert tu.get_tols(mx.nd.zeros((1,), dtype="float16"), 0.0, None, None) == (0.01, 0.1)
    assert tu.get_tols(np.zeros(1, np.int32), np.zeros(1, np.uint8), None, None) == (0, 0)
    assert tu.get_tols(np.zeros(1), np.zeros(1), 0.5, None) == (0.5, 1e-20)
    assert tu.get_atol() == 1e-20 and tu.get_rtol() == 1e-5 and tu.get_etol() == 0
    assert tu.get_atol(dtype=np.dtype(F32)) == 1e-3 and tu.get_rtol(0.2) == 0.2
    assert tu.get_tolerance(np.zeros(1, np.int64), None, tu.default_rtols()) == 0
    assert tu.default_numeric_eps()[np.dtype(F32)] == 1.0 / 2**9
    assert tu.default_dtype() is np.float32


def test_get_tolerance_names_an_unknown_dtype():
    with pytest.raises(DTypeError, match="get_tolerance.*complex128"):
        tu.get_tols(np.zeros(1, np.complex128), np.zeros(1), None, None)


def test_large_arrays_are_compared_in_slices_with_the_same_verdict() -> None:
    import tracemalloc

    n = (1 << 21) + 5  # eight slices and a short one
    a = np.random.default_rng(0).random(n, dtype=F32).reshape(-1, 1)
    b = a.copy()
    tracemalloc.start()
    try:
        tu.assert_almost_equal(a, b, rtol=1e-5, atol=1e-6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # numpy.allclose on the whole arrays makes temporaries several times their size
    assert peak < a.nbytes // 2, (peak, a.nbytes)
    assert tu.almost_equal(a, b)
    b[-1, 0] += 1  # in the short last slice
    assert not tu.almost_equal(a, b)
    with pytest.raises(AssertionError, match="Error"):
        tu.assert_almost_equal(a, b, rtol=1e-5, atol=1e-6)
    a[-1, 0] = b[-1, 0] = np.nan
    assert not tu.almost_equal(a, b) and tu.almost_equal(a, b, equal_nan=True)
