"""mx.nd.contrib: operators filled in from the registry by mxlite.ndarray."""
