"""The generator of front-end functions: one description (a FrontEnd) per namespace."""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

import pytest

import mxlite as mx
from mxlite.operator import front_end
from mxlite.operator.front_end import FrontEnd


def _namespace() -> tuple[ModuleType, dict[str, ModuleType]]:
    root = ModuleType("fake")
    subs = {n: ModuleType(f"fake.{n}") for n in ("_internal", "op", "contrib", "linalg",
                                                 "random", "image", "sparse")}  # fmt: skip
    return root, subs


_KIND = FrontEnd(
    build=lambda cls, reg_name, func_name: lambda *a, **k: (reg_name, func_name, a, k),
    keywords=("where",),
    doc_tail=("where : str", "    Where it goes."),
)


def test_populate_places_each_name_as_mxnet_does() -> None:
    root, subs = _namespace()
    front_end.populate(root, subs, _KIND)
    assert root.FullyConnected(1, num_hidden=2) == (
        "FullyConnected", "FullyConnected", (1,), {"num_hidden": 2})  # fmt: skip
    assert root.FullyConnected is subs["op"].FullyConnected
    # a prefixed name: the short name in its module, the full one in _internal
    assert subs["contrib"].box_nms()[:2] == ("_contrib_box_nms", "box_nms")
    assert subs["_internal"]._contrib_box_nms.__name__ == "_contrib_box_nms"
    assert "_contrib_box_nms" not in root.__dict__
    assert subs["_internal"]._plus_scalar.__name__ == "_plus_scalar"
    # MXNet's _sparse_X aliases: X in the sparse module, under the operator's own class
    assert subs["sparse"].abs()[:2] == ("_sparse_abs", "abs")


def test_signature_and_docstring_come_from_the_operator_and_the_kind() -> None:
    root, subs = _namespace()
    front_end.populate(root, subs, _KIND)
    sig = inspect.signature(root.FullyConnected)
    assert list(sig.parameters)[-3:] == ["flatten", "where", "kwargs"]
    assert root.FullyConnected.__doc__.endswith("where : str\n    Where it goes.")
    assert "num_hidden" in root.FullyConnected.__doc__


def test_nd_and_sym_are_two_kinds_of_the_same_generator() -> None:
    assert mx.nd.FullyConnected.__doc__.split("out : NDArray")[0] == (
        mx.sym.FullyConnected.__doc__.split("name : string")[0])  # fmt: skip
    nd_sig = inspect.signature(mx.nd.FullyConnected).parameters
    sym_sig = inspect.signature(mx.sym.FullyConnected).parameters
    assert list(nd_sig)[-3:] == ["out", "name", "kwargs"]
    assert list(sym_sig)[-4:] == ["name", "attr", "out", "kwargs"]


def test_late_lookup_and_its_error() -> None:
    root, subs = _namespace()
    front_end.populate(root, subs, _KIND)
    del subs["contrib"].__dict__["box_nms"]
    fn: Any = subs["contrib"].box_nms  # placed again on first access
    assert fn.__name__ == "box_nms"
    with pytest.raises(AttributeError, match="fake.contrib.*no_such_op"):
        subs["contrib"].no_such_op  # noqa: B018
    with pytest.raises(AttributeError, match="'fake'.*_contrib_box_nms"):
        root._contrib_box_nms  # noqa: B018


def test_another_namespace_takes_its_own_prefixes_and_names() -> None:
    """What a NumPy-style namespace would pass: its own prefix table and a name filter."""
    root = ModuleType("np")
    subs = {n: ModuleType(f"np.{n}") for n in ("_internal", "op", "linalg")}
    front_end.populate(root, subs, _KIND, prefixes=(("_linalg_", "linalg"),),
                       include=lambda name: name.startswith("_linalg_"))  # fmt: skip
    assert subs["linalg"].gemm2()[:2] == ("_linalg_gemm2", "gemm2")
    assert "FullyConnected" not in root.__dict__
    with pytest.raises(AttributeError, match="'np' has no attribute 'FullyConnected'"):
        root.FullyConnected  # noqa: B018
