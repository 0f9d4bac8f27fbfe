"""Facts an operator declares for one pass each, kept beside :class:`~.registry.
OperatorProperty`'s own (it inherits them): what ``mx.contrib.quantization``'s graph pass and
the sparse storage dispatch read, and how the front ends and plots show it. Override them on
the operator's property.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["FrontEndFacts", "QuantizationFacts", "SparseStorageFacts"]


class QuantizationFacts:
    """What ``mx.contrib.quantization``'s graph pass reads of an operator (MXNet's
    FQuantizedOp, FQuantizable, FNeedRequantize, FAvoidQuantizeInput, FAvoidDequantizeOutput,
    FNeedAsymQuantizeInput, FNeedCalibrateInput/Output)."""

    # The operator that computes it on int8 data; its node, ``quantized_<name>``, keeps this
    # node's attributes. See ``quantized_op`` for one that depends on the parameters.
    quantized_name: ClassVar[str | None] = None
    # How the pass's "smart" mode treats it: "must" (Convolution, FullyConnected: quantized
    # regions grow from them) or "support" (quantized only where "must" nodes lie both before
    # and after it).
    quantizable: ClassVar[str] = "support"
    # On a quantized operator: its int32 output goes through ``_contrib_requantize``.
    need_requantize: ClassVar[bool] = False
    # On quantize_v2/requantize (input) and quantized BatchNorm (output): which entry's
    # calibrated range it takes as ``min_calib_range``/``max_calib_range``.
    calibrate_input: ClassVar[int | None] = None
    calibrate_output: ClassVar[int | None] = None

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization: the quantized operator of a node with these parameters and
        the attributes it adds to the node's, under ``granularity`` ('tensor-wise' or
        'channel-wise'); None: the node stays in float (default: ``quantized_name``)."""
        return None if self.quantized_name is None else (self.quantized_name, {})

    def avoid_quantize_input(self, index: int, granularity: str) -> bool:
        """Fact for quantization: input ``index`` of the quantized node stays as it is (no
        quantize node, no min/max inputs): BatchNorm's parameters, Embedding's indices."""
        return False

    def avoid_dequantize_output(self, index: int) -> bool:
        """Fact for quantization: the quantized node's output ``index`` is float already."""
        return False

    def asym_quantize_input(self, index: int) -> bool:
        """Fact for quantization: input ``index`` is quantized by ``_contrib_quantize_asym``
        (uint8 with a shift) rather than ``_contrib_quantize_v2``."""
        return False


class SparseStorageFacts:
    """How an operator meets sparse storage (MXNet's FInferStorageType, FComputeEx); see
    operator/sparse/forms.py."""

    # Its SparseForm (storage rule and SciPy kernel: ``KEEP_ZERO``, ``DOT``, ...), or None:
    # sparse inputs are then densified and the dense kernel runs (MXNet's storage fallback).
    sparse_form: ClassVar[Any] = None
    # Its backward on sparse inputs, ``(applies, kernel)`` (forms_tensor.DOT_BACKWARD), or None.
    sparse_backward: ClassVar[Any] = None
    # Which rows a row-sparse input gradient (see grad_stypes) holds: "nonzero" (the rows that
    # are not zero), "indices" (the indices input 0 looked up: Embedding), "csr_columns" (the
    # columns input 0, a CSR matrix, stores: dot).
    grad_rows_from: ClassVar[str] = "nonzero"
    # Its input's gradient is its head gradient in whatever storage it comes (cast_storage):
    # autograd hands a sparse head gradient back unchanged, keeping MXNet's rows.
    passes_sparse_grad: ClassVar[bool] = False


class FrontEndFacts:
    """How the front ends and ``mx.viz`` show an operator: its fluent methods, ``mx.np``
    functions and signature, its look in plots."""

    # The names of the NDArray and Symbol methods that call it with the array first (MXNet's
    # fluent methods: ``x.sum(axis=1)``, ``x.flip(0)`` for ``reverse``).
    fluent: ClassVar[tuple[str, ...]] = ()
    # The ``mx.np`` element-wise functions of one array it computes (``np.exp``; ``np.abs`` and
    # ``np.absolute`` for ``_npi_absolute``), as MXNet's mx.np calls it for them.
    np_unary: ClassVar[tuple[str, ...]] = ()
    # The signature MXNet documents for the mx.np/mx.npx function of its ``_np_``/``_npx_``
    # name (``mx._numpy_op_doc``; MXNet gives that function this ``__signature__``), as text:
    # ``"(a, axis=None, out=None)"``.
    np_signature: ClassVar[str | None] = None
    # How ``mx.viz.plot_network`` draws its nodes: the kind that picks the fill colour
    # ("layer", "activation", "norm", "pooling", "shape" or "other"), the label
    # (``plot_label``) and how many of its inputs get an edge (None: all).
    plot_kind: ClassVar[str] = "other"
    plot_inputs: ClassVar[int | None] = None
