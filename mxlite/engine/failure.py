"""Failures of engine functions: the record shared by every var a failure poisons, and the
class it is raised as at the next wait (MXNetError, joined with MXNet's registered builtin
kinds so that ``except IndexError`` and ``except MXNetError`` both catch it)."""

from __future__ import annotations

from ..base import MXNetError
from ..context import Context

__all__ = ["error_class"]


class _Failure:
    """An exception raised inside a function, shared by every var it poisoned."""

    __slots__ = ("name", "ctx", "exc", "cleared", "recorded")

    def __init__(self, name: str, ctx: Context, exc: BaseException) -> None:
        self.name = name
        self.ctx = ctx
        self.exc = exc
        self.cleared = False  # raised to the user: reported
        self.recorded = False  # in Engine._failures (skipped functions pass the same one on)

    def raise_error(self) -> None:
        self.cleared = True
        exc = self.exc
        raise error_class(exc)(
            f"engine function {self.name!r} on {self.ctx} failed: {type(exc).__name__}: {exc}"
        ) from exc


# MXNet raises these kinds of failure as the builtin class (mxnet/error.py registers them);
# ours are both that builtin and MXNetError, so `except IndexError` and `except MXNetError`
# both catch them.
_BUILTIN_KINDS = (IndexError, KeyError, ValueError, TypeError, AttributeError, NotImplementedError)
_COMBINED: dict[type, type] = {}


def error_class(exc: BaseException) -> type:
    """The class a failure is raised as at a wait: MXNetError, joined with the failure's
    builtin kind when it has one of MXNet's registered kinds."""
    if isinstance(exc, MXNetError):
        return MXNetError
    for kind in _BUILTIN_KINDS:
        if isinstance(exc, kind):
            cls = _COMBINED.get(kind)
            if cls is None:
                cls = type(kind.__name__, (MXNetError, kind), {"__module__": "mxlite.error"})
                _COMBINED[kind] = cls
            return cls
    return MXNetError
