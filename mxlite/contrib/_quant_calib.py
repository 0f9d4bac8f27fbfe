"""Calibration for INT8 quantization (MXNet 1.9.1's ``mx.contrib.quantization``): the layer
output collectors a monitor callback feeds, and the thresholds taken from what they saw.

``naive`` takes each layer output's min and max over the calibration data; ``entropy`` keeps
a histogram of each output (8001 bins over ``[-t, t]``, ``t`` its largest magnitude, widened
as larger values arrive) and picks the threshold whose 255-level quantized distribution is
closest in KL divergence (the ``_contrib_calibrate_entropy`` operator).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from .. import ndarray
from ..base import NDArrayHandle, py_str
from ..context import cpu
from ..io import DataIter
from ..ndarray import NDArray

__all__ = [
    "combine_histogram",
    "_LayerHistogramCollector",
    "_LayerOutputMinMaxCollector",
    "_collect_layer_statistics",
    "_collect_layer_output_min_max",
    "_collect_layer_histogram",
    "_smooth_distribution",
    "_get_optimal_threshold",
    "_get_optimal_thresholds",
]


def combine_histogram(
    old_hist: tuple, arr: np.ndarray, new_min: float, new_max: float, new_th: float
) -> tuple:
    """Add the histogram of ``arr`` to ``old_hist`` = (hist, edges, min, max, threshold),
    widening the bins' range symmetrically, in whole bins, when ``new_th`` exceeds it."""
    hist0, edges0, min0, max0, th0 = old_hist
    lo, hi = min(min0, new_min), max(max0, new_max)
    if new_th <= th0:
        hist, _ = np.histogram(arr, bins=len(hist0), range=(-th0, th0))
        return hist0 + hist, edges0, lo, hi, th0
    step = 2 * th0 / len(hist0)
    extra = int((new_th - th0) // step + 1)  # bins added on each side
    bins = len(hist0) + 2 * extra
    th = th0 + extra * step
    hist, edges = np.histogram(arr, bins=bins, range=(-th, th))
    hist[extra : bins - extra] += hist0
    return hist, edges, lo, hi, th


def _array(handle: Any) -> NDArray:
    return NDArray(ctypes.cast(handle, NDArrayHandle), writable=False)


class _LayerHistogramCollector:
    """Histograms of layer outputs by name (``hist_dict``: name -> (hist, edges, min, max,
    threshold)), for entropy calibration; ``collect`` is the monitor callback."""

    def __init__(self, num_bins: int = 8001, include_layer: Any = None, logger: Any = None) -> None:
        self.hist_dict: dict[str, tuple] = {}
        self.num_bins = num_bins
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name: bytes | str, arr: Any) -> None:
        """Monitor callback: add the array behind handle ``arr`` to layer ``name``'s
        histogram, if that layer is included."""
        name = py_str(name)
        if name not in self.include_layer:
            return
        x = _array(arr).copyto(cpu()).asnumpy()
        if self.logger:
            self.logger.debug(f"Collecting layer {name} histogram of shape {x.shape}")
        lo, hi = np.min(x), np.max(x)
        th = max(abs(lo), abs(hi))
        if name in self.hist_dict:
            self.hist_dict[name] = combine_histogram(self.hist_dict[name], x, lo, hi, th)
        else:
            hist, edges = np.histogram(x, bins=self.num_bins, range=(-th, th))
            self.hist_dict[name] = (hist, edges, lo, hi, th)


class _LayerOutputMinMaxCollector:
    """The min and max of layer outputs by name (``min_max_dict``), for naive calibration;
    ``collect`` is the monitor callback."""

    def __init__(self, quantized_dtype: str, include_layer: Any = None, logger: Any = None) -> None:
        self.min_max_dict: dict[str, tuple] = {}
        self.quantized_dtype = quantized_dtype
        self.include_layer = include_layer
        self.logger = logger

    def collect(self, name: bytes | str, arr: Any) -> None:
        """Monitor callback: widen layer ``name``'s range by the array behind ``arr``."""
        name = py_str(name)
        if name not in self.include_layer:
            return
        x = _array(arr)
        lo = ndarray.min(x).asscalar()
        hi = ndarray.max(x).asscalar()
        if name in self.min_max_dict:
            old_lo, old_hi = self.min_max_dict[name]
            self.min_max_dict[name] = (min(old_lo, lo), max(old_hi, hi))
        else:
            self.min_max_dict[name] = (lo, hi)
        if self.logger:
            self.logger.debug(f"Collecting layer {name} min_range={lo:f}, max_range={hi:f}")


def _collect_layer_statistics(
    mod: Any, data: Any, collector: Any, max_num_examples: int | None = None, logger: Any = None
) -> int:
    """Run ``mod``'s forward over ``data`` (a DataIter) with ``collector.collect`` as the
    monitor of every input and output, up to ``max_num_examples``; the examples seen."""
    if not isinstance(data, DataIter):
        raise ValueError(f"Only supports data as a type of DataIter, while received type "
                         f"{type(data)}")  # fmt: skip
    mod._exec_group.execs[0].set_monitor_callback(collector.collect, monitor_all=True)
    num_batches = num_examples = 0
    for batch in data:
        mod.forward(data_batch=batch, is_train=False)
        num_batches += 1
        num_examples += data.batch_size
        if max_num_examples is not None and num_examples >= max_num_examples:
            break
    if logger is not None:
        logger.info(f"Collected statistics from {num_batches} batches with "
                    f"batch_size={data.batch_size}")  # fmt: skip
    return num_examples


def _collect_layer_output_min_max(
    mod: Any,
    data: Any,
    quantized_dtype: str,
    include_layer: Any = None,
    max_num_examples: int | None = None,
    logger: Any = None,
) -> tuple[dict, int]:
    """The min and max of each included layer output over ``data``, and the examples seen."""
    collector = _LayerOutputMinMaxCollector(quantized_dtype, include_layer, logger)
    num = _collect_layer_statistics(mod, data, collector, max_num_examples, logger)
    return collector.min_max_dict, num


def _collect_layer_histogram(
    mod: Any,
    data: Any,
    include_layer: Any = None,
    max_num_examples: int | None = None,
    logger: Any = None,
) -> tuple[dict, int]:
    """The histogram of each included layer output over ``data``, and the examples seen."""
    collector = _LayerHistogramCollector(include_layer=include_layer, logger=logger)
    num = _collect_layer_statistics(mod, data, collector, max_num_examples, logger)
    return collector.hist_dict, num


def _smooth_distribution(p: np.ndarray, eps: float = 0.0001) -> np.ndarray:
    """``p`` (counts, not necessarily normalised) with each zero raised to ``eps`` and the
    same total taken evenly off the non-zero entries, as float32."""
    is_zeros = (p == 0).astype(np.float32)
    is_nonzeros = (p != 0).astype(np.float32)
    n_zeros = is_zeros.sum()
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        raise ValueError("The discrete probability distribution is malformed. All entries are 0.")
    eps1 = eps * float(n_zeros) / float(n_nonzeros)
    if eps1 >= 1.0:
        raise ValueError(f"_smooth_distribution: n_zeros={n_zeros:.0f}, n_nonzeros="
                         f"{n_nonzeros:.0f}, eps1={eps1:f} must be below 1.")  # fmt: skip
    hist = p.astype(np.float32)
    hist += eps * is_zeros + (-eps1) * is_nonzeros
    if (hist <= 0).sum():
        raise ValueError("_smooth_distribution: an entry is not positive after smoothing.")
    return hist


def _get_optimal_threshold(
    hist_data: tuple, quantized_dtype: str, num_quantized_bins: int = 255
) -> tuple:
    """(min, max, threshold, divergence) of one layer's histogram data: the threshold whose
    quantized distribution is closest in KL divergence; with non-negative data and a uint8
    (or auto) target the levels span both halves (``2 * num_quantized_bins + 1``)."""
    hist, edges, lo, hi, _ = hist_data
    if len(hist) % 2 != 1:
        raise ValueError(f"_get_optimal_threshold: the histogram needs an odd number of bins, "
                         f"got {len(hist)}.")  # fmt: skip
    if lo >= 0 and quantized_dtype in ("auto", "uint8"):
        num_quantized_bins = num_quantized_bins * 2 + 1
    th, divergence = ndarray.contrib.calibrate_entropy(
        hist=ndarray.array(hist, ctx=cpu()),
        hist_edges=ndarray.array(edges, ctx=cpu()),
        num_quantized_bins=num_quantized_bins,
    )
    return lo, hi, th.asnumpy(), divergence.asnumpy()


def _get_optimal_thresholds(
    hist_dict: dict, quantized_dtype: str, num_quantized_bins: int = 255, logger: Any = None
) -> dict[str, tuple]:
    """The thresholds of every layer in ``hist_dict`` (emptied as it goes, to free memory):
    ``(0, th)`` for non-negative outputs to uint8/auto, else ``(-th, th)``."""
    if not isinstance(hist_dict, dict):
        raise TypeError(f"_get_optimal_thresholds: hist_dict must be a dict, got "
                        f"{type(hist_dict).__name__}.")  # fmt: skip
    if logger is not None:
        logger.info("Calculating optimal thresholds for quantization using KL divergence with "
                    f"num_quantized_bins={num_quantized_bins}")  # fmt: skip
    th_dict = {}
    for name in list(hist_dict):
        lo, hi, th, divergence = _get_optimal_threshold(
            hist_dict[name], quantized_dtype, num_quantized_bins=num_quantized_bins
        )
        th_dict[name] = (0, th) if lo >= 0 and quantized_dtype in ("auto", "uint8") else (-th, th)
        del hist_dict[name]
        if logger:
            th0, div0 = np.ravel(th)[0], np.ravel(divergence)[0]
            logger.debug(f"layer={name}, min_val={lo:f}, max_val={hi:f}, th={th0:f}, "
                         f"divergence={div0:f}")  # fmt: skip
    return th_dict
