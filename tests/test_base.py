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


def test_every_module_imports_without_docstrings() -> None:
    """Under ``python -OO`` every docstring is None: modules that build documentation from
    shared parts must still import, and arrays must still work."""
    import subprocess
    import sys

    script = (
        "import importlib, pkgutil, mxlite as mx\n"
        "bad = []\n"
        "for m in pkgutil.walk_packages(mx.__path__, 'mxlite.'):\n"
        "    if m.name.startswith(('mxlite.demo', 'mxlite.launch', 'mxlite.run.')):\n"
        "        continue\n"
        "    try:\n"
        "        importlib.import_module(m.name)\n"
        "    except ImportError:\n"
        "        pass  # an optional extra\n"
        "    except Exception as e:\n"
        "        bad.append(f'{m.name}: {e!r}')\n"
        "if bad or mx.nd.ones.__doc__ is not None:  # assert is stripped under -O\n"
        "    raise SystemExit(str(bad))\n"
        "print((mx.nd.ones((2,)) + 1).asnumpy().tolist())\n"
    )
    done = subprocess.run(
        [sys.executable, "-OO", "-c", script], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[2.0, 2.0]"
