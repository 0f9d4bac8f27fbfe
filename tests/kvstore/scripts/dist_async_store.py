"""Run on the workers of `python -m mxlite.launch -n 2 -s 2` with
MXNET_KVSTORE_BIGARRAY_BOUND=50: dist_async pushes reach the servers, big keys are split."""

import numpy as np

import mxlite as mx
from mxlite.base import MXNetError

kv = mx.kv.create("dist_async")
r, n = kv.rank, kv.num_workers
assert kv.type == "dist_async" and n == 2
kv.init(["w", "big"], [mx.nd.zeros((3,)), mx.nd.zeros((10, 10))])
assert len(kv._dist.parts("big", 100)) == 2 and len(kv._dist.parts("w", 3)) == 1

# without an optimizer a push replaces the value on the servers
kv.push("big", mx.nd.array(np.arange(100).reshape(10, 10)) * (r + 1))
kv._barrier()
out = mx.nd.zeros((10, 10))
kv.pull("big", out=out)
got, base = out.asnumpy().reshape(-1), np.arange(100)
for half in (slice(0, 50), slice(50, 100)):  # each server keeps the last push it got
    assert any(np.array_equal(got[half], base[half] * c) for c in (1, 2)), got

# with one, each push is applied at once by the servers
kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0))
kv.push("w", mx.nd.ones((3,)))
kv._barrier()
w = mx.nd.zeros((3,))
kv.pull("w", out=w)
assert (w.asnumpy() == -2).all(), w.asnumpy()
kv._send_command_to_servers(0, "anything")
try:
    kv.save_optimizer_states("never-written.states")
    raise AssertionError("dist_async states live on the servers")
except MXNetError as exc:
    assert "servers hold the optimizer" in str(exc)
print(f"OK dist_async rank {r}", flush=True)
