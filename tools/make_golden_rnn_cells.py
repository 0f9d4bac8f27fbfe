"""Record unrolled mx.rnn cell outputs and gradients from real MXNet 1.9.1.

Run under real MXNet: /tmp/mxref/bin/python tools/make_golden_rnn_cells.py
Writes tests/rnn/golden/rnn_cells.npy (every argument's value, the outputs and, for the
deterministic cases, the gradients of data and begin states for an all-ones head gradient, as
one float32 vector) and rnn_cells.json (per case: argument names, output names and shapes,
begin_state() names; "_index": where each array lies in the vector).
"""

import json
import sys
from pathlib import Path

import mxnet as mx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "rnn"))
from cell_cases import SHAPES, STOCHASTIC, build  # noqa: E402

OUT = ROOT / "tests" / "rnn" / "golden"


def main() -> None:
    arrays = {}
    meta = {}
    for k, name in enumerate(SHAPES):
        shape, _ = SHAPES[name]
        cell, sym = build(mx, name)
        try:
            begin_names = [s.name for s in cell.begin_state()]
        except TypeError:  # MXNet's modifier cells inside a stack reject keyword func
            begin_names = None
        batch = shape[0] if SHAPES[name][1] == "NTC" else shape[1]
        known = {"data": shape}
        for i, info in enumerate(cell.state_info):
            known[f"begin_{i}"] = tuple(batch if d == 0 else d for d in info["shape"])
        arg_shapes, out_shapes, _ = sym.infer_shape(**known)
        names = sym.list_arguments()
        rng = np.random.default_rng(100 + k)
        args = {n: mx.nd.array(rng.uniform(-0.8, 0.8, s)) for n, s in zip(names, arg_shapes)}
        grads = {n: mx.nd.zeros(s) for n, s in zip(names, arg_shapes)}
        ex = sym.bind(mx.cpu(), args, args_grad=grads)
        train = name not in STOCHASTIC
        outs = ex.forward(is_train=train)
        for n, v in args.items():
            arrays[f"{name}/arg/{n}"] = v.asnumpy()
        for i, o in enumerate(outs):
            arrays[f"{name}/out/{i}"] = o.asnumpy()
        if train:
            ex.backward([mx.nd.ones(o.shape) for o in outs])
            for n, g in grads.items():
                if n != "data" and not n.startswith("begin_"):
                    continue  # weight gradients would make the file ten times larger
                arrays[f"{name}/grad/{n}"] = g.asnumpy()
        meta[name] = {
            "arguments": names,
            "outputs": sym.list_outputs(),
            "out_shapes": [list(s) for s in out_shapes],
            "grads": train,
            "begin_state_names": begin_names,
        }
    # one flat float32 vector plus an index keeps the file small (no per-array zip entry)
    index = {}
    offset = 0
    for key, value in arrays.items():
        index[key] = [offset, list(value.shape)]
        offset += value.size
    flat = np.concatenate([v.astype(np.float32).ravel() for v in arrays.values()])
    meta["_index"] = index
    OUT.mkdir(parents=True, exist_ok=True)
    np.save(OUT / "rnn_cells.npy", flat)
    (OUT / "rnn_cells.json").write_text(json.dumps(meta, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
