"""``quantize_net_v2`` and ``quantize_net`` of ``mx.contrib.quantization`` (MXNet 1.9.1): a
Gluon HybridBlock exported, quantized (and calibrated) as a symbol, and wrapped back as a
SymbolBlock."""

from __future__ import annotations

import os
import tempfile
import warnings
from typing import Any

from .. import ndarray
from ..context import Context, cpu
from ..io import DataIter
from ..module import Module
from ..ndarray import save as nd_save
from ._quant_calib import _collect_layer_statistics
from ._quant_symbol import _as_data_iter, calib_graph, quantize_graph

# MXNet's default context, made once (``ctx == mx.cpu()`` picks the MKLDNN backend)
_CPU = cpu()

__all__ = ["quantize_net_v2", "quantize_net"]


def quantize_net_v2(
    network: Any,
    quantized_dtype: str = "auto",
    quantize_mode: str = "full",
    quantize_granularity: str = "tensor-wise",
    exclude_layers: list | None = None,
    exclude_layers_match: list | None = None,
    exclude_operators: list | None = None,
    calib_data: Any = None,
    data_shapes: list | None = None,
    calib_mode: str = "none",
    num_calib_examples: int | None = None,
    ctx: Context = _CPU,
    LayerOutputCollector: Any = None,  # noqa: N803 (MXNet's name)
    logger: Any = None,
) -> Any:
    """User-level API for Gluon users to generate a quantized SymbolBlock from a FP32
    HybridBlock w/ or w/o calibration.

    Parameters
    ----------
    network : Gluon HybridBlock
        Defines the structure of a neural network for FP32 data types.
    quantized_dtype : str
        'int8', 'uint8' or 'auto' (default: chosen from the calibration result).
    quantize_mode : str
        'full' (default: quantize every operator that can be) or 'smart'.
    quantize_granularity : str
        'tensor-wise' (default) or 'channel-wise'.
    exclude_layers : list of strings
        Names of the symbols left in float.
    exclude_layers_match : list of strings
        Substrings: every symbol whose name contains one is left in float.
    exclude_operators : list of strings
        Names of the operators left in float.
    calib_data : mx.io.DataIter or gluon.DataLoader
        A iterable data loading object.
    data_shapes : list
        List of DataDesc, required if calib_data is not provided.
    calib_mode : str
        'none' (default), 'naive', 'entropy' or 'customize' (with ``LayerOutputCollector``).
    num_calib_examples : int or None
        The maximum number of examples used for calibration (default: all of them).
    ctx : Context
        The device on which calibration runs; on ``mx.cpu()`` the graph is partitioned by the
        ``MKLDNN_QUANTIZE`` backend before and after quantization.
    LayerOutputCollector : class
        For customize calibration method usage.
    logger : Object
        A logging object for printing information during the process of quantization.

    Returns
    -------
    network : Gluon SymbolBlock
        Defines the structure of a neural network for INT8 data types.
    """
    from .. import model
    from ..gluon import SymbolBlock
    from ..symbol import var

    if logger:
        logger.info("Export HybridBlock")
    network.hybridize()
    if calib_data is not None:
        if isinstance(calib_data, DataIter):
            dshapes = calib_data.provide_data
        else:
            calib_data, dshapes = _as_data_iter(calib_data)
        if not data_shapes:
            data_shapes = dshapes
    if not data_shapes:
        raise ValueError("data_shapes required")
    data_nd = [ndarray.zeros(shape.shape) for shape in data_shapes]
    while True:  # as MXNet: drop trailing inputs (labels) the network does not take
        try:
            network(*data_nd)
        except TypeError:
            if not data_nd:
                raise
            del data_nd[-1]
            if calib_data is not None:
                del calib_data.provide_data[-1]
            continue
        break
    with tempfile.TemporaryDirectory() as tmpdir:
        prefix = os.path.join(tmpdir, "tmp")
        network.export(prefix, epoch=0)
        symnet, args, auxs = model.load_checkpoint(prefix, 0)

    exclude_layers = list(exclude_layers or [])
    for pattern in exclude_layers_match or []:
        for layer in list(symnet.get_internals()):
            if layer.name.find(pattern) != -1:
                exclude_layers.append(layer.name)
    if logger:
        logger.info(f"These layers have been excluded {exclude_layers}")

    if ctx == cpu():
        symnet = symnet.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qarg_params, aux_params, collector = quantize_graph(
        sym=symnet, arg_params=args, aux_params=auxs, ctx=ctx,
        excluded_sym_names=exclude_layers, excluded_op_names=list(exclude_operators or []),
        calib_mode=calib_mode, quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
        quantize_granularity=quantize_granularity, LayerOutputCollector=LayerOutputCollector,
        logger=logger)  # fmt: skip

    if calib_mode is not None and calib_mode != "none":
        if not isinstance(ctx, Context):
            raise ValueError(f"currently only supports single ctx, while received {ctx}")
        if calib_data is None:
            raise ValueError(f"calib_data must be provided when calib_mode={calib_mode}")
        if calib_mode not in ("naive", "entropy", "customize"):
            raise ValueError("please set calibration mode to naive or entropy.")
        data_names = [pair[0] for pair in calib_data.provide_data]
        mod = Module(symbol=symnet, context=ctx, data_names=data_names, label_names=None)
        mod.bind(for_training=False, data_shapes=data_shapes)
        mod.set_params(args, auxs, allow_missing=False, force_init=True)
        num = _collect_layer_statistics(mod, calib_data, collector, num_calib_examples, logger)
        if logger:
            logger.info(f"Collected layer output values from FP32 model using {num} examples")
        qsym, qarg_params, aux_params = calib_graph(
            qsym=qsym, arg_params=args, aux_params=auxs, collector=collector,
            calib_mode=calib_mode, quantized_dtype=quantized_dtype, logger=logger)  # fmt: skip
    else:
        data_names = [pair[0] for pair in data_shapes]

    if ctx == cpu():
        qsym = qsym.get_backend_symbol("MKLDNN_QUANTIZE")

    net = SymbolBlock(qsym, [var(name) for name in data_names])
    with tempfile.TemporaryDirectory() as tmpdir:
        param_name = os.path.join(tmpdir, "tmpnet-quantized-0000.params")
        saved = {f"arg:{k}": v.as_in_context(cpu()) for k, v in qarg_params.items()}
        saved.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
        nd_save(param_name, saved)
        net.collect_params().load(param_name, cast_dtype=True, dtype_source="saved")
        net.collect_params().reset_ctx(ctx)
    return net


def quantize_net(
    network: Any,
    quantized_dtype: str = "auto",
    quantize_mode: str = "full",
    exclude_layers: list | None = None,
    exclude_layers_match: list | None = None,
    exclude_operators: list | None = None,
    calib_data: Any = None,
    data_shapes: list | None = None,
    calib_mode: str = "none",
    num_calib_examples: int | None = None,
    ctx: Context = _CPU,
    logger: Any = None,
) -> Any:
    """User-level API for Gluon users to generate a quantized SymbolBlock from a FP32
    HybridBlock w/ or w/o calibration: :func:`quantize_net_v2` with tensor-wise granularity
    and no custom collector (it warns that it will be deprecated after MXNet 2.0)."""
    warnings.warn(
        "WARNING: This will be deprecated after MXNet 2.0, please use quantize_net_v2.",
        stacklevel=2,
    )
    return quantize_net_v2(
        network=network, quantized_dtype=quantized_dtype, quantize_mode=quantize_mode,
        quantize_granularity="tensor-wise", exclude_layers=exclude_layers,
        exclude_layers_match=exclude_layers_match, exclude_operators=exclude_operators,
        calib_data=calib_data, data_shapes=data_shapes, calib_mode=calib_mode,
        num_calib_examples=num_calib_examples, ctx=ctx, LayerOutputCollector=None,
        logger=logger)  # fmt: skip
