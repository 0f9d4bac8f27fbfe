"""Pickles shared with MXNet 1.9.1: the MXNet module path of every class MXNet users pickle.

MXNet's pickles name their classes by MXNet's module paths (``mxnet.ndarray.ndarray.NDArray``,
``mxnet.gluon.parameter.Parameter``, ``mxnet.optimizer.optimizer.SGD``); mxlite's classes keep
the same state layout, some under other module paths (``mxlite.gluon.parameter_core``). The
table below gives, for each MXNet module, the classes it holds and where mxlite has them. It
serves twice:

* at import, every class is admitted to :func:`mxlite.fileio.restricted_loads` under its MXNet
  path, so a pickle MXNet wrote loads without the alias through that unpickler (its
  ``find_class`` maps the names; plain ``pickle.load`` of an ``mxnet.*`` path needs the alias,
  as there is no module ``mxnet`` without it);
* :func:`use_mxnet_names`, called by :func:`mxlite.run.as_mxnet`, makes each class report its
  MXNet module (``__module__``) and puts it in the mxlite module at that path when it is not
  there yet, so that under the alias plain ``pickle.dump`` writes the names MXNet loads.
  Without the alias there is no ``mxnet`` to name, so pickles name mxlite's modules.
"""

from __future__ import annotations

import importlib

from ..fileio import allow

__all__ = ["MXNET_HOMES", "mxnet_classes", "use_mxnet_names"]

# (MXNet's module, the mxlite module that has the names, the class names)
MXNET_HOMES: tuple[tuple[str, str, str], ...] = (
    ("mxnet.ndarray.ndarray", "mxlite.ndarray", "NDArray"),
    ("mxnet.ndarray.sparse", "mxlite.ndarray.sparse", "CSRNDArray RowSparseNDArray"),
    ("mxnet.symbol.symbol", "mxlite.symbol", "Symbol"),
    ("mxnet.context", "mxlite.context", "Context"),
    ("mxnet.io.io", "mxlite.io", "DataBatch DataDesc"),
    (
        "mxnet.lr_scheduler",
        "mxlite.lr_scheduler",
        "LRScheduler FactorScheduler MultiFactorScheduler PolyScheduler CosineScheduler",
    ),
    (
        "mxnet.optimizer.optimizer",
        "mxlite.optimizer",
        "Optimizer Updater SGD Signum FTML LARS LBSGD DCASGD NAG SGLD Adam AdaGrad RMSProp "
        "AdaDelta Ftrl Adamax Nadam LAMB",
    ),
    ("mxnet.gluon.block", "mxlite.gluon", "Block HybridBlock SymbolBlock"),
    ("mxnet.gluon.block", "mxlite.gluon.block_core", "_BlockScope"),
    ("mxnet.gluon.parameter", "mxlite.gluon", "Parameter Constant ParameterDict"),
    (
        "mxnet.gluon.nn.basic_layers",
        "mxlite.gluon.nn",
        "Sequential HybridSequential Dense Dropout BatchNorm BatchNormReLU Embedding Flatten "
        "InstanceNorm LayerNorm GroupNorm Lambda HybridLambda",
    ),
    (
        "mxnet.gluon.nn.conv_layers",
        "mxlite.gluon.nn",
        "Conv1D Conv2D Conv3D Conv1DTranspose Conv2DTranspose Conv3DTranspose MaxPool1D "
        "MaxPool2D MaxPool3D AvgPool1D AvgPool2D AvgPool3D GlobalMaxPool1D GlobalMaxPool2D "
        "GlobalMaxPool3D GlobalAvgPool1D GlobalAvgPool2D GlobalAvgPool3D ReflectionPad2D",
    ),
    (
        "mxnet.gluon.nn.activations",
        "mxlite.gluon.nn",
        "Activation LeakyReLU PReLU ELU SELU Swish GELU",
    ),
    (
        "mxnet.gluon.rnn.rnn_cell",
        "mxlite.gluon.rnn",
        "RecurrentCell HybridRecurrentCell RNNCell LSTMCell GRUCell SequentialRNNCell "
        "HybridSequentialRNNCell DropoutCell ModifierCell ZoneoutCell ResidualCell "
        "BidirectionalCell",
    ),
    ("mxnet.gluon.rnn.rnn_layer", "mxlite.gluon.rnn", "RNN LSTM GRU"),
)


def mxnet_classes() -> list[tuple[type, str, str]]:
    """``(mxlite class, MXNet module, name)`` for every class of :data:`MXNET_HOMES` that
    mxlite has."""
    found = []
    for mx_module, where, names in MXNET_HOMES:
        namespace = importlib.import_module(where)
        for name in names.split():
            cls = getattr(namespace, name, None)
            if isinstance(cls, type):
                found.append((cls, mx_module, name))
    return found


def use_mxnet_names() -> None:
    """Make ``pickle`` name MXNet's module paths for these classes (under the alias only: it
    needs ``import mxnet.<path>`` to give the mxlite module)."""
    for cls, mx_module, name in mxnet_classes():
        module = importlib.import_module("mxlite" + mx_module[len("mxnet") :])
        there = getattr(module, name, None)
        if there is None:
            setattr(module, name, cls)
        elif there is not cls:  # another object has the name: pickle could not find cls
            continue
        cls.__module__ = mx_module


for _cls, _module, _name in mxnet_classes():
    allow(_cls, f"{_module}.{_name}")
