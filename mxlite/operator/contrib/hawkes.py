"""``hawkesll``: log likelihood of a marked, self-exciting (Hawkes) point process with
exponential decay, for a batch of N ragged sequences over K marks.

For sample i, mark k: background intensity ``lda[i, k]``, branching ratio ``alpha[k]``, decay
``beta[k]``. The state of mark k is the sum of ``exp(-beta (t - t_j))`` over its past events; it
starts at ``state`` and the second output is its value at ``max_time``. Events (``lags``: the
inter-arrival times, ``marks``: their marks) are read up to ``valid_length[i]``. The loop runs
over time steps, vectorised over the batch; backward carries the derivative of each state with
respect to beta along the same recursion (gradients for lda, alpha and beta only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign
from ._computed import zero_grads

__all__: list[str] = []

_ARGS = ["lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"]


@register("_contrib_hawkesll")
class HawkesLLProp(OperatorProperty):
    """Log likelihood (N,) and end states (N, K) of a multivariate Hawkes process."""

    test = OpTest(
        shapes={
            "lda": (2, 3),
            "alpha": (3,),
            "beta": (3,),
            "state": (2, 3),
            "lags": (2, 4),
            "marks": (2, 4),
            "valid_length": (2,),
            "max_time": (2,),
        },
        grad=False,
    )

    def list_arguments(self) -> list[str]:
        return list(_ARGS)

    def list_outputs(self) -> list[str]:
        return ["output", "out_state"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if any(s is None for s in in_shape):
            return None
        lda, alpha, beta, state, lags, marks, vl, mt = (tuple(s) for s in in_shape)
        ranks = (2, 1, 1, 2, 2, 2, 1, 1)
        for name, s, r in zip(_ARGS, in_shape, ranks):
            if len(s) != r:
                raise ShapeError(f"{self.where()}: {name} must be {r}-D, got shape {tuple(s)}.")
        n, k = lags[0], lda[1]
        want = {
            "lda": (n, k),
            "alpha": (k,),
            "beta": (k,),
            "state": (n, k),
            "marks": lags,
            "valid_length": (n,),
            "max_time": (n,),
        }
        for name, s in zip(_ARGS, (lda, alpha, beta, state, lags, marks, vl, mt)):
            if name in want and s != want[name]:
                raise ShapeError(
                    f"{self.where()}: {name} has shape {s}; expected {want[name]} "
                    f"(N={n} samples, K={k} marks)."
                )
        return [lda, alpha, beta, state, lags, marks, vl, mt], [(n,), (n, k)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = next((x for i, x in enumerate(in_type) if i != 5 and x is not None), None)
        if t is None and out_type:
            t = next((x for x in out_type if x is not None), None)
        if t is None:
            return None
        ins = [t] * 8
        ins[5] = np.dtype(np.int32)
        return ins, [t, t], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [out_grad[0], *in_data]

    def create_operator(self, ctx: Context) -> Operator:
        return _HawkesLLOp()


def _inputs(in_data: list) -> tuple[Any, ...]:
    lda, alpha, beta, state, lags, marks, vl, mt = (np.asarray(a) for a in in_data)
    return lda, alpha, beta, state, lags, marks.astype(np.int64), vl, mt


def _events(lags: Any, marks: Any, vl: Any, last: Any, dtype: Any) -> Any:
    """Walk the event sequences step by step while any is running: yield the mask ``on`` of
    the running ones, their marks ``c``, event times ``t`` and the time ``d`` since the latest
    event of the same mark, read from ``last`` (which the caller updates); times in ``dtype``."""
    n, t_len = lags.shape
    rows = np.arange(n)
    t = np.zeros(n, dtype=dtype)
    for j in range(t_len):
        on = j < vl
        if not on.any():
            break
        c = marks[:, j]
        t = np.where(on, t + lags[:, j], t)
        yield on, c, t, t - last[rows, c]


class _HawkesLLOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        lda, alpha, beta, state, lags, marks, vl, mt = _inputs(in_data)
        n = lags.shape[0]
        rows = np.arange(n)
        state = state.copy()
        last = np.zeros_like(state)
        ll = np.zeros(n, dtype=lda.dtype)
        for on, c, t, d in _events(lags, marks, vl, last, lda.dtype):
            ed = np.exp(-beta[c] * d)
            s = state[rows, c]
            lam = lda[rows, c] + alpha[c] * beta[c] * s * ed
            comp = lda[rows, c] * d + alpha[c] * s * (1 - ed)
            with np.errstate(divide="ignore", invalid="ignore"):
                ll = np.where(on, ll + np.log(lam) - comp, ll)
            r, cc = rows[on], c[on]
            state[r, cc] = 1 + s[on] * ed[on]
            last[r, cc] = t[on]
        d = mt[:, None] - last
        ed = np.exp(-beta[None, :] * d)
        rem = lda * d + alpha[None, :] * state * (1 - ed)
        assign(out_data[0], req[0], (ll - rem.sum(axis=1)).astype(out_data[0].dtype))
        assign(out_data[1], req[1], (ed * state).astype(out_data[1].dtype))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        lda, alpha, beta, state, lags, marks, vl, mt = _inputs(in_data)
        dy = np.asarray(out_grad[0])
        rows = np.arange(lags.shape[0])
        phi = state.copy()
        dphi = np.zeros_like(phi)  # d(state)/d(beta)
        last = np.zeros_like(phi)
        g_mu = np.zeros_like(phi)
        g_a = np.zeros_like(phi)
        g_b = np.zeros_like(phi)
        for on, c, t, d in _events(lags, marks, vl, last, lda.dtype):
            a, b = alpha[c], beta[c]
            ed = np.exp(-b * d)
            s, ds = phi[rows, c], dphi[rows, c]
            lam = lda[rows, c] + a * b * s * ed
            r, cc = rows[on], c[on]
            g_mu[r, cc] += (1 / lam - d)[on]
            g_a[r, cc] += (b * s * ed / lam - s * (1 - ed))[on]
            g_b[r, cc] += (
                a * ed * (s * (1 - b * d) + b * ds) / lam - a * (ds * (1 - ed) + s * d * ed)
            )[on]
            dphi[r, cc] = (ed * (-d * s + ds))[on]
            phi[r, cc] = (1 + s * ed)[on]
            last[r, cc] = t[on]
        d = mt[:, None] - last
        ed = np.exp(-beta[None, :] * d)
        g_mu -= d
        g_a -= phi * (1 - ed)
        g_b -= alpha[None, :] * (dphi * (1 - ed) + phi * d * ed)
        scale = dy[:, None]
        grads = [g_mu * scale, (g_a * scale).sum(axis=0), (g_b * scale).sum(axis=0)]
        for i, g in enumerate(grads):
            if req[i] != OpReq.NULL:
                assign(in_grad[i], req[i], g.astype(in_grad[i].dtype))
        zero_grads(in_grad[3:], req[3:])
