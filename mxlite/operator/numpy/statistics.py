"""NumPy-style statistics and contractions of MXNet 1.9.1 (np_percentile_op.cc,
np_broadcast_reduce_op_value.cc's average, np_bincount_op.cc, np_einsum_op.cc):
``_npi_percentile``, ``_npi_average``, ``_npi_bincount``, ``_npi_einsum``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import Shape
from ..param import Param, field
from ..registry import OpTest, register
from .matrix import _NpArrayOp


def _reduced(shape: Shape, axis: tuple[int, ...] | None, keepdims: bool) -> Shape:
    probe = np.broadcast_to(np.zeros((), np.float32), shape)
    ax = None if axis is None else tuple(axis)
    return np.sum(probe, axis=ax, keepdims=keepdims).shape


class PercentileParam(Param):
    axis: tuple[int, ...] | None = field(default=None, doc="Axes along which to compute.")
    interpolation: str = field(
        default="linear", choices=("linear", "lower", "higher", "midpoint", "nearest"),
        doc="How to pick between two data points.")  # fmt: skip
    keepdims: bool = field(default=False, doc="Keep the reduced axes with size one.")
    q_scalar: float | None = field(default=None, doc="The percentile when q is a scalar.")


@register("_npi_percentile")
class NpPercentileProp(_NpArrayOp):
    """The q-th percentile of the data along ``axis`` (``np.percentile``; no gradient)."""

    param_class = PercentileParam
    differentiable = False
    test = OpTest(shapes={"a": (3, 4)}, params={"q_scalar": 30.0, "axis": (1,)}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["a"] if self.param.q_scalar is not None else ["a", "q"]

    def _q(self, ins: list) -> Any:
        return self.param.q_scalar if self.param.q_scalar is not None else ins[1]

    def out_shapes(self, a: Shape, q: Shape | None = None) -> list[Shape]:
        base = _reduced(a, self.param.axis, self.param.keepdims)
        return [tuple(base) if q is None else tuple(q) + tuple(base)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        dt = in_type[0] if np.dtype(in_type[0]).kind == "f" else np.dtype(np.float64)
        return list(in_type), [dt], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        q = self._q(ins)
        if np.any(xp.asarray(q) < 0) or np.any(xp.asarray(q) > 100):
            raise ValueError(f"{self.op_name}: percentiles must be in the range [0, 100].")
        res = xp.percentile(ins[0], q, axis=p.axis, method=p.interpolation, keepdims=p.keepdims)
        return [xp.asarray(res).astype(outs[0].dtype)]


class AverageParam(Param):
    axis: tuple[int, ...] | None = field(default=None, doc="Axes along which to average.")
    returned: bool = field(default=False, doc="Also return the sum of the weights.")
    weighted: bool = field(default=True, doc="Whether a weights input is given.")


@register("_npi_average")
class NpAverageProp(_NpArrayOp):
    """The weighted average along ``axis`` (``np.average``); a second output, the sum of the
    weights, when ``returned``."""

    param_class = AverageParam
    backward_reads_inputs = True
    test = OpTest(shapes={"a": (2, 3), "weights": (2, 3)}, params={"axis": (1,)},
                  low=0.5, high=2.0)  # fmt: skip

    def list_arguments(self) -> list[str]:
        return ["a", "weights"] if self.param.weighted else ["a"]

    def list_outputs(self) -> list[str]:
        return ["output", "sum_of_weights"] if self.param.returned else ["output"]

    def _w_shape(self, a: Shape, w: Shape) -> None:
        if tuple(w) != tuple(a) and not (len(w) == 1 and self.param.axis is not None
                                         and len(self.param.axis) == 1
                                         and a[self.param.axis[0]] == w[0]):  # fmt: skip
            raise self.fail(f"argument 'weights' of shape {tuple(w)} does not fit 'a' of "
                            f"shape {tuple(a)} along axis {self.param.axis}.")  # fmt: skip

    def _weights(self, xp: Any, a: Any, w: Any) -> Any:
        if w.shape == a.shape:
            return w
        shape = [1] * a.ndim
        shape[self.param.axis[0]] = w.shape[0]
        return xp.broadcast_to(w.reshape(shape), a.shape)

    def out_shapes(self, a: Shape, w: Shape | None = None) -> list[Shape]:
        if w is not None:
            self._w_shape(a, w)
        out = _reduced(a, self.param.axis, False)
        return [out, out] if self.param.returned else [out]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        dt = in_type[0] if np.dtype(in_type[0]).kind == "f" else np.dtype(np.float32)
        return list(in_type), [dt] * len(self.list_outputs()), []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        a, axis = ins[0], self.param.axis
        w = self._weights(xp, a, ins[1]) if self.param.weighted else xp.ones_like(a)
        total = w.sum(axis=axis)
        if np.any(xp.asarray(total) == 0):
            raise ZeroDivisionError(f"{self.op_name}: weights sum to zero, can't be normalized.")
        avg = (a * w).sum(axis=axis) / total
        res = [xp.asarray(avg).astype(outs[0].dtype)]
        if self.param.returned:
            res.append(xp.asarray(total).astype(outs[0].dtype))
        return res

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        a, axis = ins[0], self.param.axis
        w = self._weights(xp, a, ins[1]) if self.param.weighted else xp.ones_like(a)
        keep = _reduced(a.shape, axis, True)
        total = w.sum(axis=axis).reshape(keep)
        avg = (a * w).sum(axis=axis).reshape(keep) / total
        g = ograds[0].reshape(keep)
        ga = g * w / total
        if not self.param.weighted:
            return [ga]
        gw = g * (a - avg) / total
        if self.param.returned and len(ograds) > 1 and ograds[1] is not None:
            gw = gw + ograds[1].reshape(keep)
        if tuple(in_shapes[1]) != tuple(a.shape):
            other = tuple(i for i in range(a.ndim) if i != axis[0] % a.ndim)
            gw = gw.sum(axis=other)
        return [ga, gw]


class BincountParam(Param):
    minlength: int = field(default=0, low=0, doc="A minimum number of bins.")
    has_weights: bool = field(default=False, doc="Whether a weights input is given.")


@register("_npi_bincount")
class NpBincountProp(_NpArrayOp):
    """Counts of each value in a 1-D array of non-negative ints (``np.bincount``); the output
    size depends on the values, so it is known only when the operator runs."""

    param_class = BincountParam
    differentiable = False
    dynamic_shape = True
    # its output size depends on the values, so there is no earlier output to add to
    test = OpTest(shapes={"data": (5,)}, dtypes=("int32",), low=0.0, high=4.0, grad=False,
                  accumulates=False)  # fmt: skip

    def list_arguments(self) -> list[str]:
        return ["data", "weights"] if self.param.has_weights else ["data"]

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        if len(shapes[0]) != 1:
            raise self.fail(f"input must be 1-D, got shape {tuple(shapes[0])}.")
        return [(0,)]  # known only when the operator runs

    def dynamic_output_shapes(self, in_data: list[Any]) -> list[Shape]:
        x = in_data[0]
        top = int(x.max()) + 1 if x.size else 0
        return [(max(top, self.param.minlength),)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        dt = in_type[1] if self.param.has_weights else in_type[0]
        return list(in_type), [dt], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0]
        if x.dtype.kind not in "iub" or (x.size and x.min() < 0):
            raise ValueError(f"{self.op_name}: input must hold non-negative integers.")
        w = ins[1] if self.param.has_weights else None
        return [xp.bincount(x, weights=w, minlength=self.param.minlength)]


class EinsumParam(Param):
    num_args: int = field(low=1, doc="Number of operands.")
    subscripts: str = field(default="", doc="The subscripts of the summation.")
    optimize: int = field(default=0, doc="Whether to optimise the contraction order.")


@register("_npi_einsum")
class NpEinsumProp(_NpArrayOp):
    """Einstein summation over the operands (``np.einsum``)."""

    param_class = EinsumParam
    key_var_num_args = "num_args"
    backward_reads_inputs = True
    test = OpTest(shapes={"data0": (2, 3), "data1": (3, 4)},
                  params={"num_args": 2, "subscripts": "ij,jk->ik"})  # fmt: skip

    def list_arguments(self) -> list[str]:
        return [f"data{i}" for i in range(self.param.num_args)]

    def _spec(self, ndims: list[int]) -> tuple[list[str], str]:
        probes = [np.zeros((1,) * n) for n in ndims]
        inputs, output, _ = _parse(self.param.subscripts, probes)
        return inputs, output

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        probes = [np.broadcast_to(np.zeros((), np.float32), s) for s in shapes]
        try:
            return [np.einsum(self.param.subscripts, *probes).shape]
        except ValueError as exc:
            raise self.fail(str(exc)) from None

    def infer_type(self, in_type: list, out_type: list | None = None):
        if any(t is None for t in in_type):
            return None
        return list(in_type), [np.result_type(*in_type)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.asarray(xp.einsum(self.param.subscripts, *ins)).astype(outs[0].dtype)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        inputs, output = self._spec([x.ndim for x in ins])
        return [_einsum_grad(xp, k, inputs, output, ograds[0], ins) for k in range(len(ins))]


def _einsum_grad(xp: Any, k: int, inputs: list[str], output: str, g: Any, ins: list) -> Any:
    """The gradient of einsum's operand ``k``: the head gradient contracted with the other
    operands onto ``k``'s letters (broadcast over letters found nowhere else; placed on the
    diagonal for a repeated letter)."""
    x, target = ins[k], inputs[k]
    others = [s for i, s in enumerate(inputs) if i != k]
    letters = "".join(dict.fromkeys(target))
    sizes = {c: x.shape[target.index(c)] for c in letters}
    found = "".join(c for c in letters if c in output or any(c in s for s in others))
    r = xp.einsum(",".join([output, *others]) + "->" + found, g,
                  *[v for i, v in enumerate(ins) if i != k])  # fmt: skip
    wide = tuple(i for i, c in enumerate(found) if sizes[c] == 1 and r.shape[i] != 1)
    r = r.sum(axis=wide, keepdims=True) if wide else r  # x broadcast along these
    r = r.reshape([sizes[c] if c in found else 1 for c in letters])  # found keeps letters' order
    r = xp.broadcast_to(r, [sizes[c] for c in letters])
    if len(letters) == len(target):
        return xp.transpose(r, [letters.index(c) for c in target]).astype(x.dtype)
    grid = np.indices([sizes[c] for c in letters])
    out = xp.zeros(x.shape, x.dtype)
    out[tuple(grid[letters.index(c)] for c in target)] = r
    return out


def _parse(subscripts: str, operands: list) -> tuple[list[str], str, None]:
    """``subscripts`` as explicit input and output letter strings (``...`` spelled out)."""
    spec = subscripts.replace(" ", "")
    lhs, _, rhs = spec.partition("->")
    inputs = lhs.split(",")
    letters = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in spec]
    widest = max((op.ndim - len(s.replace("...", "")) for op, s in zip(operands, inputs)
                  if "..." in s), default=0)  # fmt: skip
    ell = "".join(letters[:widest])
    full = []
    for op, s in zip(operands, inputs):
        n = op.ndim - len(s.replace("...", ""))
        full.append(s.replace("...", ell[widest - n :] if n else ""))
    if "->" in spec:
        output = rhs.replace("...", ell)
    else:
        counts = {c: "".join(full).count(c) for c in set("".join(full))}
        output = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    return full, output, None
