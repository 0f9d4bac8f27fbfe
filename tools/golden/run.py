"""Write golden files with real MXNet 1.9.1: ``/tmp/mxref/bin/python tools/golden/run.py
FAMILY [FAMILY ...]`` (every family when none is named).

A family is ``tools/golden/cases/<family>.py``: ``FILE`` (the golden file, from the repository
root), ``SEED`` (its generator's seed, 0 when not given; ``GENERATOR = "default_rng"`` for
NumPy's newer one, or ``RNG``, the generator a table built at import was drawn from, to go on
with) and
``cases(rng)``, which yields one row per case, ``(name, op, inputs, params, options)``, drawing
its inputs from ``rng`` as it goes; the rows run in order through :meth:`core.Golden.op`
(``options`` are its keyword arguments). A family that records more than operator calls
defines ``record(golden)``, which runs after them.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

from core import Golden

CASES = Path(__file__).resolve().parent / "cases"


def run(family: str) -> None:
    spec = importlib.util.spec_from_file_location(f"cases_{family}", CASES / f"{family}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    golden = Golden(mod.FILE, getattr(mod, "SEED", 0), getattr(mod, "GENERATOR", "RandomState"))
    golden.rng = getattr(mod, "RNG", golden.rng)  # a generator the table was drawn from
    for name, op, inputs, params, options in getattr(mod, "cases", lambda rng: ())(golden.rng):
        golden.op(name, op, inputs, params, **options)
    if hasattr(mod, "record"):
        mod.record(golden)
    golden.save()


if __name__ == "__main__":
    families = sys.argv[1:] or sorted(p.stem for p in CASES.glob("*.py"))
    if len(families) == 1:
        run(families[0])
    else:  # one fresh interpreter each: MXNet's name counters and seeds are process-wide
        for fam in families:
            subprocess.run([sys.executable, __file__, fam], check=True)
