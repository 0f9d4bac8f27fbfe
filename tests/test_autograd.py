"""Tests of mx.autograd: gradients against finite differences and against MXNet 1.9.1's values
(tests/golden/autograd.npz, recorded by tools/golden/cases/autograd.py from the cases of
tests/autograd_cases.py), grad_req, retain_graph, head gradients, autograd.grad, Function, modes,
and errors."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd as ag
from mxlite.base import MXNetError

from . import autograd_cases as G
from .golden_file import GoldenFile, load

CASES = {c.name: c for c in G.CASES}


def _needs(*ops: str) -> None:
    for op in ops:
        if not hasattr(mx.nd, op):
            pytest.skip(f"needs {op}")


@pytest.fixture(scope="module")
def golden() -> GoldenFile:
    return load("golden/autograd.npz")


def _case_data(case: Any, golden: GoldenFile) -> tuple[list, list | None, list]:
    """Inputs, head gradients (None for ones) and MXNet's gradients of ``case``."""
    heads = golden.heads(case.name) if case.head_grads else None
    return golden.inputs(case.name), heads, golden.grads(case.name)


def _numeric_grads(case: Any, arrays: list, hgs: list | None, eps: float = 1e-6) -> list:
    """Central differences in float64 of sum_k <head_k, head_grad_k>, at the inputs as they
    are after ``case.prepare``; values passed through ``const`` stay at the unperturbed ones."""
    xs = [mx.nd.array(a) for a in arrays]
    if case.prepare is not None:
        case.prepare(mx, xs)
    base = [x.asnumpy().astype(np.float64) for x in xs]
    saved: list = []

    def record_const(t: Any) -> Any:
        saved.append(t.copy())
        return t

    def loss(values: list, const: Any) -> float:
        nds = [mx.nd.array(v, dtype="float64") for v in values]
        heads = case.fn(mx, nds, const)
        weights = hgs if hgs is not None else [np.ones(h.shape) for h in heads]
        return sum(float((h.asnumpy() * w).sum()) for h, w in zip(heads, weights))

    loss(base, record_const)
    grads = []
    for i, b in enumerate(base):
        g = np.zeros_like(b)
        for j in range(b.size):
            vals = [v.copy() for v in base]
            vals[i].reshape(-1)[j] += eps
            it = iter(saved)
            plus = loss(vals, lambda t, it=it: next(it))
            vals[i].reshape(-1)[j] -= 2 * eps
            it = iter(saved)
            minus = loss(vals, lambda t, it=it: next(it))
            g.reshape(-1)[j] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads


def _skip_unsupported(case: Any, request: Any) -> None:
    _needs(*case.needs)


@pytest.mark.parametrize("name", list(CASES))
def test_gradient_matches_finite_differences(name: str, golden: GoldenFile, request: Any) -> None:
    case = CASES[name]
    _skip_unsupported(case, request)
    arrays, hgs, _ = _case_data(case, golden)
    got = G.run_case(mx, case, arrays, hgs)
    want = _numeric_grads(case, arrays, hgs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", list(CASES))
def test_gradient_matches_mxnet(name: str, golden: GoldenFile, request: Any) -> None:
    case = CASES[name]
    _skip_unsupported(case, request)
    arrays, hgs, want = _case_data(case, golden)
    got = G.run_case(mx, case, arrays, hgs)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_mlp_with_sgd_follows_mxnet_loss_curve(golden: GoldenFile) -> None:
    _needs("dot", "sum")
    data = {k: golden[f"train/{k}"] for k in G.TRAIN_SHAPES}
    losses = G.train(mx, data)
    assert losses.shape == (G.STEPS,)
    np.testing.assert_allclose(losses, golden["train/loss"], rtol=1e-4)
    assert losses[-1] < losses[3]  # it learns: the same batch, 16 updates later


# ---- grad_req ---------------------------------------------------------------------------------


def _var(values: Any, grad_req: str = "write") -> Any:
    x = mx.nd.array(values)
    x.attach_grad(grad_req=grad_req)
    return x


def test_grad_req_add_accumulates_over_backward_calls() -> None:
    x = _var([1.0, 2.0, 3.0], "add")
    for k in (1.0, 2.0, 3.0):
        with ag.record():
            y = x * x * k
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [12.0, 24.0, 36.0])  # 2x (1 + 2 + 3)


def test_grad_req_write_overwrites() -> None:
    x = _var([1.0, 2.0, 3.0])
    for k in (5.0, 2.0):
        with ag.record():
            y = x * k
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 2.0, 2.0])


def test_grad_req_null_leaves_grad_alone() -> None:
    x, w = _var([1.0, 2.0, 3.0], "null"), _var([2.0, 2.0, 2.0])
    x.grad[:] = 7
    with ag.record():
        y = x * w
    y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.asnumpy(), [7.0, 7.0, 7.0])


def test_unreached_variable_keeps_its_grad() -> None:
    a, u = _var([1.0, 2.0]), _var([5.0])
    u.grad[:] = 7
    with ag.record():
        y = a * 2
        _ = u * 1  # recorded, but not part of y's graph
    y.backward()
    np.testing.assert_allclose(u.grad.asnumpy(), [7.0])
    np.testing.assert_allclose(a.grad.asnumpy(), [2.0, 2.0])


def test_gradient_written_into_grad_buffer() -> None:
    # a variable's only gradient is written by its operator into .grad itself (no copy)
    x = _var([1.0, -2.0, 3.0])
    buf = x.grad
    with ag.record():
        y = mx.nd.relu(x) * 3
    y.backward()
    assert x.grad is buf
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 0.0, 3.0])


def test_grad_buffer_read_by_the_graph_keeps_its_old_value() -> None:
    # y = x * x.grad reads the buffer the gradient is written to: the backward must read the
    # value it had during the forward
    x = _var([1.0, 2.0])
    x.grad[:] = 3
    with ag.record():
        y = x * x.grad
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 3.0])


def test_variable_used_by_two_operators_gets_the_sum() -> None:
    x = _var([1.0, 2.0])
    with ag.record():
        y = mx.nd.relu(x) + x * 4
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [5.0, 5.0])
    with ag.record():
        z = x * x
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0])


def test_attach_grad_rejects_bad_arguments() -> None:
    x = mx.nd.array([1.0])
    with pytest.raises(MXNetError, match="grad_req"):
        x.attach_grad(grad_req="sometimes")
    with pytest.raises(MXNetError, match="attach_grad.*stype"):
        x.attach_grad(stype="sparse")


def test_mark_variables_counts_must_match() -> None:
    x = mx.nd.array([1.0])
    with pytest.raises(MXNetError, match="mark_variables"):
        ag.mark_variables([x, x], [mx.nd.zeros((1,))])


# ---- retain_graph, heads ----------------------------------------------------------------------


def test_retain_graph_allows_a_second_backward() -> None:
    x = _var([1.0, 2.0, 3.0], "add")
    with ag.record():
        y = x * x
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [4.0, 8.0, 12.0])


def test_second_backward_without_retain_graph_raises() -> None:
    x = _var([1.0, 2.0])
    with ag.record():
        y = x * x
    y.backward()
    with pytest.raises(MXNetError, match="backward"):
        y.backward()


@pytest.mark.parametrize("where", ["outside", "paused", "no_variable"])
def test_backward_on_unrecorded_array_raises(where: str) -> None:
    x = _var([1.0, 2.0])
    if where == "outside":
        y = x * 2
    elif where == "paused":
        with ag.record(), ag.pause():
            y = x * 2
    else:
        with ag.record():
            y = mx.nd.array([1.0, 2.0]) * 2
    with pytest.raises(MXNetError, match="backward.*not in a computational graph"):
        y.backward()


def test_head_grads_of_wrong_shape_raise() -> None:
    x = _var([1.0, 2.0])
    with ag.record():
        y = x * x
    with pytest.raises(MXNetError, match=r"backward.*\(2,\).*\(3,\)"):
        y.backward(mx.nd.ones((3,)))
    with pytest.raises(MXNetError, match="backward"):
        ag.backward([y], [mx.nd.ones((2,)), mx.nd.ones((2,))])


def test_several_heads_with_a_missing_head_grad() -> None:
    a = _var([1.0, 2.0])
    with ag.record():
        h1, h2 = a * a, a * 3
    ag.backward([h1, h2], [None, mx.nd.array([2.0, 2.0])])  # None: ones for that head
    np.testing.assert_allclose(a.grad.asnumpy(), [8.0, 10.0])


def test_backward_inside_record() -> None:
    a = _var([1.0, 2.0])
    with ag.record():
        y = a * a
        y.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), [2.0, 4.0])


def test_inplace_update_after_recording_is_seen_by_backward() -> None:
    # MXNet 1.9.1 gives [4, 6, 8]: backward reads x's memory as it is when backward runs
    x = _var([1.0, 2.0, 3.0])
    with ag.record():
        y = x * x
    x += 1
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [4.0, 6.0, 8.0])


@pytest.mark.parametrize("target", ["intermediate", "variable"])
def test_inplace_update_while_recording_raises(target: str) -> None:
    x = _var([1.0, 2.0, 3.0])
    with pytest.raises(MXNetError, match="Inplace operations"), ag.record():
        y = x * x
        if target == "intermediate":
            y += 1
        else:
            x += 1


def test_variable_updated_inplace_while_recording_fails_loudly_later_too() -> None:
    x = _var([1.0, 2.0, 3.0])
    with pytest.raises(MXNetError), ag.record():
        x *= 2
    with ag.record():
        y = x * 3
    y.backward()  # x is still a variable: the failed update must not have cut it off
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 3.0, 3.0])


def test_detach_shares_data_and_leaves_the_graph() -> None:
    x = _var([1.0, 2.0])
    with ag.record():
        y = x * x
        d = y.detach()
    np.testing.assert_allclose(d.asnumpy(), [1.0, 4.0])
    with pytest.raises(MXNetError, match="backward"):
        d.backward()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0])


def test_recording_keeps_only_what_backward_reads() -> None:
    x, w = _var([1.0, 2.0]), _var([3.0, 4.0])
    with ag.record():
        s = x + w  # the gradient of + reads only the output gradient
        p = s * w  # that of * reads both inputs
    node_s, node_p = s._ag[0], p._ag[0]
    assert node_s.in_data == [None, None] and node_s.out_data == [None]
    assert all(a is not None for a in node_p.in_data) and node_p.out_data == [None]


# ---- autograd.grad ----------------------------------------------------------------------------


def test_grad_returns_gradients_without_touching_grad() -> None:
    x, w = _var([1.0, 2.0, 3.0]), _var([1.0, 1.0, 2.0])
    x.grad[:] = 9
    with ag.record():
        y = x * x * w
    gx, gw = ag.grad(y, [x, w], head_grads=mx.nd.array([1.0, 0.5, 2.0]))
    np.testing.assert_allclose(gx.asnumpy(), [2.0, 2.0, 24.0])
    np.testing.assert_allclose(gw.asnumpy(), [1.0, 2.0, 18.0])
    np.testing.assert_allclose(x.grad.asnumpy(), [9.0, 9.0, 9.0])
    np.testing.assert_allclose(w.grad.asnumpy(), [0.0, 0.0, 0.0])


def test_grad_of_one_variable_returns_a_list_as_mxnet() -> None:
    # MXNet 1.9.1 rebinds `variables` to a list before testing it, so it always returns a list
    x = _var([1.0, 2.0])
    with ag.record():
        y = x * x * x
    out = ag.grad(y, x)
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_allclose(out[0].asnumpy(), [3.0, 12.0])


def test_grad_frees_the_graph_unless_retained() -> None:
    x = _var([1.0, 2.0])
    with ag.record():
        y = x * x
    ag.grad(y, [x], retain_graph=True)
    (g,) = ag.grad(y, [x])
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])
    with pytest.raises(MXNetError, match="backward"):
        ag.grad(y, [x])


# ---- Function ---------------------------------------------------------------------------------


class _StraightThrough(ag.Function):
    """Forward rounds; backward passes the gradient through (not the chain rule's zero)."""

    def forward(self, x: Any) -> Any:
        self.save_for_backward(x)
        return (x > 0) * 1.0

    def backward(self, dy: Any) -> Any:
        (x,) = self.saved_tensors
        return dy * (x * 0 + 1)


def test_function_uses_its_own_backward() -> None:
    x = _var([-1.0, 0.5, 2.0])
    with ag.record():
        y = _StraightThrough()(x) * 3
    np.testing.assert_allclose(y.asnumpy(), [0.0, 3.0, 3.0])
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 3.0, 3.0])


def test_function_instance_is_single_use() -> None:
    f, x = _StraightThrough(), _var([1.0])
    with ag.record():
        f(x)
        with pytest.raises(MXNetError, match="Function"):
            f(x)


def test_function_backward_must_return_one_gradient_per_input() -> None:
    class Bad(ag.Function):
        def forward(self, a: Any, b: Any) -> Any:
            return a * b

        def backward(self, dy: Any) -> Any:
            return dy

    a, b = _var([1.0]), _var([2.0])
    with ag.record():
        y = Bad()(a, b)
    with pytest.raises(MXNetError, match="Function.backward.*2"):
        y.backward()


def test_function_outside_record_is_plain() -> None:
    x = _var([-1.0, 2.0])
    y = _StraightThrough()(x)
    np.testing.assert_allclose(y.asnumpy(), [0.0, 1.0])
    with pytest.raises(MXNetError, match="backward"):
        y.backward()


# ---- modes ------------------------------------------------------------------------------------


def test_modes_and_setters_as_mxnet() -> None:
    # expected values printed by MXNet 1.9.1 for the same sequence of calls
    assert (ag.is_recording(), ag.is_training()) == (False, False)
    assert (ag.set_recording(True), ag.set_recording(True), ag.set_recording(False)) == (
        False,
        True,
        True,
    )
    assert (ag.set_training(True), ag.set_training(False)) == (False, True)
    with ag.record():
        assert (ag.is_recording(), ag.is_training()) == (True, True)
        with ag.pause():
            assert (ag.is_recording(), ag.is_training()) == (False, False)
        with ag.predict_mode():
            assert (ag.is_recording(), ag.is_training()) == (True, False)
    with ag.record(train_mode=False):
        assert (ag.is_recording(), ag.is_training()) == (True, False)
        with ag.train_mode():
            assert (ag.is_recording(), ag.is_training()) == (True, True)
    assert (ag.is_recording(), ag.is_training()) == (False, False)


def test_scopes_restore_state_after_an_exception() -> None:
    with pytest.raises(ZeroDivisionError), ag.record():
        1 / 0  # noqa: B018
    assert (ag.is_recording(), ag.is_training()) == (False, False)


def test_pause_inside_record_makes_constants() -> None:
    x = _var([1.0, 2.0])
    with ag.record():
        with ag.pause():
            c = x * x
        y = c * x
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [1.0, 4.0])


# ---- errors inside backward kernels ------------------------------------------------------------

_BAD = "_test_autograd_failing_grad"  # _test_*: left out of the ONNX coverage test
_lock = threading.Lock()


def _bad_op() -> Any:
    from mxlite.operator import registry
    from mxlite.operator.simple_op import simple_op

    def gradient(xp: Any, out_grad: Any, env: Any) -> Any:
        raise ValueError("gradient kernel failed on purpose")

    with _lock:
        if registry.find(_BAD) is None:
            simple_op(_BAD, forward=lambda xp, x, env, out: x * 2, gradient=gradient)
    return getattr(mx.nd._internal, _BAD)


@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_error_in_backward_kernel_surfaces_at_next_wait(grad_req: str) -> None:
    op = _bad_op()
    x = _var([1.0, 2.0], grad_req)
    with ag.record():
        y = op(x)
    np.testing.assert_allclose(y.asnumpy(), [2.0, 4.0])
    y.backward()  # asynchronous: the kernel's failure is stored, not raised here
    with pytest.raises(MXNetError, match=f"_backward_{_BAD}.*failed on purpose"):
        x.grad.asnumpy()


def test_error_in_backward_kernel_reaches_grad_results() -> None:
    op = _bad_op()
    x = _var([1.0, 2.0])
    with ag.record():
        y = op(x) * x
    (g,) = ag.grad(y, [x])
    with pytest.raises(MXNetError, match="failed on purpose"):
        g.wait_to_read()


# ---- layers that depend on training mode -------------------------------------------------------


def test_dropout_gradient_follows_its_mask() -> None:
    _needs("Dropout")
    x = _var(np.ones((4, 50)))
    with ag.record():
        y = mx.nd.Dropout(x, p=0.5)
    y.backward()
    out = y.asnumpy()
    assert 0 < (out == 0).sum() < out.size  # training mode: some dropped, some kept
    np.testing.assert_allclose(x.grad.asnumpy(), out)  # d(mask * x / (1-p))/dx = y / x
    with ag.record(train_mode=False):
        y = mx.nd.Dropout(x, p=0.5)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.ones((4, 50)))


def test_batchnorm_gradient_uses_batch_statistics_in_training() -> None:
    _needs("BatchNorm")
    rng = np.random.RandomState(0)
    x = _var(rng.uniform(-1, 1, (6, 3)).astype(np.float32))
    gamma, beta = mx.nd.ones((3,)), mx.nd.zeros((3,))
    with ag.record():
        y = mx.nd.BatchNorm(x, gamma, beta, mx.nd.zeros((3,)), mx.nd.ones((3,)), fix_gamma=False)
    y.backward()  # the batch-normalised columns always sum to 0, whatever x
    np.testing.assert_allclose(x.grad.asnumpy(), np.zeros((6, 3)), atol=1e-4)
    with ag.record(train_mode=False):  # fresh moving statistics: training updated the others
        y = mx.nd.BatchNorm(x, gamma, beta, mx.nd.zeros((3,)), mx.nd.ones((3,)), fix_gamma=False)
    # inference (forward and backward): a fixed affine map, slope 1 / sqrt(moving_var + eps);
    # a backward in training mode would use the batch statistics instead, as MXNet 1.9.1 does
    y.backward(train_mode=False)
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((6, 3), 1 / np.sqrt(1 + 1e-3)), rtol=1e-5)


def test_backward_through_an_array_of_an_earlier_cut_graph():
    """MXNet's test_cached: an array computed in a graph that an earlier backward (without
    retain_graph) freed is a constant of the next graph, not an error."""
    w = mx.nd.ones((2,))
    w.attach_grad()
    with mx.autograd.record():
        b = w + 1
        (b * 2).backward()
    with mx.autograd.record():
        c = b + 1
        o = (c * w) * 2
        o.backward(retain_graph=True)
        o.backward()
    np.testing.assert_array_equal(w.grad.asnumpy(), [6.0, 6.0])


def test_a_marked_array_and_its_gradient_are_freed_when_dropped_without_the_cycle_collector():
    # the variable's node held the array that holds the node: every attach_grad'ed array (and
    # its .grad) lived until the cycle collector ran, a full input and gradient per step in
    # MXNet's test_slice_pooling2d
    gc.disable()
    try:
        x = mx.nd.ones((3, 4))
        x.attach_grad()
        with ag.record():
            y = (x * 2).sum()
        y.backward()
        assert x.grad.asnumpy().tolist() == [[2.0] * 4] * 3
        refs = [weakref.ref(x), weakref.ref(x.grad)]
        del x, y
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()
