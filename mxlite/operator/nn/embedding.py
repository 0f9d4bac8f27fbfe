"""Embedding: look up rows of a weight matrix by index.

Indices may have any dtype; they are truncated to integers and clipped to
``[0, input_dim - 1]``, as MXNet's kernel does. The weight gradient scatter-adds ``out_grad``
rows into the rows that were looked up (``add.at``, straight into the gradient under
``req='add'``); the indices get a zero gradient. ``sparse_grad`` is accepted; the gradient is
always dense here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign
from ..sparse.forms_tensor import EMBEDDING_BACKWARD
from ..tensor.array_op import scatter_rows

__all__: list[str] = []


class EmbeddingParam(Param):
    input_dim: int = field(low=1, doc="Vocabulary size of the input indices.")
    output_dim: int = field(low=1, doc="Dimension of the embedding vectors.")
    dtype: str = field(
        default="float32",
        choices=("float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bfloat16"),
        doc="Data type of weight.",
    )
    sparse_grad: bool = field(
        default=False,
        doc="Compute row sparse gradient in the backward calculation (accepted; dense here).",
    )


@register("Embedding", aliases=("_npx_embedding",))
class EmbeddingProp(OperatorProperty):
    """Map integer indices to dense vectors: out[..., :] = weight[clip(data[...]), :]."""

    sparse_backward = EMBEDDING_BACKWARD
    grad_rows_from = "indices"
    quantized_name = "_contrib_quantized_embedding"
    gathered_input = 1

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization: a float32 table has a quantized form."""
        return super().quantized_op(granularity) if self.param.dtype == "float32" else None

    def avoid_quantize_input(self, index: int, granularity: str) -> bool:
        """Fact for quantization: the indices stay as they are."""
        return index == 0

    def grad_stypes(self, in_stypes: list[str]) -> list[str]:
        # with sparse_grad, the weight's gradient holds only the rows looked up
        return ["default", "row_sparse" if self.param.sparse_grad else "default"]

    param_class = EmbeddingParam
    test = OpTest(
        shapes={"data": (2, 3), "weight": (5, 4)},
        params={"input_dim": 5, "output_dim": 4},
        low=0.0,
        high=4.0,
        grad=False,
    )

    def list_arguments(self) -> list[str]:
        return ["data", "weight"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_num_inputs(in_shape)
        p = self.param
        wshape = shape_assign(self, "input", "weight", in_shape[1], (p.input_dim, p.output_dim))
        data = in_shape[0]
        if data is None:
            return None
        # an unknown data dim (0) stays unknown in the output, as in MXNet
        return [tuple(data), wshape], [(*data, p.output_dim)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        itype = in_type[0]
        if itype is None:
            return None
        wtype = in_type[1]
        otype = out_type[0] if out_type else None
        if wtype is not None and otype is not None and wtype != otype:
            raise DTypeError(
                f"{self.where()}: argument 'weight' has dtype {np.dtype(wtype).name} but the "
                f"output has {np.dtype(otype).name}; they must match."
            )
        dtype = wtype if wtype is not None else otype
        if dtype is None:
            dtype = np.dtype(self.param.dtype)
        return [itype, dtype], [dtype], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [*out_grad, in_data[0]]  # the indices; never the weight or the output

    def create_operator(self, ctx: Context) -> Operator:
        return _EmbeddingOp(self, ctx.xp)


class _EmbeddingOp(Operator):
    def _index(self, data: Any) -> Any:
        idx = data.astype(np.int64) if data.dtype.kind == "f" else data.astype(np.int64, copy=False)
        return self.xp.clip(idx, 0, self.prop.param.input_dim - 1)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        rows = self.xp.take(in_data[1], self._index(in_data[0]), axis=0)
        assign(out_data[0], req[0], rows)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] in (OpReq.WRITE, OpReq.INPLACE):
            in_grad[0][...] = 0
        if req[1] == OpReq.NULL:
            return
        dw = in_grad[1]
        if req[1] != OpReq.ADD:
            dw[...] = 0
        dy = out_grad[0].reshape(-1, dw.shape[1])
        scatter_rows(self.xp, dw[None], self._index(in_data[0]).reshape(-1), dy[None])
