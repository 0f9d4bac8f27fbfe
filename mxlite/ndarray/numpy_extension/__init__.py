"""``mx.nd.npx``: the functions of ``mx.npx``; ``mxlite.numpy_extension``, a higher layer,
fills this module when it is imported (``import mxlite`` does)."""
