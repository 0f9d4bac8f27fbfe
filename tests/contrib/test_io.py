"""mx.contrib.io.DataLoaderIter (mxlite/contrib/io.py): a Gluon DataLoader as a DataIter."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.contrib.io import DataLoaderIter


def _loader(n: int, batch_size: int) -> mx.gluon.data.DataLoader:
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    dataset = mx.gluon.data.ArrayDataset(x, np.arange(n, dtype=np.float32))
    return mx.gluon.data.DataLoader(dataset, batch_size=batch_size)


def test_batches_descs_and_padding_of_the_last_batch() -> None:
    it = DataLoaderIter(_loader(5, 2), dtype="float16")
    assert [(d.name, d.shape) for d in it.provide_data] == [("data", (2, 3))]
    assert [(d.name, d.shape) for d in it.provide_label] == [("softmax_label", (2,))]
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]
    last = batches[-1]
    assert last.data[0].shape == (2, 3) and last.data[0].dtype == np.float16
    assert last.data[0].asnumpy()[0].tolist() == [12, 13, 14]
    assert last.label[0].asnumpy()[0] == 4
    it.reset()
    assert len(list(it)) == 3


def test_module_fit_reads_it() -> None:
    data = mx.sym.var("data")
    # named: an automatic name counts the FullyConnected nodes made before in the process,
    # so the parameter was fullyconnected0_weight only when this test ran first
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    out = mx.sym.SoftmaxOutput(fc, name="softmax")
    mod = mx.mod.Module(out, context=mx.cpu())
    mod.fit(DataLoaderIter(_loader(6, 3)), num_epoch=1, optimizer="sgd")
    assert mod.get_params()[0]["fc_weight"].shape == (4, 3)


def test_an_empty_loader_is_refused() -> None:
    with pytest.raises(ValueError, match="loader"):
        DataLoaderIter([])


def test_reachable_as_mx_contrib_io() -> None:
    assert mx.contrib.io.DataLoaderIter is DataLoaderIter
