"""MXNet 1.9.1's own ``example/`` scripts, run unchanged under ``python -m mxlite.run``.

The scripts come from the apache/mxnet snapshot at test time (``git archive 1.9.1``), never from
the project; the data they would download is made here in its own format (synthetic MNIST idx
files), so every run is offline. Each test asserts exit status 0 and the metric lines the
script logs. Skipped with a reason when git or the snapshot is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from . import example_cases
from .golden_file import load, mxnet_archive

ROOT = Path(__file__).resolve().parent.parent


def fetch_examples(dest: Path, *paths: str) -> Path:
    """``git archive`` MXNet 1.9.1's ``paths`` into ``dest``; skips without git or snapshot."""
    if why := mxnet_archive(dest, *paths):
        pytest.skip(why)
    return dest / "example"


def run_example(
    script: Path, *args: str, cwd: Path, numpy_aliases: bool = False, ranks: int = 0
) -> str:
    """Run ``script`` under ``python -m mxlite.run`` (on ``ranks`` MPI ranks through
    ``mxlite.launch`` when given); returns stdout+stderr, asserting exit status 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXLITE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(cwd / "stubs")])
    # multi-threaded BLAS inside the engine's worker threads thrashes on a busy 2-core runner
    # (a 64x784x128 product: 0.3 ms on one thread, 30 ms on two): keep the runs short
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    flags = ["--numpy-aliases"] if numpy_aliases else []
    if ranks:
        flags += ["-m", "mxlite.launch", "-n", str(ranks)]
    out = subprocess.run(
        [sys.executable, "-m", "mxlite.run", *flags, str(script), *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-4000:]
    return text


def _stub_requests(cwd: Path) -> None:
    # image-classification/common/util.py imports requests even when the file is already there
    (cwd / "stubs").mkdir(exist_ok=True)
    (cwd / "stubs" / "requests.py").write_text("")


METRIC = re.compile(r"Epoch\[0\] Batch \[\d+-\d+\]\tSpeed: [\d.]+ samples/sec\taccuracy=[\d.]+")


@pytest.mark.parametrize(
    "network, extra",
    [("mlp", ["--num-examples", "256", "--batch-size", "32"]),
     ("lenet", ["--num-examples", "64", "--batch-size", "16"])],
)  # fmt: skip
def test_train_mnist(tmp_path: Path, network: str, extra: list[str]) -> None:
    example = fetch_examples(tmp_path, "example/image-classification") / "image-classification"
    example_cases.write_mnist(example / "data", int(extra[1]), 32)
    _stub_requests(example)
    args = ["--network", network, "--kv-store", "local", "--num-epochs", "1", "--disp-batches", "2"]
    # the script reads MNIST with np.fromstring's binary mode, which NumPy 2.3 removed
    log = run_example(example / "train_mnist.py", *args, *extra, cwd=example, numpy_aliases=True)
    assert METRIC.search(log), log[-2000:]
    assert re.search(r"Epoch\[0\] Train-accuracy=[\d.]+", log)
    assert re.search(r"Epoch\[0\] Validation-accuracy=[\d.]+", log)


def _have_mpi() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return bool(shutil.which("mpiexec", path=os.path.dirname(sys.executable)))


@pytest.mark.skipif(not _have_mpi(), reason="needs mpi4py and mpiexec (pip install mxlite[dist])")
def test_train_mnist_dist_sync_on_two_ranks(tmp_path: Path) -> None:
    example = fetch_examples(tmp_path, "example/image-classification") / "image-classification"
    example_cases.write_mnist(example / "data", 128, 32)
    _stub_requests(example)
    args = ["--network", "mlp", "--kv-store", "dist_sync", "--num-epochs", "1"]
    args += ["--num-examples", "128", "--batch-size", "16", "--disp-batches", "2"]
    script = example / "train_mnist.py"
    log = run_example(script, *args, cwd=example, numpy_aliases=True, ranks=2)
    assert len(METRIC.findall(log)) >= 2, log[-2000:]  # both ranks log
    assert log.count("Resizing training data to 4 batches per machine") == 2
    assert len(re.findall(r"Epoch\[0\] Validation-accuracy=[\d.]+", log)) == 2


@pytest.mark.parametrize(
    "network, extra",
    [("resnet", ["--num-layers", "8", "--image-shape", "3,28,28", "--batch-size", "8"]),
     # MobileNet's pooling is fixed for 224 px images (its 'resolution' is no argument)
     ("mobilenet", ["--image-shape", "3,224,224", "--batch-size", "2"])],
)  # fmt: skip
def test_train_imagenet_benchmark(tmp_path: Path, network: str, extra: list[str]) -> None:
    example = fetch_examples(tmp_path, "example/image-classification") / "image-classification"
    _stub_requests(example)
    size = extra[extra.index("--batch-size") + 1]
    args = ["--benchmark", "1", "--network", network, "--num-classes", "10", "--num-epochs", "1"]
    args += ["--num-examples", str(2 * int(size)), "--disp-batches", "1", "--kv-store", "local"]
    log = run_example(example / "train_imagenet.py", *args, *extra, cwd=example)
    assert METRIC.search(log), log[-2000:]
    assert re.search(r"Epoch\[0\] Train-accuracy=[\d.]+", log)


def test_gluon_mnist(tmp_path: Path) -> None:
    example = fetch_examples(tmp_path, "example/gluon/mnist") / "gluon" / "mnist"
    example_cases.write_mnist(example / "data", 128, 32)
    args = ["--epochs", "1", "--batch-size", "16", "--log-interval", "4"]
    log = run_example(example / "mnist.py", *args, cwd=example)
    assert re.search(r"\[Epoch 0 Batch 4\] Training: accuracy=[\d.]+", log), log[-2000:]
    assert re.search(r"\[Epoch 0\] Validation: accuracy=[\d.]+", log)
    assert (example / "mnist.params").exists()


@pytest.mark.parametrize("mode", ["imperative", "hybrid"])
def test_gluon_image_classification(tmp_path: Path, mode: str) -> None:
    paths = ["example/gluon/image_classification.py", "example/gluon/data.py"]
    example = fetch_examples(tmp_path, *paths) / "gluon"
    example_cases.write_mnist(
        example / "data", 64, 32, gz=False
    )  # mx.test_utils.get_mnist_iterator's files
    args = ["--dataset", "mnist", "--model", "mobilenet0.25", "--epochs", "1", "--mode", mode]
    args += ["--batch-size", "16", "--log-interval", "2", "--kvstore", "local"]
    log = run_example(example / "image_classification.py", *args, cwd=example)
    speed = r"Epoch\[0\] Batch \[1\]\tSpeed: [\d.]+ samples/sec\taccuracy=[\d.]+, top_k_accuracy_5="
    assert re.search(speed, log), log[-2000:]
    assert re.search(r"\[Epoch 0\] validation: accuracy=[\d.]+, top_k_accuracy_5=[\d.]+", log)


def _write_images(root: Path, classes: int, per_class: int, seed: int = 0) -> None:
    """Small PNGs in one folder per class (``root/c<k>/<i>.png``), class ``k`` a bright square
    at a class-dependent place, as ``im2rec --list --recursive`` expects them."""
    cv2 = pytest.importorskip("cv2", reason="needs OpenCV (pip install mxlite[image])")
    rng = np.random.default_rng(seed)
    for k in range(classes):
        (root / f"c{k}").mkdir(parents=True, exist_ok=True)
        r, c = 2 + 8 * (k // 4), 2 + 8 * (k % 4)
        for i in range(per_class):
            img = rng.integers(0, 80, (32, 32, 3)).astype(np.uint8)
            img[r : r + 8, c : c + 8] = 240
            cv2.imwrite(str(root / f"c{k}" / f"{i}.png"), img)


def test_train_cifar10_on_im2rec_records(tmp_path: Path) -> None:
    example = fetch_examples(tmp_path, "example/image-classification") / "image-classification"
    _write_images(example / "images", 10, 4)
    _stub_requests(example)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for extra in (["--list", "--recursive"], []):
        cmd = [sys.executable, "-m", "mxlite.tools.im2rec", *extra, "data/cifar10", "images"]
        done = subprocess.run(cmd, cwd=example, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
    # the script would download these two names: the same 40 records serve as both
    (example / "data" / "cifar10.rec").rename(example / "data" / "cifar10_train.rec")
    shutil.copy(example / "data" / "cifar10_train.rec", example / "data" / "cifar10_val.rec")
    args = ["--num-epochs", "1", "--num-examples", "40", "--batch-size", "8", "--num-layers", "20"]
    args += ["--disp-batches", "2", "--kv-store", "local", "--data-nthreads", "1"]
    log = run_example(example / "train_cifar10.py", *args, cwd=example)
    assert len(METRIC.findall(log)) == 2, log[-2000:]
    assert re.search(r"Epoch\[0\] Train-accuracy=[\d.]+", log)
    assert re.search(r"Epoch\[0\] Validation-accuracy=[\d.]+", log)


def test_train_mnist_metrics_equal_mxnet(tmp_path: Path) -> None:
    """One seeded run (tools/golden/cases/examples.py): same data, same starting checkpoint,
    same seeds as MXNet 1.9.1's run; every metric line MXNet logged, mxlite logs too."""
    import mxlite

    tool = example_cases
    golden = load("golden/train_mnist_mlp.npz").cases["train_mnist_mlp"]
    example = fetch_examples(tmp_path, "example/image-classification") / "image-classification"
    example_cases.write_mnist(example / "data", tool.N_TRAIN, tool.N_TEST, seed=tool.SEED)
    _stub_requests(example)
    (example / "seeded.py").write_text(tool.WRAPPER)
    shutil.copy(
        ROOT / "tests" / "golden" / "train_mnist_mlp-symbol.json", example / "init-symbol.json"
    )
    # the starting weights: the very bytes MXNet saved, written here by mxlite
    digest = tool.write_checkpoint_params(mxlite, example / "init-0000.params")
    assert digest == golden["params_sha256"]
    log = run_example(example / "seeded.py", "train_mnist.py", *golden["args"], cwd=example,
                      numpy_aliases=True)  # fmt: skip
    got = tool.metrics(log)
    assert [m[:4] for m in got] == [m[:4] for m in golden["metrics"]], log[-3000:]
    for mine, theirs in zip(got, golden["metrics"]):
        assert abs(mine[4] - theirs[4]) <= 1 / 64, (mine, theirs)  # at most one sample flips
