"""Tests for mxlite.operator.param: parsing, printing back as MXNet does, errors, docs."""

from __future__ import annotations

import dataclasses
import pickle
from typing import ClassVar

import numpy as np
import pytest

from mxlite.base import MXNetError, ParamError, Shape
from mxlite.operator.param import DTYPE_NAMES, Param, field
from tests.golden_file import load

# Mirrors of the MXNet 1.9.1 parameter structs that the golden cases use.


class ConvolutionParam(Param):
    kernel: Shape = field(doc="Convolution kernel size: (w,), (h, w) or (d, h, w)")
    stride: Shape = field(default=(), doc="Convolution stride.")
    dilate: Shape = field(default=(), doc="Convolution dilate.")
    pad: Shape = field(default=(), doc="Zero pad for convolution.")
    num_filter: int = field(low=1, high=100000, doc="Convolution filter(channel) number")
    num_group: int = field(default=1, low=1, doc="Number of group partitions.")
    workspace: int = field(default=1024, low=0, typename="long (non-negative)", doc="MB.")
    no_bias: bool = field(default=False, doc="Whether to disable bias parameter.")
    cudnn_tune: str | None = field(
        default=None, choices=("off", "limited_workspace", "fastest"), doc="Algo choice."
    )
    cudnn_off: bool = field(default=False, doc="Turn off cudnn for this layer.")
    layout: str | None = field(
        default=None, choices=("NCW", "NCHW", "NCDHW", "NHWC", "NDHWC"), doc="Layout."
    )


class BatchNormParam(Param):
    eps: float = field(default=1e-3, low=0.0, typename="double", doc="Epsilon.")
    momentum: float = field(default=0.9, doc="Momentum for moving average")
    fix_gamma: bool = field(default=True, doc="Fix gamma while training")
    use_global_stats: bool = field(default=False, doc="Use global moving statistics.")
    output_mean_var: bool = field(default=False, doc="Output the mean and inverse std")
    axis: int = field(default=1, doc="Channel axis.")
    cudnn_off: bool = field(default=False, doc="Do not select CUDNN operator.")
    min_calib_range: float | None = field(default=None, doc="Calibration minimum.")
    max_calib_range: float | None = field(default=None, doc="Calibration maximum.")


class CastParam(Param):
    dtype: str = field(choices=DTYPE_NAMES, doc="Output data type.")


class SliceParam(Param):
    begin: tuple[int | None, ...] = field(doc="starting indices")
    end: tuple[int | None, ...] = field(doc="ending indices")
    step: tuple[int | None, ...] = field(default=(), doc="step")


class SumParam(Param):
    axis: Shape | None = field(default=None, doc="The axis or axes.")
    keepdims: bool = field(default=False, doc="Keep the reduced axes.")
    exclude: bool = field(default=False, doc="Reduce the axes not in axis.")


class ArgmaxParam(Param):
    axis: int | None = field(default=None, doc="The axis.")
    keepdims: bool = field(default=False, doc="Keep the reduced axis.")


class ActivationParam(Param):
    act_type: str = field(
        choices=("relu", "sigmoid", "softrelu", "softsign", "tanh"),
        doc="Activation function to be applied.",
    )


class LeakyReLUParam(Param):
    act_type: str = field(
        default="leaky", choices=("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), doc="Kind."
    )
    slope: float = field(default=0.25, doc="Init slope.")
    lower_bound: float = field(default=0.125, doc="Lower bound.")
    upper_bound: float = field(default=0.334, doc="Upper bound.")


class ClipParam(Param):
    a_min: float = field(doc="Minimum value")
    a_max: float = field(doc="Maximum value")


class MultiBoxPriorParam(Param):
    sizes: tuple[float, ...] = field(default=(1.0,), doc="Sizes.")
    ratios: tuple[float, ...] = field(default=(1.0,), doc="Aspect ratios.")
    clip: bool = field(default=False, doc="Clip boxes.")
    steps: tuple[float, ...] = field(default=(-1.0, -1.0), doc="Steps.")
    offsets: tuple[float, ...] = field(default=(0.5, 0.5), doc="Offsets.")


class DropoutParam(Param):
    p: float = field(default=0.5, low=0.0, high=1.0, doc="Fraction dropped.")
    mode: str = field(default="training", choices=("training", "always"), doc="Mode.")
    axes: Shape = field(default=(), doc="Axes.")
    cudnn_off: bool | None = field(default=False, doc="Turn off cudnn.")


PARAMS = {
    "Convolution": ConvolutionParam,
    "BatchNorm": BatchNormParam,
    "Cast": CastParam,
    "slice": SliceParam,
    "sum": SumParam,
    "argmax": ArgmaxParam,
    "Activation": ActivationParam,
    "LeakyReLU": LeakyReLUParam,
    "clip": ClipParam,
    "contrib.MultiBoxPrior": MultiBoxPriorParam,
    "Dropout": DropoutParam,
}

# MXNet accepts these only because its field is a C float (mxlite keeps Python floats).
LENIENT = {"dict(eps=1, momentum=1e-300, max_calib_range=-0.5)"}
# Doc header lines that differ on purpose: MXNet prints C float defaults (0.899999976).
DOC_DIFFERS = {("BatchNorm", "eps"), ("BatchNorm", "momentum"), ("BatchNorm", "axis")}
DOC_DIFFERS |= {("LeakyReLU", "upper_bound")}

_cases = load("operator/golden/param_attrs.npz").cases
_golden = {"docs": _cases.pop("docs"), "cases": list(_cases.values())}


@pytest.mark.parametrize("case", _golden["cases"], ids=lambda c: f"{c['op']}:{c['kwargs']}")
def test_attrs_match_mxnet(case):
    cls = PARAMS[case["op"]]
    kwargs = eval(case["kwargs"], {"np": np})
    if case["kwargs"] in LENIENT:
        cls.from_kwargs(case["op"], kwargs)
        return
    if "error" in case:
        with pytest.raises(ParamError, match=rf"^{case['op'].split('.')[-1]}(\(name='n1'\))?: "):
            cls.from_kwargs(case["op"].split(".")[-1], kwargs, name="n1")
        return
    p = cls.from_kwargs(case["op"], kwargs)
    expected = {k: v for k, v in case.get("attrs", {}).items() if not k.startswith("__")}
    assert p.to_attrs() == expected
    # what MXNet wrote parses back to the same parameters
    assert cls.from_kwargs(case["op"], p.to_attrs()) == p


@pytest.mark.parametrize("op", sorted(_golden["docs"]))
def test_doc_headers_match_mxnet(op):
    ours = [line for line in PARAMS[op].doc().splitlines() if not line.startswith(" ")]
    theirs = _golden["docs"][op]
    assert len(ours) == len(theirs)
    for mine, ref in zip(ours, theirs, strict=True):
        if (op, ref.split(" : ")[0]) not in DOC_DIFFERS:
            assert mine == ref


def test_brief_example():
    kw = {"kernel": "(3, 3)", "num_filter": 8, "no_bias": "True"}
    p = ConvolutionParam.from_kwargs("Convolution", kw, name="conv1")
    assert p.kernel == (3, 3) and p.no_bias is True and p.stride == () and p.num_filter == 8
    assert p.to_attrs() == {"kernel": "(3, 3)", "num_filter": "8", "no_bias": "True"}
    assert ConvolutionParam.field_names()[:5] == ("kernel", "stride", "dilate", "pad", "num_filter")


def test_equal_params_hash_equal_whatever_the_spelling():
    a = ConvolutionParam.from_kwargs("Convolution", {"kernel": (3, 3), "num_filter": 8})
    b = ConvolutionParam.from_kwargs("Convolution", {"kernel": "[3,3]", "num_filter": "8"})
    c = ConvolutionParam.from_kwargs("Convolution", {"kernel": [3, 3], "num_filter": np.int64(8)})
    d = ConvolutionParam.from_kwargs("Convolution", {"kernel": (3, 3), "num_filter": 9})
    assert a == b == c and hash(a) == hash(b) == hash(c)
    assert a != d and len({a: 1, b: 2, c: 3, d: 4}) == 2
    assert a != SliceParam.from_kwargs("slice", {"begin": (3, 3), "end": (4, 4)})


def test_numpy_scalars_read_as_mxnet_reads_their_text():
    p = BatchNormParam.from_kwargs("BatchNorm", {"eps": np.float32(0.1), "axis": np.int8(-1)})
    assert p.eps == 0.1 and type(p.eps) is float and p.axis == -1 and type(p.axis) is int
    q = MultiBoxPriorParam.from_kwargs("MultiBoxPrior", {"sizes": [np.float32(0.1), 2]})
    assert q.sizes == (0.1, 2.0) and q.to_attrs() == {"sizes": "[0.1, 2]"}


def test_error_messages_name_op_argument_expectation_and_value():
    def err(cls, kwargs, op="Convolution", name="conv1"):
        with pytest.raises(ParamError) as info:
            cls.from_kwargs(op, kwargs, name=name)
        return str(info.value)

    assert isinstance(ParamError("x"), MXNetError)
    assert (
        err(ConvolutionParam, {"kernal": 3, "num_filter": 8})
        == "Convolution(name='conv1'): unknown argument 'kernal'; did you mean 'kernel'?"
    )
    assert err(ConvolutionParam, {"num_filter": 8}) == (
        "Convolution(name='conv1'): argument 'kernel' is required: Shape(tuple), e.g. (3, 3)."
    )
    assert err(ConvolutionParam, {"kernel": 3, "num_filter": -2}) == (
        "Convolution(name='conv1'): argument 'num_filter' expects an int in [1, 100000], got -2."
    )
    assert err(ActivationParam, {"act_type": "rleu"}, op="Activation", name=None) == (
        "Activation: argument 'act_type' expects one of 'relu', 'sigmoid', 'softrelu', "
        "'softsign', 'tanh', got 'rleu'; did you mean 'relu'?"
    )
    msg = err(ConvolutionParam, {"kernel": 3, "num_filter": 8, "zzz": 1})
    assert msg.startswith("Convolution(name='conv1'): unknown argument 'zzz'; its arguments are: ")
    assert "kernel, stride" in msg
    assert "did you mean 'NCHW'" in err(
        ConvolutionParam, {"kernel": 3, "num_filter": 8, "layout": "nchw"}
    )
    assert "'num_filter' expects an int" in err(ConvolutionParam, {"kernel": 3, "num_filter": 3.0})
    assert "'kernel' expects a shape" in err(ConvolutionParam, {"kernel": "(3 3)", "num_filter": 3})
    assert "got 'maybe'" in err(
        ConvolutionParam, {"kernel": 3, "num_filter": 1, "no_bias": "maybe"}
    )
    assert err(ActivationParam, {}, op="Activation", name=None) == (
        "Activation: argument 'act_type' is required: "
        "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, e.g. 'relu'."
    )


@pytest.mark.parametrize(
    "field_name, value, expected",
    [
        ("no_bias", "false", False),
        ("no_bias", "TRUE", True),
        ("no_bias", 0, False),
        ("no_bias", np.bool_(True), True),
        ("num_group", " +4 ", 4),
        ("num_group", np.uint8(4), 4),
        ("stride", 2, (2,)),
        ("stride", "2", (2,)),
        ("stride", "()", ()),
        ("stride", "[]", ()),
        ("stride", "(2,)", (2,)),
        ("stride", "[1, 2,]", (1, 2)),
        ("layout", "None", None),
        ("layout", None, None),
        ("cudnn_tune", "fastest", "fastest"),
    ],
)
def test_parse_accepts(field_name, value, expected):
    p = ConvolutionParam.from_kwargs(
        "Convolution", {"kernel": 1, "num_filter": 1, field_name: value}
    )
    assert getattr(p, field_name) == expected and type(getattr(p, field_name)) is type(expected)


@pytest.mark.parametrize(
    "field_name, value",
    [
        ("no_bias", "yes"),
        ("no_bias", 2),
        ("no_bias", 1.0),
        ("num_group", True),
        ("num_group", 2.0),
        ("num_group", "1_000"),
        ("num_group", None),
        ("stride", "(1, 2"),
        ("stride", "(1,,2)"),
        ("stride", (1.0, 2)),
        ("stride", (True,)),
        ("stride", ["1"]),
        ("stride", np.array([1, 2])),
        ("layout", "NWC"),
        ("layout", 3),
    ],
)
def test_parse_rejects(field_name, value):
    with pytest.raises(ParamError, match=f"Convolution: argument '{field_name}' expects"):
        ConvolutionParam.from_kwargs(
            "Convolution", {"kernel": 1, "num_filter": 1, field_name: value}
        )


def test_optional_and_float_fields():
    p = BatchNormParam.from_kwargs("BatchNorm", {"min_calib_range": "None", "eps": "inf"})
    assert p.min_calib_range is None and p.eps == float("inf")
    assert (
        BatchNormParam.from_kwargs("BatchNorm", {"max_calib_range": "-0.5"}).max_calib_range == -0.5
    )
    assert ArgmaxParam.from_kwargs("argmax", {"axis": "-1"}).axis == -1
    assert SumParam.from_kwargs("sum", {"axis": 1}).axis == (1,)
    assert SumParam.from_kwargs("sum", {"axis": "None"}).axis is None
    for bad in ({"eps": -1.0}, {"eps": "1_0"}, {"eps": True}, {"axis": "None"}):
        with pytest.raises(ParamError, match=f"BatchNorm: argument '{next(iter(bad))}'"):
            BatchNormParam.from_kwargs("BatchNorm", bad)
    s = SliceParam.from_kwargs("slice", {"begin": "(None, -1)", "end": [None, 3]})
    assert s.begin == (None, -1) and s.end == (None, 3)


def test_dtype_fields_take_numpy_dtypes():
    cast = CastParam.from_kwargs
    assert cast("Cast", {"dtype": np.float16}).dtype == "float16"
    assert cast("Cast", {"dtype": np.dtype("int32")}).to_attrs() == {"dtype": "int32"}
    assert cast("Cast", {"dtype": "bfloat16"}).dtype == "bfloat16"
    with pytest.raises(ParamError, match=r"Cast: argument 'dtype' expects one of .*numpy dtype"):
        cast("Cast", {"dtype": np.complex64})
    with pytest.raises(ParamError, match="'dtype' expects"):
        cast("Cast", {"dtype": "no such type"})


def test_hidden_keys_are_skipped_unless_asked():
    kw = {"kernel": 3, "num_filter": 2, "__lr_mult__": "2", "__shape__": "(1,)"}
    p = ConvolutionParam.from_kwargs("Convolution", kw)
    assert p.to_attrs() == {"kernel": "3", "num_filter": "2"}
    with pytest.raises(ParamError, match="unknown argument '__lr_mult__'"):
        ConvolutionParam.from_kwargs("Convolution", kw, allow_hidden=False)


class CustomParam(Param):
    allow_unknown: ClassVar[bool] = True
    op_type: str = field(doc="Name of the custom operator.")


def test_allow_unknown_keeps_extra_strings():
    p = CustomParam.from_kwargs("Custom", {"op_type": "sq", "scale": 2.5, "dims": (1, 2)})
    assert p.op_type == "sq" and p.extra == {"scale": "2.5", "dims": "(1, 2)"}
    assert p.to_attrs() == {"op_type": "sq", "scale": "2.5", "dims": "(1, 2)"}
    q = CustomParam.from_kwargs("Custom", {"op_type": "sq", "scale": "2.5", "dims": "(1, 2)"})
    r = CustomParam.from_kwargs("Custom", {"op_type": "sq", "scale": "3"})
    assert p == q and hash(p) == hash(q) and p != r
    p.extra["scale"] = "9"  # a copy: the param itself never changes
    assert p.extra["scale"] == "2.5"
    with pytest.raises(ParamError, match="Custom: argument 'op_type' is required: string."):
        CustomParam.from_kwargs("Custom", {"scale": 1})


def test_default_is_cached_and_needs_no_required_fields():
    d = LeakyReLUParam.default()
    assert d is LeakyReLUParam.default() is LeakyReLUParam.from_kwargs("LeakyReLU", {})
    assert d.act_type == "leaky" and d.to_attrs() == {}
    with pytest.raises(ParamError, match="ActivationParam: argument 'act_type' is required"):
        ActivationParam.default()


def test_replace_and_frozen():
    p = ConvolutionParam.from_kwargs("Convolution", {"kernel": (3, 3), "num_filter": 8}, name="c")
    q = p.replace(no_bias=True, pad="(1, 1)")
    assert (q.no_bias, q.pad, q.kernel, p.no_bias, p.pad) == (True, (1, 1), (3, 3), False, ())
    assert q.to_attrs() == {
        "kernel": "(3, 3)",
        "num_filter": "8",
        "no_bias": "True",
        "pad": "(1, 1)",
    }
    with pytest.raises(ParamError, match=r"Convolution\(name='c'\): argument 'num_group'"):
        p.replace(num_group=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.kernel = (1, 1)
    assert LeakyReLUParam.default().replace(slope=0.5).slope == 0.5


def test_direct_construction_validates_and_normalises():
    p = ConvolutionParam(kernel=[3, 3], num_filter="4", no_bias="1")
    assert (p.kernel, p.num_filter, p.no_bias) == ((3, 3), 4, True)
    assert p == ConvolutionParam.from_kwargs(
        "Convolution", {"kernel": (3, 3), "num_filter": 4, "no_bias": 1}
    )
    assert p.to_attrs() == {"kernel": "[3, 3]", "num_filter": "4", "no_bias": "1"}
    with pytest.raises(ParamError, match="ConvolutionParam: argument 'num_filter' expects"):
        ConvolutionParam(kernel=(3, 3), num_filter=0)
    with pytest.raises(TypeError):
        ConvolutionParam((3, 3), 4)  # keyword-only, as the fields are not in MXNet's order


def test_pickle_round_trip_keeps_value_attrs_and_drops_cached_hash():
    p = CustomParam.from_kwargs("Custom", {"op_type": "sq", "k": 1})
    hash(p)
    q = pickle.loads(pickle.dumps(p))
    assert q == p and q.to_attrs() == p.to_attrs() and "_hash" not in q.__dict__


def test_subclass_adds_fields_and_keeps_parent_table():
    class DeconvolutionParam(ConvolutionParam):
        adj: Shape = field(default=(), doc="Adjustment for output shape.")

    p = DeconvolutionParam.from_kwargs(
        "Deconvolution", {"kernel": 2, "num_filter": 1, "adj": "(1,)"}
    )
    assert p.adj == (1,) and DeconvolutionParam.field_names()[-1] == "adj"
    assert "adj" not in ConvolutionParam.field_names()
    with pytest.raises(ParamError, match="unknown argument 'adj'"):
        ConvolutionParam.from_kwargs("Convolution", {"kernel": 2, "num_filter": 1, "adj": 1})


def test_extra_dataclass_decorator_as_in_style_guide_still_works():
    @dataclasses.dataclass(frozen=True)
    class FullyConnectedParam(Param):
        num_hidden: int = field(doc="Number of output units.", low=1)
        no_bias: bool = field(default=False, doc="Leave out the bias term.")

    p = FullyConnectedParam.from_kwargs("FullyConnected", {"num_hidden": "5"})
    assert p.num_hidden == 5 and p == FullyConnectedParam.from_kwargs("FC", {"num_hidden": 5})
    with pytest.raises(
        ParamError, match="FullyConnected: argument 'num_hidden' expects an int >= 1"
    ):
        FullyConnectedParam.from_kwargs("FullyConnected", {"num_hidden": 0})


def test_doc_format():
    class P(Param):
        shape: Shape = field(doc="The shape.\nSecond line.")
        scale: float | None = field(default=None, doc="Scale.")
        mode: str = field(default="a", choices=("b", "a"), typename="string", doc="Mode.")

    assert P.doc() == (
        "shape : Shape(tuple), required\n    The shape.\n    Second line.\n"
        "scale : float or None, optional, default=None\n    Scale.\n"
        "mode : string, optional, default='a'\n    Mode."
    )


@pytest.mark.parametrize(
    "annotation, kwargs, error",
    [
        ("int", {"default": 0, "low": 1}, "default of 'x' is not an int >= 1"),
        ("str", {"low": 1}, "low/high need an int or float field"),
        ("int", {"choices": ("a",)}, "choices need a str field"),
        ("list[int]", {}, "unsupported field annotation"),
        ("NoSuchType", {}, "cannot resolve"),
    ],
)
def test_bad_declarations_fail_at_class_creation(annotation, kwargs, error):
    with pytest.raises(TypeError, match=error):
        type("Bad", (Param,), {"__annotations__": {"x": annotation}, "x": field(**kwargs)})


def test_field_name_may_not_hide_a_method():
    with pytest.raises(TypeError, match="field name 'replace' hides a Param method"):
        type("Bad", (Param,), {"__annotations__": {"replace": "int"}, "replace": field(default=1)})


def test_one_element_array_is_a_one_tuple():
    # MXNet reads str(value): "[5]" parses, "[1 2]" does not (test_parse_rejects)
    p = ConvolutionParam.from_kwargs("Convolution", {"kernel": np.array([3]), "num_filter": 1})
    assert p.kernel == (3,)


class PadParam(Param):
    pad_width: tuple[tuple[int, ...], ...] = field(doc="Pad widths per axis.")


@pytest.mark.parametrize(
    "given, parsed",
    [
        (((1, 2), (3, 4)), ((1, 2), (3, 4))),
        ([[1, 2]], ((1, 2),)),
        ((2, 3), ((2, 3),)),
        (2, ((2,),)),
        ("((1, 2), (3, 4))", ((1, 2), (3, 4))),
        ("((0, 1),)", ((0, 1),)),
    ],
)
def test_a_tuple_of_shapes_reads_values_and_mxnet_text(given, parsed):
    p = PadParam.from_kwargs("_npi_pad", {"pad_width": given})
    assert p.pad_width == parsed
    if isinstance(given, tuple) and isinstance(given[0], tuple):
        assert p.to_attrs() == {"pad_width": "((1, 2), (3, 4))"}  # as MXNet writes str(value)


@pytest.mark.parametrize("bad", ["((1, 2), oops)", ((1.5, 2),), "x", None])
def test_a_tuple_of_shapes_rejects_other_values(bad):
    with pytest.raises(ParamError, match="_npi_pad.*pad_width"):
        PadParam.from_kwargs("_npi_pad", {"pad_width": bad})
