"""The README's main command: the LeNet demo trains, checkpoints, reloads and reaches 95%."""

from __future__ import annotations

import subprocess
import sys


def test_demo_reaches_95_percent_after_reload():
    out = subprocess.run(
        [sys.executable, "-m", "mxlite.demo"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Speed:" in out.stdout and "Validation-accuracy" in out.stdout
    acc = float(out.stdout.strip().splitlines()[-1].rsplit(" ", 1)[1])
    assert acc >= 0.95
