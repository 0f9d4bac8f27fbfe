"""Monitor outputs, weights and gradients of executors while training, for debugging.

Design note
-----------
A :class:`Monitor` installs ``stat_helper`` as an executor's monitor callback
(``Executor.set_monitor_callback``). The executor calls it as MXNet's C API does, with the name
(bytes) and an ``NDArrayHandle`` that ``NDArray(handle)`` turns into the array, for every
array a step writes (with ``monitor_all``, also for the arrays a step reads) as it pushes the
step. While a batch is being collected (between :meth:`Monitor.tic` and :meth:`Monitor.toc`,
every ``interval`` batches) the helper queues ``(batch, name, stat_func(array))``; the
statistic is itself an asynchronous operator, so collecting costs no wait. :meth:`Monitor.toc`
adds the statistics of every argument and auxiliary array of the installed executors, then
waits for the queue and turns each statistic into text.

Example::

    mon = mx.mon.Monitor(interval=10, pattern=".*weight|.*output")
    mod.fit(train_iter, monitor=mon, num_epoch=1)   # logs 'Batch: ... fc1_output ...'
"""

from __future__ import annotations

import ctypes
import logging
import re
from collections.abc import Callable
from math import sqrt
from typing import Any

from .base import MXNetError, NDArrayHandle, py_str
from .ndarray import NDArray

__all__ = ["Monitor"]


def _norm_stat(x: NDArray) -> NDArray:
    """The default statistic: the 2-norm divided by sqrt(size), computed asynchronously."""
    from . import ndarray as nd

    return nd.norm(x) / sqrt(x.size)


class Monitor:
    """Monitor inputs, outputs, weights, and gradients for debugging.

    Parameters
    ----------
    interval : int
        Number of batches between printing.
    stat_func : function, optional
        A function that computes statistics of tensors. Takes an `NDArray` and returns an
        `NDArray` (or a list of them). Defaults to ``norm(x)/sqrt(x.size)``.
    pattern : str, default '.*'
        A regular expression specifying which tensors to monitor. Only tensors with names that
        match it are included: '.*weight|.*output' prints all weights and outputs and
        '.*backward.*' all gradients.
    sort : bool, default False
        Sort the results by tensor name in :meth:`toc`.
    monitor_all : bool, default False
        If true, monitor both inputs and outputs of each operator, otherwise outputs only.
    """

    def __init__(
        self,
        interval: int,
        stat_func: Callable[[NDArray], Any] | None = None,
        pattern: str = ".*",
        sort: bool = False,
        monitor_all: bool = False,
    ) -> None:
        if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
            raise MXNetError(f"Monitor: argument 'interval' must be an int >= 1, got {interval!r}.")
        if stat_func is not None and not callable(stat_func):
            raise MXNetError(
                f"Monitor: argument 'stat_func' must be callable, got {type(stat_func).__name__}."
            )
        try:
            self.re_prog = re.compile(pattern)
        except (re.error, TypeError) as exc:
            raise MXNetError(
                f"Monitor: argument 'pattern' must be a regular expression, got {pattern!r} "
                f"({exc})."
            ) from None
        self.stat_func = stat_func if stat_func is not None else _norm_stat
        self.interval = interval
        self.activated = False
        self.queue: list[tuple[int, str, Any]] = []
        self.step = 0
        self.exes: list[Any] = []
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name: bytes, array: Any) -> None:
        """The executor callback, called with MXNet's (name, NDArrayHandle): queue
        ``stat_func(array)`` while a batch is collected."""
        name = py_str(name)
        if not self.activated or not self.re_prog.match(name):
            return
        array = NDArray(ctypes.cast(array, NDArrayHandle), writable=False)
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe: Any) -> None:
        """Install the callback to an executor; several executors may be installed.

        Parameters
        ----------
        exe : mx.executor.Executor
            The Executor (returned by symbol.bind) to install to.
        """
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def _wait_params(self) -> None:
        for exe in self.exes:
            for array in exe.arg_arrays:
                array.wait_to_read()
            for array in exe.aux_arrays:
                array.wait_to_read()

    def tic(self) -> None:
        """Start collecting stats for the current batch. Call before calling forward."""
        if self.step % self.interval == 0:
            self._wait_params()
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self) -> list[tuple[int, str, str]]:
        """End collecting for the current batch and return the results.

        Call after the computation of the current batch.

        Returns
        -------
        res : list of (int, str, str)
            ``(batch, name, statistics as text)`` for every monitored tensor; each value of the
            statistic is followed by a tab.
        """
        if not self.activated:
            return []
        self._wait_params()
        for exe in self.exes:
            symbol = exe._symbol
            for name, array in zip(symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(symbol.list_auxiliary_states(), exe.aux_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda item: item[1])
        res = []
        for step, name, stats in self.queue:
            values = [stats] if isinstance(stats, NDArray) else stats
            if not isinstance(values, list) or not all(isinstance(v, NDArray) for v in values):
                raise MXNetError(
                    f"Monitor.toc: stat_func must return an NDArray or a list of NDArrays; "
                    f"for {name!r} it returned {type(stats).__name__}."
                )
            text = ""
            for v in values:
                text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
            res.append((step, name, text))
        self.queue = []
        return res

    def toc_print(self) -> None:
        """End collecting and log the results (``logging.info``)."""
        for step, name, text in self.toc():
            logging.info(f"Batch: {step:7d} {name:30s} {text:s}")
