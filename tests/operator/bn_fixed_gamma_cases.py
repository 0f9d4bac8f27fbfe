"""BatchNorm with a fixed gamma, as workloads that run unchanged on MXNet 1.9.1 and on mxlite.

Each case takes the framework module (``mxnet`` or ``mxlite``) and returns named arrays: the
parameters after the workload. ``tools/golden/cases/bn_fixed_gamma.py`` runs them under real
MXNet; ``test_batch_norm_fixed_gamma.py`` under mxlite, and compares. Every value comes from
``numpy.random.RandomState`` (the same on NumPy 1.23 and 2.x), never from ``mx.random``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

C = 4
X_SHAPE = (3, 2, 6, 6)
GAMMA0 = np.array([0.45, 0.8, 1.3, 0.6], dtype=np.float32)  # not ones: the write shows
SGD = {"learning_rate": 0.1, "momentum": 0.9, "wd": 5e-4}


def _x(mx: Any, seed: int = 0, shape: tuple = X_SHAPE) -> Any:
    return mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, shape).astype("float32"))


def _bn_inputs(mx: Any) -> list:
    rs = np.random.RandomState(1)
    return [
        mx.nd.array(GAMMA0),
        mx.nd.array(rs.uniform(-0.2, 0.2, C).astype("float32")),
        mx.nd.array(rs.uniform(-0.1, 0.1, C).astype("float32")),
        mx.nd.array(rs.uniform(0.5, 1.5, C).astype("float32")),
    ]


def _op_case(op_name: str, record: bool, **kwargs: Any):
    """``mx.nd.<op_name>`` imperatively, under autograd (then backward) or not."""

    def case(mx: Any) -> dict:
        x = _x(mx, shape=(3, C, 5, 5))
        gamma, beta, mean, var = _bn_inputs(mx)
        op = getattr(mx.nd, op_name)
        if record:
            gamma.attach_grad()
            with mx.autograd.record():
                y = op(x, gamma, beta, mean, var, **kwargs)
            y.backward(_x(mx, 1, y.shape))
            out = {"gamma_grad": gamma.grad.asnumpy()}
        else:
            y = op(x, gamma, beta, mean, var, **kwargs)
            out = {}
        out["y"] = y.asnumpy()
        out["gamma"] = gamma.asnumpy()
        return out

    return case


def _bound_case(op_name: str, train: bool, **kwargs: Any):
    """The operator in a bound graph with gradients (so its mean output is read by backward):
    BatchNorm_v1 and SyncBatchNorm take their moving statistics only as auxiliary states."""

    def case(mx: Any) -> dict:
        ns = mx.sym.contrib if op_name == "SyncBatchNorm" else mx.sym
        op = getattr(ns, op_name)
        sym = op(mx.sym.var("data"), name="bn", **kwargs)
        gamma, beta, mean, var = _bn_inputs(mx)
        x = _x(mx, shape=(3, C, 5, 5))
        args = {"data": x, "bn_gamma": gamma, "bn_beta": beta}
        grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
        ex = sym.bind(
            mx.cpu(), args, grads, aux_states={"bn_moving_mean": mean, "bn_moving_var": var}
        )
        ex.forward(is_train=train)
        out = {"y": ex.outputs[0].asnumpy()}
        if train:
            ex.backward(_x(mx, 1, x.shape))
            out["gamma_grad"] = grads["bn_gamma"].asnumpy()
        out["gamma"] = gamma.asnumpy()
        return out

    return case


def _set_params(net: Any, mx: Any, seed: int) -> None:
    for k, p in enumerate(net.collect_params().values()):
        rs = np.random.RandomState(seed * 100 + k)
        if p.name.endswith("gamma"):
            v = GAMMA0[: p.shape[0]]
        elif p.name.endswith(("var", "moving_var")):
            v = rs.uniform(0.5, 1.5, p.shape)
        elif len(p.shape) > 1:
            v = rs.normal(0, np.sqrt(1.0 / np.prod(p.shape[1:])), p.shape)
        else:
            v = rs.uniform(-0.1, 0.1, p.shape)
        p.set_data(mx.nd.array(np.asarray(v, dtype="float32")))


def _train_step(mx: Any, net: Any, hybridize: bool) -> dict:
    """One SGD step (momentum, weight decay) of ``net`` on a fixed batch; every parameter."""
    x = _x(mx)
    net.initialize()
    with mx.autograd.train_mode():  # shapes only: the moving statistics are not set yet
        net(x)
    _set_params(net, mx, 3)
    if hybridize:
        net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", dict(SGD))
    target = _x(mx, 2, (X_SHAPE[0], 5))
    with mx.autograd.record():
        loss = mx.gluon.loss.L2Loss()(net(x), target)
    loss.backward()
    trainer.step(X_SHAPE[0])
    params = net.collect_params()
    out = {f"p{k}": p.data().asnumpy() for k, p in enumerate(params.values())}
    out["names"] = np.array([name[len(net.prefix) :] for name in params])
    return out


def _gluon_case(hybridize: bool, scale: bool, center: bool):
    def case(mx: Any) -> dict:
        nn = mx.gluon.nn
        net = nn.HybridSequential(prefix="net_")
        with net.name_scope():
            net.add(nn.Conv2D(C, 3, in_channels=2))
            net.add(nn.BatchNorm(scale=scale, center=center, in_channels=C))
            net.add(nn.Activation("relu"))
            net.add(nn.Dense(5, in_units=C * 16))
        return _train_step(mx, net, hybridize)

    return case


def _symbol(mx: Any) -> Any:
    data = mx.sym.var("data")
    y = mx.sym.Convolution(data, num_filter=C, kernel=(3, 3), no_bias=True, name="conv")
    y = mx.sym.BatchNorm(y, name="bn")  # fix_gamma=True by default
    y = mx.sym.Activation(y, act_type="relu")
    return mx.sym.FullyConnected(y, num_hidden=5, name="fc")


def _symbol_block_case(hybridize: bool):
    def case(mx: Any) -> dict:
        net = mx.gluon.SymbolBlock(_symbol(mx), mx.sym.var("data"))
        return _train_step(mx, net, hybridize)

    return case


def case_module(mx: Any) -> dict:
    """Module: bind for training, one forward/backward/update (SGD, momentum, weight decay)."""
    sym = mx.sym.LinearRegressionOutput(_symbol(mx), mx.sym.var("label"), name="out")
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["label"])
    mod.bind([("data", X_SHAPE)], [("label", (X_SHAPE[0], 5))])
    mod.init_params()
    arg, aux = mod.get_params()
    for k, name in enumerate(sorted(arg)):
        rs = np.random.RandomState(500 + k)
        shape = arg[name].shape
        if name.endswith("gamma"):
            v = GAMMA0
        elif len(shape) > 1:
            v = rs.normal(0, np.sqrt(1.0 / np.prod(shape[1:])), shape)
        else:
            v = rs.uniform(-0.1, 0.1, shape)
        arg[name] = mx.nd.array(np.asarray(v, dtype="float32"))
    mod.set_params(arg, aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params=dict(SGD))
    batch = mx.io.DataBatch([_x(mx)], [_x(mx, 2, (X_SHAPE[0], 5))])
    mod.forward_backward(batch)
    mod.update()
    arg, aux = mod.get_params()
    return {name: a.asnumpy() for name, a in {**arg, **aux}.items()}


def case_bind_inference(mx: Any) -> dict:
    """An inference-only bound graph: MXNet gives the unread mean output no write request, so
    its kernel leaves gamma as it was."""
    x = _x(mx)
    sym = _symbol(mx)
    shapes, _, _ = sym.infer_shape(data=X_SHAPE)
    args = {}
    for k, (name, shape) in enumerate(zip(sym.list_arguments(), shapes)):
        rs = np.random.RandomState(700 + k)
        args[name] = mx.nd.array(rs.uniform(-0.5, 0.5, shape).astype("float32"))
    args["data"], args["bn_gamma"] = x, mx.nd.array(GAMMA0)
    aux = {"bn_moving_mean": mx.nd.zeros(C), "bn_moving_var": mx.nd.ones(C)}
    ex = sym.bind(mx.cpu(), args, aux_states=aux)
    ex.forward(is_train=False)
    return {"y": ex.outputs[0].asnumpy(), "gamma": ex.arg_dict["bn_gamma"].asnumpy()}


def case_hybrid_inference(mx: Any) -> dict:
    """A hybridized BatchNorm(scale=False) called outside autograd: the same as above."""
    bn = mx.gluon.nn.BatchNorm(scale=False, in_channels=C, prefix="bn_")
    bn.initialize()
    bn.gamma.set_data(mx.nd.array(GAMMA0))
    bn.hybridize()
    y = bn(_x(mx, shape=(3, C, 5, 5)))
    return {"y": y.asnumpy(), "gamma": bn.gamma.data().asnumpy()}


CASES = {
    "nd_infer": _op_case("BatchNorm", False),
    "nd_train": _op_case("BatchNorm", True),
    "nd_global_stats": _op_case("BatchNorm", True, use_global_stats=True),
    "nd_free_gamma": _op_case("BatchNorm", True, fix_gamma=False),
    "bound_train": _bound_case("BatchNorm", True),
    "bound_infer": _bound_case("BatchNorm", False),
    "v1_train": _bound_case("BatchNorm_v1", True),
    "v1_infer": _bound_case("BatchNorm_v1", False),
    "sync_train": _bound_case("SyncBatchNorm", True, key="bn"),
    "gluon_no_scale": _gluon_case(False, False, True),
    "gluon_no_scale_hybrid": _gluon_case(True, False, True),
    "gluon_no_scale_no_center": _gluon_case(False, False, False),
    "gluon_no_scale_no_center_hybrid": _gluon_case(True, False, False),
    "gluon_scale": _gluon_case(True, True, True),
    "symbol_block": _symbol_block_case(False),
    "symbol_block_hybrid": _symbol_block_case(True),
    "module": case_module,
    "bind_inference": case_bind_inference,
    "hybrid_inference": case_hybrid_inference,
}
