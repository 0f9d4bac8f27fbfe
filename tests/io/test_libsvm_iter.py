"""LibSVMIter against MXNet 1.9.1's batches (golden file from tools/golden/cases/sparse.py)."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from tests.golden_file import TESTS, load

pytest.importorskip("scipy")
GOLDEN = TESTS / "ndarray" / "golden" / "sparse"
DATA = str(GOLDEN / "sparse_libsvm_data.t")
LABEL = str(GOLDEN / "sparse_libsvm_label.t")

CONFIGS = {
    "plain": dict(data_shape=(6,), batch_size=4),
    "labels": dict(data_shape=(6,), batch_size=3, label_libsvm=LABEL, label_shape=(3,)),
    "part0": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=0),
    "part1": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=1),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batches_match_mxnet(name: str):
    g = load("ndarray/golden/sparse/sparse.npz").arrays(f"libsvm_{name}")
    it = mx.io.LibSVMIter(data_libsvm=DATA, **CONFIGS[name])
    for epoch in range(2):
        count = 0
        for b, batch in enumerate(it):
            key = f"{epoch}_{b}"
            assert batch.data[0].stype == "csr"
            np.testing.assert_array_equal(batch.data[0].asnumpy(), g[key + "_data"])
            np.testing.assert_array_equal(batch.label[0].asnumpy(), g[key + "_label"])
            assert batch.pad == int(g[key + "_pad"])
            count += 1
        assert count == len([k for k in g if k.startswith(f"{epoch}_")]) // 3
        it.reset()


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
