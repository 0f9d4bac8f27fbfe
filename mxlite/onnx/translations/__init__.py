"""The operators' ONNX translations, registered into the operator registry by name
(``registry.register_onnx``), and the operators that ONNX cannot express, with the reason."""

from ...operator.registry import register_onnx
from . import contrib as contrib
from . import detection as detection
from . import math as math
from . import nn as nn
from . import numpy as numpy
from . import random as random
from . import rnn as rnn
from . import shape as shape

# operators whose translation needs a newer opset than the oldest supported (13)
NEEDS_OPSET: dict[str, int] = {"_contrib_ModulatedDeformableConvolution": 19}

_RANDOM = "ONNX samples only uniform, normal and multinomial distributions, with fixed parameters."
_TRAIN = "it updates weights during training; ONNX graphs are for inference."
_LINALG = "ONNX has no such linear-algebra operator."

register_onnx(
    *(
        "_random_exponential _random_exponential_like _random_gamma _random_gamma_like "
        "_random_generalized_negative_binomial _random_generalized_negative_binomial_like "
        "_random_negative_binomial _random_negative_binomial_like _random_poisson "
        "_random_poisson_like _random_randint _sample_exponential _sample_gamma "
        "_sample_generalized_negative_binomial _sample_negative_binomial _sample_normal "
        "_sample_poisson _sample_uniform _sample_unique_zipfian _shuffle"
    ).split(),
    why_not=_RANDOM,
)
register_onnx(
    *(
        "adam_update ftml_update ftrl_update lamb_update_phase1 lamb_update_phase2 "
        "mp_lamb_update_phase1 mp_lamb_update_phase2 mp_nag_mom_update mp_sgd_mom_update "
        "mp_sgd_update multi_mp_sgd_mom_update multi_mp_sgd_update multi_sgd_mom_update "
        "multi_sgd_update nag_mom_update rmsprop_update rmspropalex_update sgd_mom_update "
        "sgd_update signsgd_update signum_update _adamw_update _mp_adamw_update "
        "_multi_adamw_update _multi_mp_adamw_update _contrib_group_adagrad_update "
        "_sparse_adagrad_update _multi_lamb_update _multi_mp_lamb_update"
    ).split(),
    why_not=_TRAIN,
)
register_onnx(
    *(
        "_linalg_det _linalg_extractdiag _linalg_extracttrian _linalg_gelqf _linalg_inverse "
        "_linalg_makediag _linalg_maketrian _linalg_potrf _linalg_potri _linalg_slogdet "
        "_linalg_sumlogdiag _linalg_syevd _linalg_trmm _linalg_trsm"
    ).split(),
    why_not=_LINALG,
)
register_onnx("CTCLoss", "softmax_cross_entropy", why_not="it is a training loss.")
register_onnx("Custom", why_not="a custom operator runs Python code that ONNX cannot hold.")
register_onnx("gamma", "gammaln", "erfinv", why_not="ONNX has no such special function.")
register_onnx(
    "_contrib_fft",
    "_contrib_ifft",
    why_not="ONNX's DFT has another layout (a trailing axis of 2); not exported yet (MXNet "
    "1.9.1 does not export it either).",
)
register_onnx(
    *(
        "_random_pdf_dirichlet _random_pdf_exponential _random_pdf_gamma "
        "_random_pdf_generalized_negative_binomial _random_pdf_negative_binomial "
        "_random_pdf_normal "
        "_random_pdf_poisson _random_pdf_uniform"
    ).split(),
    why_not="probability densities are not exported.",
)
register_onnx(
    "BilinearSampler", "GridGenerator", "SpatialTransformer", "Correlation",
    why_not="ONNX has no sampler with MXNet's grid convention before opset 16's GridSample, "
    "and no correlation layer.",
)  # fmt: skip
register_onnx("im2col", "col2im", "khatri_rao", "_histogram", "diag",
              why_not="ONNX has no such operator.")  # fmt: skip
register_onnx(
    "_slice_assign",
    "_slice_assign_scalar",
    "_ravel_multi_index",
    "_unravel_index",
    why_not="it is not exported yet (MXNet 1.9.1 does not export it either).",
)
register_onnx(
    "_contrib_MultiBoxTarget",
    "_contrib_bipartite_matching",
    "_contrib_box_encode",
    "_contrib_hawkesll",
    why_not="it computes training targets or a training likelihood.",
)
register_onnx(
    "_sparse_retain",
    "_contrib_getnnz",
    why_not="it reads sparse storage (row indices, non-zero counts), which ONNX tensors lack.",
)
register_onnx(
    "_foreach",
    "_while_loop",
    "_cond",
    why_not="control flow with subgraphs is not exported yet (ONNX's Loop, Scan and If could "
    "hold it).",
)
register_onnx(
    "_contrib_MultiBoxDetection",
    "_contrib_Proposal",
    "_contrib_MultiProposal",
    why_not="its per-class decoding and suppression is not exported yet (MXNet 1.9.1 does not "
    "export it either); export box_decode and box_nms instead.",
)
register_onnx(
    "_contrib_PSROIPooling",
    "_contrib_DeformablePSROIPooling",
    "_contrib_RROIAlign",
    why_not="ONNX has no position-sensitive or rotated region pooling.",
)
register_onnx(
    "_contrib_DeformableConvolution",
    why_not="MXNet's DCN v1 kernel samples only points inside the map and repeats its last row "
    "and column, where ONNX's DeformConv pads with zeros: results differ at the borders "
    "(ModulatedDeformableConvolution is exported).",
)
register_onnx(
    "_contrib_count_sketch",
    "_contrib_quantize_v2",
    "_contrib_requantize",
    "_contrib_mrcnn_mask_target",
    why_not="it is not exported yet (MXNet 1.9.1 does not export it either).",
)
register_onnx(
    "_contrib_BatchNormWithReLU",
    "_contrib_calibrate_entropy",
    "_contrib_quantize_asym",
    "_contrib_quantized_act",
    "_contrib_quantized_batch_norm",
    "_contrib_quantized_concat",
    "_contrib_quantized_conv",
    "_contrib_quantized_elemwise_add",
    "_contrib_quantized_elemwise_mul",
    "_contrib_quantized_embedding",
    "_contrib_quantized_flatten",
    "_contrib_quantized_fully_connected",
    "_contrib_quantized_pooling",
    "_contrib_quantized_rnn",
    why_not="MXNet's quantized (int8 with float ranges) and fused CPU operators are not "
    "exported (MXNet 1.9.1 does not export them either); export the float model.",
)
register_onnx(
    "_image_to_tensor",
    "_image_normalize",
    "_image_crop",
    "_image_resize",
    "_image_flip_left_right",
    "_image_flip_top_bottom",
    "_image_adjust_lighting",
    why_not="it is an input transform of gluon.data.vision (HWC images), not exported yet; "
    "apply it before the exported model.",
)
register_onnx(
    "_image_random_brightness",
    "_image_random_contrast",
    "_image_random_saturation",
    "_image_random_hue",
    "_image_random_color_jitter",
    "_image_random_lighting",
    "_image_random_flip_left_right",
    "_image_random_flip_top_bottom",
    why_not="it is a random training-time augmentation.",
)
register_onnx(
    "_rnn_param_concat",
    why_not="it only packs a fused RNN layer's parameters, which export as the RNN's initializers.",
)
