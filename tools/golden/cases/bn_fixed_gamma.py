"""BatchNorm's fixed gamma (tests/operator/test_batch_norm_fixed_gamma.py): every parameter
after each workload of tests/operator/bn_fixed_gamma_cases.py, one case each.

MXNet's BatchNorm kernels write ones into the gamma *input* in every forward that writes the mean
output when ``fix_gamma=True`` (BatchNorm_v1 and SyncBatchNorm in every forward), so a fixed
gamma reads 1 after a training forward and an optimizer step moves it from 1."""

import mxnet as mx
from core import Golden, load_module

FILE = "tests/operator/golden/bn_fixed_gamma.npz"


def record(golden: Golden) -> None:
    for name, fn in load_module("tests/operator/bn_fixed_gamma_cases.py").CASES.items():
        golden.put(name, {}, **fn(mx))
