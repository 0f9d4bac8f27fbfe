"""TensorBoard logging of training metrics (``mx.contrib.tensorboard``).

MXNet 1.9.1 wrote the events through mxboard, which needs MXNet itself and is no longer kept;
here they go through tensorboardX's ``SummaryWriter`` (the optional extra
``pip install mxlite[tensorboard]``), or PyTorch's ``torch.utils.tensorboard`` where that is
installed instead. Without either, making the callback raises an ImportError naming the extra
(MXNet only logged an error, then failed at the first call).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["LogMetricsCallback"]

# the writers tried, in order: (module, what to install)
_WRITERS = (("tensorboardX", "tensorboardX"), ("torch.utils.tensorboard", "torch"))


def _summary_writer(logging_dir: str) -> Any:
    for module, _ in _WRITERS:
        try:
            return importlib.import_module(module).SummaryWriter(logging_dir)
        except ImportError:
            continue
    raise ImportError(
        "mx.contrib.tensorboard.LogMetricsCallback needs a TensorBoard writer: install the "
        "extra with `pip install mxlite[tensorboard]` (tensorboardX)."
    )


class LogMetricsCallback:
    """Log metrics periodically in TensorBoard: a ``batch_end_callback`` or
    ``eval_end_callback`` that writes each metric of ``param.eval_metric`` as a scalar at step
    ``param.epoch``.

    Parameters
    ----------
    logging_dir : str
        TensorBoard event file directory (then ``tensorboard --logdir=path/to/logs``).
    prefix : str, optional
        Prefix for a metric name of `scalar` value (``'<prefix>-<name>'``), e.g. to tell the
        training and evaluation curves of one metric apart.

    Examples
    --------
    >>> batch_end_callbacks = [mx.contrib.tensorboard.LogMetricsCallback('logs/train')]
    ... # doctest: +SKIP
    >>> mod.fit(train, batch_end_callback=batch_end_callbacks)  # doctest: +SKIP
    """

    def __init__(self, logging_dir: str, prefix: str | None = None) -> None:
        self.prefix = prefix
        self.summary_writer = _summary_writer(logging_dir)

    def __call__(self, param: Any) -> None:
        """Callback to log training speed and metrics in TensorBoard."""
        if param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            if self.prefix is not None:
                name = f"{self.prefix}-{name}"
            self.summary_writer.add_scalar(name, value, global_step=param.epoch)
