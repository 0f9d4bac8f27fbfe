"""NDArrayIter and ResizeIter cases, built and run the same way on MXNet 1.9.1 and on mxlite
(``mx`` is either): ``tools/golden/cases/io.py`` records what MXNet yields
(tests/io/golden/ndarray_iter.npz: one metadata-only entry per case, ``{"spec": how to build the
iterator, "mxnet": its result}``), ``test_ndarray_iter.py`` compares.

* an input is ``{"shape": [...], "dtype": name, "nd": bool, "start": k}``: the values
  ``arange(prod(shape)) + k`` in that shape and dtype, as an NDArray when ``nd`` is set;
  ``data``/``label`` are one input, a list of them, a dict of them or null.
* ``seed``: ``np.random.seed`` before the iterator is made (for ``shuffle``).
* ``resize``: wrap the iterator in ``ResizeIter(it, size, reset_internal)``.
* result: ``provide_data``/``provide_label`` as ``[name, shape, dtype, layout]``, and for each
  of ``epochs`` epochs (``reset()`` between them) the batches: data and label values
  (flattened, as ints: every input value is one), their dtypes and ``pad``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def inp(shape, dtype="float32", nd=False, start=0):
    return {"shape": list(shape), "dtype": dtype, "nd": nd, "start": start}


def build(mx: Any, spec: Any) -> Any:
    """The input(s) ``spec`` describes, NDArrays made by ``mx``."""
    if spec is None:
        return None
    if isinstance(spec, list):
        return [build(mx, s) for s in spec]
    if "shape" not in spec:
        return {k: build(mx, v) for k, v in spec.items()}
    values = (np.arange(int(np.prod(spec["shape"]))) + spec["start"]).reshape(spec["shape"])
    values = values.astype(spec["dtype"])
    return mx.nd.array(values, dtype=spec["dtype"]) if spec["nd"] else values


def ints(arr):
    # every input value is a small integer, so ints keep the file short and exact
    values = arr.asnumpy().ravel()
    assert np.array_equal(values, np.round(values))
    return values.astype(np.int64).tolist()


def desc(d):
    return [d.name, list(d.shape), np.dtype(d.dtype).name, d.layout]


def run(mx: Any, spec: dict) -> dict:
    """What the iterator of ``spec``, made by ``mx``, yields (see the module's docstring)."""
    if "seed" in spec:
        np.random.seed(spec["seed"])
    it = mx.io.NDArrayIter(build(mx, spec["data"]), build(mx, spec.get("label")), **spec["kwargs"])
    if "resize" in spec:
        it = mx.io.ResizeIter(it, *spec["resize"])
    result = {
        "provide_data": [desc(d) for d in it.provide_data],
        "provide_label": [desc(d) for d in it.provide_label],
        "epochs": [],
    }
    for _ in range(spec["epochs"]):
        result["epochs"].append([{
            "data": [ints(a) for a in b.data],
            "label": [ints(a) for a in b.label],
            "dtypes": [np.dtype(a.dtype).name for a in b.data + b.label],
            "pad": b.pad,
        } for b in it])  # fmt: skip
        it.reset()
    return result


def case(name, data, label=None, epochs=2, **kwargs):
    spec = {"name": name, "data": data, "label": label, "epochs": epochs}
    for key in ("seed", "resize"):
        if key in kwargs:
            spec[key] = kwargs.pop(key)
    spec["kwargs"] = kwargs
    return spec


X = inp((10,))
Y = inp((10,), start=100)
# fmt: off
SPECS = [
    case("pad", X, Y, batch_size=3),
    case("pad_exact", X, Y, batch_size=5),
    case("pad_tiny", inp((3, 2)), inp((3,)), batch_size=8),
    case("pad_bigger_than_data", inp((4,)), None, batch_size=10),
    case("discard", X, Y, batch_size=3, last_batch_handle="discard"),
    case("roll_over", X, Y, epochs=4, batch_size=3, last_batch_handle="roll_over"),
    case("roll_over_4", X, Y, epochs=4, batch_size=4, last_batch_handle="roll_over"),
    case("roll_over_no_label", X, None, epochs=3, batch_size=4, last_batch_handle="roll_over"),
    case("shuffle_pad", X, Y, epochs=3, batch_size=3, shuffle=True, seed=0),
    case("shuffle_roll_over", X, Y, epochs=3, batch_size=4, shuffle=True, seed=1,
         last_batch_handle="roll_over"),
    case("shuffle_discard", X, Y, batch_size=4, shuffle=True, seed=2, last_batch_handle="discard"),
    case("dict_sorted", {"b": inp((6, 2)), "a": inp((6, 3), start=50), "c_img": inp((6, 1, 2, 2))},
         {"z_label": inp((6,)), "lab": inp((6, 1), start=7)}, batch_size=4),
    case("list_names", [inp((5, 2)), inp((5,), start=9)], [inp((5,))], batch_size=2),
    case("names", X, Y, batch_size=4, data_name="img", label_name="lbl"),
    case("int_numpy", inp((7, 2), "int32"), inp((7,), "int64"), batch_size=3),
    case("float64_numpy", inp((5, 2), "float64"), None, batch_size=2),
    case("int_ndarray", inp((7, 2), "int32", nd=True), inp((7,), "int32", nd=True), batch_size=3),
    case("int_ndarray_shuffle", inp((6,), "int32", nd=True), None, batch_size=3, shuffle=True,
         seed=3),
    case("layout_tnc", inp((2, 5, 3)), inp((2, 5)), batch_size=2, layout="TNC"),
    case("resize_longer", X, Y, epochs=2, batch_size=4, resize=[5, True]),
    case("resize_shorter", X, Y, epochs=3, batch_size=3, resize=[2, True]),
    case("resize_no_reset", X, Y, epochs=3, batch_size=3, resize=[2, False]),
]
# fmt: on
