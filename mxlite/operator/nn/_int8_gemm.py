"""Exact int8 products for the INT8 layers of quantized graphs: ``uint8``/``int8`` data times
``int8`` weights into ``int32``, on onnxruntime's ``MatMulInteger`` (its MLAS kernels: u8s8
products, VNNI where the CPU has it), a few times faster than a float32 GEMM on NumPy's BLAS.

NumPy has no integer GEMM, so without onnxruntime (the ``[onnx]`` extra) or with
``MXLITE_INT8_GEMM=float`` the quantized layers compute their products in float32, as before.
The weight of a layer is fixed between calls: it is given to onnxruntime once, as a constant
of a small graph, so that onnxruntime packs it once (:class:`Int8Matmul`).

Convolutions run as one product over channels-last patches (:class:`Int8Conv`): the data are
turned to channels-last once, ``int8`` data shifted by 128 into ``uint8`` (a zero point of
128), so that patches are contiguous runs of channels.
"""

from __future__ import annotations

import os

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..parallel import over_rows
from . import _conv_util as cu
from . import _onnxruntime as ort

_ENV = "MXLITE_INT8_GEMM"
_SETTINGS = ("auto", "onnxruntime", "float")


def _setting() -> str:
    value = os.environ.get(_ENV, "auto").strip().lower() or "auto"
    if value not in _SETTINGS:
        raise ValueError(f"{_ENV}={value!r}: expected one of {', '.join(_SETTINGS)}")
    return value


def available() -> bool:
    """Whether the quantized layers compute their products in integers (onnxruntime is
    installed and ``MXLITE_INT8_GEMM`` is not ``float``)."""
    setting = _setting()
    if setting == "float":
        return False
    if setting == "onnxruntime":
        ort.require(f"{_ENV}=onnxruntime")
    return ort.modules() is not None


class Int8Matmul:
    """``a (M, K) uint8 @ w (K, N) int8 -> (M, N) int32``, exact, ``a`` read with a zero point
    (0, or 128 for ``int8`` data shifted into ``uint8``); ``w`` is fixed."""

    def __init__(self, w: np.ndarray) -> None:
        _, helper, numpy_helper, tp = ort.modules()
        k, n = w.shape
        self._session = ort.session(
            [helper.make_node("MatMulInteger", ["a", "w", "a_zero"], ["y"])],
            [
                helper.make_tensor_value_info("a", tp.UINT8, ["m", k]),
                helper.make_tensor_value_info("a_zero", tp.UINT8, []),
            ],
            [helper.make_tensor_value_info("y", tp.INT32, ["m", n])],
            [numpy_helper.from_array(np.ascontiguousarray(w, np.int8), "w")],
        )
        self._zero = {z: np.array(z, np.uint8) for z in (0, 128)}

    def __call__(self, a: np.ndarray, zero: int = 0) -> np.ndarray:
        return self._session.run(None, {"a": a, "a_zero": self._zero[zero]})[0]


def as_uint8(x: np.ndarray) -> tuple[np.ndarray, int]:
    """``x`` as ``uint8`` with its zero point: ``uint8`` as it is, ``int8`` shifted by 128."""
    if x.dtype == np.uint8:
        return x, 0
    return np.bitwise_xor(x.view(np.uint8), np.uint8(128)), 128


class Int8Conv:
    """A 2-D convolution with a fixed ``int8`` weight ``(F, C, kh, kw)`` (one group) as one
    exact integer product: ``__call__(x)`` gives the ``int32`` sums as ``(N, OH*OW, F)``."""

    def __init__(self, w: np.ndarray, geom: cu.Geometry) -> None:
        self.geom = geom
        self.filters = w.shape[0]
        # patches are (kh, kw, C) runs of the channels-last data
        self._matmul = Int8Matmul(w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0]))

    @staticmethod
    def supports(geom: cu.Geometry) -> bool:
        return geom.nd == 2 and geom.groups == 1 and not geom.channels_last

    def __call__(self, x: np.ndarray, out_spatial: tuple) -> np.ndarray:
        g = self.geom
        n, c, h, w = x.shape
        oh, ow = out_spatial
        ph, pw = g.pad
        data, zero = as_uint8(x)
        padded = np.empty((n, h + 2 * ph, w + 2 * pw, c), np.uint8)

        def to_channels_last(src: np.ndarray, dst: np.ndarray) -> None:
            if ph or pw:
                dst[:, :ph] = zero
                dst[:, ph + h :] = zero
                dst[:, :, :pw] = zero
                dst[:, :, pw + w :] = zero
            dst[:, ph : ph + h, pw : pw + w] = src.transpose(0, 2, 3, 1)

        over_rows(to_channels_last, n, x.size * 2, data, padded)
        kh, kw = g.kernel
        if (kh, kw) == (1, 1) and g.stride == (1, 1):
            cols = padded.reshape(-1, c)
        else:
            sn, sh, sw, sc = padded.strides
            (dh, dw), (st_h, st_w) = g.dilate, g.stride
            view = as_strided(
                padded,
                (n, oh, ow, kh, kw, c),
                (sn, sh * st_h, sw * st_w, sh * dh, sw * dw, sc),
                writeable=False,
            )
            cols = np.empty((n, oh, ow, kh, kw, c), np.uint8)
            over_rows(np.copyto, n, cols.size * 2, cols, view)
            cols = cols.reshape(n * oh * ow, -1)
        return self._matmul(cols, zero).reshape(n, oh * ow, self.filters)
