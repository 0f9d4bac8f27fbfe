"""The operator sweep (tests/operator/test_sweep.py): for every registered operator that
declares ``test = OpTest(...)``, in every dtype it declares, MXNet 1.9.1's outputs on the inputs
the declaration describes. mxlite is imported only to read the declarations and draw those
inputs (``OpTest.inputs``, seeded, so the file keeps only the outputs). A case MXNet cannot
run, or whose outputs are random, is recorded with the reason instead of values."""

import sys
from typing import Any

from core import ROOT

FILE = "tests/operator/golden/sweep.npz"


def record(golden: Any) -> None:
    sys.path.insert(0, str(ROOT))
    from mxlite.operator import registry
    from mxlite.resource import ResourceRequest

    declared = {c.op_name: c for c in set(registry.all_ops().values()) if c.test is not None}
    for name, cls in sorted(declared.items()):
        t = cls.test
        for dt in t.dtypes:
            key = f"{name}-{dt}"
            prop = cls.get_prop(dict(t.params))
            xs = t.inputs(prop, dt)
            if ResourceRequest.RANDOM in prop.forward_resource([x.shape for x in xs]):
                golden.put(key, {"op": name, "skipped": "random outputs"})
                continue
            if not t.matches_mxnet:
                golden.put(key, {"op": name, "skipped": "declared matches_mxnet=False"})
                continue
            # aux states go by name (MXNet's front end would take them for parameters); the
            # rest by position (variadic operators name theirs arg0, arg1, ...)
            aux = prop.list_auxiliary_states()
            names = prop.list_arguments() + aux if aux else None
            failed = golden.op_isolated(key, name, xs, t.params, grad=False, names=names)
            if failed:
                golden.put(key, {"op": name, "skipped": failed})
            for i in range(len(xs)):  # the test draws the same inputs again: keep the file small
                golden.arrays.pop(f"{key}/in{i}", None)
