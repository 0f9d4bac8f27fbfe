"""mx.viz.plot_network: node names, labels, colours and edges as MXNet draws them."""

import warnings

import numpy as np
import pytest

import mxlite as mx

pytest.importorskip("graphviz")


def _net():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), stride=(2, 2), num_filter=8, name="c1")
    net = mx.sym.Activation(net, act_type="relu", name="r1")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="out")


def test_nodes_are_named_after_the_graph_and_labelled_by_kind():
    dot = mx.viz.plot_network(_net(), shape={"data": (2, 3, 9, 9)}, dtype={"data": np.float32})
    src = dot.source
    assert 'c1 [label="Convolution\n3x3/2x2, 8" fillcolor="#fb8072"' in src
    assert 'r1 [label="Activation\nrelu" fillcolor="#ffffb3"' in src
    assert 'data [label=data fillcolor="#8dd3c7"' in src
    assert 'fc -> r1 [label="8x4x4(float32)" arrowtail=open dir=back]' in src
    assert "c1_weight" not in src


def test_weights_shown_only_through_edges_without_hiding():
    src = mx.viz.plot_network(_net(), hide_weights=False).source
    assert "c1 -> c1_weight" in src
    assert "\tc1_weight [" not in src


def test_repeated_names_warn():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=4, name="fc")
    net = mx.sym.FullyConnected(net, num_hidden=2, name="fc")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mx.viz.plot_network(net)
    assert len(caught) == 1
    assert "Repeated names: fc" in str(caught[0].message)


def test_incomplete_shape_raises():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=4, name="fc")
    with pytest.raises(mx.base.MXNetError, match="shape"):
        other = mx.sym.FullyConnected(mx.sym.Variable("other"), num_hidden=4, name="fc2")
        mx.viz.plot_network(net + other, shape={"data": (2, 3)})
