"""How an operator writes its results: MXNet's ``OpReqType`` and ``ASSIGN_DISPATCH``."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

__all__ = ["OpReq", "assign", "parse_req"]


class OpReq(IntEnum):
    """``NULL``: write nothing; ``WRITE``: overwrite; ``INPLACE``: overwrite an array that
    may share memory with an input; ``ADD``: accumulate (``+=``), as for gradients."""

    NULL = 0
    WRITE = 1
    INPLACE = 2
    ADD = 3


# The members as plain names, for the checks on every call: reading an attribute of an Enum
# class costs ~0.2 us in Python 3.11 (EnumType.__getattr__), ten times a global's.
_NULL, _WRITE, _INPLACE, _ADD = OpReq.NULL, OpReq.WRITE, OpReq.INPLACE, OpReq.ADD

_REQ_NAMES = {"null": OpReq.NULL, "write": OpReq.WRITE, "inplace": OpReq.INPLACE, "add": OpReq.ADD}


def parse_req(value: Any, where: str = "grad_req") -> OpReq:
    """Turn MXNet's request names ('null', 'write', 'inplace', 'add') or an OpReq into OpReq."""
    if isinstance(value, OpReq):
        return value
    req = _REQ_NAMES.get(value) if isinstance(value, str) else None
    if req is None:
        from ..base import MXNetError

        raise MXNetError(
            f"{where}: expected one of 'null', 'write', 'inplace', 'add', got {value!r}."
        )
    return req


def assign(out: Any, req: OpReq, value: Any) -> None:
    """Write ``value`` into the array ``out`` as ``req`` says (MXNet's ASSIGN_DISPATCH).

    ``value`` may be an array broadcastable to ``out`` or a scalar; when it already is ``out``
    (a kernel that computed in place) a write is a no-op.
    """
    if req == _WRITE or req == _INPLACE:
        if value is not out:
            out[...] = value
    elif req == _ADD:
        out += value
