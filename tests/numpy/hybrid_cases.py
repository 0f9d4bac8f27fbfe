"""mx.np operators through a HybridBlock, before and after ``hybridize()`` (``F = mx.nd`` then
``F = mx.sym``), at the edges where the two paths part: zero-size and zero-dim shapes,
arguments that are None, symbols where an array was expected, split functions whose axis
depends on the rank. Written as functions of the ``mx`` module so that
tests/numpy/test_golden_hybrid.py runs them under mxlite and tools/golden/cases/numpy_hybrid.py
under MXNet 1.9.1 (it records MXNet's values into tests/numpy/golden/numpy_hybrid.npz).
Nothing here imports either.

A case is ``(name, expression, inputs, modes)``: the expression is over ``F`` and the input
names; each input is ``(shape, dtype)``, filled deterministically (:func:`case_inputs`); the
head gradient of every output is ``1 + 0.1 * arange(size)``. ``modes`` are the ways it runs:
"imperative" (``F = mx.nd``), "hybrid" (``F = mx.sym``, the cached graph), both recorded by
autograd, and "plain" (``F = mx.nd``, not recorded: the in-place operators).
"""

from __future__ import annotations

from typing import Any

import numpy as np

BOTH = ("imperative", "hybrid")
PLAIN = ("plain",)

# fmt: off
CASES: list[tuple[str, str, dict[str, tuple[tuple[int, ...], str]], tuple[str, ...]]] = [
    ("concat_none_empty", "F.np.concatenate([a, b], axis=None)",
     {"a": ((0, 0), "float32"), "b": ((0, 0), "float32")}, BOTH),
    ("concat_none", "F.np.concatenate([a, b], axis=None)",
     {"a": ((2, 3), "float32"), "b": ((1, 3), "float32")}, BOTH),
    ("concat_empty_axis1", "F.np.concatenate([a, b], axis=1)",
     {"a": ((2, 0), "float32"), "b": ((2, 3), "float32")}, BOTH),
    ("append_none", "F.np.append(a, b)", {"a": ((0, 2), "float32"), "b": ((3,), "float32")},
     BOTH),
    ("arange_step_none", "a + F.np.arange(0, 5, None)", {"a": ((5,), "float32")}, BOTH),
    ("arange_empty", "a + F.np.arange(0, -5, None, dtype='int32')", {"a": ((0,), "int32")},
     BOTH),
    ("array_split_sections", "F.np.array_split(a, 3, axis=0)", {"a": ((7, 2), "float32")},
     BOTH),
    ("array_split_more_than_size", "F.np.array_split(a, 4, axis=1)",
     {"a": ((2, 3), "float32")}, BOTH),
    ("split_empty_axis", "F.np.split(a, (1, 2), axis=0)", {"a": ((0, 4), "float32")}, BOTH),
    ("vsplit_empty_axis", "F.np.vsplit(a, (0, 1, 3))", {"a": ((0, 3), "float32")}, BOTH),
    ("hsplit_1d", "F.np.hsplit(a, 2)", {"a": ((10,), "float32")}, BOTH),
    ("hsplit_3d_indices", "F.np.hsplit(a, (2, 4))", {"a": ((3, 8, 5), "float32")}, BOTH),
    ("hsplit_empty_axis", "F.np.hsplit(a, (3,))", {"a": ((3, 0, 5), "float32")}, BOTH),
    ("dsplit_empty_axis", "F.np.dsplit(a, (0, 2, 4))", {"a": ((2, 3, 0, 4), "float32")}, BOTH),
    ("expand_dims_empty", "F.np.expand_dims(a, 1)", {"a": ((2, 0), "float32")}, BOTH),
    ("flip_all_axes", "F.np.flip(a)", {"a": ((2, 3), "float32")}, BOTH),
    ("full_symbol_value", "F.np.full((2, 3), a, dtype='int32')", {"a": ((3,), "float32")},
     BOTH),
    ("full_symbol_value_empty", "F.np.full((0, 3), a)", {"a": ((3,), "float32")}, BOTH),
    ("full_bool", "F.np.full((2, 2), True) + a", {"a": ((2, 2), "int32")}, BOTH),
    ("repeat_method_axis", "a.repeat(2, 1)", {"a": ((2, 3), "float32")}, BOTH),
    ("repeat_method_flat", "a.repeat(2)", {"a": ((2, 2), "int32")}, BOTH),
    ("squeeze_zero_dim", "F.np.squeeze(a, -1)", {"a": ((), "float32")}, BOTH),
    ("squeeze_zero_dim_axis0", "F.np.squeeze(a, 0)", {"a": ((), "float32")}, BOTH),
    ("squeeze_empty", "F.np.squeeze(a, (-1, -4))", {"a": ((1, 0, 1, 1), "float32")}, BOTH),
    ("swapaxes_empty", "F.np.swapaxes(a, 0, 2)", {"a": ((0, 1, 2), "float32")}, BOTH),
    ("swapaxes_method", "a.swapaxes(0, 1)", {"a": ((2, 3), "float32")}, BOTH),
    ("take_flat_wrap", "F.np.take(a, i, mode='wrap')",
     {"a": ((3, 4), "float32"), "i": ((2, 3), "int64")}, BOTH),
    ("take_axis_clip", "F.np.take(a, i, axis=1, mode='clip')",
     {"a": ((3, 4), "float32"), "i": ((5,), "int64")}, BOTH),
    # an int array: MXNet 1.9.1 leaves the gradient of a float one uninitialised here
    ("take_zero_dim", "F.np.take(a, i, mode='clip')",
     {"a": ((), "int32"), "i": ((4, 0), "int64")}, BOTH),
    ("take_method", "a.take(i, 0, mode='wrap')",
     {"a": ((3, 2), "float32"), "i": ((2,), "int64")}, BOTH),
    ("broadcast_to_empty", "F.np.broadcast_to(a, (2, 4, 0))", {"a": ((1, 0), "float32")}, BOTH),
    ("broadcast_to_keep_dim", "F.np.broadcast_to(a, (3, 4, -2))", {"a": ((5,), "float32")},
     BOTH),
    ("broadcast_to_keep_empty", "F.np.broadcast_to(a, (2, -2, -2))",
     {"a": ((1, 0), "float32")}, BOTH),
    ("broadcast_to_scalar", "F.np.broadcast_to(2.0, (2, 3)) + a", {"a": ((2, 3), "float32")},
     BOTH),
    ("npx_slice_step_none", "F.npx.slice(a, begin=(None,), end=(None,), step=None)",
     {"a": ((4, 3), "int32")}, BOTH),
    ("npx_slice_mixed_steps", "F.npx.slice(a, begin=(1, 0), end=(-2, 10), step=(None, 2))",
     {"a": ((5, 4), "float32")}, BOTH),
    ("batch_dot_empty_inner", "F.npx.batch_dot(a, b)",
     {"a": ((2, 3, 0), "float32"), "b": ((2, 0, 4), "float32")}, BOTH),
    ("batch_dot_empty_transposed", "F.npx.batch_dot(a, b, transpose_b=True)",
     {"a": ((2, 3, 0), "float32"), "b": ((2, 4, 0), "float32")}, BOTH),
    ("inner", "F.np.inner(a, b)", {"a": ((2, 3), "float32"), "b": ((4, 3), "float32")}, BOTH),
    ("index_int_of_empty", "a[1]", {"a": ((3, 0), "float32")}, BOTH),
    ("boolean_mask_assign_scalar",
     "F.np._internal.boolean_mask_assign_scalar(a, m, 42.0, start_axis=1, out=a)",
     {"a": ((2, 3, 4), "float32"), "m": ((3, 4), "bool")}, PLAIN),
    ("boolean_mask_assign_tensor",
     "F.np._internal.boolean_mask_assign_tensor(a, m, v, start_axis=0, out=a)",
     {"a": ((3, 4), "float32"), "m": ((3,), "bool"), "v": ((1, 4), "float32")}, PLAIN),
]
# fmt: on


def case_inputs(inputs: dict[str, tuple[tuple[int, ...], str]]) -> dict[str, np.ndarray]:
    """Deterministic input values: floats spread over [-2, 2), ints in [-7, 12) (indices out
    of range on purpose, for mode='wrap'/'clip'), bools every third element true."""
    out = {}
    for name, (shape, dtype) in inputs.items():
        k = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
        if dtype == "bool":
            out[name] = k % 3 == 0
        elif np.dtype(dtype).kind in "iu":
            out[name] = ((k * 5) % 19 - 7).astype(dtype)
        else:
            out[name] = (np.sin(k * 1.3) * 2).astype(dtype)
    return out


def head(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """The head gradient of an output of ``shape``."""
    return (1 + 0.1 * np.arange(int(np.prod(shape)))).reshape(shape).astype(dtype)


def run_case(mx: Any, expr: str, values: dict[str, np.ndarray], mode: str) -> dict[str, Any]:
    """Run ``expr`` in a HybridBlock under ``mx`` (MXNet or mxlite, in NumPy mode) the way
    ``mode`` says, recording autograd; return the outputs (a list of NumPy arrays), their
    dtypes, and the gradient of every float input (None for the others)."""
    names = list(values)

    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F: Any, *xs: Any) -> Any:  # noqa: N803
            return eval(expr, {"F": F, **dict(zip(names, xs))})

    block = Block()
    if mode == "hybrid":
        block.hybridize()
    xs = [mx.np.array(v, dtype=v.dtype) for v in values.values()]
    floats = [np.dtype(x.dtype).kind == "f" and mode != "plain" for x in xs]
    for x, f in zip(xs, floats):
        if f:
            x.attach_grad()
    if mode == "plain":
        out = block(*xs)
    else:
        with mx.autograd.record():
            out = block(*xs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if any(floats) and any(np.dtype(o.dtype).kind == "f" for o in outs):
        mx.autograd.backward(outs, [mx.np.array(head(o.shape, o.dtype)) for o in outs])
    return {
        "outs": [o.asnumpy() for o in outs],
        "dtypes": [np.dtype(o.dtype).name for o in outs],
        "grads": [x.grad.asnumpy() if f else None for x, f in zip(xs, floats)],
    }
