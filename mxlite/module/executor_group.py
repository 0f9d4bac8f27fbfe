"""Data parallelism for Module: one executor per context, each on a slice of the batch.

Design note
-----------
A :class:`DataParallelExecutorGroup` binds the symbol once per context with the batch axis of
every data and label input cut to that context's share (``work_load_list`` weights, as
:func:`_split_input_slice` rounds them). ``forward`` copies each slice of the batch into its
executor's input arrays and pushes every executor; the engine runs them side by side. Outputs
and input gradients are concatenated back along the batch axis on request
(``merge_multi_context``).

State: ``execs`` (one per context), ``slices`` (the batch range of each), and for every
parameter the list of its per-context arrays (``param_arrays``, ``grad_arrays``,
``aux_arrays``), which Module's update sums and updates. The per-context copies of a
parameter always hold the same value: set_params writes all of them, and updates apply the
same summed gradient to each.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from .. import ndarray as nd
from ..base import MXNetError
from ..context import Context, cpu
from ..executor_manager import _split_input_slice
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup"]


def _prepare_group2ctxs(group2ctxs: Any, ctx_len: int) -> list[dict | None]:
    """One ``group2ctx`` dict (or None) per executor from Module's ``group2ctxs`` argument.

    A dict maps each ctx_group to one context (the same for every executor) or to a list of
    one context or of ``ctx_len`` contexts (one per executor); a list gives each executor's
    dict directly.
    """
    if group2ctxs is None:
        return [None] * ctx_len
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != ctx_len:
            raise MXNetError(
                f"DataParallelExecutorGroup: argument 'group2ctxs' must have one dict per "
                f"context ({ctx_len}), got {len(group2ctxs)}."
            )
        return list(group2ctxs)
    if isinstance(group2ctxs, dict):
        per_exec: list[dict | None] = [{} for _ in range(ctx_len)]
        for group, value in group2ctxs.items():
            if isinstance(value, Context):
                ctxs = [value] * ctx_len
            elif isinstance(value, (list, tuple)) and len(value) in (1, ctx_len):
                ctxs = list(value) * ctx_len if len(value) == 1 else list(value)
            else:
                raise MXNetError(
                    f"DataParallelExecutorGroup: argument 'group2ctxs'[{group!r}] must be a "
                    f"Context or a list of 1 or {ctx_len} contexts, got {value!r}."
                )
            for i in range(ctx_len):
                per_exec[i][group] = ctxs[i]
        return per_exec
    raise MXNetError(
        "DataParallelExecutorGroup: argument 'group2ctxs' must be a dict of str to Context "
        f"(or to lists of them) or a list of such dicts, got {type(group2ctxs).__name__}."
    )


def _slice_axis(arr: Any, axis: int, islice: slice) -> Any:
    if axis == 0:
        return arr[islice.start : islice.stop]
    return nd.slice_axis(arr, axis=axis, begin=islice.start, end=islice.stop)


def _merge(per_device: list[list[Any]], axes: list[int]) -> list[Any]:
    """Concatenate each output's per-device pieces along its batch axis."""
    merged = []
    for pieces, axis in zip(per_device, axes):
        if axis >= 0 and len(pieces) > 1:
            ctx = pieces[0].context
            merged.append(nd.concat(*[p.as_in_context(ctx) for p in pieces], dim=axis))
        else:
            merged.append(pieces[0])
    return merged


class DataParallelExecutorGroup:
    """A group of executors, one per context, that together run one batch.

    Parameters
    ----------
    symbol : Symbol
        The network.
    contexts : list of Context
        The devices to run on.
    workload : list of float
        Relative share of the batch of each context.
    data_shapes : list of DataDesc
        The data inputs (full batch).
    label_shapes : list of DataDesc or None
        The label inputs (full batch).
    param_names : list of str
        The learnable parameters.
    for_training : bool
        Whether gradients are needed.
    inputs_need_grad : bool
        Whether gradients of the data inputs are needed.
    shared_group : DataParallelExecutorGroup, optional
        A group to share parameters and memory with (bucketing).
    logger : Logger
        Where to log.
    fixed_param_names : list of str, optional
        Parameters that get no gradient.
    grad_req : str, list or dict, optional
        'write', 'add' or 'null'; default 'write'.
    state_names : list of str, optional
        Non-learnable inputs kept across batches.
    group2ctxs : dict of str to Context (or list of Context), or list of such dicts, optional
        The context of each ``ctx_group`` attribute, per executor; handed to ``simple_bind``.
    """

    def __init__(
        self,
        symbol: Any,
        contexts: list[Any],
        workload: list[float] | None,
        data_shapes: list[DataDesc],
        label_shapes: list[DataDesc] | None,
        param_names: list[str],
        for_training: bool,
        inputs_need_grad: bool,
        shared_group: DataParallelExecutorGroup | None = None,
        logger: Any = logging,
        fixed_param_names: list[str] | None = None,
        grad_req: Any = "write",
        state_names: list[str] | None = None,
        group2ctxs: Any = None,
    ) -> None:
        # (name, shape) pairs are accepted as MXNet accepts them
        data_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in data_shapes]
        if label_shapes is not None:
            label_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in label_shapes]
        self.param_names = list(param_names)
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload else [1] * len(self.contexts)
        if len(self.workload) != len(self.contexts):
            raise MXNetError(
                f"DataParallelExecutorGroup: work_load_list has {len(self.workload)} entries "
                f"for {len(self.contexts)} contexts."
            )
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(self.contexts))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.shared_group = shared_group
        self.execs: list[Any] = []
        self._default_execs: list[Any] | None = None
        self.data_arrays: Any = None
        self.label_arrays: Any = None
        self.param_arrays: Any = None
        self.state_arrays: Any = None
        self.grad_arrays: Any = None
        self.aux_arrays: Any = None
        self.input_grad_arrays: Any = None
        self.data_shapes: Any = None
        self.label_shapes: Any = None
        self.data_names: list[str] = []
        self.label_names: list[str] = []
        self.data_layouts: Any = None
        self.label_layouts: Any = None
        self.output_names = symbol.list_outputs()
        self.output_layouts = [
            DataDesc.get_batch_axis(symbol[i].attr("__layout__"))
            for i in range(len(self.output_names))
        ]
        self.num_outputs = len(self.output_names)
        self.batch_size: int = 0
        self.slices: list[slice] = []
        self._total_exec_bytes = 0
        self.grad_req = self._grad_reqs(grad_req, data_shapes, label_shapes)
        self._shared_buffers: list[dict] = [{} for _ in self.contexts]
        if shared_group is not None:
            self._shared_buffers = shared_group._shared_buffers
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req: Any, data_shapes: Any, label_shapes: Any) -> dict[str, str]:
        data_names = [d.name for d in data_shapes]
        if not self.for_training:
            return dict.fromkeys(self.arg_names, "null")
        if isinstance(grad_req, str):
            reqs = {}
            for name in self.arg_names:
                if name in self.param_names:
                    reqs[name] = "null" if name in self.fixed_param_names else grad_req
                elif name in data_names:
                    reqs[name] = grad_req if self.inputs_need_grad else "null"
                else:
                    reqs[name] = "null"
            return reqs
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise MXNetError(
                    f"DataParallelExecutorGroup: grad_req has {len(grad_req)} entries for "
                    f"{len(self.arg_names)} arguments."
                )
            return dict(zip(self.arg_names, grad_req))
        if isinstance(grad_req, dict):
            reqs = dict.fromkeys(self.arg_names, "null")
            reqs.update(grad_req)
            return reqs
        raise MXNetError(
            f"DataParallelExecutorGroup: grad_req must be a str, list or dict, "
            f"got {type(grad_req).__name__}."
        )

    # ---- binding ---------------------------------------------------------------------------

    def decide_slices(self, data_shapes: list[DataDesc]) -> list[tuple[DataDesc, int]]:
        """Set ``batch_size`` and ``slices`` from the data; return (desc, batch axis) pairs."""
        axes = [DataDesc.get_batch_axis(d.layout) for d in data_shapes]
        for desc, axis in zip(data_shapes, axes):
            if axis == -1:
                continue
            size = desc.shape[axis]
            if self.batch_size and size != self.batch_size:
                raise MXNetError(
                    f"DataParallelExecutorGroup: all data must have the same batch size: "
                    f"batch_size = {self.batch_size}, but {desc.name} has shape {desc.shape}."
                )
            self.batch_size = size
        self.slices = _split_input_slice(self.batch_size, self.workload)
        return list(zip(data_shapes, axes))

    def _sliced_shape(self, shapes: list[DataDesc], i: int, axes: list[int]) -> list[DataDesc]:
        out = []
        for desc, axis in zip(shapes, axes):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            out.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return out

    def bind_exec(
        self,
        data_shapes: list[DataDesc],
        label_shapes: list[DataDesc] | None,
        shared_group: DataParallelExecutorGroup | None = None,
        reshape: bool = False,
    ) -> None:
        """Bind (or, with ``reshape``, reshape) one executor per context."""
        self.batch_size = 0
        self.data_layouts = [a for _, a in self.decide_slices(data_shapes)]
        if label_shapes:
            self.label_layouts = [a for _, a in self.decide_slices(label_shapes)]
        else:
            self.label_layouts = None
        new_execs = []
        for i, ctx in enumerate(self.contexts):
            dshapes = self._sliced_shape(data_shapes, i, self.data_layouts)
            lshapes = (
                self._sliced_shape(label_shapes, i, self.label_layouts) if label_shapes else []
            )
            if reshape:
                shapes = {d.name: d.shape for d in dshapes + lshapes}
                exe = self._default_execs[i].reshape(allow_up_sizing=True, **shapes)
            else:
                exe = self._bind_ith_exec(i, ctx, dshapes, lshapes, shared_group)
            new_execs.append(exe)
        self.execs = new_execs
        if not reshape:
            self._default_execs = list(new_execs)
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in label_shapes] if label_shapes else []
        self._collect_arrays()

    def _bind_ith_exec(
        self, i: int, ctx: Any, dshapes: list, lshapes: list, shared_group: Any
    ) -> Any:
        shared_exec = shared_group.execs[i] if shared_group is not None else None
        shapes = {d.name: d.shape for d in dshapes + lshapes}
        types = {d.name: d.dtype for d in dshapes + lshapes}
        return self.symbol.simple_bind(
            ctx,
            grad_req=self.grad_req,
            type_dict=types,
            shared_arg_names=self.param_names,
            shared_exec=shared_exec,
            shared_buffer=self._shared_buffers[i],
            group2ctx=self.group2ctxs[i],
            **shapes,
        )

    def reshape(self, data_shapes: list[DataDesc], label_shapes: list[DataDesc] | None) -> None:
        """Rebind for new input shapes, sharing memory with the executors first bound."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self.bind_exec(data_shapes, label_shapes)
        else:
            self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _collect_arrays(self) -> None:
        def per_input(names: list[str]) -> list[list[tuple[slice, Any]]]:
            return [[(s, e.arg_dict[n]) for s, e in zip(self.slices, self.execs)] for n in names]

        self.data_arrays = per_input(self.data_names)
        self.state_arrays = [[e.arg_dict[n] for e in self.execs] for n in self.state_names]
        self.label_arrays = per_input(self.label_names) if self.label_names else None
        self.param_arrays = [
            [e.arg_arrays[i] for e in self.execs]
            for i, name in enumerate(self.arg_names)
            if name in self.param_names
        ]
        if self.for_training:
            self.grad_arrays = [
                [e.grad_arrays[i] for e in self.execs]
                for i, name in enumerate(self.arg_names)
                if name in self.param_names
            ]
        else:
            self.grad_arrays = None
        data_names = [n for n in self.data_names if n in self.arg_names]
        if self.inputs_need_grad:
            self.input_grad_arrays = [
                [e.grad_arrays[self.arg_names.index(n)] for e in self.execs] for n in data_names
            ]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [
            [e.aux_arrays[i] for e in self.execs] for i in range(len(self.aux_names))
        ]

    # ---- parameters ------------------------------------------------------------------------

    def set_params(self, arg_params: dict, aux_params: dict, allow_extra: bool = False) -> None:
        """Copy parameters into every executor."""
        for exe in self.execs:
            exe.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params: dict, aux_params: dict) -> None:
        """Write the mean over devices of each parameter into ``arg_params``/``aux_params``."""
        for names, blocks, target in (
            (self.param_names, self.param_arrays, arg_params),
            (self.aux_names, self.aux_arrays, aux_params),
        ):
            for name, block in zip(names, blocks):
                if len(block) == 1:
                    value = block[0].copyto(cpu())
                else:
                    value = block[0].copyto(cpu())
                    for w in block[1:]:
                        value += w.copyto(cpu())
                    value /= len(block)
                value.astype(target[name].dtype).copyto(target[name])

    # ---- running ---------------------------------------------------------------------------

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Load the batch into the executors and run them forward."""
        _load(data_batch.data, self.data_arrays, self.data_layouts, "data")
        if is_train is None:
            is_train = self.for_training
        if self.label_arrays is not None and data_batch.label:
            _load(data_batch.label, self.label_arrays, self.label_layouts, "label")
        for exe in self.execs:
            exe.forward(is_train=is_train)

    def get_output_shapes(self) -> list[tuple[str, tuple[int, ...]]]:
        """Names and full-batch shapes of the outputs."""
        shapes = []
        for k, name in enumerate(self.output_names):
            shape = list(self.execs[0].outputs[k].shape)
            axis = self.output_layouts[k]
            if axis >= 0 and shape:
                shape[axis] = self.batch_size
            shapes.append((name, tuple(shape)))
        return shapes

    def get_outputs(self, merge_multi_context: bool = True, begin: int = 0, end: Any = None):
        """Outputs of every executor; merged along the batch axis when asked."""
        end = self.num_outputs if end is None else end
        outputs = [[exe.outputs[k] for exe in self.execs] for k in range(begin, end)]
        if merge_multi_context:
            return _merge(outputs, self.output_layouts[begin:end])
        return outputs

    def get_states(self, merge_multi_context: bool = True) -> list:
        """The state inputs, per device or merged."""
        if merge_multi_context:
            raise MXNetError("DataParallelExecutorGroup.get_states: merging states is unsupported.")
        return self.state_arrays

    def set_states(self, states: Any = None, value: Any = None) -> None:
        """Set the state inputs from per-device arrays or a scalar."""
        if states is not None:
            for d_src, d_dst in zip(states, self.state_arrays):
                for src, dst in zip(d_src, d_dst):
                    src.copyto(dst)
        else:
            for d_dst in self.state_arrays:
                for dst in d_dst:
                    dst[:] = value

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gradients of the data inputs."""
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True to get them.")
        if merge_multi_context:
            return _merge(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def backward(self, out_grads: Any = None) -> None:
        """Run backward on every executor, slicing ``out_grads`` by batch."""
        if not self.for_training:
            raise MXNetError("backward: the module was bound with for_training=False.")
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        for i, (exe, islice) in enumerate(zip(self.execs, self.slices)):
            sliced = None
            if out_grads is not None:
                sliced = []
                for grad, axis in zip(out_grads, self.output_layouts):
                    piece = _slice_axis(grad, axis, islice) if axis >= 0 else grad
                    sliced.append(piece.as_in_context(self.contexts[i]))
            exe.backward(out_grads=sliced)

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        """Update ``eval_metric`` with each executor's outputs and its slice of ``labels``."""
        for k, (exe, islice) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_slice = labels[k]
            else:
                axes = self.label_layouts or [0] * len(labels)
                labels_slice = [
                    _slice_axis(lab, axis, islice) if axis >= 0 else lab
                    for lab, axis in zip(labels, axes)
                ]
            eval_metric.update_dict(
                OrderedDict(zip(self.label_names, labels_slice)),
                OrderedDict(zip(self.output_names, exe.outputs)),
            )

    def install_monitor(self, mon: Any) -> None:
        """Install a monitor on every executor."""
        for exe in self.execs:
            mon.install(exe)


def _load(sources: list[Any], targets: list[list[tuple[slice, Any]]], axes: Any, what: str):
    if len(sources) != len(targets):
        raise MXNetError(
            f"DataParallelExecutorGroup.forward: the batch has {len(sources)} {what} arrays, "
            f"the module was bound with {len(targets)}."
        )
    for src, dsts, axis in zip(sources, targets, axes):
        if not isinstance(src, nd.NDArray):
            src = nd.array(src)
        for islice, dst in dsts:
            whole = axis < 0 or (islice.start == 0 and src.shape[axis] == islice.stop)
            piece = src if whole else _slice_axis(src, axis, islice)
            if piece.shape != dst.shape:
                raise MXNetError(
                    f"DataParallelExecutorGroup.forward: {what} of shape {src.shape} does not "
                    f"fit the bound shape {dst.shape} (per device); reshape the module first."
                )
            piece.copyto(dst)
