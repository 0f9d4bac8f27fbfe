"""A text token index (``mx.contrib.text.vocab.Vocabulary``), as MXNet 1.9.1's: index 0 is
the unknown token, then the reserved tokens, then the counted tokens from the most frequent
(ties in token order) down to ``min_freq``, at most ``most_freq_count`` of them."""

from __future__ import annotations

import collections
from collections.abc import Hashable
from typing import Any

from ...base import MXNetError

__all__ = ["Vocabulary"]

UNKNOWN_IDX = 0  # where the unknown token is, in every vocabulary and embedding


class TextCheckError(MXNetError, AssertionError):
    """A bad argument of mx.contrib.text where MXNet 1.9.1 fails an ``assert`` (its tests and
    callers catch AssertionError)."""


class Vocabulary:
    """Indexing for text tokens.

    Parameters
    ----------
    counter : collections.Counter or None, default None
        Counts text token frequencies in the text data; its keys are indexed by frequency.
    most_freq_count : None or int, default None
        The maximum possible number of the most frequent tokens in the keys of `counter` that
        can be indexed (reserved tokens not counted). None: no limit.
    min_freq : int, default 1
        The minimum frequency required for a token in the keys of `counter` to be indexed.
    unknown_token : hashable object, default '<unk>'
        The representation for any unknown token.
    reserved_tokens : list of hashable objects or None, default None
        Tokens that are always indexed (padding, sentence marks, ...); neither the unknown
        token nor duplicates.

    Attributes
    ----------
    unknown_token : hashable object
        The representation for any unknown token.
    reserved_tokens : list of strs or None
        A list of reserved tokens that will always be indexed.
    """

    def __init__(
        self,
        counter: collections.Counter | None = None,
        most_freq_count: int | None = None,
        min_freq: int = 1,
        unknown_token: Hashable = "<unk>",
        reserved_tokens: list | None = None,
    ) -> None:
        if min_freq <= 0:
            raise TextCheckError(
                f"Vocabulary: `min_freq` must be set to a positive value, got {min_freq}."
            )
        if reserved_tokens is not None:
            if unknown_token in set(reserved_tokens):
                raise TextCheckError("Vocabulary: `reserved_token` cannot contain `unknown_token`.")
            if len(set(reserved_tokens)) != len(reserved_tokens):
                raise TextCheckError(
                    "Vocabulary: `reserved_tokens` cannot contain duplicate reserved tokens."
                )
        self._index_unknown_and_reserved_tokens(unknown_token, reserved_tokens)
        if counter is not None:
            self._index_counter_keys(counter, unknown_token, reserved_tokens, most_freq_count,
                                     min_freq)  # fmt: skip

    def _index_unknown_and_reserved_tokens(self, unknown_token: Any, reserved: Any) -> None:
        self._unknown_token = unknown_token
        self._idx_to_token = [unknown_token]
        self._reserved_tokens = None if reserved is None else list(reserved)
        self._idx_to_token.extend(reserved or [])
        self._token_to_idx = {token: idx for idx, token in enumerate(self._idx_to_token)}

    def _index_counter_keys(
        self, counter: Any, unknown_token: Any, reserved: Any, most_freq_count: Any, min_freq: int
    ) -> None:
        if not isinstance(counter, collections.Counter):
            raise TextCheckError(
                "Vocabulary: `counter` must be an instance of collections.Counter, got "
                f"{type(counter).__name__}."
            )
        special = set(reserved or ()) | {unknown_token}
        token_freqs = sorted(counter.items(), key=lambda x: x[0])
        token_freqs.sort(key=lambda x: x[1], reverse=True)  # stable: ties stay in token order
        cap = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, freq in token_freqs:
            if freq < min_freq or len(self._idx_to_token) == cap:
                break
            if token not in special:
                self._idx_to_token.append(token)
                self._token_to_idx[token] = len(self._idx_to_token) - 1

    def __len__(self) -> int:
        return len(self.idx_to_token)

    @property
    def token_to_idx(self) -> dict:
        """dict mapping str to int: A dict mapping each token to its index integer."""
        return self._token_to_idx

    @property
    def idx_to_token(self) -> list:
        """list of strs: the indexed tokens, in index order."""
        return self._idx_to_token

    @property
    def unknown_token(self) -> Any:
        return self._unknown_token

    @property
    def reserved_tokens(self) -> list | None:
        return self._reserved_tokens

    def to_indices(self, tokens: Any) -> int | list[int]:
        """Converts tokens to indices according to the vocabulary (unknown tokens: 0).

        Parameters
        ----------
        tokens : str or list of strs
            A source token or tokens to be converted.

        Returns
        -------
        int or list of ints
            A token index or a list of token indices according to the vocabulary.
        """
        one = not isinstance(tokens, list)
        indices = [self.token_to_idx.get(t, UNKNOWN_IDX) for t in ([tokens] if one else tokens)]
        return indices[0] if one else indices

    def to_tokens(self, indices: Any) -> Any:
        """Converts token indices to tokens according to the vocabulary.

        Parameters
        ----------
        indices : int or list of ints
            A source token index or token indices to be converted.

        Returns
        -------
        str or list of strs
            A token or a list of tokens according to the vocabulary.
        """
        one = not isinstance(indices, list)
        tokens = []
        for idx in [indices] if one else indices:
            if not isinstance(idx, int) or idx > len(self.idx_to_token) - 1:
                raise ValueError(f"Token index {idx} in the provided `indices` is invalid.")
            tokens.append(self.idx_to_token[idx])
        return tokens[0] if one else tokens
