"""BatchNorm in training at ResNet's shapes, float32 NCHW, axis 1: Gluon's ``nn.BatchNorm``
hybridized (as in a hybridized network, where MXNet runs oneDNN's kernel): forward under
autograd.record (batch statistics) and forward+backward (data, gamma and beta gradients, moving
statistics); and ``mx.nd.BatchNorm`` forward+backward imperatively (``_nd_``). Milliseconds
(median), mxlite vs MXNet 1.9.1 in one run; each ``..._ratio`` is mxlite's time over MXNet's.
Shapes: (32, 64, 56, 56) (ResNet's first stage at 224 px), (32, 256, 14, 14), (32, 512, 7, 7)
and (8, 64, 56, 56) (gluon_train's stem at 112 px). Issue 28 asks for BatchNorm in training
in one pass for the statistics and one fused backward. On a shared machine run ``--rounds 5``.
Usage: python benchmarks/batch_norm.py [--rounds N] [--repeat N] [--cases a,b,...]."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

SHAPES = {
    "n32c64s56": (32, 64, 56, 56),
    "n32c256s14": (32, 256, 14, 14),
    "n32c512s7": (32, 512, 7, 7),
    "n8c64s56": (8, 64, 56, 56),
}


def _case(mx: Any, shape: tuple[int, ...], repeat: int) -> dict[str, float]:
    nd = mx.nd
    c = shape[1]
    x = nd.random.normal(0.5, 2.0, shape=shape)
    x.attach_grad()
    block = mx.gluon.nn.BatchNorm(in_channels=c)
    block.initialize()
    block.hybridize(static_alloc=True, static_shape=True)
    gamma, beta = nd.random.uniform(0.5, 1.5, shape=(c,)), nd.random.uniform(-1, 1, shape=(c,))
    mean, var = nd.zeros(c), nd.ones(c)
    for a in (gamma, beta):
        a.attach_grad()

    def imperative(x: Any) -> Any:
        return nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False, eps=1e-5)

    def forward(call: Any = block) -> None:
        with mx.autograd.record():
            call(x)
        nd.waitall()

    def step(call: Any = block) -> None:
        with mx.autograd.record():
            y = call(x)
        y.backward()
        nd.waitall()

    return {
        "fwd_ms": round(median_time(forward, repeat) * 1e3, 3),
        "fwdbwd_ms": round(median_time(step, repeat) * 1e3, 3),
        "nd_fwdbwd_ms": round(median_time(lambda: step(imperative), repeat) * 1e3, 3),
    }


def measure(impl: str, repeat: int, only: tuple[str, ...] = tuple(SHAPES)) -> dict[str, float]:
    mx = import_mx(impl)
    out: dict[str, Any] = {}
    for name, shape in SHAPES.items():
        if name in only:
            out.update({f"{name}_{k}": v for k, v in _case(mx, shape, repeat).items()})
    return out


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--cases", default=",".join(SHAPES), help="comma-separated subset")
    args = p.parse_args()
    only = tuple(args.cases.split(","))
    args.child_args = ["--cases", args.cases]
    run(
        "batch_norm",
        lambda impl, repeat: measure(impl, repeat, only),
        args,
        [f"{n}_{k}_ms" for n in only for k in ("fwd", "fwdbwd", "nd_fwdbwd")],
    )
