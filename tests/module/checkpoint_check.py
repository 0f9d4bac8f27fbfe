"""Check that real MXNet 1.9.1 loads a Module checkpoint written by mxlite.

Run under the reference interpreter::

    /tmp/mxref/bin/python tests/module/checkpoint_check.py PREFIX EPOCH CHECK.npz

The checkpoint is ``PREFIX-symbol.json``, ``PREFIX-%04d.params`` and ``PREFIX-%04d.states``.
CHECK.npz holds what mxlite computed from it: ``data`` and ``label`` (one batch), ``predict``
(the outputs of ``predict`` on ``data``), ``after_step`` (the outputs on ``data`` after one
SGD step on (data, label) with the saved optimizer states), and ``opt`` (a JSON string of
the optimizer parameters). MXNet repeats both computations with ``Module.load``; the script
prints the largest differences and exits 0 when both are within 1e-5, 1 otherwise.
"""

from __future__ import annotations

import json
import sys

import numpy as np


def main(prefix: str, epoch: int, check: str) -> int:
    import mxnet as mx  # the reference interpreter's; the test collection imports this file

    want = np.load(check)
    data, label = want["data"], want["label"]
    opt_params = json.loads(str(want["opt"]))
    mod = mx.mod.Module.load(prefix, epoch, load_optimizer_states=True)
    mod.bind(data_shapes=[("data", data.shape)], label_shapes=[("softmax_label", label.shape)])
    mod.init_optimizer(optimizer="sgd", optimizer_params=opt_params)
    pred = mod.predict(mx.io.NDArrayIter(data, None, batch_size=data.shape[0])).asnumpy()
    batch = mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)])
    mod.forward_backward(batch)
    mod.update()
    mod.forward(mx.io.DataBatch([mx.nd.array(data)]), is_train=False)
    after = mod.get_outputs()[0].asnumpy()
    d_pred = float(np.abs(pred - want["predict"]).max())
    d_after = float(np.abs(after - want["after_step"]).max())
    print(json.dumps({"predict": d_pred, "after_step": d_after}))
    return 0 if max(d_pred, d_after) <= 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
