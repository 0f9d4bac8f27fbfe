"""gluon.contrib.data.text's WikiText datasets on a tiny local corpus, against MXNet 1.9.1
(tools/golden/cases/wikitext.py): samples, labels, vocabulary and token counts."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon.contrib.data import text as wikitext

from ...golden_file import load
from . import wikitext_cases

DATA = load("gluon/contrib/golden/wikitext.npz")
ROOT = wikitext_cases.ROOT
pytestmark = pytest.mark.filterwarnings("ignore:.*differs from the published")


@pytest.mark.parametrize("name", wikitext_cases.NAMES)
def test_wikitext_as_mxnet(name: str) -> None:
    case, want = DATA.cases[name], DATA.arrays(name)
    ds = wikitext_cases.make(mx, name)
    assert len(ds) == case["len"] and ds.vocabulary.idx_to_token == case["idx_to_token"]
    assert dict(ds.frequencies) == case["frequencies"]
    np.testing.assert_array_equal(ds._data.asnumpy(), want["data"])
    np.testing.assert_array_equal(ds._label.asnumpy(), want["label"])
    assert ds._data.dtype == np.int32
    x, y = ds[0]
    assert [x.asnumpy().tolist(), y.asnumpy().tolist()] == case["first"]


def test_a_local_file_that_is_not_the_published_one_warns() -> None:
    with pytest.warns(UserWarning, match="differs from the published wiki.test.tokens"):
        wikitext.WikiText2(root=ROOT, segment="test", seq_len=2)
    with pytest.raises(ValueError, match="segment must be one of"):
        wikitext.WikiText2(root=ROOT, segment="dev")
    loader = mx.gluon.data.DataLoader(wikitext_cases.make(mx, "train_5"), batch_size=2)
    assert next(iter(loader))[0].shape == (2, 5)
