"""``mx.model.FeedForward`` training runs (tests/test_feedforward.py; the runs of
tests/feedforward_cases.py): fixed initial parameters and data (``setup``); per case the
parameters after ``fit``, ``predict`` on the evaluation data and ``score``. MXNet also saves
the first run's checkpoint as tests/golden/feedforward-symbol.json and
tests/golden/feedforward-0002.params, which mxlite loads."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/golden/feedforward.npz"
c = load_module("tests/feedforward_cases.py")


def record(golden: Golden) -> None:
    rng = golden.rng
    net = c.network(mx)
    x = rng.uniform(-1, 1, (12, 5)).astype("float32")
    y = rng.randint(0, 3, 12).astype("float32")
    xe = rng.uniform(-1, 1, (8, 5)).astype("float32")
    ye = rng.randint(0, 3, 8).astype("float32")
    setup = {"x": x, "y": y, "xe": xe, "ye": ye}
    arg_shapes, _, _ = net.infer_shape(data=(4, 5), softmax_label=(4,))
    for n, s in zip(net.list_arguments(), arg_shapes):
        if n not in ("data", "softmax_label"):
            setup[f"arg:{n}"] = rng.uniform(-0.5, 0.5, s).astype("float32")
    setup.update({"aux:bn1_moving_mean": np.zeros(6, "float32"),
                  "aux:bn1_moving_var": np.ones(6, "float32")})  # fmt: skip
    golden.put("setup", {}, **setup)
    for case, kwargs, fit_kwargs, n_ctx in c.CASES:
        model = c.fit(mx, setup, kwargs, fit_kwargs, n_ctx)
        out = {f"arg:{k}": v.asnumpy() for k, v in model.arg_params.items()}
        out.update({f"aux:{k}": v.asnumpy() for k, v in model.aux_params.items()})
        meta = {"kwargs": kwargs, "fit": fit_kwargs, "n_ctx": n_ctx,
                "score": model.score(mx.io.NDArrayIter(xe, ye, 3))}  # fmt: skip
        golden.put(case, meta, predict=model.predict(xe), **out)
        if case == "sgd_mom":
            model.save(str(golden.path.parent / "feedforward"), 2)
