"""``SymbolBlock``: a HybridBlock made from a symbol, such as one ``export`` or MXNet wrote
(imported from ``mx.gluon.block``, as in MXNet 1.9.1)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .. import symbol
from ..base import MXNetError, ParamError
from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol
from .hybrid_block import HybridBlock, _flatten, _regroup
from .parameter_core import GluonCheckError
from .parameter_dict import ParameterDict

__all__ = ["SymbolBlock"]


def _common_prefix(names: list[str]) -> str:
    """The longest prefix all ``names`` share."""
    if not names:
        return ""
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


class SymbolBlock(HybridBlock):
    """Construct block from symbol. This is useful for using pre-trained models
    as feature extractors. For example, you may want to extract the output
    from fc2 layer in AlexNet.

    Parameters
    ----------
    outputs : Symbol or list of Symbol
        The desired output for SymbolBlock.
    inputs : Symbol or list of Symbol
        The Variables in output's argument that should be used as inputs.
    params : ParameterDict
        Parameter dictionary for arguments and auxililary states of outputs
        that are not inputs.
    """

    @staticmethod
    def imports(
        symbol_file: str,
        input_names: Any,
        param_file: str | None = None,
        ctx: Any = None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
    ) -> SymbolBlock:
        """Import model previously saved by `gluon.HybridBlock.export` or
        `Module.save_checkpoint` as a `gluon.SymbolBlock` for use in Gluon.

        Parameters
        ----------
        symbol_file : str
            Path to symbol file.
        input_names : list of str
            List of input variable names
        param_file : str, optional
            Path to parameter file.
        ctx : Context, default None
            The context to initialize `gluon.SymbolBlock` on.
        allow_missing : bool, default False
            Whether to silently skip loading parameters not represents in the file.
        ignore_extra : bool, default False
            Whether to silently ignore parameters from the file that are not
            present in this Block.

        Returns
        -------
        gluon.SymbolBlock
            `gluon.SymbolBlock` loaded from symbol and parameter files.
        """
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(i, dtype=np.float32) for i in input_names]
        else:
            inputs = [symbol.var(i) for i in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(
                param_file, ctx, allow_missing, ignore_extra, cast_dtype=True,
                dtype_source="saved",
            )  # fmt: skip
        return ret

    def __repr__(self) -> str:
        inputs, out = self._cached_graph
        return f"{self.__class__.__name__}(\n{out} : {len(inputs)} -> {len(out.list_outputs())}\n)"

    def __init__(self, outputs: Any, inputs: Any, params: ParameterDict | None = None) -> None:
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        input_names = set()
        for s in syms:
            if len(s.get_internals().list_outputs()) != 1:
                raise GluonCheckError(
                    f"Input symbols must be variable, but {s} is an output of operators"
                )
            input_names.add(s.name)
        for o in out:
            for node in o.get_internals():
                if node.attr("__storage_type__") == "1":  # row_sparse
                    raise GluonCheckError(
                        f"SymbolBlock doesn't support Parameter '{node.name}' because its "
                        "storage type is 'row_sparse'."
                    )
        out = symbol.Group(out) if len(out) > 1 else out[0]
        arg_params = out.list_arguments()
        aux_params = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(syms, out, arg_params, aux_params)
        for name, dtype in zip(arg_params, arg_types):
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True, dtype=dtype)
        for name, dtype in zip(aux_params, aux_types):
            if name not in input_names:
                self.params.get(name, grad_req="null", allow_deferred_init=True, dtype=dtype)
        self._cached_graph = (syms, out)
        n = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[n:]: val for key, val in self._params.items()}

    def forward(self, x: Any, *args: Any) -> Any:
        if isinstance(x, NDArray):
            with x.context:
                return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise ParamError(
                "HybridBlock requires the first argument to forward be either Symbol or "
                f"NDArray, but got {type(x)}"
            )
        flat, in_fmt = _flatten([x, *args], "input")
        if in_fmt != self._in_format:
            raise ParamError("SymbolBlock: invalid input format")
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], flat)})
        return _regroup(list(ret), self._out_format)

    def _clear_cached_op(self) -> None:
        graph = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = graph

    def cast(self, dtype: Any) -> None:
        self._clear_cached_op()
        super().cast(dtype)
        if np.dtype(dtype).name != "float16":
            return
        # BatchNorm keeps float32 statistics and scales under float16 data, as in MXNet
        names = self._cached_graph[1].get_internals().list_inputs()
        for node in names:
            for var, mean in (("running_var", "running_mean"), ("moving_var", "moving_mean")):
                if not node.endswith(var):
                    continue
                prefix = node[: -len(var)]
                sibs = [prefix + t for t in (mean, "gamma", "beta")]
                if all(p in names for p in sibs):
                    for p in (node, *sibs):
                        self.params.get(p).cast("float32")

    def hybrid_forward(self, F: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def reset_ctx(self, ctx: Any) -> None:
        """Re-assign all Parameters to other contexts."""
        for p in self.collect_params().values():
            p.reset_ctx(ctx)
        self._clear_cached_op()


def _infer_param_types(
    in_params: list, out_params: Any, arg_params: list, aux_params: list
) -> tuple[list, list]:
    """The dtypes of the arguments and auxiliary states, inferred from the inputs' dtypes
    when they are given (float32 otherwise)."""
    arg_types = aux_types = None
    known = {}
    for p in in_params:
        t = p.infer_type()[0]
        if not t:
            known = None
            break
        known[p.name] = t[0]
    if known is not None:
        try:
            arg_types, _, aux_types = out_params.infer_type(**known)
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_params):
        arg_types = [np.float32] * len(arg_params)
    if aux_types is None or len(aux_types) != len(aux_params):
        aux_types = [np.float32] * len(aux_params)
    return arg_types, aux_types
