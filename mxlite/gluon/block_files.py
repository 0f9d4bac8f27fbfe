"""The saving and loading of a :class:`~.block_core.Block` (``save_parameters``,
``load_parameters``, ``save``, ``load`` and the deprecated ``save_params``/``load_params``), a
base class of Block kept in its own file.

``save_parameters`` keys files by the structural names (``0.weight``, ``features.3.bias``);
``ParameterDict.save`` by full names. ``save`` writes the block tree and each hybridized
block's traced graph to ``prefix-model.json`` beside the parameters.
"""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from typing import Any

from .. import ndarray
from ..base import ParamError
from ..fileio import atomic_write
from .parameter import GluonCheckError
from .utils import _brief_print_list

__all__ = ["BlockFiles"]


class BlockFiles:
    """The file methods of :class:`~.block_core.Block`."""

    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        """Save parameters to file.

        Saved parameters can only be loaded with `load_parameters`. Note that this
        method only saves parameters, not model structure. If you want to save
        model structures, please use :py:meth:`HybridBlock.export`.

        Parameters
        ----------
        filename : str
            Path to file.
        deduplicate : bool, default False
            If True, save shared parameters only once. Otherwise, if a Block
            contains multiple sub-blocks that share parameters, each of the
            shared parameters will be separately saved for every sub-block.
        """
        params = self._collect_params_with_prefix()
        if deduplicate:
            first: dict[int, str] = {}
            for k, v in params.items():
                first.setdefault(id(v), k)
            keep = set(first.values())
            params = {k: v for k, v in params.items() if k in keep}
        ndarray.save(filename, {key: val._reduce() for key, val in params.items()})

    def save_params(self, filename: str) -> None:
        """[Deprecated] Please use save_parameters."""
        warnings.warn(
            "save_params is deprecated. Please use save_parameters. Note that if you want "
            "load from SymbolBlock later, please use export instead.",
            stacklevel=2,
        )
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_parameters(
        self,
        filename: str,
        ctx: Any = None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
        cast_dtype: bool = False,
        dtype_source: str = "current",
    ) -> None:
        """Load parameters from file previously saved by `save_parameters`.

        Parameters
        ----------
        filename : str
            Path to parameter file.
        ctx : Context or list of Context, default cpu()
            Context(s) to initialize loaded parameters on.
        allow_missing : bool, default False
            Whether to silently skip loading parameters not represents in the file.
        ignore_extra : bool, default False
            Whether to silently ignore parameters from the file that are not
            present in this Block.
        cast_dtype : bool, default False
            Cast the data type of the NDArray loaded from the checkpoint to the dtype
            provided by the Parameter if any.
        dtype_source : str, default 'current'
            must be in {'current', 'saved'}
            Only valid if cast_dtype=True, specify the source of the dtype for casting
            the parameters
        """
        loaded = ndarray.load(filename)
        if not isinstance(loaded, dict):
            raise ParamError(
                f"load_parameters: file '{filename}' holds a list of arrays; it must hold "
                "named arrays (a dict), as save_parameters writes."
            )
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in k for k in loaded):
            # a file of full names, as the deprecated save_params wrote
            self.collect_params().load(
                filename, ctx, allow_missing, ignore_extra, self.prefix,
                cast_dtype=cast_dtype, dtype_source=dtype_source,
            )  # fmt: skip
            return
        if not allow_missing:
            names_of: dict[int, list[str]] = defaultdict(list)
            for k, v in params.items():
                names_of[id(v)].append(k)
            for name, param in params.items():
                if not any(p in loaded for p in names_of[id(param)]):
                    raise GluonCheckError(
                        f"Parameter '{name}' is missing in file '{filename}', which contains "
                        f"parameters: {_brief_print_list(loaded.keys())}. Set "
                        "allow_missing=True to ignore missing parameters."
                    )
        for name, value in loaded.items():
            if name not in params:
                if not ignore_extra:
                    raise ParamError(
                        f"Parameter '{name}' loaded from file '{filename}' is not present in "
                        "ParameterDict, which contains parameters "
                        f"{_brief_print_list(params.keys())}. Set ignore_extra=True to ignore."
                    )
                continue
            params[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    def load_params(
        self,
        filename: str,
        ctx: Any = None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
    ) -> None:
        """[Deprecated] Please use load_parameters."""
        warnings.warn("load_params is deprecated. Please use load_parameters.", stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def save(self, prefix: str) -> None:
        """Save the model architecture and parameters to be loaded again later.

        Saves the model architecture as a nested dictionary where each Block in the model
        is a dictionary and its children are sub-dictionaries; the traced graph of each
        hybridized block is stored with it. Writes ``prefix-model.json`` and
        ``prefix-model.params`` (as :py:meth:`save_parameters`). Blocks that are not
        hybridized (or have not been called since) are saved without a graph.

        Parameters
        ----------
        prefix : str
            The prefix to use in filenames for saving this model:
            <prefix>-model.json and <prefix>-model.params
        """

        def describe(blk: Any, index: list, parent: dict) -> None:
            entry: dict[str, Any] = {"orig_name": blk.name}
            parent[type(blk).__name__.lower() + str(index[0])] = entry
            if _is_hybrid(blk):
                entry["hybridized"] = bool(blk._cached_graph)
                if blk._cached_graph:
                    inputs, out = blk._cached_graph
                    entry["in_format"] = blk._in_format
                    entry["out_format"] = blk._out_format
                    entry["inputs"] = [s.tojson() for s in inputs]
                    entry["symbol"] = out.tojson()
            entry["children"] = {}
            for key, child in blk._children.items():
                index[0] += 1
                entry["children"][child.name] = key
                describe(child, index, entry)

        model: dict[str, Any] = {}
        describe(self, [0], model)
        with atomic_write(prefix + "-model.json", "w", "Block.save") as f:
            f.write(json.dumps(model))
        self.save_parameters(prefix + "-model.params")

    def load(self, prefix: str) -> None:
        """Load a model saved using the `save` API: restores the block names, the children's
        keys and the traced graphs of hybridized blocks, then the parameters.

        Parameters
        ----------
        prefix : str
            The prefix to use in filenames for loading this model:
            <prefix>-model.json and <prefix>-model.params
        """
        from ..symbol import load_json

        with open(prefix + "-model.json", encoding="utf-8") as f:
            model = json.load(f)

        def restore(blk: Any, index: list, parent: dict) -> None:
            entry = parent[type(blk).__name__.lower() + str(index[0])]
            blk._name = entry["orig_name"]
            if _is_hybrid(blk) and entry.get("hybridized"):
                blk._in_format = entry["in_format"]
                blk._out_format = entry["out_format"]
                inputs = [load_json(s) for s in entry["inputs"]]
                blk._cached_graph = (inputs, load_json(entry["symbol"]))
                blk._active = True
            old = blk.params._prefix
            for name in list(blk.params.keys()):
                param = blk.params._params.pop(name)
                blk.params._params[blk.name + "_" + name[len(old) :]] = param
            for child in list(blk._children.values()):
                index[0] += 1
                restore(child, index, entry)
            renamed = {entry["children"][c.name]: c for c in blk._children.values()}
            blk._children.clear()
            blk._children.update(renamed)

        restore(self, [0], model)
        self.load_parameters(prefix + "-model.params")


def _is_hybrid(block: Any) -> bool:
    """Whether ``block`` is a HybridBlock (hybrid_block.py builds on block_core.py)."""
    return hasattr(block, "hybrid_forward")
