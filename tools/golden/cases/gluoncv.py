"""GluonCV 0.10.5 on mxlite's ``mxnet`` alias (tests/run/test_gluoncv.py; needs
``gluoncv==0.10.5.post0`` beside the reference MXNet): ``cifar_resnet20_v1.params`` beside the
file (``save_parameters`` of GluonCV's ``cifar_resnet20_v1``, Xavier, ``mx.random.seed(0)``) for
the ``load_parameters`` case, and one case per workload of tests/run/gluoncv_cases.py (which sets
every other parameter from seeded NumPy streams) with its arrays, the ``--spread`` of the
training cases, and the ``seconds`` it took."""

import gluoncv
import mxnet as mx
from core import Golden, load_module

FILE = "tests/run/golden/gluoncv/outputs.npz"


def record(golden: Golden) -> None:
    mx.random.seed(0)
    net = gluoncv.model_zoo.get_model("cifar_resnet20_v1", classes=10)
    net.initialize(mx.init.Xavier())
    net(mx.nd.zeros((1, 3, 32, 32)))
    params = golden.path.parent / "cifar_resnet20_v1.params"
    net.save_parameters(str(params))
    cases = "tests/run/gluoncv_cases.py"
    names = ["load_parameters", *load_module(cases).CASES]  # in the test's order
    golden.take(cases, f"--params={params}", "--spread", *names)
