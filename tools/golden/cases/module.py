"""A small LeNet-like network trained by MXNet 1.9.1's Module (tests/module/test_golden.py).
The network, data and initial parameters are closed-form (tests/module/lenet.py, shared with
the test), so only the results are stored, in tests/module/golden/:

* ``lenet-symbol.json``, ``lenet-0001.params``, ``lenet-0001.states``: the checkpoint after
  20 SGD steps (``save_checkpoint(prefix, 1, save_optimizer_states=True)``);
* ``module.npz``, the metadata-only entry ``train``: ``loss``, the mean cross-entropy of each
  of the 20 training batches (the forward before each update); ``fit_ce``, the Train-ce of each
  epoch of ``Module.fit`` from the same start; ``predict``, the class probabilities of the test
  data after training; ``score``, the accuracy on it.
"""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/module/golden/module.npz"
c = load_module("tests/module/lenet.py")


def record(golden: Golden) -> None:
    tx, ty = c.make_data(c.N_TEST, 1000)
    mod, losses = c.train(mx, 20)
    mod.save_checkpoint(str(golden.path.parent / "lenet"), 1, save_optimizer_states=True)
    pred = mod.predict(mx.io.NDArrayIter(tx, None, batch_size=c.BATCH)).asnumpy()
    score = mod.score(mx.io.NDArrayIter(tx, ty, batch_size=c.BATCH), "acc")
    golden.put("train", {
        "loss": losses,
        "fit_ce": c.fit_ce(mx),
        "predict": np.round(pred.astype(np.float64), 7).tolist(),
        "score": [[k, float(v)] for k, v in score],
    })  # fmt: skip
