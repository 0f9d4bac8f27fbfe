"""mx.sym._internal: operators filled in from the registry by mxlite.symbol."""
