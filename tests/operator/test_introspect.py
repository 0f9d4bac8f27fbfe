"""Tests for mxlite.operator.introspect and the names ``from mx.operator import *`` gives."""

from __future__ import annotations

import mxlite as mx


def test_star_import_gives_mxnet_names_only() -> None:
    ns: dict = {}
    exec("import random\nfrom mxlite.operator import *", ns)
    assert ns["random"].__name__ == "random"  # not mxlite.operator.random
    for name in ("CustomOp", "CustomOpProp", "register", "get_all_registered_operators"):
        assert name in ns


def test_get_all_registered_operators() -> None:
    ops = mx.operator.get_all_registered_operators()
    assert isinstance(ops, list)
    assert "Activation" in ops and "Convolution" in ops


def test_get_operator_arguments_as_mxnet_lists_them() -> None:
    args = mx.operator.get_operator_arguments("Activation")
    assert isinstance(args, mx.operator.OperatorArguments)
    assert args.names == ["data", "act_type"]
    assert args.types == [
        "NDArray-or-Symbol",
        "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required",
    ]
    assert args.narg == 2
    concat = mx.operator.get_operator_arguments("Concat")
    assert concat.names[0] == "data" and concat.types[0] == "NDArray-or-Symbol[]"
