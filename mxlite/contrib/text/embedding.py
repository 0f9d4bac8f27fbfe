"""Token embeddings (``mx.contrib.text.embedding``), as MXNet 1.9.1's.

A token embedding is a :class:`~.vocab.Vocabulary` with a vector per token (``idx_to_vec``,
row 0 for the unknown token). Vectors come from a text file, one token a line followed by its
numbers (GloVe's format, and fastText's ``.vec`` whose first line, ``count dim``, is skipped
as a header): :class:`GloVe` and :class:`FastText` read the files their projects published,
under ``embedding_root/<glove|fasttext>/`` (downloaded there from MXNet's repository when
missing); :class:`CustomEmbedding` reads any file; :class:`CompositeEmbedding` joins several
embeddings for the tokens of a vocabulary. ``pretrained_files.json`` lists the published files
and their SHA-1s (MXNet's table, checked against it by tests/contrib/test_text.py). A file that is
present is used even when its SHA-1 differs from the published one (with a warning); MXNet
would download the published file over it.
"""

from __future__ import annotations

import json
import logging
import os
import warnings
import zipfile
from collections.abc import Callable
from typing import Any

from ... import ndarray as nd
from ... import numpy as _mx_np
from ... import numpy_extension as _mx_npx
from ... import registry
from ...base import data_dir, fill_doc
from ...fileio import extract_tar
from ...util import is_np_array
from . import vocab
from .vocab import UNKNOWN_IDX, TextCheckError

__all__ = ["register", "create", "get_pretrained_file_names", "GloVe", "FastText",
           "CustomEmbedding", "CompositeEmbedding"]  # fmt: skip

APACHE_REPO_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"

with open(os.path.join(os.path.dirname(__file__), "pretrained_files.json")) as _f:
    _PRETRAINED = json.load(_f)


def register(embedding_cls: type) -> type:
    """Registers a new token embedding, so that :func:`create` makes it by its (lower-case)
    class name."""
    return registry.get_register_func(_TokenEmbedding, "token embedding")(embedding_cls)


def create(embedding_name: str, **kwargs: Any) -> _TokenEmbedding:
    """Creates an instance of token embedding.

    Parameters
    ----------
    embedding_name : str
        The token embedding name (case-insensitive), e.g. ``'glove'`` or ``'fasttext'``.
    **kwargs
        Passed to the embedding's class (``pretrained_file_name``, ``embedding_root``, ...).
    """
    return registry.get_create_func(_TokenEmbedding, "token embedding")(embedding_name, **kwargs)


def get_pretrained_file_names(embedding_name: str | None = None) -> Any:
    """Get valid token embedding names and their pre-trained file names.

    Parameters
    ----------
    embedding_name : str or None, default None
        The pre-trained token embedding name.

    Returns
    -------
    dict or list:
        The valid ``pretrained_file_name`` values of ``embedding_name``; for None, a dict of
        every embedding name to that list.
    """
    reg = registry.get_registry(_TokenEmbedding)
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1) for name, cls in reg.items()}
    if embedding_name not in reg:
        raise KeyError(
            f"Cannot find `embedding_name` {embedding_name}. Use `get_pretrained_file_names("
            "embedding_name=None).keys()` to get all the valid embedding names."
        )
    return list(reg[embedding_name].pretrained_file_name_sha1)


class _TokenEmbedding(vocab.Vocabulary):
    """Token embedding base class: a vocabulary whose tokens each have a vector.

    For the unknown token, index 0 of ``idx_to_vec`` holds the vector the file gives for
    ``unknown_token``, or else ``init_unknown_vec``'s. A token met again in a file is skipped
    (with a warning): its first vector counts.

    Attributes
    ----------
    vec_len : int
        The length of the embedding vector for each token.
    idx_to_vec : NDArray
        The vector of each indexed token, by index.
    """

    pretrained_file_name_sha1: dict[str, str] = {}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._vec_len: int | None = None
        self._idx_to_vec: Any = None

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name: str) -> str:
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name: str) -> str:
        repo_url = os.environ.get("MXNET_GLUON_REPO", APACHE_REPO_URL)
        name = cls._get_download_file_name(pretrained_file_name)
        return f"{repo_url}gluon/embeddings/{cls.__name__.lower()}/{name}"

    @classmethod
    def _get_pretrained_file(cls, embedding_root: str, pretrained_file_name: str) -> str:
        """The path of ``pretrained_file_name`` under ``embedding_root``, downloaded (and
        unpacked) when missing."""
        from ...gluon.utils import check_sha1, download

        embedding_dir = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        path = os.path.join(embedding_dir, pretrained_file_name)
        expected = cls.pretrained_file_name_sha1[pretrained_file_name]
        if os.path.exists(path):
            if not check_sha1(path, expected):
                warnings.warn(
                    f"{cls.__name__}: {path} differs from the published {pretrained_file_name} "
                    "(SHA-1); using it as it is.",
                    stacklevel=3,
                )
            return path
        url = cls._get_pretrained_file_url(pretrained_file_name)
        archive = os.path.join(embedding_dir, os.path.basename(url))
        archives = getattr(cls, "pretrained_archive_name_sha1", {})
        download(url, archive, sha1_hash=archives.get(os.path.basename(url), expected))
        if archive.endswith(".zip"):
            with zipfile.ZipFile(archive, "r") as zf:
                zf.extractall(embedding_dir)
        elif archive.endswith(".gz"):
            extract_tar(archive, embedding_dir)
        return path

    def _load_embedding(
        self,
        pretrained_file_path: str,
        elem_delim: str,
        init_unknown_vec: Callable[..., Any],
        encoding: str = "utf8",
    ) -> None:
        """Index the tokens of a text embedding file and keep their vectors."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError(
                "`pretrained_file_path` must be a valid path to the pre-trained token embedding "
                f"file, got {pretrained_file_path!r}."
            )
        logging.info("Loading pre-trained token embedding vectors from %s", path)
        vec_len: int | None = None
        rows: list[float] = []
        seen: set = set()
        unknown_vec = None
        with open(path, encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                if len(elems) <= 1:
                    raise TextCheckError(
                        f"At line {line_num} of the pre-trained text embedding file: the data "
                        f"format of the pre-trained token embedding file {path} is unexpected."
                    )
                token, values = elems[0], [float(v) for v in elems[1:]]
                if token == self.unknown_token and unknown_vec is None:
                    unknown_vec = values
                    seen.add(token)
                elif token in seen:
                    warnings.warn(
                        f"At line {line_num} of the pre-trained token embedding file: the "
                        f"embedding vector for token {token} has been loaded and a duplicate "
                        "embedding for the  same token is seen and skipped.",
                        stacklevel=3,
                    )
                elif len(values) == 1:
                    warnings.warn(
                        f"At line {line_num} of the pre-trained text embedding file: token "
                        f"{token} with 1-dimensional vector {values} is likely a header and is "
                        "skipped.",
                        stacklevel=3,
                    )
                else:
                    if vec_len is None:
                        vec_len = len(values)
                        rows.extend([0.0] * vec_len)  # row 0: the unknown token
                    elif len(values) != vec_len:
                        raise TextCheckError(
                            f"At line {line_num} of the pre-trained token embedding file: the "
                            f"dimension of token {token} is {len(values)} but the dimension of "
                            f"previous tokens is {vec_len}. Dimensions of all the tokens must "
                            "be the same."
                        )
                    rows.extend(values)
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    seen.add(token)
        if vec_len is None:
            raise TextCheckError(f"The pre-trained token embedding file {path} holds no vectors.")
        self._vec_len = vec_len
        array_fn = _mx_np.array if is_np_array() else nd.array
        self._idx_to_vec = array_fn(rows).reshape((-1, vec_len))
        if unknown_vec is None:
            init = init_unknown_vec(shape=vec_len)
            self._idx_to_vec[UNKNOWN_IDX] = init.as_np_ndarray() if is_np_array() else init
        else:
            self._idx_to_vec[UNKNOWN_IDX] = array_fn(unknown_vec)

    def _index_tokens_from_vocabulary(self, vocabulary: vocab.Vocabulary) -> None:
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        reserved = vocabulary.reserved_tokens
        self._reserved_tokens = None if reserved is None else list(reserved)

    def _set_idx_to_vec_by_embeddings(
        self, token_embeddings: list[_TokenEmbedding], vocab_len: int, vocab_idx_to_token: list
    ) -> None:
        """Vectors for the tokens of a vocabulary: each embedding's vectors side by side."""
        new_vec_len = sum(embed.vec_len for embed in token_embeddings)
        zeros_fn = _mx_np.zeros if is_np_array() else nd.zeros
        new_idx_to_vec = zeros_fn(shape=(vocab_len, new_vec_len))
        col = 0
        for embed in token_embeddings:
            end = col + embed.vec_len
            new_idx_to_vec[0, col:end] = embed.idx_to_vec[0]
            if vocab_len > 1:
                new_idx_to_vec[1:, col:end] = embed.get_vecs_by_tokens(vocab_idx_to_token[1:])
            col = end
        self._vec_len = new_vec_len
        self._idx_to_vec = new_idx_to_vec

    def _build_embedding_for_vocabulary(self, vocabulary: vocab.Vocabulary | None) -> None:
        if vocabulary is None:
            return
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise TextCheckError(
                "The argument `vocabulary` must be an instance of "
                f"mxnet.contrib.text.vocab.Vocabulary, got {type(vocabulary).__name__}."
            )
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    @property
    def vec_len(self) -> int | None:
        return self._vec_len

    @property
    def idx_to_vec(self) -> Any:
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens: Any, lower_case_backup: bool = False) -> Any:
        """Look up embedding vectors of tokens.

        Parameters
        ----------
        tokens : str or list of strs
            A token or a list of tokens.
        lower_case_backup : bool, default False
            If True, a token not found is looked up again in lower case.

        Returns
        -------
        NDArray
            Shape ``(vec_len,)`` for one token, ``(len(tokens), vec_len)`` for a list.
        """
        one = not isinstance(tokens, list)
        tokens = [tokens] if one else tokens
        if lower_case_backup:
            find = self.token_to_idx
            indices = [find[t] if t in find else find.get(t.lower(), UNKNOWN_IDX) for t in tokens]
        else:
            indices = [self.token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]
        if is_np_array():
            embedding_fn, array_fn = _mx_npx.embedding, _mx_np.array
        else:
            embedding_fn, array_fn = nd.Embedding, nd.array
        vecs = embedding_fn(array_fn(indices), self.idx_to_vec, self.idx_to_vec.shape[0],
                            self.idx_to_vec.shape[1])  # fmt: skip
        return vecs[0] if one else vecs

    def update_token_vectors(self, tokens: Any, new_vectors: Any) -> None:
        """Updates embedding vectors for tokens.

        Parameters
        ----------
        tokens : str or a list of strs
            A token or a list of tokens whose embedding vector are to be updated.
        new_vectors : NDArray
            One row per token, ``vec_len`` wide (1-D allowed for a single token).
        """
        if self.idx_to_vec is None:
            raise TextCheckError("The property `idx_to_vec` has not been properly set.")
        single = not isinstance(tokens, list) or len(tokens) == 1
        dims = (1, 2) if single else (2,)
        if not isinstance(new_vectors, nd.NDArray) or len(new_vectors.shape) not in dims:
            raise TextCheckError(
                "`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a singleton."
                if single else
                "`new_vectors` must be a 2-D NDArray if `tokens` is a list of multiple strings."
            )  # fmt: skip
        tokens = tokens if isinstance(tokens, list) else [tokens]
        if len(new_vectors.shape) == 1:
            expand = _mx_np.expand_dims if is_np_array() else nd.expand_dims
            new_vectors = expand(new_vectors, axis=0)
        if tuple(new_vectors.shape) != (len(tokens), self.vec_len):
            raise TextCheckError(
                f"update_token_vectors: new_vectors has shape {tuple(new_vectors.shape)}; the "
                f"{len(tokens)} tokens of vec_len {self.vec_len} need "
                f"({len(tokens)}, {self.vec_len})."
            )
        indices = []
        for token in tokens:
            if token not in self.token_to_idx:
                raise ValueError(
                    f"Token {token} is unknown. To update the embedding vector for an unknown "
                    "token, please specify it explicitly as the `unknown_token` "
                    f"{self.idx_to_token[UNKNOWN_IDX]} in `tokens`. This is to avoid "
                    "unintended updates."
                )
            indices.append(self.token_to_idx[token])
        array_fn = _mx_np.array if is_np_array() else nd.array
        self._idx_to_vec[array_fn(indices)] = new_vectors

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name: str) -> None:
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError(
                f"Cannot find pretrained file {pretrained_file_name} for token embedding "
                f"{name}. Valid pretrained files for embedding {name}: "
                + ", ".join(cls.pretrained_file_name_sha1)
            )


_DEFAULT_ROOT = os.path.join(data_dir(), "embeddings")

# The parameters GloVe and FastText document alike, after their pretrained_file_name.
_pretrained_doc = fill_doc(
    pretrained_params="""embedding_root : str, default $MXNET_HOME/embeddings
    The root directory for storing embedding-related files.
init_unknown_vec : callback, default nd.zeros
    The callback used to initialize the embedding vector for the unknown token.
vocabulary : Vocabulary, default None
    The tokens to index; None indexes every token of the file."""
)


def _pretrained_init(default_file: str) -> Callable[..., None]:
    """The ``__init__`` of GloVe and FastText, ``pretrained_file_name`` defaulting to
    ``default_file``: check the name, then load the published file (space-separated) from
    ``embedding_root`` (downloading it if needed) and index ``vocabulary``."""

    def __init__(
        self,
        pretrained_file_name: str = default_file,
        embedding_root: str = _DEFAULT_ROOT,
        init_unknown_vec: Callable[..., Any] = nd.zeros,
        vocabulary: vocab.Vocabulary | None = None,
        **kwargs: Any,
    ) -> None:
        self._check_pretrained_file_names(pretrained_file_name)
        _TokenEmbedding.__init__(self, **kwargs)
        path = self._get_pretrained_file(embedding_root, pretrained_file_name)
        self._load_embedding(path, " ", init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)

    return __init__


@register
@_pretrained_doc
class GloVe(_TokenEmbedding):
    """The GloVe word embedding (https://nlp.stanford.edu/projects/glove/): vectors learned
    from global word-word co-occurrence statistics (Pennington, Socher and Manning, 2014).

    Parameters
    ----------
    pretrained_file_name : str, default 'glove.840B.300d.txt'
        The name of the pre-trained token embedding file.
    {pretrained_params}
    """

    pretrained_file_name_sha1 = _PRETRAINED["glove"]["files"]
    pretrained_archive_name_sha1 = _PRETRAINED["glove"]["archives"]

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name: str) -> str:
        # the archive of a file is named by its corpus: glove.6B.50d.txt is in glove.6B.zip
        by_corpus = {a.split(".")[1]: a for a in cls.pretrained_archive_name_sha1}
        return by_corpus[pretrained_file_name.split(".")[1]]

    __init__ = _pretrained_init("glove.840B.300d.txt")


@register
@_pretrained_doc
class FastText(_TokenEmbedding):
    """The fastText word embedding (https://fasttext.cc/): vectors learned with subword
    information (Bojanowski, Grave, Joulin and Mikolov, 2016), in the ``.vec`` text format.

    Parameters
    ----------
    pretrained_file_name : str, default 'wiki.simple.vec'
        The name of the pre-trained token embedding file.
    {pretrained_params}
    """

    pretrained_file_name_sha1 = _PRETRAINED["fasttext"]["files"]
    pretrained_archive_name_sha1 = _PRETRAINED["fasttext"]["archives"]

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name: str) -> str:
        return ".".join(pretrained_file_name.split(".")[:-1]) + ".zip"

    __init__ = _pretrained_init("wiki.simple.vec")


class CustomEmbedding(_TokenEmbedding):
    """User-defined token embedding, from a file of lines ``token<ed>v1<ed>v2...<ed>vk``.

    Parameters
    ----------
    pretrained_file_path : str
        The path to the custom pre-trained token embedding file.
    elem_delim : str, default ' '
        The delimiter between the token and the values of a line.
    encoding : str, default 'utf8'
        The encoding scheme for reading the custom pre-trained token embedding file.
    init_unknown_vec : callback, default nd.zeros
        The callback used to initialize the embedding vector for the unknown token.
    vocabulary : Vocabulary, default None
        The tokens to index; None indexes every token of the file.
    """

    def __init__(
        self,
        pretrained_file_path: str,
        elem_delim: str = " ",
        encoding: str = "utf8",
        init_unknown_vec: Callable[..., Any] = nd.zeros,
        vocabulary: vocab.Vocabulary | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """Composite token embeddings: for each token of a vocabulary, the vectors of several
    embeddings joined end to end.

    Parameters
    ----------
    vocabulary : Vocabulary
        The tokens to index.
    token_embeddings : instance or list of _TokenEmbedding
        The embeddings whose vectors are joined, in order.
    """

    def __init__(self, vocabulary: vocab.Vocabulary, token_embeddings: Any) -> None:
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise TextCheckError(
                "The argument `vocabulary` must be an instance of "
                f"mxnet.contrib.text.indexer.Vocabulary, got {type(vocabulary).__name__}."
            )
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        if not all(isinstance(e, _TokenEmbedding) for e in token_embeddings):
            raise TextCheckError(
                "The argument `token_embeddings` must be an instance or a list of instances of "
                "`mxnet.contrib.text.embedding.TextEmbedding`."
            )
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
