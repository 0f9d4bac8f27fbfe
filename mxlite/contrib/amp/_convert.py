"""``amp.convert_*``: float32 graphs and parameters to mixed precision, for inference."""

from __future__ import annotations

from typing import Any

from ...base import DTYPE_MX_TO_NP
from ...context import Context, gpu
from ...ndarray import NDArray
from ...symbol import Symbol
from ._low_precision import Lists, reduce_precision
from ._targets import (
    list_conditional_fp32_ops,
    list_fp32_ops,
    list_lp16_fp32_ops,
    list_lp16_ops,
    list_widest_type_cast,
)

__all__ = ["convert_symbol", "convert_model", "convert_hybrid_block", "convert_bucketing_module"]

_GPU0 = gpu(0)  # convert_hybrid_block's default context, as MXNet's


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


def _cast_param(value: NDArray, flag_text: str) -> NDArray:
    """``value`` in the dtype the converted graph's ``__dtype__`` attribute names (to
    bfloat16 rounded to nearest even, as MXNet's amp_cast of it)."""
    flag = int(flag_text)
    if flag == -1:
        return value
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
                params[name] = _cast_param(params[name], attrs[name]["__dtype__"])
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
            value = _cast_param(value, attrs[name]["__dtype__"])
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
