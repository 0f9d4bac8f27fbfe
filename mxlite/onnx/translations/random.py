"""ONNX translations of the random samplers that ONNX has (uniform, normal, multinomial): the
exported graph draws from the same distributions, not the same numbers."""

from __future__ import annotations

import numpy as np

from ...operator.registry import register_onnx
from .._walk import NodeContext, onnx_dtype


def _static_shape(ctx: NodeContext) -> list[int]:
    if any(ctx.out_dyn[0]):
        raise ctx.fail("shape", "a sampler with no input draws a fixed shape.")
    return list(ctx.out_shapes[0])


@register_onnx("_random_uniform")
def _uniform(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.op1("RandomUniform", [], ctx.out(), low=float(p.low), high=float(p.high),
            shape=_static_shape(ctx), dtype=onnx_dtype(ctx.out_dtypes[0]))  # fmt: skip


@register_onnx("_random_normal")
def _normal(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.op1("RandomNormal", [], ctx.out(), mean=float(p.loc), scale=float(p.scale),
            shape=_static_shape(ctx), dtype=onnx_dtype(ctx.out_dtypes[0]))  # fmt: skip


@register_onnx("_random_uniform_like")
def _uniform_like(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.op1("RandomUniformLike", ctx.inputs[:1], ctx.out(), low=float(p.low), high=float(p.high))


@register_onnx("_random_normal_like")
def _normal_like(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.op1("RandomNormalLike", ctx.inputs[:1], ctx.out(), mean=float(p.loc),
            scale=float(p.scale))  # fmt: skip


@register_onnx("_sample_multinomial")
def _multinomial(ctx: NodeContext) -> None:
    # MXNet samples from probabilities along the last axis; ONNX's Multinomial takes
    # unnormalised log-probabilities of a 2-D batch
    p = ctx.param
    if p.get_prob:
        raise ctx.fail("get_prob=True", "ONNX's Multinomial returns no probabilities.")
    if ctx.ndim() != 2:
        raise ctx.fail(None, "ONNX's Multinomial takes 2-D probabilities only.")
    shape = (p.shape,) if isinstance(p.shape, int) else tuple(p.shape or ())
    n = int(np.prod(shape)) if shape else 1
    y = ctx.op1("Multinomial", [ctx.op1("Log", ctx.inputs[:1])], sample_size=n,
                dtype=onnx_dtype(np.int32))  # fmt: skip
    if np.dtype(p.dtype) != np.int32:
        y = ctx.cast(y, p.dtype)
    ctx.reshape_to_out(y, ctx.out())
