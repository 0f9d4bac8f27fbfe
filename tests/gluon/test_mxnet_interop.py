"""Files mxlite writes, read by real MXNet 1.9.1 (one MXNet process for all of them):
save_parameters, export (SymbolBlock.imports) and Trainer.save_states. The other direction
is checked against the golden files from tools/golden/cases/gluon.py."""

import json
import os
import subprocess

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd, gluon
from mxlite.gluon import nn

MXREF = "/tmp/mxref/bin/python"

SCRIPT = """
import json, sys, numpy as np, mxnet as mx
from mxnet.gluon import nn
d = sys.argv[1]
x = mx.nd.array(np.load(d + "/x.npy"))
net = nn.HybridSequential()
with net.name_scope():
    net.add(nn.Dense(8, activation="relu"), nn.BatchNorm(), nn.Dense(3))
net.load_parameters(d + "/ours.params")
loaded = float(np.abs(net(x).asnumpy() - np.load(d + "/y.npy")).max())
imp = mx.gluon.SymbolBlock.imports(d + "/ours-symbol.json", ["data"], d + "/ours-0000.params")
imported = float(np.abs(imp(x).asnumpy() - np.load(d + "/y.npy")).max())
t = mx.gluon.Trainer(net.collect_params(), "adam")
t.load_states(d + "/ours.states")
print(json.dumps({"loaded": loaded, "imported": imported, "opt": type(t._optimizer).__name__,
                  "num_update": t._optimizer.num_update,
                  "states": len(t._updaters[0].states)}))
"""


@pytest.mark.skipif(not os.path.exists(MXREF), reason="real MXNet is absent")
def test_mxnet_reads_our_files(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.BatchNorm(), nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.random.uniform(shape=(4, 5))
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    for _ in range(2):  # moves weights, BatchNorm statistics and Adam's states
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(4)
    y = net(x)
    net.save_parameters(str(tmp_path / "ours.params"))
    net.export(str(tmp_path / "ours"))
    trainer.save_states(str(tmp_path / "ours.states"))
    np.save(tmp_path / "x.npy", x.asnumpy())
    np.save(tmp_path / "y.npy", y.asnumpy())
    res = subprocess.run([MXREF, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["loaded"] < 1e-5 and got["imported"] < 1e-5
    assert (got["opt"], got["num_update"], got["states"]) == ("Adam", 2, 6)
