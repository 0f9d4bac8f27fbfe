"""Utilities for text data processing (``mx.contrib.text.utils``)."""

from __future__ import annotations

import collections
import re

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(
    source_str: str,
    token_delim: str = " ",
    seq_delim: str = "\n",
    to_lower: bool = False,
    counter_to_update: collections.Counter | None = None,
) -> collections.Counter:
    """Counts tokens in the specified string.

    The string is split at every match of ``token_delim`` or ``seq_delim`` (both regular
    expressions: escape special characters, e.g. ``'\\*'``); empty pieces are dropped.

    Parameters
    ----------
    source_str : str
        A source string of tokens.
    token_delim : str, default ' '
        A token delimiter.
    seq_delim : str, default '\\n'
        A sequence delimiter.
    to_lower : bool, default False
        Whether to convert the source source_str to the lower case.
    counter_to_update : collections.Counter or None, default None
        The Counter to add the counts to; a new one when None.

    Returns
    -------
    collections.Counter
        ``counter_to_update`` updated with the token counts of `source_str`, or a new Counter.

    Examples
    --------
    >>> c = count_tokens_from_str(' Life is great ! \\n life is good . \\n', ' ', '\\n', True)
    >>> sorted(c.items())
    [('!', 1), ('.', 1), ('good', 1), ('great', 1), ('is', 2), ('life', 2)]
    >>> count_tokens_from_str('*a*b*\\n*a*', '\\\\*', '\\n')['a']
    2
    """
    tokens = [t for t in re.split(token_delim + "|" + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
