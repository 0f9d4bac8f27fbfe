"""The executor manager of MXNet's first training API (``mx.executor_manager``).

``FeedForward`` (``mx.model``) trains through a :class:`DataParallelExecutorManager`: one
executor per device, each bound to a slice of the batch (``_split_input_slice`` sizes the
slices from the work loads), sharing the parameter names; with a ``sym_gen`` (bucketing) one
:class:`DataParallelExecutorGroup` per bucket key, all sharing the default bucket's parameters
and gradients. Module (``mx.mod``) replaced this in MXNet and has its own group
(``module/executor_group.py``); both cut batches with the one ``_split_input_slice`` here.

>>> data = mx.sym.var("data")
>>> net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc"), name="softmax")
>>> it = mx.io.NDArrayIter(np.ones((4, 3)), np.zeros(4), batch_size=4)
>>> m = DataParallelExecutorManager(net, [mx.cpu()], it, net.list_arguments(),
...                                 ["fc_weight", "fc_bias"], [])
>>> [a[0].shape for a in m.param_arrays]
[(2, 3), (2,)]
"""

from __future__ import annotations

import logging
import math
from typing import Any

from . import ndarray as nd
from .base import MXNetError, mx_real_t
from .context import cpu
from .io import DataDesc

__all__ = ["DataParallelExecutorGroup", "DataParallelExecutorManager"]


def _split_input_slice(batch_size: int, work_load_list: list[float]) -> list[slice]:
    """Cut ``range(batch_size)`` into one slice per worker, proportional to its load.

    Parameters
    ----------
    batch_size : int
        The number of samples in a mini-batch.
    work_load_list : list of float or int
        The work load of each device, in the order of the contexts.
    """
    total = sum(work_load_list)
    sizes = [round(w * batch_size / total) for w in work_load_list]
    if sum(sizes) < batch_size:
        sizes[-1] += batch_size - sum(sizes)
    slices = []
    end = 0
    for size in sizes:
        begin = int(min(end, batch_size))
        end = int(min(begin + size, batch_size))
        if begin >= end:
            raise MXNetError(
                f"_split_input_slice: batch size {batch_size} is too small for "
                f"work_load_list {work_load_list}; some devices would get no examples."
            )
        slices.append(slice(begin, end))
    return slices


def _check_arguments(symbol: Any) -> None:
    """Raise ValueError when two arguments (or two auxiliary states) of ``symbol`` share a
    name, as MXNet does before binding a feed-forward network."""
    arg_names = symbol.list_arguments()
    aux_names = symbol.list_auxiliary_states()
    for what, names in (("argument", arg_names), ("auxiliary param", aux_names)):
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ValueError(
                    f'Find duplicated {what} name "{name}", please make the weight name '
                    f"non-duplicated(using name arguments), arguments are {arg_names}"
                    + (f", auxiliary params are {aux_names}" if what != "argument" else "")
                )
            seen.add(name)


def _load_general(data: list[Any], targets: list[Any]) -> None:
    """Copy each array of ``data`` into its target: one NDArray, or a list of
    ``(slice, NDArray)`` pairs that the batch is cut into."""
    for src, dsts in zip(data, targets):
        if isinstance(dsts, nd.NDArray):
            src.copyto(dsts)
            continue
        if dsts[-1][0].stop != src.shape[0]:
            raise MXNetError(
                f"Batch size miss match. Expected {dsts[-1][0].stop}, got {src.shape[0]}"
            )
        for islice, dst in dsts:
            src[islice].copyto(dst)


def _load_data(batch: Any, targets: list[Any]) -> None:
    """Load the data of ``batch`` into (sliced) arrays."""
    _load_general(batch.data, targets)


def _load_label(batch: Any, targets: list[Any]) -> None:
    """Load the labels of ``batch`` into (sliced) arrays."""
    _load_general(batch.label, targets)


def _bind_exec(
    sym: Any,
    ctx: Any,
    input_shapes: dict[str, tuple],
    param_names: list[str],
    need_grad: bool | set = False,
    base_exec: Any = None,
    shared_data_arrays: dict | None = None,
    input_types: dict | None = None,
    logger: Any = logging,
) -> Any:
    """Bind ``sym`` on ``ctx``: parameters (and their gradients) are new, or borrowed from
    ``base_exec``; data and labels reuse the arrays of ``shared_data_arrays`` when big enough."""
    arg_shapes, _, aux_shapes = sym.infer_shape(**input_shapes)
    if arg_shapes is None:
        raise MXNetError(f"_bind_exec: input shapes {input_shapes} do not determine every shape.")
    if input_types is None:
        input_types = dict.fromkeys(input_shapes, mx_real_t)
    arg_types, _, aux_types = sym.infer_type(**input_types)
    arg_names = sym.list_arguments()
    if need_grad is False:
        need_grad = set()
    elif need_grad is True:
        need_grad = set(arg_names) - set(input_shapes)
    elif not isinstance(need_grad, set):
        raise MXNetError(
            f"_bind_exec: need_grad must be a bool or a set, got {type(need_grad).__name__}."
        )
    grad_req = {name: "write" if name in need_grad else "null" for name in arg_names}
    arg_arrays = []
    grad_arrays: dict[str, Any] = {}
    for name, shape, dtype in zip(arg_names, arg_shapes, arg_types):
        if name in param_names:
            if base_exec is None:
                arr = nd.zeros(shape, ctx, dtype=dtype)
                if name in need_grad:
                    grad_arrays[name] = nd.zeros(shape, ctx, dtype=dtype)
            else:
                arr = base_exec.arg_dict[name]
                if arr.shape != tuple(shape) or arr.dtype != dtype:
                    raise MXNetError(
                        f"_bind_exec: parameter {name!r} of the shared executor is "
                        f"{arr.shape} {arr.dtype}, this bucket needs {tuple(shape)} {dtype}."
                    )
                if name in need_grad:
                    grad_arrays[name] = base_exec.grad_dict[name]
        elif shared_data_arrays is not None and name in shared_data_arrays:
            arr = shared_data_arrays[name]
            if math.prod(arr.shape) >= math.prod(shape):
                arr = arr.reshape(shape)
            else:
                logger.warning(
                    'bucketing: data "%s" has a shape %s, which is larger than already '
                    "allocated shape %s. Need to re-allocate. Consider putting "
                    "default_bucket_key to be the bucket taking the largest input for better "
                    "memory sharing.", name, shape, arr.shape,
                )  # fmt: skip
                arr = nd.zeros(shape, ctx, dtype=dtype)
                shared_data_arrays[name] = arr
        else:
            arr = nd.zeros(shape, ctx, dtype=dtype)
            if shared_data_arrays is not None:
                shared_data_arrays[name] = arr
        arg_arrays.append(arr)
    if base_exec is None:
        aux_arrays = [nd.zeros(s, ctx, dtype=t) for s, t in zip(aux_shapes, aux_types)]
    else:
        aux_arrays = list(base_exec.aux_arrays)
    return sym.bind(ctx=ctx, args=arg_arrays, args_grad=grad_arrays, aux_states=aux_arrays,
                    grad_req=grad_req, shared_exec=base_exec)  # fmt: skip


class DataParallelExecutorGroup:
    """A group of executors living on different devices, for data parallelization.

    Parameters
    ----------
    sym : Symbol
        The network configuration.
    arg_names : list of str
        Equals ``sym.list_arguments()``.
    param_names : list of str
        List of names of all trainable parameters.
    ctx : list of Context
        List of devices for training (data parallelization).
    slices : list of slice
        How the data parallelization splits the batch over the devices.
    train_data : DataIter (or DataBatch)
        Anything with ``provide_data`` and ``provide_label``.
    shared_group : DataParallelExecutorGroup, optional
        An existing executor group, to share parameters with.
    """

    def __init__(
        self,
        sym: Any,
        arg_names: list[str],
        param_names: list[str],
        ctx: list[Any],
        slices: list[slice],
        train_data: Any,
        shared_group: DataParallelExecutorGroup | None = None,
    ) -> None:
        _check_arguments(sym)
        if shared_group is None:
            self.shared_data_arrays: list[dict] = [{} for _ in ctx]
        else:
            self.shared_data_arrays = shared_group.shared_data_arrays
        inputs = list(train_data.provide_data) + list(train_data.provide_label)
        self.data_names = [x[0] for x in train_data.provide_data]
        self.label_names = [x[0] for x in train_data.provide_label]
        self.aux_names = sym.list_auxiliary_states()
        self.param_idx = [i for i, name in enumerate(arg_names) if name in param_names]
        self.param_names = [arg_names[i] for i in self.param_idx]
        self.train_execs = []
        for i, ctxi in enumerate(ctx):
            n = slices[i].stop - slices[i].start
            shapes = {x[0]: (n, *x[1][1:]) for x in inputs}
            types = {x[0]: x.dtype if isinstance(x, DataDesc) else mx_real_t for x in inputs}
            shared = None if shared_group is None else shared_group.train_execs[i]
            self.train_execs.append(_bind_exec(
                sym, ctxi, shapes, self.param_names, need_grad=True, base_exec=shared,
                shared_data_arrays=self.shared_data_arrays[i], input_types=types,
            ))  # fmt: skip
        execs = self.train_execs
        self.data_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                            for name in self.data_names]  # fmt: skip
        self.label_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                             for name in self.label_names]  # fmt: skip
        self.param_arrays = [[e.arg_arrays[i] for e in execs] for i in self.param_idx]
        self.grad_arrays = [[e.grad_arrays[i] for e in execs] for i in self.param_idx]
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]
        self.slices = slices

    def load_data_batch(self, data_batch: Any) -> None:
        """Load data and labels into arrays."""
        _load_data(data_batch, self.data_arrays)
        _load_label(data_batch, self.label_arrays)

    def forward(self, is_train: bool = False) -> None:
        """Perform a forward pass on each executor."""
        for texec in self.train_execs:
            texec.forward(is_train=is_train)

    def backward(self) -> None:
        """Perform a backward pass on each executor."""
        for texec in self.train_execs:
            texec.backward()

    def update_metric(self, metric: Any, labels: list[Any], pre_sliced: bool = False) -> None:
        """Update evaluation metric with label and current outputs."""
        for k, (texec, islice) in enumerate(zip(self.train_execs, self.slices)):
            part = labels[k] if pre_sliced else [label[islice] for label in labels]
            metric.update(part, texec.outputs)


class DataParallelExecutorManager:
    """Helper class to manage multiple executors for data parallelism.

    Parameters
    ----------
    symbol : Symbol
        Output symbol.
    ctx : list of Context
        Devices to run on.
    train_data : DataIter
        Training data iterator.
    arg_names : list of str
        Name of all arguments of the network.
    param_names : list of str
        Name of all trainable parameters of the network.
    aux_names : list of str
        Name of all auxiliary states of the network.
    work_load_list : list of float or int, optional
        The list of work load for different devices, in the same order as ctx.
    logger : logging logger
        When not specified, default logger will be used.
    sym_gen : callable, optional
        A function that generates new Symbols depending on the bucket key (bucketing).
    """

    def __init__(
        self,
        symbol: Any,
        ctx: list[Any],
        train_data: Any,
        arg_names: list[str],
        param_names: list[str],
        aux_names: list[str],
        work_load_list: list[float] | None = None,
        logger: Any = None,
        sym_gen: Any = None,
    ) -> None:
        logger = logging if logger is None else logger
        logger.info("Start training with %s", str(ctx))
        if work_load_list is None:
            work_load_list = [1] * len(ctx)
        if not isinstance(work_load_list, list) or len(work_load_list) != len(ctx):
            raise MXNetError(
                f"DataParallelExecutorManager: work_load_list must be a list of {len(ctx)} "
                f"loads (one per context), got {work_load_list!r}."
            )
        self.slices = _split_input_slice(train_data.batch_size, work_load_list)
        self.arg_names = arg_names
        self.param_names = param_names
        self.aux_names = aux_names
        self.ctx = ctx
        self.execgrp = DataParallelExecutorGroup(
            symbol, arg_names, param_names, ctx, self.slices, train_data
        )
        self.symbol = symbol
        self.sym_gen = sym_gen
        self.curr_execgrp: DataParallelExecutorGroup | None = None  # set by load_data_batch
        if sym_gen is not None:
            self.execgrp_bucket = {train_data.default_bucket_key: self.execgrp}

    def install_monitor(self, monitor: Any) -> None:
        """Install monitor on all executors."""
        if self.sym_gen is not None:
            raise NotImplementedError("Monitoring is not implemented for bucketing")
        for train_exec in self.execgrp.train_execs:
            monitor.install(train_exec)

    def set_params(self, arg_params: dict[str, Any], aux_params: dict[str, Any]) -> None:
        """Set parameter and aux values on every executor."""
        for texec in self.execgrp.train_execs:
            texec.copy_params_from(arg_params, aux_params)

    def copy_to(self, arg_params: dict[str, Any], aux_params: dict[str, Any]) -> None:
        """Copy the device average of each parameter and auxiliary state into ``arg_params``
        and ``aux_params`` (in place)."""
        for names, blocks, target in ((self.param_names, self.param_arrays, arg_params),
                                      (self.aux_names, self.aux_arrays, aux_params)):  # fmt: skip
            for name, block in zip(names, blocks):
                weight = sum(w.copyto(cpu()) for w in block) / len(block)
                weight.astype(target[name].dtype).copyto(target[name])

    @property
    def param_arrays(self) -> list[list[Any]]:
        """Shared parameter arrays."""
        return self.execgrp.param_arrays

    @property
    def grad_arrays(self) -> list[list[Any]]:
        """Shared gradient arrays."""
        return self.execgrp.grad_arrays

    @property
    def aux_arrays(self) -> list[list[Any]]:
        """Shared aux states."""
        return self.execgrp.aux_arrays

    def load_data_batch(self, data_batch: Any) -> None:
        """Load data and labels into arrays (binding a new group for a new bucket key)."""
        if self.sym_gen is not None:
            key = data_batch.bucket_key
            if key not in self.execgrp_bucket:
                self.execgrp_bucket[key] = DataParallelExecutorGroup(
                    self.sym_gen(key), self.arg_names, self.param_names, self.ctx,
                    self.slices, data_batch, shared_group=self.execgrp,
                )  # fmt: skip
            self.curr_execgrp = self.execgrp_bucket[key]
        else:
            self.curr_execgrp = self.execgrp
        self.curr_execgrp.load_data_batch(data_batch)

    def _current(self) -> DataParallelExecutorGroup:
        if self.curr_execgrp is None:
            raise MXNetError("DataParallelExecutorManager: call load_data_batch first.")
        return self.curr_execgrp

    def forward(self, is_train: bool = False) -> None:
        """Run forward on the current executor."""
        self._current().forward(is_train=is_train)

    def backward(self) -> None:
        """Run backward on the current executor."""
        self._current().backward()

    def update_metric(self, metric: Any, labels: list[Any], pre_sliced: bool = False) -> None:
        """Update metric with the current executor."""
        self._current().update_metric(metric, labels, pre_sliced)
