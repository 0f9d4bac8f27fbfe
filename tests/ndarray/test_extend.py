"""The one place where modules above add members to NDArray, Symbol, mx.nd and mx.operator."""

from __future__ import annotations

import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.ndarray import ndarray as nd_module
from mxlite.symbol import symbol as sym_module


def test_the_installed_members_name_their_module() -> None:
    assert nd_module._EXTENDED_BY["__getitem__"] == "mxlite.ndarray.indexing"
    assert nd_module._EXTENDED_BY["attach_grad"] == "mxlite.autograd.backprop"
    assert nd_module._EXTENDED_BY["tostype"] == "mxlite.ndarray.sparse_array"
    assert sym_module._EXTENDED_BY["bind"] == "mxlite.executor"
    assert mx.nd.CachedOp is mx.executor.CachedOp
    assert mx.operator.NDArray is mx.nd.NDArray and "NDArray" in mx.operator.__all__


def test_a_second_module_cannot_replace_a_member() -> None:
    with pytest.raises(MXNetError, match=r"NDArray.__getitem__: added by mxlite.ndarray.indexing"):
        nd_module.extend("someone.else", {"__getitem__": lambda self, key: None})
    with pytest.raises(MXNetError, match=r"Symbol.bind: added by mxlite.executor"):
        sym_module.extend("someone.else", {"bind": lambda self: None})
    with pytest.raises(MXNetError, match="mx.nd.CachedOp: exists already"):
        mx.nd.provide("someone.else", {"CachedOp": object})
    with pytest.raises(ValueError, match="mx.operator.NDArray: exists already"):
        mx.operator.provide("someone.else", {"NDArray": object})


def test_the_owner_may_add_again() -> None:
    getitem = mx.nd.NDArray.__getitem__
    nd_module.extend("mxlite.ndarray.indexing", {"__getitem__": getitem})
    assert mx.nd.ones((2, 2))[0].shape == (2,)
