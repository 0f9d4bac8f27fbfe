"""``mx.contrib.text`` (tests/contrib/test_text.py): two tiny embedding files, one in GloVe's
format and one in fastText's ``.vec`` format (a ``count dim`` header, a duplicate token, the
unknown token's own vector), written to tests/contrib/golden/text/, then what MXNet 1.9.1 makes
of them: token counts, vocabularies, each embedding's ``idx_to_token``/``idx_to_vec``, vectors
looked up (with the lower-case backup), a composite embedding, an updated vector,
and the table of published pre-trained files."""

import os
from pathlib import Path
from typing import Any

import mxnet as mx
from core import ROOT, Golden, load_module
from mxnet.contrib import text

FILE = "tests/contrib/golden/text.npz"
DIR = str(ROOT / "tests" / "contrib" / "golden" / "text")
t = load_module("tests/contrib/text_cases.py")  # the runs, made again by the test
TEXT = "The cat sat on the mat .\nthe dog sat on a log !\n\nA cat and a dog\n"


def write_files(rng: Any) -> dict[str, str]:
    words = ["the", "cat", "sat", "on", "mat", "dog", "a", "log", ".", "!"]
    glove = "".join(f"{w} " + " ".join(f"{v:.4f}" for v in rng.uniform(-1, 1, 4)) + "\n"
                    for w in words)  # fmt: skip
    vec_words = ["cat", "dog", "<unk>", "Log", "cat", "and"]
    vec = "6 3\n" + "".join(f"{w} " + " ".join(f"{v:.3f}" for v in rng.uniform(-1, 1, 3)) + " \n"
                            for w in vec_words)  # fmt: skip
    paths = {"glove": os.path.join(DIR, "tiny.glove.txt"),
             "fasttext": os.path.join(DIR, "tiny.fasttext.vec")}  # fmt: skip
    os.makedirs(DIR, exist_ok=True)
    for key, body in (("glove", glove), ("fasttext", vec)):
        Path(paths[key]).write_text(body)
    return paths


def record(golden: Golden) -> None:
    paths = write_files(golden.rng)
    counter = text.utils.count_tokens_from_str(TEXT, " ", "\n", to_lower=True)
    golden.put("count", {"text": TEXT, "counts": dict(sorted(counter.items()))})
    golden.put("count_star", {"counts": dict(sorted(t.count_star(text).items()))})
    vocabs = {
        "plain": {},
        "capped": {"most_freq_count": 4, "min_freq": 1},
        "min2_reserved": {"min_freq": 2, "reserved_tokens": ["<pad>", "<bos>"]},
        "unk_named": {"unknown_token": "<oov>", "most_freq_count": 3},
    }
    for name, kw in vocabs.items():
        v = text.vocab.Vocabulary(counter, **kw)
        golden.put(f"vocab/{name}", {"kwargs": kw, "idx_to_token": v.idx_to_token,
                   "to_indices": v.to_indices(["cat", "zebra", "the"]), "len": len(v)})  # fmt: skip
    vocab = t.vocabulary(text, counter)
    for key, path in paths.items():
        emb = text.embedding.CustomEmbedding(path)
        meta = {"idx_to_token": emb.idx_to_token, "vec_len": emb.vec_len}
        golden.put(f"embedding/{key}", meta, **t.lookups(emb))
        on_vocab = text.embedding.CustomEmbedding(path, vocabulary=vocab)
        golden.put(f"embedding_vocab/{key}", {"idx_to_token": on_vocab.idx_to_token},
                   idx_to_vec=on_vocab.idx_to_vec.asnumpy())  # fmt: skip
    both = t.composite(text, vocab, list(paths.values()))
    golden.put("composite", {"idx_to_token": both.idx_to_token, "vec_len": both.vec_len},
               idx_to_vec=both.idx_to_vec.asnumpy())  # fmt: skip
    golden.put("updated", {}, idx_to_vec=t.updated(mx, text, paths["glove"]))
    # the published files MXNet knows, in its order, with their SHA-1s and archives: the table
    # mxlite/contrib/text/pretrained_files.json must hold
    tables = {c.__name__.lower(): {"files": dict(c.pretrained_file_name_sha1),
                                   "archives": dict(c.pretrained_archive_name_sha1)}
              for c in (text.embedding.GloVe, text.embedding.FastText)}  # fmt: skip
    golden.put("pretrained_files", tables)
