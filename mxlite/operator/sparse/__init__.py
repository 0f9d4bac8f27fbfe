"""Sparse storage: kernel values (storage.py), the sparse forms operators declare (forms.py,
forms_tensor.py) and the operators that exist for sparse arrays (ops.py, which
``mxlite.operator`` imports: this package is imported by the operator files that declare
forms, so it imports none of them)."""

from . import forms as forms
from . import forms_tensor as forms_tensor
from . import storage as storage
