"""Seconds per epoch of d2l 1.0.3's RNN language model (``d2l.RNNLM`` on ``d2l.RNN``, i.e.
``gluon.rnn.RNN`` with 32 hidden units, a 28-token vocabulary as the book's character-level Time
Machine), batch 32, 35 steps, trained with ``d2l.Trainer.fit_epoch``'s steps (autograd.record,
``model.loss``, backward, ``Trainer.clip_gradients`` at 1, ``gluon.Trainer`` SGD lr 1; without
the progress plot) on random tokens, 20 batches per epoch; NumPy mode, not hybridized (as the
book). The book's d2l 1.0.3 has no ``RNNModel``: RNNLM is its concise RNN language model.
mxlite runs d2l through its ``mxnet`` alias. Issue 27 asks for <= 1.0x MXNet's time.
Usage: python benchmarks/d2l_rnn.py [--rounds N] [--repeat N] [--batches N] [--profile]."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import run_epochs  # noqa: E402
from d2l_lenet import import_d2l  # noqa: E402

BATCH, STEPS, VOCAB, HIDDEN = 32, 35, 28, 32


def epoch_fn(impl: str, batches: int):
    """A function running one training epoch of ``batches`` batches, then waiting."""
    import numpy as onp

    mx, d2l = import_d2l(impl)
    np, npx, autograd = mx.np, mx.npx, mx.autograd
    npx.set_np()
    mx.random.seed(0)
    rs = onp.random.RandomState(0)
    tokens = rs.randint(0, VOCAB, (BATCH * batches, STEPS + 1)).astype("float32")
    X, Y = np.array(tokens[:, :-1]), np.array(tokens[:, 1:])
    train_iter = d2l.load_array((X, Y), BATCH)
    model = d2l.RNNLM(d2l.RNN(num_hiddens=HIDDEN), vocab_size=VOCAB, lr=1)
    optim = model.configure_optimizers()
    fit = d2l.Trainer(max_epochs=1, gradient_clip_val=1)

    def run_epoch() -> None:
        for Xb, Yb in train_iter:
            with autograd.record():
                loss = model.loss(model(Xb), Yb)
            loss.backward()
            fit.clip_gradients(1, model)
            optim.step(1)
        npx.waitall()

    return run_epoch


if __name__ == "__main__":
    run_epochs("d2l_rnn", __doc__, epoch_fn)
