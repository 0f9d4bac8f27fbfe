"""``mx.npx.random``: ``seed``, ``bernoulli``, ``uniform_n`` and ``normal_n`` (MXNet 1.9.1's
four), the samplers of :mod:`mxlite.numpy.random` on arrays; ``symbolic`` holds the same for
``mx.sym.npx.random``."""

from __future__ import annotations

import types

from ..numpy.random import _ARRAYS, _SYMBOLS, seed

__all__ = ["seed", "bernoulli", "normal_n", "uniform_n"]

bernoulli = _ARRAYS.bernoulli
normal_n = _ARRAYS.normal_n
uniform_n = _ARRAYS.uniform_n

symbolic = types.ModuleType("mxlite.symbol.numpy_extension.random", __doc__)
symbolic.seed = seed
symbolic.bernoulli = _SYMBOLS.bernoulli
symbolic.normal_n = _SYMBOLS.normal_n
symbolic.uniform_n = _SYMBOLS.uniform_n
