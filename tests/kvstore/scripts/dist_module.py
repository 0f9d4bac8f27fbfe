"""Run on 2 workers: a dist_sync Module, each worker on its half of every batch (and on two
devices), ends with the parameters of one process trained on the whole batches."""

import os
import tempfile

import numpy as np

import mxlite as mx

rng = np.random.RandomState(0)
X = rng.rand(3, 8, 5).astype(np.float32)  # 3 batches of 8
Y = rng.randint(0, 3, (3, 8)).astype(np.float32)
INIT = {
    "fc1_weight": rng.randn(6, 5).astype(np.float32) * 0.5,
    "fc1_bias": np.zeros(6, np.float32),
    "fc2_weight": rng.randn(3, 6).astype(np.float32) * 0.5,
    "fc2_bias": np.zeros(3, np.float32),
}


def net():
    h = mx.sym.Activation(
        mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=6, name="fc1"), "relu"
    )
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc2"), name="softmax")


def train(kvstore, contexts, rows):
    mod = mx.mod.Module(net(), context=contexts)
    batch = rows.stop - rows.start
    mod.bind(data_shapes=[("data", (batch, 5))], label_shapes=[("softmax_label", (batch,))])
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in INIT.items()})
    mod.init_optimizer(
        kvstore=kvstore,
        optimizer="sgd",
        optimizer_params={"learning_rate": 0.5, "momentum": 0.9, "wd": 0.01},
    )
    for x, y in zip(X, Y):
        mod.forward(mx.io.DataBatch([mx.nd.array(x[rows])], [mx.nd.array(y[rows])]))
        mod.backward()
        mod.update()
    return mod


kv = mx.kv.create("dist_sync")
r, n = kv.rank, kv.num_workers
assert n == 2
half = slice(4 * r, 4 * r + 4)
dist = train(kv, [mx.cpu(0), mx.cpu(1)], half)
assert dist._update_on_kvstore and dist._kvstore is kv
assert dist._optimizer.rescale_grad == 1.0 / 8  # batch_size * num_workers
alone = train(None, mx.cpu(), slice(0, 8))
got, want = dist.get_params()[0], alone.get_params()[0]
for name in INIT:
    assert np.allclose(got[name].asnumpy(), want[name].asnumpy(), rtol=1e-5, atol=1e-6), name
    assert not np.allclose(got[name].asnumpy(), INIT[name]), name  # it did train
with tempfile.TemporaryDirectory() as tmp:
    dist.save_optimizer_states(os.path.join(tmp, "m.states"))
    dist.load_optimizer_states(os.path.join(tmp, "m.states"))
print(f"OK dist_sync module rank {r}", flush=True)
