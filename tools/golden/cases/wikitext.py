"""``gluon.contrib.data.text`` WikiText2/WikiText103 on a tiny local corpus
(tests/gluon/contrib/test_wikitext.py): the corpus files are written to
tests/gluon/contrib/golden/wikitext/ as ``wiki.<segment>.tokens`` and MXNet 1.9.1 reads them in
place (its SHA-1 check of the published files is switched off for this run); per case the
samples, labels, vocabulary and token counts."""

from __future__ import annotations

import os
from typing import Any

from mxnet.contrib import text as mxtext
from mxnet.gluon.contrib.data import text as wikitext

FILE = "tests/gluon/contrib/golden/wikitext.npz"
SEED = 0
ROOT = os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "tests", "gluon", "contrib", "golden", "wikitext"
)
CORPUS = {
    "train": " = Valkyria Chronicles = \n\n Senjō no Valkyria is a game . \n The game was "
    "released in Japan . \n\n = = Gameplay = = \n The game is played in turns . \n",
    "validation": " = Robert = \n Robert is an actor . \n He played in a game . \n",
    "test": " The test is short . \n",
}


def record(golden: Any) -> None:
    os.makedirs(ROOT, exist_ok=True)
    for segment, body in CORPUS.items():
        name = {"validation": "valid"}.get(segment, segment)
        with open(os.path.join(ROOT, f"wiki.{name}.tokens"), "w", encoding="utf8") as f:
            f.write(body)
    wikitext.check_sha1 = lambda *args: True  # read the tiny files, do not download
    train = wikitext.WikiText2(root=ROOT, segment="train", seq_len=5)
    cases = [
        ("train_5", train),
        ("train_103_3", wikitext.WikiText103(root=ROOT, seq_len=3)),
        (
            "valid_shared_vocab",
            wikitext.WikiText2(root=ROOT, segment="validation", vocab=train.vocabulary, seq_len=4),
        ),
    ]
    vocab = mxtext.vocab.Vocabulary(train.frequencies, most_freq_count=5, reserved_tokens=["<eos>"])
    cases.append(
        ("test_small_vocab", wikitext.WikiText2(root=ROOT, segment="test", vocab=vocab, seq_len=2))
    )
    for name, ds in cases:
        data = ds._data.asnumpy()
        label = ds._label.asnumpy()
        golden.put(
            name,
            {
                "len": len(ds),
                "idx_to_token": ds.vocabulary.idx_to_token,
                "frequencies": dict(ds.frequencies) if ds.frequencies else None,
                "first": [ds[0][0].asnumpy().tolist(), ds[0][1].asnumpy().tolist()],
            },
            data=data,
            label=label,
        )
