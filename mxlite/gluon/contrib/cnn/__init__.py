"""``mx.gluon.contrib.cnn``: deformable convolution layers."""

from .conv_layers import DeformableConvolution as DeformableConvolution
from .conv_layers import ModulatedDeformableConvolution as ModulatedDeformableConvolution

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]
