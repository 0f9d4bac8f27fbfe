"""``python -m mxlite.run [--numpy-aliases] script.py args...``: see ``mxlite/run/__init__.py``."""

from . import main

main()
