"""``mx.contrib.text``: text utilities of MXNet 1.9.1: token counting (``utils``), a token
index (``vocab.Vocabulary``) and token embeddings (``embedding``: GloVe and fastText files, a
custom file, or several joined)."""

from . import embedding as embedding
from . import utils as utils
from . import vocab as vocab

__all__ = ["embedding", "utils", "vocab"]
