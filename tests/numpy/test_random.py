"""mx.np.random: shapes, dtypes, ranges and seeding."""

from __future__ import annotations

import numpy as onp

from mxlite import np


def test_shapes_dtypes_and_ranges() -> None:
    np.random.seed(0)
    u = np.random.uniform(2, 3, size=(100,))
    assert u.dtype == onp.float32 and 2 <= u.min().item() and u.max().item() < 3
    assert np.random.uniform().shape == ()
    assert np.random.normal(0, 1, size=(2, 3)).shape == (2, 3)
    assert np.random.normal(np.zeros(4), 1).shape == (4,)
    r = np.random.randint(0, 5, size=(50,))
    assert r.dtype == onp.int64 and 0 <= r.min().item() and r.max().item() < 5
    assert np.random.rand(2, 3).shape == (2, 3) and np.random.randn(4).dtype == onp.float32


def test_seed_repeats_the_draws() -> None:
    np.random.seed(7)
    a = np.random.normal(size=(5,)).asnumpy()
    np.random.seed(7)
    b = np.random.normal(size=(5,)).asnumpy()
    assert (a == b).all()


def test_choice_shuffle_multinomial() -> None:
    c = np.random.choice(5, 3, replace=False)
    assert len(set(c.tolist())) == 3 and c.dtype == onp.int64
    x = np.arange(10)
    np.random.shuffle(x)
    assert sorted(x.tolist()) == list(range(10))
    m = np.random.multinomial(100, [0.5, 0.5], size=(3,))
    assert m.shape == (3, 2) and (m.sum(axis=1).asnumpy() == 100).all()
