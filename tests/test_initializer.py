"""Tests of mx.init against MXNet 1.9.1 (tests/golden/init_metric.npz, made by
tools/golden/cases/init_metric.py from the same cases) and of its own contracts."""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ParamError, ShapeError

from . import init_metric_cases as C
from .golden_file import load


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return load("golden/init_metric.npz").cases


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    return C.init_cases(mx)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return np.allclose(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64), atol=1e-6)


def test_deterministic_cases_match_mxnet(golden: dict, ours: dict) -> None:
    keys = [k for k in golden["init"] if k != "dumps"]
    assert set(keys) <= set(ours)
    wrong = [k for k in keys if not _same(golden["init"][k], ours[k])]
    assert wrong == []


def test_dumps_match_mxnet(golden: dict, ours: dict) -> None:
    assert ours["dumps"] == golden["init"]["dumps"]


@pytest.mark.parametrize("key", sorted(C.STAT_CASES))
def test_random_initializers_have_mxnet_distribution(golden: dict, key: str) -> None:
    stats = C.init_stats(mx)
    mean, std, lo, hi = stats[key]
    g_mean, g_std, g_lo, g_hi = golden["init_stats"][key]
    assert abs(mean - g_mean) < 0.05 * g_std
    assert abs(std - g_std) < 0.03 * g_std
    if key.startswith(("uniform", "xavier_avg", "xavier_out")):  # bounded: same bounds
        assert lo >= -g_hi * 1.001 and hi <= g_hi * 1.001
        assert hi > 0.99 * g_hi and lo < 0.99 * g_lo


@pytest.mark.parametrize(
    "kwargs, shape, expected",
    [
        ({}, (64, 32, 3, 3), math.sqrt(3.0 / ((32 * 9 + 64 * 9) / 2.0))),
        ({"factor_type": "in", "magnitude": 2}, (10, 40), math.sqrt(2.0 / 40)),
        ({"factor_type": "out"}, (10, 40), math.sqrt(3.0 / 10)),
    ],
)
def test_xavier_uniform_bound(kwargs: dict, shape: tuple, expected: float) -> None:
    init = mx.init.Xavier(**kwargs)
    assert init.scale_for("w", shape) == pytest.approx(expected)
    arr = mx.nd.zeros(shape)
    init(mx.init.InitDesc("w_weight"), arr)
    values = np.abs(arr.asnumpy())
    assert values.max() <= expected and values.max() > 0.9 * expected


def test_msraprelu_is_gaussian_xavier() -> None:
    init = mx.init.MSRAPrelu("in", slope=0.0)
    assert init.rnd_type == "gaussian" and init.magnitude == 2.0
    assert init.scale_for("w", (8, 50)) == pytest.approx(math.sqrt(2.0 / 50))


def test_seed_makes_draws_repeatable() -> None:
    def draw() -> np.ndarray:
        arr = mx.nd.zeros((5, 7))
        mx.init.Xavier(rnd_type="gaussian")(mx.init.InitDesc("fc_weight"), arr)
        return arr.asnumpy()

    mx.random.seed(11)
    a = draw()
    mx.random.seed(11)
    b = draw()
    assert np.array_equal(a, b) and a.std() > 0


@pytest.mark.parametrize(
    "name, expected",
    [("fc1_bias", 0.0), ("bn_gamma", 1.0), ("bn_beta", 0.0), ("x_min", 0.0), ("x_max", 1.0)],
)
def test_names_dispatch_as_mxnet(name: str, expected: float) -> None:
    arr = mx.nd.full((4,), 5.0)
    mx.init.Uniform(0.5)(mx.init.InitDesc(name), arr)
    assert np.all(arr.asnumpy() == expected)


def test_weight_goes_to_init_weight_and_unknown_names_fail() -> None:
    arr = mx.nd.zeros((3, 4))
    mx.init.Constant(0.5)(mx.init.InitDesc("conv_weight"), arr)
    assert np.all(arr.asnumpy() == 0.5)
    with pytest.raises(MXNetError, match="Unknown initialization pattern for data"):
        mx.init.Constant(0.5)(mx.init.InitDesc("data"), arr)


def test_legacy_string_call_warns_and_knows_batchnorm_stats() -> None:
    arr = mx.nd.full((3,), 7.0)
    with pytest.warns(DeprecationWarning):
        mx.init.Uniform()("bn_moving_var", arr)
    assert np.all(arr.asnumpy() == 1.0)


def test_init_attribute_wins_over_the_suffix() -> None:
    arr = mx.nd.zeros((2, 2))
    attrs = {"__init__": mx.init.Constant(3.0).dumps()}
    desc = mx.init.InitDesc("fc_bias", attrs=attrs)
    mx.init.Zero()(desc, arr)
    assert np.all(arr.asnumpy() == 3.0)
    assert isinstance(desc.global_init, mx.init.Zero)


def test_orthogonal_rows_are_orthonormal_times_scale() -> None:
    for shape, rand_type in (((4, 10), "uniform"), ((10, 4), "normal"), ((3, 2, 2, 2), "uniform")):
        arr = mx.nd.zeros(shape)
        mx.init.Orthogonal(scale=2.0, rand_type=rand_type)(mx.init.InitDesc("w_weight"), arr)
        w = arr.asnumpy().reshape(shape[0], -1)
        gram = w @ w.T if shape[0] <= w.shape[1] else w.T @ w
        assert np.allclose(gram, 4.0 * np.eye(len(gram)), atol=1e-4)


def test_create_by_name_json_dict_and_instance() -> None:
    assert isinstance(mx.init.create("xavier"), mx.init.Xavier)
    assert isinstance(mx.init.create("Zeros"), mx.init.Zero)
    made = mx.init.create('["xavier", {"magnitude": 2}]')
    assert isinstance(made, mx.init.Xavier) and made.magnitude == 2.0
    assert mx.init.create({"initializer": "normal", "sigma": 0.3}) == mx.init.Normal(0.3)
    one = mx.init.One()
    assert mx.init.create(one) is one
    with pytest.raises(ParamError, match="nosuchinit is not registered"):
        mx.init.create("nosuchinit")
    with pytest.raises(ParamError, match="already an instance"):
        mx.init.create(one, 3)


def test_register_custom_initializer_and_alias() -> None:
    @mx.init.register
    @mx.init.alias("myinit_alias_t")
    class MyInitT(mx.init.Initializer):
        def _init_weight(self, _: str, arr: Any) -> None:
            arr[:] = 0.1

    for name in ("myinitt", "myinit_alias_t"):
        arr = mx.nd.zeros((2,))
        mx.init.create(name)(mx.init.InitDesc("a_weight"), arr)
        assert np.allclose(arr.asnumpy(), 0.1)
    with pytest.raises(ParamError, match="subclass of Initializer"):
        mx.init.register(int)


def test_mixed_picks_first_matching_pattern() -> None:
    init = mx.init.Mixed(["bias", ".*"], [mx.init.Constant(2.0), mx.init.Constant(5.0)])
    a, b = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    init(mx.init.InitDesc("bias_weight"), a)
    init(mx.init.InitDesc("fc_weight"), b)
    assert np.all(a.asnumpy() == 2.0) and np.all(b.asnumpy() == 5.0)
    with pytest.raises(MXNetError, match="did not match any pattern"):
        mx.init.Mixed(["x"], [mx.init.One()])(mx.init.InitDesc("fc_weight"), a)
    with pytest.raises(ParamError, match="same length"):
        mx.init.Mixed(["x"], [])


def test_load_strips_prefix_falls_back_and_checks_shape(tmp_path: Path) -> None:
    path = str(tmp_path / "p.params")
    mx.nd.save(path, {"arg:fc_weight": mx.nd.full((2, 2), 4.0)})
    init = mx.init.Load(path, default_init=mx.init.Constant(9.0))
    a, b = mx.nd.zeros((2, 2)), mx.nd.zeros((3,))
    init(mx.init.InitDesc("fc_weight"), a)
    init(mx.init.InitDesc("other_weight"), b)
    assert np.all(a.asnumpy() == 4.0) and np.all(b.asnumpy() == 9.0)
    with pytest.raises(ShapeError, match="fc_weight.*Shape mismatch"):
        init(mx.init.InitDesc("fc_weight"), mx.nd.zeros((3,)))
    with pytest.raises(MXNetError, match="no default Initializer"):
        mx.init.Load({"x": mx.nd.zeros((1,))})("y", mx.nd.zeros((1,)))


def test_verbose_logs_each_initialized_array(caplog: pytest.LogCaptureFixture) -> None:
    init = mx.init.Constant(2.0).set_verbosity(True)
    with caplog.at_level(logging.INFO):
        init(mx.init.InitDesc("fc_weight"), mx.nd.zeros((4,)))
    assert "Initialized fc_weight as weight: 2.0" in caplog.text


def test_bad_arguments_name_the_initializer() -> None:
    with pytest.raises(ShapeError, match="Xavier.*vector fc_weight"):
        mx.init.Xavier()(mx.init.InitDesc("fc_weight"), mx.nd.zeros((4,)))
    with pytest.raises(ParamError, match="Xavier.*factor_type"):
        mx.init.Xavier(factor_type="bad")(mx.init.InitDesc("fc_weight"), mx.nd.zeros((4, 4)))
    with pytest.raises(ShapeError, match="FusedRNN.*does not fit"):
        init = mx.init.FusedRNN(mx.init.One(), 3, 1, "lstm")
        init(mx.init.InitDesc("rnn_weight"), mx.nd.zeros((7,)))
