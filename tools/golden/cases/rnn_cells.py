"""Unrolled mx.rnn cells (tests/rnn/test_rnn_cell.py), for the graphs of
tests/rnn/cell_cases.py: every argument's value, the outputs and, for the deterministic cases,
the gradients of data and begin states for an all-ones head gradient; per case the argument
names, output names and shapes, and begin_state() names."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/rnn/golden/rnn_cells.npz"
_cases = load_module("tests/rnn/cell_cases.py")
SHAPES, STOCHASTIC, build, run = _cases.SHAPES, _cases.STOCHASTIC, _cases.build, _cases.run


def record(golden: Golden) -> None:
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
        outs, grads = run(mx, name, sym, args)
        train = name not in STOCHASTIC
        arrays = {f"arg/{n}": v.asnumpy() for n, v in args.items()}
        arrays.update({f"out/{i}": o.asnumpy() for i, o in enumerate(outs)})
        if train:  # only data and begin states: weight gradients make the file ten times larger
            arrays.update({f"grad/{n}": g.asnumpy() for n, g in grads.items()
                           if n == "data" or n.startswith("begin_")})  # fmt: skip
        meta = {"arguments": names, "outputs": sym.list_outputs(),
                "out_shapes": [list(s) for s in out_shapes], "grads": train,
                "begin_state_names": begin_names}  # fmt: skip
        golden.put(name, meta, **arrays)
