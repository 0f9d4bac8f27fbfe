"""The metrics MXNet 1.9.1 logs for one seeded run of its own ``train_mnist.py``
(tests/test_examples.py), as tests/example_cases.py describes it, with the apache/mxnet snapshot
at ``MXNET_REPO``: ``tests/golden/train_mnist_mlp-symbol.json`` (the starting checkpoint's
symbol, as MXNet saved it) and the entry ``train_mnist_mlp``: the arguments, the SHA-256 of the
params file MXNet saved (mxlite writes the same bytes) and the metrics MXNet logged."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import mxnet as mx
from core import Golden, load_module, mxnet_archive

FILE = "tests/golden/train_mnist_mlp.npz"


def record(golden: Golden) -> None:
    c = load_module("tests/example_cases.py")
    out = golden.path.parent
    with tempfile.TemporaryDirectory() as tmp:
        if why := mxnet_archive(Path(tmp), "example/image-classification"):
            raise RuntimeError(why)
        folder = Path(tmp) / "example" / "image-classification"
        c.write_mnist(folder / "data", c.N_TRAIN, c.N_TEST, seed=c.SEED)
        (folder / "stubs").mkdir()
        (folder / "stubs" / "requests.py").write_text("")
        (folder / "seeded.py").write_text(c.WRAPPER)
        sys.path.insert(0, str(folder))
        from symbols import mlp

        mlp.get_symbol(num_classes=10).save(str(folder / "init-symbol.json"))
        digest = c.write_checkpoint_params(mx, folder / "init-0000.params")
        env = {**os.environ, "PYTHONPATH": str(folder / "stubs")}
        run = subprocess.run(
            [sys.executable, "seeded.py", "train_mnist.py", *c.ARGS],
            cwd=folder, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        log = run.stdout + run.stderr
        found = c.metrics(log)
        assert len(found) == 5, log[-3000:]  # three Speedometer lines, train, validation
        out.mkdir(parents=True, exist_ok=True)
        symbol = (folder / "init-symbol.json").read_text()
        (out / "train_mnist_mlp-symbol.json").write_text(symbol)
    run = {"seed": c.SEED, "args": c.ARGS, "params_sha256": digest, "metrics": found}
    golden.put("train_mnist_mlp", run)
    print("\n".join(map(str, found)))
