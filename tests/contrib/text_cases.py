"""The runs of ``mx.contrib.text`` made the same way on MXNet 1.9.1 and on mxlite (``text`` is
``mx.contrib.text`` of either): tools/golden/cases/contrib_text.py records MXNet's,
tests/contrib/test_text.py compares mxlite's."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np


def count_star(text: Any) -> collections.Counter:
    """Tokens counted with regular-expression delimiters into a counter that holds ``a`` three
    times already."""
    start = collections.Counter({"a": 3})
    return text.utils.count_tokens_from_str("*a*b*\n*a*B*\n", "\\*", "\\n", counter_to_update=start)


def vocabulary(text: Any, counter: collections.Counter) -> Any:
    """The vocabulary the embeddings are laid on: the 6 most frequent tokens and ``<pad>``."""
    return text.vocab.Vocabulary(counter, most_freq_count=6, reserved_tokens=["<pad>"])


def lookups(emb: Any) -> dict[str, np.ndarray]:
    """An embedding's ``idx_to_vec`` and the vectors it looks up: ``lookup`` and (with the
    lower-case backup) ``lookup_lower`` of cat, LOG and zebra, ``one`` of dog."""
    words = ["cat", "LOG", "zebra"]
    return {"idx_to_vec": emb.idx_to_vec.asnumpy(),
            "lookup": emb.get_vecs_by_tokens(words).asnumpy(),
            "lookup_lower": emb.get_vecs_by_tokens(words, lower_case_backup=True).asnumpy(),
            "one": emb.get_vecs_by_tokens("dog").asnumpy()}  # fmt: skip


def composite(text: Any, vocab: Any, paths: list) -> Any:
    """The embeddings of the files ``paths`` composed on ``vocab``."""
    return text.embedding.CompositeEmbedding(vocab, [text.embedding.CustomEmbedding(p)
                                                     for p in paths])  # fmt: skip


def updated(mx: Any, text: Any, path: str) -> np.ndarray:
    """``idx_to_vec`` of the embedding of ``path`` after cat, dog and mat are given new
    vectors."""
    emb = text.embedding.CustomEmbedding(path)
    emb.update_token_vectors(["cat", "dog"], mx.nd.array(np.arange(8).reshape(2, 4)))
    emb.update_token_vectors("mat", mx.nd.array([9, 9, 9, 9]))
    return emb.idx_to_vec.asnumpy()
