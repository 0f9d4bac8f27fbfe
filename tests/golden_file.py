"""The one loader of golden files: values that real MXNet 1.9.1 computed, written by
``tools/golden/run.py`` (see ``tools/golden/core.py`` for the layout).

>>> g = load("operator/golden/unary.npz")
>>> case = g.cases["sin-float32"]          # op, params, n_in, n_out, grad, ...
>>> x, = g.inputs("sin-float32"); want, = g.outputs("sin-float32")
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent


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
