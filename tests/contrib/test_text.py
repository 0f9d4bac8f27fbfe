"""mx.contrib.text against MXNet 1.9.1 (tools/golden/cases/contrib_text.py): token counts,
vocabularies, embeddings from tiny GloVe- and fastText-format files, lookups, composites and
updates; GloVe and FastText read a local file under embedding_root as CustomEmbedding does."""

from __future__ import annotations

import collections
import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.contrib import text

from ..golden_file import load
from . import text_cases

DATA = load("contrib/golden/text.npz")
DIR = Path(__file__).parent / "golden" / "text"
PATHS = {"glove": str(DIR / "tiny.glove.txt"), "fasttext": str(DIR / "tiny.fasttext.vec")}
pytestmark = pytest.mark.filterwarnings("ignore:At line")


def _counter() -> collections.Counter:
    return text.utils.count_tokens_from_str(DATA.cases["count"]["text"], " ", "\n", True)


def _vocab() -> text.vocab.Vocabulary:
    return text_cases.vocabulary(text, _counter())


def test_count_tokens_as_mxnet() -> None:
    assert dict(_counter()) == DATA.cases["count"]["counts"]
    assert dict(text_cases.count_star(text)) == DATA.cases["count_star"]["counts"]


@pytest.mark.parametrize("name", [k for k in DATA.cases if k.startswith("vocab/")])
def test_vocabulary_as_mxnet(name: str) -> None:
    case = DATA.cases[name]
    v = text.vocab.Vocabulary(_counter(), **case["kwargs"])
    assert v.idx_to_token == case["idx_to_token"] and len(v) == case["len"]
    assert v.to_indices(["cat", "zebra", "the"]) == case["to_indices"]
    assert v.to_tokens(v.to_indices("cat")) == (
        "cat" if "cat" in v.token_to_idx else v.unknown_token
    )


@pytest.mark.parametrize("kind", ["glove", "fasttext"])
def test_custom_embedding_as_mxnet(kind: str) -> None:
    case, want = DATA.cases[f"embedding/{kind}"], DATA.arrays(f"embedding/{kind}")
    emb = text.embedding.CustomEmbedding(PATHS[kind])
    assert emb.idx_to_token == case["idx_to_token"] and emb.vec_len == case["vec_len"]
    for key, got in text_cases.lookups(emb).items():
        np.testing.assert_allclose(got, want[key], err_msg=key)
    on_vocab = text.embedding.CustomEmbedding(PATHS[kind], vocabulary=_vocab())
    want_v = DATA.arrays(f"embedding_vocab/{kind}")
    assert on_vocab.idx_to_token == DATA.cases[f"embedding_vocab/{kind}"]["idx_to_token"]
    np.testing.assert_allclose(on_vocab.idx_to_vec.asnumpy(), want_v["idx_to_vec"])


def test_composite_and_update_as_mxnet() -> None:
    both = text_cases.composite(text, _vocab(), list(PATHS.values()))
    assert both.idx_to_token == DATA.cases["composite"]["idx_to_token"] and both.vec_len == 7
    np.testing.assert_allclose(both.idx_to_vec.asnumpy(), DATA["composite/idx_to_vec"])
    got = text_cases.updated(mx, text, PATHS["glove"])
    np.testing.assert_allclose(got, DATA["updated/idx_to_vec"])


def test_glove_and_fasttext_read_a_local_file(tmp_path: Path) -> None:
    for cls, kind, name in ((text.embedding.GloVe, "glove", "glove.6B.50d.txt"),
                            (text.embedding.FastText, "fasttext", "wiki.simple.vec")):  # fmt: skip
        os.makedirs(tmp_path / kind, exist_ok=True)
        shutil.copy(PATHS[kind], tmp_path / kind / name)
        with pytest.warns(UserWarning, match="differs from the published"):
            emb = text.embedding.create(kind, pretrained_file_name=name,
                                        embedding_root=str(tmp_path))  # fmt: skip
        assert isinstance(emb, cls)
        np.testing.assert_allclose(emb.idx_to_vec.asnumpy(),
                                   DATA[f"embedding/{kind}/idx_to_vec"])  # fmt: skip


def test_pretrained_file_names_are_mxnets() -> None:
    tables = DATA.cases["pretrained_files"]
    path = Path(text.embedding.__file__).parent / "pretrained_files.json"
    assert json.loads(path.read_text()) == tables  # what the package ships is MXNet's table
    assert text.embedding.get_pretrained_file_names("glove") == list(tables["glove"]["files"])
    assert sorted(text.embedding.get_pretrained_file_names()) == ["fasttext", "glove"]
    assert text.embedding.GloVe._get_download_file_name("glove.6B.50d.txt") == "glove.6B.zip"
    with pytest.raises(KeyError, match="Cannot find pretrained file nope.txt"):
        text.embedding.GloVe("nope.txt")
    with pytest.raises(KeyError, match="Cannot find `embedding_name`"):
        text.embedding.get_pretrained_file_names("word2vec")


def test_registering_a_new_embedding() -> None:
    @text.embedding.register
    class TinyEmbed(text.embedding._TokenEmbedding):
        pretrained_file_name_sha1 = {"tiny.txt": "0" * 40}

        def __init__(self, pretrained_file_name: str = "tiny.txt") -> None:
            super().__init__()

    assert isinstance(text.embedding.create("tinyembed"), TinyEmbed)
    assert text.embedding.get_pretrained_file_names("tinyembed") == ["tiny.txt"]


def test_in_numpy_mode_vectors_are_np_arrays() -> None:
    with mx.util.np_array(True), mx.util.np_shape(True):
        emb = text.embedding.CustomEmbedding(PATHS["glove"])
        vecs = emb.get_vecs_by_tokens(["cat", "dog"])
        assert isinstance(emb.idx_to_vec, mx.np.ndarray) and isinstance(vecs, mx.np.ndarray)
    rows = [emb.token_to_idx["cat"], emb.token_to_idx["dog"]]
    np.testing.assert_allclose(vecs.asnumpy(), DATA["embedding/glove/idx_to_vec"][rows])


def test_bad_input_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(mx.MXNetError, match="min_freq"):
        text.vocab.Vocabulary(min_freq=0)
    with pytest.raises(mx.MXNetError, match="duplicate reserved"):
        text.vocab.Vocabulary(reserved_tokens=["a", "a"])
    with pytest.raises(mx.MXNetError, match="cannot contain `unknown_token`"):
        text.vocab.Vocabulary(reserved_tokens=["<unk>"])
    with pytest.raises(ValueError, match="Token index 99"):
        text.vocab.Vocabulary(_counter()).to_tokens([1, 99])
    bad = tmp_path / "bad.txt"
    bad.write_text("a 1 2\nb 1 2 3\n")
    with pytest.raises(mx.MXNetError, match="dimension of token b is 3"):
        text.embedding.CustomEmbedding(str(bad))
    with pytest.raises(ValueError, match="valid path"):
        text.embedding.CustomEmbedding(str(tmp_path / "missing.txt"))
    emb = text.embedding.CustomEmbedding(PATHS["glove"])
    with pytest.raises(ValueError, match="Token zebra is unknown"):
        emb.update_token_vectors("zebra", mx.nd.ones(4))
    with pytest.raises(mx.MXNetError, match=r"need \(1, 4\)"):
        emb.update_token_vectors("cat", mx.nd.ones(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(mx.MXNetError, match="vocabulary"):
            text.embedding.CompositeEmbedding("not a vocab", [emb])
