"""Sparse storage: kernel values (storage.py), sparse forms of operators (forms.py) and the
operators that exist for sparse arrays (ops.py)."""

from . import forms as forms
from . import ops as ops
from . import storage as storage
