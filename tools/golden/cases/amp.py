"""``mx.contrib.amp`` on MXNet 1.9.1: for each graph and conversion of
tests/contrib/amp/amp_cases.py and each target dtype, the converted symbol's JSON
(``convert_model``), the dtypes of the converted parameters, and the outputs of the converted
model on the case's data (bfloat16 runs on MXNet's oneDNN CPU path; an output is recorded as
float32; MXNet's CPU build runs no float16 FullyConnected or Convolution, so float16 cases keep
the reason instead), and the float32 model's outputs (``ref<i>``); ``casting-<target>`` holds
the converted JSON of the graphs of MXNet's test_bf16_casting / test_fp16_casting; ``block*``
cases hold ``convert_hybrid_block`` of a Gluon conv net (its graph, parameter dtypes, outputs).
Some float16 and bfloat16 models are also saved as MXNet checkpoints (``save_checkpoint``)
under tests/contrib/amp/golden/ (``mxnet_<case>``, ``mxnet_<case>_bf16``), and the bfloat16
``block_optional`` as ``export`` writes it (``mxnet_block_bf16``), for mxlite to load.
``lists``: MXNet's AMP operator lists (``amp.lists.symbol_fp16``/``symbol_bf16``, every
upper-case name), which mxlite/contrib/amp/lists holds."""

from typing import Any

import mxnet as mx
from core import ROOT, Golden, infer, isolated, last_line, load_module, nd_arrays

FILE = "tests/contrib/amp/golden/amp.npz"
SAVED = ("mlp", "convnet_optional")  # the cases also saved as MXNet checkpoints


def _convert(c: Any, case: str, graph: str, kwargs: dict, target: str) -> tuple[dict, dict]:
    from mxnet.contrib import amp

    data, args, aux = c.params(mx, graph)
    sym = c.GRAPHS[graph](mx)
    nd_args, nd_aux, feed = nd_arrays(args), nd_arrays(aux), nd_arrays(data)
    refs = [o.asnumpy() for o in infer(sym, {**feed, **nd_args}, nd_aux)]
    conv, cargs, caux = amp.convert_model(sym, nd_args, nd_aux, target_dtype=target, **kwargs)
    meta: dict = {
        "json": conv.tojson(remove_amp_cast=False),
        "json_plain": conv.tojson(),
        "graph": graph,
        "target": target,
        "kwargs": kwargs,
    }
    meta["dtypes"] = c.dtype_names(amp, {**cargs, **caux})
    arrays = {f"data:{k}": v for k, v in data.items()}
    arrays.update({f"arg:{k}": v for k, v in args.items()})
    arrays.update({f"aux:{k}": v for k, v in aux.items()})
    arrays.update({f"ref{i}": v for i, v in enumerate(refs)})
    try:
        for i, o in enumerate(infer(conv, {**feed, **cargs}, caux)):
            arrays[f"out{i}"] = mx.nd.amp_cast(o, dtype="float32").asnumpy()
    except mx.base.MXNetError as e:  # MXNet's CPU build runs no float16 FullyConnected
        meta["skipped"] = last_line(e)
    if case in SAVED:
        tag = "" if target == "float16" else "_bf16"
        prefix = ROOT / "tests/contrib/amp/golden" / f"mxnet_{case}{tag}"
        mx.model.save_checkpoint(str(prefix), 0, conv, cargs, caux, remove_amp_cast=False)
    return meta, arrays


def _casting(c: Any, target: str) -> dict:
    from mxnet.contrib import amp

    return c.converted_casting_graphs(mx, amp, target)


def _block(c: Any, kwargs: dict, target: str) -> tuple[dict, dict]:
    from mxnet.contrib import amp

    net = c.block(mx)
    ref = c.block_output(mx, net)
    conv = amp.convert_hybrid_block(net, target, ctx=mx.cpu(), **kwargs)
    meta = {"json": conv._cached_graph[1].tojson(remove_amp_cast=False), "kwargs": kwargs}
    meta["dtypes"] = c.dtype_names(amp, conv.collect_params())
    arrays = {"ref0": ref}
    try:
        arrays["out0"] = c.block_output(mx, conv)
    except mx.base.MXNetError as e:
        meta["skipped"] = last_line(e)
    if target == "bfloat16" and kwargs.get("cast_optional_params"):
        # exported with its casts: without them MXNet itself cannot run it again
        conv.export(str(ROOT / "tests/contrib/amp/golden/mxnet_block_bf16"), remove_amp_cast=False)
    return meta, arrays


def record(golden: Golden) -> None:
    from mxnet.contrib.amp import lists

    tables = {t: {k: v for k, v in vars(getattr(lists, f"symbol_{t}")).items() if k.isupper()}
              for t in ("fp16", "bf16")}  # fmt: skip
    golden.put("lists", tables)
    c = load_module("tests/contrib/amp/amp_cases.py")
    for case, kwargs in c.BLOCK_CASES:
        for target in c.TARGETS:
            golden.put_isolated(f"{case}-{target}", {}, _block, c, kwargs, target)
    for target in c.TARGETS:
        golden.put(f"casting-{target}", {"json": isolated(_casting, c, target)})
    for case, graph, kwargs in c.CASES:
        for target in c.TARGETS:
            meta = {"graph": graph, "target": target}
            golden.put_isolated(f"{case}-{target}", meta, _convert, c, case, graph, kwargs, target)
