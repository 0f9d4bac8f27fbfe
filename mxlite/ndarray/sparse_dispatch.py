"""Imperative calls with sparse arrays: storage-type inference, sparse kernels, dense fallback.

Design note
-----------
``invoke`` (invoke.py) hands a call to :func:`dispatch` once a sparse array has ever been made
(:func:`activate` installs the hook, so programs without sparse arrays pay one ``is None``
test per call) and one of the call's inputs or outputs is sparse. The operator's
:class:`~mxlite.operator.sparse.forms.SparseForm` infers the output storage types; with a
sparse kernel the inputs are waited for and the kernel runs on the calling thread (the number
of stored values of a sparse output is known only after computing it). Without one, the
sparse inputs are densified and the dense operator runs as usual (MXNet's storage fallback),
after a warning that names the operator and the storage types, once per combination; set
``MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0`` to silence it. While autograd records, every call
takes the dense path so that gradients flow as for dense arrays.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..base import MXNetError, env_bool
from ..engine import get as _engine
from ..operator.sparse.forms import FORMS, check_stype
from ..operator.sparse.storage import to_dense, to_stype
from . import invoke as _invoke
from .ndarray import NDArray, _Chunk, _wrap

__all__ = ["activate", "dispatch", "cast_storage", "stype_of_array"]

_warned: set[tuple] = set()


def activate() -> None:
    """Route calls with sparse arrays here from now on."""
    if _invoke._sparse_hook is None:
        _invoke._sparse_hook = _hook


def stype_of_array(x: NDArray) -> str:
    return x.stype if x.__class__ is not NDArray else "default"


def _hook(prop: Any, inputs: Any, out: Any, name: Any, ctx: Any) -> Any:
    for x in inputs:
        if x.__class__ is not NDArray:
            return dispatch(prop, inputs, out, name, ctx)
    if out is not None:
        for o in out if isinstance(out, (list, tuple)) else (out,):
            if o.__class__ is not NDArray:
                return dispatch(prop, inputs, out, name, ctx)
    if prop.op_name == "cast_storage" and prop.param.stype != "default":
        return dispatch(prop, inputs, out, name, ctx)
    return NotImplemented


def _kernel_input(x: NDArray) -> Any:
    if x.__class__ is not NDArray:
        return x._value()
    _engine().wait_for_var(x._chunk.var)
    data = x._data
    return data if isinstance(data, np.ndarray) else x.asnumpy()


def dispatch(prop: Any, inputs: list, out: Any, name: Any, ctx: Any) -> Any:
    """Run ``prop`` on ``inputs`` of any storage types; see the module note."""
    from .sparse import from_value, write_value

    outs = None if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
    in_st = [stype_of_array(x) for x in inputs]
    form = FORMS.get(prop.op_name)
    out_st = None
    recording = _invoke._state[0]
    if form is not None and not (recording and any(x._ag is not None for x in inputs)):
        out_st = form.infer(prop, in_st)
    if out_st is not None:
        ctx = ctx or inputs[0].context
        values = [_kernel_input(x) for x in inputs]
        results = form.compute(prop, values, out_st)
        if outs is None:
            made = [from_value(r, ctx) for r in results]
            n = prop.num_visible_outputs()
            return made[0] if n == 1 else made[:n]
        for o, r in zip(outs, results):
            write_value(o, r)
        return out
    return _fallback(prop, inputs, outs, out, in_st, name, ctx)


def _fallback(prop, inputs, outs, out, in_st, name, ctx):
    from .sparse import write_value

    out_st = [stype_of_array(o) for o in outs] if outs else ["default"]
    _warn(prop, in_st, out_st)
    dense = [x if x.__class__ is NDArray else x.tostype("default") for x in inputs]
    if outs is None or all(o.__class__ is NDArray for o in outs):
        return _invoke.invoke(prop, dense, out, name, ctx)
    res = _invoke.invoke(prop, dense, None, name, ctx)
    res = res if isinstance(res, list) else [res]
    for o, r in zip(outs, res):
        write_value(o, r.asnumpy())
    return out


def _warn(prop: Any, in_st: list[str], out_st: list[str]) -> None:
    key = (prop.op_name, tuple(in_st), tuple(out_st))
    if key in _warned or not env_bool("MXNET_STORAGE_FALLBACK_LOG_VERBOSE", True):
        return
    _warned.add(key)
    warnings.warn(
        f"Storage type fallback detected: operator {prop.op_name} has no kernel for input "
        f"storage types {in_st} and output storage types {out_st}; it runs on dense copies of "
        "its inputs. The result is correct, only slower. Set "
        "MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0 to hide this message.",
        stacklevel=4,
    )


def _record_densify(prop: Any, data: NDArray) -> NDArray:
    """The dense copy of a recorded sparse array, recorded as ``cast_storage`` so that the
    gradient reaches the sparse array's variable (as a dense gradient of its full shape)."""
    dense = _wrap(_Chunk(data.context), np.array(to_dense(data._value()), copy=True))
    proxy = _wrap(_Chunk(data.context), dense._data)  # the input as autograd sees it
    proxy._ag = data._ag
    if _invoke._record_hook is not None:
        _invoke._record_hook(prop, [proxy], [dense], [], False)
    return dense


def cast_storage(data: NDArray, stype: str, out: Any = None, name: str | None = None) -> NDArray:
    """Cast ``data`` to storage type ``stype`` ('default', 'row_sparse' or 'csr')."""
    from .sparse import from_value, write_value

    check_stype("cast_storage", stype)
    if not isinstance(data, NDArray):
        raise MXNetError(
            f"cast_storage: argument 'data' must be an NDArray, got {type(data).__name__}."
        )
    if stype == "csr" and data.ndim != 2:
        raise ValueError(f"cast_storage: csr storage needs a 2-D array, got shape {data.shape}.")
    if _invoke._state[0] and data._ag is not None and stype == "default":
        from ..operator import registry

        prop = registry.get("cast_storage").get_prop({"stype": stype})
        if data.__class__ is NDArray:
            return _invoke.invoke(prop, [data])
        return _record_densify(prop, data)
    value = to_stype(_kernel_input(data), stype)
    if stype == "default" and data.__class__ is NDArray:
        value = np.array(value, copy=True)
    if out is not None:
        write_value(out, value)
        return out
    if stype == "default":
        return _wrap(_Chunk(data.context), np.asarray(to_dense(value)))
    return from_value(value, data.context)
