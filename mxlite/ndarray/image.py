"""mx.nd.image: operators filled in from the registry by mxlite.ndarray."""
