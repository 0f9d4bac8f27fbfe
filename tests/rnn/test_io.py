"""mx.rnn.encode_sentences and BucketSentenceIter."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError


def test_encode_sentences_builds_vocab_and_skips_invalid_label():
    res, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "c"]], invalid_label=1, start_label=0)
    assert vocab == {"\n": 1, "a": 0, "b": 2, "c": 3}
    assert res == [[0, 2], [2, 3]]


def test_encode_sentences_unknown_token_and_fixed_vocab():
    vocab = {"a": 0, "<unk>": 1}
    res, _ = mx.rnn.encode_sentences([["a", "zz"]], vocab=dict(vocab), start_label=5,
                                     unknown_token="<unk>")  # fmt: skip
    assert res == [[0, 5]]  # as MXNet: the unknown token gets a fresh index
    with pytest.raises(MXNetError, match="encode_sentences.*'zz'.*vocab"):
        mx.rnn.encode_sentences([["a", "zz"]], vocab=dict(vocab))


def _sentences():
    rng = np.random.default_rng(0)
    lengths = [3] * 5 + [5] * 4 + [9] * 2
    return [list(rng.integers(1, 20, n)) for n in lengths]


def test_bucket_iter_batches_by_bucket_with_shifted_labels():
    it = mx.rnn.BucketSentenceIter(_sentences(), batch_size=2, buckets=[4, 6], invalid_label=0)
    assert it.buckets == [4, 6]  # length-9 sentences are dropped
    assert it.default_bucket_key == 6
    assert it.provide_data[0].shape == (2, 6) and it.provide_label[0].name == "softmax_label"
    keys = []
    for batch in it:
        data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        assert data.shape == (2, batch.bucket_key) == label.shape
        assert batch.provide_data[0].shape == data.shape
        np.testing.assert_array_equal(label[:, :-1], data[:, 1:])
        assert (label[:, -1] == 0).all()
        keys.append(batch.bucket_key)
    # 5 sentences of length 3 -> 2 full batches of bucket 4; 4 of length 5 -> 2 of bucket 6
    assert sorted(keys) == [4, 4, 6, 6]
    it.reset()
    assert len(list(it)) == 4


def test_bucket_iter_time_major_layout_and_auto_buckets():
    it = mx.rnn.BucketSentenceIter(_sentences(), batch_size=2, layout="TN")
    assert it.buckets == [3, 5, 9]
    assert it.provide_data[0].shape == (9, 2)
    batch = next(iter(it))
    assert batch.data[0].shape == (batch.bucket_key, 2)
    assert batch.provide_data[0].layout == "TN"


def test_bucket_iter_bad_layout():
    with pytest.raises(MXNetError, match="BucketSentenceIter.*layout.*'NC'"):
        mx.rnn.BucketSentenceIter(_sentences(), batch_size=2, layout="NC")
