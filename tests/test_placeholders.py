"""Packages mxlite does not implement yet import, and fail clearly when used."""

import mxlite as mx


def test_contrib_aliases_the_contrib_operators():
    assert mx.contrib.ndarray is mx.nd.contrib and mx.contrib.symbol is mx.sym.contrib


def test_base_data_dir_and_util_env(monkeypatch, tmp_path):
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert mx.base.data_dir() == str(tmp_path)
    mx.util.setenv("MXLITE_TEST_X", "1")
    assert mx.util.getenv("MXLITE_TEST_X") == "1"
    mx.util.setenv("MXLITE_TEST_X", None)
    assert mx.util.getenv("MXLITE_TEST_X") is None


def test_numpy_arrays_import_and_have_no_stray_attributes():
    import mxlite.numpy as mx_np

    assert mx_np.ones((2,)).shape == (2,)
    assert not hasattr(mx_np, "pytest_plugins")
