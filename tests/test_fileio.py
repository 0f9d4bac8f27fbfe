"""mxlite.fileio: the restricted unpickler admits what states files hold and nothing else, and
atomic writes leave the old file whole when they fail."""

from __future__ import annotations

import os
import pickle
import pickletools
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.fileio import atomic_write, restricted_loads

# ---- payloads that would run code -----------------------------------------------------------


class _Call:
    """Pickles as a call of ``func(*args)``: what a hostile file puts in a global + REDUCE."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _payloads(marker: Path) -> dict[str, object]:
    import subprocess

    return {
        "os.system": _Call(os.system, f"touch {marker}"),
        "builtins.eval": _Call(eval, f"open({str(marker)!r}, 'w').close()"),
        "builtins.exec": _Call(exec, f"open({str(marker)!r}, 'w').close()"),
        "subprocess.check_call": _Call(subprocess.check_call, ["touch", str(marker)]),
        # an mxlite function that writes a file: admitted module paths must not admit functions
        "mxlite.ndarray.utils.save": _Call(mx.nd.save, str(marker), []),
    }


def _globals_named(blob: bytes) -> set[str]:
    return {
        arg.replace(" ", ".")
        for op, arg, _ in pickletools.genops(blob)
        if op.name in ("GLOBAL", "STACK_GLOBAL") and arg
    }


@pytest.mark.parametrize("name", sorted(_payloads(Path("x"))))
@pytest.mark.parametrize("nested", [False, True])
def test_payloads_are_refused_before_anything_runs(tmp_path: Path, name: str, nested: bool):
    marker = tmp_path / "ran"
    payload = _payloads(marker)[name]
    if nested:  # inside a real states dict, next to an NDArray state, with the optimizer
        updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
        updater(0, mx.nd.ones((2,)), mx.nd.ones((2,)))
        obj = ({0: updater.states[0], 1: payload}, updater.optimizer)
    else:
        obj = payload
    blob = pickle.dumps(obj, protocol=2)
    with pytest.raises(pickle.UnpicklingError, match=name.rsplit(".", 1)[-1]):
        restricted_loads(blob, "test")
    with pytest.raises(pickle.UnpicklingError):
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(blob)
    assert not marker.exists()


def test_module_load_optimizer_states_refuses_a_crafted_file(tmp_path: Path):
    marker = tmp_path / "ran"
    states = tmp_path / "evil.states"
    states.write_bytes(pickle.dumps(_Call(os.system, f"touch {marker}")))
    data = mx.sym.Variable("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc"), name="sm")
    mod = mx.mod.Module(net, label_names=["sm_label"], context=mx.cpu())
    mod.bind(data_shapes=[("data", (1, 3))], label_shapes=[("sm_label", (1,))])
    mod.init_params()
    mod.init_optimizer()
    with pytest.raises(pickle.UnpicklingError, match="posix.system|os.system|system"):
        mod.load_optimizer_states(str(states))
    assert not marker.exists()


def test_what_states_files_hold_is_admitted():
    sched = mx.lr_scheduler.FactorScheduler(step=10, factor=0.5)
    opt = mx.optimizer.Adam(learning_rate=0.01, lr_scheduler=sched)
    updater = mx.optimizer.get_updater(opt)
    updater(3, mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    obj = {
        "states": updater.states,
        "numpy": np.arange(4, dtype=np.float16),
        "scalar": np.float32(2.5),
        "dtype": np.dtype("int64"),
        "builtins": [1, 2.0, "s", b"b", bytearray(b"x"), (1,), {1}, frozenset({2}), None, True],
        "optimizer": opt,
    }
    for protocol in (2, 4, pickle.HIGHEST_PROTOCOL):
        back = restricted_loads(pickle.dumps(obj, protocol=protocol), "test")
        assert type(back["optimizer"]) is mx.optimizer.Adam
        assert type(back["optimizer"].lr_scheduler) is mx.lr_scheduler.FactorScheduler
        np.testing.assert_array_equal(back["numpy"], obj["numpy"])
        assert back["builtins"] == obj["builtins"]
        mean, var = back["states"][3]
        np.testing.assert_array_equal(mean.asnumpy(), updater.states[3][0].asnumpy())


class FileioTestOpt(mx.optimizer.SGD):
    """A user's optimizer, registered in the test below."""


class NotRegistered:
    pass


def test_a_user_registered_optimizer_is_admitted_and_an_unregistered_class_is_not():
    mx.optimizer.register(FileioTestOpt)
    back = restricted_loads(pickle.dumps(FileioTestOpt(learning_rate=0.5)), "test")
    assert type(back) is FileioTestOpt and back.lr == 0.5
    with pytest.raises(pickle.UnpicklingError, match="NotRegistered"):
        restricted_loads(pickle.dumps(NotRegistered()), "test")


def test_mxnet_module_paths_map_to_mxlite_classes():
    blob = pickle.dumps(mx.lr_scheduler.FactorScheduler(step=5), protocol=2)
    blob = blob.replace(b"cmxlite.lr_scheduler\n", b"cmxnet.lr_scheduler\n")
    assert "mxnet.lr_scheduler.FactorScheduler" in _globals_named(blob)
    back = restricted_loads(blob, "test")
    assert type(back) is mx.lr_scheduler.FactorScheduler and back.step == 5


# ---- atomic writes -------------------------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "target")


@pytest.mark.parametrize("mode", ["wb", "w"])
def test_atomic_write_replaces_the_file_when_the_block_succeeds(tmp_path: Path, mode: str):
    target = tmp_path / "target"
    target.write_bytes(b"old")
    with atomic_write(target, mode) as f:
        f.write(b"new" if mode == "wb" else "new")
    assert target.read_bytes() == b"new"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt])
def test_a_write_failing_halfway_leaves_the_old_file_byte_for_byte(tmp_path: Path, failure):
    target = tmp_path / "target"
    target.write_bytes(b"old contents")
    expected = MXNetError if isinstance(failure, OSError) else KeyboardInterrupt
    with pytest.raises(expected), atomic_write(target, "wb") as f:
        f.write(b"half")
        raise failure
    assert target.read_bytes() == b"old contents"
    assert _leftovers(tmp_path) == []


def test_every_writer_keeps_the_old_file_when_writing_fails(tmp_path: Path, monkeypatch):
    """nd.save, Symbol.save, checkpoints, .states and profiler dumps all go through
    atomic_write: a failing fsync (disk full at the end) leaves each old file whole."""
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    arrays = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.zeros((2,))}
    writers = {
        "a.params": lambda p: mx.nd.save(p, arrays),
        "a.json": lambda p: net.save(p),
        "ck-0001.params": lambda p: mx.model.save_checkpoint(
            str(tmp_path / "ck"), 1, None, arrays, {}
        ),
    }
    for name in writers:
        (tmp_path / name).write_bytes(b"old " + name.encode())

    def fail(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    for name, write in writers.items():
        with pytest.raises(MXNetError):
            write(str(tmp_path / name))
        assert (tmp_path / name).read_bytes() == b"old " + name.encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(writers)


def test_a_pickle_claiming_a_huge_memo_or_length_is_refused_before_allocating():
    # LONG_BINPUT 0xFFFFFFF0 would make the C unpickler grow its memo to 4G entries
    huge_memo = b"\x80\x02]r\xf0\xff\xff\xff."
    # BINBYTES claiming 2**31 bytes where 3 follow
    huge_bytes = b"\x80\x03B\x00\x00\x00\x80abc."
    for blob in (huge_memo, huge_bytes):
        with pytest.raises(pickle.UnpicklingError, match="damaged pickle"):
            restricted_loads(blob, "test")


def test_symbol_json_that_is_not_a_graph_raises_mxnet_error(tmp_path: Path):
    path = tmp_path / "bad-symbol.json"
    for text in ('{"nodes": [{"op": "null"}], "heads": [[0, 0, 0]]}', "[" * 50_000):
        path.write_text(text)
        with pytest.raises(MXNetError, match="bad-symbol.json"):
            mx.sym.load(str(path))


def test_extract_tar_keeps_members_inside_the_folder(tmp_path) -> None:
    import io
    import tarfile

    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("ok.txt", "../outside.txt"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"hi"))
    root = tmp_path / "root"
    root.mkdir()
    if not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no extraction filters")
    with pytest.raises(tarfile.FilterError):
        mx.fileio.extract_tar(str(archive), str(root))
    assert not (tmp_path / "outside.txt").exists()
