"""The one operator registry: every operator is an :class:`OperatorProperty` subclass.

Design note
-----------
An operator is declared once, as a property class (the seeds' ``OperatorProperty``) that says
everything the system needs: parameters (``param_class``), argument / output / auxiliary
names, shape and type inference, resource requests, backward dependencies and in-place
options; ``create_operator(ctx)`` returns the :class:`Operator` that computes. The facts the
graph passes, autograd and the front ends read are class attributes with defaults that fit
most operators (MXNet's NNVM attributes): how gradients cross it (``grad_flow``,
``differentiable``), its storage types and sparse kernels (``sparse_form``, ``sparse_backward``,
``grad_stypes``, ``grad_rows_from``: dense, CSR and row-sparse arrays), its fluent methods,
monitor names and composition-time initializers. ``mx.nd.X``, ``mx.sym.X``, autograd and the
executor's passes are all built from this entry and ask it; none keeps a table of operator
names. SimpleOp (simple_op.py) is a shorthand that builds such a class for unary and binary
operators.

Property instances are immutable and cached per parsed parameter set (``get_prop``), so an
imperative call with the same keyword arguments parses nothing again. Shapes are tuples of
ints; in partial inference an unknown shape is ``None`` and an unknown dimension is 0, as in
MXNet.

Example::

    @register("FullyConnected")
    class FullyConnectedProp(OperatorProperty):
        param_class = FullyConnectedParam
        def list_arguments(self): ...
        def infer_shape(self, in_shape, out_shape=None): ...
        def create_operator(self, ctx): return _FullyConnectedOp(self.param)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..base import DTypeError, MXNetError, Shape, ShapeError
from ..context import Context
from ..util import is_np_shape
from . import bfloat16 as _bf16
from .facts import FrontEndFacts, QuantizationFacts, SparseStorageFacts

__all__ = [
    "OperatorProperty",
    "Operator",
    "OpContext",
    "OpTest",
    "register",
    "get",
    "find",
    "all_ops",
    "fluent_methods",
    "plot_dims",
    "shape_is_known",
    "merge_shape",
    "shape_assign",
    "dtype_assign",
    "register_onnx",
]

_REGISTRY: dict[str, type[OperatorProperty]] = {}
# ONNX translations by operator name (see OperatorProperty.onnx_translation); the functions
# live in mxlite/onnx/translations/, the one package that imports onnx
_ONNX: dict[str, Any] = {}
_PROP_CACHE_LIMIT = 4096  # distinct keyword sets kept per operator (scalars vary per call)


@dataclass(frozen=True)
class OpTest:
    """How the operator sweep (tests/operator/test_sweep.py) exercises an operator: input
    shapes (the arguments not named are left to shape inference; none named means (2, 3) for
    every argument), parameters, the range of input values where the operator is smooth, the
    dtypes it runs in, whether its gradient is checked, the tolerances of its comparisons, and
    whether req='add' and the comparison with MXNet apply.
    """

    shapes: dict[str, Shape] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    low: float = -1.0
    high: float = 1.0
    dtypes: tuple[str, ...] = ("float32", "float64")
    grad: bool = True
    rtol: float = 1e-3
    atol: float = 1e-5
    # False where the operator writes its outputs whatever the request (all_finite's flag,
    # an optimizer's in-place update), as MXNet's does
    accumulates: bool = True
    # False where inputs drawn independently are outside the operator's domain (a range whose
    # min exceeds its max, boxes): its own tests compare it with MXNet on valid inputs
    matches_mxnet: bool = True

    def inputs(self, prop: OperatorProperty, dtype: str, seed: int = 0) -> list[np.ndarray]:
        """The arguments, then the auxiliary states, that the sweep gives ``prop`` in ``dtype``:
        values drawn uniformly from [low, high) by a generator seeded with ``seed``."""
        names = prop.list_arguments()
        given = [self.shapes.get(n) for n in names] if self.shapes else [(2, 3)] * len(names)
        inferred = prop.infer_shape(list(given))
        if inferred is None or any(not s for s in inferred[0]):
            raise ShapeError(f"{prop.where()}: OpTest shapes {self.shapes} leave inputs unknown.")
        types = prop.infer_type([np.dtype(dtype)] + [None] * (len(names) - 1))
        dtypes = types[0] + types[2] if types else [np.dtype(dtype)] * len(names)
        rng = np.random.default_rng(seed)
        shapes = list(inferred[0]) + list(inferred[2])
        return [rng.uniform(self.low, self.high, s).astype(t) for s, t in zip(shapes, dtypes)]


class OpContext:
    """What an operator learns when it runs: ``is_train``, ``run_ctx``, ``requested`` resources,
    and ``in_vars``, the engine vars of the inputs when the caller knows them (else None): a
    kernel may cache something derived from an input under ``(var, var.version)``."""

    __slots__ = ("is_train", "run_ctx", "requested", "in_vars")

    def __init__(
        self,
        is_train: bool,
        run_ctx: Any,
        requested: Sequence[Any],
        in_vars: Sequence[Any] | None = None,
    ) -> None:
        self.is_train = is_train
        self.run_ctx = run_ctx
        self.requested = requested
        self.in_vars = in_vars


class Operator:
    """Computes an operator. Kernels receive plain ``xp`` arrays, never NDArrays, and write
    only through :func:`~mxlite.operator.req.assign` under the given requests."""

    def __init__(self, prop: Any = None, xp: Any = None) -> None:
        # what most kernels keep: the property they compute, the array module (numpy, cupy)
        self.prop = prop
        self.xp = xp

    def forward(
        self,
        op_ctx: OpContext,
        in_data: list[Any],
        req: list[int],
        out_data: list[Any],
        aux: list[Any],
    ) -> None:
        raise NotImplementedError

    def backward(
        self,
        op_ctx: OpContext,
        out_grad: list[Any],
        in_data: list[Any],
        out_data: list[Any],
        req: list[int],
        in_grad: list[Any],
        aux: list[Any],
    ) -> None:
        raise MXNetError(f"{type(self).__name__}: this operator has no backward.")

    def forward_epilogue(
        self,
        op_ctx: OpContext,
        in_data: list[Any],
        req: list[int],
        out_data: list[Any],
        residual: Any,
        relu: bool,
    ) -> None:
        """``forward`` with ``residual`` (an array of the first output's shape, or None; it
        may be that output itself) added to the first output and then, with ``relu``,
        ``max(output, 0)`` taken, in its output pass; for properties whose
        ``absorb_epilogue()`` is true (inference passes, ``executor/fuse.py``)."""
        raise NotImplementedError


class DefaultSignature:
    """MXNet's default inputs and outputs of an operator, custom ones too: one argument
    ``data``, one output ``output``, no auxiliary states."""

    def list_arguments(self) -> list[str]:
        return ["data"]

    def list_outputs(self) -> list[str]:
        return ["output"]

    def list_auxiliary_states(self) -> list[str]:
        return []


class OperatorProperty(DefaultSignature, QuantizationFacts, SparseStorageFacts, FrontEndFacts):
    """The semantics of one operator (MXNet's ``OperatorProperty``); see the module note.

    Subclasses set ``param_class`` (a Param subclass, or None for no parameters) and override
    what differs from the defaults, which describe a one-input, one-output operator whose
    output has the input's shape and dtype.
    """

    op_name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    param_class: ClassVar[Any] = None
    test: ClassVar[OpTest | None] = None
    # name of the parameter that counts variable inputs (MXNet's key_var_num_args), if any
    key_var_num_args: ClassVar[str | None] = None
    # Custom operators run their Python forward/backward on NDArrays on the calling thread
    # (forward_ndarray / backward_ndarray) instead of as one engine function.
    runs_on_caller: ClassVar[bool] = False
    # Operators whose output shape depends on input values (boolean_mask): shape inference
    # leaves those dimensions 0 and ``dynamic_output_shapes`` gives them once the inputs exist.
    dynamic_shape: ClassVar[bool] = False
    # The input the operator reads only the part it returns of (take's data, Embedding's
    # weight): its size does not keep a call off the caller's thread (engine INLINE_BYTES).
    gathered_input: ClassVar[int | None] = None

    # ---- facts the graph passes, autograd and the front ends read (MXNet's NNVM attributes)
    # How gradients cross the operator (MXNet's FGradient): "backward" runs its backward;
    # "zeros" gives its inputs zero gradients without reading its head gradient
    # (MakeZeroGradNodes: comparisons, argmax, shape_array), so passes skip its backward;
    # "none" stops gradients altogether (BlockGrad): needing one does not flow through it.
    grad_flow: ClassVar[str] = "backward"
    # False for an operator with no gradient at all (no FGradient): asking for one fails.
    differentiable: ClassVar[bool] = True
    # MXNet registers FListInputNames for it: a monitor calls a single input by its argument
    # name (``softmax_data``) rather than ``input0`` (``relu_input0``).
    lists_input_names: ClassVar[bool] = False
    # MXNet registers FListOutputNames for it: graph passes name what they attach to one of its
    # outputs by the output's name (AMP's ``fc1_output_amp_cast_float16``) rather than its
    # index (``sin0_0_amp_cast_float16``).
    lists_output_names: ClassVar[bool] = False
    # One of AMP's casts (amp_cast, amp_multicast): output i is input i in another float dtype.
    # Saved graphs leave it out (``tojson(remove_amp_cast=True)``, MXNet's RemoveAmpCast), and
    # AMP's conversion reads the dtypes it asks for.
    amp_cast: ClassVar[bool] = False
    # ``__init__`` given to variable inputs made at composition that have none, by input
    # position, as MXNet's initializer JSON (FSetInputVarAttrOnCompose): BatchNorm's gamma
    # starts at one, LeakyReLU's slope at 0.25.
    input_var_init: ClassVar[dict[int, str]] = {}
    # It keeps state from call to call (MXNet's FCreateOpState: Custom), so two of its nodes
    # with the same inputs are not one (common-subexpression elimination keeps both).
    stateful: ClassVar[bool] = False
    # Its gradient as recorded operator calls, for higher-order autograd (create_graph=True):
    # a staticmethod ``(prop, op, out_grad, inputs, outputs) -> one gradient per input``,
    # where ``op(name, inputs, **params)`` records one operator call and ``op.constant(x)``
    # is a constant. SimpleOp gradients need none: they run on NDArrays as they are.
    recorded_gradient: ClassVar[Any] = None
    # In an inference forward it is an epilogue that an operator whose ``absorb_epilogue()``
    # holds may apply in its output pass (``executor/fuse.py``): "relu", ``max(data, 0)`` of its
    # one input; "add", the sum of its two inputs (where both have the output's shape).
    epilogue: ClassVar[str | None] = None
    # bfloat16 (operator/bfloat16.py): its type rule and kernel take it as it is (AMP's casts,
    # Cast); False for bfloat16_kernel where MXNet's CPU kernels refuse it (a call raises).
    keeps_bfloat16: ClassVar[bool] = False
    bfloat16_kernel: ClassVar[bool] = True

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        self.param = param
        # inference, imperative calls' plans (ndarray/invoke.py) keyed alike, and which inputs
        # and outputs its backward reads by (n_in, n_out) (autograd's recording)
        self._infer_cache: dict[tuple, tuple] = {}
        self._plans: dict[tuple, Any] = {}
        self._saved: dict[tuple[int, int], tuple] = {}
        self._operators: dict[Any, Any] = {}  # by Context, or (Context, "bfloat16")
        # fast-path flags for imperative calls
        self._has_aux = bool(self.list_auxiliary_states())
        self._has_resources = type(self).forward_resource is not OperatorProperty.forward_resource
        # inputs that forward updates in place (empty for nearly every operator: invoke's fast
        # path then stays as it is)
        self._mutates: tuple[int, ...] = (
            tuple(self.mutate_inputs())
            if type(self).mutate_inputs is not OperatorProperty.mutate_inputs
            else ()
        )

    def grad_stypes(self, in_stypes: list[str]) -> list[str]:
        """The storage type of each input's gradient, given the inputs' storage types (MXNet's
        backward FInferStorageType): all 'default' unless the operator makes some row-sparse
        (Embedding with ``sparse_grad``, ``dot(csr, w)``'s ``w``, sums of row-sparse arrays)."""
        return ["default"] * len(in_stypes)

    @classmethod
    def plot_label(cls, name: str, attrs: dict[str, str]) -> str:
        """The label ``mx.viz.plot_network`` gives a node of this operator named ``name``,
        whose attributes (MXNet's strings, ``"(3, 3)"``) are ``attrs``: by default its name."""
        return name

    # ---- construction ----------------------------------------------------------------

    @classmethod
    def get_prop(cls, kwargs: dict[str, Any], name: str | None = None) -> OperatorProperty:
        """Return the (cached) property for these keyword arguments, parsing them once."""
        try:
            key = tuple(kwargs.items())
            cache = cls.__dict__.get("_prop_cache")
            if cache is None:
                cache = {}
                cls._prop_cache = cache  # type: ignore[attr-defined]
            prop = cache.get(key)
            if prop is not None:
                return prop
        except TypeError:  # an unhashable value (a list): parse without caching
            return cls(cls.parse_params(kwargs, name))
        prop = cls(cls.parse_params(kwargs, name))
        if len(cache) >= _PROP_CACHE_LIMIT:
            cache.clear()
        cache[key] = prop
        return prop

    @classmethod
    def parse_params(cls, kwargs: dict[str, Any], name: str | None = None) -> Any:
        pc = cls.param_class
        if pc is None:
            # MXNet's operators without a parameter struct ignore keyword arguments
            # (``broadcast_maximum(a, b, axis=1)`` runs there), so they are dropped here too
            return None
        return pc.from_kwargs(cls.op_name, kwargs, name=name)

    def attrs(self) -> dict[str, str]:
        """The parameters as MXNet writes them into symbol JSON."""
        return {} if self.param is None else self.param.to_attrs()

    # ---- description ---------------------------------------------------------------------

    def num_outputs(self) -> int:
        return len(self.list_outputs())

    def num_visible_outputs(self) -> int:
        return self.num_outputs()

    # ---- inference -----------------------------------------------------------------------

    def infer_shape(
        self, in_shape: list[Shape | None], out_shape: list[Shape | None] | None = None
    ) -> tuple[list, list, list] | None:
        """Return (in_shapes, out_shapes, aux_shapes) with what can be known filled in, None
        when too little is known yet; raise ShapeError on inconsistency.

        Default: every input, output and auxiliary state has one common shape, merged
        dimension by dimension from whatever is partly known (NNVM's ElemwiseShape).
        """
        names = self.list_arguments()
        known: Shape | None = None
        for i, s in enumerate(in_shape):
            known = shape_assign(self, "input", names[i] if i < len(names) else str(i), s, known)
        for i, s in enumerate(out_shape or ()):
            known = shape_assign(self, "output", self.list_outputs()[i], s, known)
        if known is None:
            return None
        return (
            [known] * len(in_shape),
            [known] * self.num_outputs(),
            [known] * len(self.list_auxiliary_states()),
        )

    def infer_type(
        self, in_type: list[np.dtype | None], out_type: list[np.dtype | None] | None = None
    ) -> tuple[list, list, list] | None:
        """Return (in_types, out_types, aux_types); default: all share the first known dtype."""
        known = next((t for t in in_type if t is not None), None)
        if known is None and out_type:
            known = next((t for t in out_type if t is not None), None)
        if known is None:
            return None
        names = self.list_arguments()
        ins = [
            dtype_assign(self, names[i] if i < len(names) else str(i), t, known)
            for i, t in enumerate(in_type)
        ]
        return ins, [known] * self.num_outputs(), [known] * len(self.list_auxiliary_states())

    def infer_shape_known(self, in_shape: list) -> Any:
        """``infer_shape`` for inputs whose every dimension is known (an imperative call). An
        operator for which a 0 stays ambiguous in graph inference under NumPy shape semantics
        (an empty axis, or an unknown one from ``infer_shape_partial``) overrides it."""
        return self.infer_shape(in_shape)

    def infer_imperative(
        self, shapes: tuple[Shape, ...], dtypes: tuple[np.dtype, ...]
    ) -> tuple[list[Shape], list[np.dtype], list[Shape], list[np.dtype]]:
        """Output and aux shapes and dtypes for fully known inputs (cached per input set)."""
        # an op's inference may depend on the shape semantics (tile with a 0 rep), so the mode
        # is part of the key
        key = (shapes, dtypes, is_np_shape())
        hit = self._infer_cache.get(key)
        if hit is not None:
            return hit
        res = self.infer_shape_known(list(shapes))
        # every input is known here, so a 0 in an output shape is a real, empty dimension
        if res is None or any(s is None for s in res[1]):
            raise ShapeError(
                f"{self.where()}: cannot infer the output shape from input shapes {list(shapes)}."
            )
        tres = _bf16.infer_type(self, list(dtypes))
        if tres is None:
            raise DTypeError(f"{self.where()}: cannot infer the output dtype from {dtypes}.")
        out = (res[1], tres[1], res[2], tres[2])
        if len(self._infer_cache) < 256:
            self._infer_cache[key] = out
        return out

    def dynamic_output_shapes(self, in_data: list[Any]) -> list[Shape]:
        """The output shapes of a ``dynamic_shape`` operator for these computed inputs."""
        raise MXNetError(f"{self.where()}: this operator has no data-dependent output shape.")

    # ---- execution hints -----------------------------------------------------------------

    def forward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return []

    def backward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return []

    def declare_backward_dependency(
        self, out_grad: list[int], in_data: list[int], out_data: list[int]
    ) -> list[int]:
        """Which of out_grad, in_data, out_data the backward reads (default: all of them)."""
        return [*out_grad, *in_data, *out_data]

    def forward_inplace_option(self, in_data: list[int], out_data: list[int]) -> list[tuple]:
        """Pairs (input, output) that may share memory in forward (default: none)."""
        return []

    def backward_inplace_option(
        self, out_grad: list[int], in_data: list[int], out_data: list[int], in_grad: list[int]
    ) -> list[tuple]:
        """Pairs (out_grad/in_data/out_data, in_grad) that may share memory in backward."""
        return []

    def mutate_inputs(self) -> list[int]:
        """Indices of the arguments that forward updates in place (MXNet's ``FMutateInputs``),
        such as the interleaved optimizer states of ``multi_sgd_mom_update``. An imperative call
        mutates their vars instead of reading them, so a later read waits for the update.
        Trailing mutated inputs are better declared as auxiliary states (default: none)."""
        return []

    def aux_input_positions(self) -> list[int]:
        """Inputs among the arguments (in MXNet's input order) that a symbol lists as its
        auxiliary states, as MXNet's FMutateInputs makes them: quantized BatchNorm's moving
        statistics (default: none; trailing auxiliary states are ``list_auxiliary_states``)."""
        return []

    def is_train_dependent(self) -> bool:
        """Whether forward differs between training and inference (Dropout, BatchNorm)."""
        return False

    def absorb_channel_affine(self) -> OperatorProperty | None:
        """Fact for inference passes (``executor/fuse.py``): the property (with a bias) that
        computes this operator's output times a per-channel scale plus a shift (axis 1) from
        its weight scaled along axis 0 and its bias scaled and shifted; None: it cannot."""
        return None

    def absorb_epilogue(self) -> bool:
        """Fact for inference passes: its operator's ``forward_epilogue`` adds a residual to
        its first output and applies ReLU in its output pass (see :attr:`epilogue`)."""
        return False

    def inference_channel_affine(self, ndim: int) -> int | None:
        """Fact for inference passes: the axis along which this operator's first output is, in
        an inference forward, ``data * scale + shift`` per channel, with ``inference_affine``
        giving them; None: it is not such a map."""
        return None

    def create_operator(self, ctx: Context) -> Operator:
        raise NotImplementedError

    def operator(self, ctx: Context) -> Operator:
        """The operator for ``ctx``, created once per property and context."""
        op = self._operators.get(ctx)
        if op is None:
            op = self._operators.setdefault(ctx, self.create_operator(ctx))
        return op

    def operator_for(self, ctx: Context, dtypes: Sequence[Any]) -> Operator:
        """The operator for ``ctx`` on arrays of ``dtypes``: for bfloat16 ones, the float32
        wrapper (operator/bfloat16.py, which raises where MXNet has no bfloat16 kernel)."""
        if self.keeps_bfloat16 or not _bf16.has_bfloat16(dtypes):
            return self.operator(ctx)
        key = (ctx, "bfloat16")
        if key not in self._operators:
            self._operators[key] = _bf16.float32_kernel(self, self.operator(ctx), self._mutates)
        return self._operators[key]

    def where(self, name: str | None = None) -> str:
        return f"{self.op_name}(name={name!r})" if name else self.op_name

    def check_num_inputs(self, in_shape: Sequence, why: str = "") -> None:
        """Raise ShapeError unless ``in_shape`` has one entry per argument; ``why`` names the
        parameters that decide the arguments (``"no_bias=True"``), for the message."""
        names = self.list_arguments()
        if len(in_shape) != len(names):
            plural = "" if len(names) == 1 else "s"
            cond = f" with {why}" if why else ""
            raise ShapeError(
                f"{self.where()}: takes {len(names)} input{plural} {names}{cond}, "
                f"got {len(in_shape)}."
            )

    @classmethod
    def onnx_translation(cls) -> Any:
        """The operator's ONNX translation (a function of an export context), a string saying
        why it cannot be expressed in ONNX, or None when nobody wrote either. Filled once
        ``mxlite.onnx`` is imported."""
        return _ONNX.get(cls.op_name)


def shape_is_known(shape: Shape | None) -> bool:
    """Whether ``shape`` is fully known (not None, no 0 dimension standing for 'unknown')."""
    return shape is not None and 0 not in shape


def merge_shape(a: Shape | None, b: Shape | None) -> Shape | None:
    """Merge two partial shapes (None = unknown shape, 0 = unknown dim) into what both say;
    raise ValueError when they disagree in rank or in a known dimension. Serves the
    operators' inference and the graph-wide pass alike."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if len(a) != len(b):
        raise ValueError
    out = []
    for x, y in zip(a, b):
        if x and y and x != y:
            raise ValueError
        out.append(x or y)
    return tuple(out)


def shape_assign(
    prop: OperatorProperty, kind: str, arg: str, current: Shape | None, expected: Shape | None
) -> Shape | None:
    """Fill ``current`` from ``expected`` (either may be partial); raise ShapeError naming the
    operator and argument when they disagree (MXNet's SHAPE_ASSIGN_CHECK)."""
    try:
        return merge_shape(current, expected)
    except ValueError:
        raise ShapeError(
            f"{prop.where()}: {kind} {arg!r} has shape {current}; expected {expected}."
        ) from None


def dtype_assign(
    prop: OperatorProperty, arg: str, current: np.dtype | None, expected: np.dtype
) -> np.dtype:
    """Fill ``current`` from ``expected``; raise DTypeError naming the operator on mismatch."""
    if current is None or current == expected:
        return expected
    raise DTypeError(
        f"{prop.where()}: argument {arg!r} has dtype {np.dtype(current).name}; expected "
        f"{np.dtype(expected).name} like the other inputs."
    )


def register(
    name: str, aliases: Sequence[str] = ()
) -> Callable[[type[OperatorProperty]], type[OperatorProperty]]:
    """Register a property class under ``name`` and its ``aliases``; a name taken twice raises."""

    def deco(cls: type[OperatorProperty]) -> type[OperatorProperty]:
        for n in (name, *aliases):
            if n in _REGISTRY:
                raise MXNetError(
                    f"register: operator name {n!r} is already taken by {_REGISTRY[n].__name__}."
                )
        cls.op_name = name
        cls.aliases = tuple(aliases)
        for n in (name, *aliases):
            _REGISTRY[n] = cls
        return cls

    return deco


def add_alias(name: str, *aliases: str) -> None:
    """Give the operator registered as ``name`` more names (MXNet's ``add_alias`` after the
    registration, e.g. the ``_sparse_X`` names of the ``mx.nd.sparse`` namespace)."""
    cls = get(name)
    for n in aliases:
        if n in _REGISTRY:
            raise MXNetError(
                f"add_alias: operator name {n!r} is already taken by {_REGISTRY[n].__name__}."
            )
        _REGISTRY[n] = cls
    cls.aliases = cls.aliases + tuple(aliases)


def register_onnx(*names: str, why_not: str | None = None) -> Callable[[Any], Any]:
    """Register an ONNX translation for the operators ``names`` (a decorator); with
    ``why_not`` instead, record that they cannot be expressed in ONNX and why."""

    def deco(fn: Any) -> Any:
        for n in names:
            cls = _REGISTRY.get(n)
            if cls is None:
                raise MXNetError(f"register_onnx: operator {n!r} is not registered.")
            if cls.op_name in _ONNX:
                raise MXNetError(f"register_onnx: {n!r} already has an ONNX translation.")
            _ONNX[cls.op_name] = fn if why_not is None else why_not
        return fn

    if why_not is not None:
        deco(None)
    return deco


def find(name: str) -> type[OperatorProperty] | None:
    """The property class registered as ``name``, or None."""
    return _REGISTRY.get(name)


def get(name: str) -> type[OperatorProperty]:
    """The property class registered as ``name``; raise MXNetError with suggestions if none."""
    cls = _REGISTRY.get(name)
    if cls is None:
        close = difflib.get_close_matches(name, _REGISTRY, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else "."
        raise MXNetError(f"operator {name!r} is not registered{hint}")
    return cls


def all_ops() -> dict[str, type[OperatorProperty]]:
    """Every registered name (aliases included) and its property class."""
    return dict(_REGISTRY)


def plot_dims(text: str) -> str:
    """A shape attribute as plot labels write it: ``"(3, 3)"`` -> ``"3x3"``."""
    return "x".join(p.strip() for p in text.strip("()[] ").split(",") if p.strip())


def np_unary_functions() -> dict[str, str]:
    """``mx.np`` function name -> the operator computing it, from ``OperatorProperty.np_unary``
    of every registered operator (under its own name, not an alias registered after it)."""
    found: dict[str, str] = {}
    for name, cls in _REGISTRY.items():
        for fn in cls.np_unary:
            found.setdefault(fn, name)
    return found


def fluent_methods() -> list[str]:
    """The names of the fluent methods every operator declares (``OperatorProperty.fluent``),
    in registration order, each once."""
    return list(dict.fromkeys(m for cls in _REGISTRY.values() for m in cls.fluent))
