"""The metrics MXNet 1.9.1 logs for one seeded run of its own ``train_mnist.py``, for
tests/test_examples.py (``test_train_mnist_metrics_equal_mxnet``).

Run under the reference interpreter, with the apache/mxnet snapshot at ``MXNET_REPO``::

    /tmp/mxref/bin/python tools/make_golden_examples.py [OUT_FOLDER]

The run is made deterministic the way a user could: the synthetic MNIST files of
``tests/test_examples.py`` (a seeded generator), the starting weights as a checkpoint
(``--model-prefix init --load-epoch 0``: ``init-symbol.json`` and ``init-0000.params``, the
weights drawn from a seeded NumPy generator), and a wrapper that seeds NumPy's global state
(``NDArrayIter``'s shuffle draws from it) and ``mx.random`` before running the script. Written
to ``OUT_FOLDER`` (default ``tests/golden``): ``train_mnist_mlp-symbol.json`` (the checkpoint's
symbol, as MXNet saved it) and ``train_mnist_mlp.json``: the arguments, the SHA-256 of the
params file MXNet saved (mxlite writes the same bytes) and the metrics MXNet logged.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
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


def _load_test_examples() -> Any:
    spec = importlib.util.spec_from_file_location("test_examples", HERE.parent / "tests" /
                                                  "test_examples.py")  # fmt: skip
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(out: Path) -> None:
    import mxnet as mx

    examples = _load_test_examples()
    mirror = os.environ.get("MXNET_REPO", "/work/.mirror/apache+mxnet/repo")
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", f"--git-dir={mirror}", "archive", "1.9.1", "example/image-classification"],
            capture_output=True, check=True,
        )  # fmt: skip
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        folder = Path(tmp) / "example" / "image-classification"
        examples.write_mnist(folder / "data", N_TRAIN, N_TEST, seed=SEED)
        (folder / "stubs").mkdir()
        (folder / "stubs" / "requests.py").write_text("")
        (folder / "seeded.py").write_text(WRAPPER)
        sys.path.insert(0, str(folder))
        from symbols import mlp

        mlp.get_symbol(num_classes=10).save(str(folder / "init-symbol.json"))
        digest = write_checkpoint_params(mx, folder / "init-0000.params")
        env = {**os.environ, "PYTHONPATH": str(folder / "stubs")}
        run = subprocess.run(
            [sys.executable, "seeded.py", "train_mnist.py", *ARGS],
            cwd=folder, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        log = run.stdout + run.stderr
        found = metrics(log)
        assert len(found) == 5, log[-3000:]  # three Speedometer lines, train, validation
        out.mkdir(parents=True, exist_ok=True)
        symbol = (folder / "init-symbol.json").read_text()
        (out / "train_mnist_mlp-symbol.json").write_text(symbol)
    golden = {"seed": SEED, "args": ARGS, "params_sha256": digest, "metrics": found}
    (out / "train_mnist_mlp.json").write_text(json.dumps(golden, indent=1) + "\n")
    print("\n".join(map(str, found)))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "tests" / "golden")
