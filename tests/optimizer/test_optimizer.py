"""Optimizer update sequences against MXNet 1.9.1 (tools/golden/cases/optimizer.py), the
Updater's saved-states format both ways, and the optimizer registry."""

import json
import pickle
import subprocess
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.optimizer.optimizer import dumps_states, loads_states

from ..golden_file import load
from .optimizer_cases import optimizer, update_sequence

GOLDEN = Path(__file__).parent / "golden"
DATA = load("optimizer/golden/optimizer.npz")
META = {
    **DATA.cases["setup"],
    "cases": [{"case": k, **m} for k, m in DATA.cases.items() if "optimizer" in m],
}
TOL = {"float16": (2e-3, 2e-3), "float32": (2e-5, 2e-6), "float64": (1e-6, 1e-8)}


def _make(case):
    return optimizer(mx, case["optimizer"], case["kwargs"])


@pytest.mark.parametrize("case", META["cases"], ids=[c["case"] for c in META["cases"]])
def test_update_sequence_matches_mxnet(case):
    name, dtype = case["case"], case["dtype"]
    got = update_sequence(mx, case["optimizer"], case["kwargs"], dtype,
                          lambda key, shape, dt: DATA[f"{name}/{key}"])  # fmt: skip
    rtol, atol = TOL[dtype]
    for key, want in DATA.arrays(name).items():
        if key[0] == "w" and not key.startswith("w0_"):  # the weights after each step
            assert got[key].dtype == want.dtype
            np.testing.assert_allclose(got[key].astype(np.float64), want.astype(np.float64),
                                       rtol=rtol, atol=atol, err_msg=f"{name} {key}")  # fmt: skip


def test_single_index_calls_match_list_calls():
    case = next(c for c in META["cases"] if c["case"] == "sgd_mom")
    a, b = mx.optimizer.get_updater(_make(case)), mx.optimizer.get_updater(_make(case))
    wa = [mx.nd.array(DATA[f"sgd_mom/w0_{i}"]) for i in range(2)]
    wb = [w.copy() for w in wa]
    for step in range(3):
        g = [mx.nd.array(DATA[f"sgd_mom/g{step}_{i}"]) for i in range(2)]
        a([0, 1], g, wa)
        for i in range(2):
            b(i, g[i], wb[i])
    for x, y in zip(wa, wb):
        np.testing.assert_allclose(x.asnumpy(), y.asnumpy(), rtol=1e-6)


def test_mxnet_states_file_loads_and_resumes():
    upd = mx.optimizer.get_updater(mx.optimizer.SGD())
    upd.set_states((GOLDEN / "sgd_updater.states").read_bytes())
    opt = upd.optimizer
    assert type(opt) is mx.optimizer.SGD
    assert opt.momentum == 0.9 and opt.multi_precision and opt.num_update == 3
    assert isinstance(opt.lr_scheduler, mx.lr_scheduler.FactorScheduler)
    assert isinstance(upd.states[0], mx.nd.NDArray)
    mom16, master = upd.states[1]
    assert master.dtype == np.float32 and mom16.dtype == np.float32
    after = {k: DATA[f"sgd_updater_after/{k}"] for k in ("w0", "w1", "g0", "g1")}
    nxt = {k: DATA[f"sgd_updater_next/{k}"] for k in ("w0", "w1")}
    w = [mx.nd.array(after["w0"]), mx.nd.array(after["w1"], dtype="float16")]
    g = [mx.nd.array(after["g0"]), mx.nd.array(after["g1"], dtype="float16")]
    upd([0, 1], g, w)
    np.testing.assert_allclose(w[0].asnumpy(), nxt["w0"], rtol=1e-6)
    np.testing.assert_allclose(w[1].asnumpy().astype(np.float32), nxt["w1"], rtol=1e-3)


def test_get_set_states_round_trip():
    opt = mx.optimizer.Adam(learning_rate=0.01, wd=0.1)
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.array(np.linspace(-1, 1, 6).reshape(2, 3))
    g = mx.nd.array(np.ones((2, 3)))
    upd(3, g, w)
    blob = upd.get_states(dump_optimizer=True)
    other = mx.optimizer.get_updater(mx.optimizer.SGD())
    other.set_states(blob)
    assert type(other.optimizer) is mx.optimizer.Adam and other.optimizer.wd == 0.1
    for a, b in zip(upd.states[3], other.states[3]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    w2 = w.copy()
    upd(3, g, w)
    other(3, g, w2)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())
    # states only (no optimizer)
    other.set_states(upd.get_states())
    assert type(other.optimizer) is mx.optimizer.Adam
    assert set(other.states) == {3}


def test_saved_states_name_mxnet_classes():
    upd = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    upd(0, mx.nd.ones((2,)), mx.nd.ones((2,)))
    blob = upd.get_states(dump_optimizer=True)
    assert b"mxnet.optimizer.optimizer\nSGD\n" in blob
    assert b"mxnet.ndarray.ndarray\nNDArray\n" in blob
    assert b"mxlite" not in blob
    states, opt = loads_states(dumps_states(loads_states(blob)))
    assert "param_dict" in opt.__dict__ and opt.param_dict == {}


@pytest.mark.skipif(not Path("/tmp/mxref/bin/python").exists(), reason="needs MXNet 1.9.1")
def test_mxnet_loads_our_states(tmp_path):
    opt = mx.optimizer.SGD(
        learning_rate=0.1,
        momentum=0.9,
        lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, base_lr=0.1),
    )
    upd = mx.optimizer.get_updater(opt)
    upd(0, mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0]))
    path = tmp_path / "s.states"
    path.write_bytes(upd.get_states(dump_optimizer=True))
    script = (
        "import mxnet as mx, sys\n"
        "u = mx.optimizer.get_updater(mx.optimizer.Adam())\n"
        f"u.set_states(open({str(path)!r}, 'rb').read())\n"
        "print(type(u.optimizer).__name__, u.optimizer.momentum, u.optimizer.num_update,"
        " u.states[0].asnumpy().tolist())\n"
    )
    res = subprocess.run(["/tmp/mxref/bin/python", "-c", script], capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stderr
    want = upd.states[0].asnumpy().tolist()
    assert res.stdout.split()[:3] == ["SGD", "0.9", "1"]
    assert [round(x, 5) for x in json.loads(" ".join(res.stdout.split()[3:]))] == [
        round(x, 5) for x in want
    ]


def test_registry_and_errors():
    assert type(mx.optimizer.create("SGD")) is mx.optimizer.SGD
    assert type(mx.optimizer.Optimizer.create_optimizer("rmsprop")) is mx.optimizer.RMSProp
    with pytest.raises(ValueError, match="Cannot find optimizer nosuch"):
        mx.optimizer.create("nosuch")

    @mx.optimizer.register
    class MyTestOpt(mx.optimizer.Optimizer):
        pass

    assert type(mx.optimizer.create("mytestopt")) is MyTestOpt
    with pytest.raises(mx.MXNetError, match="param_idx2name"):
        mx.optimizer.SGD(param_idx2name=[1, 2])


def test_lr_and_wd_multipliers():
    opt = mx.optimizer.SGD(learning_rate=0.5, wd=0.1, param_idx2name={0: "a_weight", 1: "a_bias"})
    assert opt._get_wd(0) == 0.1 and opt._get_wd(1) == 0.0
    opt.set_lr_mult({"a_weight": 0.2, 1: 3.0})
    assert opt._get_lr(0) == pytest.approx(0.1) and opt._get_lr(1) == pytest.approx(1.5)
    assert opt.learning_rate == 0.5
    opt.set_learning_rate(0.25)
    assert opt.learning_rate == 0.25
    sched = mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.FactorScheduler(step=1, base_lr=1.0))
    with pytest.raises(UserWarning):
        sched.set_learning_rate(0.1)


def test_sgld_moves_weights_with_noise():
    mx.random.seed(1)
    opt = mx.optimizer.SGLD(learning_rate=0.01)
    w = mx.nd.zeros((1000,))
    opt.update(0, w, mx.nd.zeros((1000,)), None)
    x = w.asnumpy()
    assert abs(x.std() - 0.1) < 0.02 and abs(x.mean()) < 0.02


def test_pickle_module_plain_pickle_of_optimizer():
    opt = mx.optimizer.Adam(learning_rate=0.3)
    back = pickle.loads(pickle.dumps(opt))
    assert back.lr == 0.3 and back.param_dict == {}


@pytest.mark.parametrize(
    "name, state_first, label", [("sgd", True, "SGD "), ("nag", True, "NAG "), ("adam", False, "")]
)
def test_multi_precision_states_in_mxnets_order(name: str, state_first: bool, label: str):
    """One create_state_multi_precision: SGD and NAG keep (state, master), the rest (master,
    state); a float16 weight without multi_precision warns naming SGD/NAG as MXNet does."""
    w = mx.nd.ones((2,), dtype="float16")
    opt = mx.optimizer.create(name, momentum=0.9) if name != "adam" else mx.optimizer.create(name)
    opt.multi_precision = True
    state = opt.create_state_multi_precision(0, w)
    master = state[1] if state_first else state[0]
    assert master.dtype == np.float32
    opt.multi_precision = False
    with pytest.warns(UserWarning, match=f"multi_precision=True option of the {label}optimizer"):
        opt.create_state_multi_precision(0, w)
