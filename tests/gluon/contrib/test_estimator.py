"""gluon.contrib.estimator: fit/evaluate with the default handlers, stopping by epochs or
batches, early stopping, checkpoints, and argument checks."""

import numpy as np
import pytest

import mxlite as mx
from mxlite import gluon
from mxlite.gluon.contrib.estimator import Estimator, event_handler


def _data(n=16):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.float32)
    return gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=4)


def _estimator(lr=0.1):
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    return Estimator(net, loss, trainer=trainer, context=mx.cpu())


def test_fit_trains_and_tracks_metrics():
    est = _estimator()
    assert [m.name for m in est.train_metrics] == [
        "training accuracy",
        "training softmaxcrossentropyloss",
    ]
    assert [m.name for m in est.val_metrics][0] == "validation accuracy"
    data = _data()
    before = est.net.weight.data().asnumpy().copy()
    est.fit(data, val_data=data, epochs=3)
    assert not np.allclose(before, est.net.weight.data().asnumpy())
    assert 0 <= est.train_metrics[0].get()[1] <= 1
    assert not np.isnan(est.val_metrics[1].get()[1])


def test_fit_by_batches_stops_there():
    est = _estimator()
    counter = []

    class Count(event_handler.BatchEnd):
        def batch_end(self, estimator, *args, **kwargs):
            counter.append(1)

    est.fit(_data(), batches=6, event_handlers=[Count()])
    assert len(counter) == 6
    with pytest.raises(ValueError, match="one and only one"):
        est.fit(_data(), epochs=1, batches=1)
    with pytest.raises(ValueError, match="DataLoader"):
        est.fit([1, 2], epochs=1)


def test_early_stopping_and_checkpoints(tmp_path):
    est = _estimator(lr=0.0)  # nothing improves
    acc = est.train_metrics[0]
    early = event_handler.EarlyStoppingHandler(monitor=acc, patience=1, mode="max")
    ckpt = event_handler.CheckpointHandler(str(tmp_path), epoch_period=1, max_checkpoints=2)
    est.fit(_data(), epochs=10, event_handlers=[early, ckpt])
    assert early.stop_training and early.current_epoch < 10
    params = sorted(p.name for p in tmp_path.glob("*.params"))
    assert len(params) == 2 and all(p.startswith("model-epoch") for p in params)
    assert len(list(tmp_path.glob("*.states"))) == 2


def test_argument_checks():
    net = gluon.nn.Dense(2)
    with pytest.raises(ValueError, match="Loss"):
        Estimator(net, loss="l2")
    with pytest.raises(ValueError, match="Trainer"):
        Estimator(net, gluon.loss.L2Loss(), trainer="sgd", context=mx.cpu())
    with pytest.raises(ValueError, match="Batch Processor"):
        Estimator(net, gluon.loss.L2Loss(), batch_processor=object(), context=mx.cpu())


class _CountBatches(event_handler.BatchEnd, event_handler.EpochEnd):
    """Counts batch ends per epoch and asks to stop after the second batch."""

    def __init__(self):
        self.per_epoch = [0]

    def batch_end(self, estimator, *args, **kwargs):
        self.per_epoch[-1] += 1
        return self.per_epoch[-1] == 2

    def epoch_end(self, estimator, *args, **kwargs):
        self.per_epoch.append(0)
        return False


def test_a_batch_end_handler_ends_a_training_epoch_but_not_an_evaluation():
    est, data = _estimator(), _data(16)  # 4 batches an epoch
    counter = _CountBatches()
    est.fit(data, epochs=2, event_handlers=[counter])
    assert counter.per_epoch == [2, 2, 0]
    counter = _CountBatches()
    est.evaluate(data, event_handlers=[counter])
    assert counter.per_epoch == [4, 0]


@pytest.mark.parametrize("call", ["fit", "evaluate"])
def test_data_must_be_a_dataloader(call):
    est, x = _estimator(), mx.nd.ones((4, 3))
    where = "gluon.data.dataloader" if call == "fit" else "gluon.data.DataLoader"
    with pytest.raises(ValueError, match=rf"only support input as Gluon DataLoader\. .* {where}$"):
        est.fit(x, epochs=1) if call == "fit" else est.evaluate(x)
