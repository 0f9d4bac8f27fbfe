"""The softmax family and the loss/output layers (tests/operator/test_nn_softmax.py,
test_nn_loss.py): every input is drawn first, then each case runs in training mode with
standard normal head gradients; only the first input's gradient is recorded."""

import numpy as np

FILE = "tests/operator/golden/nn_loss.npz"
SEED = 20240601
GENERATOR = "default_rng"


def lab(values, dtype="float32"):
    return np.array(values, dtype=dtype)


def cases(rng: np.random.Generator):
    def r(*shape, dtype="float32", scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(dtype)

    c = {}

    def add(name: str, op: str, *inputs: np.ndarray, **params) -> None:
        c[name] = (op, list(inputs), params)

    # fmt: off
    # softmax family
    add("softmax_f32", "softmax", r(3, 4))
    add("softmax_f64_axis0_T", "softmax", r(2, 3, 4, dtype="float64"), axis=0, temperature=2.0)
    add("softmax_f16", "softmax", r(3, 5, dtype="float16"))
    add("softmax_dtype64", "softmax", r(3, 4), dtype="float64")
    add("softmax_len", "softmax", r(3, 5), lab([3, 5, 1], "int32"), use_length=True)
    add("softmax_len_axis1", "softmax", r(2, 4, 3), lab([[1, 4, 2], [3, 2, 4]], "int64"),
        use_length=True, axis=1, temperature=0.7)
    add("log_softmax_f32", "log_softmax", r(3, 4))
    add("log_softmax_axis1_T", "log_softmax", r(2, 3, 4, dtype="float64"), axis=1, temperature=0.5)
    add("softmin_f32", "softmin", r(3, 4))
    add("softmin_axis0_T", "softmin", r(4, 3, dtype="float64"), axis=0, temperature=3.0)
    add("sact_instance", "SoftmaxActivation", r(3, 4))
    add("sact_instance_3d", "SoftmaxActivation", r(2, 3, 2), mode="instance")
    add("sact_channel", "SoftmaxActivation", r(2, 3, 2, 2), mode="channel")
    # SoftmaxOutput
    cls = lab([0, 3, 1, 4])
    add("so_basic", "SoftmaxOutput", r(4, 5), cls)
    add("so_alias_f64", "Softmax", r(4, 5, dtype="float64"), cls.astype("float64"))
    add("so_scale_batch", "SoftmaxOutput", r(4, 5), cls, grad_scale=2.0, normalization="batch")
    add("so_ignore_valid", "SoftmaxOutput", r(4, 5), lab([0, -1, 2, -1]), use_ignore=True,
        normalization="valid")
    add("so_ignore2_null", "SoftmaxOutput", r(4, 5), lab([2, 1, 2.7, 3]), use_ignore=True,
        ignore_label=2, grad_scale=0.5)
    add("so_valid_noignore", "SoftmaxOutput", r(4, 5), lab([0, -1, 2, -1]), normalization="valid")
    add("so_smooth", "SoftmaxOutput", r(4, 5), cls, smooth_alpha=0.1)
    add("so_smooth_ignore", "SoftmaxOutput", r(4, 5), lab([0, -1, 2, 4]), smooth_alpha=0.2,
        use_ignore=True, normalization="valid")
    add("so_multi", "SoftmaxOutput", r(2, 3, 4), lab([[0, 1, 2, 1], [2, 2, 0, 1]]),
        multi_output=True)
    add("so_multi_batch", "SoftmaxOutput", r(2, 3, 4), lab([[0, 1, 2, 1], [2, 2, 0, 1]]),
        multi_output=True, normalization="batch", grad_scale=3.0)
    add("so_multi_ignore_valid", "SoftmaxOutput", r(2, 3, 2, 2),
        lab([[[[0, 1], [2, 1]]], [[[1, 1], [1, 0]]]]), multi_output=True, use_ignore=True,
        ignore_label=1, normalization="valid")
    add("so_multi_4d_lshape2", "SoftmaxOutput", r(2, 3, 2, 2),
        lab([[[0, 1], [2, 1]], [[1, 2], [1, 0]]]), multi_output=True)
    add("so_preserve", "SoftmaxOutput", r(2, 3, 4), lab([[0, 1, 3], [2, 2, 0]]),
        preserve_shape=True)
    add("so_prob_label", "SoftmaxOutput", r(3, 4), np.full((3, 4), 0.25, np.float32),
        grad_scale=2.0)
    add("so_out_grad", "SoftmaxOutput", r(4, 5), cls, out_grad=True, normalization="batch")
    # softmax_cross_entropy
    add("sce", "softmax_cross_entropy", r(3, 5), lab([1, 0, 4]))
    add("sce_f64", "softmax_cross_entropy", r(2, 3, dtype="float64"), lab([2, 0], "float64"))
    # regression outputs
    add("linreg", "LinearRegressionOutput", r(3, 4), r(3, 4), grad_scale=2.0)
    add("linreg_1d_label", "LinearRegressionOutput", r(4, 1), r(4))
    add("logreg", "LogisticRegressionOutput", r(3, 4), rng.random((3, 4)).astype("float32"))
    add("logreg_f64", "LogisticRegressionOutput", r(5, 1, dtype="float64"),
        lab([0, 1, 1, 0, 1], "float64"))
    add("maereg", "MAERegressionOutput", r(2, 3, 2), r(2, 6), grad_scale=0.5)
    # SVMOutput
    add("svm_l2", "SVMOutput", r(4, 5), cls)
    add("svm_l1", "SVMOutput", r(4, 5), cls, use_linear=True)
    add("svm_margin", "SVMOutput", r(2, 3, 4, scale=0.5), lab([[0, 1, 3], [2, 2, 0]]), margin=0.5,
        regularization_coefficient=2.0)
    # MakeLoss
    add("makeloss", "MakeLoss", r(3, 4))
    add("makeloss_batch", "MakeLoss", r(3, 4), grad_scale=2.0, normalization="batch")
    add("makeloss_batch_1d", "MakeLoss", r(5), normalization="batch")
    add("makeloss_batch_3d", "MakeLoss", r(2, 3, 4), normalization="batch")
    add("makeloss_valid", "MakeLoss", r(3, 4), normalization="valid", valid_thresh=0.3)
    add("make_loss", "make_loss", r(3, 4))
    # CTC
    add("ctc_first", "CTCLoss", r(6, 2, 5), lab([[1, 2, 0], [3, 3, 4]]))
    add("ctc_last", "ctc_loss", r(6, 2, 5), lab([[0, 1, -1], [2, 2, 3]]), blank_label="last")
    add("ctc_lengths", "CTCLoss", r(7, 3, 4), lab([[1, 2, 3], [3, 1, 1], [2, 2, 2]]),
        lab([7, 5, 6]), lab([2, 3, 1]), use_data_lengths=True, use_label_lengths=True)
    add("ctc_data_lengths", "_contrib_CTCLoss", r(5, 2, 4), lab([[1, 2], [3, 0]]), lab([5, 3]),
        use_data_lengths=True)
    add("ctc_label_lengths_last", "_contrib_ctc_loss", r(5, 2, 4), lab([[0, 0], [1, 2]], "int32"),
        lab([2, 1], "int32"), use_label_lengths=True, blank_label="last")
    # fmt: on
    for name, (op, inputs, params) in c.items():
        yield name, op, inputs, params, {"head": "normal", "wrt": 1}
