"""The optimizer base class, its registry, the Updater and the saved-states format.

Design note
-----------
An :class:`Optimizer` turns (index, weight, grad, state) into an in-place update of the
weight, through the fused operators of ``mx.nd`` (``sgd_mom_update``, ``adam_update``, ...)
so each update is one engine operation. It keeps MXNet 1.9.1's attribute names exactly:
:meth:`Updater.get_states` pickles ``(states, optimizer)`` and MXNet's files do the same with
``mxnet.*`` classes, so the object's ``__dict__`` is the file format.

Files written by MXNet name ``mxnet.optimizer.optimizer.SGD``, ``mxnet.ndarray.ndarray.NDArray``
and so on; :func:`loads_states` reads them through mxlite's restricted unpickler
(``mxlite/fileio.py``), which admits registered optimizers, schedulers and NDArrays under
MXNet's names and refuses anything else. :func:`dumps_states` writes the ``mxnet.*`` names
back (protocol 2, whose globals are plain text), so MXNet 1.9.1 loads our files too.

Learning rate and weight decay of parameter ``index``: the global value times the multiplier
found first in ``param_dict[index]``, ``lr_mult[index]``/``wd_mult[index]``, or the entry of
``idx2name[index]``; given ``param_idx2name``, names not ending in ``_weight`` or ``_gamma``
get no weight decay.
"""

from __future__ import annotations

import copyreg
import io
import pickle
import pickletools
import warnings
from typing import Any, ClassVar

import numpy as np

from ..base import MXNetError, ParamError
from ..base import absent_names as _absent_names
from ..fileio import allow, allow_resolver, restricted_loads
from ..registry import Registry
from ..util import is_np_array

__all__ = [
    "Optimizer",
    "register",
    "create",
    "Updater",
    "get_updater",
    "loads_states",
    "dumps_states",
]


class Optimizer:
    """The base class of all optimizers.

    Parameters
    ----------
    rescale_grad : float, optional, default 1.0
        Multiply the gradient with ``rescale_grad`` before updating.
    param_idx2name : dict from int to str, optional
        Maps parameter indices to names, for ``lr_mult`` and ``wd_mult``.
    wd : float, optional, default 0.0
        The weight decay (L2 regularization) coefficient.
    clip_gradient : float, optional
        Clip the gradient to ``[-clip_gradient, clip_gradient]``.
    learning_rate : float, optional, default 0.01
        The initial learning rate.
    lr_scheduler : LRScheduler, optional
        Changes the learning rate as training goes on.
    sym : Symbol, optional
        The symbol whose ``__lr_mult__``/``__wd_mult__`` attributes set multipliers.
    begin_num_update : int, optional, default 0
        The initial number of updates.
    multi_precision : bool, optional, default False
        Keep a float32 master copy of float16 weights and update that.
    param_dict : dict of int -> gluon.Parameter, optional
        Parameters whose ``lr_mult``/``wd_mult`` apply.
    """

    opt_registry: dict[str, type]  # filled by register (below the class)

    def __init__(
        self,
        rescale_grad: float = 1.0,
        param_idx2name: dict | None = None,
        wd: float = 0.0,
        clip_gradient: float | None = None,
        learning_rate: float | None = None,
        lr_scheduler: Any = None,
        sym: Any = None,
        begin_num_update: int = 0,
        multi_precision: bool = False,
        param_dict: dict | None = None,
    ) -> None:
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if self.lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if self.lr_scheduler is not None and learning_rate is not None:
            if self.lr_scheduler.base_lr != learning_rate:
                print(
                    UserWarning(
                        "learning rate from ``lr_scheduler`` has been overwritten by "
                        "``learning_rate`` in optimizer."
                    )
                )
                self.lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult: dict = {}
        self.wd_mult: dict = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts: dict = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise MXNetError(
                f"{type(self).__name__}: param_idx2name must be a dict of parameter indices "
                f"to names, got {type(param_idx2name).__name__}."
            )
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = is_np_array()  # MXNet records the mode it was made in
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ---- registry ---------------------------------------------------------------------------

    @staticmethod
    def register(klass: type) -> type:
        """Register an optimizer class under its lower-cased name (a later class replaces an
        earlier one of the same name with a warning, as MXNet)."""
        return _REGISTRY.register(klass)

    @staticmethod
    def create_optimizer(name: str, **kwargs: Any) -> Optimizer:
        """Instantiate the optimizer registered as ``name`` (case insensitive)."""
        if not isinstance(name, str) or name.lower() not in _REGISTRY.classes:
            raise ParamError(f"Cannot find optimizer {name}")
        return _REGISTRY.create(name, **kwargs)

    # ---- learning rate and weight decay -------------------------------------------------------

    @property
    def learning_rate(self) -> float:
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr: float) -> None:
        """Set a new learning rate (only without an ``lr_scheduler``)."""
        if self.lr_scheduler is not None:
            raise UserWarning(
                "LRScheduler of the optimizer has already been defined. Note that "
                "set_learning_rate can mutate the value of the learning rate of the optimizer "
                "only when the LRScheduler of the optimizer is undefined."
            )
        self.lr = lr

    def set_lr_scale(self, args_lrscale: dict) -> None:
        raise DeprecationWarning

    def set_lr_mult(self, args_lr_mult: dict) -> None:
        """Set per-parameter learning-rate multipliers (by name or index); symbol attributes
        ``__lr_mult__`` come first, then these."""
        self.lr_mult = self._symbol_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    # the parameter names that keep weight decay by default (LARS: only "_weight")
    _decayed: ClassVar[tuple[str, ...]] = ("_weight", "_gamma")

    def set_wd_mult(self, args_wd_mult: dict) -> None:
        """Set per-parameter weight-decay multipliers (by name or index); names given by
        ``param_idx2name`` that end neither in ``_weight`` nor ``_gamma`` get 0."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith(self._decayed)}
        self.wd_mult.update(self._symbol_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _symbol_mults(self, key: str) -> dict[str, float]:
        """The multipliers the symbol's arguments carry as attribute ``key`` (``__lr_mult__``
        or ``__wd_mult__``), by argument name."""
        found: dict[str, float] = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    found[name] = float(attr[name][key])
        return found

    def _set_current_context(self, device_id: int) -> None:
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index: Any) -> None:
        indices = index if isinstance(index, (list, tuple)) else [index]
        for idx in indices:
            if idx not in self._index_update_count:
                self._index_update_count[idx] = self.begin_num_update
            self._index_update_count[idx] += 1
            self.num_update = max(self._index_update_count[idx], self.num_update)

    def _get_lrs(self, indices: list) -> list[float]:
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return self._scaled(lr, indices, self.lr_mult, "lr_mult")

    def _get_lr(self, index: Any) -> float:
        return self._get_lrs([index])[0]

    def _get_wds(self, indices: list) -> list[float]:
        return self._scaled(self.wd, indices, self.wd_mult, "wd_mult")

    def _scaled(self, value: float, indices: list, mults: dict, field: str) -> list[float]:
        """``value`` times each index's multiplier: its Gluon Parameter's ``field``
        (``lr_mult``/``wd_mult``), else ``mults`` by index, else by name (default 1)."""
        values = [value for _ in indices]
        for i, index in enumerate(indices):
            if index in self.param_dict:
                values[i] *= getattr(self.param_dict[index], field)
            elif index in mults:
                values[i] *= mults[index]
            elif index in self.idx2name:
                values[i] *= mults.get(self.idx2name[index], 1.0)
        return values

    def _get_wd(self, index: Any) -> float:
        return self._get_wds([index])[0]

    def _begin(self, index: Any) -> tuple[float, float]:
        """Count one update of ``index``; its learning rate and weight decay."""
        self._update_count(index)
        return self._get_lr(index), self._get_wd(index)

    def _begin_all(self, index: Any, weight: Any, grad: Any, state: Any) -> tuple[list, ...]:
        """:meth:`_begin` for one index or an aggregated list of them (the Updater's call):
        ``(indices, weights, grads, states, lrs, wds)``, each a list."""
        if not isinstance(index, (tuple, list)):
            index, weight, grad, state = [index], [weight], [grad], [state]
        self._update_count(index)
        return index, weight, grad, state, self._get_lrs(index), self._get_wds(index)

    # ---- states and updates -------------------------------------------------------------------

    def create_state(self, index: Any, weight: Any) -> Any:
        """The state (e.g. momentum) kept for ``weight``; None when there is none."""

    # SGD and NAG keep (state, master copy) and name themselves in the float16 warning, as
    # MXNet's do; the others keep (master copy, state)
    _state_then_master: ClassVar[bool] = False
    _warn_name: ClassVar[str] = ""

    def create_state_multi_precision(self, index: Any, weight: Any) -> Any:
        """Like :meth:`create_state`; with ``multi_precision`` and a float16 weight, returns
        ``(float32 master copy, state of the copy)`` (SGD and NAG: the other way round)."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            state = self.create_state(index, master)
            return (state, master) if self._state_then_master else (master, state)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn(
                "Accumulating with float16 in optimizer can lead to poor accuracy or slow "
                "convergence. Consider using multi_precision=True option of the "
                f"{self._warn_name + ' ' if self._warn_name else ''}optimizer",
                stacklevel=2,
            )
        return self.create_state(index, weight)

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        """Update ``weight`` in place from ``grad`` and ``state``."""
        raise NotImplementedError()

    def update_multi_precision(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        """:meth:`update`, through the float32 master copy for float16 weights."""
        if self.multi_precision and weight.dtype == np.float16:
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            from ..ndarray import cast

            cast(master, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    def _use_mp(self, index: Any, weight: Any) -> bool:
        """Whether the update of ``weight`` (the first of an aggregated list) goes through its
        float32 master copy."""
        first = weight[0] if isinstance(index, (tuple, list)) else weight
        return self.multi_precision and first.dtype == np.float16

    def _clip_kwargs(self, kwargs: dict, key: str = "clip_gradient") -> dict:
        if self.clip_gradient:
            kwargs[key] = self.clip_gradient
        return kwargs

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["param_dict"]  # parameters are re-attached by the trainer, as in MXNet
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__ = state
        self.param_dict = {}


class _FusedOptimizer(Optimizer):
    """An optimizer whose fused operators update float16 weights and their float32 master
    copies themselves: :meth:`update` and :meth:`update_multi_precision` both run
    ``_update_impl(index, weight, grad, state, multi_precision)``, for one weight or an
    aggregated list (SGD, NAG, LARS, LAMB)."""

    def _update_impl(
        self, index: Any, weight: Any, grad: Any, state: Any, multi_precision: bool = False
    ) -> None:
        raise NotImplementedError()

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        self._update_impl(index, weight, grad, state, multi_precision=self._use_mp(index, weight))


_REGISTRY = Registry(Optimizer, "optimizer", "mx.optimizer")
# MXNet's public name for the table of registered classes (name -> class).
Optimizer.opt_registry = _REGISTRY.classes
register = Optimizer.register
create = Optimizer.create_optimizer


# ---- the saved-states format ------------------------------------------------------------------


def _resolve_optimizer(module: str, name: str) -> type | None:
    """Admit to states files every registered optimizer (``mx.optimizer.register``), under
    MXNet's module paths, mxlite's, and the module that defines it (a user's class)."""
    klass = _REGISTRY.classes.get(name.lower())
    if klass is None or klass.__name__ != name:
        return None
    if module.startswith(("mxnet.optimizer", "mxlite.optimizer")) or module == klass.__module__:
        return klass
    return None


allow_resolver(_resolve_optimizer)
allow(Optimizer, "mxnet.optimizer.optimizer.Optimizer", "mxnet.optimizer.Optimizer")


def loads_states(data: bytes, what: str = "Updater.set_states") -> Any:
    """Unpickle optimizer states written by MXNet 1.9.1 or by mxlite (restricted: see
    ``mxlite.fileio``)."""
    return restricted_loads(data, what)


def _mxnet_module(obj_module: str, name: str) -> str | None:
    if obj_module.startswith("mxlite.optimizer"):
        return "mxnet.optimizer.optimizer"
    if obj_module == "mxlite.ndarray.ndarray" and name == "NDArray":
        return "mxnet.ndarray.ndarray"
    if obj_module == "mxlite.lr_scheduler":
        return "mxnet.lr_scheduler"
    return None


class _StatesPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        from ..ndarray import NDArray

        if type(obj) is NDArray:
            # MXNet's NDArray.__setstate__ needs a writable buffer: a bytearray, as it writes
            state = obj.__getstate__()
            return copyreg.__newobj__, (NDArray,), {"handle": bytearray(state["handle"])}
        return NotImplemented


def dumps_states(obj: Any) -> bytes:
    """Pickle ``obj`` naming MXNet's classes, so that MXNet 1.9.1 and mxlite both load it.

    Protocol 2 writes each global as text (``c<module>\\n<name>\\n``) and has no frames, so the
    mxlite module names can be replaced in the byte stream without touching anything else.
    """
    buf = io.BytesIO()
    _StatesPickler(buf, protocol=2).dump(obj)
    raw = buf.getvalue()
    out = io.BytesIO()
    last = 0
    for op, arg, pos in pickletools.genops(raw):
        if op.name != "GLOBAL":
            continue
        module, name = arg.split(" ", 1)
        new_module = _mxnet_module(module, name)
        if new_module is None:
            continue
        end = pos + 1 + len(module) + 1 + len(name) + 1
        out.write(raw[last:pos])
        out.write(b"c" + new_module.encode() + b"\n" + name.encode() + b"\n")
        last = end
    out.write(raw[last:])
    return out.getvalue()


class Updater:
    """Applies an optimizer to (index, grad, weight) triples, keeping one state per index
    (the updater of KVStore and Module)."""

    def __init__(self, optimizer: Optimizer) -> None:
        self.optimizer = optimizer
        self.states: dict = {}
        self.states_synced: dict = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index: Any, grad: Any, weight: Any) -> None:
        if not isinstance(index, (list, tuple)):
            indices, grads, weights = [index], [grad], [weight]
        else:
            indices, grads, weights = list(index), list(grad), list(weight)
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode()
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        # an optimizer loaded by set_states may not aggregate (MXNet would loop forever)
        if self.aggregate_updates and self.optimizer.aggregate_num > 0:
            by_dtype: dict = {}
            for i, w, g in zip(indices, weights, grads):
                by_dtype.setdefault(w.dtype, []).append((i, w, g))
            n = self.optimizer.aggregate_num
            for group in by_dtype.values():
                idxs, ws, gs = zip(*group)
                for s in range(0, len(idxs), n):
                    states = [self.states[k] for k in idxs[s : s + n]]
                    self.optimizer.update_multi_precision(
                        idxs[s : s + n], ws[s : s + n], gs[s : s + n], states
                    )
        else:
            for i, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(i, w, g, self.states[i])

    def sync_state_context(self, state: Any, context: Any) -> Any:
        """``state`` with every NDArray moved to ``context``."""
        from ..ndarray import NDArray

        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states: bytes) -> None:
        """Load states pickled by :meth:`get_states` (here or in MXNet 1.9.1)."""
        loaded = loads_states(states)
        if isinstance(loaded, tuple) and len(loaded) == 2:
            self.states, self.optimizer = loaded
        else:
            self.states = loaded
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer: bool = False) -> bytes:
        """The pickled states (and the optimizer, with ``dump_optimizer``), MXNet's format."""
        return dumps_states((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer: Optimizer) -> Updater:
    """The updater closure for ``optimizer`` (used by KVStore and Module)."""
    return Updater(optimizer)


# MXNet's optimizer.py defines every optimizer; here each family has its file
__getattr__ = _absent_names(
    "mxnet.optimizer.optimizer",
    {},
    moved=("AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LAMB", "LARS",
           "LBSGD", "NAG", "Nadam", "RMSProp", "SGD", "SGLD", "Signum", "Test", "ccSGD"),
    home="mxlite.optimizer",
)  # fmt: skip
