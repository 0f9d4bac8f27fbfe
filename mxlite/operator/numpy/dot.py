"""NumPy-style products (MXNet 1.9.1's np_dot.cc, np_matmul_op.cc, np_tensordot_op.cc):
``_np_dot``, ``_npi_matmul``, ``_npi_tensordot`` and ``_npi_tensordot_int_axes``.

Each is a tensor contraction; the gradients of all of them come from one rule
(:func:`tensordot_grads`): contract the head gradient with the other operand over its free
axes, then put the axes back in the operand's order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import Shape
from ..param import Param, field
from ..registry import OpTest, register
from ..simple_op import unbroadcast
from .dtypes import binary_result
from .matrix import _NpArrayOp


def tensordot_grads(xp: Any, g: Any, a: Any, b: Any, ia: list, ib: list) -> tuple[Any, Any]:
    """Gradients of ``tensordot(a, b, (ia, ib))`` (axes non-negative) for head gradient g."""
    fa = [i for i in range(a.ndim) if i not in ia]
    fb = [i for i in range(b.ndim) if i not in ib]
    ga = list(range(len(fa)))  # g's axes from a's free axes, then b's
    gb = list(range(len(fa), len(fa) + len(fb)))
    da = xp.tensordot(g, b, axes=(gb, fb))
    src = fa + [ia[j] for j in np.argsort(ib)]
    da = xp.transpose(da, np.argsort(src))
    db = xp.tensordot(a, g, axes=(fa, ga))
    src = [ib[j] for j in np.argsort(ia)] + fb
    db = xp.transpose(db, np.argsort(src))
    return da, db


class _NpProduct(_NpArrayOp):
    backward_reads_inputs = True

    def list_arguments(self) -> list[str]:
        return ["a", "b"]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None or in_type[1] is None:
            return None
        return list(in_type), [binary_result(in_type[0], in_type[1])], []

    def axes(self, ashape: Shape, bshape: Shape) -> tuple[list, list]:
        raise NotImplementedError

    def out_shapes(self, a: Shape, b: Shape) -> list[Shape]:
        ia, ib = self.axes(a, b)
        for i, j in zip(ia, ib):
            if a[i] != b[j]:
                raise self.fail(f"shapes {tuple(a)} and {tuple(b)} not aligned: axis {i} of a "
                                f"({a[i]}) != axis {j} of b ({b[j]}).")  # fmt: skip
        return [
            tuple(d for i, d in enumerate(a) if i not in ia)
            + tuple(d for j, d in enumerate(b) if j not in ib)
        ]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        a, b = ins
        ia, ib = self.axes(a.shape, b.shape)
        dt = outs[0].dtype
        return [xp.tensordot(a.astype(dt, copy=False), b.astype(dt, copy=False), (ia, ib))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        a, b = ins
        g = ograds[0]
        ia, ib = self.axes(a.shape, b.shape)
        return list(tensordot_grads(xp, g, a.astype(g.dtype), b.astype(g.dtype), ia, ib))


@register("_np_dot")
class NpDotProp(_NpProduct):
    """NumPy's dot: the inner product of vectors, matrix products, a sum over the last axis
    of a and the second-to-last of b; with a zero-dim operand, multiplication."""

    test = OpTest(shapes={"a": (2, 3), "b": (3, 4)})
    np_signature = "(a, b, out=None)"

    def axes(self, ashape: Shape, bshape: Shape) -> tuple[list, list]:
        if not ashape or not bshape:
            return [], []
        return [len(ashape) - 1], [max(len(bshape) - 2, 0)]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        a, b = in_shape
        if a is not None and b is not None:  # an unknown (0) contracted dim takes the other's
            a, b = list(a), list(b)
            for i, j in zip(*self.axes(a, b)):
                a[i], b[j] = a[i] or b[j], b[j] or a[i]
            in_shape = [tuple(a), tuple(b)]
        return super().infer_shape(in_shape, out_shape)


class TensordotParam(Param):
    a_axes_summed: tuple[int, ...] = field(doc="The axes of a to sum over.")
    b_axes_summed: tuple[int, ...] = field(doc="The axes of b to sum over.")


@register("_npi_tensordot")
class NpTensordotProp(_NpProduct):
    """Sum products over the given axes of a and b (``np.tensordot`` with axis lists)."""

    param_class = TensordotParam
    test = OpTest(
        shapes={"a": (2, 3), "b": (3, 4)}, params={"a_axes_summed": (1,), "b_axes_summed": (0,)}
    )

    def axes(self, ashape: Shape, bshape: Shape) -> tuple[list, list]:
        p = self.param
        if len(p.a_axes_summed) != len(p.b_axes_summed):
            raise self.fail("a_axes_summed and b_axes_summed must have one length.")
        ia = [x % len(ashape) for x in p.a_axes_summed]
        ib = [x % len(bshape) for x in p.b_axes_summed]
        return ia, ib


class TensordotIntAxesParam(Param):
    axes: int = field(doc="Sum over the last ``axes`` axes of a and the first of b.")


@register("_npi_tensordot_int_axes")
class NpTensordotIntAxesProp(_NpProduct):
    """Sum products over the last ``axes`` axes of a and the first of b (``np.tensordot``)."""

    param_class = TensordotIntAxesParam
    test = OpTest(shapes={"a": (2, 3), "b": (3, 4)}, params={"axes": 1})

    def axes(self, ashape: Shape, bshape: Shape) -> tuple[list, list]:
        n = self.param.axes
        if n < 0 or n > len(ashape) or n > len(bshape):
            raise self.fail(f"argument 'axes' {n} is out of range for shapes {tuple(ashape)} "
                            f"and {tuple(bshape)}.")  # fmt: skip
        return list(range(len(ashape) - n, len(ashape))), list(range(n))


@register("_npi_matmul")
class NpMatmulProp(_NpProduct):
    """NumPy's matmul: matrix products over the last two axes, batch axes broadcast."""

    test = OpTest(shapes={"a": (2, 2, 3), "b": (3, 4)})

    def out_shapes(self, a: Shape, b: Shape) -> list[Shape]:
        if not a or not b:
            raise self.fail("matmul does not take zero-dim operands.")
        a2 = (1,) + tuple(a) if len(a) == 1 else tuple(a)
        b2 = tuple(b) + (1,) if len(b) == 1 else tuple(b)
        if a2[-1] != b2[-2]:
            raise self.fail(f"shapes {tuple(a)} and {tuple(b)} not aligned for matmul.")
        try:
            batch = np.broadcast_shapes(a2[:-2], b2[:-2])
        except ValueError:
            raise self.fail(f"batch axes of {tuple(a)} and {tuple(b)} do not broadcast.") from None
        out = tuple(batch) + (a2[-2], b2[-1])
        if len(a) == 1:
            out = out[:-2] + out[-1:]
        if len(b) == 1:
            out = out[:-1]
        return [out]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        dt = outs[0].dtype
        return [xp.matmul(ins[0].astype(dt, copy=False), ins[1].astype(dt, copy=False))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g = ograds[0]
        a, b = ins[0].astype(g.dtype), ins[1].astype(g.dtype)
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = xp.expand_dims(g2, -2 if b.ndim > 1 else -1)
        if b.ndim == 1:
            g2 = xp.expand_dims(g2, -1)
        da = xp.matmul(g2, xp.swapaxes(b2, -1, -2))
        db = xp.matmul(xp.swapaxes(a2, -1, -2), g2)
        return [
            unbroadcast(xp, da, a2.shape).reshape(a.shape),
            unbroadcast(xp, db, b2.shape).reshape(b.shape),
        ]
