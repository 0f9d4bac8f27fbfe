"""Automatic naming of symbols: ``mx.name.NameManager`` and ``mx.name.Prefix``.

Each thread has one current manager (a fresh :class:`NameManager` until a ``with`` block
installs another). An operator created without ``name=`` asks it for a name built from a hint
(the operator's function name in lower case) and a per-hint counter: ``fullyconnected0``,
``fullyconnected1``, ...
"""

from __future__ import annotations

import threading
from typing import Any

from .base import ThreadScopeMeta

__all__ = ["NameManager", "Prefix"]


class NameManager(metaclass=ThreadScopeMeta):
    """Gives unique names to symbols created without one, counting per hint.

    Examples
    --------
    >>> with NameManager():
    ...     nm = NameManager.current
    ...     nm.get(None, "conv"), nm.get(None, "conv"), nm.get("c", "conv")
    ('conv0', 'conv1', 'c')
    """

    _current = threading.local()

    def __init__(self) -> None:
        self._counter: dict[str, int] = {}
        self._old_manager: NameManager | None = None

    def get(self, name: str | None, hint: str) -> str:
        """Return ``name`` when given, else ``hint`` followed by its next count.

        Parameters
        ----------
        name : str or None
            The name the user gave.
        hint : str
            The prefix of a generated name.
        """
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return f"{hint}{count}"

    @staticmethod
    def _default_scope() -> NameManager:
        return NameManager()

    def __enter__(self) -> NameManager:
        self._old_manager = NameManager.current
        NameManager._current.value = self
        return self

    def __exit__(self, *exc: Any) -> None:
        NameManager._current.value = self._old_manager


class Prefix(NameManager):
    """A name manager that puts ``prefix`` in front of every name, given or generated.

    Parameters
    ----------
    prefix : str
        The prefix.

    Examples
    --------
    >>> with Prefix("mynet_"):
    ...     NameManager.current.get(None, "fc")
    'mynet_fc0'
    """

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self._prefix = prefix

    def get(self, name: str | None, hint: str) -> str:
        return self._prefix + super().get(name, hint)
