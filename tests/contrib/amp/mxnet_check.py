"""Check that real MXNet 1.9.1 loads an AMP-converted checkpoint written by mxlite, and that it
is the model MXNet's own ``amp.convert_model`` makes.

Run under the reference interpreter::

    /tmp/mxref/bin/python tests/contrib/amp/mxnet_check.py PREFIX CASE TARGET

``PREFIX-symbol.json`` and ``PREFIX-0000.params`` are mxlite's ``save_checkpoint`` (with
``remove_amp_cast=False``) of case CASE of amp_cases.py (beside this file) converted to TARGET.
MXNet converts the same float32 model; the script prints what differs (graph, parameter dtypes,
parameter values) and exits 0 when nothing does, 1 otherwise. test_golden_amp.py runs it.
"""

from __future__ import annotations

import json
import sys

import amp_cases as c  # this file's folder is on the path when it runs as a script
import mxnet as mx
import numpy as np
from mxnet.contrib import amp


def _graph(text: str) -> list:
    g = json.loads(text)
    return [(n["op"], n["name"], n.get("attrs", {}), [i[:2] for i in n["inputs"]])
            for n in g["nodes"]] + [g["heads"]]  # fmt: skip


def main(prefix: str, case: str, target: str) -> int:
    graph, kwargs = next((g, k) for name, g, k in c.CASES if name == case)
    _, args, aux = c.params(mx, graph)
    want_sym, want_args, want_aux = amp.convert_model(
        c.GRAPHS[graph](mx), {k: mx.nd.array(v) for k, v in args.items()},
        {k: mx.nd.array(v) for k, v in aux.items()}, target_dtype=target, **kwargs,
    )  # fmt: skip
    sym, got_args, got_aux = mx.model.load_checkpoint(prefix, 0)
    report = {"graph": _graph(sym.tojson(remove_amp_cast=False))
              == _graph(want_sym.tojson(remove_amp_cast=False))}  # fmt: skip
    want, got = {**want_args, **want_aux}, {**got_args, **got_aux}
    report["names"] = sorted(want) == sorted(got)
    report["dtypes"] = all(want[k].dtype == got[k].dtype for k in want if k in got)
    report["values"] = all(
        np.array_equal(want[k].asnumpy(), got[k].asnumpy()) for k in want if k in got
    )
    print(json.dumps(report))
    return 0 if all(report.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
