"""Test helpers on symbols (re-exported by :mod:`mxlite.test_utils`): forward and backward
checks against expected values, finite-difference gradients and cross-context consistency,
with MXNet 1.9.1's names and defaults."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..base import MXNetError
from ..context import Context, current_context
from ..engine import inline_up_to
from .compare import (
    assert_almost_equal,
    default_numeric_eps,
    get_tolerance,
)

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


def _sym():
    from .. import symbol

    return symbol


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
            target = want
        elif req == "add":
            target = np.asarray(want) + initial[name]
        elif req == "null":
            target = initial[name]
        else:
            raise MXNetError(f"check_symbolic_backward: invalid grad_req {req!r} for {name!r}.")
        assert_almost_equal(
            target,
            got[name],
            rtol,
            atol,
            (f"EXPECTED_{name}", f"BACKWARD_{name}"),
            equal_nan=equal_nan,
        )
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
    ``location``, evaluated through ``executor`` as MXNet 1.9.1 computes them: each element
    moves by ``eps / 2`` both ways and the difference of the two outputs is summed. The
    arrays of ``location`` are changed during the call and restored; integer ones are left
    out (their gradient stays 0)."""
    dtype = np.dtype(dtype)
    grads = {k: np.zeros(np.shape(v), dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        executor.arg_dict[k][:] = np.asarray(v, dtype=dtype)
    for k in location:
        location[k] = np.asarray(location[k], order="C")

    def run(k: str, v: np.ndarray) -> np.ndarray:
        executor.arg_dict[k][:] = v.astype(dtype, copy=False)
        for ak, av in (aux_states or {}).items():
            executor.aux_dict[ak][:] = np.asarray(av, dtype=dtype)
        executor.forward(is_train=use_forward_train)
        return executor.outputs[0].asnumpy()

    # each output is read at once: the arrays' copies (and the steps of an executor bound
    # within check_numeric_gradient) run on this thread, not on a worker and back
    with inline_up_to(sys.maxsize):
        for k, v in location.items():
            if v.dtype.kind != "f":
                continue
            old = v.copy()
            flat = v.reshape(-1)  # a view: location[k] is C-contiguous
            out = grads[k].reshape(-1)
            for i in range(flat.size):
                flat[i] += eps / 2.0
                f_pos = run(k, v)
                flat[i] -= eps
                f_neg = run(k, v)
                out[i] = (f_pos - f_neg).sum() / eps
                flat[i] = old.reshape(-1)[i]
            executor.arg_dict[k][:] = old.astype(dtype, copy=False)
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
    """Verify an operation by checking backward pass via finite difference method, as MXNet
    1.9.1 does: the loss is ``make_loss(sym * proj)`` with ``proj`` uniform in [0.1, 1.1)
    (so no gradient cancels), gradients start from small random values (checked as added for
    ``grad_req='add'``, unchanged for 'null'), and the random numbers are drawn in MXNet's
    order, so that a seeded test sees the values it sees under MXNet.

    Parameters
    ----------
    sym : Symbol
        Output symbol (one output).
    location : list or dict of numpy.ndarray or NDArray
        The arguments' values, in ``list_arguments`` order or by name.
    aux_states : list or dict of numpy.ndarray or NDArray, optional
        The auxiliary states' values.
    numeric_eps : float, optional
        Step of the finite differences (default: 2**-9 for float32 outputs).
    rtol, atol : float, optional
        Tolerances of the comparison (default: by dtype, as ``assert_almost_equal``).
    grad_nodes : None or list or dict of str
        The arguments to check (a dict gives their ``grad_req``); default: all, 'write'.
    use_forward_train : bool
        Whether the finite differences run the forward in training mode.
    ctx : Context, optional
        Where to run (default: the current context).
    grad_stype_dict : dict of str to str, optional
        Storage types of the gradients ('default', 'row_sparse' or 'csr').
    dtype : np.float16, np.float32 or np.float64
        The dtype the arrays are made in.
    """
    nd, sym_mod = _nd(), _sym()
    ctx = ctx or current_context()
    _check_dtype("check_numeric_gradient", dtype)
    location_arg = location
    location = dict(sorted(_location(sym, location, ctx, dtype).items()))
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux = dict(sorted(_aux(sym, aux_states, ctx, dtype).items())) if aux_states else None
    aux_npy = {k: v.asnumpy() for k, v in aux.items()} if aux else None
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = dict.fromkeys(grad_nodes, "write")
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = dict.fromkeys(grad_nodes, "write")
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
        grad_nodes = list(grad_nodes)
    else:
        raise MXNetError(
            "check_numeric_gradient: argument 'grad_nodes' must be None, a list or a dict, "
            f"got {type(grad_nodes).__name__}."
        )
    _, out_shape, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    out = sym_mod.make_loss(sym * sym_mod.Variable("__random_proj"))
    proj = np.asarray(np.random.rand(*out_shape[0]) + 0.1)  # an array also for a zero-dim output
    location["__random_proj"] = nd.array(proj, ctx=ctx, dtype=dtype)
    grads_npy = {k: np.random.normal(0, 0.01, size=location[k].shape) for k in grad_nodes}
    grads_npy["__random_proj"] = np.random.normal(0, 0.01, size=out_shape[0])
    grads = {k: nd.array(v, ctx=ctx, dtype=dtype) for k, v in grads_npy.items()}
    for k, st in (grad_stype_dict or {}).items():  # sparse gradients, as MXNet binds them
        if k in grads and st not in (None, "default"):
            grads[k] = grads[k].tostype(st)
    given = location_arg if isinstance(location_arg, dict) else {}
    for k, v in given.items():  # sparse arrays are bound as they are, as MXNet does
        if isinstance(v, nd.NDArray) and v.stype != "default":
            location[k] = v.as_in_context(ctx)
    # every result is read as soon as it is pushed: the executor's steps run on this thread
    with inline_up_to(sys.maxsize):
        exe = _bind(out, ctx, location, grads, grad_req, aux)
        exe.forward(is_train=True)
        eps = get_tolerance(exe.outputs[0], numeric_eps, default_numeric_eps())
        if np.dtype(dtype) in (np.float32, np.float16) and eps < 1e-5:
            raise MXNetError(
                f"check_numeric_gradient: numeric_eps={eps} is too small for "
                f"{np.dtype(dtype).name}."
            )
        exe.backward()
        symbolic = exe.grad_dict
        numeric = numeric_grad(exe, location_npy, aux_npy, eps, use_forward_train, dtype)
    for name in grad_nodes:
        fd, orig, got = numeric[name], grads_npy[name], symbolic[name].asnumpy()
        names = (f"NUMERICAL_{name}", f"BACKWARD_{name}")
        if grad_req[name] == "write":
            assert_almost_equal(fd, got, rtol, atol, names)
        elif grad_req[name] == "add":
            assert_almost_equal(fd, got - orig, rtol, atol, names)
        elif grad_req[name] == "null":
            assert_almost_equal(orig, got, rtol, atol, names)
        else:
            raise MXNetError(
                f"check_numeric_gradient: invalid grad_req {grad_req[name]!r} for {name!r}."
            )


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
            grads.append({k: v.asnumpy() for k, v in e.grad_dict.items() if v is not None})
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
