"""``mx.nd.np._internal``: a function for every ``_np_*``, ``_npi_*`` and ``_npx_*`` operator,
named as registered, with ``mx.np`` arrays out."""

import sys

from ...numpy._register import NP_PREFIXES, populate

populate(sys.modules[__name__], NP_PREFIXES, strip=False)
