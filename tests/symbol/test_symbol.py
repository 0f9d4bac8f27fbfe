"""Symbol construction: naming, attributes, composition, outputs, errors."""

import copy

import pytest

import mxlite as mx


def test_auto_names_and_auto_variables():
    with mx.name.NameManager():
        x = mx.sym.var("x")
        a = mx.sym.Activation(x, act_type="relu")
        b = mx.sym.Activation(a, act_type="relu")
        assert (a.name, b.name) == ("activation0", "activation1")
        c = mx.sym.LeakyReLU(b, act_type="prelu", name="pr")
    assert c.list_arguments() == ["x", "pr_gamma"]
    gamma = c.get_internals()["pr_gamma"]
    assert gamma.attr("__init__") == '["Constant", {"value": 0.25}]'
    assert gamma.attr("act_type") == "prelu"  # auto variables copy the node's attributes


def test_prefix_and_attr_scope():
    with mx.name.Prefix("net_"), mx.AttrScope(ctx_group="g1"):
        s = mx.sym.relu(mx.sym.var("x"))
        v = mx.sym.var("w", lr_mult=2)
    assert s.name == "net_relu0"
    assert s.attr("ctx_group") == "g1" and s.attr("__ctx_group__") == "g1"
    assert v.list_attr() == {
        "__ctx_group__": "g1",
        "ctx_group": "g1",
        "__lr_mult__": "2",
        "lr_mult": "2",
    }
    with pytest.raises(mx.MXNetError, match="must be a string"):
        mx.AttrScope(x=1)


def test_var_attributes_and_errors():
    v = mx.sym.var("v", shape=(2, 3), dtype="float16", init="zeros", stype="csr")
    assert v.attr("__shape__") == "(2, 3)" and v.attr("__dtype__") == "2"
    assert v.attr("__storage_type__") == "2" and v.attr("__init__") == "zeros"
    with pytest.raises(ValueError, match="double underscores"):
        mx.sym.var("v", foo=1)
    with pytest.raises(TypeError):
        mx.sym.var(3)
    with pytest.raises(mx.MXNetError, match="weight_lr_mult.*deprecated"):
        mx.sym.var("v")._set_attr(weight_lr_mult="2")


def test_outputs_indexing_group_and_children():
    x = mx.sym.var("x")
    sp = mx.sym.split(x, num_outputs=3, name="sp")
    assert sp.list_outputs() == ["sp_output0", "sp_output1", "sp_output2"]
    assert sp.name == "sp" and len(sp) == 3
    assert sp["sp_output1"].list_outputs() == ["sp_output1"]
    assert sp[-1].list_outputs() == ["sp_output2"]
    assert sp[1:].list_outputs() == ["sp_output1", "sp_output2"]
    assert [s.list_outputs()[0] for s in sp] == sp.list_outputs()
    with pytest.raises(ValueError, match="Cannot find output"):
        sp["nope"]
    with pytest.raises(IndexError):
        sp[3]
    g = mx.sym.Group([sp[0], mx.sym.relu(x, name="r")])
    assert repr(g) == "<Symbol group [sp, r]>" and g.name is None
    assert g.get_children().list_outputs() == ["x", "x"]
    assert x.get_children() is None
    with pytest.raises(TypeError):
        mx.sym.Group([x, 1])


def test_compose_replaces_variables_and_keeps_original():
    net = mx.sym.Activation(mx.sym.var("in"), act_type="relu", name="act")
    data = mx.sym.var("data")
    composed = net(**{"in": mx.sym.sigmoid(data, name="sig")}, name="c")
    assert composed.list_arguments() == ["data"] and composed.name == "c"
    assert net.list_arguments() == ["in"] and net.name == "act"
    pos = net(data)
    assert pos.list_arguments() == ["data"]
    with pytest.raises(mx.MXNetError, match="nope.*not found"):
        net(nope=data)
    with pytest.raises(mx.MXNetError, match="positional or"):
        net(data, x=data)
    cp = copy.deepcopy(net)
    assert cp.tojson() == net.tojson() and cp._entries[0][0] is not net._entries[0][0]


def test_operator_input_errors():
    x = mx.sym.var("x")
    with pytest.raises(mx.MXNetError, match="act.*unknown input 'foo'"):
        mx.sym.Activation(x, foo=x, act_type="relu", name="act")
    with pytest.raises(mx.MXNetError, match="act_type"):
        mx.sym.Activation(x, act_type="nope")
    with pytest.raises(mx.MXNetError, match="one output"):
        mx.sym.relu(mx.sym.split(x, num_outputs=2))
    with pytest.raises(mx.MXNetError, match="num_args=1 but 2"):
        mx.sym.Concat(x, x, num_args=1)
    # inputs beyond those given become variables, as in MXNet
    assert mx.sym.Concat(x, x, num_args=3, name="c").list_arguments() == ["x", "c_arg2"]


def test_operators_and_fluent_methods():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    assert (a + b).attr("name").startswith("_plus")
    assert (a - 1).list_attr() == {"scalar": "1"}
    assert a.reshape(shape=(2, -1)).infer_shape(a=(4, 3))[1] == [(2, 6)]
    with pytest.raises(mx.MXNetError):
        bool(a)
    with pytest.raises(mx.MXNetError):
        a += 1
    with pytest.raises(TypeError):
        a + "x"


def test_debug_str_lists_nodes():
    x = mx.sym.var("x")
    s = mx.sym.Activation(x, act_type="relu", name="act")
    text = s.debug_str()
    assert text.startswith("Symbol Outputs:\n\toutput[0]=act(0)\nVariable:x\n")
    assert (
        "Op:Activation, Name=act\nInputs:\n\targ[0]=x(0) version=0\nAttrs:\n\tact_type=relu" in text
    )


def test_late_registered_operator_is_found():
    from mxlite.operator import registry

    assert mx.sym.elemwise_add is mx.sym.op.elemwise_add
    assert callable(mx.sym._internal._Plus)
    assert callable(mx.sym.linalg.gemm2)
    with pytest.raises(AttributeError):
        getattr(mx.sym, "no_such_operator")  # noqa: B009
    assert set(n for n in registry.all_ops() if not n.startswith("_")) <= set(dir(mx.sym.op))


def test_gen_atomic_symbol_composes_like_the_source():
    data, p = mx.sym.Variable("data"), mx.sym.Variable("param")
    h0, h1 = mx.sym.Variable("h0"), mx.sym.Variable("h1")
    rnn = mx.sym.RNN(data, p, h0, h1, state_size=10, num_layers=2, bidirectional=True,
                     state_outputs=True, mode="lstm", name="rnn")  # fmt: skip
    atom = rnn._gen_atomic_symbol()
    assert atom.list_arguments() == []
    assert atom.list_outputs() == rnn.list_outputs()
    again = atom(data, p, h0, h1)
    assert again.tojson() == rnn.tojson()
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")._gen_atomic_symbol()(data=data)
    assert fc.list_arguments() == ["data", "fc_weight", "fc_bias"]


def test_gen_atomic_symbol_needs_one_operator_node():
    with pytest.raises(mx.base.MXNetError, match="variable"):
        mx.sym.Variable("x")._gen_atomic_symbol()
    two = mx.sym.Group([mx.sym.sin(mx.sym.Variable("x")), mx.sym.cos(mx.sym.Variable("x"))])
    with pytest.raises(mx.base.MXNetError, match="one node"):
        two._gen_atomic_symbol()


def test_numpy_scalars_are_written_as_plain_numbers():
    import numpy as np

    t = mx.sym.transpose(mx.sym.Variable("a"), axes=tuple(np.arange(3)[::-1]), name="t")
    assert t.list_attr() == {"axes": "(2, 1, 0)"}
    s = mx.sym.sum(mx.sym.Variable("a"), axis=np.int64(1), name="s")
    assert s.list_attr() == {"axis": "1"}
