"""multi_sgd_update, multi_sgd_mom_update, multi_mp_sgd_update, multi_mp_sgd_mom_update:
three in-place steps against MXNet 1.9.1 (tools/golden/cases/optimizer_multi.py), the engine
ordering of their mutated states (mutate_inputs), req handling, names and errors."""

import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq

from .opcheck import golden
from .optimizer_multi_cases import multi_sgd_steps

GOLD = golden("optimizer_multi")
CASES = [{"case": k, **c} for k, c in GOLD.cases.items()]
TOL = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-12}


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_steps_match_mxnet(case):
    name = case["case"]
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in case["params"].items()}
    got = multi_sgd_steps(mx, case["op"], case["dtype"], params, case["n"],
                          lambda key, i, dtype: GOLD[f"{name}/{key}"])  # fmt: skip
    for key, want in GOLD.arrays(name).items():
        if "/out_" in key:  # the weights and states after each step
            tol = TOL[str(want.dtype)]
            assert got[key].dtype == want.dtype
            np.testing.assert_allclose(got[key], want, rtol=tol, atol=tol, err_msg=key)


@pytest.mark.parametrize(
    "op, group, mutated",
    [
        ("multi_sgd_update", ["weight", "grad"], []),
        ("multi_sgd_mom_update", ["weight", "grad", "mom"], [2, 5]),
        ("multi_mp_sgd_update", ["weight", "grad", "weight32"], [2, 5]),
        ("multi_mp_sgd_mom_update", ["weight", "grad", "mom", "weight32"], [2, 3, 6, 7]),
    ],
)
def test_arguments_outputs_and_mutated_inputs(op, group, mutated):
    prop = registry.get(op).get_prop({"lrs": (0.1, 0.2), "wds": (0, 0), "num_weights": 2})
    assert prop.list_arguments() == [f"{f}_{i}" for i in range(2) for f in group]
    assert prop.list_outputs() == ["output0", "output1"]
    assert prop.mutate_inputs() == mutated
    assert prop.declare_backward_dependency([0, 1], list(range(2, 2 + 2 * len(group))), []) == []


def test_fresh_outputs_leave_weights_and_return_list():
    w0, w1 = mx.nd.array([1.0, 2.0]), mx.nd.array([[3.0]])
    g0, g1 = mx.nd.array([1.0, -1.0]), mx.nd.array([[2.0]])
    outs = mx.nd.multi_sgd_update(w0, g0, w1, g1, lrs=(0.5, 0.25), wds=(0.0, 0.5), num_weights=2)
    assert isinstance(outs, list) and len(outs) == 2
    np.testing.assert_allclose(outs[0].asnumpy(), [0.5, 2.5])
    np.testing.assert_allclose(outs[1].asnumpy(), [[3.0 - 0.125 * 3.0 - 0.5]])
    np.testing.assert_allclose(w0.asnumpy(), [1.0, 2.0])  # not in place: weights unchanged
    one = mx.nd.multi_sgd_update(w0, g0, lrs=(0.5,), wds=(0.0,))
    assert isinstance(one, mx.nd.NDArray)


def test_float64_and_positional_params():
    w = mx.nd.array([1.0, 2.0], dtype="float64")
    g = mx.nd.array([0.5, 0.5], dtype="float64")
    mom = mx.nd.zeros(2, dtype="float64")
    out = mx.nd.multi_sgd_mom_update(w, g, mom, (0.1,), (0.0,), 0.9)
    assert out.dtype == np.float64
    np.testing.assert_allclose(mom.asnumpy(), [-0.05, -0.05], rtol=1e-7)  # lr is a C float
    np.testing.assert_allclose(out.asnumpy(), [0.95, 1.95], rtol=1e-7)


def test_req_add_accumulates():
    prop = registry.get("multi_sgd_update").get_prop({"lrs": (0.5,), "wds": (0.0,)})
    op = prop.create_operator(mx.cpu())
    w, g = np.array([1.0, 2.0], np.float32), np.array([2.0, 2.0], np.float32)
    out = np.array([10.0, 20.0], np.float32)
    op.forward(None, [w, g], [OpReq.ADD], [out], [])
    np.testing.assert_allclose(out, [10.0, 21.0])
    op.forward(None, [w, g], [OpReq.NULL], [out], [])
    np.testing.assert_allclose(out, [10.0, 21.0])


def test_mutated_state_is_written_through_the_engine():
    """A read of mom queued after the update waits for it (its var is mutated, not read)."""
    gate = threading.Event()
    w, g, mom = mx.nd.ones(3), mx.nd.ones(3), mx.nd.zeros(3)
    blocker = mx.nd.zeros(3)

    def hold(rctx):
        gate.wait()

    # hold the momentum's var: the update must queue behind this writer
    mx.engine.get().push_sync(hold, mx.cpu(), [], [mom._chunk.var])
    mx.nd.multi_sgd_mom_update(w, g, mom, lrs=(0.1,), wds=(0.0,), momentum=0.9, out=w)
    snapshot = mom.copy()  # queued after the update on mom's var
    blocker[:] = 1
    gate.set()
    np.testing.assert_allclose(snapshot.asnumpy(), [-0.1] * 3, rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), [0.9] * 3, rtol=1e-6)


def test_other_ops_keep_no_mutated_inputs():
    assert registry.get("sgd_mom_update").get_prop({"lr": 0.1})._mutates == ()
    assert registry.get("multi_sgd_update").get_prop({"lrs": (1.0,), "wds": (0,)})._mutates == ()


@pytest.mark.parametrize(
    "kwargs, n_inputs, exc, match",
    [
        ({"lrs": (0.1, 0.2), "wds": (0.0,), "num_weights": 2}, 6, ParamError, "mom_update.*wds"),
        ({"lrs": (0.1,), "wds": (0.0,), "num_weights": 2}, 6, ParamError, "mom_update.*lrs"),
        ({"lrs": (0.1, 0.2), "wds": (0, 0)}, 6, ParamError, "mom_update.*lrs"),
        ({"lrs": (0.1,), "wds": (0.0,)}, 6, MXNetError, "mom_update.*'data' needs 3"),
        ({"lrs": (0.1,), "wds": (0.0,), "num_weights": 0}, 0, ParamError, "num_weights"),
        ({"lrs": (0.1,), "wds": (0.0,), "momentum": "x"}, 3, ParamError, "momentum"),
        ({"wds": (0.0,)}, 3, ParamError, "lrs"),
    ],
)
def test_bad_parameters(kwargs, n_inputs, exc, match):
    arrays = [mx.nd.ones(2) for _ in range(n_inputs)]
    with pytest.raises(exc, match=match):
        mx.nd.multi_sgd_mom_update(*arrays, **kwargs)


def test_bad_shapes_and_dtypes():
    w, g = mx.nd.ones(2), mx.nd.ones(3)
    with pytest.raises(ShapeError, match="multi_sgd_update.*grad_0"):
        mx.nd.multi_sgd_update(w, g, lrs=(0.1,), wds=(0.0,))
    wi, gi = mx.nd.ones(2, dtype="int32"), mx.nd.ones(2, dtype="int32")
    with pytest.raises(DTypeError, match="multi_sgd_update.*weight_0.*int32"):
        mx.nd.multi_sgd_update(wi, gi, lrs=(0.1,), wds=(0.0,))
    w16, g16 = mx.nd.ones(2, dtype="float16"), mx.nd.ones(2, dtype="float16")
    with pytest.raises(DTypeError, match="multi_mp_sgd_update.*weight32_0"):
        mx.nd.multi_mp_sgd_update(w16, g16, mx.nd.ones(2, dtype="float16"), lrs=(0.1,), wds=(0,))
    with pytest.raises(DTypeError, match="multi_sgd_update.*grad_0"):
        mx.nd.multi_sgd_update(w, mx.nd.ones(2, dtype="float64"), lrs=(0.1,), wds=(0.0,))


def test_interleaved_updates_share_their_count_checks() -> None:
    """multi_lamb, adamw and multi_sgd check per-weight lists and input counts in one place."""
    w = [mx.nd.ones((2,)) for _ in range(4)]
    with pytest.raises(ParamError, match="_multi_lamb_update: argument 'step_count' needs "
                       "num_tensors=1 values"):  # fmt: skip
        mx.nd._internal._multi_lamb_update(*w, learning_rates=(0.1,), wds=(0.0,),
                                           step_count=(1, 2))  # fmt: skip
    with pytest.raises(
        MXNetError,
        match="_multi_adamw_update: argument 'data' needs 5 arrays "
        r"\(weight, grad, mean, var for each of num_weights=1, then rescale_grad\)",
    ):
        mx.nd._internal._multi_adamw_update(*w, lrs=(0.1,), wds=(0.0,), etas=(1.0,))
    prop = registry.get("_multi_mp_lamb_update")
    assert prop.get_prop({"learning_rates": (0.1, 0.1), "wds": (0, 0), "step_count": (1, 1),
                          "num_tensors": 2}).mutate_inputs() == [2, 3, 4, 7, 8, 9]  # fmt: skip
