"""d2l 1.0.3 on mxlite's ``mxnet`` alias (tests/run/test_d2l.py; needs ``d2l==1.0.3`` installed
``--no-deps`` beside the reference MXNet, with matplotlib, pandas, requests and IPython and
``numpy==1.23.5`` on the same pip line): one case per workload of tests/run/d2l_cases.py (the
package's functions; parameters and data from seeded NumPy streams), and in
``d2l_book_cases.npz`` one per chapter of tests/run/d2l_book_cases.py (cells of *Dive into Deep
Learning*'s MXNet code, d2l-ai/d2l-en at v1.0.3), each with its arrays and the ``seconds`` it
took."""

import d2l  # noqa: F401  (fails early without d2l beside the reference MXNet)
from core import Golden

FILE = "tests/run/golden/d2l/d2l_cases.npz"


def record(golden: Golden) -> None:
    golden.take("tests/run/d2l_cases.py")
    book = Golden("tests/run/golden/d2l/d2l_book_cases.npz", 0)
    book.take("tests/run/d2l_book_cases.py")
    book.save()
