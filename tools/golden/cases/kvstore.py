"""KVStore (tests/kvstore/test_kvstore.py; the runs of tests/kvstore/kvstore_cases.py): the
entry ``compressed`` holds what a 'device' store with 2-bit compression pulls after each of
three pushes (``<push>``); ``adam`` the weights of a 'local' store with Adam after three pushes
of two keys (``w0``, ``w1``), whose optimizer states go to tests/kvstore/golden/
kvstore_adam.states as ``save_optimizer_states`` writes them, and after three more from the
loaded states (``more_w0``, ``more_w1``)."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/kvstore/golden/kvstore.npz"
c = load_module("tests/kvstore/kvstore_cases.py")


def record(golden: Golden) -> None:
    golden.put("compressed", {}, **{str(s): p for s, p in enumerate(c.compressed(mx))})
    kv = c.adam_store(mx, np.ones(c.SHAPE), np.ones(c.SHAPE) * 2)
    w0, w1 = c.push_adam(mx, kv, range(3))
    states = str(golden.path.parent / "kvstore_adam.states")
    kv.save_optimizer_states(states)
    # a new store, from the weights the first one reached, continues from the loaded states
    kv2 = c.adam_store(mx, w0, w1)
    kv2.load_optimizer_states(states)
    more_w0, more_w1 = c.push_adam(mx, kv2, range(3, 6))
    golden.put("adam", {}, w0=w0, w1=w1, more_w0=more_w0, more_w1=more_w1)
