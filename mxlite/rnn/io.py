"""Sentence encoding and the bucketing iterator for language models.

``BucketSentenceIter`` pads each sentence to the smallest bucket length that holds it (the
buckets are lengths; longer sentences are dropped) and yields batches drawn from one bucket at a
time, with ``bucket_key`` set to that length so a ``BucketingModule`` picks the matching
unrolled graph. The label of step t is the token of step t + 1; the last step's label, like
padding, is ``invalid_label``. ``reset()`` shuffles the batch order and the sentences within
each bucket with Python's ``random`` and NumPy's global generator, as MXNet does, so seeding
those makes epochs repeatable.
"""

from __future__ import annotations

import bisect
import random
from typing import Any

import numpy as np

from .. import ndarray
from ..base import MXNetError
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["BucketSentenceIter", "encode_sentences"]


def encode_sentences(
    sentences: list,
    vocab: dict | None = None,
    invalid_label: int = -1,
    invalid_key: str = "\n",
    start_label: int = 0,
    unknown_token: str | None = None,
) -> tuple[list, dict]:
    """Encode sentences and (optionally) build a mapping
    from string tokens to integer indices. Unknown keys
    will be added to vocabulary.

    Parameters
    ----------
    sentences : list of list of str
        A list of sentences to encode. Each sentence
        should be a list of string tokens.
    vocab : None or dict of str -> int
        Optional input Vocabulary
    invalid_label : int, default -1
        Index for invalid token, like <end-of-sentence>
    invalid_key : str, default '\\n'
        Key for invalid token. Use '\\n' for end
        of sentence by default.
    start_label : int
        lowest index.
    unknown_token: str
        Symbol to represent unknown token.
        If not specified, unknown token will be skipped.

    Returns
    -------
    result : list of list of int
        encoded sentences
    vocab : dict of str -> int
        result vocabulary
    """
    idx = start_label
    new_vocab = vocab is None
    if vocab is None:
        vocab = {invalid_key: invalid_label}
    res = []
    for sent in sentences:
        coded = []
        for word in sent:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise MXNetError(
                        f"encode_sentences: token {word!r} is not in argument 'vocab'; pass "
                        "unknown_token to map unknown tokens."
                    )
                if idx == invalid_label:
                    idx += 1
                if unknown_token:
                    word = unknown_token
                # as MXNet: a new index even when unknown_token is already in vocab
                vocab[word] = idx
                idx += 1
            coded.append(vocab[word])
        res.append(coded)
    return res, vocab


class BucketSentenceIter(DataIter):
    """Simple bucketing iterator for language model.

    The label at each sequence step is the following token
    in the sequence.

    Parameters
    ----------
    sentences : list of list of int
        Encoded sentences.
    batch_size : int
        Batch size of the data.
    invalid_label : int, optional
        Key for invalid label, e.g. <end-of-sentence>. The default is -1.
    dtype : str, optional
        Data type of the encoding. The default data type is 'float32'.
    buckets : list of int, optional
        Size of the data buckets. Automatically generated if None.
    data_name : str, optional
        Name of the data. The default name is 'data'.
    label_name : str, optional
        Name of the label. The default name is 'softmax_label'.
    layout : str, optional
        Format of data and label. 'NT' means (batch_size, length)
        and 'TN' means (length, batch_size).
    """

    def __init__(
        self,
        sentences: list,
        batch_size: int,
        buckets: list | None = None,
        invalid_label: int = -1,
        data_name: str = "data",
        label_name: str = "softmax_label",
        dtype: Any = "float32",
        layout: str = "NT",
    ) -> None:
        super().__init__()
        if layout not in ("NT", "TN"):
            raise MXNetError(
                f"BucketSentenceIter: argument 'layout' must be 'NT' (batch major) or 'TN' "
                f"(time major), got {layout!r}."
            )
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [i for i, j in enumerate(counts) if j >= batch_size]
        buckets = sorted(buckets)
        if not buckets:
            raise MXNetError(
                "BucketSentenceIter: no bucket; no sentence length occurs batch_size="
                f"{batch_size} times, so pass argument 'buckets'."
            )
        ndiscard = 0
        data: list[list] = [[] for _ in buckets]
        for sent in sentences:
            buck = bisect.bisect_left(buckets, len(sent))
            if buck == len(buckets):
                ndiscard += 1
                continue
            buff = np.full((buckets[buck],), invalid_label, dtype=dtype)
            buff[: len(sent)] = sent
            data[buck].append(buff)
        # buckets no sentence falls in are dropped, keeping data and buckets aligned
        buckets = [b for b, rows in zip(buckets, data) if rows]
        self.data = [np.asarray(rows, dtype=dtype) for rows in data if rows]
        print(f"WARNING: discarded {ndiscard} sentences longer than the largest bucket.")

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata: list = []
        self.ndlabel: list = []
        self.major_axis = layout.find("N")
        self.layout = layout
        self.default_bucket_key = max(buckets)
        shape = (batch_size, self.default_bucket_key)
        if self.major_axis == 1:
            shape = shape[::-1]
        self.provide_data = [DataDesc(name=data_name, shape=shape, layout=layout)]
        self.provide_label = [DataDesc(name=label_name, shape=shape, layout=layout)]
        self.idx: list[tuple[int, int]] = []
        for i, buck in enumerate(self.data):
            self.idx.extend((i, j) for j in range(0, len(buck) - batch_size + 1, batch_size))
        self.curr_idx = 0
        self.reset()

    def reset(self) -> None:
        """Resets the iterator to the beginning of the data."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            np.random.shuffle(buck)
        self.nddata = []
        self.ndlabel = []
        for buck in self.data:
            label = np.empty_like(buck)
            label[:, :-1] = buck[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(buck, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self) -> DataBatch:
        """Returns the next batch of data."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j : j + self.batch_size]
        label = self.ndlabel[i][j : j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch(
            [data],
            [label],
            pad=0,
            bucket_key=self.buckets[i],
            provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
            provide_label=[DataDesc(name=self.label_name, shape=label.shape, layout=self.layout)],
        )
