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
            golden.put_isolated(key, {"op": name}, _outputs, golden, key, name, xs, t.params,
                                names, why="skipped")  # fmt: skip


def _outputs(golden: Any, key: str, name: str, xs: list, params: dict, names: Any) -> tuple:
    """In the forked child: the case as :meth:`core.Golden.op` records it (without gradients),
    less its inputs (the test draws them again: the file stays small)."""
    golden.op(key, name, xs, params, grad=False, names=names)
    found = {k[len(key) + 1 :]: v for k, v in golden.arrays.items() if k.startswith(f"{key}/")}
    return golden.cases[key], {k: v for k, v in found.items() if not k.startswith("in")}
