"""Rank 1 fails (argv[1]: 'raise' or 'kill') while rank 0 waits for it in a collective."""

import os
import signal
import sys

import mxlite as mx

kv = mx.kv.create("dist_sync")
kv.init(0, mx.nd.zeros((4,)))
if kv.rank == 1:
    if sys.argv[1] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise ValueError("boom from the failing rank")
kv.push(0, mx.nd.ones((4,)))
out = mx.nd.zeros((4,))
kv.pull(0, out=out)
out.asnumpy()  # never completes: rank 1 is gone
print("rank 0 finished: the job was not ended", flush=True)
