"""Front-end behaviours that MXNet 1.9.1's own unit tests rely on."""

import mxlite as mx


def test_positional_none_input_is_skipped():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    s = mx.sym.Convolution(x, w, None, kernel=(3,), num_filter=2, no_bias=True)
    assert s.list_arguments() == ["x", "w"]


def test_keyword_none_input_is_skipped():
    s = mx.sym.SequenceReverse(mx.sym.var("x"), sequence_length=None)
    assert s.list_arguments() == ["x"]


def test_sym_random_scalar_and_symbol_dispatch():
    u = mx.sym.random.uniform(0, 1, shape=(2, 3))
    assert u.eval()[0].shape == (2, 3)
    lo, hi = mx.sym.var("lo"), mx.sym.var("hi")
    v = mx.sym.random.uniform(lo, hi, shape=(4,))
    assert v.eval(lo=mx.nd.zeros(2), hi=mx.nd.ones(2))[0].shape == (2, 4)
    assert mx.sym.random.multinomial(mx.sym.var("p")).list_outputs()[1].endswith("_prob")


def test_sym_random_mixed_params_raise():
    try:
        mx.sym.random.normal(mx.sym.var("a"), 1)
    except mx.base.MXNetError as e:
        assert "same type" in str(e)
    else:
        raise AssertionError("no error")


def test_sym_random_shuffle_permutes_rows():
    x = mx.sym.var("x")
    out = mx.sym.random.shuffle(x).eval(x=mx.nd.arange(6))[0].asnumpy()
    assert sorted(out.tolist()) == list(range(6))
