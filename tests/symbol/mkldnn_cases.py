"""quantize_net on a SymbolBlock, run the same way on MXNet 1.9.1 and on mxlite (``mx`` is
either): tools/golden/cases/mkldnn_backend.py records MXNet's graph and outputs,
tests/symbol/test_subgraph_mkldnn.py compares mxlite's."""

from __future__ import annotations

from typing import Any

import numpy as np


def quantized_block(mx: Any, sym: Any, params: dict, data: np.ndarray) -> Any:
    """``sym`` (input ``data``) as a hybridized SymbolBlock with its parameters set to
    ``params`` (name -> NumPy array) and run once on ``data``, then ``quantize_net`` of it
    (``quantized_dtype="auto"``: uint8 after relu; naive calibration on ``data`` as one
    batch): the quantized network."""
    block = mx.gluon.SymbolBlock(sym, mx.sym.var("data"))
    for name, param in block.collect_params().items():
        param.initialize(mx.init.Constant(0))
        param.set_data(mx.nd.array(params[name]))
    block.hybridize()
    block(mx.nd.array(data))
    calib = mx.io.NDArrayIter(data=mx.nd.array(data), batch_size=len(data))
    return mx.contrib.quantization.quantize_net(
        block, quantized_dtype="auto", calib_mode="naive", calib_data=calib,
        num_calib_examples=len(data), ctx=mx.cpu(),
    )  # fmt: skip
