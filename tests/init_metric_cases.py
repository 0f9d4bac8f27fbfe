"""The initializer and metric cases of tests/test_initializer.py and tests/test_metric.py,
written as functions of the ``mx`` module so that the tests run them under mxlite and
tools/golden/cases/init_metric.py under MXNet 1.9.1 (tests/golden/init_metric.npz).

- ``init``: deterministic initializers (values), name dispatch, ``dumps()`` strings.
- ``init_stats``: mean/std/min/max of large draws of the random initializers, so the tests can
  check MXNet's distribution parameters (the numbers drawn differ between the two generators).
- ``metric``: every metric over three batches (the inputs are stored too), with ``get()`` after
  two updates, then ``get()`` and ``get_global()`` after ``reset_local()`` and one more update.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np

FUSED = [  # (mode, num_layers, bidirectional, num_input, num_hidden)
    ("lstm", 2, True, 3, 2),
    ("gru", 1, False, 5, 2),
    ("rnn_tanh", 2, False, 3, 2),
]
DISPATCH_NAMES = [
    "fc1_weight",
    "fc1_bias",
    "bn_gamma",
    "bn_beta",
    "q_min",
    "q_max",
    "bn_moving_mean",
    "bn_moving_var",
    "upsampling0_weight",
    "stn_loc_bias",
    "data",
]


def _code(name: str) -> float:
    """A value that identifies a parameter name, so a layout mix-up shows."""
    return (sum(map(ord, name)) % 97) / 10.0


def name_code_init(mx: Any) -> Any:
    """An initializer writing each array's name code (weights) or its negative (biases)."""

    class NameCode(mx.init.Initializer):
        def _init_weight(self, name: str, arr: Any) -> None:
            arr[:] = _code(name)

        def _init_bias(self, name: str, arr: Any) -> None:
            arr[:] = -_code(name)

    return NameCode()


def fused_size(mode: str, layers: int, bidir: bool, ninput: int, hidden: int) -> int:
    m = {"lstm": 4, "gru": 3}.get(mode, 1)
    b = 2 if bidir else 1
    return (ninput + hidden + 2) * hidden * m * b + (layers - 1) * m * hidden * (
        hidden + b * hidden + 2
    ) * b


def init_cases(mx: Any) -> dict[str, Any]:
    """Deterministic initializer results, as plain lists."""
    out: dict[str, Any] = {}
    desc = mx.init.InitDesc

    def run(init: Any, name: Any, shape: tuple[int, ...]) -> Any:
        arr = mx.nd.full(shape, -9.0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                init(name, arr)
        except Exception as exc:  # noqa: BLE001 -- the golden records that it failed
            # mxlite's errors subclass the built-in MXNet raises; compare on that.
            return "error:" + ("ValueError" if isinstance(exc, ValueError) else "other")
        return arr.asnumpy().astype(np.float64).round(6).tolist()

    out["bilinear_2x3x4x4"] = run(mx.init.Bilinear(), desc("up_weight"), (2, 3, 4, 4))
    out["bilinear_1x1x3x5"] = run(mx.init.Bilinear(), desc("up_weight"), (1, 1, 3, 5))
    out["lstmbias"] = run(mx.init.LSTMBias(2.5), desc("lstm_i2h_bias"), (12,))
    out["lstmbias_weight_name"] = run(mx.init.LSTMBias(2.5), desc("lstm_i2h_weight"), (8,))
    out["constant"] = run(mx.init.Constant(0.25), desc("c_weight"), (2, 3))
    out["constant_array"] = run(
        mx.init.Constant(mx.nd.array([[1, 2, 3], [4, 5, 6]])), desc("c_weight"), (2, 3)
    )
    out["zero"] = run(mx.init.Zero(), desc("z_weight"), (3,))
    out["one"] = run(mx.init.One(), desc("o_weight"), (3,))
    const = mx.init.Constant(0.7)
    for name in DISPATCH_NAMES:
        shape = (1, 1, 2, 4) if name.startswith("upsampling") else (6,)
        out["dispatch_desc:" + name] = run(const, desc(name), shape)
        out["dispatch_legacy:" + name] = run(const, name, shape)
    attrs = {"__init__": '["constant", {"value": 2.0}]'}
    out["attr_init"] = run(mx.init.Uniform(), desc("fc_bias", attrs=attrs), (2,))
    for mode, layers, bidir, nin, hid in FUSED:
        size = fused_size(mode, layers, bidir, nin, hid)
        init = mx.init.FusedRNN(name_code_init(mx), hid, layers, mode, bidir, forget_bias=2.0)
        key = f"fused:{mode}:{layers}:{int(bidir)}"
        # A name ending in 'weight' reaches _init_weight without an __init__ attribute.
        out[key] = run(init, desc("rnn_weight"), (size,))
        fallback = mx.init.FusedRNN(None, hid, layers, mode, bidir, forget_bias=3.0)
        attrs = {"__init__": fallback.dumps()}
        out[key + ":global"] = run(
            mx.init.Constant(0.5), desc("rnn_parameters", attrs=attrs), (size,)
        )
    out["dumps"] = [
        mx.init.Normal(0.5).dumps(),
        mx.init.Uniform().dumps(),
        mx.init.Xavier(factor_type="in", magnitude=2.34).dumps(),
        mx.init.MSRAPrelu().dumps(),
        mx.init.Orthogonal().dumps(),
        mx.init.Bilinear().dumps(),
        mx.init.LSTMBias().dumps(),
        mx.init.Constant(mx.nd.array([1.5, 2.0])).dumps(),
        mx.init.FusedRNN(mx.init.Xavier(), 4, 1, "gru").dumps(),
    ]
    return out


STAT_CASES = {
    "uniform": ("Uniform", {"scale": 0.1}, (100, 100)),
    "normal": ("Normal", {"sigma": 0.5}, (100, 100)),
    "xavier_avg": ("Xavier", {}, (64, 32, 3, 3)),
    "xavier_in_gauss": ("Xavier", {"rnd_type": "gaussian", "factor_type": "in"}, (128, 100)),
    "xavier_out_mag": ("Xavier", {"factor_type": "out", "magnitude": 2.0}, (50, 400)),
    "msraprelu": ("MSRAPrelu", {"factor_type": "in", "slope": 0.1}, (64, 16, 5, 5)),
}


def init_stats(mx: Any) -> dict[str, list[float]]:
    """mean, std, min, max of one large draw per random initializer."""
    mx.random.seed(7)
    out = {}
    for key, (cls, kwargs, shape) in STAT_CASES.items():
        arr = mx.nd.zeros(shape)
        getattr(mx.init, cls)(**kwargs)(mx.init.InitDesc("w_weight"), arr)
        a = arr.asnumpy().astype(np.float64)
        out[key] = [a.mean(), a.std(), a.min(), a.max()]
    return out


def metric_inputs() -> dict[str, Any]:
    """Three batches of labels and predictions for classification, regression and LM."""
    rng = np.random.RandomState(3)
    data: dict[str, Any] = {}
    for i in range(3):
        probs = rng.dirichlet(np.ones(4), size=8).astype(np.float32)
        data[f"cls_label{i}"] = rng.randint(0, 4, size=8).astype(np.float32).tolist()
        data[f"cls_pred{i}"] = probs.astype(np.float64).round(4).tolist()
        bprobs = rng.dirichlet(np.ones(2), size=10).astype(np.float32)
        data[f"bin_label{i}"] = rng.randint(0, 2, size=10).astype(np.float32).tolist()
        data[f"bin_pred{i}"] = bprobs.astype(np.float64).round(4).tolist()
        data[f"reg_label{i}"] = rng.randn(6).astype(np.float32).astype(np.float64).round(4).tolist()
        data[f"reg_pred{i}"] = rng.randn(6).astype(np.float32).astype(np.float64).round(4).tolist()
        lm = rng.dirichlet(np.ones(5), size=6).astype(np.float32)
        data[f"lm_label{i}"] = rng.randint(0, 5, size=6).astype(np.float32).tolist()
        data[f"lm_pred{i}"] = lm.astype(np.float64).round(4).tolist()
    return data


# name -> (kind of inputs, create() arguments)
METRICS = {
    "acc": ("cls", ["acc"], {}),
    "acc_classidx": ("cls_idx", ["acc"], {}),
    "top_k": ("cls", ["top_k_accuracy"], {"top_k": 3}),
    "f1_macro": ("bin", ["f1"], {}),
    "f1_micro": ("bin", ["f1"], {"average": "micro"}),
    "mcc_macro": ("bin", ["mcc"], {}),
    "mcc_micro": ("bin", ["mcc"], {"average": "micro"}),
    "pcc": ("cls", ["pcc"], {}),
    "perplexity": ("lm", ["perplexity"], {"ignore_label": None}),
    "perplexity_ignore": ("lm", ["perplexity"], {"ignore_label": 0}),
    "mae": ("reg", ["mae"], {}),
    "mse": ("reg", ["mse"], {}),
    "rmse": ("reg", ["rmse"], {}),
    "ce": ("cls", ["ce"], {}),
    "nll": ("cls", ["nll_loss"], {}),
    "pearsonr": ("reg", ["pearsonr"], {}),
    "pearsonr_micro": ("reg", ["pearsonr"], {"average": "micro"}),
    "loss": ("reg", ["loss"], {}),
    "composite": ("cls", [["acc", "ce", "mae"]], {}),
    "custom_np": ("reg", [None], {}),
}


def _batch(mx: Any, data: dict[str, Any], kind: str, i: int) -> tuple[list, list]:
    base = "cls" if kind == "cls_idx" else kind
    label = mx.nd.array(data[f"{base}_label{i}"])
    pred = mx.nd.array(data[f"{base}_pred{i}"])
    if kind == "cls_idx":
        pred = mx.nd.array(np.argmax(np.array(data[f"{base}_pred{i}"]), axis=1))
    return [label], [pred]


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return value
    return float(value)


def metric_cases(mx: Any, data: dict[str, Any]) -> dict[str, Any]:
    """Each metric's results over the stored batches."""
    out: dict[str, Any] = {}
    for key, (kind, args, kwargs) in METRICS.items():
        if key == "custom_np":

            def mean_abs(label: Any, pred: Any) -> Any:
                return np.abs(label - pred).mean()

            metric = mx.metric.np(mean_abs)
        else:
            metric = mx.metric.create(*args, **kwargs)
        for i in range(2):
            metric.update(*_batch(mx, data, kind, i))
        first = metric.get()
        metric.reset_local()
        metric.update(*_batch(mx, data, kind, 2))
        out[key] = {
            "get2": _plain(first),
            "get_local": _plain(metric.get()),
            "get_global": _plain(metric.get_global()),
            "name_value": _plain(metric.get_name_value()),
        }
        if key != "custom_np":
            config = metric.get_config()
            out[key]["config"] = json.loads(json.dumps(config, default=str, sort_keys=True))
    return out
