"""Parameter structs for operators, in the spirit of ``dmlc::Parameter``.

Design note
-----------
An operator declares its keyword arguments once, as a subclass of :class:`Param` with typed,
documented fields::

    class ActivationParam(Param):
        act_type: str = field(choices=("relu", "sigmoid", "tanh"), doc="Activation function.")

    p = ActivationParam.from_kwargs("Activation", {"act_type": "relu"})

That one declaration parses Python values *and* MXNet's attribute strings (``"(3, 3)"``,
``"True"``, ``"None"``), checks ranges and choices, writes the values back the way MXNet 1.9.1
writes them into symbol JSON (:meth:`Param.to_attrs`), and renders the "Parameters" section of
the generated docstrings (:meth:`Param.doc`).

Policy and state:

- Each subclass becomes a frozen, keyword-only dataclass in ``__init_subclass__`` (no decorator
  needed). At that moment the annotations are resolved once into a table ``name -> parser``
  (:data:`KINDS`, keyed by the kind of annotation), so :meth:`Param.from_kwargs`, which runs on
  every imperative call, is a dict lookup and one small function per keyword.
- A param is immutable and hashable; equality and hash cover the field values (and ``extra``),
  not how they were spelled, so ``kernel=(3, 3)`` and ``kernel="[3,3]"`` give equal params.
  The keys the user gave are kept as given, for :meth:`Param.to_attrs`.
- Keys of the form ``__xxx__`` (``__lr_mult__``, ``__shape__``) are symbol attributes, not
  parameters: ``from_kwargs`` skips them, as dmlc's ``kAllowHidden`` does; the symbol layer keeps
  them as attributes.
- Values follow MXNet's rules (MXNet turns each value into ``str(value)`` and parses that): an int
  field rejects ``3.0`` and ``True``; a boolean takes True/False/1/0 or the strings
  ``"true"``/``"false"``/``"1"``/``"0"`` in any case; a shape takes an int, a tuple or list of
  ints, or a string such as ``"(3, 3)"``, ``"[3,3]"``, ``"(3,)"``, ``"()"`` or ``"3"``. Unlike
  MXNet, an int below ``low`` is rejected even for MXNet's unsigned fields (MXNet wraps ``-2``).
"""

from __future__ import annotations

import dataclasses
import difflib
import operator
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ..base import ParamError
from .param_values import DTYPE_NAMES, KINDS, Bad, attr_text, dtype_name, kind_of

_MISSING = dataclasses.MISSING

__all__ = ["Param", "field", "DTYPE_NAMES"]

# ---------------------------------------------------------------------------------------------
# Field declarations.


@dataclasses.dataclass(frozen=True)
class _Spec:
    """What a field declares, plus the parser resolved from its annotation."""

    doc: str
    low: float | None
    high: float | None
    choices: tuple[str, ...] | None
    typename: str | None
    kind: str = ""
    optional: bool = False
    parse: Callable[[Any], Any] | None = None
    is_dtype: bool = False


def field(
    *,
    default: Any = _MISSING,
    doc: str = "",
    low: float | None = None,
    high: float | None = None,
    choices: tuple[str, ...] | None = None,
    typename: str | None = None,
) -> Any:
    """Declare a parameter field of a :class:`Param` subclass.

    Parameters
    ----------
    default : optional
        The value when the user gives none; leave out for a required field.
    doc : str
        One-sentence description, shown in the operator's docstring.
    low, high : int or float, optional
        Inclusive range of an int or float field.
    choices : tuple of str, optional
        The accepted values of a string field (``DTYPE_NAMES`` or a subset for a dtype).
    typename : str, optional
        The type words in the docstring, where MXNet's differ from the default (``"double"``,
        ``"long (non-negative)"``).
    """
    spec = _Spec(doc, low, high, tuple(choices) if choices is not None else None, typename)
    return dataclasses.field(default=default, metadata={"mxlite_param": spec})


def _checked(spec: _Spec, parse: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Wrap ``parse`` with the field's range (low/high) and choices checks."""
    low, high = spec.low, spec.high
    allowed = frozenset(spec.choices) if spec.choices is not None else None

    def parse_checked(value: Any) -> Any:
        out = parse(value)
        if (low is not None and out < low) or (high is not None and out > high):
            raise Bad
        if allowed is not None and out not in allowed:
            raise Bad
        return out

    return parse_checked


def _optional(parse: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def parse_or_none(value: Any) -> Any:
        if value is None or (isinstance(value, str) and value == "None"):
            return None
        return parse(value)

    return parse_or_none


def _build_parser(name: str, spec: _Spec) -> Callable[[Any], Any]:
    parse = KINDS[spec.kind].parse
    if spec.is_dtype:
        parse = dtype_name
    if (spec.low is not None or spec.high is not None) and spec.kind not in ("int", "float"):
        raise TypeError(f"Param field {name!r}: low/high need an int or float field")
    if spec.choices is not None and spec.kind != "str":
        raise TypeError(f"Param field {name!r}: choices need a str field")
    if spec.low is not None or spec.high is not None or spec.choices is not None:
        parse = _checked(spec, parse)
    return _optional(parse) if spec.optional else parse


def _expectation(spec: _Spec) -> str:
    """What a bad value message says the field expects: 'an int >= 1', "one of 'a', 'b'"."""
    if spec.choices is not None:
        names = ", ".join(repr(c) for c in spec.choices)
        text = f"one of None, {names}" if spec.optional else f"one of {names}"
        return text + (", or a numpy dtype" if spec.is_dtype else "")
    text = KINDS[spec.kind].expect
    if spec.low is not None and spec.high is not None:
        text += f" in [{spec.low}, {spec.high}]"
    elif spec.low is not None:
        text += f" >= {spec.low}"
    elif spec.high is not None:
        text += f" <= {spec.high}"
    return text + (" or None" if spec.optional else "")


def _type_words(spec: _Spec) -> str:
    """The type as MXNet's docstrings write it: 'Shape(tuple)', "{'relu'}", 'int or None'."""
    if spec.typename is not None:
        return spec.typename
    if spec.choices is not None:
        names = ", ".join(repr(c) for c in sorted(spec.choices))
        return "{None, " + names + "}" if spec.optional else "{" + names + "}"
    word = KINDS[spec.kind].words
    if spec.kind == "int" and spec.low is not None and spec.low >= 0:
        word = "int (non-negative)"
    if spec.optional:
        word = ("Shape" if spec.kind == "Shape" else word) + " or None"
    return word


def _default_words(spec: _Spec, value: Any) -> str:
    """A default as MXNet's docstrings write it: bools as 0/1, tuples as [1,1], strings quoted."""
    if value is None:
        return "'None'" if spec.choices is not None or spec.kind == "int" else "None"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, tuple):
        items = (format(v, "g") if isinstance(v, float) else str(v) for v in value)
        return "[" + ",".join(items) + "]"
    return repr(value)


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------------------------
# The base class.


class Param:
    """Base of operator parameter structs; subclasses become frozen keyword-only dataclasses.

    Build instances with :meth:`from_kwargs` (what the registry does on every call) or
    :meth:`default`; calling the class directly also validates and normalises the values.
    """

    allow_unknown: ClassVar[bool] = False  # True keeps unknown keys as strings in ``extra``
    _specs: ClassVar[dict[str, _Spec]] = {}
    _parsers: ClassVar[dict[str, Callable[[Any], Any]]] = {}
    _defaults: ClassVar[dict[str, Any]] = {}
    _names: ClassVar[tuple[str, ...]] = ()
    _default_instance: ClassVar[Param | None] = None
    _values_of: ClassVar[Callable[[dict[str, Any]], Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True, kw_only=True, eq=False)(cls)
        # Param's own __setattr__/__delattr__ keep instances frozen; dropping the generated ones
        # lets a redundant @dataclass(frozen=True) on the subclass add them again without error.
        del cls.__setattr__, cls.__delattr__
        try:
            hints = typing.get_type_hints(cls)
        except NameError as exc:
            raise TypeError(f"{cls.__name__}: cannot resolve a field annotation: {exc}") from None
        specs: dict[str, _Spec] = {}
        defaults: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if hasattr(Param, f.name):
                raise TypeError(f"{cls.__name__}: field name {f.name!r} hides a Param method")
            spec = f.metadata.get("mxlite_param") or _Spec("", None, None, None, None)
            kind, optional = kind_of(hints[f.name])
            is_dtype = (
                kind == "str" and bool(spec.choices) and set(spec.choices) <= set(DTYPE_NAMES)
            )
            spec = dataclasses.replace(spec, kind=kind, optional=optional, is_dtype=is_dtype)
            spec = dataclasses.replace(spec, parse=_build_parser(f.name, spec))
            specs[f.name] = spec
            if f.default is not _MISSING:
                try:
                    defaults[f.name] = spec.parse(f.default)
                except (Bad, ValueError, TypeError):
                    raise TypeError(
                        f"{cls.__name__}: default of {f.name!r} is not {_expectation(spec)}"
                    ) from None
        cls._specs = specs
        cls._parsers = {name: spec.parse for name, spec in specs.items()}
        cls._defaults = defaults
        cls._names = tuple(specs)
        names = cls._names
        cls._values_of = staticmethod(  # type: ignore[assignment]
            operator.itemgetter(*names) if len(names) > 1 else lambda d: tuple(d[n] for n in names)
        )
        cls._default_instance = None
        if len(defaults) == len(specs):
            cls._default_instance = cls._make(dict(defaults), {}, None, None, None)

    def __post_init__(self) -> None:
        # Direct construction: validate like from_kwargs; what differs from the defaults counts
        # as given, for to_attrs.
        d = self.__dict__
        op = type(self).__name__
        given = {}
        for name, spec in self._specs.items():
            value = d[name]
            try:
                d[name] = spec.parse(value)
            except (Bad, ValueError, TypeError, OverflowError):
                raise self._value_error(op, None, name, value) from None
            if name not in self._defaults or d[name] != self._defaults[name]:
                given[name] = value if type(value) is not list else attr_text(value)
        d["_meta"] = (given, None, None, None)

    @classmethod
    def _make(
        cls, values: dict[str, Any], given: dict, extra: dict | None, op: str | None, name: Any
    ) -> Param:
        self = object.__new__(cls)
        # Frozen blocks only __setattr__; filling __dict__ skips it (and __init__) on purpose.
        # _meta: (keys as the user gave them, unknown keys kept as text, op name, node name).
        d = self.__dict__
        d.update(values)
        d["_meta"] = (given, extra, op, name)
        return self

    @classmethod
    def from_kwargs(
        cls,
        op_name: str,
        kwargs: Mapping[str, Any],
        name: str | None = None,
        *,
        allow_hidden: bool = True,
    ) -> Param:
        """Parse an operator's keyword arguments (Python values or MXNet attribute strings).

        Parameters
        ----------
        op_name : str
            The operator, for error messages (``"Convolution"``).
        kwargs : dict of str to value
            The keyword arguments as the user gave them, or the ``attrs`` of a JSON node.
        name : str, optional
            The node's name, for error messages.
        allow_hidden : bool, optional, default=True
            Skip keys of the form ``__xxx__`` (symbol attributes); with False they are unknown.

        Returns
        -------
        Param
            The parsed, validated parameters.
        """
        if not kwargs and cls._default_instance is not None:
            return cls._default_instance
        parsers = cls._parsers
        values = cls._defaults.copy()
        given: dict[str, Any] = {}
        extra: dict[str, str] | None = None
        for key, value in kwargs.items():
            parse = parsers.get(key)
            if parse is None:
                if allow_hidden and key[:2] == "__" and key[-2:] == "__":
                    continue
                if not cls.allow_unknown:
                    raise cls._unknown_error(op_name, name, key)
                if extra is None:
                    extra = {}
                extra[key] = attr_text(value)
                continue
            try:
                values[key] = parse(value)
            except (Bad, ValueError, TypeError, OverflowError):
                raise cls._value_error(op_name, name, key, value) from None
            # A list could change after the call; keep its text instead.
            given[key] = value if type(value) is not list else attr_text(value)
        if len(values) != len(parsers):
            missing = next(n for n in cls._names if n not in values)
            raise cls._missing_error(op_name, name, missing)
        return cls._make(values, given, extra, op_name, name)

    @classmethod
    def default(cls) -> Param:
        """The shared instance with every field at its default (no field may be required)."""
        if cls._default_instance is None:
            missing = next(n for n in cls._names if n not in cls._defaults)
            raise cls._missing_error(cls.__name__, None, missing)
        return cls._default_instance

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The parameter names, in declaration order (base class fields first)."""
        return cls._names

    @classmethod
    def doc(cls) -> str:
        """The fields as numpydoc "Parameters" entries, worded as MXNet's docstrings."""
        lines = []
        for name, spec in cls._specs.items():
            words = _type_words(spec)
            if name in cls._defaults:
                sep = "," if spec.choices is not None and spec.typename is None else ", "
                value = _default_words(spec, cls._defaults[name])
                lines.append(f"{name} : {words}{sep}optional, default={value}")
            else:
                lines.append(f"{name} : {words}, required")
            lines.extend("    " + line for line in spec.doc.splitlines() or [""])
        return "\n".join(lines)

    @property
    def extra(self) -> dict[str, str]:
        """Unknown keyword arguments kept as strings (only when ``allow_unknown`` is set)."""
        return dict(self.__dict__["_meta"][1] or {})

    def to_attrs(self) -> dict[str, str]:
        """The keys the user gave, each as the string MXNet 1.9.1 writes into symbol JSON."""
        d = self.__dict__
        given, extra = d["_meta"][:2]
        specs = self._specs
        out = {}
        for key, value in given.items():
            # MXNet's front end passes np.dtype(value).name for a dtype argument
            out[key] = str(d[key]) if specs[key].is_dtype else attr_text(value)
        if extra:
            out.update(extra)
        return out

    def replace(self, **changes: Any) -> Param:
        """A new param with ``changes`` applied (parsed and checked like keyword arguments)."""
        given, extra, op, name = self.__dict__["_meta"]
        kwargs = {**given, **(extra or {}), **changes}
        return type(self).from_kwargs(op or type(self).__name__, kwargs, name)

    def _key(self) -> tuple:
        d = self.__dict__
        extra = d["_meta"][1]
        return self._values_of(d), tuple(extra.items()) if extra else ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        d = self.__dict__
        h = d.get("_hash")
        if h is None:
            h = d["_hash"] = hash(self._key())
        return h

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> dict[str, Any]:
        # str hashes differ between processes: never carry a cached hash across pickling
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    # Error messages: op (and name), the argument, what it expects, what came.

    @staticmethod
    def _where(op_name: str, name: Any) -> str:
        return f"{op_name}(name={name!r})" if name else op_name

    @classmethod
    def _unknown_error(cls, op_name: str, name: Any, key: str) -> ParamError:
        msg = f"{cls._where(op_name, name)}: unknown argument {key!r}"
        close = difflib.get_close_matches(key, cls._names, n=1)
        if close:
            return ParamError(f"{msg}; did you mean {close[0]!r}?")
        known = ", ".join(cls._names) if cls._names else "none"
        return ParamError(f"{msg}; its arguments are: {known}.")

    @classmethod
    def _value_error(cls, op_name: str, name: Any, key: str, value: Any) -> ParamError:
        spec = cls._specs[key]
        msg = (
            f"{cls._where(op_name, name)}: argument {key!r} expects {_expectation(spec)}, "
            f"got {_short_repr(value)}."
        )
        if spec.choices is not None and isinstance(value, str):
            by_lower = {c.lower(): c for c in spec.choices}
            close = difflib.get_close_matches(value.lower(), by_lower, n=1)
            if close:
                msg = msg[:-1] + f"; did you mean {by_lower[close[0]]!r}?"
        return ParamError(msg)

    @classmethod
    def _missing_error(cls, op_name: str, name: Any, key: str) -> ParamError:
        spec = cls._specs[key]
        example = repr(spec.choices[0]) if spec.choices else KINDS[spec.kind].example
        hint = f", e.g. {example}" if example else ""
        return ParamError(
            f"{cls._where(op_name, name)}: argument {key!r} is required: {_type_words(spec)}{hint}."
        )
