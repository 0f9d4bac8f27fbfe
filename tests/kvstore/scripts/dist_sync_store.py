"""Run on every worker of `python -m mxlite.launch -n N [-s S]`: dist_sync / dist_device_sync
methods, checked on each rank (an assertion error ends the job with a nonzero status)."""

import os
import tempfile

import numpy as np

import mxlite as mx
from mxlite.base import MXNetError

kv = mx.kv.create("dist_sync")
r, n = kv.rank, kv.num_workers
assert kv.type == "dist_sync" and 0 <= r < n == int(os.environ["EXPECT_WORKERS"])
devs = [mx.cpu(0), mx.cpu(1)]

# init: rank 0's value wins; push: the sum over workers and devices replaces it
kv.init(3, mx.nd.ones((3, 4)) * (r + 1))
out = mx.nd.zeros((3, 4))
kv.pull(3, out=out)
assert (out.asnumpy() == 1).all(), out.asnumpy()
kv.push(3, [mx.nd.ones((3, 4), d) * (r + 1) for d in devs])
outs = [mx.nd.zeros((3, 4), d) for d in devs]
kv.pull(3, out=outs)
want = 2 * n * (n + 1) / 2
assert all((o.asnumpy() == want).all() for o in outs), outs[0].asnumpy()

# several keys in one call: small ones share a message, the big one goes alone; dtypes kept
kv2 = mx.kv.create("dist_device_sync")
shapes = {"s1": (5,), "s2": (2, 3), "big": (600, 1000), "f64": (4,), "i32": (3,), "f16": (6,)}
dtypes = {"f64": "float64", "i32": "int32", "f16": "float16"}
keys = list(shapes)
kv2.init(keys, [mx.nd.zeros(shapes[k], dtype=dtypes.get(k, "float32")) for k in keys])
vals = [mx.nd.ones(shapes[k], dtype=dtypes.get(k, "float32")) * (r + 1) for k in keys]
kv2.pushpull(keys, vals)
for k, v in zip(keys, vals):
    assert v.dtype == np.dtype(dtypes.get(k, "float32")), (k, v.dtype)
    assert (v.asnumpy() == n * (n + 1) / 2).all(), (k, v.asnumpy())
outs = [[mx.nd.zeros(shapes[k], d, dtype=dtypes.get(k, "float32")) for d in devs] for k in keys]
kv2.pushpull(keys, [mx.nd.ones(shapes[k], dtype=dtypes.get(k, "float32")) for k in keys], outs)
kv2.pull(keys, out=[[mx.nd.zeros(shapes[k], dtype=dtypes.get(k, "float32"))] for k in keys])
for k, pair in zip(keys, outs):
    assert all((o.asnumpy() == n).all() for o in pair), (k, pair[1].asnumpy())
    stored = mx.nd.zeros(shapes[k], dtype=dtypes.get(k, "float32"))
    kv2.pull(k, out=stored)
    assert (stored.asnumpy() == n).all(), (k, stored.asnumpy())

# a value pushed alone is summed in place (MXNet pulls into it) and kept as the stored value;
# one array pushed for several keys, in one call or in turn, leaves each key its own sum
kv5 = mx.kv.create("dist_sync")
kv5.init(["a", "b", "c"], [mx.nd.zeros((300, 1000))] * 3)
v = mx.nd.ones((300, 1000)) * (r + 1)
kv5.push("a", v)
assert (v.asnumpy() == n * (n + 1) / 2).all(), v.asnumpy()[0, 0]
kv5.push("b", v)  # pushes the sum: "a" keeps its own copy of it
outs = [mx.nd.zeros((300, 1000)) for _ in range(2)]
kv5.pull(["a", "b"], out=outs)
assert (outs[0].asnumpy() == n * (n + 1) / 2).all(), outs[0].asnumpy()[0, 0]
assert (outs[1].asnumpy() == n * n * (n + 1) / 2).all(), outs[1].asnumpy()[0, 0]
w = mx.nd.ones((300, 1000)) * (r + 1)
kv5.push(["a", "c"], [w, w])  # one array for two keys: summed apart, w unchanged
kv5.pull(["a", "c"], out=outs)
assert all((o.asnumpy() == n * (n + 1) / 2).all() for o in outs)
assert (w.asnumpy() == r + 1).all()
kv5.pushpull("c", w, out=outs[0])
assert (w.asnumpy() == n * (n + 1) / 2).all() and (outs[0].asnumpy() == w.asnumpy()).all()
kv5.pull("b", out=w)  # w is the stored value of "c": "c" keeps a copy
kv5.pull("c", out=outs[1])
assert (w.asnumpy() == n * n * (n + 1) / 2).all() and (outs[1].asnumpy() == n * (n + 1) / 2).all()

try:
    kv2.init("s1", mx.nd.zeros((5,)))
    raise AssertionError("a second init must fail")
except MXNetError as exc:
    assert "duplicate init of key 's1'" in str(exc)

# an optimizer: every worker applies the same update to the same summed gradient
kv3 = mx.kv.create("dist_sync")
kv3.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
kv3.init(0, mx.nd.ones((2, 2)))
for step in range(2):
    kv3.push(0, mx.nd.ones((2, 2)) * (r + 1) * (step + 1))
w = mx.nd.zeros((2, 2))
kv3.pull(0, out=w)
g = n * (n + 1) / 2
m1 = -0.1 * g
want = 1 + m1 + (0.9 * m1 - 0.1 * 2 * g)
assert np.allclose(w.asnumpy(), want), (w.asnumpy(), want)
with tempfile.TemporaryDirectory() as tmp:
    kv3.save_optimizer_states(os.path.join(tmp, f"r{r}.states"))
    kv3.load_optimizer_states(os.path.join(tmp, f"r{r}.states"))

# 2-bit compression: each worker's value is thresholded against its residual
kv4 = mx.kv.create("dist_sync")
kv4.set_gradient_compression({"type": "2bit", "threshold": 0.5})
kv4.init("c", mx.nd.zeros((20,)))
grad = np.linspace(-1, 1, 20).astype(np.float32) * (r + 1) / n
kv4.push("c", mx.nd.array(grad))
got = mx.nd.zeros((20,))
kv4.pull("c", out=got)
expect = np.zeros(20, np.float32)
for q in range(n):
    gq = np.linspace(-1, 1, 20).astype(np.float32) * (q + 1) / n
    expect += np.where(gq >= 0.5, 0.5, np.where(gq <= -0.5, -0.5, 0))
assert np.array_equal(got.asnumpy(), expect), (got.asnumpy(), expect)

# an input that failed on one rank: that rank's collective still runs (no rank is left
# waiting) and its output carries the failure
val = mx.nd.ones((4,))
if r == 1:

    def boom(rctx):
        raise ValueError("bad gradient")

    mx.engine.get().push_sync(boom, mx.cpu(), [], [val._chunk.var])
kv.init(99, mx.nd.zeros((4,)))
kv.push(99, val)
out = mx.nd.zeros((4,))
kv.pull(99, out=out)
try:
    out.asnumpy()
    assert r != 1, "the failure must reach the output"
except MXNetError as exc:
    assert r == 1 and "bad gradient" in str(exc), exc

kv._barrier()
print(f"OK dist_sync rank {r} of {n}", flush=True)
