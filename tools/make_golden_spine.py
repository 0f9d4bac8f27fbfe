"""Write tests/executor/golden/spine.json.gz and tests/symbol/golden/save_000800.json with real
MXNet 1.9.1, for the spine's dtype and legacy JSON tests.

Run under the reference interpreter (never imported by mxlite at run time)::

    /tmp/mxref/bin/python tools/make_golden_spine.py

What it records (issue 12):

- ``networks``: MXNet's example image-classification networks (``example/image-classification/
  symbols`` at tag 1.9.1, read from the apache/mxnet mirror) built as their scripts build them
  (float32 symbols), bound with ``simple_bind(type_dict={'data': 'float64'})`` on small inputs:
  the symbol JSON, the dtype MXNet infers for every argument, auxiliary state and output, and
  after one training forward and backward the outputs, every gradient and every updated
  auxiliary state, plus the outputs of an inference forward;
- ``module``: a conv+BN+FC network trained by ``Module`` (float64 ``DataDesc``, SGD with
  momentum and weight decay) and a BatchNorm network trained in float16 (MXNet's CPU has no
  float16 convolution or FullyConnected): parameters and auxiliary states after the updates;
- ``bind_dtypes``: the dtypes ``simple_bind`` gives a conv+BN+FC network with float64 and float16
  data, and MXNet's error for float32 data with a float16 ``fc_weight`` in ``type_dict``;
- ``tests/symbol/golden/save_000800.json``: the SHA-256 of MXNet's
  ``tests/python/unittest/save_000800.json`` (a file of MXNet 0.8, not copied here) and the
  ``attr_dict()`` MXNet gives after loading it.

Inputs and parameters are not stored: :func:`init_array` makes them from NumPy's legacy
``RandomState`` (the same stream in every NumPy version), and the test calls it too. Large
arrays are stored as :func:`summary`: their sum, 2-norm and a projection on a fixed direction.

The helpers below are plain NumPy, so the test imports this file (``main`` does not run).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
import zlib
from typing import Any

import numpy as np

MIRROR = os.environ.get("MXNET_REPO", "/work/.mirror/apache+mxnet/repo")
TAG = "1.9.1"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "executor", "golden", "spine.json.gz")
OUT_JSON = os.path.join(HERE, "..", "tests", "symbol", "golden", "save_000800.json")
BATCH = 2
NUM_CLASSES = 10

# (name, symbol file, function, keyword arguments, data shape): MXNet's get_symbol, except
# for "resnet_stem", the ImageNet-style ResNet (7x7 stride-2 stem, overlapping 3x3 max pool)
# through the file's resnet() with small widths, so that the test stays fast
NETWORKS = [
    ("resnet20", "resnet.py", "get_symbol", {"num_layers": 20, "image_shape": "3,28,28"},
     (3, 28, 28)),
    ("resnet_stem", "resnet.py", "resnet",
     {"units": [1, 1, 1, 1], "num_stages": 4, "filter_list": [8, 8, 16, 24, 32],
      "image_shape": [3, 64, 64], "bottle_neck": False}, (3, 64, 64)),
    ("resnext14", "resnext.py", "get_symbol",
     {"num_layers": 14, "image_shape": "3,28,28", "num_group": 4}, (3, 28, 28)),
    ("inception_bn", "inception-bn.py", "get_symbol", {"image_shape": "3,28,28"}, (3, 28, 28)),
    ("mobilenet", "mobilenet.py", "get_symbol", {"alpha": 0.25, "resolution": 32}, (3, 32, 32)),
    ("lenet", "lenet.py", "get_symbol", {}, (1, 28, 28)),
]  # fmt: skip


def git_show(path: str) -> str | None:
    """The text of ``path`` at MXNet's tag 1.9.1 in the mirror, None without the mirror."""
    try:
        res = subprocess.run(
            ["git", f"--git-dir={MIRROR}", "show", f"{TAG}:{path}"],
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return res.stdout.decode()


def _seed(name: str) -> int:
    return zlib.crc32(name.encode())


def init_array(name: str, shape: tuple[int, ...], dtype: Any = np.float64) -> np.ndarray:
    """The value of argument or auxiliary state ``name`` in every run: data uniform in
    [0, 1); labels integers below NUM_CLASSES; BatchNorm's gamma near 1, beta near 0, moving
    mean near 0, moving variance near 1; weights uniform with variance 1 / fan-in; biases
    small."""
    rng = np.random.RandomState(_seed(name))
    shape = tuple(shape)
    if name == "data":
        v = rng.uniform(0, 1, shape)
    elif name.endswith("label"):
        v = rng.randint(0, NUM_CLASSES, shape).astype(np.float64)
    elif name.endswith(("gamma", "moving_var")):
        v = 1 + rng.uniform(-0.2, 0.2, shape)
    elif name.endswith(("beta", "moving_mean", "bias")) or len(shape) == 1:
        v = rng.uniform(-0.1, 0.1, shape)
    else:
        fan_in = int(np.prod(shape[1:]))
        v = rng.uniform(-1, 1, shape) * np.sqrt(3.0 / fan_in)
    return v.astype(dtype)


def summary(name: str, value: np.ndarray) -> list[float]:
    """[sum, 2-norm, a projection on a fixed random direction] of ``value`` in float64; the
    array itself when it has at most 32 elements."""
    v = np.asarray(value, dtype=np.float64)
    if v.size <= 32:
        return v.ravel().tolist()
    # a fixed direction that costs little to make for large arrays
    r = np.cos(np.arange(v.size) * 0.618034 + _seed(name) % 1000).reshape(v.shape)
    return [float(v.sum()), float(np.sqrt((v * v).sum())), float((v * r).sum())]


def network_symbol(mx: Any, file: str, function: str, kwargs: dict) -> Any:
    """``function(num_classes=NUM_CLASSES, **kwargs)`` of MXNet's example network in
    ``file``."""
    text = git_show(f"example/image-classification/symbols/{file}")
    if text is None:
        raise RuntimeError(f"the apache/mxnet mirror is needed at {MIRROR}")
    namespace: dict[str, Any] = {"__name__": "symbols_" + file[:-3].replace("-", "_")}
    sys.modules.setdefault("mxnet", mx)
    exec(compile(text, file, "exec"), namespace)  # MXNet's own example code, not ours
    return namespace[function](num_classes=NUM_CLASSES, **kwargs)


def conv_bn_fc(mx: Any) -> Any:
    """The small network of the dtype tests: Convolution, BatchNorm, ReLU, FullyConnected."""
    data = mx.sym.var("data")
    h = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    h = mx.sym.BatchNorm(h, fix_gamma=False, name="bn")
    h = mx.sym.Activation(h, act_type="relu", name="relu")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def bn_only(mx: Any) -> Any:
    """A network MXNet trains in float16 on a CPU: BatchNorm, ReLU, pooling, softmax."""
    data = mx.sym.var("data")
    h = mx.sym.BatchNorm(data, fix_gamma=False, name="bn")
    h = mx.sym.Activation(h, act_type="relu", name="relu")
    h = mx.sym.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    h = mx.sym.Flatten(h, name="flat")
    return mx.sym.SoftmaxOutput(h, name="softmax")


# (network builder, data shape, dtype, batches) of the Module runs
MODULE_RUNS = {
    "conv_bn_fc_float64": (conv_bn_fc, (4, 2, 5, 5), "float64", 3),
    "bn_float16": (bn_only, (4, 3, 4, 4), "float16", 3),
}
SGD = {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4}


def module_batches(shape: tuple[int, ...], dtype: str, n: int) -> list[tuple[Any, Any]]:
    """``n`` (data, label) batches in ``dtype``."""
    out = []
    for i in range(n):
        data = init_array(f"data{i}", shape).astype(dtype)
        label = init_array(f"softmax_label{i}", (shape[0],)) % min(NUM_CLASSES, 3)
        out.append((data, label.astype(dtype)))
    return out


def names_dtypes(exe: Any) -> dict[str, Any]:
    return {
        "args": {k: np.dtype(v.dtype).name for k, v in exe.arg_dict.items()},
        "aux": {k: np.dtype(v.dtype).name for k, v in exe.aux_dict.items()},
        "outputs": [np.dtype(o.dtype).name for o in exe.outputs],
    }


def _run_network(mx: Any, name: str, file: str, function: str, kwargs: dict, shape: tuple):
    sym = network_symbol(mx, file, function, kwargs)
    exe = sym.simple_bind(mx.cpu(), type_dict={"data": "float64"}, data=(BATCH, *shape))
    for k, arr in exe.arg_dict.items():
        arr[:] = init_array(k, arr.shape)
    for k, arr in exe.aux_dict.items():
        arr[:] = init_array(k, arr.shape)
    infer = [o.asnumpy().tolist() for o in exe.forward(is_train=False)]
    exe.forward(is_train=True)
    exe.backward()
    rec = {
        "symbol": sym.tojson(),
        "data_shape": [BATCH, *shape],
        "dtypes": names_dtypes(exe),
        "infer_outputs": infer,
        "train_outputs": [o.asnumpy().tolist() for o in exe.outputs],
        "grads": {k: summary(k, g.asnumpy()) for k, g in exe.grad_dict.items() if g is not None},
        "aux_after": {k: summary(k, a.asnumpy()) for k, a in exe.aux_dict.items()},
    }
    print(f"{name}: {len(rec['grads'])} gradients, output {rec['train_outputs'][0][0][:3]}")
    return rec


def _run_module(mx: Any, build: Any, shape: tuple, dtype: str, n: int) -> dict:
    sym = build(mx)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(
        data_shapes=[mx.io.DataDesc("data", shape, dtype=dtype)],
        label_shapes=[mx.io.DataDesc("softmax_label", (shape[0],), dtype=dtype)],
    )
    arg_shapes = {k: v.shape for k, v in mod._exec_group.execs[0].arg_dict.items()}
    aux_shapes = {k: v.shape for k, v in mod._exec_group.execs[0].aux_dict.items()}
    arg_types = names_dtypes(mod._exec_group.execs[0])
    params = {
        k: mx.nd.array(init_array(k, s), dtype=arg_types["args"][k])
        for k, s in arg_shapes.items()
        if k not in ("data", "softmax_label")
    }
    aux = {
        k: mx.nd.array(init_array(k, s), dtype=arg_types["aux"][k]) for k, s in aux_shapes.items()
    }
    mod.init_params(arg_params=params, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params=SGD)
    outputs = []
    for data, label in module_batches(shape, dtype, n):
        batch = mx.io.DataBatch([mx.nd.array(data, dtype=dtype)], [mx.nd.array(label, dtype=dtype)])
        mod.forward_backward(batch)
        mod.update()
        outputs.append(mod.get_outputs()[0].asnumpy().astype(np.float64).tolist())
    arg_params, aux_params = mod.get_params()
    return {
        "dtypes": arg_types,
        "outputs": outputs,
        "params": {k: summary(k, v.asnumpy()) for k, v in arg_params.items()},
        "param_dtypes": {k: np.dtype(v.dtype).name for k, v in arg_params.items()},
        "aux": {k: summary(k, v.asnumpy()) for k, v in aux_params.items()},
        "aux_dtypes": {k: np.dtype(v.dtype).name for k, v in aux_params.items()},
    }


def _bind_dtypes(mx: Any) -> dict:
    sym = conv_bn_fc(mx)
    out = {}
    for dt in ("float64", "float16"):
        exe = sym.simple_bind(mx.cpu(), type_dict={"data": dt}, data=(2, 2, 5, 5))
        out[dt] = names_dtypes(exe)
        out[dt]["grads"] = {
            k: np.dtype(g.dtype).name for k, g in exe.grad_dict.items() if g is not None
        }
    try:
        sym.simple_bind(
            mx.cpu(), type_dict={"data": "float32", "fc_weight": "float16"}, data=(2, 2, 5, 5)
        )
        out["conflict_error"] = None
    except RuntimeError as exc:  # simple_bind re-raises MXNetError as RuntimeError
        out["conflict_error"] = str(exc).strip().splitlines()[-1]
    return out


def _save_000800(mx: Any) -> dict:
    text = git_show("tests/python/unittest/save_000800.json")
    sym = mx.sym.load_json(text)
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "attr_dict": sym.attr_dict()}


def main() -> None:
    os.environ.setdefault("MXNET_SUBGRAPH_BACKEND", "NONE")  # the plain graph, no fusion
    import mxnet as mx

    golden = {
        "networks": {n: _run_network(mx, n, *spec) for n, *spec in NETWORKS},
        "module": {k: _run_module(mx, *spec) for k, spec in MODULE_RUNS.items()},
        "bind_dtypes": _bind_dtypes(mx),
    }
    tmp = OUT + ".tmp"
    with gzip.open(tmp, "wt") as f:
        json.dump(golden, f, sort_keys=True)
    os.replace(tmp, OUT)
    tmp = OUT_JSON + ".tmp"
    with open(tmp, "w") as f:
        json.dump(_save_000800(mx), f, sort_keys=True, indent=1)
    os.replace(tmp, OUT_JSON)
    for path in (OUT, OUT_JSON):
        print(f"wrote {path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
