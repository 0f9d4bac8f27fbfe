"""``mx.log``: MXNet's logger factory. A named logger gets one handler the first time it is
asked for: a file handler with ``filename``, else a console handler whose lines start with a
coloured level letter, the time, the process id and the calling place, as MXNet prints them
(``W1129 08:30:00 4242 train.py:main:12] message``)."""

from __future__ import annotations

import logging
import warnings

__all__ = ["CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "NOTSET", "get_logger", "getLogger"]

CRITICAL = logging.CRITICAL
ERROR = logging.ERROR
WARNING = logging.WARNING
INFO = logging.INFO
DEBUG = logging.DEBUG
NOTSET = logging.NOTSET

_LETTERS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}


def _colour(level: int) -> str:
    if level >= WARNING:
        return "\x1b[31m"  # red
    return "\x1b[32m" if level >= INFO else "\x1b[34m"  # green, blue


class _Formatter(logging.Formatter):
    """The console format: colour, level letter, time, process, place, then the message."""

    def __init__(self) -> None:
        super().__init__(datefmt="%m%d %H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        head = _colour(record.levelno) + _LETTERS.get(record.levelno, "U")
        self._style._fmt = (
            head + "%(asctime)s %(process)d %(pathname)s:%(funcName)s:%(lineno)d]\x1b[0m"
            " %(message)s"
        )
        return super().format(record)


def get_logger(
    name: str | None = None,
    filename: str | None = None,
    filemode: str | None = None,
    level: int = WARNING,
) -> logging.Logger:
    """A logger set up as MXNet's.

    Parameters
    ----------
    name : str, optional
        Name of the logger; the root logger (left as it is) when None.
    filename : str, optional
        File the logger writes to; the console when None.
    filemode : str, optional
        Mode the file is opened in, default 'a'.
    level : int, default WARNING
        The logger's level (``logging`` levels).
    """
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_init_done", False):
        logger._init_done = True  # type: ignore[attr-defined]
        if filename:
            handler: logging.Handler = logging.FileHandler(filename, filemode or "a")
        else:
            handler = logging.StreamHandler()
            handler.setFormatter(_Formatter())  # colour codes only on the console
        logger.addHandler(handler)
        logger.setLevel(level)
    return logger


def getLogger(  # noqa: N802  (MXNet's deprecated name)
    name: str | None = None,
    filename: str | None = None,
    filemode: str | None = None,
    level: int = WARNING,
) -> logging.Logger:
    """Deprecated name of :func:`get_logger` (same arguments)."""
    warnings.warn(
        "getLogger is deprecated, Use get_logger instead.", DeprecationWarning, stacklevel=2
    )
    return get_logger(name, filename, filemode, level)
