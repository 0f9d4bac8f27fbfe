"""AMP operator lists for bfloat16 (MXNet 1.9.1's ``amp.lists.symbol_bf16``).

MXNet's lists, entry for entry: tests/contrib/amp/test_golden_amp.py checks them against the
lists tools/golden/cases/amp.py records from real MXNet.
"""

from . import symbol_fp16 as _fp16

# fmt: off
# run in bfloat16: inputs are cast to it
BF16_FUNCS = [
    'Convolution', 'FullyConnected'
]

# run in whatever precision their inputs have
BF16_FP32_FUNCS = [
    'abs', '_add', 'BatchNorm', 'BatchNormWithReLU', 'clip', 'Concat', 'concat', 'LRN',
    'Pooling', 'relu', 'shuffle', '_shuffle', 'sqrt', 'square', 'tanh'
]

# float16's lists that bfloat16 leaves out altogether
_not_listed = {
    'amp_cast', 'amp_multicast', 'CuDNNBatchNorm', '_TensorRT',
    '_contrib_interleaved_matmul_encdec_qk', '_contrib_interleaved_matmul_encdec_valatt',
    '_contrib_interleaved_matmul_selfatt_qk', '_contrib_interleaved_matmul_selfatt_valatt',
}
# float16's widest-type operators that bfloat16 runs in float32
_fp32_not_widest = ['broadcast_mul']
# float16's float32 operators that bfloat16 runs in the widest precision
_widest_not_fp32 = [
    '_contrib_MultiBoxDetection', '_contrib_MultiBoxPrior', '_contrib_MultiBoxTarget'
]

# run in the widest precision among their inputs (amp_multicast before them): float16's, with
# the changes above, in MXNet's order
_widest = [
    op for op in _fp16.WIDEST_TYPE_CASTS
    if op not in {*BF16_FP32_FUNCS, *_fp32_not_widest, *_not_listed}
]
_at = _widest.index('_contrib_MultiProposal')
WIDEST_TYPE_CASTS = _widest[:_at] + _widest_not_fp32 + _widest[_at:]

# run in float32: inputs are cast to it; every other operator float16 lists, in its order
_elsewhere = {*BF16_FUNCS, *BF16_FP32_FUNCS, *WIDEST_TYPE_CASTS, *_not_listed}
FP32_FUNCS = [
    op for op in _fp16.FP16_FUNCS + _fp16.FP16_FP32_FUNCS + _fp32_not_widest + _fp16.FP32_FUNCS
    if op not in _elsewhere
]

# run in float32 when the parameter has one of the values: (operator, parameter, values)
CONDITIONAL_FP32_FUNCS = [(op, param, list(values))
                          for op, param, values in _fp16.CONDITIONAL_FP32_FUNCS]

# loss outputs whose gradient the loss scale multiplies
LOSS_OUTPUT_FUNCTIONS = list(_fp16.LOSS_OUTPUT_FUNCTIONS)

# inputs that stay float32 when the operator runs in bfloat16 ('' is the data input)
BF16_USE_FP32_PARAMS = {
    'BatchNormWithReLU': ['', 'gamma', 'beta', 'moving_mean', 'moving_var'],
    'BatchNorm': ['', 'gamma', 'beta', 'moving_mean', 'moving_var'],
}
# fmt: on
