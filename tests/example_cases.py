"""The seeded run of MXNet's own ``train_mnist.py`` that tests/test_examples.py
(``test_train_mnist_metrics_equal_mxnet``) repeats under mxlite, and
tools/golden/cases/examples.py records under MXNet 1.9.1.

The run is made deterministic the way a user could: the synthetic MNIST files of
``tests/test_examples.py`` (a seeded generator), the starting weights as a checkpoint
(``--model-prefix init --load-epoch 0``: ``init-symbol.json`` and ``init-0000.params``, the
weights drawn from a seeded NumPy generator), and a wrapper that seeds NumPy's global state
(``NDArrayIter``'s shuffle draws from it) and ``mx.random`` before running the script.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import struct
from pathlib import Path
from typing import Any

import numpy as np

SEED = 7
N_TRAIN, N_TEST = 256, 64
ARGS = ["--network", "mlp", "--kv-store", "local", "--num-epochs", "1", "--batch-size", "32",
        "--disp-batches", "2", "--num-examples", str(N_TRAIN), "--model-prefix", "init",
        "--load-epoch", "0"]  # fmt: skip
SHAPES = {
    "fc1_weight": (128, 784),
    "fc1_bias": (128,),
    "fc2_weight": (64, 128),
    "fc2_bias": (64,),
    "fc3_weight": (10, 64),
    "fc3_bias": (10,),
}
WRAPPER = f"""import runpy, sys
import numpy as np
np.random.seed({SEED})  # NDArrayIter's shuffle draws from NumPy's global state
import mxnet as mx
mx.random.seed({SEED})
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
METRIC = re.compile(r"Epoch\[(\d+)\] (?:Batch \[(\d+)-(\d+)\]\tSpeed: [\d.]+ samples/sec\t)?"
                    r"(accuracy|Train-accuracy|Validation-accuracy)=([\d.]+)")  # fmt: skip


def initial_weights() -> dict[str, np.ndarray]:
    """Uniform(-a, a) weights with Xavier's a, zero biases, from a seeded generator."""
    rng = np.random.default_rng(SEED)
    out = {}
    for name, shape in SHAPES.items():
        if name.endswith("_bias"):
            out[name] = np.zeros(shape, np.float32)
        else:
            a = np.sqrt(6.0 / (shape[0] + shape[1]))
            out[name] = ((rng.random(shape) * 2 - 1) * a).astype(np.float32)
    return out


def write_checkpoint_params(mx: Any, path: Path) -> str:
    """Save :func:`initial_weights` as ``init-0000.params`` with ``mx``; returns its SHA-256."""
    mx.nd.save(str(path), {f"arg:{k}": mx.nd.array(v) for k, v in initial_weights().items()})
    return hashlib.sha256(path.read_bytes()).hexdigest()


def metrics(log: str) -> list[list[Any]]:
    """``[epoch, first batch, last batch, name, value]`` of every metric line in ``log``."""
    return [[int(e), int(b) if b else None, int(c) if c else None, name, float(v)]
            for e, b, c, name, v in METRIC.findall(log)]  # fmt: skip


def write_mnist(folder: Path, n_train: int, n_test: int, gz: bool = True, seed: int = 0) -> None:
    """Write the four MNIST idx files (``train-images-idx3-ubyte[.gz]`` ...) with synthetic
    learnable digits: class ``k`` lights a bright 7x7 square at a class-dependent place."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, n).astype(np.uint8)
        images = rng.integers(0, 60, (n, 28, 28)).astype(np.uint8)
        for i, k in enumerate(labels):
            r, c = 2 + 8 * (k // 3), 2 + 8 * (k % 3)
            images[i, r : r + 7, c : c + 7] = 250
        opener = gzip.open if gz else open
        suffix = ".gz" if gz else ""
        with opener(folder / f"{prefix}-labels-idx1-ubyte{suffix}", "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())
        with opener(folder / f"{prefix}-images-idx3-ubyte{suffix}", "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
