"""mx.sym.image: operators filled in from the registry by mxlite.symbol."""
