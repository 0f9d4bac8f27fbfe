"""The spine's dtype runs (tests/executor/test_bind_dtypes.py), with the networks and values of
tests/executor/spine_cases.py.

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
  data, and MXNet's error for float32 data with a float16 ``fc_weight`` in ``type_dict``.
"""

import os
from typing import Any

import numpy as np
from core import Golden, load_module, mxnet_example

FILE = "tests/executor/golden/spine.npz"
os.environ.setdefault("MXNET_SUBGRAPH_BACKEND", "NONE")  # the plain graph, no fusion
c = load_module("tests/executor/spine_cases.py")


def _run_network(mx: Any, name: str, file: str, function: str, kwargs: dict, shape: tuple):
    sym = getattr(mxnet_example(file), function)(num_classes=c.NUM_CLASSES, **kwargs)
    exe = sym.simple_bind(mx.cpu(), type_dict={"data": "float64"}, data=(c.BATCH, *shape))
    for k, arr in [*exe.arg_dict.items(), *exe.aux_dict.items()]:
        arr[:] = c.init_array(k, arr.shape)
    infer = [o.asnumpy().tolist() for o in exe.forward(is_train=False)]
    exe.forward(is_train=True)
    exe.backward()
    rec = {
        "symbol": sym.tojson(),
        "data_shape": [c.BATCH, *shape],
        "dtypes": c.names_dtypes(exe),
        "infer_outputs": infer,
        "train_outputs": [o.asnumpy().tolist() for o in exe.outputs],
        "grads": {k: c.summary(k, g.asnumpy()) for k, g in exe.grad_dict.items() if g is not None},
        "aux_after": {k: c.summary(k, a.asnumpy()) for k, a in exe.aux_dict.items()},
    }
    print(f"{name}: {len(rec['grads'])} gradients, output {rec['train_outputs'][0][0][:3]}")
    return rec


def _run_module(mx: Any, build: Any, shape: tuple, dtype: str, n: int) -> dict:
    sym = build(mx)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[mx.io.DataDesc("data", shape, dtype=dtype)],
             label_shapes=[mx.io.DataDesc("softmax_label", (shape[0],), dtype=dtype)])  # fmt: skip
    exe = mod._exec_group.execs[0]
    arg_types = c.names_dtypes(exe)
    params = {k: mx.nd.array(c.init_array(k, a.shape), dtype=arg_types["args"][k])
              for k, a in exe.arg_dict.items() if k not in ("data", "softmax_label")}  # fmt: skip
    aux = {k: mx.nd.array(c.init_array(k, a.shape), dtype=arg_types["aux"][k])
           for k, a in exe.aux_dict.items()}  # fmt: skip
    mod.init_params(arg_params=params, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params=c.SGD)
    outputs = []
    for data, label in c.module_batches(shape, dtype, n):
        batch = mx.io.DataBatch([mx.nd.array(data, dtype=dtype)], [mx.nd.array(label, dtype=dtype)])
        mod.forward_backward(batch)
        mod.update()
        outputs.append(mod.get_outputs()[0].asnumpy().astype(np.float64).tolist())
    arg_params, aux_params = mod.get_params()
    return {
        "dtypes": arg_types,
        "outputs": outputs,
        "params": {k: c.summary(k, v.asnumpy()) for k, v in arg_params.items()},
        "param_dtypes": {k: np.dtype(v.dtype).name for k, v in arg_params.items()},
        "aux": {k: c.summary(k, v.asnumpy()) for k, v in aux_params.items()},
        "aux_dtypes": {k: np.dtype(v.dtype).name for k, v in aux_params.items()},
    }


def _bind_dtypes(mx: Any) -> dict:
    sym = c.conv_bn_fc(mx)
    out = {}
    for dt in ("float64", "float16"):
        exe = sym.simple_bind(mx.cpu(), type_dict={"data": dt}, data=(2, 2, 5, 5))
        out[dt] = c.names_dtypes(exe)
        grads = {k: g for k, g in exe.grad_dict.items() if g is not None}
        out[dt]["grads"] = {k: np.dtype(g.dtype).name for k, g in grads.items()}
    try:
        sym.simple_bind(mx.cpu(), type_dict={"data": "float32", "fc_weight": "float16"},
                        data=(2, 2, 5, 5))  # fmt: skip
        out["conflict_error"] = None
    except RuntimeError as exc:  # simple_bind re-raises MXNetError as RuntimeError
        out["conflict_error"] = str(exc).strip().splitlines()[-1]
    return out


def record(golden: Golden) -> None:
    import mxnet as mx

    golden.put("networks", {n: _run_network(mx, n, *spec) for n, *spec in c.NETWORKS})
    golden.put("module", {k: _run_module(mx, *spec) for k, spec in c.MODULE_RUNS.items()})
    golden.put("bind_dtypes", _bind_dtypes(mx))
