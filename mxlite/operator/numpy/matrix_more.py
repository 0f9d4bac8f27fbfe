"""More NumPy-style array operators of MXNet 1.9.1 (np_tril_op.cc, np_diff.cc, np_trace_op.cc,
np_polynomial_op.cc, np_elemwise_unary_op_basic.cc's nan_to_num and np_matrix_op.cc's roll,
rot90 and diagonals): ``_npi_tril``, ``_npi_diff``, ``_np_roll``, ``_npi_rot90``, ``_np_diag``,
``_np_diagonal``, ``_np_diagflat``, ``_np_trace``, ``_npi_polyval``, ``_npi_nan_to_num``; the
stacks and the splits along a fixed axis (``_npi_hsplit``, ``_npi_dsplit``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import Shape
from ..param import Param, field
from ..registry import OpTest, register
from ..tensor.join import SplitV2Prop
from .matrix import _norm, _NpArrayOp, _NpJoin


def _probe(shape: Shape) -> np.ndarray:
    """A zero-cost array of ``shape`` for asking NumPy the result shape of a view."""
    return np.broadcast_to(np.zeros((), np.bool_), shape)


class TrilParam(Param):
    k: int = field(default=0, doc="The diagonal above which to zero elements (0: main).")


@register("_npi_tril")
class NpTrilProp(_NpArrayOp):
    """The lower triangle of an array (``np.tril``); a 1-D input is a row repeated."""

    param_class = TrilParam
    test = OpTest(shapes={"data": (3, 4)}, params={"k": 1})

    def out_shapes(self, a: Shape) -> list[Shape]:
        if len(a) < 1:
            raise self.fail("input must have at least one dimension.")
        return [tuple(a) if len(a) > 1 else (a[0], a[0])]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.tril(ins[0], self.param.k)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g = xp.tril(ograds[0], self.param.k)
        return [g.sum(axis=0) if len(in_shapes[0]) == 1 else g]


class DiffParam(Param):
    n: int = field(default=1, doc="How many times values are differenced.")
    axis: int = field(default=-1, doc="The axis along which the difference is taken.")


@register("_npi_diff")
class NpDiffProp(_NpArrayOp):
    """The n-th discrete difference along ``axis`` (``np.diff``)."""

    param_class = DiffParam
    test = OpTest(shapes={"a": (3, 5)}, params={"n": 2, "axis": 1})

    def list_arguments(self) -> list[str]:
        return ["a"]

    def out_shapes(self, a: Shape) -> list[Shape]:
        axis = _norm(self, "axis", self.param.axis, len(a))
        if self.param.n < 0:
            raise self.fail(f"argument 'n' must be non-negative, got {self.param.n}.")
        return [tuple(max(d - self.param.n, 0) if i == axis else d for i, d in enumerate(a))]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.diff(ins[0], self.param.n, self.param.axis)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g, axis = ograds[0], self.param.axis
        for _ in range(self.param.n):  # the adjoint of one difference: -d/dx with zero ends
            pad = [(0, 0)] * g.ndim
            pad[axis] = (1, 1)
            g = -xp.diff(xp.pad(g, pad), 1, axis)
        return [g]


class NumpyRollParam(Param):
    shift: tuple[int, ...] | None = field(default=None, doc="Places by which elements shift.")
    axis: tuple[int, ...] | None = field(default=None, doc="Axes to roll (None: flattened).")


@register("_np_roll")
class NpRollProp(_NpArrayOp):
    """Roll elements along axes (``np.roll``)."""

    param_class = NumpyRollParam
    test = OpTest(shapes={"data": (3, 4)}, params={"shift": (1, -2), "axis": (0, 1)})
    np_signature = "(a, shift, axis=None)"

    def _args(self) -> tuple[Any, Any]:
        shift, axis = self.param.shift, self.param.axis
        if shift is None:
            raise self.fail("argument 'shift' is required.")
        return (shift if len(shift) != 1 else shift[0]), axis

    def out_shapes(self, a: Shape) -> list[Shape]:
        return [tuple(a)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        shift, axis = self._args()
        return [xp.roll(ins[0], shift, axis)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        shift, axis = self._args()
        back = tuple(-s for s in shift) if isinstance(shift, tuple) else -shift
        return [xp.roll(ograds[0], back, axis)]


class NumpyRot90Param(Param):
    k: int = field(default=1, doc="Number of times the array is rotated by 90 degrees.")
    axes: tuple[int, ...] = field(default=(0, 1), doc="The plane of the rotation.")


@register("_npi_rot90")
class NpRot90Prop(_NpArrayOp):
    """Rotate an array by 90 degrees in the plane of ``axes`` (``np.rot90``)."""

    param_class = NumpyRot90Param
    test = OpTest(shapes={"data": (2, 3)}, params={"k": 1, "axes": (0, 1)})

    def out_shapes(self, a: Shape) -> list[Shape]:
        axes = self.param.axes
        if len(axes) != 2 or len(a) < 2:
            raise self.fail(f"argument 'axes' must name 2 of the input's axes, got {axes}.")
        a0, a1 = (_norm(self, "axes", x, len(a)) for x in axes)
        if a0 == a1:
            raise self.fail(f"argument 'axes' {axes} names one axis twice.")
        return [np.rot90(_probe(a), self.param.k, (a0, a1)).shape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.rot90(ins[0], self.param.k, self.param.axes)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.rot90(ograds[0], -self.param.k, self.param.axes)]


class NumpyDiagParam(Param):
    k: int = field(default=0, doc="The diagonal (0: main, > 0 above, < 0 below).")


@register("_np_diag")
class NpDiagProp(_NpArrayOp):
    """A diagonal of a 2-D array, or a 2-D array with a 1-D one on a diagonal (``np.diag``)."""

    param_class = NumpyDiagParam
    test = OpTest(shapes={"data": (3, 4)}, params={"k": 1})
    np_signature = "(array, k=0)"

    def out_shapes(self, a: Shape) -> list[Shape]:
        if len(a) not in (1, 2):
            raise self.fail(f"input must be 1-D or 2-D, got shape {tuple(a)}.")
        return [np.diag(np.zeros(a, np.bool_), self.param.k).shape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.diag(ins[0], self.param.k).copy()]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        shape = in_shapes[0]
        if len(shape) == 1:
            return [xp.diag(ograds[0], self.param.k).copy()]
        out = xp.zeros(shape, ograds[0].dtype)
        out[_diagonal_index(xp, shape, _Diagonal(self.param.k, 0, 1))] = ograds[0]
        return [out]


class _Diagonal:
    """Which diagonal (``offset``, ``axis1``, ``axis2``), as the diagonal parameters say it."""

    def __init__(self, offset: int, axis1: int, axis2: int) -> None:
        self.offset, self.axis1, self.axis2 = offset, axis1, axis2


class NumpyDiagonalParam(Param):
    offset: int = field(default=0, doc="Offset of the diagonal from the main one.")
    axis1: int = field(default=0, doc="The first axis of the 2-D sub-arrays.")
    axis2: int = field(default=1, doc="The second axis of the 2-D sub-arrays.")


@register("_np_diagonal")
class NpDiagonalProp(_NpArrayOp):
    """The diagonals of the 2-D sub-arrays on ``axis1``/``axis2`` (``np.diagonal``)."""

    param_class = NumpyDiagonalParam
    test = OpTest(shapes={"data": (3, 4, 2)}, params={"offset": 1, "axis1": 0, "axis2": 1})
    np_signature = "(a, offset=0, axis1=0, axis2=1)"

    def out_shapes(self, a: Shape) -> list[Shape]:
        p = self.param
        if len(a) < 2:
            raise self.fail(f"input must have at least 2 dimensions, got shape {tuple(a)}.")
        if _norm(self, "axis1", p.axis1, len(a)) == _norm(self, "axis2", p.axis2, len(a)):
            raise self.fail("axis1 and axis2 cannot be the same.")
        return [np.diagonal(_probe(a), p.offset, p.axis1, p.axis2).shape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        return [xp.diagonal(ins[0], p.offset, p.axis1, p.axis2).copy()]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        p, out = self.param, xp.zeros(in_shapes[0], ograds[0].dtype)
        idx = _diagonal_index(xp, in_shapes[0], p)
        out[idx] = ograds[0]
        return [out]


def _diagonal_index(xp: Any, shape: Shape, p: Any) -> tuple:
    """Index of ``shape``'s diagonal elements, ordered as ``np.diagonal`` gives them."""
    nd = len(shape)
    a1, a2 = p.axis1 % nd, p.axis2 % nd
    n = np.diagonal(_probe(shape), p.offset, a1, a2).shape[-1]
    i = np.arange(n) + max(-p.offset, 0)
    j = np.arange(n) + max(p.offset, 0)
    rest = [ax for ax in range(nd) if ax not in (a1, a2)]
    grids = np.meshgrid(*[np.arange(shape[ax]) for ax in rest], np.arange(n), indexing="ij")
    index: list[Any] = [None] * nd
    for ax, grid in zip(rest, grids[:-1]):
        index[ax] = grid
    index[a1], index[a2] = i[grids[-1]], j[grids[-1]]
    return tuple(index)


@register("_np_diagflat")
class NpDiagflatProp(_NpArrayOp):
    """A 2-D array with the flattened input on the k-th diagonal (``np.diagflat``)."""

    param_class = NumpyDiagParam
    test = OpTest(shapes={"data": (2, 2)}, params={"k": -1})
    np_signature = "(array, k=0)"

    def out_shapes(self, a: Shape) -> list[Shape]:
        n = int(np.prod(a)) + abs(self.param.k)
        return [(n, n)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.diagflat(ins[0], self.param.k)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.diag(ograds[0], self.param.k).reshape(in_shapes[0])]


@register("_np_trace")
class NpTraceProp(_NpArrayOp):
    """Sum along diagonals (``np.trace``)."""

    param_class = NumpyDiagonalParam
    test = OpTest(shapes={"data": (3, 4, 2)}, params={"offset": 0, "axis1": 0, "axis2": 1})
    np_signature = "(a, offset=0, axis1=0, axis2=1, out=None)"

    def out_shapes(self, a: Shape) -> list[Shape]:
        return [NpDiagonalProp.out_shapes(self, a)[0][:-1]]  # type: ignore[arg-type]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        return [xp.asarray(xp.trace(ins[0], p.offset, p.axis1, p.axis2), dtype=ins[0].dtype)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        p, out = self.param, xp.zeros(in_shapes[0], ograds[0].dtype)
        out[_diagonal_index(xp, in_shapes[0], p)] = ograds[0][..., None]
        return [out]


@register("_npi_polyval")
class NpPolyvalProp(_NpArrayOp):
    """The polynomial with coefficients ``p`` (highest power first) at ``x`` (``np.polyval``)."""

    test = OpTest(shapes={"p": (3,), "x": (2, 3)})
    backward_reads_inputs = True

    def list_arguments(self) -> list[str]:
        return ["p", "x"]

    def out_shapes(self, p: Shape, x: Shape) -> list[Shape]:
        if len(p) != 1:
            raise self.fail(f"argument 'p' must be 1-D, got shape {tuple(p)}.")
        return [tuple(x)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None or in_type[1] is None:
            return None
        return list(in_type), [np.result_type(in_type[0], in_type[1])], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.polyval(ins[0], ins[1]).astype(outs[0].dtype)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        p, x, g = ins[0], ins[1], ograds[0]
        powers = len(p) - 1 - np.arange(len(p))
        gp = xp.stack([(g * x**k).sum() for k in powers]).astype(p.dtype)
        gx = g * xp.polyval(xp.polyder(p), x) if len(p) > 1 else xp.zeros_like(x)
        return [gp, gx.astype(x.dtype)]


class NanToNumParam(Param):
    copy: bool = field(default=True, doc="Whether to make a copy (False: in place).")
    nan: float = field(default=0.0, doc="The value NaN becomes.")
    posinf: float | None = field(default=None, doc="The value +inf becomes (largest finite).")
    neginf: float | None = field(default=None, doc="The value -inf becomes (lowest finite).")


@register("_npi_nan_to_num")
class NpNanToNumProp(_NpArrayOp):
    """NaN and infinities replaced by finite numbers (``np.nan_to_num``)."""

    param_class = NanToNumParam
    test = OpTest(shapes={"data": (2, 3)})
    backward_reads_inputs = True

    def out_shapes(self, a: Shape) -> list[Shape]:
        return [tuple(a)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        return [xp.nan_to_num(ins[0], nan=p.nan, posinf=p.posinf, neginf=p.neginf)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        x = ins[0]
        keep = xp.isfinite(x) if x.dtype.kind == "f" else xp.ones(x.shape, np.bool_)
        return [xp.where(keep, ograds[0], 0).astype(ograds[0].dtype)]


# ---- stacking after lifting the inputs to more dimensions ---------------------------------------


def _lift(shape: Shape, ndim: int) -> Shape:
    """NumPy's atleast_{ndim}d shape: () -> (1,)*ndim, (n,) -> (1, n) / (1, n, 1), (m, n) ->
    (m, n, 1)."""
    s = tuple(shape)
    if len(s) >= ndim:
        return s
    if ndim == 3 and len(s) == 2:
        return (*s, 1)
    if ndim == 3 and len(s) == 1:
        return (1, s[0], 1)
    return (1,) * (ndim - len(s)) + s


class NumpyNumArgsParam(Param):
    num_args: int = field(low=1, doc="Number of inputs.")


class _LiftedJoin(_NpJoin):
    """Join inputs along ``axis`` after giving each ``lift(shape)``."""

    param_class = NumpyNumArgsParam
    axis = 0

    def lift(self, shape: Shape) -> Shape:
        raise NotImplementedError

    def join_axis(self, ndim: int) -> int:
        """The axis to join along, for inputs of ``ndim`` dimensions (after lifting)."""
        return self.axis

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        lifted = [self.lift(s) for s in shapes]
        first = lifted[0]
        ax = self.join_axis(len(first))
        for i, s in enumerate(lifted):
            if len(s) != len(first) or s[:ax] + s[ax + 1 :] != first[:ax] + first[ax + 1 :]:
                raise self.fail(f"input data{i} of shape {tuple(shapes[i])} does not fit "
                                f"data0's {tuple(shapes[0])} off axis {ax}.")  # fmt: skip
        return [first[:ax] + (sum(s[ax] for s in lifted),) + first[ax + 1 :]]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        parts = [x.reshape(self.lift(x.shape)) for x in ins]
        ax = self.join_axis(parts[0].ndim)
        return [xp.concatenate(parts, axis=ax).astype(outs[0].dtype, copy=False)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        ax = self.join_axis(ograds[0].ndim)
        cuts = np.cumsum([self.lift(s)[ax] for s in in_shapes[:-1]]).tolist()
        parts = xp.split(ograds[0], cuts, axis=ax)
        return [p.reshape(s) for p, s in zip(parts, in_shapes)]


@register("_npi_column_stack")
class NpColumnStackProp(_LiftedJoin):
    """1-D arrays as columns, side by side with 2-D ones (``np.column_stack``)."""

    axis = 1
    test = OpTest(shapes={"data0": (3,), "data1": (3, 2)}, params={"num_args": 2})

    def lift(self, shape: Shape) -> Shape:
        return (shape[0], 1) if len(shape) == 1 else _lift(shape, 2)


@register("_npi_dstack")
class NpDstackProp(_LiftedJoin):
    """Stack arrays along the third axis (``np.dstack``)."""

    axis = 2
    test = OpTest(shapes={"data0": (2, 3), "data1": (2, 3, 2)}, params={"num_args": 2})

    def lift(self, shape: Shape) -> Shape:
        return _lift(shape, 3)


@register("_npi_vstack")
class NpVstackProp(_LiftedJoin):
    """Stack arrays row-wise (``np.vstack``)."""

    axis = 0
    test = OpTest(shapes={"data0": (3,), "data1": (2, 3)}, params={"num_args": 2})

    def lift(self, shape: Shape) -> Shape:
        return _lift(shape, 2)


@register("_npi_hstack")
class NpHstackProp(_LiftedJoin):
    """Stack arrays column-wise (along axis 1; axis 0 for 1-D arrays) (``np.hstack``)."""

    test = OpTest(shapes={"data0": (2, 3), "data1": (2, 1)}, params={"num_args": 2})

    def lift(self, shape: Shape) -> Shape:
        return _lift(shape, 1)

    def join_axis(self, ndim: int) -> int:
        return 0 if ndim == 1 else 1


@register("_npi_hsplit")
class NpHsplitProp(SplitV2Prop):
    """Split along the second axis, the first of a 1-D array (``np.hsplit``): the axis comes
    from the input's rank, so a symbol splits as an array would; ``axis`` is not read."""

    def _axis(self, ndim: int) -> int:
        if ndim < 1:
            raise self.fail("hsplit only works on arrays of 1 or more dimensions.")
        return 1 if ndim > 1 else 0


@register("_npi_dsplit")
class NpDsplitProp(SplitV2Prop):
    """Split along the third axis (``np.dsplit``); ``axis`` is not read."""

    test = OpTest(shapes={"data": (1, 2, 4)}, params={"indices": (0, 2)})

    def _axis(self, ndim: int) -> int:
        if ndim < 3:
            raise self.fail("dsplit only works on arrays of 3 or more dimensions.")
        return 2


class _AtLeast(_NpArrayOp):
    key_var_num_args = "num_args"
    param_class = NumpyNumArgsParam
    ndim = 1
    np_signature = "(*arys)"

    def list_arguments(self) -> list[str]:
        return [f"arys{i}" for i in range(self.param.num_args)]

    def list_outputs(self) -> list[str]:
        return [f"output{i}" for i in range(self.param.num_args)]

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        return [_lift(s, self.ndim) for s in shapes]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if any(t is None for t in in_type):
            return None
        return list(in_type), list(in_type), []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [x.reshape(o.shape) for x, o in zip(ins, outs)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [g.reshape(s) for g, s in zip(ograds, in_shapes)]


for _n in (1, 2, 3):
    register(f"_np_atleast_{_n}d")(type(f"NpAtleast{_n}dProp", (_AtLeast,), {
        "ndim": _n,
        "__doc__": f"The inputs viewed with at least {_n} dimensions (``np.atleast_{_n}d``).",
        "test": OpTest(shapes={"arys0": (3,), "arys1": (2, 2)}, params={"num_args": 2}),
    }))  # fmt: skip
