"""The two flags of the imperative runtime: whether operator calls are recorded for autograd,
and whether they run in training mode (Dropout, BatchNorm).

They live at the operator layer because every level above reads or sets them: ``mx.nd``'s
operator calls record themselves and pass ``is_train`` on, custom operators switch recording
off around the user's Python, and ``mx.autograd`` is their public face (``record``, ``pause``,
``train_mode``, ...). One process-wide list, ``[is_recording, is_training]``, mutated in place
so that every holder of a reference sees the change.
"""

from __future__ import annotations

STATE: list[bool] = [False, False]
