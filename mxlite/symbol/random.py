"""mx.sym.random: operators filled in from the registry by mxlite.symbol."""
