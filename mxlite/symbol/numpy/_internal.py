"""``mx.sym.np._internal``: a symbol function per ``_np*`` operator (filled by the package)."""
