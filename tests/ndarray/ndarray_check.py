"""Check that real MXNet 1.9.1 loads NDArray files written by mxlite, with the right data.

Run under the reference interpreter::

    /tmp/mxref/bin/python tests/ndarray/ndarray_check.py DIR

For every ``NAME.params`` (a list or dict file) and ``NAME.raw`` (one array's raw bytes, as
NDArray pickles hold them) in DIR there must be a ``NAME.npz`` with the expected data: keys
``"0"``, ``"1"``, ... for a list, the names for a dict. Files in format V3 are loaded with
numpy-shape semantics on, as MXNet requires. Prints one line per file; exit status 0 when
every file matches, 1 otherwise.
"""

from __future__ import annotations

import os
import struct
import sys

import numpy as np

V3_MAGIC = 0xF993FACA


def first_magic(raw: bytes, offset: int) -> int | None:
    if len(raw) < offset + 4:
        return None
    return struct.unpack_from("<I", raw, offset)[0]


def same(got: np.ndarray, want: np.ndarray) -> str | None:
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    nan = got.dtype.kind == "f"
    if not np.array_equal(got, want, equal_nan=nan):
        return f"values differ: {got.ravel()[:8]} vs {want.ravel()[:8]}"
    return None


def load(path: str, raw_array: bool):
    import mxnet as mx  # the reference interpreter's; the test collection imports this file

    with open(path, "rb") as f:
        raw = f.read()
    np_shape = first_magic(raw, 0 if raw_array else 24) == V3_MAGIC
    with mx.util.np_shape(np_shape):
        if raw_array:
            nd = mx.nd.NDArray(None)
            nd.__setstate__({"handle": bytearray(raw)})
            return {"0": nd.asnumpy()}
        loaded = mx.nd.load(path)
        if isinstance(loaded, list):
            return {str(i): a.asnumpy() for i, a in enumerate(loaded)}
        return {k: a.asnumpy() for k, a in loaded.items()}


def check(path: str) -> str | None:
    stem, ext = os.path.splitext(path)
    want = np.load(stem + ".npz")
    got = load(path, ext == ".raw")
    if sorted(got) != sorted(want.files):
        return f"keys {sorted(got)} != {sorted(want.files)}"
    for key in want.files:
        problem = same(got[key], want[key])
        if problem:
            return f"{key!r}: {problem}"
    return None


def main(folder: str) -> int:
    names = sorted(n for n in os.listdir(folder) if n.endswith((".params", ".raw")))
    if not names:
        print("no .params or .raw files in", folder)
        return 1
    failed = 0
    for name in names:
        try:
            problem = check(os.path.join(folder, name))
        except Exception as exc:  # report every file, not just the first that breaks
            problem = f"{type(exc).__name__}: {str(exc)[:300]}"
        print(f"{'FAIL' if problem else 'ok  '} {name}" + (f": {problem}" if problem else ""))
        failed += bool(problem)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
