"""Extra documents of ``mx.sym`` functions (``mx.symbol_doc``), as MXNet keeps them: a class
``<operator>Doc`` deriving from :class:`SymbolDoc` whose docstring holds Python examples, and
:func:`_build_doc`, which writes a function's docstring from its description and arguments and
appends the examples of its ``Doc`` class. The examples run as doctests with ``mx``, ``np``
and ``SymbolDoc`` (tests/test_symbol_doc.py).

:meth:`SymbolDoc.get_output_shape` names each output's shape for given input shapes.
"""

from __future__ import annotations

from typing import Any

from .base import op_doc_builder as _op_doc_builder

__all__ = ["SymbolDoc"]


class SymbolDoc:
    """The base class for attaching doc to operators."""

    @staticmethod
    def get_output_shape(sym: Any, **input_shapes: Any) -> dict[str, tuple]:
        """Get user friendly information of the output shapes: output name -> shape."""
        _, s_outputs, _ = sym.infer_shape(**input_shapes)
        return dict(zip(sym.list_outputs(), s_outputs))


class ActivationDoc(SymbolDoc):
    """
    Examples
    --------
    A hidden layer with a ReLU:

    >>> h = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=8, name="fc")
    >>> act = mx.sym.Activation(h, act_type="relu", name="relu")
    >>> SymbolDoc.get_output_shape(act, data=(2, 5))
    {'relu_output': (2, 8)}
    >>> out = act.eval(data=mx.nd.ones((1, 5)), fc_weight=-mx.nd.ones((8, 5)),
    ...                fc_bias=mx.nd.zeros(8))[0]
    >>> float(out.sum().asscalar())
    0.0
    """


class DropoutDoc(SymbolDoc):
    """
    Examples
    --------
    Dropout is the identity outside training:

    >>> drop = mx.sym.Dropout(mx.sym.var("data"), p=0.5, name="dp")
    >>> drop.eval(data=mx.nd.ones((2, 2)))[0].asnumpy()
    array([[1., 1.],
           [1., 1.]], dtype=float32)
    """


class EmbeddingDoc(SymbolDoc):
    """
    Examples
    --------
    Map each of 26 letters (as indices) to a vector of 16 numbers:

    >>> emb = mx.sym.Embedding(mx.sym.var("letters"), input_dim=26, output_dim=16,
    ...                        name="embed")
    >>> SymbolDoc.get_output_shape(emb, letters=(10, 64))
    {'embed_output': (10, 64, 16)}
    """


class FlattenDoc(SymbolDoc):
    """
    Examples
    --------
    Flatten keeps the first axis and joins the others, as before a FullyConnected:

    >>> flat = mx.sym.Flatten(mx.sym.var("data"), name="flat")
    >>> SymbolDoc.get_output_shape(flat, data=(2, 3, 4, 5))
    {'flat_output': (2, 60)}
    """


class FullyConnectedDoc(SymbolDoc):
    """
    Examples
    --------
    A layer of 512 units on inputs of 100 features:

    >>> fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=512, name="FC1")
    >>> SymbolDoc.get_output_shape(fc, data=(128, 100))
    {'FC1_output': (128, 512)}
    >>> fc.infer_shape(data=(128, 100))[0]
    [(128, 100), (512, 100), (512,)]
    """


class ConcatDoc(SymbolDoc):
    """
    Examples
    --------
    Join along axis 1 (the default):

    >>> a, b = mx.sym.var("a"), mx.sym.var("b")
    >>> cat = mx.sym.Concat(a, b, name="cat")
    >>> SymbolDoc.get_output_shape(cat, a=(2, 3), b=(2, 5))
    {'cat_output': (2, 8)}
    """


class BroadcastPlusDoc(SymbolDoc):
    """
    Examples
    --------
    Axes of length 1 stretch to match the other input:

    >>> a, b = mx.sym.var("a"), mx.sym.var("b")
    >>> total = mx.sym.broadcast_plus(a, b, name="sum")
    >>> SymbolDoc.get_output_shape(total, a=(3, 1), b=(1, 4))
    {'sum_output': (3, 4)}
    """


_build_doc = _op_doc_builder(
    SymbolDoc,
    "Symbol",
    "name : string, optional.\n    Name of the resulting symbol.\n\n"
    "Returns\n-------\nSymbol\n    The result symbol.",
    var_args_note=True,
)
