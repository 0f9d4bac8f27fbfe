"""mx.sym.op: operators filled in from the registry by mxlite.symbol."""
