"""mx.nd.random: operators filled in from the registry by mxlite.ndarray."""
