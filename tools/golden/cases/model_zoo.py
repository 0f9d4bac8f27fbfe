"""mx.gluon.model_zoo (tests/gluon/model_zoo/test_vision.py; the cases in
tests/gluon/model_zoo/zoo_cases.py) in tests/gluon/model_zoo/golden/model_zoo.npz:

- ``<model>`` (metadata only) for every network of ``get_model``'s list (built in a fresh name
  scope): its ``collect_params`` names with their declared shapes (``params``, 0 where inference
  fills them) and its ``save_parameters`` names (``structural``);
- ``out_<model>``: for a few small networks, the inference output ``y`` on ``inputs(shape)``
  after every parameter was filled by ``fill_parameters`` (a seeded NumPy stream, so no large
  parameter file is stored); ``mobilenet0.25.params`` next to the file is its
  ``save_parameters``, to check that a file MXNet saved loads.
"""

import mxnet as mx
from core import Golden, load_module

FILE = "tests/gluon/model_zoo/golden/model_zoo.npz"
c = load_module("tests/gluon/model_zoo/zoo_cases.py")


def record(golden: Golden) -> None:
    for name in c.MODELS:
        with mx.name.NameManager():
            net = mx.gluon.model_zoo.vision.get_model(name)
        params = [[k, list(v.shape)] for k, v in net.collect_params().items()]
        golden.put(name, {"params": params, "structural": list(net._collect_params_with_prefix())})
    for name, shape in c.OUTPUT_CASES:
        net = c.build(mx, name)
        net.initialize()
        x = mx.nd.array(c.inputs(shape))
        net(x)
        c.fill_parameters(mx, net)
        golden.put(f"out_{name}", {"shape": shape}, y=net(x).asnumpy())
        if name == "mobilenet0.25":
            net.save_parameters(str(golden.path.parent / "mobilenet0.25.params"))
