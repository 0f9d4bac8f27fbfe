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

mxlite computes float16 with NumPy's float16. NumPy has no bfloat16: graphs converted to
bfloat16 are written exactly as MXNet writes them (and load in MXNet), but running one here, or
casting a parameter to bfloat16, raises a clear error.

State: whether :func:`init` ran (once per process, as in MXNet) and the loss scaler it made.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ... import ndarray, symbol
from ...base import DTYPE_MX_TO_NP, DTypeError, MXNetError
from ...context import Context, gpu
from ...ndarray import NDArray
from ...operator.front_end import PREFIXES
from ...symbol import Symbol
from . import lists
from ._low_precision import Lists, reduce_precision
from .loss_scaler import LossScaler

__all__ = [
    "init", "init_trainer", "scale_loss", "unscale", "convert_model", "convert_hybrid_block",
    "list_lp16_ops", "list_fp32_ops", "list_lp16_fp32_ops", "list_conditional_fp32_ops",
    "list_widest_type_cast", "list_loss_output_functions", "list_lp16_use_fp32_params",
    "convert_symbol",
]  # fmt: skip

# MXNet's Python name for bfloat16 (a 16-bit record, since NumPy has no such float)
bfloat16 = np.dtype([("bfloat16", np.uint16)])

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_BF16_FLAG = 12

_GPU0 = gpu(0)  # convert_hybrid_block's default context, as MXNet's
_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler: LossScaler | None = None


# ---- the operator lists --------------------------------------------------------------------------


def _lists_of(target_dtype: Any, func: str) -> Any:
    if _is_fp16(target_dtype):
        return lists.symbol_fp16
    if _is_bf16(target_dtype):
        return lists.symbol_bf16
    raise MXNetError(
        f"amp.{func}: argument 'target_dtype' must be float16 or bfloat16, got {target_dtype!r}."
    )


def _is_fp16(dtype: Any) -> bool:
    return (
        isinstance(dtype, str)
        and dtype == "float16"
        or (not isinstance(dtype, str) and dtype is not None and _dtype_or_none(dtype) == _F16)
    )


def _is_bf16(dtype: Any) -> bool:
    return (isinstance(dtype, str) and dtype == "bfloat16") or (
        not isinstance(dtype, str) and _dtype_or_none(dtype) == bfloat16
    )


def _dtype_or_none(dtype: Any) -> np.dtype | None:
    try:
        return np.dtype(dtype)
    except TypeError:
        return None


def list_lp16_ops(target_dtype: Any) -> list[str]:
    """The default list of operators AMP runs in the low precision ``target_dtype``."""
    mod = _lists_of(target_dtype, "list_lp16_ops")
    return mod.FP16_FUNCS if mod is lists.symbol_fp16 else mod.BF16_FUNCS


def list_fp32_ops(target_dtype: Any) -> list[str]:
    """The default list of operators AMP runs in float32."""
    return _lists_of(target_dtype, "list_fp32_ops").FP32_FUNCS


def list_lp16_fp32_ops(target_dtype: Any) -> list[str]:
    """The default list of operators that run in both the low precision and float32."""
    mod = _lists_of(target_dtype, "list_lp16_fp32_ops")
    return mod.FP16_FP32_FUNCS if mod is lists.symbol_fp16 else mod.BF16_FP32_FUNCS


def list_conditional_fp32_ops(target_dtype: Any) -> list[tuple[str, str, list[str]]]:
    """The operators AMP runs in float32 for some values of a parameter:
    ``(operator, parameter, values)``."""
    return _lists_of(target_dtype, "list_conditional_fp32_ops").CONDITIONAL_FP32_FUNCS


def list_widest_type_cast(target_dtype: Any) -> list[str]:
    """The operators AMP runs in the widest dtype among their inputs."""
    return _lists_of(target_dtype, "list_widest_type_cast").WIDEST_TYPE_CASTS


def list_loss_output_functions(target_dtype: Any) -> list[str]:
    """The loss output operators whose gradient AMP's loss scale multiplies."""
    return _lists_of(target_dtype, "list_loss_output_functions").LOSS_OUTPUT_FUNCTIONS


def list_lp16_use_fp32_params(target_dtype: Any) -> dict[str, list[str]] | None:
    """The inputs that stay float32 when an operator runs in the low precision (None for
    float16)."""
    mod = _lists_of(target_dtype, "list_lp16_use_fp32_params")
    return None if mod is lists.symbol_fp16 else mod.BF16_USE_FP32_PARAMS


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
    f = getattr(home, func_name)  # AttributeError for an unknown operator, as in MXNet
    setattr(home, func_name, wrap(f))
    if home is module:
        setattr(module.op, func_name, wrap(f))


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
        f = getattr(module, name, None)
        if f is not None:
            setattr(module, name, wrap(f))


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


# ---- inference: converting graphs and parameters -------------------------------------------------


def _check_list(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, list):
        raise AssertionError(f"amp.convert_symbol: {name} should be a list, got {value!r}")


def convert_symbol(
    sym: Symbol,
    target_dtype: str = "float16",
    target_dtype_ops: list[str] | None = None,
    fp32_ops: list[str] | None = None,
    conditional_fp32_ops: list[tuple[str, str, list[str]]] | None = None,
    excluded_sym_names: list[str] | None = None,
    data_names: list[str] | None = None,
    cast_optional_params: bool = False,
) -> Symbol:
    """Given a symbol object representing a neural network of data type FP32 and target_dtype,
    add cast layers according to the op lists (target_dtype_ops, fp32_ops,
    conditional_fp32_ops) if provided, otherwise use the default lists provided by the
    framework.

    Parameters
    ----------
    sym : Symbol
        FP32 neural network symbol
    target_dtype : str, optional defaults to float16
        currently only supports float16 and bfloat16.
    target_dtype_ops : list of strs, optional
        Override the list of operator names casted to the target_dtype.
    fp32_ops : list of strs, optional
        Override the list of operator names casted to FP32.
    conditional_fp32_ops : list of (string, string, list of string), optional
        Override the list of functions to be casted to FP32: (name of the function, name of
        the parameter, values of the parameter that make the operator be casted to FP32).
    excluded_sym_names : list of strs, optional
        Names of the symbols to exclude from being casted to LP16 or FP32.
    data_names : list of strs, optional
        The names of the model's input data.
    cast_optional_params : bool, default False
        Whether to cast the arg_params and aux_params that don't require to be in LP16
        because of a cast layer following it, but will reduce the computation and memory
        overhead of the model if casted.
    """
    # MXNet checks its arguments with assert: its tests expect AssertionError
    if not isinstance(sym, Symbol):
        raise AssertionError("First argument to convert_symbol should be Symbol")
    if target_dtype not in ("float16", "bfloat16"):
        raise AssertionError("Only target_dtype float16 and bfloat16 are supported currently")
    for value, name in ((target_dtype_ops, "target_dtype_ops"), (fp32_ops, "fp32_ops"),
                        (conditional_fp32_ops, "conditional_fp32_ops"),
                        (excluded_sym_names, "excluded_sym_names")):  # fmt: skip
        _check_list(value, name)
    target_ops = list_lp16_ops(target_dtype) if target_dtype_ops is None else target_dtype_ops
    fp32 = list_fp32_ops(target_dtype) if fp32_ops is None else fp32_ops
    conditional = (
        list_conditional_fp32_ops(target_dtype)
        if conditional_fp32_ops is None
        else conditional_fp32_ops
    )
    cond_map: dict[str, dict[str, list[str]]] = {}
    for item in conditional:
        if not (isinstance(item[0], str) and isinstance(item[1], str)
                and isinstance(item[2], list)):  # fmt: skip
            raise AssertionError("conditional_fp32_ops should be a list of (str, str, list of str)")
        cond_map.setdefault(item[0], {}).setdefault(item[1], []).extend(item[2])
    for a, b, what in ((target_ops, fp32, "target_dtype_ops and fp32_ops"),
                       (target_ops, list(cond_map), "target_dtype_ops and conditional_fp32_ops"),
                       (list(cond_map), fp32, "fp32_ops and conditional_fp32_ops")):  # fmt: skip
        common = set(a) & set(b)
        if common:
            raise AssertionError(
                f"Ops cannot be in two or more lists. Common ops in {what} {common}"
            )
    known = (
        set(list_lp16_ops(target_dtype)) | set(list_fp32_ops(target_dtype))
        | set(list_lp16_fp32_ops(target_dtype))
        | {c[0] for c in list_conditional_fp32_ops(target_dtype)}
    )  # fmt: skip
    illegal = (set(target_ops) | set(fp32) | set(cond_map)) - known
    if illegal:
        raise AssertionError(
            "Can only choose ops from one of the lists amp.list_lp16_ops, amp.list_fp32_ops, "
            f"amp.list_lp16_fp32_ops and amp.list_conditional_fp32_ops: op {illegal} is in "
            "none of them"
        )
    attrs = sym.attr_dict()
    inputs = sym.list_inputs()
    if data_names is None:
        data_names = [n for n in inputs if "__dtype__" not in attrs.get(n, {})]
    model_params = set(inputs) - set(data_names)
    lists_ = Lists(
        target=target_dtype,
        target_ops=set(target_ops),
        fp32_ops=set(fp32),
        widest_ops=set(list_widest_type_cast(target_dtype)),
        conditional=cond_map,
        excluded=set(excluded_sym_names or ()),
    )
    outputs = reduce_precision(
        sym._entries, lists_, list(data_names), model_params, bool(cast_optional_params)
    )
    return Symbol(outputs)


def _cast_param(value: NDArray, flag_text: str, name: str) -> NDArray:
    """``value`` in the dtype the converted graph's ``__dtype__`` attribute names."""
    flag = int(flag_text)
    if flag == -1:
        return value
    if flag == _BF16_FLAG:
        raise DTypeError(
            f"amp: parameter {name!r} is to be bfloat16 in the converted model, which NumPy "
            "cannot hold; mxlite can convert bfloat16 graphs but not their parameters."
        )
    return value.astype(DTYPE_MX_TO_NP[flag])


def convert_model(
    sym: Symbol,
    arg_params: dict,
    aux_params: dict,
    target_dtype: str = "float16",
    target_dtype_ops: list[str] | None = None,
    fp32_ops: list[str] | None = None,
    conditional_fp32_ops: list[tuple[str, str, list[str]]] | None = None,
    excluded_sym_names: list[str] | None = None,
    cast_optional_params: bool = False,
) -> tuple[Symbol, dict, dict]:
    """API for converting a model from FP32 model to a mixed precision model: cast layers
    (amp_cast, amp_multicast) are added as :func:`convert_symbol` does, and the parameters
    are cast to the dtypes the converted symbol gives them.

    Parameters
    ----------
    sym : Symbol
        FP32 neural network symbol
    arg_params : dict
        Dictionary of name to `NDArray`.
    aux_params : dict
        Dictionary of name to `NDArray`.
    target_dtype : str
        Currently only supports float16 and bfloat16.
    target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names
        As for :func:`convert_symbol`.
    cast_optional_params : bool, default False
        Whether to cast the arg_params and aux_params that don't require to be in LP16
        because of a cast layer following it.
    """
    if target_dtype not in ("float16", "bfloat16"):
        raise AssertionError("Only target_dtype float16 and bfloat16 are supported currently")
    if not isinstance(sym, Symbol):
        raise AssertionError("First argument to convert_model should be Symbol")
    if not isinstance(arg_params, dict):
        raise AssertionError("Second argument to convert_model should be a dict of name to ndarray")
    if not isinstance(aux_params, dict):
        raise AssertionError("Third argument to convert_model should be a dict of name to ndarray")
    param_names = list(arg_params) + list(aux_params)
    data_names = sorted(set(sym.list_inputs()) - set(param_names))
    sym = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                         excluded_sym_names, data_names, cast_optional_params)  # fmt: skip
    attrs = sym.attr_dict()
    for names, params in ((sym.list_arguments(), arg_params),
                          (sym.list_auxiliary_states(), aux_params)):  # fmt: skip
        for name in names:
            if name in params and "__dtype__" in attrs.get(name, {}):
                params[name] = _cast_param(params[name], attrs[name]["__dtype__"], name)
    return sym, arg_params, aux_params


def convert_hybrid_block(
    block: Any,
    target_dtype: str = "float16",
    target_dtype_ops: list[str] | None = None,
    fp32_ops: list[str] | None = None,
    conditional_fp32_ops: list[tuple[str, str, list[str]]] | None = None,
    excluded_sym_names: list[str] | None = None,
    ctx: Context = _GPU0,
    cast_optional_params: bool = False,
) -> Any:
    """Given a hybrid block/symbol block representing a FP32 model and a target_dtype,
    return a block with mixed precision support which can be used for inference use cases.

    Parameters
    ----------
    block : HybridBlock or SymbolBlock object
        FP32 HybridBlock or SymbolBlock object, hybridized and run once
    target_dtype : str or numpy
        currently only supports float16 and bfloat16.
    target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names
        As for :func:`convert_symbol`.
    ctx : Context
        Context on which model parameters should live
    cast_optional_params : bool, default False
        Whether to cast the arg_params and aux_params that don't require to be in LP16
        because of a cast layer following it.
    """
    from ...gluon import HybridBlock, SymbolBlock

    if not isinstance(block, HybridBlock):
        raise AssertionError("block input should be a HybridBlock")
    if not block._cached_graph:
        raise RuntimeError(
            "Please first call block.hybridize() and then run forward with "
            "this block at least once before calling export."
        )
    inputs, sym = block._cached_graph
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops,
                               conditional_fp32_ops, excluded_sym_names,
                               [i.name for i in inputs], cast_optional_params)  # fmt: skip
    arg_names = set(converted.list_arguments())
    attrs = converted.attr_dict()
    values = {}
    for name, param in block.collect_params().items():
        key = ("arg:" if name in arg_names else "aux:") + name
        value = param._reduce()
        if "__dtype__" in attrs.get(name, {}):
            value = _cast_param(value, attrs[name]["__dtype__"], name)
        values[key] = value
    ret = SymbolBlock(converted, inputs)
    for name, param in ret.collect_params().items():
        for key in ("arg:" + name, "aux:" + name):
            if key in values and param.dtype != values[key].dtype:
                param.cast(values[key].dtype)
    ret.collect_params().load_dict(values, ctx=ctx)
    return ret


def convert_bucketing_module(
    bucketing_mod: Any,
    target_dtype: str = "float16",
    target_dtype_ops: list[str] | None = None,
    fp32_ops: list[str] | None = None,
    conditional_fp32_ops: list[tuple[str, str, list[str]]] | None = None,
    excluded_sym_names: list[str] | None = None,
    cast_optional_params: bool = False,
) -> Any:
    """Given a bucketing module cast the symbols associated with the BucketingModule
    and params if cast_optional_params is set.

    Parameters
    ----------
    bucketing_mod : BucketingModule instance
        With its parameters initialized.
    target_dtype : str
        Currently only supports float16 and bfloat16.
    target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names, cast_optional_params
        As for :func:`convert_model`.
    """
    from ...module import BucketingModule, Module

    if not isinstance(bucketing_mod, BucketingModule):
        raise AssertionError("module should be instance of bucketing module")
    if not bucketing_mod._buckets:
        raise AssertionError("Bucketing Module should not be empty")
    if not bucketing_mod.params_initialized:
        raise AssertionError(
            "bucketing_mod params should be initialized for mixed precision conversion"
        )
    arg_params = bucketing_mod._curr_module._arg_params
    aux_params = bucketing_mod._curr_module._aux_params
    symbols = {}
    for key, mod in bucketing_mod._buckets.items():
        symbols[key], arg_params, aux_params = convert_model(
            mod._symbol, arg_params, aux_params, target_dtype, target_dtype_ops, fp32_ops,
            conditional_fp32_ops, excluded_sym_names, cast_optional_params,
        )  # fmt: skip
    kwargs = dict(bucketing_mod._module_kwargs)
    result = BucketingModule(bucketing_mod._sym_gen, bucketing_mod._default_bucket_key, **kwargs)
    _, data_names, label_names = bucketing_mod._call_sym_gen(bucketing_mod._default_bucket_key)
    for key, converted in symbols.items():
        result._buckets[key] = Module(converted, data_names, label_names, **kwargs)
        if key == bucketing_mod._default_bucket_key:
            result._curr_module = result._buckets[key]
    result._curr_module._arg_params = arg_params
    result._curr_module._aux_params = aux_params
    result._curr_module.params_initialized = True
    return result
