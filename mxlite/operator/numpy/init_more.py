"""More NumPy-style creation operators (MXNet 1.9.1's np_init_op.cc and np_window_op.cc):
``_npi_indices``, ``_npi_logspace`` and the windows ``_npi_hanning``, ``_npi_hamming`` and
``_npi_blackman``.

None has an input or a gradient. The shape comes from the parameters under NumPy's rules (a 0
dimension is empty); a window of ``M <= 0`` points is empty, as NumPy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ParamError, Shape
from ..param import DTYPE_NAMES, Param, field
from ..registry import OpTest, register
from ..tensor.misc import ZerosProp
from .init import _CTX_DOC, _NumpyShapes


class IndicesOpParam(Param):
    dimensions: Shape = field(doc="The shape of the grid.")
    dtype: str = field(default="int32", choices=DTYPE_NAMES, doc="Target data type.")
    ctx: str = field(default="", doc=_CTX_DOC)


@register("_npi_indices")
class NpIndicesProp(_NumpyShapes, ZerosProp):
    """An array of grid indices, one sub-array per dimension (``np.indices``); int32 by
    default."""

    param_class = IndicesOpParam
    test = OpTest(params={"dimensions": (2, 3)}, grad=False)

    def out_shape(self) -> Shape:
        dims = tuple(self.param.dimensions)
        return (len(dims), *dims)

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        return xp.indices(shape[1:], dtype=dtype)


class LogspaceParam(Param):
    start: float = field(typename="double", doc="The starting value of the sequence.")
    stop: float = field(typename="double", doc="The ending value of the sequence.")
    num: int = field(doc="Number of samples to generate. Must be non-negative.")
    endpoint: bool = field(default=True, doc="If True, stop is the last sample.")
    base: float = field(default=10.0, typename="double",
                        doc="The base of the log space.")  # fmt: skip
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=DTYPE_NAMES, doc="Target data type.")


@register("_npi_logspace")
class NpLogspaceProp(_NumpyShapes, ZerosProp):
    """``num`` numbers spaced evenly on a log scale, ``base ** start`` to ``base ** stop``
    (``np.logspace``); float32 by default."""

    param_class = LogspaceParam
    test = OpTest(params={"start": 0.0, "stop": 2.0, "num": 5}, grad=False)

    def out_shape(self) -> Shape:
        if self.param.num < 0:
            raise ParamError(f"{self.op_name}: argument 'num' must be >= 0, got "
                             f"{self.param.num}.")  # fmt: skip
        return (self.param.num,)

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        p = self.param
        exps = xp.linspace(p.start, p.stop, p.num, endpoint=p.endpoint, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            return xp.power(p.base, exps).astype(dtype)


class NumpyWindowsParam(Param):
    M: int | None = field(default=None, typename="long",
                          doc="Number of points in the output window.")  # fmt: skip
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=DTYPE_NAMES, doc="Target data type.")


class _WindowProp(_NumpyShapes, ZerosProp):
    """A window of ``M`` points (empty for ``M <= 0``, ``[1]`` for ``M == 1``); float32 by
    default, computed in float64 and cast."""

    param_class = NumpyWindowsParam
    test = OpTest(params={"M": 6}, grad=False)
    numpy_name = ""  # the NumPy function with this window

    def out_shape(self) -> Shape:
        return (max(self.param.M or 0, 0),)

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        return getattr(xp, self.numpy_name)(shape[0]).astype(dtype)


@register("_npi_hanning")
class NpHanningProp(_WindowProp):
    """The Hann window, ``0.5 - 0.5 cos(2 pi n / (M - 1))`` (``np.hanning``)."""

    numpy_name = "hanning"


@register("_npi_hamming")
class NpHammingProp(_WindowProp):
    """The Hamming window, ``0.54 - 0.46 cos(2 pi n / (M - 1))`` (``np.hamming``)."""

    numpy_name = "hamming"


@register("_npi_blackman")
class NpBlackmanProp(_WindowProp):
    """The Blackman window, ``0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))``
    (``np.blackman``)."""

    numpy_name = "blackman"
