"""Existing MXNet clients, unchanged, on mxlite vs MXNet 1.9.1 (issue 19): GluonCV 0.10.5's
``resnet50_v1b`` hybridized inference (batch 1, 3x224x224, ms), one SSD training step of
GluonCV's ``ssd_512_resnet50_v1_voc`` (batch 2, 3x256x256, SSDMultiBoxLoss, SGD; targets from
SSDDefaultTrainTransform made once, outside the timing; ms), and MXNet 1.9.1's
``example/image-classification/train_imagenet.py --benchmark 1`` (ResNet-18, batch 8,
3x112x112 by default) as samples/s that its Speedometer logs (median of the logged lines;
reported also as ms per sample so that lower is better like the rest).

The example is taken from the apache/mxnet snapshot at run time (``git archive 1.9.1`` into a
temporary folder; MXNET_REPO or /work/.mirror/apache+mxnet/repo), never copied here. GluonCV
must be installed beside each implementation (``pip install --no-deps gluoncv==0.10.5.post0``
plus tqdm, portalocker, yacs, autocfg, Pillow, pyyaml). Under mxlite GluonCV and the example
import ``mxnet`` through the alias (``mxlite.as_mxnet()``, ``python -m mxlite.run``).
Issue 19 asks for <= 1.5x MXNet's time for each (goal faster).
Usage: python benchmarks/clients.py [--impl mxlite|mxnet|both] [--repeat N]
[--only resnet|ssd|imagenet] [--imagenet-args "..."]."""

from __future__ import annotations

import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import median_time, parser, run  # noqa: E402

MIRROR = Path(os.environ.get("MXNET_REPO", "/work/.mirror/apache+mxnet/repo"))
IMAGENET_ARGS = (
    "--network resnet --num-layers 18 --image-shape 3,112,112 --batch-size 8 "
    "--num-classes 10 --num-examples 96 --num-epochs 1 --disp-batches 2 --kv-store local"
)
SPEED = re.compile(r"Speed: ([\d.]+) samples/sec")


def import_gluoncv(impl: str):
    if impl == "mxlite":
        import mxlite

        mxlite.as_mxnet()  # GluonCV says `import mxnet` in its own modules
    import gluoncv
    import mxnet as mx

    return mx, gluoncv


def resnet_fn(mx, gluoncv):
    """Hybridized resnet50_v1b inference, batch 1 at 224 px, waiting for the output."""
    import numpy as np

    net = gluoncv.model_zoo.get_model("resnet50_v1b", pretrained=False)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 3, 224, 224)).astype("float32"))

    def infer() -> None:
        net(x).wait_to_read()

    return infer


def ssd_fn(mx, gluoncv, size: int = 256, batch: int = 2):
    """One SGD step of ssd_512_resnet50_v1_voc with SSDMultiBoxLoss."""
    import numpy as np
    from gluoncv.data.transforms.presets.ssd import SSDDefaultTrainTransform

    mx.random.seed(0)
    np.random.seed(0)
    net = gluoncv.model_zoo.get_model("ssd_512_resnet50_v1_voc", pretrained_base=False)
    net.initialize()  # Xavier fails on the 1-d parameters of its SymbolBlock, in MXNet too
    with mx.autograd.train_mode():
        _, _, anchors = net(mx.nd.zeros((1, 3, size, size)))
    transform = SSDDefaultTrainTransform(size, size, anchors)
    img = mx.nd.array(np.random.RandomState(1).randint(0, 256, (300, 360, 3)), dtype="uint8")
    label = np.array([[20, 30, 200, 180, 3], [100, 50, 300, 250, 7]], dtype="float32")
    samples = [transform(img, label) for _ in range(batch)]
    x, cls_t, box_t = (mx.nd.stack(*parts) for parts in zip(*samples))
    net.hybridize(static_alloc=True, static_shape=True)
    loss_fn = gluoncv.loss.SSDMultiBoxLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.001})

    def step() -> None:
        with mx.autograd.record():
            cls_pred, box_pred, _ = net(x)
            total, _, _ = loss_fn([cls_pred], [box_pred], [cls_t], [box_t])
            mx.autograd.backward(total)
        trainer.step(batch)
        mx.nd.waitall()

    return step


def imagenet_speed(impl: str, extra: str) -> float:
    """Median samples/s that train_imagenet.py --benchmark 1 logs, run in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", f"--git-dir={MIRROR}", "archive", "1.9.1", "example/image-classification"],
            capture_output=True, check=True,
        )  # fmt: skip
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        folder = Path(tmp) / "example" / "image-classification"
        # common/util.py imports requests though nothing is downloaded in benchmark mode
        (folder / "stubs").mkdir()
        (folder / "stubs" / "requests.py").write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("MXLITE_")}
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join([root, str(folder / "stubs")])
        alias = ["-m", "mxlite.run"] if impl == "mxlite" else []
        cmd = [sys.executable, *alias, "train_imagenet.py", "--benchmark", "1"]
        out = subprocess.run(
            cmd + shlex.split(extra), cwd=folder, env=env, capture_output=True, text=True
        )
        log = out.stdout + out.stderr
        speeds = [float(s) for s in SPEED.findall(log)]
        if out.returncode != 0 or not speeds:
            raise RuntimeError(f"train_imagenet.py failed: {log[-1500:]}")
        return statistics.median(speeds)


def measure(impl: str, repeat: int, only: str | None, imagenet_args: str) -> dict:
    out: dict = {}
    if only in (None, "resnet", "ssd"):
        mx, gluoncv = import_gluoncv(impl)
        if only in (None, "resnet"):
            seconds = median_time(resnet_fn(mx, gluoncv), repeat)
            out["resnet50_v1b_infer_ms"] = round(1000 * seconds, 3)
        if only in (None, "ssd"):
            seconds = median_time(ssd_fn(mx, gluoncv), repeat)
            out["ssd_train_step_ms"] = round(1000 * seconds, 3)
    if only in (None, "imagenet"):
        speed = imagenet_speed(impl, imagenet_args)
        out["imagenet_samples_per_sec"] = round(speed, 3)
        out["imagenet_ms_per_sample"] = round(1000 / speed, 3)
    return out


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--only", choices=("resnet", "ssd", "imagenet"), default=None)
    p.add_argument("--imagenet-args", default=IMAGENET_ARGS, help="train_imagenet.py arguments")
    args = p.parse_args()
    args.child_args = ["--imagenet-args", args.imagenet_args]
    if args.only:
        args.child_args += ["--only", args.only]
    keys = ["resnet50_v1b_infer_ms", "ssd_train_step_ms", "imagenet_ms_per_sample"]
    run(
        "clients",
        lambda impl, repeat: measure(impl, repeat, args.only, args.imagenet_args),
        args,
        keys,
    )


if __name__ == "__main__":
    main()
