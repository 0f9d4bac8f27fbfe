"""Readers of files from elsewhere, fed seeded mutations of files MXNet 1.9.1 wrote: every case
ends in a return or in the reader's clear error (MXNetError, or UnpicklingError for states),
never MemoryError, RecursionError or another crash, and no case allocates much memory.

``MXLITE_FUZZ_CASES`` sets the number of cases per file (default 60; run more locally).
"""

from __future__ import annotations

import os
import pickle
import random
import tracemalloc
from pathlib import Path

import pytest

import mxlite as mx
from mxlite.base import MXNetError

HERE = Path(__file__).resolve().parent
CASES = int(os.environ.get("MXLITE_FUZZ_CASES", "60"))
PEAK_LIMIT = 64 << 20  # bytes; the inputs are a few KB, a reader believing a header is not

PARAMS = [
    "ndarray/golden/dict_v2.params",
    "ndarray/golden/list_np.params",
    "module/golden/lenet-0001.params",
]
STATES = ["optimizer/golden/sgd_updater.states", "module/golden/lenet-0001.states"]


def _mutations(data: bytes, seed: int, n: int):
    """Truncations, flipped bytes, overwritten 8-byte words (huge counts and sizes) and
    duplicated or dropped spans, chosen by a seeded generator so CI sees the same cases."""
    rng = random.Random(seed)
    for cut in sorted({0, 1, 4, 8, 12, 16, 24, 32, len(data) // 2, len(data) - 1}):
        if cut < len(data):
            yield data[:cut]
    for _ in range(n):
        buf = bytearray(data)
        kind = rng.randrange(4)
        pos = rng.randrange(len(buf))
        if kind == 0:
            buf[pos] ^= 1 << rng.randrange(8)
        elif kind == 1:
            word = rng.choice([2**63 - 1, 2**40, 2**32 - 1, 2**31, 0xFFFFFFFF, 7])
            buf[pos : pos + 8] = word.to_bytes(8, "little")
        elif kind == 2:
            end = min(len(buf), pos + rng.randrange(1, 64))
            buf[pos:pos] = buf[pos:end]
        else:
            del buf[pos : pos + rng.randrange(1, 64)]
        yield bytes(buf)


def _run(read, blob: bytes, allowed: tuple[type[BaseException], ...]) -> None:
    tracemalloc.start()
    try:
        read(blob)
    except (MemoryError, RecursionError) as exc:  # pragma: no cover - what the test forbids
        pytest.fail(f"{type(exc).__name__} on a {len(blob)}-byte input")
    except allowed:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < PEAK_LIMIT, f"{peak} bytes allocated for a {len(blob)}-byte input"


@pytest.mark.parametrize("name", PARAMS)
def test_params_files(name: str, tmp_path: Path) -> None:
    data = (HERE / name).read_bytes()
    path = tmp_path / "m.params"
    for i, blob in enumerate(_mutations(data, seed=sum(name.encode()), n=CASES)):
        _run(mx.nd.load_frombuffer, blob, (MXNetError,))
        if i < 3:  # the file path too, where the error names the file
            path.write_bytes(blob)
            _run(lambda _b: mx.nd.load(str(path)), blob, (MXNetError,))


@pytest.mark.parametrize("name", STATES)
def test_optimizer_states_files(name: str) -> None:
    data = (HERE / name).read_bytes()

    def read(blob: bytes) -> None:
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(blob)

    # a damaged pickle fails in the unpickler (its own errors) or in the states' shape
    allowed = (pickle.UnpicklingError, MXNetError, EOFError, ValueError, TypeError, KeyError,
               IndexError, AttributeError, UnicodeDecodeError, OverflowError)  # fmt: skip
    for blob in _mutations(data, seed=7, n=CASES):
        _run(read, blob, allowed)


def test_symbol_json(tmp_path: Path) -> None:
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(mx.sym.Activation(data, act_type="relu"), num_hidden=3)
    text = mx.sym.BatchNorm(net, name="bn").tojson().encode()
    path = tmp_path / "net-symbol.json"
    for blob in [*_mutations(text, seed=11, n=CASES), b"[" * 100_000, b"\xff\xfe\x00"]:
        path.write_bytes(blob)
        _run(lambda _b: mx.sym.load(str(path)), blob, (MXNetError,))
