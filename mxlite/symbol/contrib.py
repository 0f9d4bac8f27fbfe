"""mx.sym.contrib: operators filled in from the registry by mxlite.symbol, and the
control-flow functions ``foreach``, ``while_loop`` and ``cond``."""

from ..base import NO_BACKWARD_OPS as _NO_BACKWARD
from ..base import absent_names as _absent_names
from .control_flow import cond as cond
from .control_flow import foreach as foreach
from .control_flow import while_loop as while_loop


def rand_zipfian(true_classes, num_sampled: int, range_max: int):
    """Draw ``num_sampled`` classes from [0, range_max) with replacement, from the approximately
    log-uniform (Zipfian) distribution P(class) = (log(class + 2) - log(class + 1)) /
    log(range_max + 1); the symbolic form of :func:`mxlite.ndarray.contrib.rand_zipfian`.

    Returns the symbols ``(samples, expected_count_true, expected_count_sample)``: int64
    samples, and the float64 expected counts of the true and of the sampled classes."""
    import math

    from ..base import ParamError
    from ..ndarray.contrib import _zipfian_counts
    from . import random as _random
    from .symbol import Symbol

    if not isinstance(true_classes, Symbol):
        raise ParamError(
            "sym.contrib.rand_zipfian: argument 'true_classes' must be a Symbol, got "
            f"{type(true_classes).__name__}."
        )
    log_range = math.log(range_max + 1)
    rand = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64")
    return _zipfian_counts(rand, true_classes, num_sampled, range_max)


def _rescale_symbol(rescale_grad):
    from .functions import full
    from .symbol import Symbol

    return rescale_grad if isinstance(rescale_grad, Symbol) else full(shape=(1,), val=rescale_grad)


def adamw_update(weight, grad, mean, var, rescale_grad, lr: float, eta: float, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-8, wd: float = 0,
                 clip_gradient: float = -1, out=None, name=None, **kwargs):  # fmt: skip
    """Symbolic AdamW update (``w -= eta * (lr * m / (sqrt(v) + epsilon) + wd * w)``);
    ``rescale_grad`` may be a number or a Symbol, and the update is skipped when it is NaN,
    Inf or 0. As :func:`mxlite.ndarray.contrib.adamw_update`."""
    from . import _internal

    return _internal._adamw_update(
        weight, grad, mean, var, _rescale_symbol(rescale_grad), lr=lr, eta=eta, beta1=beta1,
        beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out, name=name,
        **kwargs,
    )  # fmt: skip


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr: float, eta: float,
                    beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8,
                    wd: float = 0, clip_gradient: float = -1, out=None, name=None,
                    **kwargs):  # fmt: skip
    """Symbolic AdamW update of float16 weights with a float32 master copy ``weight32``; as
    :func:`adamw_update` otherwise."""
    from . import _internal

    return _internal._mp_adamw_update(
        weight, grad, mean, var, weight32, _rescale_symbol(rescale_grad), lr=lr, eta=eta,
        beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient, out=out,
        name=name, **kwargs,
    )  # fmt: skip


# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.symbol.contrib",
    {
        "backward_gradientmultiplier": _NO_BACKWARD,
        "backward_hawkesll": _NO_BACKWARD,
        "backward_index_copy": _NO_BACKWARD,
        "backward_quadratic": _NO_BACKWARD,
    },
)
