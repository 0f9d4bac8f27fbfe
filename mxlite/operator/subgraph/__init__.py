"""MXNet 1.9.1's fused CPU operators made by the subgraph backends (``_sg_mkldnn_*``)."""

from . import mkldnn_conv as mkldnn_conv
from . import mkldnn_fc as mkldnn_fc
from . import mkldnn_selfatt as mkldnn_selfatt
