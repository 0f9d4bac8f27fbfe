"""What the model zoo's families share: the named constructors (``resnet18_v1``,
``vgg16_bn``, ...), each its family's ``get_*`` with the variant's arguments fixed, and the
classifier's forward."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...block import HybridBlock


class _Classifier(HybridBlock):
    """A network whose ``features`` block feeds its ``output`` block."""

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return self.output(self.features(x))


def variant(
    get: Callable[..., Any], name: str, title: str, *args: Any, **fixed: Any
) -> Callable[..., Any]:
    """``name(**kwargs)``, which returns ``get(*args, **fixed, **kwargs)``; ``title`` names the
    network in its docstring."""

    def build(**kwargs: Any) -> Any:
        return get(*args, **fixed, **kwargs)

    build.__name__ = build.__qualname__ = name
    build.__module__ = get.__module__
    build.__doc__ = f"{title}; keyword arguments as :func:`{get.__name__}`."
    return build
