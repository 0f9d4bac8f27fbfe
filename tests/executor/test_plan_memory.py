"""The memory plan: in place, reuse of freed blocks, and the switch that turns both off."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.executor import simple_bind
from mxlite.executor.plan_memory import plan_memory


def _chain(n=6, width=8):
    h = mx.sym.var("data")
    for i in range(n):
        h = mx.sym.FullyConnected(h, num_hidden=width, name=f"fc{i}")
        h = mx.sym.Activation(h, act_type="tanh", name=f"act{i}")
    return h


def _run(sym, grad_req, seed=0):
    exe = simple_bind(sym, mx.cpu(), grad_req=grad_req, data=(4, 8))
    rng = np.random.default_rng(seed)
    for _name, arr in exe.arg_dict.items():
        arr[:] = rng.standard_normal(arr.shape).astype(np.float32) * 0.5
    out = exe.forward(is_train=grad_req != "null")[0].asnumpy()
    grads = {}
    if grad_req != "null":
        exe.backward(mx.nd.ones(out.shape))
        grads = {k: v.asnumpy() for k, v in exe.grad_dict.items()}
    return exe, out, grads


def test_inference_reuses_blocks_and_goes_in_place():
    exe, _, _ = _run(_chain(), "null")
    plan = exe._plan
    naive = sum(e.nbytes for e in exe._graph.entries if e.kind == "internal")
    assert plan.inplace  # tanh writes over the FullyConnected output
    assert plan.total_bytes <= naive / 4
    assert len(plan.block_bytes) <= 2


def test_training_keeps_what_backward_reads():
    exe, _, _ = _run(_chain(), "write")
    g, plan = exe._graph, exe._plan
    outputs = {e for st in g.forward if st.prop.op_name == "Activation" for e in st.outputs}
    blocks = [plan.storage[e] for e in outputs]
    assert len(set(blocks)) == len(blocks)  # tanh outputs are read by backward: all alive
    inference = plan_memory(g, with_backward=False)
    assert inference.total_bytes < plan.total_bytes


def test_reuse_off_gives_same_results(monkeypatch):
    sym = _chain()
    _, out_on, grads_on = _run(sym, "write")
    monkeypatch.setenv("MXNET_EXEC_ENABLE_INPLACE", "false")
    exe, out_off, grads_off = _run(sym, "write")
    assert not exe._plan.inplace
    naive = sum(e.nbytes for e in exe._graph.entries if e.kind == "internal")
    assert exe._plan.total_bytes == naive
    np.testing.assert_allclose(out_on, out_off, rtol=1e-6)
    for k in grads_on:
        np.testing.assert_allclose(grads_on[k], grads_off[k], rtol=1e-5, atol=1e-6)


def test_bad_setting_names_the_variable(monkeypatch):
    monkeypatch.setenv("MXNET_EXEC_MATCH_RANGE", "-1")
    with pytest.raises(mx.base.MXNetError, match="MXNET_EXEC_MATCH_RANGE.*-1"):
        _run(_chain(2), "null")


@pytest.mark.parametrize("enable", [True, False])
def test_lifetimes_never_overlap_in_a_block(enable, monkeypatch):
    monkeypatch.setenv("MXNET_EXEC_ENABLE_INPLACE", "true" if enable else "false")
    exe, _, _ = _run(_chain(), "write")
    g, plan = exe._graph, exe._plan
    steps = g.forward + g.backward
    first, last = {}, {}
    for i, st in enumerate(steps):
        for e in st.writes():
            first.setdefault(e, i)
            last[e] = max(last.get(e, i), i)
        for e in st.reads():
            last[e] = i
    for e in g.output_eids:
        last[e] = len(steps)
    by_block = {}
    for e, b in enumerate(plan.storage):
        if b >= 0:
            by_block.setdefault(b, []).append(e)
    for ents in by_block.values():
        spans = sorted((first[e], last[e], e) for e in ents)
        for (_s1, l1, _e1), (s2, _l2, e2) in zip(spans, spans[1:]):
            # a later entry starts after the earlier died, or at its last step when in place
            assert s2 > l1 or (s2 == l1 and e2 in plan.inplace)


def test_large_entries_are_placed_first():
    # a (16 KiB) -> b, c (256 B) -> d (8 KiB, the output). Placing in walk order puts c in a's
    # freed block and then has to grow b's block for d (24 KiB); placing the largest first
    # lets d live in a's block once a is dead, and b and c take small blocks of their own.
    h = mx.sym.var("data")
    for i, width in enumerate((1024, 16, 16, 512)):
        h = mx.sym.FullyConnected(h, num_hidden=width, name=f"fc{i}")
    exe = simple_bind(h, mx.cpu(), grad_req="null", data=(4, 8))
    assert sorted(exe._plan.block_bytes) == [256, 256, 16384]


def _conv_bn_relu():
    x = mx.sym.Convolution(mx.sym.var("data"), num_filter=4, kernel=(3, 3), name="conv")
    x = mx.sym.BatchNorm(x, fix_gamma=False, name="bn")
    return mx.sym.Activation(x, act_type="relu", name="relu")


def _bind_conv(grad_req):
    exe = simple_bind(_conv_bn_relu(), mx.cpu(), grad_req=grad_req, data=(2, 3, 6, 6))
    rng = np.random.default_rng(1)
    for _name, arr in exe.arg_dict.items():
        arr[:] = rng.standard_normal(arr.shape).astype(np.float32)
    for arr in exe.aux_dict.values():
        arr[:] = rng.uniform(0.5, 1.5, arr.shape).astype(np.float32)
    return exe


def _entry(exe, name):
    return next(i for i, e in enumerate(exe._graph.entries) if e.name == name)


def test_batchnorm_writes_over_its_input_only_when_nothing_reads_it_later(monkeypatch):
    infer = _bind_conv("null")
    assert _entry(infer, "bn_output") in infer._plan.inplace
    out = infer.forward(is_train=False)[0].asnumpy()
    train = _bind_conv("write")  # the backward of BatchNorm reads its input
    assert _entry(train, "bn_output") not in train._plan.inplace
    monkeypatch.setenv("MXNET_EXEC_ENABLE_INPLACE", "false")
    ref = _bind_conv("null").forward(is_train=False)[0].asnumpy()
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    assert np.any(out > 0)
