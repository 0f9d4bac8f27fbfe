"""``fft`` and ``ifft`` (contrib): 1-D discrete Fourier transforms over the last axis of
(N, d) or (N1, N2, N3, d) arrays, complex values interleaved as [re0, im0, re1, im1, ...].

MXNet 1.9.1 has these on GPU only (cuFFT); its CPU build raises. mxlite computes them with
NumPy's FFT as the operator documentation and the cuFFT kernels define them: ``fft`` of real
data is unnormalised, ``ifft`` returns the real part of the unnormalised inverse (no 1/d, as
MXNet's kernel, "to be consistent with caffe"), and each backward is the transform's exact
adjoint. ``compute_size`` (cuFFT's sub-batch) is accepted and changes nothing here.
"""

from __future__ import annotations

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign

__all__: list[str] = []


class FFTParam(Param):
    compute_size: int = field(
        default=128, doc="Maximum size of sub-batch to be forwarded at one time"
    )


def _interleave(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    out = np.empty((*z.shape[:-1], 2 * z.shape[-1]), dtype)
    out[..., 0::2] = z.real
    out[..., 1::2] = z.imag
    return out


def _complex(a: np.ndarray) -> np.ndarray:
    return a[..., 0::2] + 1j * a[..., 1::2]


class _FFTBase(OperatorProperty):
    param_class = FFTParam
    inverse = False

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        d = in_shape[0]
        if d is None:
            return None
        d = tuple(d)
        if len(d) not in (2, 4):
            raise ShapeError(f"{self.where()}: data must be 2-D or 4-D, got shape {d}.")
        if self.inverse and d[-1] % 2:
            raise ShapeError(f"{self.where()}: the last dimension must be even, got shape {d}.")
        last = d[-1] // 2 if self.inverse else d[-1] * 2
        return [d], [(*d[:-1], last)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0]]

    def create_operator(self, ctx: Context) -> Operator:
        return _FFTOp(self)


class _FFTOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        x = in_data[0]
        if self.prop.inverse:
            n = x.shape[-1] // 2
            out = (np.fft.ifft(_complex(x), axis=-1) * n).real
        else:
            out = _interleave(np.fft.fft(x, axis=-1), x.dtype)
        assign(out_data[0], req[0], out.astype(x.dtype, copy=False))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        g = out_grad[0]
        if self.prop.inverse:  # adjoint of Re(unnormalised inverse): the forward transform
            dx = _interleave(np.fft.fft(g, axis=-1), g.dtype)
        else:  # adjoint of the forward transform of real data: Re(unnormalised inverse)
            n = g.shape[-1] // 2
            dx = (np.fft.ifft(_complex(g), axis=-1) * n).real
        assign(in_grad[0], req[0], dx.astype(in_grad[0].dtype, copy=False))


@register("_contrib_fft")
class FFTProp(_FFTBase):
    """Apply 1D FFT to input: real (N, d) or (N1, N2, N3, d) data to (..., 2*d), real and
    imaginary parts interleaved."""

    test = OpTest(shapes={"data": (3, 4)}, dtypes=("float32",), rtol=1e-2, atol=1e-3)


@register("_contrib_ifft")
class IFFTProp(_FFTBase):
    """Apply 1D ifft to input: interleaved complex (..., 2*d) data to the real part (..., d)
    of its unnormalised inverse transform."""

    inverse = True
    test = OpTest(shapes={"data": (3, 8)}, dtypes=("float32",), rtol=1e-2, atol=1e-3)
