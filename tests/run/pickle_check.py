"""Pickles of MXNet objects, made and checked under whichever ``mxnet`` runs this file: real
MXNet 1.9.1, or mxlite under ``python -m mxlite.run`` (``import mxnet`` is the alias). The
golden set in tests/run/golden/pickles is MXNet's (tools/golden/cases/pickles.py calls
:func:`write` under MXNet); tests/run/test_pickles.py makes pickles with mxlite and checks them
with MXNet, and back::

    python tests/run/pickle_check.py --out DIR
    python tests/run/pickle_check.py --check DIR [--expected FILE]

``--out`` pickles each object of :func:`build` with ``pickle.dump`` to ``DIR/<name>.pkl`` and
writes :func:`summary` of each (its content as NumPy arrays) to ``DIR/expected.npz``, in the
layout of the golden files (``<name>/<key>`` arrays, the names in ``__cases__``). ``--check``
loads every pickle with plain ``pickle.load`` and compares its summary with ``FILE`` (default
``DIR/expected.npz``), printing ``ok <name>`` per object and exiting with 1 on the first
mismatch. Objects are built from fixed values, never from a random generator.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
from typing import Any

import numpy as np

X = np.arange(8, dtype=np.float32).reshape(2, 4) / 8  # the block's input


def _updater(mx: Any, optimizer: Any) -> Any:
    upd = mx.optimizer.get_updater(optimizer)
    w = mx.nd.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
    for step in range(2):
        upd(0, mx.nd.array([[0.5, 1.0, -1.5], [2.0, -0.5, 0.1]]) * (step + 1), w)
    return upd


def build(mx: Any) -> dict[str, Any]:
    """The objects to pickle, as functions of the ``mx`` module (MXNet's or mxlite's)."""
    dense = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc1")
    sym = mx.sym.softmax(mx.sym.Activation(fc, act_type="relu", name="relu1"), name="out")
    param = mx.gluon.Parameter("w", shape=(2, 3), lr_mult=0.5)
    param.initialize(init=mx.init.Constant(0.25))
    param.set_data(mx.nd.array([[1, 2, 3], [4, 5, 6]]))
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(3, in_units=4, activation="relu", prefix="d0_"))
        net.add(mx.gluon.nn.Dense(2, in_units=3, prefix="d1_"))
    net.initialize()
    for i, (_, p) in enumerate(sorted(net.collect_params().items())):
        p.set_data(mx.nd.array(np.linspace(-1, 1, int(np.prod(p.shape))).reshape(p.shape) + i))
    batch = mx.io.DataBatch(
        [mx.nd.array(X)], [mx.nd.array([1.0, 0.0])], pad=1, index=np.array([7, 8])
    )
    return {
        "nd_float32": mx.nd.array(X),
        "nd_float16": mx.nd.array([[1.5, -2.25], [65504.0, 0.0]], dtype="float16"),
        "nd_int64": mx.nd.array([1, -2, 2**40], dtype="int64"),
        "nd_csr": mx.nd.array(dense).tostype("csr"),
        "nd_row_sparse": mx.nd.array(dense).tostype("row_sparse"),
        "symbol": sym,
        "sgd": mx.optimizer.SGD(learning_rate=0.05, momentum=0.9, wd=1e-3, rescale_grad=0.5),
        "updater_sgd": _updater(mx, mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)),
        "updater_adam": _updater(mx, mx.optimizer.Adam(learning_rate=0.01)),
        "databatch": batch,
        "parameter": param,
        "block": net,
    }


def _optimizer(opt: Any) -> dict[str, Any]:
    keys = ("lr", "wd", "rescale_grad", "num_update", "begin_num_update")
    out = {k: np.float64(getattr(opt, k)) for k in keys}
    out["momentum"] = np.float64(getattr(opt, "momentum", -1.0))
    out["class"] = np.array(type(opt).__name__)
    return out


def _states(state: Any) -> list[np.ndarray]:
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        return [a for s in state for a in _states(s)]
    return [state.asnumpy()]


def summary(mx: Any, name: str, obj: Any) -> dict[str, np.ndarray]:
    """What must survive the pickle, as arrays (see the module note)."""
    if name.startswith("nd_"):
        dense = obj.tostype("default") if obj.stype != "default" else obj
        return {"value": dense.asnumpy(), "stype": np.array(obj.stype)}
    if name == "symbol":
        args, outs, _ = obj.infer_shape(data=(2, 4))
        graph = json.loads(obj.tojson())
        ops = [
            f"{n['op']}:{n['name']}:{sorted(n.get('attrs', {}).items())}" for n in graph["nodes"]
        ]
        return {
            "arguments": np.array(obj.list_arguments()),
            "arg_shapes": np.array([str(tuple(a)) for a in args]),
            "out_shapes": np.array([str(tuple(a)) for a in outs]),
            "nodes": np.array(ops),
        }
    if name == "sgd":
        return _optimizer(obj)
    if name.startswith("updater_"):
        out = _optimizer(obj.optimizer)
        for i, a in enumerate(_states(obj.states[0])):
            out[f"state{i}"] = a
        return out
    if name == "databatch":
        return {
            "data": obj.data[0].asnumpy(),
            "label": obj.label[0].asnumpy(),
            "pad": np.array(obj.pad),
            "index": np.asarray(obj.index),
        }
    if name == "parameter":
        return {
            "name": np.array(obj.name),
            "shape": np.array(obj.shape),
            "data": obj.data().asnumpy(),
            "lr_mult": np.array(obj.lr_mult),
            "grad_req": np.array(obj.grad_req),
        }
    if name == "block":
        params = obj.collect_params()
        out = {"names": np.array(sorted(params.keys())), "output": obj(mx.nd.array(X)).asnumpy()}
        obj.hybridize()
        out["hybrid_output"] = obj(mx.nd.array(X)).asnumpy()
        return out
    raise ValueError(f"summary: no summary for {name!r}")


def write(mx: Any, out: str) -> dict[str, dict[str, np.ndarray]]:
    """Pickle every object of :func:`build` into ``out``; return their summaries by name."""
    os.makedirs(out, exist_ok=True)
    summaries = {}
    for name, obj in build(mx).items():
        with open(os.path.join(out, f"{name}.pkl"), "wb") as f:
            pickle.dump(obj, f)
        summaries[name] = summary(mx, name, obj)
    return summaries


def save_expected(path: str, summaries: dict[str, dict[str, np.ndarray]]) -> None:
    arrays = {f"{name}/{k}": v for name, s in summaries.items() for k, v in s.items()}
    cases = json.dumps({name: {} for name in summaries}, sort_keys=True)
    np.savez_compressed(path, __cases__=np.array(cases), **arrays)


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray], name: str) -> str | None:
    """A message naming the first difference, or None."""
    keys = {k.split("/", 1)[1] for k in want if k.startswith(name + "/")}
    if set(got) != keys:
        return f"{name}: keys {sorted(got)} != {sorted(keys)}"
    for key in sorted(keys):
        a, b = np.asarray(got[key]), want[f"{name}/{key}"]
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            same = a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)
        else:
            same = a.shape == b.shape and bool(np.all(a.astype(str) == b.astype(str)))
        if not same:
            return f"{name}/{key}: {a!r} != {b!r}"
    return None


def numpy2_pickles_on_numpy1() -> None:
    """Let NumPy < 1.26 load NumPy 2's pickles of arrays, which name ``numpy._core`` (MXNet
    1.9.1 needs NumPy < 1.24; NumPy 1.26 carries these aliases itself)."""
    import numpy.core.multiarray
    import numpy.core.numeric

    if "numpy._core" not in sys.modules and not hasattr(np, "_core"):
        sys.modules["numpy._core"] = np.core
        sys.modules["numpy._core.multiarray"] = numpy.core.multiarray
        sys.modules["numpy._core.numeric"] = numpy.core.numeric


def check(mx: Any, folder: str, expected: str) -> int:
    numpy2_pickles_on_numpy1()
    with np.load(expected) as f:
        want = dict(f)
    raw = want.pop("__cases__")  # UTF-8 bytes as the golden core writes them, or a str
    names = sorted(json.loads(raw.tobytes().decode() if raw.dtype == np.uint8 else str(raw)))
    for name in names:
        with open(os.path.join(folder, f"{name}.pkl"), "rb") as f:
            obj = pickle.load(f)
        problem = compare(summary(mx, name, obj), want, name)
        if problem:
            print("MISMATCH", problem)
            return 1
        print("ok", name, type(obj).__module__ + "." + type(obj).__name__)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="where to write the pickles and their summaries")
    parser.add_argument("--check", metavar="DIR", help="load DIR's pickles and compare instead")
    parser.add_argument("--expected", help="the summaries to compare with (DIR/expected.npz)")
    args = parser.parse_args(argv)
    import mxnet as mx  # MXNet 1.9.1, or mxlite under python -m mxlite.run

    if args.check:
        return check(mx, args.check, args.expected or os.path.join(args.check, "expected.npz"))
    save_expected(os.path.join(args.out, "expected.npz"), write(mx, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
