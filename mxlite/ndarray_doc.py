"""Extra documents of ``mx.nd`` functions (``mx.ndarray_doc``), as MXNet keeps them: a class
``<operator>Doc`` deriving from :class:`NDArrayDoc` whose docstring holds Python examples, and
:func:`_build_doc`, which writes a function's docstring from its description and arguments and
appends the examples of its ``Doc`` class. The examples run as doctests with ``mx`` and
``np`` (tests/test_ndarray_doc.py)."""

from __future__ import annotations

from .base import op_doc_builder as _op_doc_builder

__all__ = ["NDArrayDoc"]


class NDArrayDoc:
    """The basic class"""


class ReshapeDoc(NDArrayDoc):
    """
    Examples
    --------
    Give the array a new shape; 0 keeps an axis of the input, -1 takes what is left:

    >>> x = mx.nd.arange(24).reshape((2, 3, 4))
    >>> mx.nd.reshape(x, shape=(4, 0, -1)).shape
    (4, 3, 2)
    >>> mx.nd.reshape(x, shape=(-1,)).shape
    (24,)
    """


class elemwise_addDoc(NDArrayDoc):  # noqa: N801  (the operator's name)
    """
    Example
    -------
    >>> a = mx.nd.array([1, 2, 3])
    >>> b = mx.nd.array([10, 20, 30])
    >>> mx.nd.elemwise_add(a, b).asnumpy()
    array([11., 22., 33.], dtype=float32)
    """


class BroadcastToDoc(NDArrayDoc):
    """
    Examples
    --------
    Repeat the axes of length 1 to reach a larger shape (0 keeps an axis):

    >>> col = mx.nd.array([[1], [2], [3]])
    >>> col.broadcast_to((3, 2)).asnumpy()
    array([[1., 1.],
           [2., 2.],
           [3., 3.]], dtype=float32)
    >>> mx.nd.broadcast_to(col, shape=(0, 4)).shape
    (3, 4)
    """


class StackDoc(NDArrayDoc):
    """
    Example
    --------
    Join arrays of one shape along a new axis:

    >>> a, b = mx.nd.array([1, 2]), mx.nd.array([5, 6])
    >>> mx.nd.stack(a, b).asnumpy()
    array([[1., 2.],
           [5., 6.]], dtype=float32)
    >>> mx.nd.stack(a, b, axis=1).asnumpy()
    array([[1., 5.],
           [2., 6.]], dtype=float32)
    """


class CustomDoc(NDArrayDoc):
    """
    Example
    -------
    Run an operator registered with ``mx.operator.register("my_op")`` on an input:

    >>> output = mx.nd.Custom(data, op_type="my_op")  # doctest: +SKIP
    """


_build_doc = _op_doc_builder(
    NDArrayDoc,
    "NDArray",
    "out : NDArray, optional\n    The output NDArray to hold the result.\n\n"
    "Returns\n-------\nout : NDArray or list of NDArrays\n    The output of this function.",
    var_args_note=False,
)
