"""MXNet's NDArray file format: MXNet 1.9.1 golden files, round trips, corruption, atomicity."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mxlite.base import (
    BFLOAT16,
    DTYPE_MX_TO_NP,
    DTYPE_NP_TO_MX,
    MX_BFLOAT16,
    DTypeError,
    MXNetError,
    storage_dtype,
)
from mxlite.ndarray import serialization as ser
from mxlite.ndarray.serialization import (
    SavedArray,
    dumps,
    dumps_array,
    load,
    loads,
    loads_array,
    save,
)
from tests.golden_file import load as load_golden
from tests.golden_file import mxnet_file

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).parents[2]
MXREF = Path("/tmp/mxref/bin/python")

GOLDEN_LISTS = sorted(GOLDEN.glob("*.params"))
GOLDEN_RAWS = sorted(GOLDEN.glob("*.raw"))
ALL_DTYPES = [storage_dtype(t) for t in DTYPE_MX_TO_NP.values() if t is not None]
SHAPES = [(), (0,), (1,), (2, 3), (2, 0, 3), (1, 1, 1, 1, 5)]


def expected(path: Path) -> list[np.ndarray] | dict[str, np.ndarray]:
    data = load_golden("ndarray/golden/ndarray.npz").arrays(path.stem)
    if path.name.startswith("dict_"):
        return data
    return [data[str(i)] for i in range(len(data))]


def assert_same(got: SavedArray, want: np.ndarray) -> None:
    assert isinstance(got, SavedArray)
    assert got.data.dtype == want.dtype
    assert got.data.shape == want.shape
    assert np.array_equal(got.data, want)
    assert (got.dev_type, got.dev_id) == (1, 0)


def assert_all_same(got, want) -> None:
    assert type(got) is type(want)
    if isinstance(want, dict):
        assert list(got) == list(want)
        for key in want:
            assert_same(got[key], want[key])
    else:
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_same(g, w)


def sample(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return (np.arange(n) % 3 == 1).reshape(shape)
    if dtype.kind == "f" or dtype == BFLOAT16:
        return ((np.arange(n) - 2.5) * 0.75).astype(dtype).reshape(shape)
    top = np.array(np.iinfo(dtype).max - 99, dtype=dtype)  # near the top: catches narrowing
    return (np.arange(n, dtype=dtype) * 37 % 100 + top).astype(dtype).reshape(shape)


# ----------------------------------------------------------------------------- dtype tables


def test_dtype_tables_match_mxnet_flags():
    want = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool",
            "int16", "uint16", "uint32", "uint64"]  # fmt: skip
    assert [np.dtype(DTYPE_MX_TO_NP[f]).name for f in range(12)] == want
    for flag, name in enumerate(want):
        assert DTYPE_NP_TO_MX[np.dtype(name).type] == flag
        assert DTYPE_NP_TO_MX[np.dtype(name)] == flag
    assert DTYPE_NP_TO_MX[np.dtype(np.longlong)] == 6 and DTYPE_NP_TO_MX[None] == -1
    # bfloat16: MXNet's record dtype is what its table gives; arrays hold ml_dtypes' bfloat16
    assert DTYPE_MX_TO_NP[12] == MX_BFLOAT16 == np.dtype([("bfloat16", np.uint16)])
    assert DTYPE_NP_TO_MX[MX_BFLOAT16] == DTYPE_NP_TO_MX[BFLOAT16] == 12
    assert DTYPE_NP_TO_MX[BFLOAT16.type] == 12
    assert storage_dtype(MX_BFLOAT16) == storage_dtype("bfloat16") == BFLOAT16


# ----------------------------------------------------------------------------- golden files


def test_golden_files_present():
    names = {p.name for p in GOLDEN_LISTS} | {p.name for p in GOLDEN_RAWS}
    assert {"list_v2.params", "dict_v2.params", "list_np.params", "single_v2.raw"} <= names


@pytest.mark.parametrize("path", GOLDEN_LISTS, ids=lambda p: p.name)
def test_golden_file_loads_as_saved(path: Path):
    want = expected(path)
    assert_all_same(load(path), want)
    assert_all_same(load(str(path)), want)
    assert_all_same(loads(path.read_bytes()), want)


@pytest.mark.parametrize("path", GOLDEN_LISTS, ids=lambda p: p.name)
def test_dumps_is_byte_identical_to_mxnet(path: Path):
    assert dumps(expected(path), np_shape="_np" in path.name) == path.read_bytes()


@pytest.mark.parametrize("path", GOLDEN_RAWS, ids=lambda p: p.name)
def test_golden_raw_array(path: Path):
    (want,) = expected(path)
    assert_same(loads_array(path.read_bytes()), want)
    assert dumps_array(want, np_shape="_np" in path.name) == path.read_bytes()


def test_mxnet_legacy_v0_file_from_mxnet_tests():
    raw = mxnet_file("tests/python/unittest/legacy_ndarray.v0")
    if raw is None:
        pytest.skip("MXNet's source mirror is absent")
    got = loads(raw)
    assert len(got) == 6
    for a in got:
        assert_same(a, np.arange(128, dtype=np.float32))


# ----------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("np_shape", [False, True])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_dtype_and_shape(dtype: np.dtype, np_shape: bool):
    arrays = [sample(dtype, s) for s in SHAPES]
    assert_all_same(loads(dumps(arrays, np_shape=np_shape)), arrays)
    named = {f"p{i}": a for i, a in enumerate(arrays)}
    assert_all_same(loads(dumps(named, np_shape=np_shape)), named)
    for a in arrays:
        assert_same(loads_array(dumps_array(a, np_shape=np_shape)), a)


def test_round_trip_odd_layouts_and_byte_orders():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    odd = [base[:, ::2], np.asfortranarray(base), base.astype(">f8"), base.astype(">i4")[1:3]]
    got = loads(dumps(odd))
    for g, w in zip(got, odd, strict=True):
        assert g.data.dtype == w.dtype.newbyteorder("=")
        assert g.data.dtype.isnative
        assert np.array_equal(g.data, w)
        assert g.data.flags.c_contiguous


def test_round_trip_numpy_scalar_and_unicode_names():
    data = {"ünï/κλειδί": np.float32(2.5), "": np.zeros((1,), np.int8)}
    got = loads(dumps(data))
    assert list(got) == list(data)
    assert got["ünï/κλειδί"].data.shape == () and got["ünï/κλειδί"].data == 2.5


def test_contexts_are_recorded_and_returned():
    arrays = [np.ones((2,), np.float32), np.zeros((1,), np.int64)]
    got = loads(dumps(arrays, contexts=[(2, 3), (5, 0)]))
    assert [(a.dev_type, a.dev_id) for a in got] == [(2, 3), (5, 0)]
    raw = dumps_array(arrays[0], context=(2, 1))
    assert (loads_array(raw).dev_type, loads_array(raw).dev_id) == (2, 1)


def test_loaded_data_owns_its_memory():
    buf = bytearray(dumps([np.arange(6, dtype=np.int32)]))
    (got,) = loads(buf)
    buf[-20:] = bytes(20)
    assert np.array_equal(got.data, np.arange(6))
    got.data[0] = 99  # writeable
    (from_view,) = loads(memoryview(bytes(buf)))
    assert from_view.data.flags.owndata and from_view.data.flags.c_contiguous


def test_loaded_file_data_owns_its_memory(tmp_path: Path):
    save(tmp_path / "w.params", [np.ones((3, 4), np.float16), np.ones((2,), ">i8")])
    for got in load(tmp_path / "w.params"):
        assert got.data.flags.owndata and got.data.flags.writeable and got.data.dtype.isnative


def test_bool_bytes_other_than_one_read_as_true():
    raw = bytearray(dumps_array(np.array([True, False, True])))
    raw[-1] = 7
    got = loads_array(bytes(raw)).data
    assert got.dtype == np.bool_
    assert got.view(np.uint8).tolist() == [1, 0, 1]


# ----------------------------------------------------------------------------- older formats


def v1_array(arr: np.ndarray) -> bytes:
    head = struct.pack(f"<Ii{arr.ndim}q", ser.NDARRAY_V1_MAGIC, arr.ndim, *arr.shape)
    return head + struct.pack("<iii", 1, 0, 0) + arr.astype("<f4").tobytes()


def magicless_array(arr: np.ndarray) -> bytes:
    head = struct.pack(f"<I{arr.ndim}I", arr.ndim, *arr.shape)
    return head + struct.pack("<iii", 2, 1, 0) + arr.astype("<f4").tobytes()


def file_of(*arrays: bytes, names: list[str] | None = None) -> bytes:
    out = struct.pack("<QQQ", 0x112, 0, len(arrays)) + b"".join(arrays)
    names = names or []
    out += struct.pack("<Q", len(names))
    for n in names:
        out += struct.pack("<Q", len(n)) + n.encode()
    return out


def test_loads_v1_and_magicless_legacy_arrays():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(4, dtype=np.float32)
    got = loads(file_of(v1_array(a), magicless_array(b), names=["a", "b"]))
    assert_same(got["a"], a)
    assert np.array_equal(got["b"].data, b) and (got["b"].dev_type, got["b"].dev_id) == (2, 1)


def test_v2_zero_dim_written_by_mxnet_loads_with_its_value():
    got = loads((GOLDEN / "scalar_v2.params").read_bytes())
    assert got[0].data.shape == () and got[0].data.dtype == np.float32


def test_empty_v2_array_of_old_mxnet_is_reported():
    old_empty = struct.pack("<Iii", ser.NDARRAY_V2_MAGIC, 0, 0)
    one = dumps_array(np.ones((1,), np.float32))
    with pytest.raises(MXNetError, match="array 0 is an empty NDArray"):
        loads(file_of(old_empty, one))


# ----------------------------------------------------------------------------- corrupt input


@pytest.mark.parametrize("path", GOLDEN_LISTS, ids=lambda p: p.name)
def test_every_truncation_raises_mxnet_error(path: Path):
    raw = path.read_bytes()
    for n in range(len(raw)):
        with pytest.raises(MXNetError):
            loads(raw[:n])


def test_every_truncation_of_a_raw_array_raises():
    raw = (GOLDEN / "single_v2.raw").read_bytes()
    for n in range(len(raw)):
        with pytest.raises(MXNetError):
            loads_array(raw[:n])


def test_truncated_file_error_names_the_file(tmp_path: Path):
    raw = (GOLDEN / "list_v2.params").read_bytes()
    for n in range(0, len(raw), 7):
        path = tmp_path / f"cut{n}.params"
        path.write_bytes(raw[:n])
        with pytest.raises(MXNetError, match=f"file '.*cut{n}.params'"):
            load(path)


@pytest.mark.parametrize("name", ["list_v2.params", "dict_np.params"])
def test_flipped_bytes_never_raise_anything_but_mxnet_error(name: str):
    raw = (GOLDEN / name).read_bytes()
    for i in range(len(raw)):
        for mask in (0x01, 0x80, 0xFF):
            bad = bytearray(raw)
            bad[i] ^= mask
            try:
                loads(bytes(bad))
            except MXNetError:
                pass


def patched(raw: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(raw)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


ONE = file_of(dumps_array(np.arange(6, dtype=np.float32).reshape(2, 3)))
# Offsets in ONE: 24 magic, 28 stype, 32 ndim, 36 dims, 52 dev_type, 56 dev_id, 60 flag.


@pytest.mark.parametrize(
    "offset, fmt, value, match",
    [
        (0, "<Q", 0x113, "not an MXNet NDArray file: header 0x113"),
        (16, "<Q", 2**40, "claims 1099511627776 arrays"),
        (24, "<I", 0xF993FACB, "neither an NDArray magic"),
        # a dense array relabelled sparse: its dims are read as the storage shape and shape
        (28, "<i", 1, "array 0 has device type 0"),
        (28, "<i", 2, "array 0 has device type 0"),
        (28, "<i", 7, "unknown storage type 7"),
        (32, "<i", -1, "unknown shape"),
        (32, "<i", 2**30, "claims ndim 1073741824"),
        (32, "<i", 65, "claims ndim 65; at most 64"),
        (36, "<q", 2**60, "the data of array 0 .* needs 1383505805528216371"),
        (36, "<q", -3, "negative dim"),
        (52, "<i", 4, "device type 4"),
        (60, "<i", 99, "unknown type flag 99"),
        (60, "<i", -1, "unknown type flag -1"),
        (60, "<i", 1, "the data of array 0 .* needs 48 bytes"),
        (len(ONE) - 8, "<Q", 3, "1 arrays but 3 names"),
    ],
)
def test_corrupt_fields_are_named(offset: int, fmt: str, value: int, match: str):
    with pytest.raises(MXNetError, match=match):
        loads(patched(ONE, offset, fmt, value))


def test_v3_unknown_dim_is_refused():
    raw = file_of(dumps_array(np.zeros((2, 3), np.float32), np_shape=True))
    with pytest.raises(MXNetError, match="unknown \\(-1\\) dimension"):
        loads(patched(raw, 44, "<q", -1))


def test_bfloat16_is_flag_12_with_its_raw_bits():
    bits = np.array([0x3F80, 0x4020, 0xBA83, 0x7FC0], np.uint16)  # 1.0, 2.5, -1e-3, nan
    raw = dumps([bits.view(BFLOAT16)])
    assert struct.unpack_from("<i", raw, 52)[0] == 12  # the type flag, after a 1-d shape
    assert raw[-16:-8] == bits.tobytes()  # then the count of names (none)
    assert dumps([bits.view(MX_BFLOAT16)]) == raw  # as asnumpy() gives it, as MXNet writes it
    (got,) = loads(raw)
    assert got.data.dtype == BFLOAT16 and np.array_equal(got.data.view(np.uint16), bits)


def test_trailing_garbage_and_bad_names_raise():
    with pytest.raises(MXNetError, match="3 bytes of unexpected data"):
        loads(ONE + b"abc")
    with pytest.raises(MXNetError, match="unexpected data after the array"):
        loads_array(dumps_array(np.ones(2)) + b"\0")
    arr = dumps_array(np.ones(1, np.float32))
    with pytest.raises(MXNetError, match="name 0 needs"):
        loads(file_of(arr)[:-8] + struct.pack("<QQ", 1, 2**62))
    with pytest.raises(MXNetError, match="not valid UTF-8"):
        loads(file_of(arr)[:-8] + struct.pack("<QQ", 1, 2) + b"\xff\xfe")


def test_bad_buffer_and_file_arguments(tmp_path: Path):
    with pytest.raises(MXNetError, match="loads: argument 'buf' must be bytes"):
        loads("not bytes")  # type: ignore[arg-type]
    with pytest.raises(MXNetError, match="load: cannot open file '.*missing.params'"):
        load(tmp_path / "missing.params")
    with pytest.raises(MXNetError, match="load: argument 'fname'"):
        load(3)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- bad arrays to save


@pytest.mark.parametrize(
    "arrays, err, match",
    [
        ([np.array(["a"])], DTypeError, "dumps: array 0 has dtype <U1"),
        ({"w": np.zeros(2, np.complex64)}, DTypeError, "array 'w' has dtype complex64"),
        ([np.zeros(2, dtype=[("x", "<u2")])], DTypeError, "has dtype"),
        ([[1.0, 2.0]], MXNetError, "array 0 must be a numpy.ndarray, got list"),
        ({1: np.zeros(1)}, MXNetError, "dict keys must be str, got int"),
        (np.zeros(2), MXNetError, "must be a list of arrays or a dict"),
    ],
)
def test_dumps_rejects_what_mxnet_cannot_hold(arrays, err, match):
    with pytest.raises(err, match=match):
        dumps(arrays)


def test_dumps_checks_contexts():
    with pytest.raises(MXNetError, match="'contexts' has 1 entries for 2 arrays"):
        dumps([np.ones(1), np.ones(1)], contexts=[(1, 0)])
    with pytest.raises(MXNetError, match="context of array 0 must be"):
        dumps([np.ones(1)], contexts=[(7, 0)])
    with pytest.raises(MXNetError, match="context of the array must be"):
        dumps_array(np.ones(1), context="cpu")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- atomic save


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "w.params")


def test_save_writes_what_dumps_returns(tmp_path: Path):
    data = {"a": np.arange(3, dtype=np.int64), "b": np.ones((2, 2), np.float16)}
    save(tmp_path / "w.params", data)
    assert (tmp_path / "w.params").read_bytes() == dumps(data)
    assert leftovers(tmp_path) == []
    umask = os.umask(0)
    os.umask(umask)
    if os.name == "posix":
        assert (tmp_path / "w.params").stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("where", ["write", "fsync", "replace", "interrupt"])
def test_failed_save_keeps_old_file_and_removes_temp(tmp_path: Path, monkeypatch, where: str):
    path = tmp_path / "w.params"
    path.write_bytes(b"old contents")

    def fail(*args, **kwargs):
        raise KeyboardInterrupt if where == "interrupt" else OSError(28, "No space left on device")

    if where in ("write", "interrupt"):
        real_fdopen = os.fdopen

        class Failing:
            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

            def write(self, chunk):
                self.f.write(chunk)
                fail()

        monkeypatch.setattr(os, "fdopen", lambda fd, mode: Failing(real_fdopen(fd, mode)))
    else:
        monkeypatch.setattr(os, where, fail)
    expected_error = KeyboardInterrupt if where == "interrupt" else MXNetError
    with pytest.raises(expected_error):
        save(path, [np.ones((100,), np.float32)])
    assert path.read_bytes() == b"old contents"
    assert leftovers(tmp_path) == []


def test_save_bad_input_or_folder_touches_nothing(tmp_path: Path):
    with pytest.raises(DTypeError):
        save(tmp_path / "w.params", [np.array([1j])])
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(MXNetError, match="save: cannot write file '.*nodir"):
        save(tmp_path / "nodir" / "w.params", [np.ones(1)])


# ----------------------------------------------------------------------------- real MXNet


def test_real_mxnet_loads_mxlite_files(tmp_path: Path):
    if not MXREF.exists():
        pytest.skip("real MXNet 1.9.1 (/tmp/mxref) is absent")
    every = [sample(dt, s) for dt in ALL_DTYPES[:8] for s in [(1,), (2, 3), (0,), (2, 0, 3)]]
    cases = {
        "list_v2": (every, False),
        "dict_v2": ({f"arg:w{i}": a for i, a in enumerate(every[:9])}, False),
        "empty_v2": ([], False),
        "list_np": ([sample(dt, ()) for dt in ALL_DTYPES[:8]] + every[:5], True),
        # A control the tool must reject, so a tool that passes everything fails this test.
        "wrong": ([np.ones((2,), np.float32)], False),
    }
    for name, (data, np_shape) in cases.items():
        save(tmp_path / f"{name}.params", data, np_shape=np_shape)
        named = data if isinstance(data, dict) else {str(i): a for i, a in enumerate(data)}
        if name == "wrong":
            named = {"0": np.array([1, 0], np.float32)}
        np.savez(tmp_path / f"{name}.npz", **named)
    for name, arr, np_shape in [("one_v2", every[5], False), ("one_np", every[0][0], True)]:
        (tmp_path / f"{name}.raw").write_bytes(dumps_array(arr, np_shape=np_shape))
        np.savez(tmp_path / f"{name}.npz", **{"0": arr})
    script = Path(__file__).parent / "ndarray_check.py"
    run = subprocess.run([str(MXREF), str(script), str(tmp_path)], capture_output=True, text=True)
    lines = sorted(run.stdout.splitlines())
    assert run.returncode == 1, run.stdout + run.stderr
    good = ["dict_v2.params", "empty_v2.params", "list_np.params", "list_v2.params"]
    want = [["FAIL", "wrong.params:"]] + [["ok", n] for n in good + ["one_np.raw", "one_v2.raw"]]
    assert [ln.split()[:2] for ln in lines] == want, run.stdout + run.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
