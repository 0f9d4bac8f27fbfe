"""mxlite.base: the helpers every layer shares."""

from __future__ import annotations

import pytest

from mxlite.base import MXNetError, extend_class


def test_extend_class_refuses_a_name_another_module_added() -> None:
    class Target:
        pass

    added_by: dict[str, str] = {}
    extend_class(Target, added_by, "pkg.first", {"twice": lambda self: 1})
    extend_class(Target, added_by, "pkg.first", {"twice": lambda self: 2})  # same owner: fine
    assert Target().twice() == 2
    assert added_by == {"twice": "pkg.first"}
    with pytest.raises(MXNetError, match=r"Target\.twice: added by pkg\.first.*pkg\.second"):
        extend_class(Target, added_by, "pkg.second", {"twice": lambda self: 3})
    assert Target().twice() == 2


def test_fill_doc_fills_a_docstring_and_leaves_none_alone():
    from mxlite.base import fill_doc

    @fill_doc(part="x : int\n        A number.")
    def documented() -> None:
        """Parameters
        ----------
        {part}
        """

    def undocumented() -> None:
        pass

    assert documented.__doc__.split() == "Parameters ---------- x : int A number.".split()
    assert fill_doc(part="x")(undocumented).__doc__ is None
