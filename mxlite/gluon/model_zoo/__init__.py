"""``mx.gluon.model_zoo``: MXNet 1.9.1's predefined networks (``vision``) and the store of
their pretrained parameters (``model_store``)."""

from . import model_store as model_store
from . import vision as vision
