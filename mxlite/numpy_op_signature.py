"""``mx.numpy_op_signature``: MXNet 1.9.1's lookup from a registered ``_np_*``/``_npx_*``
operator name to the front-end function that serves it (``_np_sum`` -> ``mx.np.sum``,
``_np_random_uniform`` -> ``mx.np.random.uniform``, ``_npx_relu`` -> ``mx.npx.relu``), and
``_numpy_op_doc`` (``mx._numpy_op_doc``): for every ``_np_*``/``_npx_*`` operator that declares
the signature MXNet documents for its front-end function (``OperatorProperty.np_signature``),
a stub of the operator's name with that signature and the operator's docstring. On import the
front-end functions get those signatures, as in MXNet::

    >>> import inspect
    >>> str(inspect.signature(mx_np.sum))
    '(a, axis=None, dtype=None, keepdims=False, initial=None, out=None)'
"""

from __future__ import annotations

import ast
import inspect
import types
from typing import Any

from . import numpy as mx_np
from . import numpy_extension as mx_npx
from .operator import registry

__all__ = ["_get_builtin_op"]

# the submodules MXNet names in operator names after the prefix (``_np_linalg_svd``)
_NP_SUBMODULES = ("_random_", "_linalg_")
_NPX_SUBMODULES = ("_image_", "_random_")


def _get_builtin_op(op_name: str) -> Any:
    """The front-end function of the operator ``op_name``; None for a name of neither family;
    ValueError when the family has no such function."""
    if op_name.startswith("_np_"):
        root, prefix, subs = mx_np, "_np_", _NP_SUBMODULES
    elif op_name.startswith("_npx_"):
        root, prefix, subs = mx_npx, "_npx_", _NPX_SUBMODULES
    else:
        return None
    rest = op_name[len(prefix) :]
    module = root
    for sub in subs:
        if ("_" + rest).startswith(sub):
            module = getattr(root, sub[1:-1], None)
            if module is None:
                raise ValueError(f"Cannot find submodule {sub[1:-1]} in module {root.__name__}")
            rest = rest[len(sub) - 1 :]
            break
    op = getattr(module, rest, None)
    if op is None:
        raise ValueError(f"Cannot find operator {rest} in module {module.__name__}")
    return op


def signature_from_text(text: str) -> inspect.Signature:
    """The :class:`inspect.Signature` written as ``text`` (``"(a, axis=None, *arys)"``);
    defaults must be literals."""
    node = ast.parse(f"def f{text}: pass").body[0]
    assert isinstance(node, ast.FunctionDef)
    args = node.args
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    empty = inspect.Parameter.empty
    defaults = [empty] * (len(args.args) - len(args.defaults))
    defaults += [ast.literal_eval(d) for d in args.defaults]
    params = [inspect.Parameter(a.arg, kind, default=d) for a, d in zip(args.args, defaults)]
    if args.vararg is not None:
        params.append(inspect.Parameter(args.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    return inspect.Signature(params)


def _stub(name: str, cls: type) -> Any:
    def stub(*args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"{name} only documents its operator's mx.np signature.")

    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = cls.__doc__
    stub.__signature__ = signature_from_text(cls.np_signature)  # type: ignore[attr-defined]
    return stub


# mx._numpy_op_doc: one stub per operator name (a namespace, as MXNet's module is used)
_numpy_op_doc = types.SimpleNamespace(**{
    name: _stub(name, cls) for name, cls in registry.all_ops().items()
    if name.startswith(("_np_", "_npx_")) and cls.np_signature is not None
})  # fmt: skip


def _register_op_signatures() -> None:
    for op_name, stub in vars(_numpy_op_doc).items():
        op = _get_builtin_op(op_name)
        if op is not None:
            op.__signature__ = inspect.signature(stub)


_register_op_signatures()
