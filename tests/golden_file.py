"""The one loader of golden files: values that real MXNet 1.9.1 computed, written by
``tools/golden/run.py`` (see ``tools/golden/core.py`` for the layout).

>>> g = load("operator/golden/unary.npz")
>>> case = g.cases["sin-float32"]          # op, params, n_in, n_out, grad, ...
>>> x, = g.inputs("sin-float32"); want, = g.outputs("sin-float32")

MXNet's own files at tag 1.9.1 (read, never copied) come from the apache/mxnet mirror
(:data:`MIRROR`): :func:`mxnet_file`, :func:`mxnet_archive`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent
MIRROR = Path(os.environ.get("MXNET_REPO", "/work/.mirror/apache+mxnet/repo"))  # a git dir


class GoldenFile(Mapping):
    """The arrays of one golden file (a mapping ``"<case>/<key>" -> array``) and its cases."""

    def __init__(self, path: Path) -> None:
        with np.load(path, allow_pickle=False) as data:
            self._arrays = {k: data[k] for k in data.files if k != "__cases__"}
            raw = data["__cases__"]  # UTF-8 bytes (a str in files written before)
            text = raw.tobytes().decode() if raw.dtype == np.uint8 else str(raw)
            self.cases: dict[str, dict] = json.loads(text)

    def __getitem__(self, key: str) -> np.ndarray:
        return self._arrays[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def arrays(self, case: str) -> dict[str, np.ndarray]:
        """Every array of ``case``, keyed by what follows ``<case>/``."""
        n = len(case) + 1
        return {k[n:]: v for k, v in self._arrays.items() if k.startswith(f"{case}/")}

    def series(self, case: str, kind: str) -> list[np.ndarray]:
        """``<case>/<kind>0``, ``<case>/<kind>1``, ... while they exist."""
        out: list[np.ndarray] = []
        while f"{case}/{kind}{len(out)}" in self._arrays:
            out.append(self._arrays[f"{case}/{kind}{len(out)}"])
        return out

    def inputs(self, case: str) -> list[np.ndarray]:
        return self.series(case, "in")

    def outputs(self, case: str) -> list[np.ndarray]:
        return self.series(case, "out")

    def heads(self, case: str) -> list[np.ndarray]:
        return self.series(case, "head")

    def grads(self, case: str) -> list[np.ndarray]:
        return self.series(case, "grad")


def load(path: str) -> GoldenFile:
    """The golden file at ``path``, relative to ``tests/``."""
    return GoldenFile(TESTS / path)


def mxnet_file(path: str) -> bytes | None:
    """The bytes of ``path`` at MXNet's tag 1.9.1 in the mirror; None without it (or git)."""
    try:
        res = subprocess.run(["git", f"--git-dir={MIRROR}", "show", f"1.9.1:{path}"],
                             capture_output=True, check=True)  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return None
    return res.stdout


def mxnet_archive(dest: Path, *paths: str) -> str | None:
    """Extract ``paths`` at MXNet's tag 1.9.1 from the mirror into ``dest`` (``git archive``):
    None, or why they could not be."""
    if shutil.which("git") is None:
        return "git is not installed"
    if not MIRROR.exists():
        return f"no apache/mxnet snapshot at {MIRROR} (set MXNET_REPO)"
    archive = subprocess.run(["git", f"--git-dir={MIRROR}", "archive", "1.9.1", *paths],
                             capture_output=True, timeout=60)  # fmt: skip
    if archive.returncode != 0:
        return f"git archive of MXNet 1.9.1 failed: {archive.stderr.decode()[-200:]}"
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return None
