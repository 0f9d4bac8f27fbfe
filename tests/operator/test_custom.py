"""Python custom operators: mx.operator.CustomOp / CustomOpProp / register and mx.nd.Custom."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.operator import GradNeeds, simple_op

# ---- operators used by the tests -----------------------------------------------------------

SEEN_KWARGS: list[dict] = []


class _Scale(mx.operator.CustomOp):
    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * self.scale)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        # deliberately not the true gradient: autograd must use what the user computes
        self.assign(in_grad[0], req[0], out_grad[0] * self.scale + in_data[0])


@mx.operator.register("test_scale")
class _ScaleProp(mx.operator.CustomOpProp):
    def __init__(self, scale: str = "1", flag: str = "False") -> None:
        super().__init__(need_top_grad=True)
        SEEN_KWARGS.append({"scale": scale, "flag": flag})
        self.scale = float(scale)

    def create_operator(self, ctx, shapes, dtypes):
        return _Scale(self.scale)


class _SumProd(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.assign(out_data[0], req[0], a + b)
        self.assign(out_data[1], req[1], a * b)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        gs, gp = out_grad
        self.assign(in_grad[0], req[0], gs + gp * b)
        self.assign(in_grad[1], req[1], gs + gp * a)


@mx.operator.register("test_sumprod")
class _SumProdProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["sum", "prod"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _SumProd()


class _Counter(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] += 1
        self.assign(out_data[0], req[0], in_data[0] + aux[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register("test_counter")
class _CounterProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [in_shape[0]]

    def create_operator(self, ctx, shapes, dtypes):
        return _Counter()


class _Loss(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_data[0] - in_data[1])
        self.assign(in_grad[1], req[1], mx.nd.zeros_like(in_data[1]))


@mx.operator.register("test_loss")
class _LossProp(mx.operator.CustomOpProp):
    def __init__(self) -> None:
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def create_operator(self, ctx, shapes, dtypes):
        return _Loss()


class _Failing(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise ValueError("user forward exploded")


@mx.operator.register("test_failing")
class _FailingProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Failing()


# ---- forward -------------------------------------------------------------------------------


def test_kwargs_reach_the_prop_as_strings():
    SEEN_KWARGS.clear()
    x = mx.nd.array([1.0, 2.0])
    y = mx.nd.Custom(x, op_type="test_scale", scale=2.5, flag=True)
    np.testing.assert_allclose(y.asnumpy(), [2.5, 5.0])
    assert SEEN_KWARGS == [{"scale": "2.5", "flag": "True"}]


def test_several_inputs_and_outputs():
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    s, p = mx.nd.Custom(a, b, op_type="test_sumprod")
    assert s.asnumpy().tolist() == [4.0, 6.0]
    assert p.asnumpy().tolist() == [3.0, 8.0]
    s2, p2 = mx.nd.Custom(a=a, b=b, op_type="test_sumprod")
    assert s2.asnumpy().tolist() == [4.0, 6.0] and p2.asnumpy().tolist() == [3.0, 8.0]


def test_aux_states_are_updated_in_place():
    x, count = mx.nd.array([10.0, 20.0]), mx.nd.zeros(2)
    y1 = mx.nd.Custom(x, count, op_type="test_counter")
    y2 = mx.nd.Custom(x, count, op_type="test_counter")
    assert y1.asnumpy().tolist() == [11.0, 21.0]
    assert y2.asnumpy().tolist() == [12.0, 22.0]
    assert count.asnumpy().tolist() == [2.0, 2.0]


def test_error_in_user_forward_is_raised_at_the_call():
    # as in MXNet, an exception in the user's code comes back as an MXNetError
    with pytest.raises(MXNetError, match="test_failing.*forward.*user forward exploded") as e:
        mx.nd.Custom(mx.nd.ones(2), op_type="test_failing")
    assert isinstance(e.value.__cause__, ValueError)


def test_unknown_op_type_names_it():
    with pytest.raises(MXNetError, match="Custom.*'no_such_op'.*not registered"):
        mx.nd.Custom(mx.nd.ones(2), op_type="no_such_op")


def test_register_rejects_non_props():
    with pytest.raises(MXNetError, match="register.*CustomOpProp"):
        mx.operator.register("test_bad")(object)


def test_re_registration_replaces_the_old_class():
    def make(value: float) -> type:
        class _Const(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], in_data[0] * 0 + value)

        class _ConstProp(mx.operator.CustomOpProp):
            def create_operator(self, ctx, shapes, dtypes):
                return _Const()

        return _ConstProp

    mx.operator.register("test_const")(make(1.0))
    assert mx.nd.Custom(mx.nd.zeros(2), op_type="test_const").asnumpy().tolist() == [1.0, 1.0]
    mx.operator.register("test_const")(make(7.0))
    assert mx.nd.Custom(mx.nd.zeros(2), op_type="test_const").asnumpy().tolist() == [7.0, 7.0]


# ---- assign and req ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "req, want", [("null", [5.0, 5.0]), ("write", [1.0, 2.0]), ("add", [6.0, 7.0])]
)
def test_assign_honours_req(req, want):
    dst = mx.nd.full((2,), 5.0)
    mx.operator.CustomOp().assign(dst, req, mx.nd.array([1.0, 2.0]))
    assert dst.asnumpy().tolist() == want


def test_assign_rejects_unknown_req():
    with pytest.raises(MXNetError, match="assign.*'req'.*'sum'"):
        mx.operator.CustomOp().assign(mx.nd.zeros(2), "sum", mx.nd.zeros(2))


def test_executor_grad_req_add_and_null_reach_the_user():
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    out = mx.sym.Custom(a, b, op_type="test_sumprod")
    ex = out.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req={"a": "add", "b": "null"})
    ex.arg_dict["a"][:] = mx.nd.array([1.0, 2.0])
    ex.arg_dict["b"][:] = mx.nd.array([3.0, 4.0])
    ex.grad_dict["a"][:] = 100.0
    for _ in range(2):
        ex.forward(is_train=True)
        ex.backward([mx.nd.ones(2), mx.nd.ones(2)])
    # d(sum)/da + d(prod)/da = 1 + b, added twice onto 100
    assert ex.grad_dict["a"].asnumpy().tolist() == [108.0, 110.0]
    assert ex.grad_dict.get("b") is None


# ---- backward through autograd ------------------------------------------------------------


def test_autograd_uses_the_users_backward():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="test_scale", scale=2)
        z = y * 3
    z.backward()
    # user's backward: out_grad * scale + x, with out_grad = 3
    assert x.grad.asnumpy().tolist() == [7.0, 8.0, 9.0]


def test_autograd_several_outputs_and_null_req():
    seen: list[list[str]] = []

    class _Spy(_SumProd):
        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            seen.append(list(req))
            super().backward(req, out_grad, in_data, out_data, in_grad, aux)

    @mx.operator.register("test_sumprod_spy")
    class _SpyProp(_SumProdProp):
        def create_operator(self, ctx, shapes, dtypes):
            return _Spy()

    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    a.attach_grad()
    with mx.autograd.record():
        s, p = mx.nd.Custom(a, b, op_type="test_sumprod_spy")
        loss = s + p
    loss.backward()
    assert a.grad.asnumpy().tolist() == [4.0, 5.0]  # 1 + b
    assert seen == [["write", "null"]]  # b has no gradient buffer


def test_need_top_grad_false_loss():
    prop = _LossProp()
    assert prop.declare_backward_dependency([0], [1, 2], [3]) == [1, 2, 3]
    assert _ScaleProp().declare_backward_dependency([0], [1], [2]) == [0, 1, 2]
    x, label = mx.nd.array([0.5, 2.0]), mx.nd.array([1.0, 1.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, label, op_type="test_loss")
    y.backward()
    assert x.grad.asnumpy().tolist() == [-0.5, 1.0]


# ---- ordering with the engine --------------------------------------------------------------

GATE = threading.Event()


def _gated(xp, x, env, out):
    GATE.wait(30)  # a bound so a broken engine fails the test instead of hanging it
    return x + 0


simple_op(
    "_test_custom_gated",
    forward=_gated,
    gradient=lambda xp, g, env: g,
    grad_needs=GradNeeds.OUT_GRAD,
    doc="Identity whose kernel waits for a gate (tests).",
)


class _Gated(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.nd._internal._test_custom_gated(in_data[0]) * 3)


@mx.operator.register("test_gated")
class _GatedProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Gated()


def test_op_pushed_after_custom_sees_its_result():
    GATE.clear()
    if mx.engine.get().kind == "NaiveEngine":
        GATE.set()  # it runs each function at push
    x = mx.nd.array([1.0, 2.0])
    y = mx.nd.Custom(x, op_type="test_gated")  # returns while the gated kernel is pending
    z = y * 2
    w = mx.nd.Custom(z, op_type="test_scale", scale=0.5)
    GATE.set()
    assert z.asnumpy().tolist() == [6.0, 12.0]
    assert w.asnumpy().tolist() == [3.0, 6.0]


def test_forward_runs_with_recording_off_and_is_recorded_as_one_node():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="test_scale", scale="3")
    assert y._ag is not None and y._ag[0].prop.op_name == "Custom"
    y.backward()
    # the user's backward (3 * og + x), not the gradient of the calls inside forward
    np.testing.assert_array_equal(x.grad.asnumpy(), [4.0, 5.0])
