"""The test images of tools/golden/cases/data.py, laid out again as MXNet saw them."""

from __future__ import annotations

import os
import shutil

from tests.golden_file import load

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def _layout() -> list[str]:
    return load("io/golden/data.npz").cases["pixels"]["layout"]


def image_paths() -> list[str]:
    """The golden image files, in the order tools/golden/cases/data.py made them."""
    rel = _layout()
    return [os.path.join(GOLDEN, f"img{k}" + os.path.splitext(r)[1]) for k, r in enumerate(rel)]


def image_folder(dest: str) -> str:
    """Copy the golden images into ``dest`` as ``cat/…`` and ``dog/…`` (the generator's layout)."""
    rel = _layout()
    for src, r in zip(image_paths(), rel):
        os.makedirs(os.path.join(dest, os.path.dirname(r)), exist_ok=True)
        shutil.copy(src, os.path.join(dest, r))
    return dest
