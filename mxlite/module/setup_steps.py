"""The three set-up steps of every module: ``bind``, ``init_params``, ``init_optimizer``.

A part of :class:`~.base_module.BaseModule` (its base class), in a file of its own. Each step
is written once here, with MXNet 1.9.1's signature and documentation, and makes the checks
that every module kind makes before doing its own work: a second ``bind`` without
``force_rebind`` is logged and ignored, a second ``init_params`` or ``init_optimizer`` without
``force_init`` does nothing, and each step needs the ones before it; ``bind`` keeps its
flags (``for_training``, ``inputs_need_grad``, ``_grad_req``) on the module. The work itself
is the module kind's ``_bind``, ``_init_params`` and ``_init_optimizer``.

How Module differs from the containers when a step is asked for twice, as in MXNet:
``init_params`` warns that the call is ignored (BucketingModule and SequentialModule return
silently), and ``init_optimizer`` logs "ignoring..." where they log "ignoring.".
"""

from __future__ import annotations

import warnings
from typing import Any

from ..base import fill_doc
from ..initializer import Uniform
from .checks import _check_state, _optimizer_is_set

__all__ = ["SetupSteps"]

# The input shapes as bind and Module.reshape document them
SHAPES_DOC = fill_doc(
    shapes="""data_shapes : list of (str, tuple)
    Typically is ``data_iter.provide_data``.
label_shapes : list of (str, tuple)
    Typically is ``data_iter.provide_label``."""
)


class SetupSteps:
    """``bind``, ``init_params`` and ``init_optimizer`` of :class:`~.base_module.BaseModule`."""

    binded: bool
    for_training: bool
    inputs_need_grad: bool
    params_initialized: bool
    optimizer_initialized: bool
    logger: Any
    _grad_req: Any

    _warn_ignored_init_params = False
    _optimizer_set_note = "ignoring."

    @SHAPES_DOC
    def bind(
        self,
        data_shapes: Any,
        label_shapes: Any = None,
        for_training: bool = True,
        inputs_need_grad: bool = False,
        force_rebind: bool = False,
        shared_module: Any = None,
        grad_req: Any = "write",
    ) -> None:
        """Binds the symbols to construct executors. This is necessary before one
        can perform computation with the module.

        Parameters
        ----------
        {shapes}
        for_training : bool
            Default is ``True``. Whether the executors should be bound for training.
        inputs_need_grad : bool
            Default is ``False``. Whether the gradients to the input data need to be computed.
            Typically this is not needed. But this might be needed when implementing composition
            of modules.
        force_rebind : bool
            Default is ``False``. This function does nothing if the executors are already
            bound. But with this ``True``, the executors will be forced to rebind.
        shared_module : Module
            Default is ``None``. This is used in bucketing. When not ``None``, the shared module
            essentially corresponds to a different bucket -- a module with different symbol
            but with the same sets of parameters (e.g. unrolled RNNs with different lengths).
        grad_req : str, list of str, dict of str to str
            Requirement for gradient accumulation. Can be 'write', 'add', or 'null'
            (default to 'write').
        """
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self._bind(data_shapes, label_shapes, force_rebind, shared_module)

    def _bind(
        self, data_shapes: Any, label_shapes: Any, force_rebind: bool, shared_module: Any
    ) -> None:
        """:meth:`bind`'s work, with ``for_training``, ``inputs_need_grad`` and ``_grad_req``
        set."""
        raise NotImplementedError()

    def init_params(
        self,
        initializer: Any = Uniform(0.01),  # noqa: B008 (MXNet's default object)
        arg_params: dict | None = None,
        aux_params: dict | None = None,
        allow_missing: bool = False,
        force_init: bool = False,
        allow_extra: bool = False,
    ) -> None:
        """Initializes the parameters and auxiliary states.

        Parameters
        ----------
        initializer : Initializer
            Called to initialize parameters if needed.
        arg_params : dict
            If not ``None``, should be a dictionary of existing arg_params. Initialization
            will be copied from that.
        aux_params : dict
            If not ``None``, should be a dictionary of existing aux_params. Initialization
            will be copied from that.
        allow_missing : bool
            If ``True``, params could contain missing values, and the initializer will be
            called to fill those missing params.
        force_init : bool
            If ``True``, will force re-initialize even if already initialized.
        allow_extra : boolean, optional
            Whether allow extra parameters that are not needed by symbol.
            If this is True, no error will be thrown when arg_params or aux_params
            contain extra parameters that is not needed by the executor.
        """
        if self.params_initialized and not force_init:
            if self._warn_ignored_init_params:
                warnings.warn(
                    "Parameters already initialized and force_init=False. "
                    "init_params call ignored.",
                    stacklevel=2,
                )
            return
        _check_state(self, "init_params", "binded")
        self._init_params(
            initializer, arg_params, aux_params, allow_missing, force_init, allow_extra
        )
        self.params_initialized = True

    def _init_params(
        self, initializer: Any, arg_params: dict | None, aux_params: dict | None,
        allow_missing: bool, force_init: bool, allow_extra: bool,
    ) -> None:  # fmt: skip
        """:meth:`init_params`'s work, on a bound module."""
        raise NotImplementedError()

    def init_optimizer(
        self,
        kvstore: Any = "local",
        optimizer: Any = "sgd",
        optimizer_params: Any = (("learning_rate", 0.01),),
        force_init: bool = False,
    ) -> None:
        """Installs and initializes optimizers.

        Parameters
        ----------
        kvstore : str or KVStore
            Default `'local'`. On several devices, 'local' and 'device' sum the gradients over
            them and (unless ``MXNET_UPDATE_ON_KVSTORE=0``) update each parameter once; the
            'dist_*' types do so over all the workers of an MPI job; with None every device
            updates its own copy with its own gradient.
        optimizer : str or Optimizer
            Default `'sgd'`
        optimizer_params : dict
            Default `(('learning_rate', 0.01),)`. The default value is not a dictionary,
            just to avoid pylint warning of dangerous default values.
        force_init : bool
            Default ``False``, indicating whether we should force re-initializing the
            optimizer in the case an optimizer is already installed.
        """
        if _optimizer_is_set(self, force_init, self._optimizer_set_note):
            return
        self._init_optimizer(kvstore, optimizer, optimizer_params, force_init)
        self.optimizer_initialized = True

    def _init_optimizer(
        self, kvstore: Any, optimizer: Any, optimizer_params: Any, force_init: bool
    ) -> None:
        """:meth:`init_optimizer`'s work, on a bound module with initialized parameters."""
        raise NotImplementedError()
