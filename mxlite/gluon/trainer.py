"""``mx.gluon.Trainer``: applies an optimizer to a set of Parameters, as MXNet 1.9.1's.

Design note
-----------
Gradients of a parameter held on several contexts are aggregated in one private method,
:meth:`Trainer._allreduce_grads`: through a KVStore when one was given or can be created
(``mxlite.kvstore``, MXNet's rules for when one is made: not for one device with a local
type), else locally, by summing each gradient over the contexts and writing the sum back to
every context, which is what MXNet's 'device' store leaves there. The update then runs one
``mx.optimizer`` updater per context (or on the store, with ``update_on_kvstore``). Optimizer
states are saved in MXNet's pickled format, so files go both ways.
"""

from __future__ import annotations

from typing import Any

from .. import optimizer as opt
from ..base import MXNetError, ParamError, fill_doc
from ..fileio import atomic_write
from ..ndarray import add_n
from .parameter import GluonCheckError, Parameter, ParameterDict

__all__ = ["Trainer"]

# The parameters of step and update, as both document them
_STEP_DOC = fill_doc(
    step_params="""batch_size : int
    Batch size of data processed. Gradient will be normalized by `1/batch_size`.
    Set this to 1 if you normalized loss manually with `loss = mean(loss)`.
ignore_stale_grad : bool, optional, default=False
    If true, ignores Parameters with stale gradient (gradient that has not
    been updated by `backward` after last step) and skip update."""
)


def _create_kvstore(kvstore: Any, num_device: int, arg_params: dict) -> tuple[Any, bool]:
    """(store, update_on_kvstore) as MXNet's ``model._create_kvstore`` picks them; until
    ``mx.kv`` exists, (None, False): gradients are then summed here (local aggregation)."""
    from .. import model

    pick = getattr(model, "_create_kvstore", None)  # mx.model's, once mx.kv exists
    if pick is not None:
        return pick(kvstore, num_device, arg_params)
    if kvstore is not None and (not isinstance(kvstore, str) or "dist" in kvstore):
        raise MXNetError(
            f"Trainer: kvstore {kvstore!r} needs mxlite.kvstore, which is not available; use "
            "'local', 'device' or None."
        )
    return None, False


def _create_sparse_kvstore(kvstore: Any) -> tuple[Any, bool]:
    """The store for row_sparse weights (it always updates them), as mx.model's."""
    from .. import model

    pick = getattr(model, "_create_sparse_kvstore", None)
    if pick is None:
        raise MXNetError(
            "Trainer: row_sparse parameters are updated on a KVStore, and mxlite.kvstore is "
            "not available."
        )
    return pick(kvstore)


class Trainer:
    """Applies an `Optimizer` on a set of Parameters. Trainer should
    be used together with `autograd`.

    .. note::

        For the following cases, updates will always happen on kvstore,
        i.e., you cannot set update_on_kvstore=False.

        - dist kvstore with sparse weights or sparse gradients
        - dist async kvstore
        - `optimizer.lr_scheduler` is not None

    Parameters
    ----------
    params : ParameterDict
        The set of parameters to optimize.
    optimizer : str or Optimizer
        The optimizer to use. See
        `help <https://mxnet.apache.org/api/python/docs/api/optimizer/index.html>`_
        on Optimizer for a list of available optimizers.
    optimizer_params : dict
        Key-word arguments to be passed to optimizer constructor. For example,
        `{'learning_rate': 0.1}`. All optimizers accept learning_rate, wd (weight decay),
        clip_gradient, and lr_scheduler. See each optimizer's
        constructor for a list of additional supported arguments.
    kvstore : str or KVStore
        kvstore type for multi-gpu and distributed training. See help on
        :any:`mxnet.kvstore.create` for more information.
    compression_params : dict
        Specifies type of gradient compression and additional arguments depending
        on the type of compression being used. For example, 2bit compression requires a
        threshold. Arguments would then be {'type':'2bit', 'threshold':0.5}
        See mxnet.KVStore.set_gradient_compression method for more details on gradient
        compression.
    update_on_kvstore : bool, default None
        Whether to perform parameter updates on kvstore. If None, then trainer will choose
        the more suitable option depending on the type of kvstore. If the `update_on_kvstore`
        argument is provided, environment variable `MXNET_UPDATE_ON_KVSTORE` will be ignored.

    Properties
    ----------
    learning_rate : float
        The current learning rate of the optimizer. Given an Optimizer object
        optimizer, its learning rate can be accessed as optimizer.learning_rate.
    """

    def __init__(
        self,
        params: Any,
        optimizer: Any,
        optimizer_params: dict | None = None,
        kvstore: Any = "device",
        compression_params: dict | None = None,
        update_on_kvstore: bool | None = None,
    ) -> None:
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ParamError(
                f"First argument must be a list or dict of Parameters, got {type(params)}."
            )
        self._params: list[Parameter] = []
        self._contains_sparse_weight = False
        self._contains_sparse_grad = False
        self._param2idx: dict[str, int] = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ParamError(
                    "First argument must be a list or dict of Parameters, got list of "
                    f"{type(param)}."
                )
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
            if param._stype != "default":
                self._contains_sparse_weight = True
            if param._grad_stype != "default":
                self._contains_sparse_grad = True
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kv_initialized = False
        self._kvstore: Any = None
        self._update_on_kvstore: bool | None = None
        self._distributed: bool | None = None
        self._params_to_init: list[Parameter] = []
        self._reset_kvstore()

    def _check_contexts(self) -> list:
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise GluonCheckError(
                    f"All Parameters must be initialized on the same set of contexts, but "
                    f"Parameter {param.name} is initialized on {ctx} while previous Parameters "
                    f"are initialized on {contexts}."
                )
            contexts = ctx
        return contexts or []

    def _init_optimizer(self, optimizer: Any, optimizer_params: dict) -> None:
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise GluonCheckError(
                    "optimizer_params must be None if optimizer is an instance of Optimizer "
                    "instead of str"
                )
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    def _init_params(self) -> None:
        """Initialize the store's copy of each parameter whose data now exists."""
        if not self._kv_initialized:
            raise GluonCheckError(
                "Cannot initialize parameters in KVStore when KVStore is not initialized."
            )
        pending = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    pending.append(param)
                    continue
                arrays = param._check_and_get(param._data, list)
                idx = self._param2idx[param.name]
                if param._stype != "default":
                    self._kvstore.init(idx, arrays[0])
                else:
                    self._kvstore.broadcast(idx, arrays[0], arrays)
        self._params_to_init = pending

    def _reset_kvstore(self) -> None:
        """Reset kvstore."""
        if self._kvstore and "dist" in self._kvstore.type:
            raise RuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self) -> None:
        """Create kvstore."""
        config = self._kvstore_params
        if self._contains_sparse_weight:
            kvstore, update_on_kvstore = _create_sparse_kvstore(config["kvstore"])
            self._distributed = "dist" in kvstore.type
            if config["update_on_kvstore"] is False:
                raise ParamError(
                    "Cannot set update_on_kvstore=False when sparse weights are present."
                )
            self._finish_kvstore(kvstore, update_on_kvstore)
            return
        arg_arrays = {p.name: p.data(self._contexts[0]) for p in self._params}
        kvstore, update_on_kvstore = _create_kvstore(
            config["kvstore"], len(self._contexts), arg_arrays
        )
        self._distributed = "dist" in kvstore.type if kvstore else False
        if self._contains_sparse_grad:
            update_on_kvstore = self._distributed
            if config["update_on_kvstore"] is not None:
                if config["update_on_kvstore"] is False and self._distributed:
                    raise ParamError(
                        "Cannot set update_on_kvstore=False on dist kvstore when sparse "
                        "gradients are present."
                    )
                update_on_kvstore = config["update_on_kvstore"]
            self._finish_kvstore(kvstore, update_on_kvstore)
            return
        if self._distributed and "async" in kvstore.type:
            update_on_kvstore = True
            if config["update_on_kvstore"] is False:
                raise ParamError("Please set update_on_kvstore=True when training in async mode.")
        if config["update_on_kvstore"] is not None:
            update_on_kvstore = config["update_on_kvstore"]
        if kvstore is not None and update_on_kvstore:
            capable = getattr(kvstore, "is_capable", None)
            if capable is not None and not capable("optimizer"):
                if config["update_on_kvstore"]:
                    raise ParamError(
                        f"Please set update_on_kvstore=False when training with {type(kvstore)}"
                    )
                update_on_kvstore = False
        self._finish_kvstore(kvstore, update_on_kvstore)

    def _finish_kvstore(self, kvstore: Any, update_on_kvstore: bool) -> None:
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _row_sparse_pull(
        self, parameter: Parameter, out: Any, row_id: Any, full_idx: bool = False
    ) -> None:
        """Pull the rows ``row_id`` of a row_sparse ``parameter`` from the store into ``out``
        (every row with ``full_idx``)."""
        self._prepare()
        idx = self._param2idx[parameter.name]
        if full_idx and "dist" not in self._kvstore.type:
            if row_id.size != out.shape[0]:
                raise GluonCheckError("row_sparse_pull: full_idx needs every row id")
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    @property
    def learning_rate(self) -> float:
        return self._optimizer.learning_rate

    @property
    def optimizer(self) -> opt.Optimizer:
        return self._optimizer

    def set_learning_rate(self, lr: float) -> None:
        """Sets a new learning rate of the optimizer.

        Parameters
        ----------
        lr : float
            The new learning rate of the optimizer.
        """
        self._optimizer.set_learning_rate(lr)

    def _check_and_rescale_grad(self, scale: float) -> None:
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning(
                    "Possible change in the `batch_size` from previous `step` detected. "
                    "Optimizer gradient normalizing factor will not change w.r.t new "
                    "batch_size when update_on_kvstore=True and when distributed kvstore is "
                    "used."
                )
        self._optimizer.rescale_grad = scale

    def _prepare(self) -> None:
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    @_STEP_DOC
    def step(self, batch_size: int, ignore_stale_grad: bool = False) -> None:
        """Makes one step of parameter update. Should be called after
        `autograd.backward()` and outside of `record()` scope.

        For normal parameter updates, `step()` should be used, which internally calls
        `allreduce_grads()` and then `update()`. However, if you need to get the reduced
        gradients to perform certain transformation, such as in gradient clipping, then
        you may want to manually call `allreduce_grads()` and `update()` separately.

        Parameters
        ----------
        {step_params}
        """
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self) -> None:
        """For each parameter, reduce the gradients from different contexts.

        Should be called after `autograd.backward()`, outside of `record()` scope,
        and before `trainer.update()`.

        For normal parameter updates, `step()` should be used, which internally calls
        `allreduce_grads()` and then `update()`. However, if you need to get the reduced
        gradients to perform certain transformation, such as in gradient clipping, then
        you may want to manually call `allreduce_grads()` and `update()` separately.
        """
        self._prepare()
        if self._kvstore and self._update_on_kvstore:
            raise GluonCheckError(
                "allreduce_grads() when parameters are updated on kvstore is not supported. "
                "Try setting `update_on_kvstore` to False when creating trainer."
            )
        self._allreduce_grads()

    def _allreduce_grads(self) -> None:
        """Aggregate every gradient over the contexts (the one place the KVStore plugs in)."""
        if self._kvstore is None:
            if len(self._contexts) > 1:
                self._reduce_locally()
            return
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            grads = param.list_grad()
            if grads[0].stype != "default":
                self._kvstore.push(i, grads, priority=-i)
                if param._stype == "default":
                    pull = param.list_data() if self._update_on_kvstore else grads
                    self._kvstore.pull(i, pull, priority=-i, ignore_sparse=self._distributed)
            elif self._update_on_kvstore:
                self._kvstore.pushpull(i, grads, out=param.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, grads, priority=-i)

    def _reduce_locally(self) -> None:
        """Sum each gradient over the contexts into every context's gradient."""
        for param in self._params:
            if param.grad_req == "null":
                continue
            grads = param.list_grad()
            total = add_n(*(g.as_in_context(grads[0].context) for g in grads))
            for g in grads:
                total.copyto(g)

    @_STEP_DOC
    def update(self, batch_size: int, ignore_stale_grad: bool = False) -> None:
        """Makes one step of parameter update.

        Should be called after `autograd.backward()` and outside of `record()` scope,
        and after `trainer.update()`.

        Parameters
        ----------
        {step_params}
        """
        self._prepare()
        if self._kvstore and self._update_on_kvstore:
            raise GluonCheckError(
                "update() when parameters are updated on kvstore is not supported. Try "
                "setting `update_on_kvstore` to False when creating trainer."
            )
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad: bool = False) -> None:
        # amp.init_trainer gives the trainer a loss scaler: a step whose gradients overflowed
        # updates nothing (the scaler lowers its scale for the next one)
        loss_scaler = getattr(self, "_amp_loss_scaler", None)
        if loss_scaler is not None and loss_scaler.has_overflow(self._params):
            return
        updates: list[list] = [[] for _ in self._updaters]
        on_store = bool(self._kvstore and self._update_on_kvstore)
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            if not ignore_stale_grad:
                for data in param._check_and_get(param._data, list):
                    if not getattr(data, "_fresh_grad", False):
                        raise UserWarning(
                            f"Gradient of Parameter `{param.name}` on context {data.context} "
                            "has not been updated by backward since last `step`. This could "
                            "mean a bug in your model that made it only use a subset of the "
                            "Parameters (Blocks) for this iteration. If you are intentionally "
                            "only using a subset, call step with ignore_stale_grad=True to "
                            "suppress this warning and skip updating of Parameters with stale "
                            "gradient"
                        )
            if on_store:
                # every storage type: list_data() refuses row_sparse weights
                for data in param._check_and_get(param._data, list):
                    data._fresh_grad = False
                continue
            for upd, arr, grad in zip(updates, param.list_data(), param.list_grad()):
                if not ignore_stale_grad or getattr(arr, "_fresh_grad", False):
                    upd.append((i, grad, arr))
                    arr._fresh_grad = False
        if on_store:
            return
        for updater, upd in zip(self._updaters, updates):
            if upd:
                idx, grads, weights = zip(*upd)
                updater(list(idx), list(grads), list(weights))

    def save_states(self, fname: str) -> None:
        """Saves trainer states (e.g. optimizer, momentum) to a file.

        Parameters
        ----------
        fname : str
            Path to output states file.

        Note
        ----
        `optimizer.param_dict`, which contains Parameter information (such as
        `lr_mult` and `wd_mult`) will not be saved.
        """
        self._prepare()
        if self._update_on_kvstore:
            if self._params_to_init:
                raise GluonCheckError(
                    "Cannot save trainer states when some parameters are not yet initialized "
                    "in kvstore."
                )
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        with atomic_write(fname, "wb", "Trainer.save_states") as f:
            f.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname: str) -> None:
        """Loads trainer states (e.g. optimizer, momentum) from a file.

        Parameters
        ----------
        fname : str
            Path to input states file.

        Note
        ----
        `optimizer.param_dict`, which contains Parameter information (such as
        `lr_mult` and `wd_mult`) will not be loaded from the file, but rather set
        based on current Trainer's parameters.
        """
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as f:
                states = f.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
