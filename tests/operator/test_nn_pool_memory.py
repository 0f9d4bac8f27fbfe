"""Memory of slicing then pooling, the pattern of MXNet's test_gluon.py::test_slice_pooling2d
(which grew a process to 22 GB here): no operator allocates work arrays that grow with the
input times the window or with the unsliced input, and no step keeps its arrays alive after
they are dropped (MXNet's memory stays at the size of the inputs and outputs)."""

from __future__ import annotations

import gc
import tracemalloc
from math import prod

import pytest

import mxlite as mx
from mxlite.gluon import nn

# MXNet's test slices (4, 16, 32, 64) out of (16, 128, 256, 256); here the input is smaller
# (8 MiB) but still 16 times the slice, so a copy of the unsliced input breaks the bound
X_SHAPE = (8, 32, 64, 128)
SLICE = (4, 16, 32, 64)

LAYERS = {
    "max": lambda layout: nn.MaxPool2D(strides=(2, 3), padding=(1, 1), layout=layout),
    "avg": lambda layout: nn.AvgPool2D(strides=(2, 2), padding=(1, 1), layout=layout),
    "global_max": lambda layout: nn.GlobalMaxPool2D(layout=layout),
    "global_avg": lambda layout: nn.GlobalAvgPool2D(layout=layout),
}


def _channels_last(shape: tuple) -> tuple:
    return (shape[0], *shape[2:], shape[1])


class _SlicePool(mx.gluon.HybridBlock):
    def __init__(self, end: tuple, pool: nn.HybridBlock, **kwargs) -> None:
        super().__init__(**kwargs)
        self.end = end
        with self.name_scope():
            self.pool = pool

    def hybrid_forward(self, F, x):
        return self.pool(x.slice(begin=(0, 0, 0, 0), end=self.end))


def _setup(layout: str, layer: str, hybridize: bool) -> tuple[_SlicePool, tuple]:
    x_shape, end = X_SHAPE, SLICE
    if layout == "NHWC":
        x_shape, end = _channels_last(x_shape), _channels_last(end)
    net = _SlicePool(end, LAYERS[layer](layout))
    net.initialize()
    if hybridize:
        net.hybridize()
    return net, x_shape


def _step(net: _SlicePool, x: mx.nd.NDArray) -> mx.nd.NDArray:
    with mx.autograd.record():
        out = net(x)
    out.backward()
    mx.nd.waitall()
    return out


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_slice_then_pool_peak_stays_near_the_slice_and_output(layout, layer, hybridize) -> None:
    net, x_shape = _setup(layout, layer, hybridize)
    x = mx.nd.random.uniform(shape=x_shape)
    x.attach_grad()
    out = _step(net, x)  # builds the graph and the kernels' caches
    del out
    mx.nd.waitall()
    mx.cpu().empty_cache()  # idle pool blocks would hide the step's allocations
    tracemalloc.start()
    try:
        out = _step(net, x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    sliced, pooled = 4 * prod(SLICE), 4 * out.size
    # the slice, its gradient, the output and its head gradient, the pooling kernels'
    # blocks (and, channels last, a channel-first copy of the slice and of its gradient); a
    # work array of the input's size, or of the slice times the window, is several times more
    assert peak <= 6 * (sliced + pooled) + (256 << 10), (peak, sliced, pooled)


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_steps_on_fresh_arrays_keep_nothing_without_the_cycle_collector(hybridize) -> None:
    # MXNet's check_layer_forward_withinput: a fresh input with a gradient per step. A marked
    # array and its gradient, or a bulked backward's buffers, kept alive by reference cycles
    # grew the process by both of them per step until the collector happened to run
    net, x_shape = _setup("NCHW", "max", hybridize)
    x_bytes = 4 * prod(x_shape)
    gc.collect()
    mx.cpu().empty_cache()  # idle pool blocks would serve the leaked arrays' successors
    gc.disable()
    tracemalloc.start()
    try:
        for i in range(4):
            x = mx.nd.random.uniform(shape=x_shape)
            x.attach_grad()
            out = _step(net, x)
            del x, out
            mx.nd.waitall()
            if i == 0:
                base = tracemalloc.get_traced_memory()[0]
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
        gc.enable()
    assert grown < x_bytes, (grown, x_bytes)


@pytest.fixture
def unpooled(monkeypatch):
    """Storage without a pool: idle blocks of other sizes would count as held memory."""
    from mxlite import storage

    monkeypatch.setenv("MXNET_CPU_MEM_POOL_TYPE", "Unpooled")
    storage._reset()
    yield
    monkeypatch.delenv("MXNET_CPU_MEM_POOL_TYPE")
    storage._reset()


@pytest.mark.parametrize("record", [False, True], ids=["inference", "recorded"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_hybridized_block_called_with_many_shapes_holds_no_memory_per_shape(
    unpooled, monkeypatch, layout, record
) -> None:
    # a hybridized block (no static_alloc) called with several input shapes, as MXNet's
    # test_slice_pooling2d calls one per layer: its executors kept a copy of each shape's
    # input, its gradient and the planned blocks, so the memory held grew with every shape
    from mxlite.executor import cached_op

    monkeypatch.setattr(cached_op, "KEEP_BELOW", 1 << 20)  # MXNet's inputs were 512 MiB
    end = SLICE if layout == "NCHW" else _channels_last(SLICE)
    net = _SlicePool(end, LAYERS["avg"](layout))
    net.initialize()
    net.hybridize(inline_limit=0)  # recorded, two operators would run one by one
    shapes = [(8, 32, 64, 128), (4, 16, 64, 96), (6, 24, 48, 80), (5, 20, 40, 64)]
    if layout == "NHWC":
        shapes = [_channels_last(s) for s in shapes]
    xs = [mx.nd.random.uniform(shape=s) for s in shapes]
    if record:
        for x in xs:
            x.attach_grad()
    mx.nd.waitall()
    x_bytes = max(4 * x.size for x in xs)

    def call(x: mx.nd.NDArray) -> int:
        if not record:
            out = net(x)
            mx.nd.waitall()
            return 4 * out.size
        out = _step(net, x)
        return 4 * out.size

    call(xs[0])  # traces the graph
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out_bytes = max(call(x) for x in xs)
        mx.nd.waitall()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # a call needs its slice, the pooled output (recorded: their gradients, and the input's
    # gradient written into x.grad): a kept copy of any input breaks both bounds
    assert peak - base <= 2 * (x_bytes + out_bytes) + (512 << 10), (peak - base, x_bytes)
    assert held - base <= out_bytes + (256 << 10), (held - base, out_bytes)
