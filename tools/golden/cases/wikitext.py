"""``gluon.contrib.data.text`` WikiText2/WikiText103 on a tiny local corpus
(tests/gluon/contrib/test_wikitext.py; the cases of tests/gluon/contrib/wikitext_cases.py): the
corpus files are written to tests/gluon/contrib/golden/wikitext/ as ``wiki.<segment>.tokens``
and MXNet 1.9.1 reads them in place (its SHA-1 check of the published files is switched off for
this run); per case the samples, labels, vocabulary and token counts."""

import os

import mxnet as mx
from core import Golden, load_module
from mxnet.gluon.contrib.data import text as wikitext

FILE = "tests/gluon/contrib/golden/wikitext.npz"
c = load_module("tests/gluon/contrib/wikitext_cases.py")
CORPUS = {
    "train": " = Valkyria Chronicles = \n\n Senjō no Valkyria is a game . \n The game was "
    "released in Japan . \n\n = = Gameplay = = \n The game is played in turns . \n",
    "validation": " = Robert = \n Robert is an actor . \n He played in a game . \n",
    "test": " The test is short . \n",
}


def record(golden: Golden) -> None:
    os.makedirs(c.ROOT, exist_ok=True)
    for segment, body in CORPUS.items():
        name = {"validation": "valid"}.get(segment, segment)
        with open(os.path.join(c.ROOT, f"wiki.{name}.tokens"), "w", encoding="utf8") as f:
            f.write(body)
    wikitext.check_sha1 = lambda *args: True  # read the tiny files, do not download
    for name in c.NAMES:
        ds = c.make(mx, name)
        meta = {"len": len(ds), "idx_to_token": ds.vocabulary.idx_to_token,
                "frequencies": dict(ds.frequencies) if ds.frequencies else None,
                "first": [ds[0][0].asnumpy().tolist(), ds[0][1].asnumpy().tolist()]}  # fmt: skip
        golden.put(name, meta, data=ds._data.asnumpy(), label=ds._label.asnumpy())
