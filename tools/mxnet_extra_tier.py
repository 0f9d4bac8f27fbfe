#!/usr/bin/env python3
"""MXNet 1.9.1's CPU tests that live outside ``tests/python/unittest`` (AMP and bfloat16 in
``tests/python/mkl``, INT8 quantization in ``tests/python/quantization``), run through the
shared harness (``../shared/mxnet-suite``) as a tier of their own.

The harness extracts only the unit-test folders and runs files found there; this wrapper
takes the harness's place as its orchestrator (``HARNESS_ORCH_PYTHON``), extracts the two
folders too and puts the files below beside the unit tests (same depth, so their own
``sys.path`` lines still find ``../unittest`` and ``../quantization``)::

    export MXNET_REPO=<apache/mxnet git dir> PYTHONPATH=$PWD HARNESS_INSTALL_DEPS=0 \\
        HARNESS_OUT=/tmp/extra HARNESS_ORCH_PYTHON=$PWD/tools/mxnet_extra_tier.py
    ../shared/mxnet-suite/run_mxnet_suite.sh $PWD/.venv/bin/python mxlite \\
        $(tools/mxnet_extra_tier.py --files)
    python3 ../shared/mxnet-suite/score.py -v \\
        --baseline tests/golden/baseline_mxnet_1.9.1_extra.txt /tmp/extra

The baseline is this same command run with ``/tmp/mxref/bin/python mxnet``.
"""

import importlib.util
import os
import shutil
import sys

# name beside the unit tests -> file in MXNet's tree (unittest has its own test_subgraph.py)
FILES = {
    "test_bf16_operator.py": "tests/python/mkl/test_bf16_operator.py",
    "test_contrib_amp.py": "tests/python/mkl/test_contrib_amp.py",
    "test_mkl_subgraph.py": "tests/python/mkl/test_subgraph.py",
    "test_quantization_mkldnn.py": "tests/python/mkl/test_quantization_mkldnn.py",
    "test_quantization.py": "tests/python/quantization/test_quantization.py",
}


def main() -> None:
    if sys.argv[1:] == ["--files"]:
        print(" ".join(FILES))
        return
    orchestrate_path = sys.argv[1]
    spec = importlib.util.spec_from_file_location("orchestrate", orchestrate_path)
    orch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(orch)
    orch.EXTRACT_PATHS = orch.EXTRACT_PATHS + sorted({os.path.dirname(f) for f in FILES.values()})
    extract = orch.extract

    def extract_and_place(repo: str, ref: str, dest: str) -> None:
        extract(repo, ref, dest)
        unittest_dir = os.path.join(dest, "tests", "python", "unittest")
        for name, source in FILES.items():
            target = os.path.join(unittest_dir, name)
            assert not os.path.exists(target), name
            shutil.copy(os.path.join(dest, source), target)

    orch.extract = extract_and_place
    sys.argv = [orchestrate_path] + sys.argv[2:]
    orch.main()


if __name__ == "__main__":
    main()
