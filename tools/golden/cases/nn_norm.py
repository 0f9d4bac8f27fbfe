"""Activation, normalisation and dropout (tests/operator/test_nn_norm.py, test_nn_act.py): the
inputs (arguments, then aux states), every visible output, the gradient of each argument for a
random head gradient on output 0 (autograd, in the case's train mode), and the aux states after
that backward (MXNet updates BatchNorm's moving statistics there on CPU)."""

import numpy as np

FILE = "tests/operator/golden/nn_norm.npz"
SEED = 42

# (case, op, argument shapes, params, dtype); BatchNorm's aux states (moving mean and variance)
# take the shape of its gamma; the cases in EVAL run in inference mode
X4, F32, F64 = (3, 4, 2, 3), "float32", "float64"
BN, LN = [X4, (4,), (4,)], [(3, 4, 5), (5,), (5,)]
PRELU, FREE = {"act_type": "prelu"}, {"fix_gamma": False}
LEAKY = {"leaky": {"slope": 0.1}, "elu": {"slope": 0.7}, "selu": {}, "gelu": {}, "rrelu": {}}
EVAL = {"bn_infer", "bn_meanvar_infer", "drop_infer", "leaky_rrelu_float32", "leaky_rrelu_float64"}
ACTS = ("relu", "sigmoid", "tanh", "softrelu", "softsign")
CASES = [(f"act_{a}_{dt}", "Activation", [(3, 5)], {"act_type": a}, dt)
         for a in ACTS for dt in (F32, F64, "float16")]  # fmt: skip
CASES += [(f"leaky_{a}_{dt}", "LeakyReLU", [(3, 4, 5)], {"act_type": a, **p}, dt)
          for a, p in LEAKY.items() for dt in (F32, F64)]  # fmt: skip
# fmt: off
CASES += [
    ("prelu_chan", "LeakyReLU", [(3, 4, 5), (4,)], PRELU, F32),
    ("prelu_one", "LeakyReLU", [(3, 4, 5), (1,)], PRELU, F64),
    ("prelu_2d", "LeakyReLU", [(6, 4), (4,)], PRELU, F32),
    ("bn_train_fix", "BatchNorm", BN, {}, F32),
    ("bn_train_free", "BatchNorm", BN, FREE, F32),
    ("bn_train_f64", "BatchNorm", BN, {**FREE, "momentum": 0.7, "eps": 1e-5}, F64),
    ("bn_global", "BatchNorm", BN, {**FREE, "use_global_stats": True}, F32),
    ("bn_infer", "BatchNorm", BN, FREE, F32),
    ("bn_meanvar", "BatchNorm", BN, {**FREE, "output_mean_var": True}, F32),
    ("bn_meanvar_infer", "BatchNorm", BN, {"output_mean_var": True}, F64),
    ("bn_f16", "BatchNorm", BN, FREE, "float16"),
    ("bn_axis_last", "BatchNorm", [(4, 5, 3), (3,), (3,)], {"axis": -1, **FREE}, F32),
    ("bn_2d", "BatchNorm", [(6, 3), (3,), (3,)], FREE, F64),
    ("ln_last", "LayerNorm", LN, {}, F32),
    ("ln_axis1", "LayerNorm", [(3, 4, 5), (4,), (4,)], {"axis": 1, "eps": 1e-3}, F64),
    ("ln_meanvar", "LayerNorm", LN, {"output_mean_var": True}, F32),
    ("in_4d", "InstanceNorm", BN, {}, F32),
    ("in_3d", "InstanceNorm", [(3, 4, 5), (4,), (4,)], {"eps": 1e-5}, F32),
    ("gn_2", "GroupNorm", [(3, 4, 5), (2,), (2,)], {"num_groups": 2}, F32),
    ("gn_meanvar", "GroupNorm", BN, {"num_groups": 4, "output_mean_var": True}, F64),
    ("gn_1", "GroupNorm", [X4, (1,), (1,)], {}, F32),
    ("l2_instance", "L2Normalization", [X4], {}, F32),
    ("l2_channel", "L2Normalization", [X4], {"mode": "channel"}, F64),
    ("l2_spatial", "L2Normalization", [X4], {"mode": "spatial"}, F32),
    ("l2_2d", "L2Normalization", [(4, 5)], {"eps": 1e-3}, F32),
    ("lrn_3", "LRN", [(2, 5, 3, 3)], {"nsize": 3}, F32),
    ("lrn_5", "LRN", [(2, 6, 2, 3)], {"nsize": 5, "alpha": 0.01, "beta": 0.6, "knorm": 1.5}, F32),
    ("drop_infer", "Dropout", [(4, 5)], {"p": 0.5}, F32),
    ("drop_p0", "Dropout", [(4, 5)], {"p": 0.0}, F32),
    ("drop_p0_f64", "Dropout", [(4, 5)], {"p": 0.0, "axes": (1,)}, F64),
]
# fmt: on


def cases(rng: np.random.RandomState):
    for name, op, shapes, params, dt in CASES:
        aux_shapes, train = shapes[1:] if op == "BatchNorm" else [], name not in EVAL
        pdt = "float32" if (dt == "float16" and op == "BatchNorm") else dt
        ins = [rng.uniform(-2, 2, shapes[0]).astype(dt)]
        ins += [rng.uniform(0.5, 1.5, s).astype(pdt) for s in shapes[1:]]
        if aux_shapes:
            ins.append(rng.uniform(-0.5, 0.5, aux_shapes[0]).astype(pdt))
            ins.append(rng.uniform(0.5, 2, aux_shapes[1]).astype(pdt))
        opts = {"heads": "first", "head_dtype": dt, "aux": len(aux_shapes), "train": train}
        yield name, op, ins, params, {**opts, "dtype": dt}
