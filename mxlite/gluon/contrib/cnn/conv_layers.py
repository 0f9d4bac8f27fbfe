"""Deformable convolution layers (v1, Dai 2017; v2 with a modulation mask, Zhu 2018): each
holds an ordinary convolution that predicts the sampling offsets (and, for v2, the mask) and
the deformable convolution that uses them."""

from __future__ import annotations

from typing import Any

from ...block import HybridBlock
from ...nn.activations import Activation
from ...nn.conv_layers import _check_layout, _infer_weight_shape, _tuple
from ...parameter_dict import _deferred

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]

_PARAMS_DOC = """
    Parameters
    ----------
    channels : int,
        The dimensionality of the output space
        i.e. the number of output channels in the convolution.
    kernel_size : int or tuple/list of 2 ints, (Default value = (1,1))
        Specifies the dimensions of the convolution window.
    strides : int or tuple/list of 2 ints, (Default value = (1,1))
        Specifies the strides of the convolution.
    padding : int or tuple/list of 2 ints, (Default value = (0,0))
        If padding is non-zero, then the input is implicitly zero-padded
        on both sides for padding number of points.
    dilation : int or tuple/list of 2 ints, (Default value = (1,1))
        Specifies the dilation rate to use for dilated convolution.
    groups : int, (Default value = 1)
        Controls the connections between inputs and outputs.
    num_deformable_group : int, (Default value = 1)
        Number of deformable group partitions.
    layout : str, (Default value = NCHW)
        Dimension ordering of data and weight: 'NCHW' or 'NHWC'.
    use_bias : bool, (Default value = True)
        Whether the layer for generating the output features uses a bias vector.
    in_channels : int, (Default value = 0)
        The number of input channels to this layer. If not specified,
        initialization will be deferred to the first time `forward` is called.
    activation : str, (Default value = None)
        Activation function to use. See :func:`~mxnet.ndarray.Activation`.
    weight_initializer : str or `Initializer`, (Default value = None)
        Initializer for the weight of the convolution generating the output features.
    bias_initializer : str or `Initializer`, (Default value = zeros)
        Initializer for the bias of the convolution generating the output features.
    offset_weight_initializer : str or `Initializer`, (Default value = zeros)
        Initializer for the weight of the convolution generating the offset.
    offset_bias_initializer : str or `Initializer`, (Default value = zeros),
        Initializer for the bias of the convolution generating the offset.
    offset_use_bias: bool, (Default value = True)
        Whether the layer for generating the offset uses a bias vector.

    Inputs:
        - **data**: 4D input tensor with shape
          `(batch_size, in_channels, height, width)` when `layout` is `NCHW`.

    Outputs:
        - **out**: 4D output tensor with shape
          `(batch_size, channels, out_height, out_width)` when `layout` is `NCHW`.
"""


class _DeformableBase(HybridBlock):
    """The parameters and the offset convolution both layers share; ``_per_point`` is how
    many channels the offset convolution predicts per kernel point and deformable group."""

    _per_point = 2
    _op = "DeformableConvolution"

    def __init__(
        self,
        channels: int,
        kernel_size: Any = (1, 1),
        strides: Any = (1, 1),
        padding: Any = (0, 0),
        dilation: Any = (1, 1),
        groups: int = 1,
        num_deformable_group: int = 1,
        layout: str = "NCHW",
        use_bias: bool = True,
        in_channels: int = 0,
        activation: str | None = None,
        weight_initializer: Any = None,
        bias_initializer: Any = "zeros",
        offset_weight_initializer: Any = "zeros",
        offset_bias_initializer: Any = "zeros",
        offset_use_bias: bool = True,
        op_name: str | None = None,
        adj: Any = None,
        prefix: str | None = None,
        params: Any = None,
    ) -> None:
        super().__init__(prefix=prefix, params=params)
        _check_layout(layout, ("NCHW", "NHWC"), type(self).__name__)
        kernel = _tuple(kernel_size, 2, "kernel_size")
        common = {
            "kernel": kernel,
            "stride": _tuple(strides, 2, "strides"),
            "dilate": _tuple(dilation, 2, "dilation"),
            "pad": _tuple(padding, 2, "padding"),
            "num_group": groups,
            "layout": layout,
        }
        if adj:
            common["adj"] = adj
        self._op_name = op_name or self._op
        self._channels = channels
        self._in_channels = in_channels
        points = num_deformable_group * kernel[0] * kernel[1]
        self._offset_channels = 2 * points  # the rest of the offset convolution is the mask
        self._kwargs_offset = dict(
            common, num_filter=self._per_point * points, no_bias=not offset_use_bias
        )
        self._kwargs_deformable_conv = dict(
            common,
            num_filter=channels,
            num_deformable_group=num_deformable_group,
            no_bias=not use_bias,
        )
        with self.name_scope():
            dshape = [0, 0, 0, 0]
            dshape[layout.find("N")] = 1
            dshape[layout.find("C")] = in_channels
            offset_shapes = _infer_weight_shape("Convolution", dshape, self._kwargs_offset)
            p = self.params
            self.offset_weight = _deferred(
                p, "offset_weight", offset_shapes[1], offset_weight_initializer
            )
            self.offset_bias = None
            if offset_use_bias:
                self.offset_bias = _deferred(
                    p, "offset_bias", offset_shapes[2], offset_bias_initializer
                )
            wshape = (channels, in_channels // groups, *kernel)
            self.deformable_conv_weight = _deferred(
                p, "deformable_conv_weight", wshape, weight_initializer
            )
            self.deformable_conv_bias = None
            if use_bias:
                self.deformable_conv_bias = _deferred(
                    p, "deformable_conv_bias", (channels,), bias_initializer
                )
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _sampling(self, F: Any, offsets: Any) -> dict:
        """The deformable operator's sampling inputs, from the offset convolution's output."""
        return {"offset": offsets}

    def hybrid_forward(
        self,
        F: Any,
        x: Any,
        offset_weight: Any,
        deformable_conv_weight: Any,
        offset_bias: Any = None,
        deformable_conv_bias: Any = None,
    ) -> Any:
        args = [x, offset_weight] + ([] if offset_bias is None else [offset_bias])
        offsets = F.Convolution(*args, cudnn_off=True, **self._kwargs_offset)
        bias = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        out = getattr(F.contrib, self._op)(
            data=x,
            **self._sampling(F, offsets),
            weight=deformable_conv_weight,
            name="fwd",
            **bias,
            **self._kwargs_deformable_conv,
        )
        return self.act(out) if self.act is not None else out

    def __repr__(self) -> str:
        k = self._kwargs_deformable_conv
        s = f"{type(self).__name__}({{mapping}}, kernel_size={k['kernel']}, stride={k['stride']}"
        if k["pad"] != (0, 0):
            s += f", padding={k['pad']}"
        if k["dilate"] != (1, 1):
            s += f", dilation={k['dilate']}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += f", {self.act}"
        shape = self.deformable_conv_weight.shape
        return s.format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0]}") + ")"


class DeformableConvolution(_DeformableBase):
    __doc__ = (
        """2-D Deformable Convolution v_1 (Dai, 2017): the sampling points of the
    convolution move by offsets that a separate convolution of the input learns; both
    convolutions are parameters of this layer.
"""
        + _PARAMS_DOC
    )

    def _alias(self) -> str:
        return "deformable_conv"


class ModulatedDeformableConvolution(_DeformableBase):
    __doc__ = (
        """2-D Deformable Convolution v2 (https://arxiv.org/abs/1811.11168): as
    DeformableConvolution, and each sampled value is scaled by a learned mask
    (``2 * sigmoid`` of further channels of the offset convolution).
"""
        + _PARAMS_DOC
    )

    _per_point = 3
    _op = "ModulatedDeformableConvolution"

    def _sampling(self, F: Any, offsets: Any) -> dict:
        split = self._offset_channels
        offset = F.slice_axis(offsets, axis=1, begin=0, end=split)
        mask = F.sigmoid(F.slice_axis(offsets, axis=1, begin=split, end=None)) * 2
        return {"offset": offset, "mask": mask}

    def _alias(self) -> str:
        return "modulated_deformable_conv"
