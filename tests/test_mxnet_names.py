"""Every module-level name of MXNet 1.9.1's package (tests/golden/mxnet_names.npz, from
tools/golden/cases/mxnet_names.py) is here, or listed below with the reason it is not; a listed
name raises NotInMxliteError naming itself and the reason when it is used."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import mxlite as mx
from mxlite.base import (
    COMPILED_LIBRARY,
    NEEDS_CUDA,
    NO_BACKWARD_OPS,
    NO_C_LIBRARY,
    NotInMxliteError,
)
from tests.golden_file import load

GOLDEN = load("golden/mxnet_names.npz").cases

# whole modules: the attribute of the parent package raises (a submodule's names go with it)
ABSENT_MODULES = {
    "mxnet.api": NO_C_LIBRARY,
    "mxnet.cython": NO_C_LIBRARY,
    "mxnet.libinfo": NO_C_LIBRARY,
    "mxnet.rtc": NEEDS_CUDA,
    "mxnet.library": COMPILED_LIBRARY,
    "mxnet.torch": COMPILED_LIBRARY,
    "mxnet.tvmop": COMPILED_LIBRARY,
    "mxnet.space": COMPILED_LIBRARY,
}

_C = ("c_handle_array", "MXCallbackList", "c2pyerror", "get_last_ffi_error")

_BACKWARD = ("backward_gradientmultiplier", "backward_hawkesll", "backward_index_copy",
             "backward_quadratic")  # fmt: skip

# single names, by MXNet module
ABSENT_NAMES: dict[str, dict[str, str]] = {
    "mxnet": {"th": COMPILED_LIBRARY},
    "mxnet.base": dict.fromkeys(_C, NO_C_LIBRARY),
    "mxnet.ndarray.sparse": {"_ndarray_cls": NO_C_LIBRARY},
    "mxnet.ndarray.ndarray": {
        **dict.fromkeys(("DLContext", "DLDataType", "DLManagedTensor", "DLTensor"), NO_C_LIBRARY),
    },
    **{
        m: dict.fromkeys(_BACKWARD, NO_BACKWARD_OPS)
        for m in (
            "mxnet.ndarray.contrib",
            "mxnet.symbol.contrib",
            "mxnet.contrib.ndarray",
            "mxnet.contrib.symbol",
        )
    },
    # temporary: the parts of issue 30 not built yet
}


def _golden() -> dict[str, list[str]]:
    return {name: case["names"] for name, case in GOLDEN.items() if name != "values"}


def _absent_module(name: str) -> str | None:
    for mod, reason in ABSENT_MODULES.items():
        if name == mod or name.startswith(mod + "."):
            return reason
    return None


def _probe(module: Any, name: str) -> str | None:
    """None if the name is there, 'missing' if not, else the NotInMxliteError's message."""
    try:
        getattr(module, name)
    except NotInMxliteError as err:
        return str(err)
    except AttributeError:
        return "missing"
    return None


def _check(mod_name: str, names: list[str]) -> list[str]:
    problems = []
    reasons = dict(ABSENT_NAMES.get(mod_name, {}))
    reasons.update({m.rsplit(".", 1)[1]: r for m, r in ABSENT_MODULES.items()
                    if m.rsplit(".", 1)[0] == mod_name})  # fmt: skip
    try:
        module = importlib.import_module("mxlite" + mod_name[len("mxnet") :])
    except ImportError:
        return [f"{mod_name}: module missing"]
    for name in names:
        got = _probe(module, name)
        if got is None:
            if name in reasons:
                problems.append(f"{mod_name}.{name} exists: drop it from ABSENT_NAMES")
        elif got == "missing":
            problems.append(f"{mod_name}.{name} missing" + (
                " (listed, but a plain AttributeError)" if name in reasons else ""))  # fmt: skip
        elif name not in reasons:
            problems.append(f"{mod_name}.{name} raises but is not listed: {got}")
        elif name not in got or reasons[name] not in got:
            problems.append(f"{mod_name}.{name}: the error does not say so: {got}")
    return problems


def test_every_name_of_mxnet_is_here_or_absent_with_its_reason() -> None:
    problems: list[str] = []
    for mod_name, names in sorted(_golden().items()):
        if _absent_module(mod_name) is None:
            problems += _check(mod_name, names)
    assert not problems, f"{len(problems)} names:\n" + "\n".join(problems)


@pytest.mark.parametrize("mod_name", sorted(ABSENT_MODULES))
def test_an_absent_module_says_why_when_used(mod_name: str) -> None:
    parent, leaf = mod_name.rsplit(".", 1)
    module = importlib.import_module("mxlite" + parent[len("mxnet") :])
    with pytest.raises(NotInMxliteError) as err:
        getattr(module, leaf)
    assert leaf in str(err.value) and ABSENT_MODULES[mod_name] in str(err.value)


def test_the_tables_name_only_what_mxnet_has() -> None:
    golden = _golden()
    stale = [f"{m}.{n}" for m, names in ABSENT_NAMES.items() for n in names
             if n not in golden.get(m, ())]  # fmt: skip
    assert not stale, stale
    assert all(m.rsplit(".", 1)[1] in golden[m.rsplit(".", 1)[0]] for m in ABSENT_MODULES)


def test_the_registry_helpers_reach_mxlites_own_families() -> None:
    register = mx.registry.get_register_func(mx.init.Initializer, "initializer")

    @register
    class SevenInit(mx.init.Initializer):
        def _init_weight(self, name: str, arr: Any) -> None:
            arr[:] = 7

    assert isinstance(mx.init.create("seveninit"), SevenInit)
    assert mx.registry.get_registry(mx.init.Initializer)["seveninit"] is SevenInit

    class Base:
        def __init__(self, k: int = 1) -> None:
            self.k = k

    mx.registry.get_alias_func(Base, "thing")("knob")(Base)
    create = mx.registry.get_create_func(Base, "thing")
    assert create("knob", k=3).k == 3 and create('["knob", {"k": 4}]').k == 4


def test_util_gpu_helpers_without_a_gpu() -> None:
    assert mx.util.get_gpu_count() == mx.context.num_gpus()
    with pytest.raises(ValueError, match="gpu context"):
        mx.util.get_cuda_compute_capability(mx.cpu())

    @mx.util.set_module("mxnet.numpy")
    def f() -> None: ...

    assert f.__module__ == "mxnet.numpy"


def test_rnn_carries_the_checkpoint_functions(tmp_path: Any) -> None:
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    args = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.zeros((2,))}
    mx.rnn.save_checkpoint(str(tmp_path / "m"), 1, net, args, {})
    sym, arg, aux = mx.rnn.load_checkpoint(str(tmp_path / "m"), 1)
    assert sym.list_arguments() == net.list_arguments() and arg["fc_weight"].sum() == 6


def test_the_model_stores_sha1_table_is_mxnets() -> None:
    from mxlite.gluon.model_zoo import model_store

    want = GOLDEN["values"]["model_sha1"]
    assert model_store._model_sha1 == want
    assert model_store.short_hash("resnet18_v1") == want["resnet18_v1"][:8]


def test_log_get_logger_sets_up_a_named_logger_once(tmp_path: Any) -> None:
    path = tmp_path / "log.txt"
    logger = mx.log.get_logger("mxlite_test_log", filename=str(path), level=mx.log.INFO)
    assert mx.log.get_logger("mxlite_test_log") is logger and len(logger.handlers) == 1
    logger.info("hello")
    logger.debug("hidden")
    logger.handlers[0].flush()
    assert path.read_text().strip() == "hello"
    with pytest.warns(DeprecationWarning):
        assert mx.log.getLogger("mxlite_test_log") is logger


def test_log_console_lines_start_as_mxnets() -> None:
    import logging

    from mxlite.log import _Formatter

    record = logging.LogRecord("x", logging.WARNING, "f.py", 3, "msg", None, None, "fn")
    line = _Formatter().format(record)
    assert line.startswith("\x1b[31mW") and line.endswith("f.py:fn:3]\x1b[0m msg")
