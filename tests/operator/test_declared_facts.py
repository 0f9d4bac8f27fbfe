"""The facts operators declare on their properties (registry.py, docs/architecture.md): every
registered operator's are well-formed, and SimpleOp passes them on."""

from __future__ import annotations

import pytest

import mxlite as mx  # noqa: F401  (registers every operator)
from mxlite.operator import registry
from mxlite.operator.registry import OperatorProperty
from mxlite.operator.simple_op import simple_op
from mxlite.operator.sparse.forms import KEEP_ZERO, SparseForm

CLASSES = sorted(set(registry.all_ops().values()), key=lambda c: c.op_name)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.op_name)
def test_every_operators_facts_are_well_formed(cls: type[OperatorProperty]) -> None:
    assert cls.grad_flow in ("backward", "zeros", "none")
    assert isinstance(cls.differentiable, bool)
    assert isinstance(cls.lists_input_names, bool)
    assert all(isinstance(k, int) and isinstance(v, str) for k, v in cls.input_var_init.items())
    assert all(isinstance(m, str) and m.isidentifier() for m in cls.fluent)
    assert cls.sparse_form is None or isinstance(cls.sparse_form, SparseForm)
    assert cls.sparse_backward is None or len(cls.sparse_backward) == 2
    assert cls.grad_rows_from in ("nonzero", "indices", "csr_columns")
    assert cls.plot_kind in ("layer", "activation", "norm", "pooling", "shape", "other")
    assert cls.recorded_gradient is None or callable(cls.recorded_gradient)
    # quantization: the quantized operator exists and is told to requantize or not
    assert cls.quantized_name is None or cls.quantized_name in registry.all_ops()
    assert cls.quantizable in ("must", "support")
    assert isinstance(cls.need_requantize, bool)
    assert all(i is None or isinstance(i, int) for i in (cls.calibrate_input, cls.calibrate_output))


def test_fluent_methods_are_listed_once_and_exist_on_ndarray_and_symbol() -> None:
    names = registry.fluent_methods()
    assert len(names) == len(set(names))
    assert {"sum", "flip", "split", "pad", "sin", "clip"} <= set(names)
    for n in names:
        assert callable(getattr(mx.nd.NDArray, n)) and callable(getattr(mx.sym.Symbol, n))


def test_declared_facts_answer_what_the_tables_did() -> None:
    assert registry.get("BlockGrad").grad_flow == "none"
    assert registry.get("stop_gradient").grad_flow == "none"
    assert registry.get("_equal_scalar").grad_flow == "zeros"
    assert registry.get("argmax").grad_flow == "zeros"
    assert registry.get("argmax_channel").grad_flow == "backward"
    assert registry.get("BatchNorm").input_var_init[4] == '["one", {}]'
    assert registry.get("sin").sparse_form is KEEP_ZERO
    assert registry.get("erf").sparse_form is None
    assert registry.get("BatchNorm_v1").sparse_form is None
    assert registry.get("Custom").stateful and not registry.get("Convolution").stateful
    dot = registry.get("dot").get_prop({})
    assert dot.grad_stypes(["csr", "default"]) == ["default", "row_sparse"]
    assert dot.grad_stypes(["default", "default"]) == ["default", "default"]
    emb = registry.get("Embedding").get_prop({"input_dim": 4, "output_dim": 2})
    assert emb.grad_stypes(["default", "default"]) == ["default", "default"]
    assert registry.get("add_n").get_prop({"num_args": 2}).grad_stypes(["row_sparse"] * 2) == [
        "row_sparse",
        "row_sparse",
    ]


def test_simple_op_takes_facts_and_rejects_unknown_ones() -> None:
    cls = simple_op(
        "_test_facts_identity",
        forward=lambda xp, x, env, out: x,
        gradient=lambda xp, g, env: g,
        grad_flow="none",
        sparse_form=KEEP_ZERO,
        facts={"fluent": ("identity_for_test",), "lists_input_names": True},
    )
    try:
        assert (cls.grad_flow, cls.sparse_form, cls.fluent) == (
            "none",
            KEEP_ZERO,
            ("identity_for_test",),
        )
        assert cls.lists_input_names
    finally:
        registry._REGISTRY.pop("_test_facts_identity")
    with pytest.raises(TypeError, match="_test_bad_fact.*'sparse'"):
        simple_op("_test_bad_fact", forward=lambda xp, x, env, out: x, facts={"sparse": KEEP_ZERO})
    assert registry.find("_test_bad_fact") is None
