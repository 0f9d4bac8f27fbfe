"""GluonCV 0.10.5, unchanged, on mxlite's ``mxnet`` alias: outputs equal to MXNet 1.9.1's.

The workloads (``gluoncv_cases.py``: ``get_model`` with ``pretrained=False`` for classification,
detection, segmentation and pose, inference imperative and hybridized, ``load_parameters`` of a
file MXNet saved, two training steps of SSD and YOLOv3 with GluonCV's transforms, target
generators and losses, one step of SSD's fix_gamma BatchNorm gammas, the presets and
``utils.bbox``) run once, in a fresh interpreter under
``python -m mxlite.run --numpy-aliases`` (GluonCV uses ``np.float``), and are compared with
``golden/gluoncv/outputs.npz`` from ``tools/golden/cases/gluoncv.py``.

By default the small networks run (about 25 s on two cores); the ResNet-50 and DarkNet-53
based ones (resnet50_v1b, center_net, ssd, yolo3, faster_rcnn, fcn: a few minutes) run only
with ``GLUONCV_FULL=1``.
Skipped with a reason when GluonCV is not installed (``pip install gluoncv==0.10.5.post0``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.golden_file import load

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "gluoncv"
SLOW = ("resnet50_v1b", "center_net", "ssd", "yolo3", "faster_rcnn", "fcn")
FAST = (
    "load_parameters", "presets", "mobilenetv2", "simple_pose", "ssd_fixed_gamma", "ssd_train",
    "yolo3_train",
)  # fmt: skip
# in the order the golden run took them: block names count up within one process
CASES = ("load_parameters", *sorted(set(FAST + SLOW) - {"load_parameters"}))
if os.environ.get("GLUONCV_FULL") != "1":
    CASES = tuple(c for c in CASES if c in FAST)
# resize with bicubic interpolation: MXNet's bundled OpenCV and OpenCV 4.7+ round a few
# pixels one step apart; normalised with std 0.224 a step is 1 / 255 / 0.224
ONE_STEP = {"presets/rcnn_test": 0.0176, "presets/ssd_test": 0.0176, "presets/rcnn_orig": 1}

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("gluoncv") is None,
        reason="GluonCV is not installed (pip install --no-deps gluoncv==0.10.5.post0)",
    ),
    pytest.mark.skipif(not (GOLDEN / "outputs.npz").exists(), reason="no golden files"),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    out = tmp_path_factory.mktemp("gluoncv") / "outputs.npz"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXLITE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    params = GOLDEN / "cifar_resnet20_v1.params"
    cmd = [sys.executable, "-m", "mxlite.run", "--numpy-aliases", str(HERE / "gluoncv_cases.py")]
    run = subprocess.run(
        [*cmd, str(out), f"--params={params}", *CASES],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    print(run.stderr[-1000:])  # the seconds each case took
    with np.load(out) as got:
        return dict(got.items()), dict(load("run/golden/gluoncv/outputs.npz").items())


@pytest.mark.parametrize("case", CASES)
def test_equal_to_mxnet(results: tuple[dict, dict], case: str) -> None:
    got, want = results
    keys = [k for k in want if k.startswith(case + "/") and "/spread/" not in k]
    assert keys
    for key in keys:
        assert key in got, f"{key}: missing from mxlite's run"
        a, b = got[key], want[key]
        if b.dtype.kind == "U":  # parameter names, as JSON
            assert json.loads(str(a)) == json.loads(str(b)), f"{key}: names differ"
            continue
        assert a.shape == b.shape, f"{key}: shape {a.shape}, MXNet {b.shape}"
        if key.endswith("/checksums"):
            # per parameter, two SGD steps of these random-weight networks (batch-1 BatchNorm
            # on 3x3 maps, YOLOv3's thresholded ignore mask) move MXNet's own gradients by tens
            # of percent when the input moves by 1e-6: only the totals over the network are
            # stable, to about 1% plus what MXNet's own total moves by then
            spread = want.get(f"{case}/spread/checksums")
            moved = 0.0 if spread is None else spread.sum(axis=0)
            a, b = a.sum(axis=0), b.sum(axis=0)
            np.testing.assert_array_less(np.abs(a - b), 1e-2 * np.abs(b) + moved, err_msg=key)
            continue
        tol = 1e-4 * (np.abs(b) + float(np.abs(b).max(initial=0.0))) + ONE_STEP.get(key, 0.0)
        spread = want.get(f"{case}/spread/{key.rsplit('/', 1)[1]}")
        if spread is not None:
            # MXNet's own result moves by `spread` when the input moves by 1e-4 (relatively)
            tol = tol + 10 * spread
        worst = float(np.max(np.abs(a.astype("f8") - b) - tol, initial=0.0))
        assert worst <= 0, f"{key}: off by {worst:.3g} beyond the tolerance"
