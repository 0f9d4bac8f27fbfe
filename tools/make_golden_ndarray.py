"""Write golden NDArray files with real MXNet 1.9.1, for tests/ndarray/test_serialization.py.

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_ndarray.py [OUT_DIR]

OUT_DIR defaults to tests/ndarray/golden. For each ``NAME.params`` (written by ``mx.nd.save``)
or ``NAME.raw`` (one array's pickled bytes, ``NDArray.__getstate__()['handle']``) it writes
``NAME.npz`` with the same data: keys ``"0"``, ``"1"``, ... for a list, the names for a dict.
Files whose NAME contains ``_np`` were written with numpy-shape semantics on (format V3).
"""

from __future__ import annotations

import os
import sys

import mxnet as mx
import numpy as np

DTYPES = ["float32", "float64", "float16", "uint8", "int8", "int32", "int64", "bool"]


def values(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Small data that tells the dtypes apart: fractions, negatives, big ints, both bools."""
    n = int(np.prod(shape))
    base = np.arange(n, dtype=np.float64) + seed
    if dtype == "bool":
        out = (np.arange(n) + seed) % 2 == 1
    elif dtype.startswith("float"):
        out = (base - n / 2) * 0.375
    elif dtype == "uint8":
        out = 255 - base
    elif dtype == "int64":
        out = (base - n) * (2**40 + 3)
    else:
        out = base * 7 - 20
    return np.asarray(out).astype(dtype).reshape(shape)


def write(out_dir: str, name: str, data: list | dict) -> None:
    arrays = data if isinstance(data, list) else list(data.values())
    nds = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    for nd, a in zip(nds, arrays, strict=True):
        assert nd.shape == a.shape and nd.dtype == a.dtype, (name, nd.shape, a.shape)
    path = os.path.join(out_dir, name + ".params")
    if isinstance(data, list):
        mx.nd.save(path, nds)
        np.savez(os.path.join(out_dir, name + ".npz"), **{str(i): a for i, a in enumerate(data)})
    else:
        mx.nd.save(path, dict(zip(data, nds, strict=True)))
        np.savez(os.path.join(out_dir, name + ".npz"), **data)


def write_raw(out_dir: str, name: str, arr: np.ndarray) -> None:
    raw = mx.nd.array(arr, dtype=arr.dtype).__getstate__()["handle"]
    with open(os.path.join(out_dir, name + ".raw"), "wb") as f:
        f.write(bytes(raw))
    np.savez(os.path.join(out_dir, name + ".npz"), **{"0": arr})


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    # Legacy shape semantics (MXNet's default): every dtype, and shapes mx.nd.array accepts.
    shapes = [(1,), (2, 3), (0,), (2, 0, 3), (3, 1, 2)]
    write(out_dir, "list_v2", [values(dt, shapes[i % 5], i) for i, dt in enumerate(DTYPES)])
    write(out_dir, "dict_v2", {f"arg:{dt}_w": values(dt, (2, 2), 3) for dt in DTYPES})
    write(out_dir, "empty_list_v2", [])
    # MXNet 1.9.1 writes a 0-d array in V2 with its data, though its own load cannot read it.
    write(out_dir, "scalar_v2", [values("float32", (), 5), values("int32", (2,), 1)])
    write_raw(out_dir, "single_v2", values("float16", (2, 3), 2))

    mx.util.set_np_shape(True)
    try:
        np_shapes = [(), (0,), (2, 0, 3), (2, 3), ()]
        write(out_dir, "list_np", [values(dt, np_shapes[i % 5], i) for i, dt in enumerate(DTYPES)])
        write(
            out_dir, "dict_np", {"scalar": values("float64", (), 1), "w": values("int8", (4,), 0)}
        )
        write_raw(out_dir, "single_np", values("float32", (), 9))
    finally:
        mx.util.set_np_shape(False)
    print("wrote golden NDArray files to", out_dir)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "tests", "ndarray", "golden")
    main(sys.argv[1] if len(sys.argv) > 1 else default)
