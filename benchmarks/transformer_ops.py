"""The element-wise and row-wise operators of a BERT-base layer at batch 32, sequence 128,
float32, imperatively (``mx.nd``), mxlite vs MXNet 1.9.1 in one run: milliseconds (median) of
``softmax`` over the attention scores (32, 12, 128, 128) (forward, and forward+backward under
``autograd.record``) and over (4096, 768) rows, ``LayerNorm`` forward and forward+backward on
(4096, 768), GELU (``LeakyReLU(act_type='gelu')``, forward and forward+backward) and ``erf`` on
the feed-forward activations (4096, 3072), and ``broadcast_add`` of a bias row to them; each
``<name>_ms_ratio`` is mxlite's time over MXNet's. On a shared machine run ``--rounds 5``.
Usage: python benchmarks/transformer_ops.py [--rounds N] [--repeat N]."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import case_ms, import_mx, parser, run  # noqa: E402

NAMES = (
    "softmax_att",
    "softmax_att_fwdbwd",
    "softmax_rows",
    "layernorm_fwd",
    "layernorm_fwdbwd",
    "gelu",
    "gelu_fwdbwd",
    "erf",
    "bias_add",
)


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    nd = mx.nd
    scores = nd.random.normal(0, 2, shape=(32, 12, 128, 128))
    hidden = nd.random.normal(0, 1, shape=(4096, 768))
    ffn = nd.random.normal(0, 1.5, shape=(4096, 3072))
    gamma, beta = nd.random.uniform(0.5, 1.5, shape=(768,)), nd.random.normal(shape=(768,))
    bias = nd.random.normal(shape=(1, 3072))
    for a in (scores, hidden, gamma, beta, ffn):
        a.attach_grad()

    def fwdbwd(op: Any, *args: Any, **kwargs: Any) -> Any:
        def call() -> None:
            with mx.autograd.record():
                y = op(*args, **kwargs)
            y.backward()

        return call

    cases = {
        "softmax_att": lambda: nd.softmax(scores),
        "softmax_att_fwdbwd": fwdbwd(nd.softmax, scores),
        "softmax_rows": lambda: nd.softmax(hidden),
        "layernorm_fwd": lambda: nd.LayerNorm(hidden, gamma, beta),
        "layernorm_fwdbwd": fwdbwd(nd.LayerNorm, hidden, gamma, beta),
        "gelu": lambda: nd.LeakyReLU(ffn, act_type="gelu"),
        "gelu_fwdbwd": fwdbwd(nd.LeakyReLU, ffn, act_type="gelu"),
        "erf": lambda: nd.erf(ffn),
        "bias_add": lambda: nd.broadcast_add(ffn, bias),
    }
    return case_ms(cases, repeat, nd.waitall)


if __name__ == "__main__":
    args = parser(__doc__).parse_args()
    run("transformer_ops", measure, args, [f"{n}_ms" for n in NAMES])
