"""WikiText datasets on a tiny local corpus, made the same way on MXNet 1.9.1 and on mxlite
(``mx`` is either): ``tools/golden/cases/wikitext.py`` writes the corpus to ``ROOT`` and records
what MXNet makes of it, ``test_wikitext.py`` compares."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).parent / "golden" / "wikitext")
NAMES = ["train_5", "train_103_3", "valid_shared_vocab", "test_small_vocab"]


def make(mx: Any, name: str) -> Any:
    """The dataset of case ``name`` over the corpus in ``ROOT``."""
    wikitext = import_module(f"{mx.__name__}.gluon.contrib.data.text")
    train = wikitext.WikiText2(root=ROOT, segment="train", seq_len=5)
    if name == "train_5":
        return train
    if name == "train_103_3":
        return wikitext.WikiText103(root=ROOT, seq_len=3)
    if name == "valid_shared_vocab":
        return wikitext.WikiText2(root=ROOT, segment="validation", vocab=train.vocabulary,
                                  seq_len=4)  # fmt: skip
    vocab = mx.contrib.text.vocab.Vocabulary(train.frequencies, most_freq_count=5,
                                             reserved_tokens=["<eos>"])  # fmt: skip
    return wikitext.WikiText2(root=ROOT, segment="test", vocab=vocab, seq_len=2)
