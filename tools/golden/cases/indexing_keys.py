"""MXNet's indexing-key helpers of ``mx.nd.ndarray`` (tests/ndarray/test_indexing_keys.py; the
keys of tests/ndarray/indexing_keys_cases.py): ``indexing_key_expand_implicit_axes``,
``get_indexing_dispatch_code`` and ``get_oshape_of_gather_nd_op`` on each key, the result in the
metadata (``want``, JSON as the cases module encodes it, or the exception's type name); ``tables``:
``_GRAD_REQ_MAP`` and ``_STORAGE_TYPE_ID_TO_STR``."""

import mxnet as mx
from core import Golden, load_module
from mxnet.ndarray import ndarray as ndmod

FILE = "tests/ndarray/golden/indexing_keys.npz"
c = load_module("tests/ndarray/indexing_keys_cases.py")


def record(golden: Golden) -> None:
    expand = ndmod.indexing_key_expand_implicit_axes
    for name, key, np_mode in c.EXPAND:
        if np_mode:
            mx.npx.set_np()
        got = c.outcome(lambda key=key: expand(c.decode(mx, key), tuple(c.SHAPE)))
        if np_mode:
            mx.npx.reset_np()
        golden.put(f"expand/{name}", {"key": key, "np": np_mode, "want": got})
    for name, key in c.DISPATCH:
        want = c.outcome(ndmod.get_indexing_dispatch_code, c.decode(mx, key))
        golden.put(f"dispatch/{name}", {"key": key, "want": want})
    for name, dshape, ishape in c.GATHER:
        want = c.outcome(ndmod.get_oshape_of_gather_nd_op, tuple(dshape), tuple(ishape))
        golden.put(f"gather/{name}", {"dshape": dshape, "ishape": ishape, "want": want})
    tables = {
        "grad_req": ndmod._GRAD_REQ_MAP,
        "stype_id_to_str": {str(k): v for k, v in ndmod._STORAGE_TYPE_ID_TO_STR.items()},
    }
    golden.put("tables", tables)
