"""The test images of tools/make_golden_data.py, laid out again as MXNet saw them."""

from __future__ import annotations

import json
import os
import shutil

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def image_paths() -> list[str]:
    """The golden image files, in the order make_golden_data.py made them."""
    with open(os.path.join(GOLDEN, "layout.json")) as f:
        rel = json.load(f)
    return [os.path.join(GOLDEN, f"img{k}" + os.path.splitext(r)[1]) for k, r in enumerate(rel)]


def image_folder(dest: str) -> str:
    """Copy the golden images into ``dest`` as ``cat/…`` and ``dog/…`` (the generator's layout)."""
    with open(os.path.join(GOLDEN, "layout.json")) as f:
        rel = json.load(f)
    for src, r in zip(image_paths(), rel):
        os.makedirs(os.path.join(dest, os.path.dirname(r)), exist_ok=True)
        shutil.copy(src, os.path.join(dest, r))
    return dest
