"""mx.nd.linalg: operators filled in from the registry by mxlite.ndarray."""
