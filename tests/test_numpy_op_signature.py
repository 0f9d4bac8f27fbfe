"""mx.numpy_op_signature._get_builtin_op: operator name -> front-end function."""

from __future__ import annotations

import pytest

import mxlite as mx
from mxlite.numpy_op_signature import _get_builtin_op


def test_names_map_to_the_front_end_functions() -> None:
    assert _get_builtin_op("_np_sum") is mx.np.sum
    assert _get_builtin_op("_np_random_uniform") is mx.np.random.uniform
    assert _get_builtin_op("_npx_relu") is mx.npx.relu
    assert _get_builtin_op("_npi_add") is None
    with pytest.raises(ValueError, match="no_such"):
        _get_builtin_op("_np_no_such")
