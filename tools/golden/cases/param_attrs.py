"""How MXNet 1.9.1 writes operator keyword arguments into symbol JSON (tests/operator/
test_param.py), metadata-only entries of tests/operator/golden/param_attrs.npz: ``case<i>``, an
operator and its keyword arguments as a Python expression, with the ``attrs`` MXNet stores in the
JSON node or the first line of the ``error`` MXNet raises; ``docs``, for a few operators the
header line of each parameter in MXNet's generated docstring ("kernel : Shape(tuple), required").
"""

import json
import re

import mxnet as mx
import numpy as np
from core import Golden, nd_function

FILE = "tests/operator/golden/param_attrs.npz"

# (operator name or path under mx.sym, keyword arguments as a Python expression with `np` in scope)
CASES = [
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, no_bias=True, pad=[1, 1])"),
    ("Convolution", "dict(kernel='(3,3)', num_filter='8', no_bias='True')"),
    ("Convolution", "dict(kernel=[3], num_filter=np.int32(8), stride=(1,), dilate=[])"),
    ("Convolution", "dict(kernel=(np.int64(3), 3), num_filter=8, layout=None)"),
    ("Convolution", "dict(kernel=3, num_filter=8, layout='NCHW', cudnn_tune='off')"),
    ("Convolution", "dict(kernel=' ( 3 , 3 ) ', num_filter=' 8 ', no_bias='true')"),
    ("Convolution", "dict(kernel='(3,3,)', num_filter='+8', no_bias=1)"),
    ("Convolution", "dict(kernel='(3L, 3L)', num_filter=8, no_bias='TRUE')"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, no_bias=np.bool_(False))"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, layout='None', workspace=2**40)"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, __lr_mult__=2)"),
    ("Convolution", "dict(kernel=(3.0, 3), num_filter=8)"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8.0)"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=True)"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=0)"),
    ("Convolution", "dict(kernel=(3, 3), num_filter='1e2')"),
    ("Convolution", "dict(kernel=(3, 3), num_filter='0x10')"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, no_bias='yes')"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, no_bias=2)"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, no_bias=' false')"),
    ("Convolution", "dict(kernel=np.array([3, 3]), num_filter=8)"),
    ("Convolution", "dict(kernel='(3 3)', num_filter=8)"),
    ("Convolution", "dict(kernel='3,3', num_filter=8)"),
    ("Convolution", "dict(kernel='(3,3', num_filter=8)"),
    ("Convolution", "dict(kernel='(None, 3)', num_filter=8)"),
    ("Convolution", "dict(kernel='(3, 3) junk', num_filter=8)"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, layout='nchw')"),
    ("Convolution", "dict(kernel=(3, 3), num_filter=8, kernal=3)"),
    ("Convolution", "dict(num_filter=8)"),
    ("BatchNorm", "dict(eps=1e-05, momentum=np.float32(0.9), fix_gamma=np.bool_(False))"),
    ("BatchNorm", "dict(eps=np.float64(1e-5), momentum=0.1 + 0.2, axis=np.int64(1))"),
    ("BatchNorm", "dict(eps='1e-5', momentum='inf', min_calib_range=None)"),
    ("BatchNorm", "dict(eps=1, momentum=1e-300, max_calib_range=-0.5)"),
    ("BatchNorm", "dict(eps=' 0.1', momentum=float('inf'), min_calib_range='None')"),
    ("BatchNorm", "dict(eps='0.1x')"),
    ("BatchNorm", "dict(eps=True)"),
    ("BatchNorm", "dict(axis=None)"),
    ("Cast", "dict(dtype='float32')"),
    ("Cast", "dict(dtype=np.float16)"),
    ("Cast", "dict(dtype=np.dtype('int8'))"),
    ("Cast", "dict(dtype='int')"),
    ("Cast", "dict(dtype=float)"),
    ("Cast", "dict(dtype=np.dtype('>f4'))"),
    ("Cast", "dict(dtype='bool')"),
    ("Cast", "dict(dtype=None)"),
    ("Cast", "dict(dtype='complex64')"),
    ("slice", "dict(begin=(None, 1), end=(3, None), step=[1, None])"),
    ("slice", "dict(begin='(None,1)', end='(3,None)')"),
    ("slice", "dict(begin=(1,), end=(np.int64(2),), step=())"),
    ("slice", "dict(begin='(none,1)', end='(3,None)')"),
    ("sum", "dict(axis=None, keepdims=1)"),
    ("sum", "dict(axis='None', exclude=True)"),
    ("sum", "dict(axis=1)"),
    ("sum", "dict(axis=(1,))"),
    ("sum", "dict(axis='(1,2)')"),
    ("sum", "dict(axis=[])"),
    ("argmax", "dict(axis=None)"),
    ("argmax", "dict(axis=-1, keepdims=False)"),
    ("argmax", "dict(axis='none')"),
    ("argmax", "dict(axis=1.0)"),
    ("Activation", "dict(act_type='relu')"),
    ("Activation", "dict(act_type=np.str_('tanh'))"),
    ("Activation", "dict(act_type='rleu')"),
    ("Activation", "dict(act_type='RELU')"),
    ("LeakyReLU", "dict(act_type='leaky', slope=0.1, lower_bound=1 / 3)"),
    ("clip", "dict(a_min=-np.inf, a_max=float('inf'))"),
    ("clip", "dict(a_min=np.float32(-0.5), a_max=np.int64(2))"),
    ("contrib.MultiBoxPrior", "dict(sizes=(0.5, 0.25), ratios=[1, 2.0])"),
    ("contrib.MultiBoxPrior", "dict(sizes='(0.5,0.25)', ratios='[1,2]', steps='(1e-5, 2)')"),
    ("contrib.MultiBoxPrior", "dict(sizes=0.5, offsets=(np.float32(0.1), np.float64(0.2)))"),
    ("contrib.MultiBoxPrior", "dict(sizes=(1,), ratios='[0.5]', clip='1')"),
    ("contrib.MultiBoxPrior", "dict(sizes='(inf,)')"),
    ("contrib.MultiBoxPrior", "dict(sizes=(float('nan'),))"),
    ("Dropout", "dict(p=0.5, axes=(), mode='always', cudnn_off=None)"),
    ("Dropout", "dict(p=np.float16(0.25), axes=[0, 1], cudnn_off=True)"),
]

DOC_OPS = list(dict.fromkeys(path for path, _ in CASES))  # each operator of the cases, once


def _first_error_line(exc):
    lines = [ln.strip() for ln in str(exc).splitlines() if "MXNetError" in ln] or [str(exc)]
    return lines[0].replace("MXNetError: ", "").split(", in operator")[0][:60]


def _doc_headers(path):
    doc = nd_function(path, mx.sym).__doc__
    body = doc[doc.index("Parameters\n") :].split("\nname : ")[0]
    return re.findall(r"^(\w+ : (?!Symbol|NDArray).*)$", body, flags=re.M)


def record(golden: Golden) -> None:
    x = mx.sym.var("x")
    for i, (path, expr) in enumerate(CASES):
        case = {"op": path, "kwargs": expr}
        try:
            sym = nd_function(path, mx.sym)(x, **eval(expr, {"np": np}))
            node = json.loads(sym.tojson())["nodes"][-1]
            case["attrs"] = node.get("attrs", {})
        except mx.base.MXNetError as exc:
            case["error"] = _first_error_line(exc)
        golden.put(f"case{i}", case)
    golden.put("docs", {path: _doc_headers(path) for path in DOC_OPS})
