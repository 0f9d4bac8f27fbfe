"""The symbol-level helpers of ``mx.contrib.quantization`` (MXNet 1.9.1): quantizing a
symbol and its parameters, setting calibrated ranges, loading symbols and parameters, and
wrapping calibration data as a DataIter."""

from __future__ import annotations

import logging
import os
from typing import Any

from .. import ndarray
from ..context import Context, cpu
from ..io import DataBatch, DataDesc, DataIter
from ..ndarray import NDArray
from ..ndarray import load as nd_load
from ..symbol import Symbol
from ..symbol import load as sym_load
from . import _quantize_graph
from ._quant_calib import (
    _get_optimal_thresholds,
    _LayerHistogramCollector,
    _LayerOutputMinMaxCollector,
)

__all__: list[str] = []

_DTYPES = ("int8", "uint8", "auto")
_GRANULARITIES = ("tensor-wise", "channel-wise")
_CALIB_MODES = "expected `none`, `naive`, `entropy` or `customize`"
# MXNet's default context, made once (``ctx == mx.cpu()`` picks the MKLDNN backend)
_CPU = cpu()


def _check_ctx(ctx: Any) -> None:
    if not isinstance(ctx, Context):
        raise ValueError(f"currently only supports single ctx, while received {ctx}")


def _quantize_params(qsym: Symbol, params: dict, th_dict: dict) -> dict:
    """The arguments of ``qsym`` from the float ``params``: each ``*weight_quantize`` /
    ``*bias_quantize`` the int8 parameter (over its own min and max) with its ``_min`` and
    ``_max``, the other parameters as they are, and a layer's ``_min``/``_max`` from
    ``th_dict`` where calibrated."""
    quantized: dict[str, NDArray] = {}
    for name in qsym.list_arguments():
        if name.endswith(("weight_quantize", "bias_quantize")):
            param = params[name[: -len("_quantize")]]
            val, vmin, vmax = ndarray.contrib.quantize(
                data=param, min_range=ndarray.min(param), max_range=ndarray.max(param),
                out_type="int8")  # fmt: skip
            quantized[name] = val
            quantized[name + "_min"] = vmin
            quantized[name + "_max"] = vmax
        elif name in params:
            quantized[name] = params[name]
        elif name.endswith(("_min", "_max")):
            layer = name[: -len("_min")]
            if layer in th_dict:
                bound = th_dict[layer][0 if name.endswith("_min") else 1]
                quantized[name] = ndarray.array([bound])
    return quantized


def _quantize_symbol(
    sym: Symbol,
    ctx: Context,
    excluded_symbols: list | None = None,
    excluded_operators: list | None = None,
    offline_params: list | None = None,
    quantized_dtype: str = "int8",
    quantize_mode: str = "smart",
    quantize_granularity: str = "tensor-wise",
) -> tuple[Symbol, list[str]]:
    """The quantized symbol of the float ``sym`` and the names of the layer outputs that
    calibrate it (MXNet's MXQuantizeSymbol). ``excluded_symbols``/``excluded_operators``: node
    and operator names left in float; ``offline_params``: parameters quantized ahead of time
    (they become ``<name>_quantize`` variables with ``_min``/``_max``)."""
    for what, names in (("excluded_symbols", excluded_symbols),
                        ("excluded_operators", excluded_operators)):  # fmt: skip
        if names is not None and not isinstance(names, list):
            raise ValueError(f"_quantize_symbol: {what} must be a list of strings, got "
                             f"{type(names).__name__}.")  # fmt: skip
    if ctx.device_type == "gpu" and quantize_granularity == "channel-wise":
        raise ValueError("`channel-wise` quantization option is not supported yet by GPU, "
                         "please set quantize_granularity to `tensor-wise` when quantizing "
                         "model.")  # fmt: skip
    heads, calib = _quantize_graph.quantize(
        sym._entries,
        set(excluded_symbols or ()),
        set(excluded_operators or ()),
        set(offline_params or ()),
        quantized_dtype,
        quantize_mode,
        quantize_granularity,
    )
    return Symbol(heads), calib


def _calibrate_quantized_sym(qsym: Symbol, th_dict: dict | None) -> Symbol:
    """``qsym`` with each layer range of ``th_dict`` (name -> (min, max)) set on the
    requantize and quantize nodes that take it (MXNet's MXSetCalibTableToQuantizedSymbol)."""
    if not th_dict:
        return qsym
    table = {k: (v[0], v[1]) for k, v in th_dict.items()}
    return Symbol(_quantize_graph.set_calib_table(qsym._entries, table))


def _load_sym(sym: str | Symbol, logger: Any = None) -> Symbol:
    """``sym`` itself, or the symbol in the JSON file at path ``sym`` (relative to this
    module's folder, as in MXNet)."""
    if isinstance(sym, str):
        path = os.path.join(os.path.dirname(os.path.realpath(__file__)), sym)
        if logger:
            logger.info(f"Loading symbol from file {path}")
        return sym_load(path)
    if isinstance(sym, Symbol):
        return sym
    raise ValueError(f"_load_sym only accepts Symbol or path to the symbol file, while "
                     f"received type {type(sym)}")  # fmt: skip


def _load_params(params: Any, logger: Any = None) -> tuple[dict, dict]:
    """(arg_params, aux_params) from a ``.params`` file path (``arg:``/``aux:`` keys) or a
    pair of dicts."""
    if isinstance(params, str):
        path = os.path.join(os.path.dirname(os.path.realpath(__file__)), params)
        if logger:
            logger.info(f"Loading params from file {path}")
        args, auxs = {}, {}
        for key, value in nd_load(path).items():
            kind, name = key.split(":", 1)
            if kind == "arg":
                args[name] = value
            elif kind == "aux":
                auxs[name] = value
        return args, auxs
    if isinstance(params, (tuple, list)) and len(params) == 2:
        return params[0], params[1]
    raise ValueError("Unsupported params provided. Must be either a path to the param file or "
                     "a pair of dictionaries representing arg_params and aux_params")  # fmt: skip


class _DataIterWrapper(DataIter):
    """A DataIter over any iterable of batches (a Gluon DataLoader): ``provide_data`` from the
    first batch, named ``data`` (then ``data0``...; ``data0, data1, ...`` for three or more
    arrays); 5-D and 6-D data is folded into 4-D."""

    def __init__(self, calib_data: Any) -> None:  # no DataIter.__init__, as in MXNet
        self._data = calib_data
        try:
            calib_iter = iter(calib_data)
        except TypeError as e:
            raise TypeError(f"calib_data is not a valid iterator. {e}") from e
        example = next(calib_iter)
        example = list(example) if isinstance(example, (list, tuple)) else [example]
        if not example:
            raise ValueError("calib_data yields empty batches.")
        if len(example[0].shape) > 4:
            example[0] = example[0].reshape((-1,) + example[0].shape[2:])
        self.provide_data = [DataDesc(name="data", shape=example[0].shape)]
        self.provide_data += [DataDesc(name=f"data{i}", shape=x.shape)
                              for i, x in enumerate(example[1:])]  # fmt: skip
        if len(example) >= 3:
            self.provide_data = [DataDesc(name=f"data{i}", shape=x.shape)
                                 for i, x in enumerate(example)]  # fmt: skip
        self.batch_size = example[0].shape[0]
        self.reset()

    def reset(self) -> None:
        self._iter = iter(self._data)

    def next(self) -> DataBatch:
        batch = next(self._iter)
        batch = list(batch) if isinstance(batch, (list, tuple)) else [batch]
        if len(batch[0].shape) > 4:
            batch[0] = batch[0].reshape((-1,) + batch[0].shape[2:])
        # quantize_net_v2 drops the arrays (labels) the network does not take from
        # provide_data; MXNet's module then reads only the first ones of each batch
        return DataBatch(data=batch[: len(self.provide_data)])


def _as_data_iter(calib_data: Any) -> tuple[DataIter, list]:
    """``calib_data`` as a DataIter, with its ``provide_data``."""
    if not isinstance(calib_data, DataIter):
        calib_data = _DataIterWrapper(calib_data)
    return calib_data, calib_data.provide_data


def _check_options(quantized_dtype: str, quantize_granularity: str) -> None:
    if quantized_dtype not in _DTYPES:
        raise ValueError(f"unknown quantized_dtype {quantized_dtype} received, expected `int8`, "
                         "`uint8` or `auto`")  # fmt: skip
    if quantize_granularity not in _GRANULARITIES:
        raise ValueError(f"unkonwn quantize_granularity {quantize_granularity} received, "
                         "expected `tensor-wise` or `channel-wise`.")  # fmt: skip


def _quantize_logged(
    what: str,
    logger: Any,
    sym: Symbol,
    arg_params: dict,
    ctx: Context,
    excluded_sym_names: list,
    excluded_op_names: list | None,
    quantized_dtype: str,
    quantize_mode: str,
    quantize_granularity: str,
) -> tuple[Symbol, list[str]]:
    """The first step of quantize_model and quantize_graph: with a ``logger``, verbose
    quantization and "Quantizing <what>"; the options checked; then :func:`_quantize_symbol`
    with every parameter quantized offline."""
    if logger:
        os.environ["MXNET_QUANTIZATION_VERBOSE"] = "1"
        logger.info(f"Quantizing {what}")
    _check_options(quantized_dtype, quantize_granularity)
    return _quantize_symbol(
        sym, ctx, excluded_symbols=excluded_sym_names, excluded_operators=excluded_op_names,
        offline_params=list(arg_params.keys()), quantized_dtype=quantized_dtype,
        quantize_mode=quantize_mode, quantize_granularity=quantize_granularity)  # fmt: skip


def _names_list(value: Any, what: str, kind: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of strings representing the names of the "
                         f"{kind} that will not be quantized, while received type "
                         f"{type(value)}")  # fmt: skip
    return value


def quantize_graph(
    sym: Symbol,
    arg_params: dict,
    aux_params: dict,
    ctx: Context = _CPU,
    excluded_sym_names: list | None = None,
    excluded_op_names: list | None = None,
    calib_mode: str = "entropy",
    quantized_dtype: str = "int8",
    quantize_mode: str = "full",
    quantize_granularity: str = "tensor-wise",
    LayerOutputCollector: Any = None,  # noqa: N803 (MXNet's name)
    logger: Any = None,
) -> tuple[Symbol, dict, dict, Any]:
    """User-level API for generating a quantized model from a FP32 model w/o calibration
    and a collector for naive or entropy calibration.

    Parameters
    ----------
    sym, arg_params, aux_params, ctx, excluded_sym_names, excluded_op_names, quantized_dtype,
    quantize_granularity, logger
        As :func:`quantize_model`.
    calib_mode : str
        'none', 'naive', 'entropy' (default) or 'customize' (with ``LayerOutputCollector``):
        which collector to return.
    quantize_mode : str
        'full' (default) or 'smart'.
    LayerOutputCollector : class
        For customize calibration method usage.

    Returns
    -------
    tuple
        A tuple of quantized symbol, quantized arg_params, aux_params and collector (None
        with calib_mode 'none'); feed the collector's ``collect`` to a monitor, then call
        :func:`calib_graph`.
    """
    excluded_sym_names = _names_list(excluded_sym_names, "excluded_sym_names", "symbols")
    _check_ctx(ctx)
    qsym, calib_layer = _quantize_logged(
        "graph", logger, sym, arg_params, ctx, excluded_sym_names, excluded_op_names,
        quantized_dtype, quantize_mode, quantize_granularity)  # fmt: skip
    collector = None
    if calib_mode is not None and calib_mode != "none":
        if calib_mode == "entropy":
            collector = _LayerHistogramCollector(include_layer=calib_layer, logger=logger)
        elif calib_mode == "naive":
            collector = _LayerOutputMinMaxCollector(
                quantized_dtype=quantized_dtype, include_layer=calib_layer, logger=logger
            )
        elif calib_mode == "customize" and LayerOutputCollector is not None:
            collector = LayerOutputCollector
        else:
            raise ValueError(f"unknown calibration mode {calib_mode} received, {_CALIB_MODES}")
        if logger:
            logger.info(f"Create a layer output collector for {calib_mode} calibration; use "
                        "set_monitor_callback to collect calibration information.")  # fmt: skip
    if logger:
        logger.info("Quantizing parameters")
    return qsym, _quantize_params(qsym, arg_params, {}), aux_params, collector


def calib_graph(
    qsym: Symbol,
    arg_params: dict,
    aux_params: dict,
    collector: Any,
    calib_mode: str = "entropy",
    quantized_dtype: str = "int8",
    logger: Any = logging,
) -> tuple[Symbol, dict, dict]:
    """User-level API for calibrating a quantized model using a filled collector.

    Parameters
    ----------
    qsym : Symbol
        Defines the structure of a neural network for INT8 data types.
    arg_params : dict
        Dictionary of name to `NDArray` (the float parameters).
    aux_params : dict
        Dictionary of name to `NDArray`.
    collector : function
        layer collector for naive or entropy calibration.
    calib_mode : str
        'naive', 'entropy' (default) or 'customize' (the collector's ``min_max_dict``).
    quantized_dtype : str
        'int8' (default), 'uint8' or 'auto'.
    logger : Object
        A logging object for printing information during the process of quantization.

    Returns
    -------
    tuple
        A tuple of calibrated symbol, quantized arg_params, aux_params.
    """
    if calib_mode is None or calib_mode == "none":
        raise ValueError("please set calibration mode to naive or entropy.")
    if calib_mode == "entropy":
        if logger:
            logger.info("Calculating optimal thresholds for quantization")
        th_dict = _get_optimal_thresholds(collector.hist_dict, quantized_dtype, logger=logger)
    elif calib_mode in ("naive", "customize"):
        th_dict = collector.min_max_dict
    else:
        raise ValueError(f"unknown calibration mode {calib_mode} received, {_CALIB_MODES}")
    qsym = _calibrate_quantized_sym(qsym, th_dict)
    if logger:
        logger.info("Quantizing parameters")
    return qsym, _quantize_params(qsym, arg_params, th_dict), aux_params
