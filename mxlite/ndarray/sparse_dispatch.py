"""Imperative calls with sparse arrays: storage-type inference, sparse kernels, dense fallback.

Design note
-----------
``invoke`` (invoke.py) hands a call to :func:`dispatch` once a sparse array has ever been made
(sparse_array.from_value installs the hook given here, so programs without sparse arrays pay
one ``is None`` test per call) and one of the call's inputs or outputs is sparse. The operator's
:class:`~mxlite.operator.sparse.forms.SparseForm` infers the output storage types; with a
sparse kernel, the outputs are made at once (shapes and dtypes from the dense operator's
inference; sparse ones store nothing yet) and the kernel is pushed as one engine function
that reads the inputs' vars and writes the outputs' (``sparse_array.push_kernel``), so it
sees pending writes and ``waitall`` covers it; it sets the sparse outputs' parts when it
runs, since their number of stored values is known only then. Without a kernel, the sparse
inputs are densified and the dense operator runs as usual (MXNet's storage fallback), after a
warning that names the operator and the storage types, once per combination; set
``MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0`` to silence it. While autograd records, every call
takes the dense path so that gradients flow as for dense arrays; the recorded node keeps the
sparse inputs (``sparse_in``) so that backward gives MXNet's row-sparse gradients
(``mxlite/autograd/sparse_grad.py``).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..base import MXNetError, env_bool
from . import invoke as _invoke
from .ndarray import NDArray, _new
from .sparse_array import empty_sparse, push_kernel, write_value

__all__ = ["dispatch", "stype_of_array"]

_warned: set[tuple] = set()


def stype_of_array(x: NDArray) -> str:
    return x.stype if x.__class__ is not NDArray else "default"


def _hook(prop: Any, inputs: Any, out: Any, name: Any, ctx: Any) -> Any:
    # subclasses of NDArray may be dense too (mx.np.ndarray): ask the storage type then
    for x in inputs:
        if x.__class__ is not NDArray and x.stype != "default":
            return dispatch(prop, inputs, out, name, ctx)
    if out is not None:
        for o in out if isinstance(out, (list, tuple)) else (out,):
            if o.__class__ is not NDArray and o.stype != "default":
                return dispatch(prop, inputs, out, name, ctx)
    form = prop.sparse_form
    if form is not None and form.from_dense:  # cast_storage to a sparse type
        if any(st != "default" for st in form.infer(prop, ["default"] * len(inputs)) or ()):
            return dispatch(prop, inputs, out, name, ctx)
    return NotImplemented


def dispatch(prop: Any, inputs: list, out: Any, name: Any, ctx: Any) -> Any:
    """Run ``prop`` on ``inputs`` of any storage types; see the module note."""
    outs = None if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
    in_st = [stype_of_array(x) for x in inputs]
    form = prop.sparse_form
    out_st = None
    recording = _invoke._state[0] and any(x._ag is not None for x in inputs)
    if form is not None and (not recording or _sparse_backward(prop, inputs, in_st)):
        out_st = form.infer(prop, in_st)
    if out_st is not None:
        ctx = ctx or inputs[0].context
        if outs is None:
            outs = _outputs(prop, inputs, out_st, ctx)
        elif len(outs) < len(out_st):
            raise MXNetError(
                f"{prop.where(name)}: argument 'out' needs {len(out_st)} arrays, got {len(outs)}."
            )

        compute = form.compute

        def kernel(values: list) -> list:
            return compute(prop, values, out_st)

        resources = prop.forward_resource([x.shape for x in inputs]) if prop._has_resources else ()
        if resources:  # the kernel requests them itself; its engine function holds them
            from ..resource import request

            resources = tuple(request(ctx, r) for r in resources)
        push_kernel(
            kernel, list(inputs), outs[: len(out_st)], prop._mutates, prop.op_name, resources
        )
        if recording and _invoke._record_hook is not None:
            _invoke._record_hook(prop, list(inputs), outs[: len(out_st)], [], False, sparse=True)
        if out is not None:
            return out
        n = prop.num_visible_outputs()
        return outs[0] if n == 1 else outs[:n]
    res = _fallback(prop, inputs, outs, out, in_st, name, ctx)
    if recording and any(st != "default" for st in in_st):
        for r in res if isinstance(res, (list, tuple)) else (res,):
            if isinstance(r, NDArray) and r._ag is not None and r._ag[0].prop is prop:
                r._ag[0].sparse_in = list(inputs)  # the backward gives MXNet's sparse rows
    return res


def _sparse_backward(prop: Any, inputs: list, in_st: list[str]) -> bool:
    """Whether a recorded call can run its sparse kernel: its backward has a sparse kernel
    too (its ``sparse_backward``) for the inputs that need gradients."""
    entry = prop.sparse_backward
    return entry is not None and entry[0](prop, in_st, [x._ag is not None for x in inputs])


def _outputs(prop: Any, inputs: list, out_st: list[str], ctx: Any) -> list:
    """The outputs of a sparse kernel: their shapes and dtypes are the dense operator's."""
    n_aux = len(prop.list_auxiliary_states()) if prop._has_aux else 0
    args = inputs[: len(inputs) - n_aux] if n_aux else inputs
    shapes, dtypes, _, _ = prop.infer_imperative(
        tuple(x.shape for x in args), tuple(x._data.dtype for x in args)
    )
    made = []
    for st, shape, dtype in zip(out_st, shapes, dtypes):
        if st == "default":
            made.append(_new(tuple(shape), dtype, ctx))
        else:
            made.append(empty_sparse(st, tuple(shape), dtype, ctx))
    return made


def _fallback(prop, inputs, outs, out, in_st, name, ctx):
    out_st = [stype_of_array(o) for o in outs] if outs else ["default"]
    _warn(prop, in_st, out_st)
    dense = [x if x.stype == "default" else x.tostype("default") for x in inputs]
    if outs is None or all(o.stype == "default" for o in outs):
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


_invoke.set_sparse_dispatch(_hook)
