"""mx.nd._internal: operators filled in from the registry by mxlite.ndarray."""
