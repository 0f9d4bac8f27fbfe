"""``check_gluon_hybridize_consistency``: a HybridBlock gives the same outputs (and input
gradients) hybridized and not, as MXNet 1.9.1's helper checks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import autograd
from .. import initializer as _init
from .compare import assert_almost_equal


class _FromValues(_init.Initializer):
    """Sets every parameter to a recorded value, by full parameter name."""

    def __init__(self, values: dict[str, np.ndarray]) -> None:
        super().__init__()
        self._values = values

    def _init_weight(self, name: Any, arr: Any) -> None:
        arr[()] = self._values[str(name)]

    _init_default = _init_weight


def check_gluon_hybridize_consistency(
    net_builder: Callable[..., Any],
    data_l: Sequence[Any],
    numpy_func: Callable[..., Any] | None = None,
    test_grad: bool = True,
    rtol: float = 1e-4,
    atol: float = 1e-4,
) -> None:
    """Check that a HybridBlock built by ``net_builder(prefix='net_')`` gives the same output,
    and with ``test_grad`` the same input gradients (head gradient: the output), hybridized and
    not, from the same parameter values. The block must not draw random numbers.

    Parameters
    ----------
    net_builder : function
        Builds the block; takes ``prefix``.
    data_l : list of mx.np.ndarray
        The inputs.
    numpy_func : function, optional
        NumPy ground truth of the block, called on the inputs as NumPy arrays. Default None.
    test_grad : bool, optional
        Whether to compare the input gradients too. Default True.
    rtol : float, optional
        Relative tolerance. Default 1E-4.
    atol : float, optional
        Absolute tolerance. Default 1E-4.
    """
    init: Any = None
    ref_out: np.ndarray | None = None
    ref_grads: list[np.ndarray] | None = None
    for hybridize in (False, True):
        for grad in (False, True) if test_grad else (False,):
            net = net_builder(prefix="net_")
            net.initialize(init)
            if hybridize:
                net.hybridize()
            inputs = [d.copy() for d in data_l]
            if grad:
                for d in inputs:
                    d.attach_grad()
                with autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if init is None:
                init = _FromValues({k: v.data().asnumpy() for k, v in net.collect_params().items()})
            if ref_out is None:
                ref_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), ref_out, rtol=rtol, atol=atol)
            if grad:
                grads = [d.grad.asnumpy() for d in inputs]
                if ref_grads is None:
                    ref_grads = grads
                for g, ref in zip(grads, ref_grads):
                    assert_almost_equal(g, ref, rtol=rtol, atol=atol)
    if numpy_func is not None:
        expected = numpy_func(*[d.asnumpy() for d in data_l])
        assert_almost_equal(ref_out, expected, rtol=rtol, atol=atol)
