"""Keyword parameters of the C++-style iterators (``ImageRecordIter``, ``MNISTIter``): checked
against the iterator's table of defaults, coerced to the default's type (MXNet also takes
them as strings, such as ``data_shape="(3,224,224)"``), with a clear error naming the
iterator and the argument."""

from __future__ import annotations

import ast
import difflib
import warnings
from typing import Any

import numpy as np

from ..base import MXNetError, ParamError

_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


# Arguments whose default is None, and the type a given value takes.
_OPTIONAL = {"data_shape": tuple, "seed_aug": int, "min_aspect_ratio": float, "batch_size": int}


def _coerce(name: str, key: str, value: Any, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                if low not in _TRUE | _FALSE:
                    raise ValueError(value)
                return low in _TRUE
            return bool(value)
        if isinstance(default, int):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(float(value)) if isinstance(value, str) else int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, str):
            return str(value)
        kind = _OPTIONAL.get(key)
        if kind is None or value is None:
            return value
        if kind is tuple:
            return tuple(ast.literal_eval(value) if isinstance(value, str) else value)
        return kind(value)
    except (TypeError, ValueError, SyntaxError) as exc:
        raise ParamError(
            f"{name}: argument '{key}' expects a value like {default!r}, got {value!r}"
        ) from exc


def parse_params(name: str, kwargs: dict, defaults: dict) -> dict:
    """``defaults`` updated with ``kwargs``, each value checked and coerced.

    An unknown argument is ignored with a warning: MXNet's C++ iterators accept and ignore
    them, and scripts (MXNet's own tests among them) pass some.
    """
    out = dict(defaults)
    for key, value in kwargs.items():
        if key not in defaults:
            close = difflib.get_close_matches(key, list(defaults), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            warnings.warn(f"{name}: ignoring unknown argument '{key}'{hint}", stacklevel=3)
            continue
        out[key] = _coerce(name, key, value, defaults[key])
    for key in ("batch_size", "preprocess_threads", "prefetch_buffer", "num_parts"):
        if key in out and out[key] is not None and out[key] < 1:
            raise ParamError(f"{name}: argument '{key}' must be >= 1, got {out[key]}")
    return out


def read_label_list(name: str, path: str, label_width: int) -> dict[int, np.ndarray]:
    """The labels of an image list (``index<TAB>label...<TAB>path`` per line), by index."""
    labels = {}
    try:
        f = open(path)  # noqa: SIM115 - closed below
    except OSError as exc:
        raise MXNetError(f"{name}: cannot read path_imglist {path!r}: {exc.strerror}") from exc
    with f:
        for lineno, line in enumerate(f, 1):
            fields = line.strip().split("\t")
            if fields == [""]:
                continue
            try:
                values = [float(v) for v in fields[1 : 1 + label_width]]
                if len(values) != label_width:
                    raise ValueError
                labels[int(float(fields[0]))] = np.array(values, dtype=np.float32)
            except ValueError as exc:
                raise MXNetError(
                    f"{name}: {path!r} line {lineno}: expected an index and {label_width} "
                    f"label(s), got {line.rstrip()!r}"
                ) from exc
    return labels
