"""mxlite.base: the helpers every layer shares."""

from __future__ import annotations

import pytest

from mxlite.base import MXNetError, extend_class, fill_doc


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


def test_fill_doc_writes_the_parts_at_the_placeholders_indentation() -> None:
    doc = fill_doc(x="x : int\n    The x.", y="y")

    @doc
    def f() -> None:
        """F {y} and {x} stay inside a line; braces {} too.

        {x}

            {y}
        """

    @doc
    class K:
        """K.

        {y}"""

    def bare() -> None:
        pass

    assert f.__doc__ == (
        "F {y} and {x} stay inside a line; braces {} too.\n\n"
        "        x : int\n            The x.\n\n            y\n        "
    )
    assert K.__doc__ == "K.\n\n        y"
    assert doc(bare) is bare and bare.__doc__ is None  # as under python -OO


def test_statistics_checks_document_their_shared_parameters() -> None:
    import inspect

    from mxlite.test_utils import chi_square_check, mean_check, var_check

    for fn in (mean_check, var_check):
        doc = inspect.getdoc(fn)
        assert "generator : function\n    ``generator(N)`` returns N i.i.d. samples." in doc
        assert "sigma : float\n    Expected standard deviation.\nnsamples : int" in doc
        assert "Returns\n-------\nbool\n    Whether the " in doc
    assert "{" not in inspect.getdoc(chi_square_check)
