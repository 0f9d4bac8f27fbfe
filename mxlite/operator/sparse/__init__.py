"""Sparse storage: kernel values (storage.py), sparse forms of operators (forms.py,
forms_tensor.py) and the operators that exist for sparse arrays (ops.py)."""

from . import forms as forms
from . import forms_tensor as forms_tensor
from . import ops as ops
from . import storage as storage
