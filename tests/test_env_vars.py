"""MXNet's environment variables: docs/env_vars.md agrees with the code, and the variables
honoured without a test elsewhere (engine, storage, executor, kvstore and profiler tests cover
the rest) change what they should."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.engine.segment import exec_bulk_size
from mxlite.executor import simple_bind
from mxlite.profiler.state import Profiler

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]+)` \| (honoured|accepted, ignored) \|", re.M)


def _table() -> dict[str, str]:
    return dict(ROW.findall((ROOT / "docs" / "env_vars.md").read_text()))


def _source() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "mxlite").rglob("*.py"))


def test_table_agrees_with_the_code() -> None:
    table, source = _table(), _source()
    assert len(table) >= 70

    def read(name: str) -> bool:
        if name in source:
            return True
        # names built in f-strings: MXNET_{prefix}_MEM_POOL_TYPE, ..._MAX_NODE_TRAIN_{phase}
        parts = name.split("_")
        heads = ("_".join(parts[:i]) + "_{" for i in range(1, len(parts)))
        tails = ("}_" + "_".join(parts[i:]) + '"' for i in range(2, len(parts)))
        return any(h in source for h in heads if len(h) > 8) or any(t in source for t in tails)

    for name, status in table.items():
        assert read(name) == (status == "honoured"), (name, status)
    # every MXNET_ setting the code reads is in the table
    used = set(re.findall(r'env_(?:bool|int|str)\(\s*"((?:MXNET|NNVM|OMP)_[A-Z0-9_]+)"', source))
    used |= set(re.findall(r'os\.(?:getenv|environ\.get)\(\s*"(MXNET_[A-Z0-9_]+)"', source))
    assert used and used <= set(table), used - set(table)


def test_safe_accumulation(monkeypatch: pytest.MonkeyPatch) -> None:
    x = mx.nd.array(np.full(4096, 0.1), dtype="float16")
    monkeypatch.delenv("MXNET_SAFE_ACCUMULATION", raising=False)
    plain = mx.nd.sum(x).asscalar()
    monkeypatch.setenv("MXNET_SAFE_ACCUMULATION", "1")
    safe = mx.nd.sum(x).asscalar()
    exact = np.float16(0.1).astype(np.float64) * 4096
    assert safe.dtype == np.float16
    assert abs(safe - exact) <= abs(plain - exact)
    assert safe == np.float16(np.float32(np.full(4096, np.float16(0.1), np.float32).sum()))
    assert mx.nd.mean(x).asscalar() == np.float16(safe / np.float16(4096))
    y = mx.nd.array(np.full((3, 1000), 0.1), dtype="float16")
    want = np.sqrt((np.full(1000, np.float16(0.1), np.float32) ** 2).sum()).astype(np.float16)
    assert np.all(mx.nd.norm(y, axis=1).asnumpy() == want)
    monkeypatch.setenv("MXNET_SAFE_ACCUMULATION", "maybe")
    with pytest.raises(mx.base.MXNetError, match="MXNET_SAFE_ACCUMULATION"):
        mx.nd.sum(x).asscalar()


def test_mxnet_home_is_the_model_zoo_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    models = tmp_path / "models"
    models.mkdir()
    (models / "resnet18_v1-a0666292.params").write_bytes(b"")
    (models / "keep.txt").write_text("")
    mx.gluon.model_zoo.model_store.purge()  # default root: $MXNET_HOME/models
    assert sorted(p.name for p in models.iterdir()) == ["keep.txt"]
    assert mx.base.data_dir() == str(tmp_path)


def test_nnvm_exec_match_range(monkeypatch: pytest.MonkeyPatch) -> None:
    h = mx.sym.var("data")
    for _ in range(4):
        h = mx.sym.Activation(mx.sym.FullyConnected(h, num_hidden=8), act_type="tanh")
    blocks = {}
    for value in ("16", "0"):
        monkeypatch.setenv("NNVM_EXEC_MATCH_RANGE", value)
        blocks[value] = len(
            simple_bind(h, mx.cpu(), grad_req="null", data=(4, 8))._plan.block_bytes
        )
    assert blocks["0"] > blocks["16"]
    monkeypatch.setenv("NNVM_EXEC_MATCH_RANGE", "-1")
    with pytest.raises(mx.base.MXNetError, match="NNVM_EXEC_MATCH_RANGE"):
        simple_bind(h, mx.cpu(), grad_req="null", data=(4, 8))


def test_bulk_exec_inference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MXNET_EXEC_BULK_EXEC_INFERENCE", raising=False)
    assert exec_bulk_size("inference") == -1
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_INFERENCE", "0")
    assert exec_bulk_size("inference") == 0


def test_optimizer_aggregation_size(monkeypatch: pytest.MonkeyPatch) -> None:
    assert mx.optimizer.SGD().aggregate_num == 4
    monkeypatch.setenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "2")
    assert mx.optimizer.SGD().aggregate_num == 2


def test_profiler_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXNET_PROFILER_MODE", "2")  # imperative only
    assert Profiler()._config.profile_imperative
    assert not Profiler()._config.profile_symbolic
    monkeypatch.setenv("MXNET_PROFILER_MODE", "1")
    assert not Profiler()._config.profile_imperative


def test_storage_fallback_log_verbose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    csr = mx.nd.array([[0, 1.0], [2.0, 0]]).tostype("csr")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mx.nd.sqrt(mx.nd.sparse.dot(csr, mx.nd.ones((2, 2)))).asnumpy()
