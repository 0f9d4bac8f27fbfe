"""Test helpers on symbols (re-exported by :mod:`mxlite.test_utils`): forward and backward
checks against expected values, finite-difference gradients and cross-context consistency,
with MXNet 1.9.1's names and defaults."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError
from ..context import Context, current_context
from .compare import assert_almost_equal, get_atol, get_rtol

__all__ = [
    "check_symbolic_forward",
    "check_symbolic_backward",
    "check_numeric_gradient",
    "numeric_grad",
    "simple_forward",
    "check_consistency",
]


def _nd():
    from .. import ndarray

    return ndarray


def _bind(sym: Any, ctx: Context, args: Any, args_grad: Any = None, grad_req: Any = "write",
          aux_states: Any = None) -> Any:  # fmt: skip
    from ..executor import bind

    return bind(sym, ctx, args, args_grad, grad_req, aux_states)


def _as_dict(sym: Any, values: Any, names: list[str], what: str) -> dict[str, Any]:
    if values is None:
        return {}
    if isinstance(values, dict):
        unknown = set(values) - set(names)
        if unknown:
            raise MXNetError(f"{what}: names {sorted(unknown)} are not in {names}.")
        return dict(values)
    if isinstance(values, (list, tuple)):
        if len(values) != len(names):
            raise MXNetError(f"{what}: got {len(values)} arrays for {len(names)} names {names}.")
        return dict(zip(names, values))
    raise MXNetError(f"{what}: expected a list or dict of arrays, got {type(values).__name__}.")


def _check_dtype(where: str, dtype: Any) -> None:
    if isinstance(dtype, str) and dtype == "asnumpy":
        return
    try:
        ok = np.dtype(dtype) in (np.float16, np.float32, np.float64)
    except TypeError:
        ok = False
    if not ok:
        raise MXNetError(
            f"{where}: dtype must be 'asnumpy', np.float16, np.float32 or np.float64, "
            f"got {dtype!r}."
        )


def _to_nd(values: dict[str, Any], ctx: Context, dtype: Any) -> dict[str, Any]:
    """NDArrays as given; every other value becomes an NDArray of ``dtype`` (integer arrays
    too, as MXNet 1.9.1 does), or of its own dtype when ``dtype`` is 'asnumpy'."""
    nd = _nd()
    out = {}
    for k, v in values.items():
        if isinstance(v, nd.NDArray):
            out[k] = v.as_in_context(ctx)
        else:
            a = np.asarray(v)
            keep = isinstance(dtype, str) and dtype == "asnumpy"
            out[k] = nd.array(a, ctx=ctx, dtype=a.dtype if keep else dtype)
    return out


def _location(sym: Any, location: Any, ctx: Context, dtype: Any) -> dict[str, Any]:
    return _to_nd(_as_dict(sym, location, sym.list_arguments(), "location"), ctx, dtype)


def _aux(sym: Any, aux_states: Any, ctx: Context, dtype: Any) -> dict[str, Any]:
    return _to_nd(_as_dict(sym, aux_states, sym.list_auxiliary_states(), "aux_states"), ctx, dtype)


def _asnumpy(x: Any) -> np.ndarray:
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


def simple_forward(sym: Any, ctx: Context | None = None, is_train: bool = False, **inputs: Any):
    """Run ``sym`` once on numpy ``inputs``; return the output (a list if several) as numpy."""
    ctx = ctx or current_context()
    args = _to_nd(inputs, ctx, "asnumpy")
    exe = _bind(sym, ctx, args, None, "null")
    outs = [o.asnumpy() for o in exe.forward(is_train=is_train)]
    return outs[0] if len(outs) == 1 else outs


def check_symbolic_forward(
    sym: Any,
    location: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    aux_states: Any = None,
    ctx: Context | None = None,
    equal_nan: bool = False,
    dtype: Any = np.float32,
) -> list[Any]:
    """Check that ``sym``'s outputs at ``location`` equal ``expected`` (list or dict of
    numpy arrays); return the executor's output NDArrays, as MXNet does."""
    _check_dtype("check_symbolic_forward", dtype)
    ctx = ctx or current_context()
    args = _location(sym, location, ctx, dtype)
    aux = _aux(sym, aux_states, ctx, dtype)
    exe = _bind(sym, ctx, args, None, "null", aux)
    results = exe.forward(is_train=False)
    outputs = [o.asnumpy() for o in results]
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    for name, want, got in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(want, got, rtol, atol, (f"EXPECTED_{name}", f"FORWARD_{name}"),
                            equal_nan=equal_nan)  # fmt: skip
    return results


def check_symbolic_backward(
    sym: Any,
    location: Any,
    out_grads: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    aux_states: Any = None,
    grad_req: Any = "write",
    ctx: Context | None = None,
    grad_stypes: Any = None,
    equal_nan: bool = False,
    dtype: Any = np.float32,
) -> dict[str, Any]:
    """Check the gradients of ``sym`` at ``location`` for head gradients ``out_grads``
    against ``expected`` (list or dict); with ``grad_req='add'`` the expected values are
    added to random initial gradients; ``grad_stypes`` (name to storage type) asks for sparse
    gradient arrays. Return the gradient NDArrays by name, as MXNet does."""
    _check_dtype("check_symbolic_backward", dtype)
    ctx = ctx or current_context()
    nd = _nd()
    names = sym.list_arguments()
    args = _location(sym, location, ctx, dtype)
    aux = _aux(sym, aux_states, ctx, dtype)
    expected = _as_dict(sym, expected, names, "expected")
    if isinstance(grad_req, str):
        grad_req = dict.fromkeys(names, grad_req)
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(names, grad_req))
    keep = isinstance(dtype, str) and dtype == "asnumpy"
    grads = {
        k: nd.array(np.random.normal(size=args[k].shape), ctx=ctx,
                    dtype=np.asarray(_asnumpy(v)).dtype if keep else dtype)
        for k, v in expected.items()
    }  # fmt: skip
    for k, st in (grad_stypes or {}).items():
        if k in grads and st not in (None, "default"):
            grads[k] = nd.zeros(grads[k].shape, ctx=ctx, dtype=grads[k].dtype, stype=st)
    initial = {k: g.asnumpy() for k, g in grads.items()}
    exe = _bind(sym, ctx, args, grads, {k: grad_req.get(k, "null") for k in names}, aux)
    exe.forward(is_train=True)
    if isinstance(out_grads, (list, tuple)):
        heads = [_to_nd({"g": g}, ctx, dtype)["g"] for g in out_grads]
    elif isinstance(out_grads, dict):
        heads = {k: _to_nd({"g": g}, ctx, dtype)["g"] for k, g in out_grads.items()}
    elif out_grads is None:
        heads = None
    else:
        heads = [_to_nd({"g": out_grads}, ctx, dtype)["g"]]
    exe.backward(heads)
    got = {k: v.asnumpy() for k, v in grads.items()}
    for name, want in expected.items():
        req = grad_req.get(name, "write")
        if req == "write":
            assert_almost_equal(
                want,
                got[name],
                rtol,
                atol,
                (f"EXPECTED_{name}", f"BACKWARD_{name}"),
                equal_nan=equal_nan,
            )
        elif req == "add":
            assert_almost_equal(
                np.asarray(want) + initial[name],
                got[name],
                rtol,
                atol,
                (f"EXPECTED_{name}", f"BACKWARD_{name}"),
                equal_nan=equal_nan,
            )
        elif req == "null":
            assert_almost_equal(
                initial[name],
                got[name],
                rtol,
                atol,
                (f"EXPECTED_{name}", f"BACKWARD_{name}"),
                equal_nan=equal_nan,
            )
        else:
            raise MXNetError(f"check_symbolic_backward: invalid grad_req {req!r} for {name!r}.")
    return grads


def numeric_grad(
    executor: Any,
    location: dict[str, np.ndarray],
    aux_states: dict[str, np.ndarray] | None = None,
    eps: float = 1e-4,
    use_forward_train: bool = True,
    dtype: Any = np.float32,
) -> dict[str, np.ndarray]:
    """Central finite differences of ``sum(outputs[0])`` with respect to each array in
    ``location``, evaluated through ``executor``."""
    for k, v in location.items():
        executor.arg_dict[k][:] = np.asarray(v)
    for k, v in (aux_states or {}).items():
        executor.aux_dict[k][:] = np.asarray(v)
    grads = {}
    for k, v in location.items():
        base = np.asarray(v, dtype=dtype).copy()
        g = np.zeros(base.shape, dtype=np.float64)
        flat = base.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps / 2
            executor.arg_dict[k][:] = base
            for ak, av in (aux_states or {}).items():
                executor.aux_dict[ak][:] = np.asarray(av)
            f_pos = executor.forward(is_train=use_forward_train)[0].asnumpy().astype(np.float64)
            flat[i] = old - eps / 2
            executor.arg_dict[k][:] = base
            for ak, av in (aux_states or {}).items():
                executor.aux_dict[ak][:] = np.asarray(av)
            f_neg = executor.forward(is_train=use_forward_train)[0].asnumpy().astype(np.float64)
            g.reshape(-1)[i] = (f_pos.sum() - f_neg.sum()) / eps
            flat[i] = old
        executor.arg_dict[k][:] = base
        grads[k] = g
    return grads


def check_numeric_gradient(
    sym: Any,
    location: Any,
    aux_states: Any = None,
    numeric_eps: float | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    grad_nodes: Any = None,
    use_forward_train: bool = True,
    ctx: Context | None = None,
    grad_stype_dict: Any = None,
    dtype: Any = np.float32,
) -> None:
    """Check ``sym``'s backward against finite differences of ``sum(out * proj)`` for a
    random projection ``proj`` of the first output."""
    ctx = ctx or current_context()
    dtype = np.dtype(dtype)
    eps = numeric_eps if numeric_eps is not None else (1e-4 if dtype == np.float64 else 1e-3)
    names = sym.list_arguments()
    loc = {
        k: _asnumpy(v).astype(dtype) for k, v in _as_dict(sym, location, names, "location").items()
    }  # noqa: E501
    aux = {k: _asnumpy(v) for k, v in _as_dict(
        sym, aux_states, sym.list_auxiliary_states(), "aux_states").items()}  # fmt: skip
    if grad_nodes is None:
        grad_nodes = list(loc)
    grad_req = dict.fromkeys(grad_nodes, "write") if not isinstance(grad_nodes, dict) else dict(
        grad_nodes)  # fmt: skip
    args = _to_nd(loc, ctx, dtype)
    given = _as_dict(sym, location, names, "location")
    for k, v in given.items():  # sparse arrays are bound as they are, as MXNet does
        if isinstance(v, _nd().NDArray) and v.stype != "default":
            args[k] = v.as_in_context(ctx)
    grads = {
        k: _nd().zeros(args[k].shape, ctx=ctx, dtype=dtype, stype=(grad_stype_dict or {}).get(k))
        for k in grad_req
    }
    exe = _bind(sym, ctx, args, grads, {k: grad_req.get(k, "null") for k in names},
                _to_nd(aux, ctx, dtype))  # fmt: skip
    out = exe.forward(is_train=use_forward_train)[0]
    proj = np.random.uniform(-1, 1, size=out.shape).astype(dtype)
    exe.backward([_nd().array(proj, ctx=ctx, dtype=dtype)])
    symbolic = {k: grads[k].asnumpy() for k in grad_req}

    class _Projected:  # the executor seen through sum(outputs[0] * proj)
        arg_dict = exe.arg_dict
        aux_dict = exe.aux_dict

        @staticmethod
        def forward(is_train: bool = False) -> list[Any]:
            o = exe.forward(is_train=is_train)[0].asnumpy() * proj
            return [_nd().array(o.astype(np.float64), dtype=np.float64)]

    numeric = numeric_grad(_Projected, {k: loc[k] for k in grad_req}, aux, eps,
                           use_forward_train, dtype)  # fmt: skip
    rtol = get_rtol(rtol, dtype) if rtol is not None else (1e-2 if dtype != np.float64 else 1e-4)
    atol = get_atol(atol, dtype) if atol is not None else (1e-3 if dtype != np.float64 else 1e-6)
    for name in grad_req:
        if grad_req[name] == "null":
            continue
        assert_almost_equal(numeric[name], symbolic[name], rtol, atol,
                            (f"NUMERICAL_{name}", f"BACKWARD_{name}"))  # fmt: skip


def check_consistency(
    sym: Any,
    ctx_list: list[dict[str, Any]],
    scale: float = 1.0,
    grad_req: Any = "write",
    arg_params: dict | None = None,
    aux_params: dict | None = None,
    tol: Any = None,
    raise_on_err: bool = True,
    ground_truth: Any = None,
    equal_nan: bool = False,
    use_uniform: bool = False,
    rand_type: Any = np.float64,
) -> list[Any]:
    """Run ``sym`` (or one symbol per entry) on each context of ``ctx_list`` (dicts with
    ``ctx``, input shapes and an optional ``type_dict``) with the same inputs, and check that
    outputs and gradients agree with the most precise run. Return the executors."""
    from ..executor import simple_bind

    syms = sym if isinstance(sym, (list, tuple)) else [sym] * len(ctx_list)
    exes = []
    for s, spec in zip(syms, ctx_list):
        spec = dict(spec)
        ctx = spec.pop("ctx")
        type_dict = spec.pop("type_dict", None)
        exes.append(simple_bind(s, ctx, grad_req=grad_req, type_dict=type_dict, **spec))
    first = exes[0]
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for name, arr in first.arg_dict.items():
        if name not in arg_params:
            arg_params[name] = (
                np.random.uniform(-scale, scale, arr.shape) if use_uniform
                else np.random.normal(size=arr.shape, scale=scale)
            ).astype(rand_type)  # fmt: skip
    for name, arr in first.aux_dict.items():
        aux_params.setdefault(name, np.zeros(arr.shape, rand_type))
    precision = [
        max(np.dtype(a.dtype).itemsize for a in e.arg_arrays) if e.arg_arrays else 4 for e in exes
    ]
    ref_i = int(np.argmax(precision)) if ground_truth is None else None
    outs, grads = [], []
    for e in exes:
        for name, arr in e.arg_dict.items():
            arr[:] = np.asarray(arg_params[name]).astype(arr.dtype)
        for name, arr in e.aux_dict.items():
            arr[:] = np.asarray(aux_params[name]).astype(arr.dtype)
        o = e.forward(is_train=grad_req != "null")
        outs.append([x.asnumpy() for x in o])
        if grad_req != "null":
            e.backward([_nd().array(x.asnumpy(), ctx=x.context) for x in o])
            grads.append({k: v.asnumpy() for k, v in e.grad_dict.items()})
    ref_outs = outs[ref_i] if ref_i is not None else ground_truth
    for i, e in enumerate(exes):
        if i == ref_i:
            continue
        dt = max((a.dtype for a in e.arg_arrays), key=lambda d: np.dtype(d).itemsize)
        t = tol.get(np.dtype(dt), 1e-3) if isinstance(tol, dict) else (tol or _default_tol(dt))
        try:
            for a, b in zip(ref_outs, outs[i]):
                assert_almost_equal(a, b, t, t, equal_nan=equal_nan)
            if grads and ref_i is not None:
                for k in grads[i]:
                    assert_almost_equal(grads[ref_i][k], grads[i][k], t, t, equal_nan=equal_nan)
        except AssertionError:
            if raise_on_err:
                raise
    return exes


def _default_tol(dtype: Any) -> float:
    return {2: 1e-2, 4: 1e-3, 8: 1e-5}.get(np.dtype(dtype).itemsize, 1e-3)
