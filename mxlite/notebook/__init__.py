"""``mx.notebook``: training callbacks for Jupyter notebooks (``notebook.callback``): a
pandas log of the metrics and live bokeh charts.

pandas and bokeh are optional (``pip install mxlite[notebook]``) and imported when first
used, as MXNet imports them when it can: without bokeh, ``mx.notebook.bokeh`` is the
stand-in class ``Bokeh_Failed_To_Import``, whose use raises an ImportError naming the extra.
"""

from __future__ import annotations

from typing import Any

from . import callback as callback
from .callback import _Missing, _optional

__all__ = ["callback"]


class Bokeh_Failed_To_Import(metaclass=_Missing):  # noqa: N801  (MXNet's name)
    """What ``mx.notebook.bokeh`` is when bokeh is not installed."""

    library = "bokeh"


def __getattr__(name: str) -> Any:
    if name == "bokeh":  # imported on first use: bokeh is slow to import
        return _optional("bokeh", Bokeh_Failed_To_Import)
    raise AttributeError(f"module 'mxlite.notebook' has no attribute {name!r}")
