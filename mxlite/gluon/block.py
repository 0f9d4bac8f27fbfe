"""Gluon blocks (``mx.gluon.block``): ``Block``, ``HybridBlock`` and ``SymbolBlock``, as MXNet
1.9.1's module holds them (defined in ``block_core.py``, ``hybrid_block.py`` and
``symbol_block.py``)."""

from .block_core import Block as Block
from .block_core import _BlockScope as _BlockScope
from .hybrid_block import HybridBlock as HybridBlock
from .hybrid_block import _flatten as _flatten
from .hybrid_block import _regroup as _regroup
from .symbol_block import SymbolBlock as SymbolBlock

__all__ = ["Block", "HybridBlock", "SymbolBlock"]
