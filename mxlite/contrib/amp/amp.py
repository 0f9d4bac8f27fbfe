"""``mx.contrib.amp``: automatic mixed precision, as MXNet 1.9.1 has it.

Two ways in. For training, :func:`init` wraps the operator functions of ``mx.nd`` and ``mx.sym``
so that the operators of :func:`list_lp16_ops` get their inputs cast to float16 (or bfloat16),
those of :func:`list_fp32_ops` to float32, and those of :func:`list_widest_type_cast` to the
widest dtype among their inputs; :func:`init_trainer` gives a Gluon ``Trainer`` a dynamic loss
scaler (``loss_scaler.LossScaler``), :func:`scale_loss` scales the loss by it, and the trainer
skips the update of a step whose gradients overflowed. For inference, :func:`convert_symbol`
rewrites a float32 graph with ``amp_cast`` / ``amp_multicast`` nodes (``_low_precision.py``),
and :func:`convert_model`, :func:`convert_hybrid_block` and :func:`convert_bucketing_module`
cast the parameters to the dtypes the rewritten graph gives them.

mxlite computes float16 with NumPy's float16 and bfloat16 with ml_dtypes' (MXNet's CPU target:
operators compute in float32 and round their results, see ``mxlite/operator/bfloat16.py``).

State: whether :func:`init` ran (once per process, as in MXNet) and the loss scaler it made.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ... import ndarray, symbol
from ...base import MXNetError
from ...ndarray import NDArray
from ...operator.front_end import PREFIXES, replace_function
from ...symbol import Symbol
from . import lists as lists  # amp.amp.lists: MXNet's amp.py imports it, its tests read it there
from ._convert import convert_bucketing_module as convert_bucketing_module
from ._convert import convert_hybrid_block, convert_model, convert_symbol
from ._targets import (
    _is_bf16,
    _is_fp16,
    bfloat16,
    list_conditional_fp32_ops,
    list_fp32_ops,
    list_loss_output_functions,
    list_lp16_fp32_ops,
    list_lp16_ops,
    list_lp16_use_fp32_params,
    list_widest_type_cast,
)
from .loss_scaler import LossScaler

__all__ = [
    "init", "init_trainer", "scale_loss", "unscale", "convert_model", "convert_hybrid_block",
    "list_lp16_ops", "list_fp32_ops", "list_lp16_fp32_ops", "list_conditional_fp32_ops",
    "list_widest_type_cast", "list_loss_output_functions", "list_lp16_use_fp32_params",
    "convert_symbol",
]  # fmt: skip

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)

_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler: LossScaler | None = None


# ---- init: wrapping the operator functions -------------------------------------------------------


def _cast_input(x: Any, dtype: Any) -> Any:
    """MXNet's ``_cast_symbol_NDArray``: a symbol gets an amp_cast; an array is cast when it is
    of another float dtype AMP casts between on its device."""
    if isinstance(x, Symbol):
        return symbol.amp_cast(x, dtype=dtype)
    if isinstance(x, NDArray) and x.dtype != dtype:
        castable = (_F16, _F32) if x.context.device_type != "cpu" else (bfloat16, _F32)
        if x.dtype in castable:
            return ndarray.amp_cast(x, dtype=dtype)
    return x


def _function_home(name: str, module: Any) -> tuple[str, Any]:
    """Where the front end ``module`` keeps operator ``name``'s function, and its name there."""
    for prefix, sub in PREFIXES:
        if name.startswith(prefix) and (prefix != "_random_" or name.endswith("_like")):
            return name[len(prefix) :], getattr(module, sub)
    if name.startswith("_"):
        return name, module._internal
    return name, module


def _wrapped(f: Callable, new: Callable) -> Callable:
    new.__name__ = f.__name__
    new.__module__ = f.__module__
    new.__doc__ = f.__doc__
    return new


def _nd_wrapper(f: Callable, dtype: Any, fp32_param: Any = None, cond: Any = None) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        if cond is not None and kwargs.get(cond[0], _MISSING) not in cond[1]:
            return f(*args, **kwargs)
        if fp32_param:
            args = tuple(x if fp32_param[i] else _cast_input(x, dtype) for i, x in enumerate(args))
            kwargs = {k: v if k in fp32_param else _cast_input(v, dtype) for k, v in kwargs.items()}
        else:
            args = tuple(_cast_input(x, dtype) for x in args)
            kwargs = {k: _cast_input(v, dtype) for k, v in kwargs.items()}
        return f(*args, **kwargs)

    return _wrapped(f, call)


def _sym_wrapper(f: Callable, dtype: Any, fp32_param: Any = None, cond: Any = None) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        if cond is not None and kwargs.get(cond[0], _MISSING) not in cond[1]:
            return f(*args, **kwargs)
        sym = f(*args, **kwargs)
        aux = set(sym.list_auxiliary_states())
        children = sym.get_children()
        inputs = [] if children is None else list(children)
        inputs = [
            x if x.name in aux or (fp32_param and fp32_param[i]) else _cast_input(x, dtype)
            for i, x in enumerate(inputs)
        ]
        out = sym._gen_atomic_symbol()(*inputs)
        out._set_attr(name=sym.name)
        return out

    return _wrapped(f, call)


def _widest_wrapper(f: Callable, target: Any) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        args = list(args)
        found = [(args, i, a) for i, a in enumerate(args) if isinstance(a, (Symbol, NDArray))]
        found += [(kwargs, k, a) for k, a in kwargs.items() if isinstance(a, (Symbol, NDArray))]
        if any(isinstance(a, Symbol) for _, _, a in found):
            cast = symbol.amp_multicast(*[a for _, _, a in found], num_outputs=len(found))
            for (holder, key, _), c in zip(found, cast):
                holder[key] = c
        else:
            widest = _F32 if any(a.dtype == _F32 for _, _, a in found) else target
            for holder, key, a in found:
                if a.dtype != widest and a.dtype == target:
                    holder[key] = ndarray.amp_cast(a, dtype=widest)
        return f(*args, **kwargs)

    return _wrapped(f, call)


_MISSING = object()


def _set_function(
    module: Any, name: str, wrap: Callable[[Callable], Callable], default: bool
) -> None:
    func_name, home = _function_home(name, module)
    if default and not hasattr(home, func_name):
        return  # an operator of MXNet's lists that mxlite does not have: nothing to wrap
    # AttributeError for an unknown operator, as in MXNet
    replace_function(home, func_name, wrap)
    if home is module and hasattr(module.op, func_name):
        replace_function(module.op, func_name, wrap)


def _wrap_symbol_functions(
    module: Any, target: Any, target_ops: Any, conditional_fp32_ops: Any, fp32_ops: Any
) -> None:
    wrapper = _sym_wrapper if module is symbol else _nd_wrapper
    fp32_params = list_lp16_use_fp32_params(target) or {}
    for name in target_ops if target_ops is not None else list_lp16_ops(target):
        p = fp32_params.get(_function_home(name, module)[0])
        wrap = lambda f, p=p: wrapper(f, target, p)  # noqa: E731
        _set_function(module, name, wrap, target_ops is None)
    for name in fp32_ops if fp32_ops is not None else list_fp32_ops(target):
        _set_function(module, name, lambda f: wrapper(f, _F32), fp32_ops is None)
    default = conditional_fp32_ops is None
    for name, arg, values in list_conditional_fp32_ops(target) if default else conditional_fp32_ops:
        wrap = lambda f, c=(arg, values): wrapper(f, _F32, cond=c)  # noqa: E731
        _set_function(module, name, wrap, default)
    for name in list_widest_type_cast(target):
        _set_function(module, name, lambda f: _widest_wrapper(f, target), True)


def _wrap_loss_output_functions(module: Any, scaler: LossScaler, target: Any) -> None:
    def scaling(f: Callable) -> Callable:
        def call(*args: Any, **kwargs: Any) -> Any:
            kwargs["grad_scale"] = kwargs.get("grad_scale", 1.0) * scaler.loss_scale
            return f(*args, **kwargs)

        return _wrapped(f, call)

    def warning(f: Callable) -> Callable:
        def call(*args: Any, **kwargs: Any) -> Any:
            logging.warning(
                "%s does not support dynamic loss scaling in symbolic and hybridized execution.",
                f.__name__,
            )
            return f(*args, **kwargs)

        return _wrapped(f, call)

    wrap = scaling if module is ndarray else warning
    for name in list_loss_output_functions(target):
        if hasattr(module, name):
            replace_function(module, name, wrap)


def init(
    target_dtype: Any = "float16",
    target_precision_ops: list[str] | None = None,
    conditional_fp32_ops: list[tuple[str, str, list[str]]] | None = None,
    fp32_ops: list[str] | None = None,
) -> None:
    """Initialize AMP (automatic mixed precision). This needs to be done before model creation.

    Parameters
    ----------
    target_dtype : {'float16', 'bfloat16'}
        Target low precision type for AMP. Currently only float16 and bfloat16 are supported.
    target_precision_ops : list of string
        Override the list of functions casted to target_dtype.
    conditional_fp32_ops : list of (string, string, list of string)
        Override the list of functions conditionally casted to FP32: (name of the function,
        name of the parameter, values of the parameter that make it be casted to FP32).
    fp32_ops : list of string
        Override the list of functions casted to FP32.
    """
    global _amp_initialized, _loss_scaler
    if _amp_initialized:
        return
    if not (_is_fp16(target_dtype) or _is_bf16(target_dtype)):
        raise MXNetError(
            f"amp.init: argument 'target_dtype' must be 'float16' or 'bfloat16', got "
            f"{target_dtype!r}."
        )
    _amp_initialized = True
    logging.info("Using AMP")
    target = bfloat16 if _is_bf16(target_dtype) else _F16
    for module in (symbol, ndarray):
        _wrap_symbol_functions(module, target, target_precision_ops, conditional_fp32_ops,
                               fp32_ops)  # fmt: skip
    _loss_scaler = LossScaler()
    _wrap_loss_output_functions(ndarray, _loss_scaler, target)
    _wrap_loss_output_functions(symbol, _loss_scaler, target)


# ---- training: the loss scale --------------------------------------------------------------------


def _trainer_class() -> type:
    from ...gluon.trainer import Trainer

    return Trainer


def _check_trainer(optimizer_or_trainer: Any, func: str) -> None:
    from ...optimizer import Optimizer

    if isinstance(optimizer_or_trainer, _trainer_class()):
        return
    if isinstance(optimizer_or_trainer, Optimizer):
        raise TypeError(f"amp.{func}: AMP is currently only compatible with Gluon Trainer")
    raise TypeError(
        f"amp.{func}: optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead "
        f"is {type(optimizer_or_trainer)}"
    )


def init_trainer(optimizer_or_trainer: Any) -> None:
    """Initialize trainer or optimizer to work with AMP dynamic loss scaling.

    Parameters
    ----------
    optimizer_or_trainer : Optimizer or Trainer
        MXNet Optimizer or Gluon trainer to initialize with AMP
    """
    global _amp_loss_scale_initialized
    if not _amp_initialized:
        raise MXNetError(
            "amp.init_trainer: AMP not initialized, did you forget to call amp.init()?"
        )
    if not _amp_loss_scale_initialized:
        _amp_loss_scale_initialized = True
        scaler = _loss_scaler
    else:
        scaler = LossScaler()
    _check_trainer(optimizer_or_trainer, "init_trainer")
    optimizer_or_trainer._amp_loss_scaler = scaler
    optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale


@contextlib.contextmanager
def scale_loss(loss: Any, optimizer_or_trainer: Any) -> Iterator[Any]:
    """Yield the loss (or list of losses) multiplied by the trainer's loss scale; the trainer
    divides the gradients by it again in its next step.

    Parameters
    ----------
    loss : NDArray or list of NDArray
        The loss.
    optimizer_or_trainer : Trainer
        The Gluon trainer :func:`init_trainer` prepared.
    """
    scaler = getattr(optimizer_or_trainer, "_amp_loss_scaler", None)
    if scaler is None:
        raise MXNetError(
            "amp.scale_loss: Loss scaler is not initialized, did you forget to call "
            "amp.init_trainer()?"
        )
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [x * scaler.loss_scale for x in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer: Any) -> None:
    """Check and unscale the gradients manually. This function should only be used
    if accessing gradients is necessary, e.g. for gradient clipping.

    Parameters
    ----------
    optimizer_or_trainer : Optimizer or Trainer
        MXNet optimizer or Gluon Trainer used when scaling the gradients
    """
    _check_trainer(optimizer_or_trainer, "unscale")
    for param in optimizer_or_trainer._params:
        if param._grad is not None:
            for g in param._grad:
                g[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.0
