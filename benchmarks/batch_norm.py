"""BatchNorm in training, float32 NCHW, axis 1: Gluon's ``nn.BatchNorm`` hybridized (as in a
hybridized network, where MXNet runs oneDNN's kernel): forward under autograd.record (batch
statistics) and forward+backward (data, gamma and beta gradients, moving statistics); and
``mx.nd.BatchNorm`` forward+backward imperatively (``_nd_``). Milliseconds (median), mxlite vs
MXNet 1.9.1 in one run; each ``..._ratio`` is mxlite's time over MXNet's.

``--shapes resnet`` (default): (32, 64, 56, 56) (ResNet's first stage at 224 px),
(32, 256, 14, 14), (32, 512, 7, 7) and (8, 64, 56, 56) (gluon_train's stem at 112 px), with
gamma learnt. ``--shapes mobilenet``: the ten layer shapes of MobileNet v1 (the
``train_imagenet.py`` symbol) at batch 8 and 224 px, with ``fix_gamma`` as there, also as
Module runs them (``exe_``: ``mx.sym.BatchNorm`` bound by ``simple_bind``, ``forward(is_train=
True)`` and ``backward`` with a given head gradient). Every figure comes with the process's CPU
time (all its threads, ``_cpu_ms``), which a busy machine disturbs less, and ``step_...`` sum the
layers of one training step (each shape times the number of its layers). MXNet runs a lone
BatchNorm on plain NCHW data here; in a network its oneDNN kernels get the convolution's
blocked layout.
Issue 28 asks for BatchNorm in training in one pass for the statistics and one fused backward.
On a shared machine run ``--rounds 5``.
Usage: python benchmarks/batch_norm.py [--rounds N] [--repeat N] [--shapes resnet|mobilenet]
[--cases a,b,...]."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, parser, run, timed_runs  # noqa: E402

# name: (shape, layers of that shape in one network)
SHAPES = {
    "resnet": {
        "n32c64s56": ((32, 64, 56, 56), 1),
        "n32c256s14": ((32, 256, 14, 14), 1),
        "n32c512s7": ((32, 512, 7, 7), 1),
        "n8c64s56": ((8, 64, 56, 56), 1),
    },
    "mobilenet": {
        "n8c32s112": ((8, 32, 112, 112), 2),
        "n8c64s112": ((8, 64, 112, 112), 1),
        "n8c64s56": ((8, 64, 56, 56), 1),
        "n8c128s56": ((8, 128, 56, 56), 3),
        "n8c128s28": ((8, 128, 28, 28), 1),
        "n8c256s28": ((8, 256, 28, 28), 3),
        "n8c256s14": ((8, 256, 14, 14), 1),
        "n8c512s14": ((8, 512, 14, 14), 11),
        "n8c512s7": ((8, 512, 7, 7), 1),
        "n8c1024s7": ((8, 1024, 7, 7), 3),
    },
}


def _times(fn: Any, repeat: int) -> tuple[float, float]:
    """Median wall and process CPU milliseconds of ``fn()`` over ``repeat`` runs (after one
    warm-up)."""
    wall, cpu = timed_runs(fn, repeat)
    return round(statistics.median(wall) * 1e3, 3), round(statistics.median(cpu) * 1e3, 3)


def _case(mx: Any, shape: tuple[int, ...], repeat: int, fix_gamma: bool) -> dict[str, float]:
    nd = mx.nd
    c = shape[1]
    x = nd.random.normal(0.5, 2.0, shape=shape)
    x.attach_grad()
    block = mx.gluon.nn.BatchNorm(in_channels=c, scale=not fix_gamma)
    block.initialize()
    block.hybridize(static_alloc=True, static_shape=True)
    gamma, beta = nd.random.uniform(0.5, 1.5, shape=(c,)), nd.random.uniform(-1, 1, shape=(c,))
    mean, var = nd.zeros(c), nd.ones(c)
    for a in (gamma, beta):
        a.attach_grad()

    def imperative(x: Any) -> Any:
        return nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=fix_gamma, eps=1e-5)

    def forward(call: Any = block) -> None:
        with mx.autograd.record():
            call(x)
        nd.waitall()

    def step(call: Any = block) -> None:
        with mx.autograd.record():
            y = call(x)
        y.backward()
        nd.waitall()

    out = {}
    out["fwd_ms"], out["fwd_cpu_ms"] = _times(forward, repeat)
    out["fwdbwd_ms"], out["fwdbwd_cpu_ms"] = _times(step, repeat)
    if not fix_gamma:
        out["nd_fwdbwd_ms"], out["nd_fwdbwd_cpu_ms"] = _times(lambda: step(imperative), repeat)
    else:
        out.update(_executor(mx, x, repeat))
    return out


def _executor(mx: Any, x: Any, repeat: int) -> dict[str, float]:
    """forward(is_train=True) and forward + backward of a bound BatchNorm symbol, as Module
    runs it."""
    sym = mx.sym.BatchNorm(mx.sym.Variable("data"), fix_gamma=True, name="bn")
    exe = sym.simple_bind(mx.cpu(), data=x.shape, grad_req="write")
    exe.arg_dict["data"][:] = x
    head = mx.nd.random.normal(0, 1, shape=x.shape)

    def forward() -> None:
        exe.forward(is_train=True)
        mx.nd.waitall()

    def step() -> None:
        exe.forward(is_train=True)
        exe.backward([head])
        mx.nd.waitall()

    out = {}
    out["exe_fwd_ms"], out["exe_fwd_cpu_ms"] = _times(forward, repeat)
    out["exe_fwdbwd_ms"], out["exe_fwdbwd_cpu_ms"] = _times(step, repeat)
    return out


def measure(impl: str, repeat: int, shapes: str, only: tuple[str, ...]) -> dict[str, float]:
    mx = import_mx(impl)
    out: dict[str, Any] = {}
    mobilenet = shapes == "mobilenet"
    # a MobileNet training step's sums: each shape's figures times its number of layers
    step = dict.fromkeys(("step_fwdbwd_ms", "step_fwdbwd_cpu_ms", "step_exe_fwdbwd_ms",
                          "step_exe_fwdbwd_cpu_ms") if mobilenet else (), 0.0)  # fmt: skip
    for name, (shape, count) in SHAPES[shapes].items():
        if name in only:
            figures = _case(mx, shape, repeat, fix_gamma=mobilenet)
            out.update({f"{name}_{k}": v for k, v in figures.items()})
            for k in step:
                step[k] += count * figures[k[5:]]
    out.update({k: round(v, 3) for k, v in step.items()})
    return out


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--shapes", choices=tuple(SHAPES), default="resnet", help="layer shapes")
    p.add_argument("--cases", default=None, help="comma-separated subset of the shapes' names")
    args = p.parse_args()
    only = tuple(args.cases.split(",")) if args.cases else tuple(SHAPES[args.shapes])
    args.child_args = ["--shapes", args.shapes, "--cases", ",".join(only)]
    kinds = ("fwd", "fwdbwd", "fwd_cpu", "fwdbwd_cpu")
    if args.shapes == "resnet":
        kinds += ("nd_fwdbwd",)
    else:
        kinds += ("exe_fwd", "exe_fwdbwd", "exe_fwd_cpu", "exe_fwdbwd_cpu")
    keys = [f"{n}_{k}_ms" for n in only for k in kinds]
    if args.shapes == "mobilenet":
        keys += [f"step_{k}_ms" for k in ("fwdbwd", "fwdbwd_cpu", "exe_fwdbwd", "exe_fwdbwd_cpu")]
    run("batch_norm", lambda impl, repeat: measure(impl, repeat, args.shapes, only), args, keys)
