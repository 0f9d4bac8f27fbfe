"""LibSVMIter against MXNet 1.9.1's batches (golden file from tools/golden/cases/sparse.py)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from tests import sparse_training_cases
from tests.golden_file import TESTS, load

pytest.importorskip("scipy")
GOLDEN = TESTS / "ndarray" / "golden" / "sparse"
DATA = str(GOLDEN / "sparse_libsvm_data.t")
LABEL = str(GOLDEN / "sparse_libsvm_label.t")

CONFIGS = sparse_training_cases.libsvm_configs(LABEL)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batches_match_mxnet(name: str):
    want = load("ndarray/golden/sparse/sparse.npz").arrays(f"libsvm_{name}")
    it = mx.io.LibSVMIter(data_libsvm=DATA, **CONFIGS[name])
    assert it.next().data[0].stype == "csr"
    it.reset()
    got = sparse_training_cases.libsvm_batches(it)
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        np.testing.assert_array_equal(got[key], value, err_msg=key)


def test_provide_and_errors(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=DATA, data_shape=(6,), batch_size=4)
    assert it.provide_data[0].name == "data" and it.provide_data[0].shape == (4, 6)
    assert it.provide_label[0].shape == (4,)
    with pytest.raises(MXNetError, match="round_batch"):
        mx.io.LibSVMIter(data_libsvm=DATA, data_shape=(6,), batch_size=4, round_batch=False)
    bad = tmp_path / "bad.t"
    bad.write_text("1 9:1.0\n")
    with pytest.raises(MXNetError, match="column index"):
        mx.io.LibSVMIter(data_libsvm=str(bad), data_shape=(6,), batch_size=1)
