"""Text datasets (``gluon.contrib.data.text``): WikiText-2 and WikiText-103 for language
modelling, as MXNet 1.9.1 makes them.

A segment's file (``wiki.<train|valid|test>.tokens`` under ``root``, taken from the corpus
archive in MXNet's repository when missing) is read whole: each non-empty line's
whitespace-separated tokens plus ``<eos>`` become indices of the vocabulary (built from the
file's token counts with ``<eos>`` reserved, unless one is given), and the stream is cut into
samples of ``seq_len`` indices (a trailing part shorter than that is dropped), each labelled by
the stream shifted one token on. A file that is present is used even when its SHA-1 differs
from the published one (with a warning); MXNet would download the corpus over it.

The vocabulary is ``mx.contrib.text``'s, a layer above Gluon: it is imported when the first
dataset is made.
"""

from __future__ import annotations

import importlib
import os
import shutil
import warnings
import zipfile
from typing import Any

import numpy as np

from .... import ndarray as nd
from ....base import data_dir
from ....fileio import atomic_write
from ...data.vision.datasets import _DownloadedDataset
from ...utils import _get_repo_file_url, check_sha1, download

__all__ = ["WikiText2", "WikiText103"]

EOS_TOKEN = "<eos>"


def _text() -> Any:
    return importlib.import_module("mxlite.contrib.text")


class _LanguageModelDataset(_DownloadedDataset):
    def __init__(self, root: str, namespace: str, vocabulary: Any) -> None:
        self._vocab = vocabulary
        self._counter: Any = None
        self._namespace = namespace
        super().__init__(root, None)

    @property
    def vocabulary(self) -> Any:
        """The vocabulary that indexes the tokens."""
        return self._vocab

    @property
    def frequencies(self) -> Any:
        """The token counts of the segment's file (a collections.Counter)."""
        return self._counter

    def _build_vocab(self, content: str) -> None:
        text = _text()
        if not self._counter:
            self._counter = text.utils.count_tokens_from_str(content)
        if not self._vocab:
            self._vocab = text.vocab.Vocabulary(counter=self.frequencies,
                                                reserved_tokens=[EOS_TOKEN])  # fmt: skip


class _WikiText(_LanguageModelDataset):
    _archive_file: tuple[str, str]  # (name, SHA-1) of the corpus archive
    _data_file: dict[str, tuple[str, str]]  # segment -> (file name, SHA-1)

    def __init__(self, root: str, namespace: str, segment: str, vocab: Any, seq_len: int) -> None:
        self._segment = segment
        self._seq_len = seq_len
        super().__init__(root, namespace, vocab)

    def _read_batch(self, filename: str) -> tuple[np.ndarray, np.ndarray]:
        with open(filename, encoding="utf8") as fin:
            content = fin.read()
        self._build_vocab(content)
        tokens = [t for line in content.splitlines() if line.split()
                  for t in (*line.split(), EOS_TOKEN)]  # fmt: skip
        indices = self.vocabulary.to_indices(tokens)
        return np.array(indices[:-1], dtype=np.int32), np.array(indices[1:], dtype=np.int32)

    def _get_data(self) -> None:
        if self._segment not in self._data_file:
            raise ValueError(
                f"{type(self).__name__}: segment must be one of {sorted(self._data_file)}, got "
                f"{self._segment!r}."
            )
        archive_name, archive_hash = self._archive_file
        data_name, data_hash = self._data_file[self._segment]
        path = os.path.join(self._root, data_name)
        if not os.path.exists(path):
            url = _get_repo_file_url("gluon/dataset/" + self._namespace, archive_name)
            archive = download(url, path=self._root, sha1_hash=archive_hash)
            with zipfile.ZipFile(archive, "r") as zf:
                for member in zf.namelist():
                    filename = os.path.basename(member)
                    if filename:
                        # an interrupted copy must not leave a data file the next run takes
                        dst_path = os.path.join(self._root, filename)
                        where = type(self).__name__
                        with zf.open(member) as src, atomic_write(dst_path, where=where) as dst:
                            shutil.copyfileobj(src, dst)
        elif not check_sha1(path, data_hash):
            warnings.warn(
                f"{type(self).__name__}: {path} differs from the published {data_name} (SHA-1); "
                "using it as it is.",
                stacklevel=4,
            )
        data, label = self._read_batch(path)
        n = len(data) // self._seq_len * self._seq_len  # whole samples only, as MXNet
        self._data = nd.array(data[:n], dtype=data.dtype).reshape((-1, self._seq_len))
        self._label = nd.array(label[:n], dtype=label.dtype).reshape((-1, self._seq_len))

    def __getitem__(self, idx: int) -> tuple[Any, Any]:
        return self._data[idx], self._label[idx]

    def __len__(self) -> int:
        return len(self._label)


_DOC = """WikiText-{n} word-level dataset for language modeling, from Salesforce research
    (Creative Commons Attribution-ShareAlike).

    Each sample is a vector of length equal to the specified sequence length; an
    end-of-sentence token '<eos>' ends each line of the text.

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/wikitext-{n}
        Path to temp folder for storing data.
    segment : str, default 'train'
        Dataset segment. Options are 'train', 'validation', 'test'.
    vocab : Vocabulary, default None
        The vocabulary to use for indexing the text dataset; None builds one.
    seq_len : int, default 35
        The sequence length of each sample, regardless of the sentence boundary.
    """


class WikiText2(_WikiText):
    __doc__ = _DOC.format(n=2)
    _archive_file = ("wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe")
    _data_file = {
        "train": ("wiki.train.tokens", "863f29c46ef9d167fff4940ec821195882fe29d1"),
        "validation": ("wiki.valid.tokens", "0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422"),
        "test": ("wiki.test.tokens", "c7b8ce0aa086fb34dab808c5c49224211eb2b172"),
    }

    def __init__(
        self,
        root: str = os.path.join(data_dir(), "datasets", "wikitext-2"),
        segment: str = "train",
        vocab: Any = None,
        seq_len: int = 35,
    ) -> None:
        super().__init__(root, "wikitext-2", segment, vocab, seq_len)


class WikiText103(_WikiText):
    __doc__ = _DOC.format(n=103)
    _archive_file = ("wikitext-103-v1.zip", "0aec09a7537b58d4bb65362fee27650eeaba625a")
    _data_file = {
        "train": ("wiki.train.tokens", "b7497e2dfe77e72cfef5e3dbc61b7b53712ac211"),
        "validation": ("wiki.valid.tokens", "c326ac59dc587676d58c422eb8a03e119582f92b"),
        "test": ("wiki.test.tokens", "8a5befc548865cec54ed4273cf87dbbad60d1e47"),
    }

    def __init__(
        self,
        root: str = os.path.join(data_dir(), "datasets", "wikitext-103"),
        segment: str = "train",
        vocab: Any = None,
        seq_len: int = 35,
    ) -> None:
        super().__init__(root, "wikitext-103", segment, vocab, seq_len)
