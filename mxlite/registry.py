"""MXNet's ``register`` / ``alias`` / ``create`` pattern, once, for every family of classes that
users name in strings: initializers (``mx.init``), metrics (``mx.metric``), optimizers
(``mx.optimizer``) and KVStores (``mx.kv``).

A :class:`Registry` maps lower-cased names to subclasses of one base class. ``create`` accepts
what MXNet 1.9.1's ``create`` functions accept: an instance (returned as it is), a name (any
case), a dict of keyword arguments naming the class under the family's keyword
(``{"initializer": "xavier", "magnitude": 2}``), or the JSON written by ``dumps()``
(``'["xavier", {"magnitude": 2}]'``). Registering a second class under a taken name replaces
the first with a warning, as MXNet does (notebooks re-run their ``@register`` cells).

Example::

    >>> class Base: pass
    >>> family = Registry(Base, "widget", "mx.widget")
    >>> @family.register
    ... class Knob(Base):
    ...     def __init__(self, size=1):
    ...         self.size = size
    >>> family.create('["knob", {"size": 3}]').size
    3
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

from .base import ParamError

__all__ = [
    "Registry",
    "get_alias_func",
    "get_create_func",
    "get_register_func",
    "get_registry",
]

# every family by its base class: MXNet's module-level functions below reach the same one
_FAMILIES: dict[type, Registry] = {}


class Registry:
    """The classes of one family, by lower-cased name.

    Parameters
    ----------
    base : type
        Every registered class must subclass it; an instance of it passes through ``create``.
    nickname : str
        The family's keyword in ``create(**kwargs)`` and in messages ("initializer").
    where : str
        The public prefix named in error messages ("mx.init").
    """

    def __init__(self, base: type, nickname: str, where: str) -> None:
        self.base = base
        self.nickname = nickname
        self.where = where
        self.classes: dict[str, type] = {}
        _FAMILIES.setdefault(base, self)

    def register(self, klass: type, name: str | None = None) -> type:
        """Register ``klass`` under ``name`` (default: its class name), lower-cased; usable as
        a class decorator."""
        if not (isinstance(klass, type) and issubclass(klass, self.base)):
            raise ParamError(
                f"{self.where}.register: can only register a subclass of "
                f"{self.base.__name__}, got {klass!r}."
            )
        key = (name if name is not None else klass.__name__).lower()
        old = self.classes.get(key)
        if old is not None and old is not klass:
            warnings.warn(
                f"New {self.nickname} {klass.__module__}.{klass.__name__} registered with name "
                f"{key} is overriding existing {self.nickname} {old.__module__}.{old.__name__}",
                UserWarning,
                stacklevel=3,
            )
        self.classes[key] = klass
        return klass

    def alias(self, *aliases: str) -> Callable[[type], type]:
        """Class decorator that registers a class under extra names as well."""

        def decorate(klass: type) -> type:
            for name in aliases:
                self.register(klass, name)
            return klass

        return decorate

    def get(self, name: str) -> type:
        """The class registered as ``name`` (any case)."""
        klass = self.classes.get(name.lower())
        if klass is None:
            raise ParamError(
                f"{self.where}.create: {name.lower()} is not registered as a {self.nickname}; "
                f"known: {sorted(self.classes)}. Register it with {self.where}.register first."
            )
        return klass

    def create(self, *args: Any, **kwargs: Any) -> Any:
        """An instance from a name, an instance, a dict or a JSON config (see the module note);
        the remaining arguments go to the class's constructor."""
        if args:
            spec, args = args[0], args[1:]
        elif self.nickname in kwargs:
            spec = kwargs.pop(self.nickname)
        else:
            raise ParamError(f"{self.where}.create: argument {self.nickname!r} is missing.")
        if isinstance(spec, self.base):
            if args or kwargs:
                raise ParamError(
                    f"{self.where}.create: {self.nickname} is already an instance; further "
                    f"arguments are invalid, got {args} {kwargs}."
                )
            return spec
        if isinstance(spec, dict):
            return self.create(**spec)
        if not isinstance(spec, str):
            raise ParamError(
                f"{self.where}.create: argument {self.nickname!r} must be a name, a "
                f"{self.base.__name__} or a config, got {spec!r}."
            )
        if spec.startswith(("[", "{")):
            if args or kwargs:
                raise ParamError(f"{self.where}.create: a JSON config takes no further arguments.")
            loaded = json.loads(spec)
            if isinstance(loaded, dict):
                return self.create(**loaded)
            return self.create(loaded[0], **loaded[1])
        return self.get(spec)(*args, **kwargs)


def _family(base_class: type, nickname: str) -> Registry:
    found = _FAMILIES.get(base_class)
    return found if found is not None else Registry(base_class, nickname, f"mx.{nickname}")


def get_registry(base_class: type) -> dict[str, type]:
    """A copy of the classes registered for ``base_class`` (lower-cased name -> class)."""
    found = _FAMILIES.get(base_class)
    return dict(found.classes) if found is not None else {}


def get_register_func(base_class: type, nickname: str) -> Callable[..., type]:
    """MXNet's ``register(klass, name=None)`` for the family of ``base_class`` (``nickname``
    names it in messages); the family is the one mxlite's own ``register`` uses, if any."""
    return _family(base_class, nickname).register


def get_alias_func(base_class: type, nickname: str) -> Callable[..., Callable[[type], type]]:
    """MXNet's ``alias(*aliases)`` class decorator for the family of ``base_class``."""
    return _family(base_class, nickname).alias


def get_create_func(base_class: type, nickname: str) -> Callable[..., Any]:
    """MXNet's ``create(*args, **kwargs)`` for the family of ``base_class``: an instance from
    a name, an instance, a dict or a JSON config."""
    return _family(base_class, nickname).create
