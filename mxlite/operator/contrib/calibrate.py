"""``calibrate_entropy`` (contrib): the threshold that quantizing a histogram to
``num_quantized_bins`` levels loses the least information at, by KL divergence, as MXNet
1.9.1's CPU kernel computes it (integer counts for the candidate slice, float32 sums,
zeros smoothed with 1e-4). No gradient."""

from __future__ import annotations

import numpy as np

from ...base import DTypeError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import assign

__all__: list[str] = []

_F = np.float32
_SMOOTH_EPS = _F(1e-4)


class CalibrateEntropyParam(Param):
    num_quantized_bins: int = field(default=255, low=1, doc="The number of quantized bins.")


@register("_contrib_calibrate_entropy")
class CalibrateEntropyProp(OperatorProperty):
    """Threshold and minimal divergence of the histogram ``hist`` (``hist_edges`` one
    longer), searching symmetric slices around the middle bin."""

    param_class = CalibrateEntropyParam
    differentiable = False
    test = OpTest(shapes={"hist": (9,), "hist_edges": (10,)}, params={"num_quantized_bins": 3},
                  low=0.0, high=5.0, grad=False, dtypes=("float32",))  # fmt: skip

    def list_arguments(self) -> list[str]:
        return ["hist", "hist_edges"]

    def list_outputs(self) -> list[str]:
        return ["threshold", "divergence"]

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        h, e = in_shape
        if h is None or e is None:
            return None
        n, m = int(np.prod(h)), int(np.prod(e))
        if m != n + 1:
            raise ShapeError(f"{self.where()}: hist_edges must have one more element than hist "
                             f"({n}), got {m}.")  # fmt: skip
        if n // 2 < self.param.num_quantized_bins // 2:
            raise ShapeError(f"{self.where()}: hist has {n} bins, fewer than "
                             f"num_quantized_bins={self.param.num_quantized_bins}.")  # fmt: skip
        return [tuple(h), tuple(e)], [(1,), (1,)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        f = np.dtype(_F)
        if in_type[0] is not None and np.dtype(in_type[0]) != f:
            raise DTypeError(f"{self.where()}: hist must be float32, got {np.dtype(in_type[0])}.")
        return [f, f], [f, f], []

    def create_operator(self, ctx: Context) -> Operator:
        return _CalibrateEntropyOp(self)


def _smooth(p: np.ndarray) -> np.ndarray | None:
    """Move a little mass onto the zero entries; None where every entry is 0 (or too few)."""
    zeros = p == 0
    n_zeros = int(zeros.sum())
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        return None
    eps1 = _F(_SMOOTH_EPS * _F(n_zeros) / _F(n_nonzeros))
    if eps1 >= 1:
        return None
    return np.where(zeros, p + _SMOOTH_EPS, p - eps1).astype(_F)


def _kl(p: np.ndarray, q: np.ndarray) -> np.float32:
    p = p / _F(p.sum(dtype=_F))
    q = q / _F(q.sum(dtype=_F))
    return _F((p * np.log(p / q)).sum(dtype=_F))


def _divergence(hist: np.ndarray, i: int, nq: int) -> np.float32:
    """KL divergence of the slice of 2i+1 bins around the middle, tails folded into its end
    bins, from its quantization into ``nq`` bins."""
    z = hist.size // 2
    start, stop = z - i, z + i + 1
    n = stop - start
    p = hist[start:stop].astype(_F)
    if n == 1:
        p[0] = hist.sum(dtype=_F)
    else:
        p[0] = hist[: start + 1].sum(dtype=_F)
        p[-1] = hist[stop - 1 :].sum(dtype=_F)
    counts = np.trunc(hist[start:stop]).astype(np.int64)  # MXNet holds the slice as integers
    counts[0] = 0
    merged = n // nq
    bins = counts[: nq * merged].reshape(nq, merged).sum(axis=1)
    bins[-1] += counts[nq * merged :].sum()
    # each merged bin's count spread evenly over its non-zero slots (the last takes the rest)
    seg = np.minimum(np.arange(n) // merged, nq - 1)
    norm = np.bincount(seg, weights=counts != 0, minlength=nq)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.where(norm > 0, bins.astype(_F) / norm.astype(_F), _F(0)).astype(_F)
    q = np.where(p != 0, spread[seg], _F(0)).astype(_F)
    ps, qs = _smooth(p), _smooth(q)
    if qs is None or ps is None:
        return _F(np.inf)
    return _kl(ps, qs)


class _CalibrateEntropyOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        hist = np.asarray(in_data[0], dtype=_F).reshape(-1)
        edges = np.asarray(in_data[1], dtype=_F).reshape(-1)
        z, half = hist.size // 2, self.prop.param.num_quantized_bins // 2
        best, best_i = _F(np.finfo(_F).max), half
        for i in range(half, z + 1):
            d = _divergence(hist, i, self.prop.param.num_quantized_bins)
            if d < best:
                best, best_i = d, i
        assign(out_data[0], req[0], edges[z + best_i + 1])
        assign(out_data[1], req[1], best)
