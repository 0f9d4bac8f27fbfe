"""The base of the symbolic RNN cells: ``RNNParams``, ``BaseRNNCell`` and sequence helpers.

Design note
-----------
A cell builds symbols; it computes nothing. ``cell(inputs, states)`` adds one time step to the
graph and returns ``(output, new_states)``; ``unroll`` repeats that over a sequence. Weights are
``mx.sym.Variable`` nodes kept in an ``RNNParams`` container keyed by their full name
(``prefix + 'i2h_weight'``), so cells that share a container share weights, and the names match
MXNet's (``lstm_i2h_weight``) so checkpoints move between the two.

State kept per cell: ``_counter`` numbers the steps of the current unroll (node names carry
``t0_``, ``t1_``, ...) and ``_init_counter`` numbers the begin states; ``reset()`` zeroes both,
and every ``unroll`` starts with it, then hands on to ``_unroll`` (step by step here; the
cells that unroll otherwise, stacks, fused and modifier cells, override that). ``_modified``
is set on a cell wrapped by a modifier (Zoneout, Residual), which must then be called through
its wrapper.

A sequence is either one Symbol with a time axis (``layout`` 'NTC' or 'TNC') or a list of
per-step symbols; ``_normalize_sequence`` converts between the two.

>>> import mxlite as mx
>>> cell = mx.rnn.LSTMCell(8, prefix='lstm_')
>>> outputs, states = cell.unroll(3, mx.sym.Variable('data'), merge_outputs=True)
>>> outputs.infer_shape(data=(2, 3, 5))[1]
[(2, 3, 8)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ndarray, symbol
from ..base import MXNetError, ShapeError

__all__ = ["BaseRNNCell", "RNNParams"]

# How MXNet documents the ``prefix`` and ``params`` arguments: for the step cells (with the
# default ``{prefix}`` filled in) and, after the ``prefix`` line, for the other cells
_STEP_PREFIX_DOC = """prefix : str, default ``'{prefix}'``
        Prefix for name of layers (and name of weight if params is None).
    params : RNNParams, default None
        Container for weight sharing between cells. Created if None."""
_PREFIX_PARAMS_DOC = """Prefix for names of layers
        (this prefix is also used for names of weights if `params` is None
        i.e. if `params` are being created and not reused)
    params : RNNParams, default None
        Container for weight sharing between cells. Created if None."""


def symbol_steps(inputs: symbol.Symbol, in_axis: int, length: int | None, grouped: Exception):
    """The steps of a sequence Symbol along its time axis ``in_axis``, a list of ``length``
    Symbols (``mx.rnn``'s and Gluon's unroll); raises ``grouped`` for a grouped Symbol."""
    if len(inputs.list_outputs()) != 1:
        raise grouped
    return list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))


def _normalize_sequence(
    length: int | None,
    inputs: Any,
    layout: str,
    merge: bool | None,
    in_layout: str | None = None,
) -> tuple[Any, int]:
    """Return ``inputs`` as one Symbol (``merge`` True), a list of steps (False) or as they
    are (None), with the time axis where ``layout`` puts it, and that axis."""
    if inputs is None:
        raise MXNetError(
            "unroll: argument 'inputs' must be a Symbol or a list of Symbols, got None; "
            "create the input variables before calling unroll."
        )
    if "T" not in layout:
        raise MXNetError(f"unroll: argument 'layout' must contain 'T', got {layout!r}.")
    axis = layout.find("T")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            grouped = MXNetError(
                "unroll: argument 'inputs' is a grouped Symbol; pass list(inputs) or a "
                "single Symbol with a time axis."
            )
            inputs = symbol_steps(inputs, in_axis, length, grouped)
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise ShapeError(
                f"unroll: argument 'inputs' has {len(inputs)} steps; length={length} needs as many."
            )
        if merge is True:
            steps = [symbol.expand_dims(i, axis=axis) for i in inputs]
            inputs = symbol.Concat(*steps, dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


class RNNParams:
    """Container for holding variables.

    Used by RNN cells for parameter sharing between cells.

    Parameters
    ----------
    prefix : str
        Names of all variables created by this container will
        be prepended with prefix.
    """

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix
        self._params: dict[str, symbol.Symbol] = {}

    def get(self, name: str, **kwargs: Any) -> symbol.Symbol:
        """Get the variable given a name if one exists or create a new one if missing.

        Parameters
        ----------
        name : str
            name of the variable
        **kwargs :
            more arguments that's passed to symbol.Variable
        """
        full = self._prefix + name
        if full not in self._params:
            self._params[full] = symbol.Variable(full, **kwargs)
        return self._params[full]


class BaseRNNCell:
    """Abstract base class for RNN cells

    Parameters
    ----------
    prefix : str, optional
        Prefix for names of layers
        (this prefix is also used for names of weights if `params` is None
        i.e. if `params` are being created and not reused)
    params : RNNParams, default None.
        Container for weight sharing between cells.
        A new RNNParams container is created if `params` is None.
    """

    # For a cell that only unrolls (fused, bidirectional), what its step's error calls it;
    # ZoneoutCell refuses such cells
    _unsteppable: str | None = None

    def __init__(self, prefix: str = "", params: RNNParams | None = None) -> None:
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def _fc_params(self) -> None:
        """The input-to-hidden and hidden-to-hidden weights and biases of a plain RNN or GRU
        cell, in the order those make them."""
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    def _next_step(self) -> str:
        """Count a step of the current unroll; the prefix of its node names (``lstm_t0_``)."""
        self._counter += 1
        return f"{self._prefix}t{self._counter}_"

    def reset(self) -> None:
        """Reset before re-using the cell for another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", []):
            cell.reset()

    def __call__(self, inputs: symbol.Symbol, states: list) -> tuple[symbol.Symbol, list]:
        """Unroll the RNN for one time step.

        Parameters
        ----------
        inputs : sym.Variable
            input symbol, 2D, batch * num_units
        states : list of sym.Variable
            RNN state from previous step or the output of begin_state().

        Returns
        -------
        output : Symbol
            Symbol corresponding to the output from the RNN when unrolling
            for a single time step.
        states : nested list of Symbol
            The new state of this RNN after this unrolling.
        """
        if self._unsteppable is not None:
            raise NotImplementedError(f"{self._unsteppable} cannot be stepped. Please use unroll")
        raise NotImplementedError(f"{type(self).__name__} does not define one step")

    @property
    def params(self) -> RNNParams:
        """Parameters of this cell"""
        self._own_params = False
        return self._params

    @property
    def state_info(self) -> list:
        """shape and layout information of states"""
        raise NotImplementedError(f"{type(self).__name__} does not define state_info")

    @property
    def state_shape(self) -> list:
        """shape(s) of states"""
        return [ele["shape"] for ele in self.state_info]

    @property
    def _gate_names(self) -> Any:
        """name(s) of gates"""
        return ()

    def _check_not_modified(self, what: str) -> None:
        if self._modified:
            raise MXNetError(
                f"{type(self).__name__}.{what}: this cell is wrapped by a modifier cell "
                "(e.g. ZoneoutCell); call the modifier cell instead."
            )

    def begin_state(self, func: Callable[..., Any] = symbol.zeros, **kwargs: Any) -> list:
        """Initial state for this cell.

        Parameters
        ----------
        func : callable, default symbol.zeros
            Function for creating initial state. Can be symbol.zeros,
            symbol.uniform, symbol.Variable etc.
            Use symbol.Variable if you want to directly
            feed input as states.
        **kwargs :
            more keyword arguments passed to func. For example
            mean, std, dtype, etc.

        Returns
        -------
        states : nested list of Symbol
            Starting states for the first RNN step.
        """
        self._check_not_modified("begin_state")
        states = []
        for info in self.state_info:
            self._init_counter += 1
            # as MXNet: each state's info (shape, __layout__) stays in kwargs for the next
            if info is not None:
                kwargs.update(info)
            name = f"{self._prefix}begin_state_{self._init_counter}"
            states.append(func(name=name, **kwargs))
        return states

    def unpack_weights(self, args: dict) -> dict:
        """Unpack fused weight matrices into separate weight matrices.

        Parameters
        ----------
        args : dict of str -> NDArray
            Dictionary containing packed weights.
            usually from `Module.get_params()[0]`.

        Returns
        -------
        args : dict of str -> NDArray
            Dictionary with unpacked weights associated with
            this cell.

        See Also
        --------
        pack_weights: Performs the reverse operation of this function.
        """
        args = dict(args)
        if not self._gate_names:
            return args
        h = self._num_hidden  # type: ignore[attr-defined]
        for group in ("i2h", "h2h"):
            weight = args.pop(f"{self._prefix}{group}_weight")
            bias = args.pop(f"{self._prefix}{group}_bias")
            for j, gate in enumerate(self._gate_names):
                args[f"{self._prefix}{group}{gate}_weight"] = weight[j * h : (j + 1) * h].copy()
                args[f"{self._prefix}{group}{gate}_bias"] = bias[j * h : (j + 1) * h].copy()
        return args

    def pack_weights(self, args: dict) -> dict:
        """Pack separate weight matrices into a single packed weight.

        Parameters
        ----------
        args : dict of str -> NDArray
            Dictionary containing unpacked weights.

        Returns
        -------
        args : dict of str -> NDArray
            Dictionary with packed weights associated with
            this cell.
        """
        args = dict(args)
        if not self._gate_names:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [args.pop(f"{self._prefix}{group}{g}_{kind}") for g in self._gate_names]
                args[f"{self._prefix}{group}_{kind}"] = ndarray.concatenate(parts)
        return args

    def unroll(
        self,
        length: int,
        inputs: Any,
        begin_state: list | None = None,
        layout: str = "NTC",
        merge_outputs: bool | None = None,
    ) -> tuple[Any, list]:
        """Unroll an RNN cell across time steps.

        Parameters
        ----------
        length : int
            Number of steps to unroll.
        inputs : Symbol, list of Symbol, or None
            If `inputs` is a single Symbol (usually the output
            of Embedding symbol), it should have shape
            (batch_size, length, ...) if layout == 'NTC',
            or (length, batch_size, ...) if layout == 'TNC'.
            If `inputs` is a list of symbols (usually output of
            previous unroll), they should all have shape
            (batch_size, ...).
        begin_state : nested list of Symbol, default None
            Input states created by `begin_state()`
            or output state of another cell.
            Created from `begin_state()` if None.
        layout : str, optional
            `layout` of input symbol. Only used if inputs
            is a single Symbol.
        merge_outputs : bool, optional
            If False, return outputs as a list of Symbols.
            If True, concatenate output across time steps
            and return a single symbol with shape
            (batch_size, length, ...) if layout == 'NTC',
            or (length, batch_size, ...) if layout == 'TNC'.
            If None, output whatever is faster.

        Returns
        -------
        outputs : list of Symbol or Symbol
            Symbol (if `merge_outputs` is True) or list of Symbols
            (if `merge_outputs` is False) corresponding to the output from
            the RNN from this unrolling.
        states : nested list of Symbol
            The new state of this RNN after this unrolling.
            The type of this symbol is same as the output of begin_state().
        """
        self.reset()
        return self._unroll(length, inputs, begin_state, layout, merge_outputs)

    def _unroll(
        self, length: int, inputs: Any, begin_state: Any, layout: str, merge_outputs: Any
    ) -> tuple[Any, list]:
        """:meth:`unroll` after ``reset()`` (which every cell's unroll starts with): here one
        call of the cell per step; the cells that unroll otherwise override this."""
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs: Any, activation: Any, **kwargs: Any) -> symbol.Symbol:
        """Get activation function. Convert if is string"""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)
