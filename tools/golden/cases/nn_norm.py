"""Activation, normalisation and dropout (tests/operator/test_nn_norm.py, test_nn_act.py): the
inputs (arguments, then aux states), every visible output, the gradient of each argument for a
random head gradient on output 0 (autograd, in the case's train mode), and the aux states after
that backward (MXNet updates BatchNorm's moving statistics there on CPU)."""

import numpy as np

FILE = "tests/operator/golden/nn_norm.npz"
SEED = 42

# (case, op, arg shapes, aux shapes, params, train, dtype, input scale)
X4 = (3, 4, 2, 3)
CASES: list[tuple] = []
for act in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    for dt in ("float32", "float64", "float16"):
        CASES.append((f"act_{act}_{dt}", "Activation", [(3, 5)], [], {"act_type": act}, True, dt))
for act, extra in [
    ("leaky", {"slope": 0.1}),
    ("elu", {"slope": 0.7}),
    ("selu", {}),
    ("gelu", {}),
    ("rrelu", {}),
]:
    for dt in ("float32", "float64"):
        CASES.append((f"leaky_{act}_{dt}", "LeakyReLU", [(3, 4, 5)], [], {"act_type": act, **extra},
                      act != "rrelu", dt))  # fmt: skip
CASES += [
    ("prelu_chan", "LeakyReLU", [(3, 4, 5), (4,)], [], {"act_type": "prelu"}, True, "float32"),
    ("prelu_one", "LeakyReLU", [(3, 4, 5), (1,)], [], {"act_type": "prelu"}, True, "float64"),
    ("prelu_2d", "LeakyReLU", [(6, 4), (4,)], [], {"act_type": "prelu"}, True, "float32"),
]
C = X4[1]
BN = [(X4, (C,), (C,)), [(C,), (C,)]]
for name, params, train, dt in [
    ("bn_train_fix", {}, True, "float32"),
    ("bn_train_free", {"fix_gamma": False}, True, "float32"),
    ("bn_train_f64", {"fix_gamma": False, "momentum": 0.7, "eps": 1e-5}, True, "float64"),
    ("bn_global", {"fix_gamma": False, "use_global_stats": True}, True, "float32"),
    ("bn_infer", {"fix_gamma": False}, False, "float32"),
    ("bn_meanvar", {"fix_gamma": False, "output_mean_var": True}, True, "float32"),
    ("bn_meanvar_infer", {"output_mean_var": True}, False, "float64"),
    ("bn_f16", {"fix_gamma": False}, True, "float16"),
]:
    CASES.append((name, "BatchNorm", list(BN[0]), BN[1], params, train, dt))
CASES += [
    (
        "bn_axis_last",
        "BatchNorm",
        [(4, 5, 3), (3,), (3,)],
        [(3,), (3,)],
        {"axis": -1, "fix_gamma": False},
        True,
        "float32",
    ),
    (
        "bn_2d",
        "BatchNorm",
        [(6, 3), (3,), (3,)],
        [(3,), (3,)],
        {"fix_gamma": False},
        True,
        "float64",
    ),
    ("ln_last", "LayerNorm", [(3, 4, 5), (5,), (5,)], [], {}, True, "float32"),
    (
        "ln_axis1",
        "LayerNorm",
        [(3, 4, 5), (4,), (4,)],
        [],
        {"axis": 1, "eps": 1e-3},
        True,
        "float64",
    ),
    (
        "ln_meanvar",
        "LayerNorm",
        [(3, 4, 5), (5,), (5,)],
        [],
        {"output_mean_var": True},
        True,
        "float32",
    ),
    ("in_4d", "InstanceNorm", [X4, (C,), (C,)], [], {}, True, "float32"),
    ("in_3d", "InstanceNorm", [(3, 4, 5), (4,), (4,)], [], {"eps": 1e-5}, True, "float32"),
    ("gn_2", "GroupNorm", [(3, 4, 5), (2,), (2,)], [], {"num_groups": 2}, True, "float32"),
    (
        "gn_meanvar",
        "GroupNorm",
        [X4, (4,), (4,)],
        [],
        {"num_groups": 4, "output_mean_var": True},
        True,
        "float64",
    ),
    ("gn_1", "GroupNorm", [X4, (1,), (1,)], [], {}, True, "float32"),
    ("l2_instance", "L2Normalization", [X4], [], {}, True, "float32"),
    ("l2_channel", "L2Normalization", [X4], [], {"mode": "channel"}, True, "float64"),
    ("l2_spatial", "L2Normalization", [X4], [], {"mode": "spatial"}, True, "float32"),
    ("l2_2d", "L2Normalization", [(4, 5)], [], {"eps": 1e-3}, True, "float32"),
    ("lrn_3", "LRN", [(2, 5, 3, 3)], [], {"nsize": 3}, True, "float32"),
    (
        "lrn_5",
        "LRN",
        [(2, 6, 2, 3)],
        [],
        {"nsize": 5, "alpha": 0.01, "beta": 0.6, "knorm": 1.5},
        True,
        "float32",
    ),
    ("drop_infer", "Dropout", [(4, 5)], [], {"p": 0.5}, False, "float32"),
    ("drop_p0", "Dropout", [(4, 5)], [], {"p": 0.0}, True, "float32"),
    ("drop_p0_f64", "Dropout", [(4, 5)], [], {"p": 0.0, "axes": (1,)}, True, "float64"),
]


def cases(rng: np.random.RandomState):
    for name, op, shapes, aux_shapes, params, train, dt in CASES:
        pdt = "float32" if (dt == "float16" and op == "BatchNorm") else dt
        ins = [rng.uniform(-2, 2, shapes[0]).astype(dt)]
        ins += [rng.uniform(0.5, 1.5, s).astype(pdt) for s in shapes[1:]]
        if aux_shapes:
            ins.append(rng.uniform(-0.5, 0.5, aux_shapes[0]).astype(pdt))
            ins.append(rng.uniform(0.5, 2, aux_shapes[1]).astype(pdt))
        opts = {"heads": "first", "head_dtype": dt, "aux": len(aux_shapes), "train": train}
        yield name, op, ins, params, {**opts, "dtype": dt}
