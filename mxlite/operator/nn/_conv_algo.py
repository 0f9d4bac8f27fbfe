"""Which algorithm computes each convolution: im2col (``_conv_util``), Winograd F(2x2,3x3) /
F(4x4,3x3) (``_winograd``) or, for float32 inference forwards, onnxruntime's convolution
(``_onnxruntime``), chosen once per shape by timing them, as MXNet's ``cudnn_tune='fastest'``
does on GPU.

Design note
-----------
Convolution and Deconvolution call the three kernels here (same signatures as ``_conv_util``'s).
Winograd applies to 2-D 3x3 kernels at stride 1 without dilation, float32 on NumPy (any padding,
groups other than depthwise, and batch; the data gradient, a convolution padded by 2 - pad,
needs ``pad <= 2``); float64 stays on im2col, whose error is the direct sum's. Which one
runs is decided by ``MXLITE_CONV_ALGO`` (``auto``, the default; ``im2col``, ``winograd2``,
``winograd4``, ``onnxruntime`` force one, where it applies, else im2col). Under ``auto`` the
first call of a (kernel, shapes, geometry) runs every candidate three times (interleaved) on
fresh outputs, times the last two (the first makes what the candidate keeps), keeps the
fastest in :data:`_chosen` for the rest of the process and hands its result on; later calls
run only that one. Measured on a 2-core VM (forward and both gradients, batch 32,
``benchmarks/conv_layers.py``), Winograd ran ResNet's 3x3 layers 1.4-2.1x faster than im2col (64
to 512 channels on 56 to 7 px) and DenseNet's 128->32 1.4x, while im2col stayed ahead for
128-512 channels at batch 1 (ResNet-50 inference: the transformed kernel, 4x the weights, is
made on each call and costs more than the multiplies it saves), for tiny images, for depthwise
layers, and for what Winograd does not cover (1x1, strided, dilated); no fixed rule of shapes
captured that boundary, so it is measured. The choice does not change results beyond float32
rounding (outputs and gradients within 1e-5 of the output scale, see ``_winograd``).

Transformed kernels: an inference forward (``is_train=False``) that knows its weight's engine
var (``OpContext.in_vars``: the executor, hence hybridized Gluon, and ``mx.nd`` calls) keeps
Winograd's ``U = G g G^T`` in :data:`_kernels` under the var, the view of the weight (shape,
strides, address) and the tile, and reuses it while the var's version (its count of completed
writes: ``set_data``, an optimizer update, ``w[:] = ...``) is unchanged. The entry goes with
the var (a weak key: a weight's chunk dies, so does its cache); a new version replaces the old
one. Auto tunes such calls separately (a ``cached`` flag in the key): its timed runs find the
kernel made, so the choice weighs Winograd without the transform, which is what later calls
pay (and onnxruntime without making its session: timing that run too had MobileNet v2's
small layers chosen by one noisy run, 16-25 ms a call from one process to the next). At
batch 1 that moves ResNet-50's 128-512 channel layers to Winograd.

onnxruntime: with the ``[onnx]`` extra installed, a float32 inference forward (channels first,
any kernel, stride, dilation, padding, groups, 1-D to 3-D) may run on an onnxruntime session
that holds the weight as a constant (packed once; kept in :data:`_kernels` like Winograd's
kernel, so a written weight makes a new one) and the fused epilogue, writing into the output
array; the session is made at the second inference call that finds the weight unchanged, so a
weight written between calls (inference between training steps) runs im2col instead of paying
1-60 ms a layer to pack it each time. Its MLAS kernels run a single image's layers at about half
the time of NumPy's BLAS (ResNet-50 at batch 1 on 2 cores: 79 -> 55-62 ms), where the products
are thin and split poorly; with as many images as threads they ran the network slower than
im2col and Winograd (batch 16: 780 against 726 ms: they write the output, then add the residual
and relu in more passes over it), so ``auto`` offers it only below the thread count, while
``MXLITE_CONV_ALGO=onnxruntime`` forces it at any batch. Its sessions have their own threads,
which sleep between calls: onnxruntime's one shared pool spins after each call (a spinning pool
burnt 39 ms of CPU in the 300 ms after one call) and took the cores from NumPy's kernels
(ResNet-50 at batch 16: 1,130 ms against 726). The cost is memory and threads: a session holds
its weight packed and one thread; ResNet-50 at batch 1 peaked at 796 MB of resident memory
instead of 589 MB (MXNet: 494 MB), with 31 more threads.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ...base import Shape, env_str
from ..parallel import num_threads
from . import _conv_util as cu
from . import _onnxruntime as ort
from . import _winograd as wg

__all__ = ["ALGORITHMS", "conv_forward", "conv_data_grad", "conv_weight_grad"]

ALGORITHMS = ("auto", "im2col", "winograd2", "winograd4", "onnxruntime")
_TILE = {"winograd2": 2, "winograd4": 4}
# (kernel, geometry, shapes) -> the fastest algorithm measured. Written by whichever engine
# worker first runs a shape (a dict store is atomic; two workers tuning the same shape at once
# only both measure it)
_chosen: dict[tuple, str] = {}

# weight var -> {(tile, groups, shape, strides, address): (version, U)}; see the design note
_kernels: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# weight var -> the version its last inference forward on onnxruntime's path saw (_steady)
_seen: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_kernels_lock = threading.Lock()

# runs of each candidate, interleaved, whose fastest counts: on a machine shared with other
# work one run each let a burst of load decide (it sent ResNet's 64-channel data gradient to
# im2col, which took 1.2x Winograd's time when measured again)
_TIMINGS = 2

# a candidate: fn(out, add) -> the result (written into out, or added to it, when given)
Run = Callable[[Any, bool], Any]


def _applies(
    xp: Any, geom: cu.Geometry, dtype: Any, w_shape: Shape, n: int, spatial: Shape, out: Shape
) -> bool:
    """Whether Winograd may compute this convolution: ``spatial`` its input size, ``out`` its
    output size (``spatial + 2*pad - 2``, not a cropped one). Not depthwise (one channel per
    group): its im2col kernel is a multiply-add per kernel offset, which ran 2-5x faster than
    either tile size in each direction (MobileNet's 64 channels on 56x56, batch 32)."""
    return (
        xp is np
        and (w_shape[1] > 1 or geom.groups == 1)
        and dtype == np.float32
        and geom.kernel == (3, 3)
        and geom.stride == (1, 1)
        and geom.dilate == (1, 1)
        and n > 0
        and all(o == s + 2 * p - 2 for o, s, p in zip(out, spatial, geom.pad))
    )


def _kernel(var: Any, w: Any, tag: Any, make: Callable[[], Any] | None) -> Any:
    """What ``make()`` builds from ``w`` (Winograd's transformed kernel, tagged by its tile, or
    an onnxruntime session), from :data:`_kernels` when ``var`` (the engine var of ``w``'s
    chunk, held for reading by the caller) has not been written since; ``make`` None: only
    look (None where nothing is kept)."""
    version = var.version
    key = (tag, w.shape, w.strides, w.__array_interface__["data"][0])
    with _kernels_lock:
        entries = _kernels.get(var)
        hit = None if entries is None else entries.get(key)
    if hit is not None and hit[0] == version:
        return hit[1]
    if make is None:
        return None
    made = make()
    with _kernels_lock:
        entries = _kernels.setdefault(var, {})
        for k in [k for k, e in entries.items() if e[0] != version]:
            del entries[k]  # made from contents overwritten since
        entries[key] = (version, made)
    return made


def _steady(var: Any) -> bool:
    """Whether ``var``'s weight held this version at its previous inference forward without a
    session too (and note this one): onnxruntime packs a weight only then, not one written
    between calls."""
    version = var.version
    with _kernels_lock:
        steady = _seen.get(var) == version
        _seen[var] = version
    return steady


def _drop_others(var: Any, algo: str) -> None:
    """Keep only what the algorithm auto chose (``algo``) made for ``var``'s weight."""
    with _kernels_lock:
        entries = _kernels.get(var)
        if entries is not None:
            for k in [k for k in entries if k[0][0] != algo]:
                del entries[k]


def _setting() -> str:
    """``MXLITE_CONV_ALGO``, read at every convolution (a bad value fails at the first)."""
    return env_str("MXLITE_CONV_ALGO", "auto", ALGORITHMS)


def _run(setting: str, key: tuple, runs: dict[str, Run], out: Any, add: bool) -> Any:
    if setting != "auto":
        return runs.get(setting, runs["im2col"])(out, add)
    algo = _chosen.get(key)
    if algo is not None:
        return runs[algo](out, add)
    results: dict[str, Any] = {}
    times: dict[str, float] = {}
    for timing in range(_TIMINGS + 1):
        for name, fn in runs.items():
            start = time.perf_counter()
            results[name] = fn(None, False)
            spent = time.perf_counter() - start
            if timing:  # the first run of each makes what it keeps (a kernel, a session)
                times[name] = min(times.get(name, spent), spent)
    best = min(times, key=times.__getitem__)
    _chosen[key] = best
    if out is None:
        return results[best]
    if add:
        out += results[best]
    else:
        out[...] = results[best]
    return out


def _onnxruntime_applies(
    setting: str, xp: Any, geom: cu.Geometry, x: Any, weight_var: Any, out: Shape
) -> bool:
    """Whether onnxruntime may compute this forward: float32 on NumPy, channels first, an
    inference forward whose weight's engine var is known (its session holds the weight packed,
    kept while the var is unchanged), onnxruntime installed; under ``auto`` only for fewer
    images than threads (see the design note)."""
    if setting not in ("auto", "onnxruntime"):
        return False
    if setting == "onnxruntime":
        ort.require("MXLITE_CONV_ALGO=onnxruntime")
    return (
        xp is np
        and weight_var is not None
        and x.dtype == np.float32
        and not geom.channels_last
        and x.shape[0] > 0
        and (setting == "onnxruntime" or x.shape[0] < max(2, num_threads()))
        and all(
            o == (s + 2 * p - k) // st + 1
            for o, s, p, k, st in zip(out, x.shape[2:], geom.pad, geom.dilated(), geom.stride)
        )
        and ort.modules() is not None
    )


def conv_forward(
    xp: Any,
    x: Any,
    w: Any,
    geom: cu.Geometry,
    out_spatial: Shape,
    out: Any = None,
    bias: Any = None,
    weight_var: Any = None,
    residual: Any = None,
    relu: bool = False,
) -> Any:
    """:func:`_conv_util.conv_forward` by the algorithm chosen for its shape; ``weight_var``:
    the engine var of ``w``'s chunk when what an algorithm derives from the weight may be
    cached (an inference forward, see the design note); ``residual`` and ``relu``: the fused
    epilogue."""

    def im2col(out: Any, add: bool) -> Any:
        return cu.conv_forward(
            xp, x, w, geom, out_spatial, out=out, bias=bias, residual=residual, relu=relu
        )

    setting = _setting()
    runs: dict[str, Run] = {"im2col": im2col}
    if _applies(xp, geom, x.dtype, w.shape, x.shape[0], x.shape[2:], tuple(out_spatial)):
        for name, m in _TILE.items():

            def winograd(out: Any, add: bool, name: str = name, m: int = m) -> Any:
                if out is None:
                    out = xp.empty((x.shape[0], w.shape[0], *out_spatial), x.dtype)
                u = None
                if weight_var is not None:
                    groups = geom.groups
                    u = _kernel(
                        weight_var,
                        w,
                        (name, groups),
                        lambda: wg.kernel_transform(np, wg.transform(m), w, groups),
                    )
                return wg.forward(
                    xp, x, w, geom.pad, m, out, bias, kernel=u, residual=residual, relu=relu
                )

            runs[name] = winograd
    if _onnxruntime_applies(setting, xp, geom, x, weight_var, tuple(out_spatial)):

        def onnxruntime(out: Any, add: bool) -> Any:
            flags = (bias is not None, residual is not None, relu)
            tag = ("onnxruntime", geom, flags)
            conv = _kernel(weight_var, w, tag, None)
            if conv is None:
                if not _steady(weight_var):
                    # a weight written since its last inference call (inference between
                    # training steps): packing it (1-60 ms a layer) costs more than it saves
                    return im2col(out, add)
                conv = _kernel(weight_var, w, tag, lambda: ort.ConvSession(w, geom, *flags))
            if out is None:
                out = xp.empty((x.shape[0], w.shape[0], *out_spatial), x.dtype)
            return conv(x, bias, residual, out)

        runs["onnxruntime"] = onnxruntime
    if len(runs) == 1:
        return im2col(out, False)
    key = ("forward", geom, x.shape, w.shape, bias is None, weight_var is not None)
    tuned = setting == "auto" and key in _chosen
    result = _run(setting, key, runs, out, False)
    if weight_var is not None and setting == "auto" and not tuned:
        _drop_others(weight_var, _chosen[key])
    return result


def conv_data_grad(
    xp: Any,
    dy: Any,
    w: Any,
    geom: cu.Geometry,
    in_spatial: Shape,
    out: Any = None,
    add: bool = False,
) -> Any:
    """:func:`_conv_util.conv_data_grad` by the algorithm chosen for its shape: Winograd runs
    the forward convolution of ``dy`` with the flipped kernel."""

    def im2col(out: Any, add: bool) -> Any:
        return cu.conv_data_grad(xp, dy, w, geom, in_spatial, out=out, add=add)

    setting = _setting()
    if max(geom.pad) > 2 or not _applies(
        xp, geom, dy.dtype, w.shape, dy.shape[0], in_spatial, dy.shape[2:]
    ):
        return im2col(out, add)
    pad = tuple(2 - p for p in geom.pad)
    runs: dict[str, Run] = {"im2col": im2col}
    for name, m in _TILE.items():

        def winograd(out: Any, add: bool, m: int = m) -> Any:
            if out is None:
                out, add = (
                    xp.empty((dy.shape[0], w.shape[1] * geom.groups, *in_spatial), dy.dtype),
                    False,
                )
            wt = cu.flipped_weight(xp, w, geom)
            return wg.forward(xp, dy, wt, pad, m, out, add=add)

        runs[name] = winograd
    key = ("data", geom, dy.shape, w.shape, tuple(in_spatial))
    return _run(setting, key, runs, out, add)


def conv_weight_grad(
    xp: Any, x: Any, dy: Any, geom: cu.Geometry, w_shape: Shape, bias_grad: bool = False
) -> Any:
    """:func:`_conv_util.conv_weight_grad` by the algorithm chosen for its shape."""

    def im2col(out: Any, add: bool) -> Any:
        return cu.conv_weight_grad(xp, x, dy, geom, w_shape, bias_grad=bias_grad)

    setting = _setting()
    if not _applies(xp, geom, x.dtype, w_shape, x.shape[0], x.shape[2:], dy.shape[2:]):
        return im2col(None, False)
    runs: dict[str, Run] = {"im2col": im2col}
    for name, m in _TILE.items():

        def winograd(out: Any, add: bool, m: int = m) -> Any:
            return wg.weight_grad(xp, x, dy, geom.pad, m, w_shape, bias_grad)

        runs[name] = winograd
    key = ("weight", geom, x.shape, dy.shape, bias_grad)
    return _run(setting, key, runs, None, False)
