"""Operators that exist for sparse storage, with their dense forms (MXNet 1.9.1's names).

``cast_storage`` is a copy on dense arrays; ``_square_sum`` is ``sum(square(x))``;
``_sparse_retain`` keeps the given rows; ``_contrib_getnnz`` counts stored elements (on a
dense array: non-zeros); ``_sparse_adagrad_update`` is AdaGrad's fused update;
``_contrib_SparseEmbedding`` is ``Embedding`` whose weight gradient is row-sparse. Their
sparse kernels are in forms.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import registry
from ..nn.embedding import EmbeddingParam, EmbeddingProp
from ..optimizer_ops import _define, _f
from ..param import Param, field
from ..registry import OpTest, register
from ..req import assign
from ..simple_op import GradNeeds, identity_op, simple_op
from ..tensor.reduce import ReduceAxesParam
from .forms import SCATTER_DIV, SCATTER_SCALAR, SparseForm
from .forms_tensor import (
    CAST_STORAGE,
    GETNNZ,
    LAZY_UPDATE,
    SPARSE_RETAIN,
    SQUARE_SUM,
    first_row_sparse,
)

__all__: list[str] = []


class CastStorageParam(Param):
    stype: str = field(choices=("default", "row_sparse", "csr"), doc="Output storage type.")


identity_op(
    "cast_storage",
    param_class=CastStorageParam,
    sparse_form=CAST_STORAGE,
    facts={"passes_sparse_grad": True},
    test=OpTest(shapes={"data": (3, 4)}, params={"stype": "default"}),
    doc="Casts tensor storage type to the new type (a copy on dense arrays).",
)


def _axes(x: Any, param: Any) -> tuple[int, ...] | None:
    if param.axis is None:
        return None
    axes = tuple(a % x.ndim for a in param.axis)
    if param.exclude:
        axes = tuple(i for i in range(x.ndim) if i not in axes)
    return axes


def _square_sum_shape(shape: tuple, param: Any) -> tuple:
    x = np.empty(shape, np.int8)
    return np.sum(x, axis=_axes(x, param), keepdims=param.keepdims).shape or (1,)


def _square_sum_fwd(xp, x, env, out):
    res = xp.sum(xp.square(x), axis=_axes(x, env.param), keepdims=env.param.keepdims)
    return res.reshape(out.shape if out is not None else (res.shape or (1,)))


def _square_sum_grad(xp, dy, x, env):
    p = env.param
    axes = _axes(x, p)
    g = dy
    if not p.keepdims and axes is not None:
        g = xp.expand_dims(dy.reshape([n for i, n in enumerate(x.shape) if i not in axes]), axes)
    elif axes is None:
        g = dy.reshape(())
    return 2 * x * g


simple_op(
    "_square_sum",
    forward=_square_sum_fwd,
    gradient=_square_sum_grad,
    grad_needs=GradNeeds.INPUT,
    shape=_square_sum_shape,
    param_class=ReduceAxesParam,
    sparse_form=SQUARE_SUM,
    grad_stypes=first_row_sparse,
    test=OpTest(shapes={"data": (3, 4)}, params={"axis": (1,)}),
    doc="Computes the square sum of array elements over given axes for row-sparse matrix.",
)


def _retain_fwd(xp, x, idx, env, out):
    keep = xp.zeros(x.shape[0], bool)
    keep[idx.astype(np.int64)] = True
    return x * keep.reshape((-1,) + (1,) * (x.ndim - 1))


def _retain_grad(xp, dy, x, idx, env):
    return _retain_fwd(xp, dy, idx, env, None), None


simple_op(
    "_sparse_retain",
    forward=_retain_fwd,
    gradient=_retain_grad,
    grad_needs=GradNeeds.INPUT,
    arity=2,
    arg_names=("data", "indices"),
    shape=lambda data, idx, param: data,
    dtype=lambda data, idx, param: data,
    sparse_form=SPARSE_RETAIN,
    grad_stypes=first_row_sparse,
    test=OpTest(shapes={"data": (4, 2), "indices": (2,)}, low=0.0, high=3.0, grad=False),
    doc="Keeps the rows of a row-sparse array at the given indices; the others become 0.",
)


class GetnnzParam(Param):
    axis: int | None = field(default=None, doc="Select between the number of values across the "
                             "whole matrix, in each column, or in each row.")  # fmt: skip


def _getnnz_shape(shape: tuple, param: Any) -> tuple:
    return (1,) if param.axis is None else (shape[1 - param.axis % 2],)


simple_op(
    "_contrib_getnnz",
    forward=lambda xp, x, env, out: (
        xp.count_nonzero(x, axis=env.param.axis).reshape(-1).astype(np.int64)
    ),
    shape=_getnnz_shape,
    dtype=lambda t, param: np.int64,
    param_class=GetnnzParam,
    sparse_form=GETNNZ,
    test=OpTest(shapes={"data": (3, 4)}, grad=False),
    doc="Number of stored values for a CSRNDArray.",
)


class AdagradParam(Param):
    lr: float = field(doc="Learning rate")
    epsilon: float = field(default=1e-7, doc="epsilon")
    wd: float = field(default=0.0, doc="weight decay")
    rescale_grad: float = field(default=1.0, doc="Rescale gradient to grad = rescale_grad*grad.")
    clip_gradient: float = field(
        default=-1.0,
        doc="Clip gradient to the range of [-clip_gradient, clip_gradient] If clip_gradient "
        "<= 0, gradient clipping is turned off. grad = max(min(grad, clip_gradient), "
        "-clip_gradient).",
    )


def _k_adagrad(xp, p, ins, aux, out, req):
    w, g = ins
    (history,) = aux
    gr = g * _f(p.rescale_grad)
    if p.clip_gradient >= 0:
        gr = xp.clip(gr, -p.clip_gradient, p.clip_gradient)
    history += gr * gr
    assign(out, req, w - _f(p.lr) * (gr / xp.sqrt(history + _f(p.epsilon)) + _f(p.wd) * w))


_define("_sparse_adagrad_update", AdagradParam, ("weight", "grad"), ("history",), _k_adagrad,
        "Update function for AdaGrad optimizer.", sparse_form=LAZY_UPDATE)  # fmt: skip


class SparseEmbeddingParam(EmbeddingParam):
    deterministic: bool = field(
        default=False,
        doc="Force the backward gradient calculation to be executed based on a deterministic "
        "order at the cost of slower speed.",
    )


@register("_contrib_SparseEmbedding")
class _SparseEmbeddingProp(EmbeddingProp):
    """Embedding whose weight gradient is row-sparse (``mx.nd.contrib.SparseEmbedding``)."""

    param_class = SparseEmbeddingParam

    def grad_stypes(self, in_stypes: list[str]) -> list[str]:
        return ["default", "row_sparse"]


def _scatter(name: str, dense: str, form: SparseForm, doc: str) -> None:
    """``name``: the dense operator ``dense``; on a row-sparse (or CSR) left operand it
    computes only where that operand stores values (its sparse ``form``)."""
    base = registry.get(dense)
    register(name)(type(f"{name}_prop", (base,), {"__doc__": doc, "sparse_form": form}))


_scatter(
    "_scatter_elemwise_div",
    "elemwise_div",
    SCATTER_DIV,
    "Divides arguments element-wise; a row_sparse lhs keeps its rows.",
)
_scatter(
    "_scatter_plus_scalar",
    "_plus_scalar",
    SCATTER_SCALAR,
    "Adds a scalar to the stored values of a sparse array (dense: to every value).",
)
_scatter(
    "_scatter_minus_scalar",
    "_minus_scalar",
    SCATTER_SCALAR,
    "Subtracts a scalar from the stored values of a sparse array (dense: from every value).",
)

# The operators MXNet 1.9.1 also names ``_sparse_X`` (its ``add_alias("_sparse_X")``): these
# names make ``mx.nd.sparse.X`` and ``mx.sym.sparse.X`` (front_end's ``_sparse_`` prefix).
# ``_sparse_retain``, ``_sparse_adagrad_update`` and ``_sparse_FullyConnected`` are names of
# their own above or in their operator.
SPARSE_NAMED = (
    "ElementWiseSum", "Embedding", "LinearRegressionOutput", "LogisticRegressionOutput",
    "MAERegressionOutput", "_contrib_round_ste", "_contrib_sign_ste", "abs", "adam_update",
    "add_n", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "broadcast_add",
    "broadcast_div", "broadcast_minus", "broadcast_mul", "broadcast_plus", "broadcast_sub",
    "cast_storage", "cbrt", "ceil", "clip", "concat", "cos", "cosh", "degrees", "dot",
    "elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub", "exp", "expm1", "fix",
    "floor", "ftrl_update", "gamma", "gammaln", "log", "log10", "log1p", "log2", "make_loss",
    "mean", "negative", "norm", "radians", "relu", "rint", "round", "rsqrt", "sgd_mom_update",
    "sgd_update", "sigmoid", "sign", "sin", "sinh", "slice", "sqrt", "square", "stop_gradient",
    "sum", "tan", "tanh", "trunc", "where", "zeros_like",
)  # fmt: skip
for _name in SPARSE_NAMED:
    registry.add_alias(_name, "_sparse_" + _name)
