"""mx.sym.linalg: operators filled in from the registry by mxlite.symbol."""
