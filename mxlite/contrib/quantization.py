"""Quantization module for generating quantized (INT8) models from FP32 models (MXNet 1.9.1's
``mx.contrib.quantization``, also ``mx.contrib.quant``).

``quantize_model`` (Module) and ``quantize_net_v2`` (Gluon) rewrite a float graph into MXNet's
quantized operators (the pass is ``_quantize_graph.py``; each fact it needs is declared on the
operators), quantize weights and biases ahead of time, and with calibration (``naive`` or
``entropy``, ``_quant_calib.py``) fix the output range of each requantize and quantize node
from the float model's layer outputs on calibration data. On ``ctx=mx.cpu()`` the Gluon path
and ``quantize_model_mkldnn`` partition the graph with the ``MKLDNN_QUANTIZE`` backend
(``Symbol.get_backend_symbol``) before and after quantizing, as MXNet does.

Example::

    qsym, qargs, qaux = mx.contrib.quant.quantize_model(
        sym, args, auxs, calib_mode='naive', calib_data=it, num_calib_examples=64)
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import tempfile
import warnings
from typing import Any

import numpy as np

from .. import ndarray
from ..base import (  # noqa: F401  (MXNet's module imports them; libraries read them here)
    _LIB,
    NDArrayHandle,
    SymbolHandle,
    c_array,
    c_str,
    c_str_array,
    check_call,
    mx_uint,
    py_str,
)
from ..context import Context
from ..io import DataBatch, DataDesc, DataIter
from ..module import Module
from ..ndarray import NDArray
from ..ndarray import load as nd_load
from ..ndarray import save as nd_save
from ..symbol import Symbol
from ..symbol import load as sym_load
from ._quant_calib import (
    _collect_layer_histogram,
    _collect_layer_output_min_max,
    _collect_layer_statistics,
    _get_optimal_threshold,
    _get_optimal_thresholds,
    _LayerHistogramCollector,
    _LayerOutputMinMaxCollector,
    _smooth_distribution,
    combine_histogram,
)
from ._quant_net import quantize_net as quantize_net
from ._quant_net import quantize_net_v2 as quantize_net_v2
from ._quant_symbol import (
    _CPU,
    _as_data_iter,
    _calibrate_quantized_sym,
    _check_ctx,
    _DataIterWrapper,
    _load_params,
    _load_sym,
    _names_list,
    _quantize_logged,
    _quantize_params,
    _quantize_symbol,
)
from ._quant_symbol import calib_graph as calib_graph
from ._quant_symbol import quantize_graph as quantize_graph

__all__: list[str] = []  # as MXNet's module, which has none

# the module-level names of MXNet's module that this one does not use itself
_MXNET_NAMES = (ctypes, logging, _LayerHistogramCollector, _LayerOutputMinMaxCollector,
                shutil, np, NDArrayHandle, mx_uint, py_str, DataBatch, DataDesc,
                NDArray, nd_load, sym_load, combine_histogram, _smooth_distribution,
                _get_optimal_threshold, _load_sym, _load_params, _DataIterWrapper, nd_save,
                tempfile, warnings, _as_data_iter, _collect_layer_statistics, ndarray, os,
                _quantize_symbol)  # fmt: skip


def quantize_model(
    sym: Any,
    arg_params: dict,
    aux_params: dict,
    data_names: Any = ("data",),
    label_names: Any = ("softmax_label",),
    ctx: Context = _CPU,
    excluded_sym_names: list | None = None,
    excluded_op_names: list | None = None,
    calib_mode: str = "entropy",
    calib_data: DataIter | None = None,
    num_calib_examples: int | None = None,
    quantized_dtype: str = "int8",
    quantize_mode: str = "smart",
    quantize_granularity: str = "tensor-wise",
    logger: Any = None,
) -> tuple[Symbol, dict, dict]:
    """User-level API for generating a quantized model from a FP32 model w/ or w/o calibration.

    Parameters
    ----------
    sym : str or Symbol
        Defines the structure of a neural network for FP32 data types.
    arg_params : dict
        Dictionary of name to `NDArray`.
    aux_params : dict
        Dictionary of name to `NDArray`.
    data_names : a list of strs
        Data names required for creating a Module object to run forward propagation on the
        calibration dataset.
    label_names : a list of strs
        Label names required for creating a Module object to run forward propagation on the
        calibration dataset.
    ctx : Context
        Defines the device that users want to run forward propagation on the calibration
        dataset for collecting layer output statistics. Currently, only supports single context.
    excluded_sym_names : list of strings
        A list of strings representing the names of the symbols that users want to excluding
        from being quantized.
    excluded_op_names : list of strings
        A list of strings representing the names of the operators that users want to excluding
        from being quantized.
    calib_mode : str
        'none' (ranges computed at run time), 'naive' (min and max of each layer output on
        the calibration data) or 'entropy' (default: thresholds minimising the KL divergence
        between the float and the quantized distributions).
    calib_data : DataIter
        A data iterator initialized by the calibration dataset.
    num_calib_examples : int or None
        The maximum number of examples that user would like to use for calibration. If not
        provided, the whole calibration dataset will be used.
    quantized_dtype : str
        'int8' (default), 'uint8' or 'auto' (chosen from the calibration result).
    quantize_mode : str
        'smart' (default) or 'full' (quantize every operator that can be).
    quantize_granularity : str
        'tensor-wise' (default) or 'channel-wise'.
    logger : Object
        A logging object for printing information during the process of quantization.

    Returns
    -------
    tuple
        A tuple of quantized symbol, quantized arg_params, and aux_params.
    """
    excluded_sym_names = _names_list(excluded_sym_names, "excluded_sym_names", "symbols")
    excluded_op_names = _names_list(excluded_op_names, "excluded_op_names", "operators")
    qsym, calib_layer = _quantize_logged(
        "symbol", logger, sym, arg_params, ctx, excluded_sym_names, excluded_op_names,
        quantized_dtype, quantize_mode, quantize_granularity)  # fmt: skip
    th_dict: dict = {}
    if calib_mode is not None and calib_mode != "none":
        _check_ctx(ctx)
        if calib_data is None:
            raise ValueError(f"calib_data must be provided when calib_mode={calib_mode}")
        if not isinstance(calib_data, DataIter):
            raise ValueError(f"calib_data must be of DataIter type when calib_mode={calib_mode},"
                             f" while received type {type(calib_data)}")  # fmt: skip
        mod = Module(symbol=sym, data_names=data_names, label_names=label_names, context=ctx)
        if len(calib_data.provide_label) > 0:
            mod.bind(for_training=False, data_shapes=calib_data.provide_data,
                     label_shapes=calib_data.provide_label)  # fmt: skip
        else:
            mod.bind(for_training=False, data_shapes=calib_data.provide_data)
        mod.set_params(arg_params, aux_params)
        if calib_mode == "entropy":
            hist_dict, num = _collect_layer_histogram(
                mod, calib_data, include_layer=calib_layer, max_num_examples=num_calib_examples,
                logger=logger)  # fmt: skip
            if logger:
                logger.info(f"Collected layer outputs from FP32 model using {num} examples")
                logger.info("Calculating optimal thresholds for quantization")
            th_dict = _get_optimal_thresholds(hist_dict, quantized_dtype, logger=logger)
        elif calib_mode == "naive":
            th_dict, num = _collect_layer_output_min_max(
                mod, calib_data, quantized_dtype, include_layer=calib_layer,
                max_num_examples=num_calib_examples, logger=logger)  # fmt: skip
            if logger:
                logger.info(f"Collected layer output min/max values from FP32 model using "
                            f"{num} examples")  # fmt: skip
        else:
            raise ValueError(f"unknown calibration mode {calib_mode} received, expected "
                             "`none`, `naive`, or `entropy`")  # fmt: skip
        qsym = _calibrate_quantized_sym(qsym, th_dict)
    if logger:
        logger.info("Quantizing parameters")
    return qsym, _quantize_params(qsym, arg_params, th_dict), aux_params


def quantize_model_mkldnn(
    sym: Symbol,
    arg_params: dict,
    aux_params: dict,
    data_names: Any = ("data",),
    label_names: Any = ("softmax_label",),
    ctx: Context = _CPU,
    excluded_sym_names: list | None = None,
    excluded_op_names: list | None = None,
    calib_mode: str = "entropy",
    calib_data: DataIter | None = None,
    num_calib_examples: int | None = None,
    quantized_dtype: str = "int8",
    quantize_mode: str = "smart",
    quantize_granularity: str = "tensor-wise",
    logger: Any = None,
) -> tuple[Symbol, dict, dict]:
    """User-level API for generating a fusion + quantized model from a FP32 model w/ or w/o
    calibration with Intel MKL-DNN: ``quantize_model`` between two partitionings by the
    ``MKLDNN_QUANTIZE`` backend. Parameters and result as :func:`quantize_model`; ``ctx`` must
    be a CPU context."""
    _check_ctx(ctx)
    if ctx.device_type != "cpu":
        raise ValueError("quantize_model_mkldnn only support Intel cpu platform with MKL-DNN "
                         "Backend")  # fmt: skip
    sym = sym.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qarg_params, aux_params = quantize_model(
        sym=sym, arg_params=arg_params, aux_params=aux_params, data_names=data_names,
        label_names=label_names, ctx=ctx, excluded_sym_names=excluded_sym_names,
        excluded_op_names=excluded_op_names, calib_mode=calib_mode, calib_data=calib_data,
        num_calib_examples=num_calib_examples, quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity,
        logger=logger)  # fmt: skip
    return qsym.get_backend_symbol("MKLDNN_QUANTIZE"), qarg_params, aux_params


def __getattr__(name: str) -> Any:
    # ``stats`` is scipy.stats in MXNet's module (None without SciPy); imported on first use,
    # as entropy calibration here does not need it
    if name == "stats":
        try:
            from scipy import stats
        except ImportError:
            return None
        return stats
    raise AttributeError(f"module 'mxlite.contrib.quantization' has no attribute {name!r}")
