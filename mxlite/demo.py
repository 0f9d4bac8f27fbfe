"""``python -m mxlite.demo``: what mxlite runs today, on MXNet 1.x code.

Fits a linear regression with NDArrays and autograd (plain SGD), shows its progress, saves the
parameters in MXNet's ``.params`` format, loads them back and checks them. The LeNet training
demo of the training-API issue replaces this once Module and the layers exist.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

import mxlite as mx


def main() -> int:
    rng = np.random.default_rng(0)
    true_w = np.array([[2.0], [-3.4]], dtype=np.float32)
    true_b = 4.2
    features = rng.standard_normal((1000, 2)).astype(np.float32)
    labels = features @ true_w + true_b + rng.normal(0, 0.01, (1000, 1)).astype(np.float32)
    X, y = mx.nd.array(features), mx.nd.array(labels)

    w = mx.nd.array(rng.normal(0, 0.01, (2, 1)))
    b = mx.nd.zeros((1,))
    for p in (w, b):
        p.attach_grad()

    def net(x: mx.nd.NDArray) -> mx.nd.NDArray:
        out = mx.nd.zeros((x.shape[0], 1))
        for j in range(x.shape[1]):  # x @ w, written with the element-wise operators
            out = out + x[:, j : j + 1] * w[j : j + 1].reshape((1, 1))
        return out + b

    lr, batch = 0.1, 50
    print(f"mxlite {mx.__version__} - linear regression with autograd, engine "
          f"{type(mx.engine.get()).__name__}")
    start = time.perf_counter()
    for epoch in range(5):
        total = 0.0
        for i in range(0, 1000, batch):
            xb, yb = X[i : i + batch], y[i : i + batch]
            with mx.autograd.record():
                err = net(xb) - yb
                loss = err * err / 2
            loss.backward()
            for p in (w, b):
                p[:] = p - lr * p.grad / batch
            total += float(loss.asnumpy().sum())
        print(f"epoch {epoch + 1}: loss {total / 1000:.6f}")
    print(f"trained in {time.perf_counter() - start:.2f} s: w = {w.asnumpy().ravel()}, "
          f"b = {b.asnumpy()[0]:.3f} (true: {true_w.ravel()}, {true_b})")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "linreg-0001.params")
        mx.nd.save(path, {"arg:w": w, "arg:b": b})
        back = mx.nd.load(path)
    ok = np.allclose(back["arg:w"].asnumpy(), w.asnumpy()) and \
        np.allclose(back["arg:w"].asnumpy().ravel(), true_w.ravel(), atol=0.05)
    print(f"saved and reloaded {sorted(back)} in MXNet's format: "
          f"{'parameters match' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
