"""Convolution, transposed convolution, pooling and padding layers (``mx.gluon.nn``), as
MXNet 1.9.1's ``conv_layers.py``."""

from __future__ import annotations

import inspect
import numbers
from typing import Any

from ... import symbol
from ...util import is_np_array
from ..block import HybridBlock
from ..parameter import GluonCheckError
from ..parameter_dict import _deferred
from .basic_layers import _bias_and_act

__all__ = [
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "ReflectionPad2D",
]


def _tuple(value: Any, n: int, what: str) -> tuple:
    """``value`` as an n-tuple (a number is repeated), or an error naming ``what``."""
    if isinstance(value, numbers.Number):
        return (value,) * n
    value = tuple(value)
    if len(value) != n:
        raise GluonCheckError(f"{what} must be a number or a list of {n} ints")
    return value


def _check_layout(layout: str, allowed: tuple, what: str) -> None:
    if layout not in allowed:
        names = " and ".join(f"'{a}'" for a in allowed)
        raise GluonCheckError(f"Only supports {names} layout for now ({what})")


def _infer_weight_shape(op_name: str, data_shape: list, kwargs: dict) -> list:
    data = symbol.var("data", shape=tuple(data_shape))
    return getattr(symbol, op_name)(data, **kwargs).infer_shape_partial()[0]


class _Conv(HybridBlock):
    """Abstract nD convolution layer (private, used as implementation base): a kernel
    convolved with the layer input to produce a tensor of outputs; with ``op_name`` set to
    'Deconvolution' it is the transposed convolution."""

    def __init__(
        self,
        channels: int,
        kernel_size: tuple,
        strides: Any,
        padding: Any,
        dilation: Any,
        groups: int,
        layout: str,
        in_channels: int = 0,
        activation: str | None = None,
        use_bias: bool = True,
        weight_initializer: Any = None,
        bias_initializer: Any = "zeros",
        op_name: str = "Convolution",
        adj: Any = None,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            n = len(kernel_size)
            self._op_name = op_name
            self._kwargs = {
                "kernel": kernel_size,
                "stride": _tuple(strides, n, "strides"),
                "dilate": _tuple(dilation, n, "dilation"),
                "pad": _tuple(padding, n, "padding"),
                "num_filter": channels,
                "num_group": groups,
                "no_bias": not use_bias,
                "layout": layout,
            }
            if adj is not None:
                self._kwargs["adj"] = adj
            dshape = [0] * (n + 2)
            dshape[layout.find("N")] = 1
            dshape[layout.find("C")] = in_channels
            wshapes = _infer_weight_shape(op_name, dshape, self._kwargs)
            self.weight = _deferred(self.params, "weight", wshapes[1], weight_initializer)
            bias_shape = wshapes[2] if use_bias else None  # no bias, no third shape
            _bias_and_act(self, use_bias, activation, shape=bias_shape, init=bias_initializer)

    def hybrid_forward(self, F: Any, x: Any, weight: Any, bias: Any = None) -> Any:
        # npx names the operators in lower case (npx.convolution, npx.deconvolution)
        op = getattr(F.npx, self._op_name.lower()) if is_np_array() else getattr(F, self._op_name)
        if bias is None:
            act = op(x, weight, name="fwd", **self._kwargs)
        else:
            act = op(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            act = self.act(act)
        return act

    def _alias(self) -> str:
        return "conv"

    def __repr__(self) -> str:
        k = self._kwargs
        n = len(k["kernel"])
        name = self.__class__.__name__
        s = f"{name}({{mapping}}, kernel_size={k['kernel']}, stride={k['stride']}"
        if k["pad"] != (0,) * n:
            s += f", padding={k['pad']}"
        if k["dilate"] != (1,) * n:
            s += f", dilation={k['dilate']}"
        if hasattr(self, "out_pad") and self.out_pad != (0,) * n:
            s += f", output_padding={self.out_pad}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += f", {self.act}"
        shape = self.weight.shape
        return s.format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0]}") + ")"


_CONV_DOC = """{n}D {what} layer.

    Parameters
    ----------
    channels : int
        The dimensionality of the output space, i.e. the number of output
        channels (filters) in the convolution.
    kernel_size :int or tuple/list of {n} int
        Specifies the dimensions of the convolution window.
    strides : int or tuple/list of {n} int,
        Specify the strides of the convolution.
    padding : int or a tuple/list of {n} int,
        If padding is non-zero, then the input is implicitly zero-padded
        on both sides for padding number of points
    {extra}dilation : int or tuple/list of {n} int
        Specifies the dilation rate to use for dilated convolution.
    groups : int
        Controls the connections between inputs and outputs.
        At groups=1, all inputs are convolved to all outputs.
        At groups=2, the operation becomes equivalent to having two conv
        layers side by side, each seeing half the input channels, and producing
        half the output channels, and both subsequently concatenated.
    layout: str, default '{layout}'
        Dimension ordering of data and weight.
    in_channels : int, default 0
        The number of input channels to this layer. If not specified,
        initialization will be deferred to the first time `forward` is called
        and `in_channels` will be inferred from the shape of input data.
    activation : str
        Activation function to use. See :func:`~mxnet.ndarray.Activation`.
        If you don't specify anything, no activation is applied
        (ie. "linear" activation: `a(x) = x`).
    use_bias : bool
        Whether the layer uses a bias vector.
    weight_initializer : str or `Initializer`
        Initializer for the `weight` weights matrix.
    bias_initializer : str or `Initializer`
        Initializer for the bias vector.
    """

_OUTPAD_DOC = """output_padding: int or a tuple/list of {n} int
        Controls the amount of implicit zero-paddings on both sides of the
        output for output_padding number of points for each dimension.
    """


class _ConvND(_Conv):
    _ndim = 0
    _layouts: tuple = ()
    _transpose = False

    def __init__(self, channels: int, kernel_size: Any, strides: Any, padding: Any,
                 output_padding: Any, dilation: Any, groups: int, layout: str,
                 activation: Any, use_bias: bool, weight_initializer: Any,
                 bias_initializer: Any, in_channels: int, kwargs: dict) -> None:  # fmt: skip
        n = self._ndim
        _check_layout(layout, self._layouts, self.__class__.__name__)
        kernel_size = _tuple(kernel_size, n, "kernel_size")
        default = "Deconvolution" if self._transpose else "Convolution"
        op_name = kwargs.pop("op_name", default)
        adj = None
        if self._transpose:
            adj = _tuple(output_padding, n, "output_padding")
        super().__init__(
            channels, kernel_size, strides, padding, dilation, groups, layout, in_channels,
            activation, use_bias, weight_initializer, bias_initializer, op_name=op_name,
            adj=adj, **kwargs,
        )  # fmt: skip
        if self._transpose:
            self.outpad = adj


def _conv_class(name: str, n: int, layouts: tuple, transpose: bool) -> type:
    one = n == 1

    def __init__(self: Any, channels: int, kernel_size: Any,
                 strides: Any = 1 if one else (1,) * n, padding: Any = 0 if one else (0,) * n,
                 output_padding: Any = 0 if one else (0,) * n,
                 dilation: Any = 1 if one else (1,) * n, groups: int = 1,
                 layout: str = layouts[0], activation: str | None = None,
                 use_bias: bool = True, weight_initializer: Any = None,
                 bias_initializer: Any = "zeros", in_channels: int = 0,
                 **kwargs: Any) -> None:  # fmt: skip
        _ConvND.__init__(
            self, channels, kernel_size, strides, padding, output_padding, dilation, groups,
            layout, activation, use_bias, weight_initializer, bias_initializer, in_channels,
            kwargs,
        )  # fmt: skip

    what = "transposed convolution" if transpose else "convolution"
    extra = _OUTPAD_DOC.format(n=n) if transpose else ""
    doc = _CONV_DOC.format(n=n, what=what, layout=layouts[0], extra=extra)
    attrs = {"_ndim": n, "_layouts": layouts, "_transpose": transpose, "__doc__": doc,
             "__init__": __init__, "__module__": __name__}  # fmt: skip
    if not transpose:
        # no output_padding for plain convolutions: keep MXNet's positional order
        def init(self: Any, channels: int, kernel_size: Any,
                 strides: Any = 1 if one else (1,) * n, padding: Any = 0 if one else (0,) * n,
                 dilation: Any = 1 if one else (1,) * n, groups: int = 1,
                 layout: str = layouts[0], activation: str | None = None,
                 use_bias: bool = True, weight_initializer: Any = None,
                 bias_initializer: Any = "zeros", in_channels: int = 0,
                 **kwargs: Any) -> None:  # fmt: skip
            _ConvND.__init__(
                self, channels, kernel_size, strides, padding, 0, dilation, groups, layout,
                activation, use_bias, weight_initializer, bias_initializer, in_channels,
                kwargs,
            )  # fmt: skip

        attrs["__init__"] = init
    attrs["__init__"].__qualname__ = f"{name}.__init__"
    return type(name, (_ConvND,), attrs)


Conv1D = _conv_class("Conv1D", 1, ("NCW",), False)
Conv2D = _conv_class("Conv2D", 2, ("NCHW", "NHWC"), False)
Conv3D = _conv_class("Conv3D", 3, ("NCDHW", "NDHWC"), False)
Conv1DTranspose = _conv_class("Conv1DTranspose", 1, ("NCW",), True)
Conv2DTranspose = _conv_class("Conv2DTranspose", 2, ("NCHW", "NHWC"), True)
Conv3DTranspose = _conv_class("Conv3DTranspose", 3, ("NCDHW", "NDHWC"), True)


class _Pooling(HybridBlock):
    """Abstract class for different pooling layers."""

    def __init__(
        self,
        pool_size: tuple,
        strides: Any,
        padding: Any,
        ceil_mode: bool,
        global_pool: bool,
        pool_type: str,
        layout: str,
        count_include_pad: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        n = len(pool_size)
        if strides is None:
            strides = pool_size
        self._kwargs = {
            "kernel": pool_size,
            "stride": _tuple(strides, n, "strides"),
            "pad": _tuple(padding, n, "padding"),
            "global_pool": global_pool,
            "pool_type": pool_type,
            "layout": layout,
            "pooling_convention": "full" if ceil_mode else "valid",
        }
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self) -> str:
        return "pool"

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        pooling = F.npx.pooling if is_np_array() else F.Pooling
        return pooling(x, name="fwd", **self._kwargs)

    def __repr__(self) -> str:
        k = self._kwargs
        return (
            f"{self.__class__.__name__}(size={k['kernel']}, stride={k['stride']}, "
            f"padding={k['pad']}, ceil_mode={k['pooling_convention'] == 'full'}, "
            f"global_pool={k['global_pool']}, pool_type={k['pool_type']}, "
            f"layout={k['layout']})"
        )


_POOL_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}

_POOL_DOC = """{what} operation for {n}D data.

    Parameters
    ----------
    pool_size: int or list/tuple of {n} ints,
        Size of the pooling windows.
    strides: int, list/tuple of {n} ints, or None.
        Factor by which to downscale. E.g. 2 will halve the input size.
        If `None`, it will default to `pool_size`.
    padding: int or list/tuple of {n} ints,
        If padding is non-zero, then the input is implicitly
        zero-padded on both sides for padding number of points.
    layout : str, default '{layout}'
        Dimension ordering of data and out.
    ceil_mode : bool, default False
        When `True`, will use ceil instead of floor to compute the output shape.
    """


def _pool_class(name: str, n: int, pool_type: str, ceil_first: bool) -> type:
    """A pooling layer class; its positional parameters follow MXNet's order for that class
    (``layout`` before ``ceil_mode`` in MaxPool1D/2D and AvgPool1D, after it elsewhere)."""
    layouts = _POOL_LAYOUTS[n]
    P = inspect.Parameter
    names = ["pool_size", "strides", "padding"]
    names += ["ceil_mode", "layout"] if ceil_first else ["layout", "ceil_mode"]
    defaults = {"pool_size": 2 if n == 1 else (2,) * n, "strides": None, "padding": 0,
                "layout": layouts[0], "ceil_mode": False}  # fmt: skip
    if pool_type == "avg":
        names.append("count_include_pad")
        defaults["count_include_pad"] = True
    params = [P("self", P.POSITIONAL_OR_KEYWORD)]
    params += [P(k, P.POSITIONAL_OR_KEYWORD, default=defaults[k]) for k in names]
    params.append(P("kwargs", P.VAR_KEYWORD))
    signature = inspect.Signature(params)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        v = bound.arguments
        _check_layout(v["layout"], layouts, name)
        pool_size = _tuple(v["pool_size"], n, "pool_size")
        _Pooling.__init__(
            self, pool_size, v["strides"], v["padding"], v["ceil_mode"], False, pool_type,
            v["layout"], v.get("count_include_pad"), **v["kwargs"],
        )  # fmt: skip

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    what = "Max pooling" if pool_type == "max" else "Average pooling"
    doc = _POOL_DOC.format(n=n, what=what, layout=layouts[0])
    if pool_type == "avg":
        doc += "count_include_pad : bool, default True\n        When 'False', will exclude "
        doc += "padding elements when computing the average value.\n    "
    __init__.__qualname__ = f"{name}.__init__"
    return type(name, (_Pooling,), {"__init__": __init__, "__doc__": doc,
                                    "__module__": __name__})  # fmt: skip


def _global_pool_class(name: str, n: int, pool_type: str) -> type:
    layouts = _POOL_LAYOUTS[n]

    def __init__(self: Any, layout: str = layouts[0], **kwargs: Any) -> None:
        _check_layout(layout, layouts, name)
        _Pooling.__init__(self, (1,) * n, None, 0, True, True, pool_type, layout, **kwargs)

    what = "max" if pool_type == "max" else "average"
    doc = (
        f"Global {what} pooling operation for {n}D data.\n\n    Parameters\n    ----------\n"
        f"    layout : str, default '{layouts[0]}'\n        Dimension ordering of data and out.\n"
    )
    __init__.__qualname__ = f"{name}.__init__"
    return type(name, (_Pooling,), {"__init__": __init__, "__doc__": doc,
                                    "__module__": __name__})  # fmt: skip


MaxPool1D = _pool_class("MaxPool1D", 1, "max", ceil_first=False)
MaxPool2D = _pool_class("MaxPool2D", 2, "max", ceil_first=False)
MaxPool3D = _pool_class("MaxPool3D", 3, "max", ceil_first=True)
AvgPool1D = _pool_class("AvgPool1D", 1, "avg", ceil_first=False)
AvgPool2D = _pool_class("AvgPool2D", 2, "avg", ceil_first=True)
AvgPool3D = _pool_class("AvgPool3D", 3, "avg", ceil_first=True)
GlobalMaxPool1D = _global_pool_class("GlobalMaxPool1D", 1, "max")
GlobalMaxPool2D = _global_pool_class("GlobalMaxPool2D", 2, "max")
GlobalMaxPool3D = _global_pool_class("GlobalMaxPool3D", 3, "max")
GlobalAvgPool1D = _global_pool_class("GlobalAvgPool1D", 1, "avg")
GlobalAvgPool2D = _global_pool_class("GlobalAvgPool2D", 2, "avg")
GlobalAvgPool3D = _global_pool_class("GlobalAvgPool3D", 3, "avg")


class ReflectionPad2D(HybridBlock):
    r"""Pads the input tensor using the reflection of the input boundary.

    Parameters
    ----------
    padding: int
        An integer padding size, or MXNet's 8-tuple ``pad_width``.

    Inputs:
        - **data**: input tensor with the shape :math:`(N, C, H_{in}, W_{in})`.

    Outputs:
        - **out**: output tensor with the shape :math:`(N, C, H_{out}, W_{out})`.
    """

    def __init__(self, padding: Any = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(padding, numbers.Number):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise GluonCheckError("ReflectionPad2D: padding must be an int or 8 ints")
        self._padding = tuple(padding)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return F.pad(x, mode="reflect", pad_width=self._padding)
