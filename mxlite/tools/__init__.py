"""Command line tools: ``python -m mxlite.tools.im2rec``."""
