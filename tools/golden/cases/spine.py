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

from core import Golden, load_module, mxnet_example

FILE = "tests/executor/golden/spine.npz"
os.environ.setdefault("MXNET_SUBGRAPH_BACKEND", "NONE")  # the plain graph, no fusion
c = load_module("tests/executor/spine_cases.py")


def _run_network(mx: Any, name: str, file: str, function: str, kwargs: dict, shape: tuple):
    sym = getattr(mxnet_example(file), function)(num_classes=c.NUM_CLASSES, **kwargs)
    _, run = c.train_network(mx, sym, (c.BATCH, *shape))
    rec = {"symbol": sym.tojson(), "data_shape": [c.BATCH, *shape], **run}
    print(f"{name}: {len(rec['grads'])} gradients, output {rec['train_outputs'][0][0][:3]}")
    return rec


def _bind_dtypes(mx: Any) -> dict:
    out = c.bind_dtypes(mx)
    try:
        types = {"data": "float32", "fc_weight": "float16"}
        c.conv_bn_fc(mx).simple_bind(mx.cpu(), type_dict=types, data=(2, 2, 5, 5))
        out["conflict_error"] = None
    except RuntimeError as exc:  # simple_bind re-raises MXNetError as RuntimeError
        out["conflict_error"] = str(exc).strip().splitlines()[-1]
    return out


def record(golden: Golden) -> None:
    import mxnet as mx

    golden.put("networks", {n: _run_network(mx, n, *spec) for n, *spec in c.NETWORKS})
    golden.put("module", {k: c.train_module(mx, *spec) for k, spec in c.MODULE_RUNS.items()})
    golden.put("bind_dtypes", _bind_dtypes(mx))
