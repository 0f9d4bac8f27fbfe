"""NDArray files written by real MXNet 1.9.1 (tests/ndarray/test_serialization.py), in
tests/ndarray/golden/: ``NAME.params`` (``mx.nd.save``) or ``NAME.raw`` (one array's pickled
bytes, ``NDArray.__getstate__()['handle']``), and their data as entry ``NAME`` of ndarray.npz:
keys ``"0"``, ``"1"``, ... for a list, the names for a dict. Files whose NAME contains ``_np``
were written with numpy-shape semantics on (format V3).
"""

import mxnet as mx
import numpy as np
from core import Golden

FILE = "tests/ndarray/golden/ndarray.npz"

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


def write(golden: Golden, name: str, data: list | dict) -> None:
    arrays = data if isinstance(data, list) else list(data.values())
    nds = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    for nd, a in zip(nds, arrays, strict=True):
        assert nd.shape == a.shape and nd.dtype == a.dtype, (name, nd.shape, a.shape)
    path = str(golden.path.parent / f"{name}.params")
    if isinstance(data, list):
        mx.nd.save(path, nds)
        golden.put(name, {}, **{str(i): a for i, a in enumerate(data)})
    else:
        mx.nd.save(path, dict(zip(data, nds, strict=True)))
        golden.put(name, {}, **data)


def write_raw(golden: Golden, name: str, arr: np.ndarray) -> None:
    raw = mx.nd.array(arr, dtype=arr.dtype).__getstate__()["handle"]
    (golden.path.parent / f"{name}.raw").write_bytes(bytes(raw))
    golden.put(name, {}, **{"0": arr})


def record(golden: Golden) -> None:
    # Legacy shape semantics (MXNet's default): every dtype, and shapes mx.nd.array accepts.
    shapes = [(1,), (2, 3), (0,), (2, 0, 3), (3, 1, 2)]
    write(golden, "list_v2", [values(dt, shapes[i % 5], i) for i, dt in enumerate(DTYPES)])
    write(golden, "dict_v2", {f"arg:{dt}_w": values(dt, (2, 2), 3) for dt in DTYPES})
    write(golden, "empty_list_v2", [])
    # MXNet 1.9.1 writes a 0-d array in V2 with its data, though its own load cannot read it.
    write(golden, "scalar_v2", [values("float32", (), 5), values("int32", (2,), 1)])
    write_raw(golden, "single_v2", values("float16", (2, 3), 2))

    mx.util.set_np_shape(True)
    try:
        np_shapes = [(), (0,), (2, 0, 3), (2, 3), ()]
        write(golden, "list_np", [values(dt, np_shapes[i % 5], i) for i, dt in enumerate(DTYPES)])
        write(golden, "dict_np", {"scalar": values("float64", (), 1), "w": values("int8", (4,), 0)})
        write_raw(golden, "single_np", values("float32", (), 9))
    finally:
        mx.util.set_np_shape(False)
