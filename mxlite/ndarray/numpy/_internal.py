"""``mx.nd.np._internal``: a function for every ``_np_*``, ``_npi_*`` and ``_npx_*`` operator,
named as registered, with ``mx.np`` arrays out (filled by ``mxlite.numpy``)."""
