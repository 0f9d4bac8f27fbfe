"""mx.sym.contrib: operators filled in from the registry by mxlite.symbol."""
