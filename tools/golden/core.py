"""The one core of the golden files: run a case on real MXNet 1.9.1, write it in one layout.

Run only under the reference interpreter (it imports ``mxnet``, never ``mxlite``)::

    /tmp/mxref/bin/python tools/golden/run.py FAMILY [FAMILY ...]

A family (``tools/golden/cases/<family>.py``) is data: the file it writes, a seed, and its
cases; ``run.py`` hands each case to :meth:`Golden.op`. The layout, the only one the tests read
(``tests/golden_file.py``), is one ``.npz`` per family:

``__cases__``
    JSON (UTF-8 bytes): case name -> its metadata (``op``, ``params``, ``n_in``, ``n_out``,
    ``grad``; ``n_aux`` and ``train`` where not 0 and True; whatever the family adds).
``<case>/in<i>``, ``<case>/out<j>``
    the inputs and MXNet's visible outputs.
``<case>/head<j>``, ``<case>/grad<i>``, ``<case>/aux<k>``
    for differentiable cases: the head gradient of output ``j`` (drawn from the family's
    generator after the forward pass), MXNet's gradient of input ``i``, and auxiliary state
    ``k`` as the backward pass left it.
"""

import contextlib
import importlib.util
import json
import os
import pickle
import subprocess
import sys
import tempfile
import types
from functools import partial
from pathlib import Path
from typing import Any

import mxnet as mx
import numpy as np

ROOT = Path(__file__).resolve().parents[2]


# where MXNet's front end puts the operators whose names carry these prefixes
PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_image_": "image", "_sparse_": "sparse",
            "_np_": "numpy", "_random_": "random"}  # fmt: skip

# regions of interest (batch index, x1, y1, x2, y2) on a 2 x C x 9 x 10 feature map: one
# partly outside, one of a pixel's width, one past the edge
ROIS = [[0, 1.2, 2.3, 7.9, 8.1], [1, -2, 0.5, 4, 3.3], [0, 3, 3, 3.2, 3.1], [1, 5.5, 1, 12, 12]]


def nd_function(op: str, front: Any = None) -> Any:
    """``mx.nd.<op>`` (or the same in ``front``, e.g. ``mx.sym``) under a registered name
    (``_contrib_box_nms``) or a dotted path (``linalg.gemm``)."""
    front = mx.nd if front is None else front
    if "." in op:
        f = front
        for part in op.split("."):
            f = getattr(f, part)
        return f
    for space in (front, front._internal):
        f = getattr(space, op, None)
        if f is not None:
            return f
    for prefix, space in PREFIXES.items():
        if op.startswith(prefix) and hasattr(getattr(front, space), op[len(prefix) :]):
            return getattr(getattr(front, space), op[len(prefix) :])
    raise KeyError(f"mxnet has no operator {op!r}")


def mxnet_example(file: str) -> Any:
    """MXNet's example network definition ``example/image-classification/symbols/<file>`` at
    tag 1.9.1 as a module (MXNet's own code, run here, not copied: it imports ``mxnet``)."""
    text = mxnet_file(f"example/image-classification/symbols/{file}")
    if text is None:
        raise RuntimeError("the apache/mxnet mirror is needed (MXNET_REPO)")
    module = types.ModuleType("symbols_" + file[:-3].replace("-", "_"))
    exec(compile(text, file, "exec"), module.__dict__)
    return module


def load_module(path: str | Path) -> Any:
    """The Python file at ``path`` (relative to the repository root unless absolute) as a
    module, registered under its stem (dataclasses look their module up there): the shared case
    files in tests/, plain NumPy and functions of ``mx``."""
    path = ROOT / path
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_files = load_module("tests/golden_file.py")  # MXNet's own files at 1.9.1, as the tests read them
mxnet_file, mxnet_archive = _files.mxnet_file, _files.mxnet_archive


def seeded(shape: tuple, dtype: str = "float32", seed: int = 0, kind: str = "normal") -> np.ndarray:
    """An array of ``kind`` drawn from ``RandomState(seed)``, made ``dtype``: ``normal``;
    ``pos``, uniform in [0.5, 1.5); ``abs``, |normal| + 0.25; ``int`` and ``ties``, integers in
    [-9, 9] and (many equal) in [-2, 2]; ``relu_ties``, round(1.5 normal) clipped at 0 (equal
    maxima); ``distinct``, a permutation times 0.25 less 3; ``spread``, a permutation spread
    over [-2, 2)."""
    rng, n = np.random.RandomState(seed), int(np.prod(shape))
    draw = {
        "normal": lambda: rng.normal(size=shape),
        "pos": lambda: rng.uniform(0.5, 1.5, size=shape),
        "abs": lambda: np.abs(rng.normal(size=shape)) + 0.25,
        "int": lambda: rng.randint(-9, 10, size=shape),
        "ties": lambda: rng.randint(-2, 3, size=shape),
        "relu_ties": lambda: np.maximum(np.round(rng.normal(size=shape) * 1.5), 0),
        "distinct": lambda: rng.permutation(n).reshape(shape) * 0.25 - 3,
        "spread": lambda: rng.permutation(n).reshape(shape) * (4.0 / n) - 2.0,
    }  # fmt: skip
    return np.asarray(draw[kind]()).astype(dtype)


def row(op: str, *inputs: np.ndarray, wrt: Any = (0,), **params: Any) -> tuple:
    """A table row ``(op, inputs, params, wrt)``: the inputs that get a gradient (a list of
    positions; the first by default)."""
    return (op, list(inputs), params, wrt if wrt is None else list(wrt))


def last_line(e: Exception) -> str:
    """The last non-blank line of an exception's message, stripped (at most 200 characters)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def refusal(e: Exception) -> str:
    """Why MXNet refused a case: the exception's class and its message's last line."""
    return f"{type(e).__name__}: {last_line(e)}"


def nd_arrays(arrays: dict) -> dict:
    """``arrays`` (name -> value) as ``mx.nd.array`` makes them (float32 unless NDArrays)."""
    return {k: mx.nd.array(v) for k, v in arrays.items()}


def infer(sym: Any, args: dict, aux: dict | None = None) -> list:
    """The outputs (NDArrays) of an inference forward of ``sym`` bound on the CPU to ``args``
    and ``aux`` (name -> NDArray), with no gradients."""
    return sym.bind(mx.cpu(), args, aux_states=aux, grad_req="null").forward(is_train=False)


def quantize_mkldnn(sym: Any, args: dict, aux: dict, data: np.ndarray, **kwargs: Any) -> tuple:
    """``quantize_model_mkldnn`` step by step: ``quantize_model`` (``quantize_mode="full"``,
    ``quantized_dtype="auto"``, calibrated on all of ``data`` as one batch; ``kwargs`` pick the
    calibration mode) of the ``MKLDNN_QUANTIZE`` partition of ``sym`` with NDArray parameters:
    the calibrated graph before the post-quantize passes, after them, and its parameters and
    auxiliary states."""
    from mxnet.contrib import quantization as q

    calib = mx.io.NDArrayIter(data=mx.nd.array(data), batch_size=len(data))
    qsym, qargs, qaux = q.quantize_model(
        sym.get_backend_symbol("MKLDNN_QUANTIZE"), args, aux, ctx=mx.cpu(), calib_data=calib,
        num_calib_examples=len(data), quantized_dtype="auto", quantize_mode="full", logger=None,
        **kwargs,
    )  # fmt: skip
    return qsym, qsym.get_backend_symbol("MKLDNN_QUANTIZE"), qargs, qaux


def isolated(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` in a forked child, for cases that may crash MXNet itself (some operators
    segfault on inputs outside what they expect): its (picklable) result, or a string saying
    why it failed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send back the result or the error
        os.close(read)
        try:
            result: Any = fn(*args)
        except Exception as e:  # MXNet refuses the case
            result = refusal(e)
        with os.fdopen(write, "wb") as pipe:
            pickle.dump(result, pipe)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    return pickle.loads(data) if data else f"MXNet crashed (status {status})"


class Golden:
    """The cases and arrays of one golden file, written by :meth:`save`.

    ``rng`` is the family's generator (``np.random.RandomState`` unless the family names
    ``default_rng``): inputs drawn by the family and head gradients drawn
    here come from it in case order, so the same family writes the same file again.
    """

    def __init__(self, path: str, seed: int, generator: str = "RandomState") -> None:
        self.path = ROOT / path
        self.rng = getattr(np.random, generator)(seed)
        self.cases: dict[str, dict] = {}
        self.arrays: dict[str, np.ndarray] = {}

    def put(self, name: str, meta: dict, /, **arrays: np.ndarray) -> None:
        """Record a case whose arrays were computed by the caller."""
        if name in self.cases:
            raise KeyError(f"case {name!r} recorded twice")
        self.cases[name] = meta
        for key, value in arrays.items():
            self.arrays[f"{name}/{key}"] = np.asarray(value)

    def take(self, path: str, *args: str) -> None:
        """Run the case file at ``path`` (from the repository root; it writes its arrays, keyed
        ``<case>/<what>``, and a JSON ``times`` entry to the ``.npz`` its first argument names,
        its other arguments are ``args``) in a fresh interpreter, so that block names count from
        the same start as in the test, in a scratch directory (the files its cells save), and
        record each case it ran: its arrays and the ``seconds`` it took."""
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "outputs.npz"
            env = dict(os.environ, MPLBACKEND="Agg")
            subprocess.run([sys.executable, str(ROOT / path), str(out), *args], check=True,
                           cwd=tmp, env=env)  # fmt: skip
            with np.load(out) as found:
                arrays = dict(found.items())
        for name, seconds in json.loads(str(arrays.pop("times"))).items():
            found = {k[len(name) + 1 :]: v for k, v in arrays.items() if k.startswith(f"{name}/")}
            self.put(name, {"seconds": seconds}, **found)

    def put_isolated(self, name: str, meta: dict, fn: Any, *args: Any, why: str = "failed") -> None:
        """Record what ``fn(*args)`` returns when run in a forked child (see :func:`isolated`):
        its arrays (a dict, or a ``(metadata, arrays)`` pair whose metadata replaces ``meta``);
        where it fails, ``meta`` with the reason under ``why``."""
        got = isolated(fn, *args)
        if isinstance(got, str):
            self.put(name, {**meta, why: got})
        elif isinstance(got, tuple):
            self.put(name, got[0], **got[1])
        else:
            self.put(name, meta, **got)

    def updated(self, name: str, saved: list, after: list, params: dict, **meta: Any) -> None:
        """Record an in-place update (an optimizer's): its inputs ``in<i>`` as given, the
        arrays it changed ``after<i>``; ``kind`` is "optimizer" unless given."""
        meta = {"kind": "optimizer", "params": params, "n_in": len(saved), "n_after": len(after),
                **meta}  # fmt: skip
        self.put(name, meta, **{f"in{i}": a for i, a in enumerate(saved)},
                 **{f"after{i}": a.asnumpy() for i, a in enumerate(after)})  # fmt: skip

    def op(self, name: str, op: str, inputs: list[np.ndarray], params: dict | None = None,
           grad: bool = True, head: str = "uniform", heads: str = "all",
           head_dtype: str | None = None, names: list[str] | None = None,
           wrt: int | list[int] | None = None, aux: int = 0, head_rng: Any = None,
           train: bool = True, **meta: Any) -> None:  # fmt: skip
        """Run ``mx.nd.<op>(*inputs, **params)`` and, when ``grad``, its backward under
        ``mx.autograd`` (in training mode unless ``train`` is False).

        Head gradients are drawn ``head`` ("uniform" in [-1, 1) or "normal") for every output
        (``heads="all"``) or the first (``heads="first"``), from the family's generator or
        ``head_rng`` (a generator, or the seed of a ``RandomState``); the gradients kept are
        those of the inputs ``wrt`` (a list of positions, or a count from the first; every
        argument by default). The last ``aux`` inputs are auxiliary states: no gradient, and
        their values after backward are kept as ``aux<k>``. With ``names`` the inputs are
        passed by those keywords.
        """
        params = dict(params or {})
        xs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
        n_args = len(xs) - aux
        wrt = list(range(n_args))[:wrt] if not isinstance(wrt, list) else wrt
        rng = head_rng if head_rng is not None else self.rng
        rng = np.random.RandomState(rng) if isinstance(rng, int) else rng
        f = nd_function(op)
        arrays: dict[str, np.ndarray] = {}
        for i in wrt if grad else ():
            xs[i].attach_grad()
        with mx.autograd.record(train_mode=train) if grad else contextlib.nullcontext():
            out = f(**dict(zip(names, xs)), **params) if names else f(*xs, **params)
        outs = out if isinstance(out, (list, tuple)) else [out]
        if grad:
            hs = []
            for o in outs if heads == "all" else outs[:1]:
                draw = rng.standard_normal if head == "normal" else partial(rng.uniform, -1, 1)
                hs.append(draw(size=o.shape).astype(head_dtype or np.dtype(o.dtype).name))
            hs_nd = [mx.nd.array(h, dtype=h.dtype) for h in hs]
            if wrt:  # heads are drawn (and kept) even where no input takes a gradient
                mx.autograd.backward(outs[: len(hs)], hs_nd, train_mode=train)
            arrays.update({f"head{j}": h for j, h in enumerate(hs)})
            arrays.update({f"grad{i}": xs[i].grad.asnumpy() for i in wrt})
        arrays.update({f"in{i}": a for i, a in enumerate(inputs)})
        arrays.update({f"out{j}": o.asnumpy() for j, o in enumerate(outs)})
        arrays.update({f"aux{k}": x.asnumpy() for k, x in enumerate(xs[len(xs) - aux :])})
        case = {"op": op, "params": params, "n_in": len(inputs), "n_out": len(outs), "grad": grad}
        case.update({"n_aux": aux} if aux else {})
        case.update({} if train else {"train": False})
        self.put(name, {**case, **meta}, **arrays)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        cases = json.dumps(self.cases)  # in the order the family recorded them
        text = np.frombuffer(cases.encode(), np.uint8)  # UTF-8: packs 2-4x smaller than str
        np.savez_compressed(self.path, __cases__=text, **self.arrays)
        size = self.path.stat().st_size
        print(f"{self.path.relative_to(ROOT)}: {len(self.cases)} cases, {size / 1024:.0f} KB")
