"""mx.ndarray_doc and mx.symbol_doc: the examples of every Doc class run as doctests, and
_build_doc appends them to a function's docstring as MXNet's does."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import mxlite as mx
from mxlite import ndarray_doc, symbol_doc


@pytest.mark.parametrize(
    "cls",
    [*ndarray_doc.NDArrayDoc.__subclasses__(), *symbol_doc.SymbolDoc.__subclasses__()],
    ids=lambda c: c.__name__,
)
def test_every_example_runs(cls: type) -> None:
    globs = {"mx": mx, "np": np, "SymbolDoc": symbol_doc.SymbolDoc}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(cls, cls.__name__, globs=globs):
        runner.run(test)
    assert runner.failures == 0  # CustomDoc's one example is skipped: it needs an operator


def test_build_doc_appends_the_examples() -> None:
    types = ["NDArray-or-Symbol[]", "int"]
    doc = ndarray_doc._build_doc("Stack", "Join arrays.", ["data", "axis"], types,
                                 ["Inputs.", "The axis."])  # fmt: skip
    assert doc.startswith("Join arrays.\n\nParameters\n----------\ndata : NDArray[]")
    assert "out : NDArray, optional" in doc and ">>> mx.nd.stack(a, b)" in doc
    doc = symbol_doc._build_doc("Concat", "Joins.", ["data"], ["Symbol[]"], ["Inputs."],
                                key_var_num_args="num_args")  # fmt: skip
    assert "variable length of positional input" in doc and "Returns\n-------\nSymbol" in doc
    assert "SymbolDoc.get_output_shape(cat" in doc
    assert ndarray_doc._build_doc("nothing", "d", [], [], []).endswith("this function.\n")


def test_get_output_shape_names_each_output() -> None:
    out = mx.sym.SliceChannel(mx.sym.var("x"), num_outputs=2, name="split")
    assert symbol_doc.SymbolDoc.get_output_shape(out, x=(4, 6)) == {
        "split_output0": (4, 3), "split_output1": (4, 3)}  # fmt: skip
