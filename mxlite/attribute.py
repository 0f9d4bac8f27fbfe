"""Attribute scopes: ``mx.AttrScope`` (``mx.attribute.AttrScope``).

Each thread has one current scope. Symbols created inside ``with AttrScope(key=value):`` get
its attributes, merged with those of the enclosing scopes (inner wins) and with the ``attr=``
given at creation (which wins over both).
"""

from __future__ import annotations

import collections
import threading
from typing import Any

from .base import MXNetError, ThreadScopeMeta

__all__ = ["AttrScope", "current"]


class AttrScope(metaclass=ThreadScopeMeta):
    """A scope of string attributes given to every symbol created inside it.

    Parameters
    ----------
    **kwargs
        The attributes; every value must be a string.

    Examples
    --------
    >>> with AttrScope(ctx_group="dev1"):
    ...     AttrScope.current.get({"__lr_mult__": "2"})
    {'ctx_group': 'dev1', '__lr_mult__': '2'}
    """

    _current = threading.local()
    # how many subgraphs (control-flow bodies) each name has had, for unique body names
    _subgraph_names: collections.defaultdict[str, int] = collections.defaultdict(int)

    def __init__(self, **kwargs: str) -> None:
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise MXNetError(
                    f"AttrScope: attribute {key!r} must be a string, got "
                    f"{type(value).__name__} {value!r}."
                )
        self._old_scope: AttrScope | None = None
        self._attr: dict[str, str] = dict(kwargs)

    def get(self, attr: dict[str, str] | None) -> dict[str, str]:
        """Return this scope's attributes updated with ``attr`` (a new dict).

        Parameters
        ----------
        attr : dict of str to str, or None
            Attributes given at creation; they override the scope's.
        """
        ret = dict(self._attr)
        if attr:
            ret.update(attr)
        return ret

    @staticmethod
    def _default_scope() -> AttrScope:
        return AttrScope()

    def __enter__(self) -> AttrScope:
        outer = AttrScope.current
        self._old_scope = outer
        merged = dict(outer._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, *exc: Any) -> None:
        AttrScope._current.value = self._old_scope


def current() -> AttrScope:
    """The calling thread's current attribute scope."""
    return AttrScope.current
