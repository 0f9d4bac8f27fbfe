"""The importer's machinery: an ONNX model (opset 13 or newer) to an mxlite symbol and its
parameters; ``_import.py`` runs it, the tables are in ``_import_ops.py``, ``_import_tensor.py``
and ``_import_rnn.py``.

Design note
-----------
Nodes are read in graph order; each ONNX operator has one function in ``_IMPORTERS`` (the
mirror table of the export translations) that builds mxlite symbols from the symbols of its
inputs. Initializers and ``Constant`` outputs are kept as NumPy values: an operator that needs
a value (a shape, axes, pads, a scalar operand) reads it, and a constant used as data becomes
a variable of that name with its value in ``arg_params`` (``aux_params`` for BatchNorm's
statistics). ONNX's own shape inference runs first, so that translations that need a rank or
a static size (MatMul, Flatten, RNN states) know it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import MXNetError
from ._lib import require_onnx

_IMPORTERS: dict[str, Callable[..., Any]] = {}
# operators computed at import when all their inputs are constants: the shape arithmetic
# that exporters write around Reshape, Expand and Slice
_FOLD = frozenset(
    "Add Sub Mul Div Cast Concat Gather Unsqueeze Squeeze Slice Reshape Range Equal Where "
    "ConstantOfShape Identity ReduceProd Neg Abs Max Min Floor Ceil".split()
)


class OnnxImportError(MXNetError, ValueError):
    """An ONNX node that cannot be imported."""


def _importer(*ops: str) -> Callable:
    def deco(fn: Callable) -> Callable:
        for op in ops:
            _IMPORTERS[op] = fn
        return fn

    return deco


class Importer:
    """The state of one import; see the module note."""

    def __init__(self, model: Any) -> None:
        onnx = require_onnx()
        from onnx import numpy_helper, shape_inference

        from .. import symbol as sym

        self.sym = sym
        self.onnx = onnx
        try:
            model = shape_inference.infer_shapes(model)
        except Exception:  # noqa: BLE001 (an incomplete model still imports without shapes)
            pass
        self.model = model
        self.opset = next(
            (o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 13
        )
        graph = model.graph
        self.consts: dict[str, np.ndarray] = {
            t.name: numpy_helper.to_array(t) for t in graph.initializer
        }
        self.shapes: dict[str, tuple] = {}
        for vi in [*graph.input, *graph.value_info, *graph.output]:
            tt = vi.type.tensor_type
            if tt.HasField("shape"):
                self.shapes[vi.name] = tuple(
                    d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim
                )
        self.tensors: dict[str, Any] = {}
        self.shape_of: dict[str, str] = {}  # outputs of Shape nodes -> the tensor measured
        self.arg_params: dict[str, np.ndarray] = {}
        self.aux_params: dict[str, np.ndarray] = {}
        self.node: Any = None
        self.out_name = ""

    # ---- helpers for the translations ---------------------------------------------------

    def fail(self, why: str) -> OnnxImportError:
        n = self.node
        return OnnxImportError(
            f"import_model: node {n.name or n.output[0]!r} (ONNX {n.op_type}) cannot be imported: "
            f"{why}"
        )

    def get(self, name: str, aux: bool = False) -> Any:
        """The symbol of tensor ``name``; a constant becomes a parameter variable."""
        if name in self.tensors:
            return self.tensors[name]
        if name in self.consts:
            value = self.consts[name]
            if value.ndim == 0:
                value = value.reshape(1)
            (self.aux_params if aux else self.arg_params)[name] = value
            v = self.sym.var(name, shape=value.shape, dtype=value.dtype)
            self.tensors[name] = v
            return v
        raise self.fail(f"its input {name!r} is not produced by any node.")

    def const(self, i: int, default: Any = None) -> Any:
        """The value of input ``i`` when it is a constant; ``default`` when absent."""
        ins = self.node.input
        if i >= len(ins) or not ins[i]:
            return default
        if ins[i] not in self.consts:
            raise self.fail(f"its input {i} ({ins[i]!r}) must be a constant.")
        return self.consts[ins[i]]

    def scalar_const(self, i: int) -> float | None:
        name = self.node.input[i]
        if name in self.consts and self.consts[name].size == 1 and name not in self.tensors:
            return float(self.consts[name].reshape(()))
        return None

    def op(self, name: str) -> Callable[..., Any]:
        """The symbol function of operator ``name`` (hidden ones from ``mx.sym._internal``)."""
        fn = getattr(self.sym, name, None)
        return fn if fn is not None else getattr(self.sym._internal, name)

    def x(self, i: int = 0) -> Any:
        return self.get(self.node.input[i])

    def shape(self, i: int = 0) -> tuple | None:
        name = self.node.input[i]
        if name in self.consts:  # a 0-d constant is a (1,) parameter in MXNet
            return self.consts[name].shape or (1,)
        return self.shapes.get(name)

    def rank(self, i: int = 0) -> int:
        s = self.shape(i)
        if s is None:
            raise self.fail(f"the rank of input {i} is unknown (ONNX shape inference failed).")
        return len(s)

    def name(self, suffix: str = "") -> str:
        return self.out_name + suffix

    def attr(self, key: str, default: Any = None) -> Any:
        for a in self.node.attribute:
            if a.name == key:
                v = self.onnx.helper.get_attribute_value(a)
                return v.decode() if isinstance(v, bytes) else v
        return default

    # ---- the walk -------------------------------------------------------------------------

    def run(self) -> tuple[Any, dict, dict]:
        graph = self.model.graph
        for i in graph.input:
            if i.name not in self.consts:
                self.tensors[i.name] = self.sym.var(i.name)
        for node in graph.node:
            self.node = node
            self.out_name = node.output[0]
            if node.domain not in ("", "ai.onnx"):
                raise self.fail(f"domain {node.domain!r} is not ONNX's.")
            if node.op_type == "Constant":
                self.consts[node.output[0]] = self._constant_value()
                continue
            if (
                node.op_type == "Shape"
                and node.input[0] in self.shapes
                and all(self.shapes[node.input[0]])
                and node.input[0] not in self.consts
            ):
                # a static shape is a constant, and remembered for Reshape/Expand
                self.consts[node.output[0]] = np.array(self.shapes[node.input[0]], np.int64)
                self.shape_of[node.output[0]] = node.input[0]
                continue
            if node.op_type == "Shape":
                self.shape_of[node.output[0]] = node.input[0]
            if self._foldable(node):
                # constant in, constant out (the shape arithmetic exporters write): compute it
                from onnx.reference import ReferenceEvaluator

                feeds = {i: self.consts[i] for i in node.input if i}
                values = ReferenceEvaluator(node).run(None, feeds)
                self.consts.update(zip(node.output, values))
                continue
            fn = _IMPORTERS.get(node.op_type)
            if fn is None:
                raise self.fail("no importer is written for this operator.")
            out = fn(self)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            for name, s in zip(node.output, outs):
                if name and s is not None:
                    self.tensors[name] = s
        outputs = []
        for o in graph.output:
            outputs.append(self.get(o.name))
        result = outputs[0] if len(outputs) == 1 else self.sym.Group(outputs)
        used = set(result.list_inputs())
        from .. import ndarray as nd

        arg = {k: nd.array(v, dtype=v.dtype) for k, v in self.arg_params.items() if k in used}
        aux = {k: nd.array(v, dtype=v.dtype) for k, v in self.aux_params.items() if k in used}
        return result, arg, aux

    def _foldable(self, node: Any) -> bool:
        ins = [i for i in node.input if i]
        return (
            bool(ins)
            and node.op_type in _FOLD
            and all(i in self.consts and i not in self.tensors for i in ins)
        )

    def _constant_value(self) -> np.ndarray:
        from onnx import numpy_helper

        for a in self.node.attribute:
            if a.name == "value":
                return numpy_helper.to_array(a.t)
            if a.name in ("value_float", "value_int"):
                return np.array(self.onnx.helper.get_attribute_value(a))
            if a.name in ("value_floats", "value_ints"):
                return np.array(list(self.onnx.helper.get_attribute_value(a)))
        raise self.fail("only tensor and number constants are supported.")
