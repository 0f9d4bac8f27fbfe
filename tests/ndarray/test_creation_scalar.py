"""mx.nd.array of a Python scalar is a zero-dim array, as MXNet 1.9.1 makes it."""

import mxlite as mx


def test_array_of_a_scalar_is_zero_dim() -> None:
    a = mx.nd.array(3.0)
    assert a.shape == () and a.dtype == mx.np.float32 and a.asnumpy() == 3.0
