"""Symbol JSON (tests/symbol/test_json.py, which runs the same snippets under mxlite): for each
construction snippet, a metadata-only entry of tests/symbol/golden/symbols.npz with the
``snippet``, the JSON MXNet writes, the argument / output / auxiliary names, the internals, the
attributes and the shapes MXNet infers; ``legacy``: what MXNet makes of a hand-written legacy
(0.8.0 style) JSON file, its ``input``; ``save_000800``: the SHA-256 of MXNet's
``tests/python/unittest/save_000800.json`` (a file of MXNet 0.8, not copied here) and the
``attr_dict()`` MXNet gives after loading it.
"""

import hashlib
import json

import mxnet as mx
from core import Golden, load_module, mxnet_file

FILE = "tests/symbol/golden/symbols.npz"
j = load_module("tests/symbol/json_cases.py")  # what is recorded, asked again by the test

# Each snippet builds `net` from `mx` and sets `shapes` (input shapes for infer_shape).
# fmt: off
CASES = {
    "arith": """
a = mx.sym.var('a'); b = mx.sym.var('b')
net = mx.sym.Group([a + b, a * 2, 2 - a, a > b, -a, a ** 2, 2 ** a, abs(a), a / b, 1 / a,
                    a % 3, a == b, a != 1, a <= b, a >= 0.5, a < b])
shapes = {'a': (2, 3), 'b': (2, 3)}
""",
    "scopes": """
with mx.name.Prefix('blk_'):
    with mx.AttrScope(ctx_group='dev1', __mood__='calm'):
        x = mx.sym.var('x', shape=(4, 6), lr_mult=2, dtype='float16', __layout__='NC')
        y = mx.sym.Activation(x, act_type='relu')
        z = mx.sym.Activation(y, act_type='tanh', attr={'__wd_mult__': '0.5'})
    w = mx.sym.relu(z)
    parts = mx.sym.split(w, num_outputs=2, axis=1)
net = mx.sym.Concat(parts[1], parts[0], w, dim=1, name='cat')
shapes = {'x': (4, 6)}
""",
    "pool_softmax": """
data = mx.sym.Variable('data')
p = mx.sym.Pooling(data, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool')
f = mx.sym.Flatten(p)
net = mx.sym.SoftmaxOutput(f, name='softmax')
shapes = {'data': (2, 3, 8, 8)}
""",
    "compose": """
data = mx.sym.var('data')
inner = mx.sym.Activation(mx.sym.var('x'), act_type='relu', name='act')
net = inner(x=mx.sym.sigmoid(data, name='sig'), name='composed')
net = mx.sym.Group([net, net.get_internals()['sig_output'], mx.sym.sum(net, axis=1)])
shapes = {'data': (3, 5)}
""",
    "mlp": """
data = mx.sym.Variable('data')
h = mx.sym.FullyConnected(data, num_hidden=64, name='fc1')
h = mx.sym.Activation(h, act_type='relu', name='relu1')
h = mx.sym.FullyConnected(h, num_hidden=32, name='fc2')
h = mx.sym.Activation(h, act_type='relu', name='relu2')
h = mx.sym.FullyConnected(h, num_hidden=10, name='fc3')
net = mx.sym.SoftmaxOutput(h, name='softmax')
shapes = {'data': (8, 100)}
""",
    "lenet": """
data = mx.sym.Variable('data')
c1 = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20)
a1 = mx.sym.Activation(c1, act_type='tanh')
p1 = mx.sym.Pooling(a1, pool_type='max', kernel=(2, 2), stride=(2, 2))
c2 = mx.sym.Convolution(p1, kernel=(5, 5), num_filter=50)
a2 = mx.sym.Activation(c2, act_type='tanh')
p2 = mx.sym.Pooling(a2, pool_type='max', kernel=(2, 2), stride=(2, 2))
f = mx.sym.flatten(p2)
fc1 = mx.sym.FullyConnected(f, num_hidden=500)
a3 = mx.sym.Activation(fc1, act_type='tanh')
fc2 = mx.sym.FullyConnected(a3, num_hidden=10)
net = mx.sym.SoftmaxOutput(fc2, name='softmax')
shapes = {'data': (4, 1, 28, 28)}
""",
    "resnet": """
def unit(x, nf, stride, match, name):
    b1 = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, momentum=0.9, name=name + '_bn1')
    a1 = mx.sym.Activation(b1, act_type='relu', name=name + '_relu1')
    c1 = mx.sym.Convolution(a1, num_filter=nf, kernel=(3, 3), stride=stride, pad=(1, 1),
                            no_bias=True, name=name + '_conv1')
    b2 = mx.sym.BatchNorm(c1, fix_gamma=False, eps=2e-5, momentum=0.9, name=name + '_bn2')
    a2 = mx.sym.Activation(b2, act_type='relu', name=name + '_relu2')
    c2 = mx.sym.Convolution(a2, num_filter=nf, kernel=(3, 3), stride=(1, 1), pad=(1, 1),
                            no_bias=True, name=name + '_conv2')
    sc = x if match else mx.sym.Convolution(a1, num_filter=nf, kernel=(1, 1), stride=stride,
                                            no_bias=True, name=name + '_sc')
    return c2 + sc
data = mx.sym.Variable('data')
body = mx.sym.Convolution(data, num_filter=8, kernel=(3, 3), pad=(1, 1), no_bias=True,
                          name='conv0')
body = unit(body, 8, (1, 1), True, 'stage1_unit1')
body = unit(body, 16, (2, 2), False, 'stage2_unit1')
bn = mx.sym.BatchNorm(body, fix_gamma=False, eps=2e-5, name='bn1')
relu = mx.sym.Activation(bn, act_type='relu', name='relu1')
pool = mx.sym.Pooling(relu, global_pool=True, kernel=(7, 7), pool_type='avg', name='pool1')
fc = mx.sym.FullyConnected(mx.sym.Flatten(pool), num_hidden=10, name='fc1')
net = mx.sym.SoftmaxOutput(fc, name='softmax')
shapes = {'data': (2, 3, 16, 16)}
""",
    "inception": """
def conv(x, nf, k, p, name):
    c = mx.sym.Convolution(x, num_filter=nf, kernel=k, pad=p, name='conv_' + name)
    b = mx.sym.BatchNorm(c, fix_gamma=True, name='bn_' + name)
    return mx.sym.Activation(b, act_type='relu', name='relu_' + name)
data = mx.sym.Variable('data')
b1 = conv(data, 4, (1, 1), (0, 0), 'b1')
b2 = conv(conv(data, 4, (1, 1), (0, 0), 'b2r'), 6, (3, 3), (1, 1), 'b2')
b3 = conv(conv(data, 2, (1, 1), (0, 0), 'b3r'), 3, (5, 5), (2, 2), 'b3')
p = mx.sym.Pooling(data, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type='max')
b4 = conv(p, 3, (1, 1), (0, 0), 'b4')
net = mx.sym.Concat(b1, b2, b3, b4, name='ch_concat')
shapes = {'data': (2, 3, 8, 8)}
""",
    "lstm": """
data = mx.sym.Variable('data')
params = mx.sym.Variable('lstm_parameters')
state = mx.sym.Variable('lstm_state')
cell = mx.sym.Variable('lstm_state_cell')
rnn = mx.sym.RNN(data, params, state, cell, state_size=16, num_layers=2, mode='lstm',
                 state_outputs=True, name='lstm')
out = mx.sym.Reshape(rnn[0], shape=(-1, 16))
net = mx.sym.Group([mx.sym.FullyConnected(out, num_hidden=5, name='pred'), rnn[1], rnn[2]])
shapes = {'data': (7, 3, 10), 'lstm_state': (2, 3, 16), 'lstm_state_cell': (2, 3, 16)}
""",
}
# fmt: on

# A hand-written file in MXNet 0.8.0's layout: "param" and "attr" keys, two-element entries,
# bare hidden keys, an operator-level weight_lr_mult, no mxnet_version, and no bias input.
# fmt: off
LEGACY = {
    "nodes": [
        {"op": "null", "param": {}, "name": "data", "inputs": [], "backward_source_id": -1,
         "attr": {"ctx_group": "stage1", "lr_mult": "0.2"}},
        {"op": "null", "param": {}, "name": "fc1_weight", "inputs": [], "backward_source_id": -1,
         "attr": {"wd_mult": "0.3"}},
        {"op": "FullyConnected", "param": {"no_bias": "False", "num_hidden": "12"}, "name": "fc1",
         "inputs": [[0, 0], [1, 0]], "backward_source_id": -1,
         "attr": {"ctx_group": "stage1", "weight_lr_mult": "1.5"}},
        {"op": "Activation", "param": {"act_type": "relu"}, "name": "relu1", "inputs": [[2, 0]],
         "backward_source_id": -1, "attr": {"ctx_group": "stage2"}},
    ],
    "arg_nodes": [0, 1],
    "heads": [[3, 0]],
}
# fmt: on


def record(golden: Golden) -> None:
    for name, code in CASES.items():  # each case counts names from 0, as the tests do
        golden.put(name, {"snippet": code, **j.summary(*j.built(mx, code))})
    text = json.dumps(LEGACY, indent=2)
    golden.put("legacy", {"input": text, **j.summary(mx.sym.load_json(text), {"data": (5, 7)})})
    text = mxnet_file("tests/python/unittest/save_000800.json").decode()
    attrs = mx.sym.load_json(text).attr_dict()
    golden.put("save_000800", {"sha256": hashlib.sha256(text.encode()).hexdigest(),
                               "attr_dict": attrs})  # fmt: skip
