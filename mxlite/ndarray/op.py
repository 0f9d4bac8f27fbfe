"""mx.nd.op: operators filled in from the registry by mxlite.ndarray."""
