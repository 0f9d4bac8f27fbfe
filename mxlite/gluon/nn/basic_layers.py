"""Basic neural network layers (``mx.gluon.nn``), as MXNet 1.9.1's ``basic_layers.py``, with
``Identity`` and the ``Concatenate`` containers that MXNet keeps in ``gluon.contrib.nn``."""

from __future__ import annotations

import warnings
from typing import Any

from ... import ndarray as nd
from ... import symbol as sym
from ...util import is_np_array
from ..block import Block, HybridBlock
from ..parameter import GluonCheckError
from ..utils import _indent
from .activations import Activation
from .normalization_layers import BatchNorm as BatchNorm
from .normalization_layers import BatchNormReLU as BatchNormReLU
from .normalization_layers import GroupNorm as GroupNorm
from .normalization_layers import InstanceNorm as InstanceNorm
from .normalization_layers import LayerNorm as LayerNorm
from .normalization_layers import SyncBatchNorm as SyncBatchNorm
from .normalization_layers import __all__ as _NORMALIZATION_LAYERS

__all__ = [
    "Sequential",
    "HybridSequential",
    "Dense",
    "Dropout",
    "Embedding",
    *_NORMALIZATION_LAYERS,  # MXNet's basic_layers defines them; here they have a file
    "Flatten",
    "Lambda",
    "HybridLambda",
    "Concatenate",
    "HybridConcatenate",
    "Identity",
]


def _bias_and_act(block: Any, use_bias: bool, activation: Any, **bias_kwargs: Any) -> None:
    """Dense's and the convolutions' ``bias`` (None without ``use_bias``) and ``act`` (None
    without ``activation``), created in the caller's name scope."""
    block.bias = (
        block.params.get("bias", allow_deferred_init=True, **bias_kwargs) if use_bias else None
    )
    block.act = Activation(activation, prefix=activation + "_") if activation is not None else None


def _children_repr(block: Block) -> str:
    modstr = "\n".join(
        f"  ({key}): {_indent(repr(child), 2)}" for key, child in block._children.items()
    )
    return f"{block.__class__.__name__}(\n{modstr}\n)"


class _SequentialMixin:
    """``add``, indexing, ``len`` and ``repr`` shared by the sequential containers."""

    _summary_transparent = True  # Block.summary lists their children, not them

    def add(self, *blocks: Block) -> None:
        """Adds block on top of the stack."""
        for block in blocks:
            self.register_child(block)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return _children_repr(self)  # type: ignore[arg-type]

    def __getitem__(self, key: Any) -> Any:
        layers = list(self._children.values())[key]  # type: ignore[attr-defined]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)  # type: ignore[attr-defined,call-arg]
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self) -> int:
        return len(self._children)  # type: ignore[attr-defined]


_SEQUENTIAL_EXAMPLE = """

    Example::

        net = nn.{}()
        # use net's name_scope to give child Blocks appropriate names.
        with net.name_scope():
            net.add(nn.Dense(10, activation='relu'))
            net.add(nn.Dense(20))
    """


class Sequential(_SequentialMixin, Block):
    """Stacks Blocks sequentially."""

    __doc__ = (__doc__ or "") + _SEQUENTIAL_EXAMPLE.format("Sequential")

    def forward(self, x: Any) -> Any:
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        """Activates or deactivates `HybridBlock` s recursively. Has no effect on
        non-hybrid children."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(
                f"All children of this Sequential layer '{self.prefix}' are HybridBlocks. "
                "Consider using HybridSequential for the best performance.",
                stacklevel=2,
            )
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stacks HybridBlocks sequentially."""

    __doc__ = (
        (__doc__ or "")
        + _SEQUENTIAL_EXAMPLE.format("HybridSequential")
        + "    net.hybridize()\n    "
    )

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    r"""Just your regular densely-connected NN layer:
    ``output = activation(dot(input, weight) + bias)``.

    Parameters
    ----------
    units : int
        Dimensionality of the output space.
    activation : str
        Activation function to use. See help on `Activation` layer.
        If you don't specify anything, no activation is applied
        (ie. "linear" activation: `a(x) = x`).
    use_bias : bool, default True
        Whether the layer uses a bias vector.
    flatten: bool, default True
        Whether the input tensor should be flattened.
        If true, all but the first axis of input data are collapsed together.
        If false, all but the last axis of input data are kept the same, and the transformation
        applies on the last axis.
    dtype : str or np.dtype, default 'float32'
        Data type of output embeddings.
    weight_initializer : str or `Initializer`
        Initializer for the `kernel` weights matrix.
    bias_initializer: str or `Initializer`
        Initializer for the bias vector.
    in_units : int, optional
        Size of the input data. If not specified, initialization will be
        deferred to the first time `forward` is called and `in_units`
        will be inferred from the shape of input data.
    prefix : str or None
        See document of `Block`.
    params : ParameterDict or None
        See document of `Block`.
    """

    def __init__(
        self,
        units: int,
        activation: str | None = None,
        use_bias: bool = True,
        flatten: bool = True,
        dtype: Any = "float32",
        weight_initializer: Any = None,
        bias_initializer: Any = "zeros",
        in_units: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get(
                "weight", shape=(units, in_units), init=weight_initializer, dtype=dtype,
                allow_deferred_init=True,
            )  # fmt: skip
            _bias_and_act(
                self, use_bias, activation, shape=(units,), init=bias_initializer, dtype=dtype
            )

    def hybrid_forward(self, F: Any, x: Any, weight: Any, bias: Any = None) -> Any:
        inputs = (x, weight) if bias is None else (x, weight, bias)
        fc = F.npx.fully_connected if is_np_array() else F.FullyConnected
        act = fc(
            *inputs, no_bias=bias is None, num_hidden=self._units, flatten=self._flatten,
            name="fwd",
        )  # fmt: skip
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self) -> str:
        shape = self.weight.shape
        layout = f"{shape[1] if shape[1] else None} -> {shape[0]}"
        return f"{self.__class__.__name__}({layout}, {self.act if self.act else 'linear'})"


class Dropout(HybridBlock):
    """Applies Dropout to the input.

    Parameters
    ----------
    rate : float
        Fraction of the input units to drop. Must be a number between 0 and 1.
    axes : tuple of int, default ()
        The axes on which dropout mask is shared. If empty, regular dropout is applied.
    """

    def __init__(self, rate: float, axes: tuple = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        if self._rate > 0:
            dropout = F.npx.dropout if is_np_array() else F.Dropout
            return dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.np.copy(x) if is_np_array() else F.identity(x)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p = {self._rate}, axes={self._axes})"


def _embedding_weight(
    block: Any, input_dim: int, output_dim: int, dtype: Any, weight_initializer: Any,
    sparse_grad: bool, **weight_kwargs: Any,
) -> None:  # fmt: skip
    """The operator keywords and the ``weight`` of Embedding and contrib's SparseEmbedding."""
    block._kwargs = {
        "input_dim": input_dim,
        "output_dim": output_dim,
        "dtype": dtype,
        "sparse_grad": sparse_grad,
    }
    block.weight = block.params.get(
        "weight", shape=(input_dim, output_dim), init=weight_initializer, dtype=dtype,
        grad_stype="row_sparse" if sparse_grad else "default", **weight_kwargs,
    )  # fmt: skip


def _embedding_repr(block: Any) -> str:
    k = block._kwargs
    return f"{block.__class__.__name__}({k['input_dim']} -> {k['output_dim']}, {k['dtype']})"


class Embedding(HybridBlock):
    r"""Turns non-negative integers (indexes/tokens) into dense vectors
    of fixed size. eg. [4, 20] -> [[0.25, 0.1], [0.6, -0.2]]

    Parameters
    ----------
    input_dim : int
        Size of the vocabulary, i.e. maximum integer index + 1.
    output_dim : int
        Dimension of the dense embedding.
    dtype : str or np.dtype, default 'float32'
        Data type of output embeddings.
    weight_initializer : Initializer
        Initializer for the `embeddings` matrix.
    sparse_grad: bool
        If True, gradient w.r.t. weight will be a 'row_sparse' NDArray.
    """

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        dtype: Any = "float32",
        weight_initializer: Any = None,
        sparse_grad: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        _embedding_weight(
            self, input_dim, output_dim, dtype, weight_initializer, sparse_grad,
            allow_deferred_init=True,
        )  # fmt: skip

    def hybrid_forward(self, F: Any, x: Any, weight: Any) -> Any:
        embedding = F.npx.embedding if is_np_array() else F.Embedding
        return embedding(x, weight, name="fwd", **self._kwargs)

    __repr__ = _embedding_repr


class Flatten(HybridBlock):
    r"""Flattens the input to two dimensional.

    Inputs:
        - **data**: input tensor with arbitrary shape `(N, x1, x2, ..., xn)`

    Output:
        - **out**: 2D tensor with shape: `(N, x1 \cdot x2 \cdot ... \cdot xn)`
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return F.npx.batch_flatten(x) if is_np_array() else F.flatten(x)

    def __repr__(self) -> str:
        return self.__class__.__name__


_LAMBDA_DOC = """Wraps an operator or an expression as a {} object.

    Parameters
    ----------
    function : str or function
        Function used in lambda must be one of the following:
        {}"""


class Lambda(Block):
    __doc__ = _LAMBDA_DOC.format(
        "Block",
        """1) the name of an operator that is available in ndarray. For example::

            block = Lambda('tanh')

        2) a function that conforms to ``def function(*args)``. For example::

            block = Lambda(lambda x: nd.LeakyReLU(x, slope=0.1))
    """,
    )

    def __init__(self, function: Any, prefix: str | None = None) -> None:
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise GluonCheckError(f"Function name {function} is not found in ndarray.")
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError(
                f"Unrecognized function in lambda: {function} of type {type(function)}"
            )

    def forward(self, *args: Any) -> Any:
        return self._func_impl(*args)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._func_impl.__name__})"


class HybridLambda(HybridBlock):
    __doc__ = _LAMBDA_DOC.format(
        "HybridBlock",
        """1) The name of an operator that is available in both symbol and ndarray. For
        example::

            block = HybridLambda('tanh')

        2) A function that conforms to ``def function(F, data, *args)``. For example::

            block = HybridLambda(lambda F, x: F.LeakyReLU(x, slope=0.1))
    """,
    )

    def __init__(self, function: Any, prefix: str | None = None) -> None:
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not (hasattr(nd, function) and hasattr(sym, function)):
                raise GluonCheckError(f"Function name {function} is not found in symbol/ndarray.")
            funcs = {sym: getattr(sym, function), nd: getattr(nd, function)}
            self._func = lambda F, *args: funcs[F](*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError(
                f"Unrecognized function in lambda: {function} of type {type(function)}"
            )

    def hybrid_forward(self, F: Any, x: Any, *args: Any) -> Any:
        return self._func(F, x, *args)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._func_name})"


class _ConcatMixin:
    """The ``axis`` constructor shared by the concatenating containers."""

    def __init__(self, axis: int = -1, prefix: str | None = None, params: Any = None) -> None:
        super().__init__(prefix=prefix, params=params)  # type: ignore[call-arg]
        self.axis = axis


_CONCAT_PARAMS_DOC = """

    Parameters
    ----------
    axis : int, default -1
        The axis on which to concatenate the outputs.
    """


class Concatenate(_ConcatMixin, Sequential):
    """Lays `Block` s concurrently: each child gets the same input and their outputs are
    concatenated along ``axis``."""

    __doc__ = (__doc__ or "") + _CONCAT_PARAMS_DOC

    def forward(self, x: Any) -> Any:
        return nd.concat(*(block(x) for block in self._children.values()), dim=self.axis)


class HybridConcatenate(_ConcatMixin, HybridSequential):
    """Lays `HybridBlock` s concurrently: each child gets the same input and their outputs
    are concatenated along ``axis``."""

    __doc__ = (__doc__ or "") + _CONCAT_PARAMS_DOC

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        outs = [block(x) for block in self._children.values()]
        if is_np_array():
            return F.np.concatenate(outs, axis=self.axis)
        return F.concat(*outs, dim=self.axis)


class Identity(HybridBlock):
    """Block that passes through the input directly.

    This block can be used in conjunction with HybridConcatenate
    block for residual connection.
    """

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return x
