"""``python -m mxlite.onnx MODEL-symbol.json MODEL-0000.params --shape 1,3,224,224 -o model.onnx``

Exports a checkpoint to ONNX; ``--check`` runs the file in ONNX Runtime on random inputs and
prints the largest difference from mxlite's own outputs (exit status 1 when it is larger than
``--tol`` relative to the outputs' magnitude).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from . import export_model, newest_opset


def _shape(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--shape wants ints joined by commas; got {text!r}"
        ) from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mxlite.onnx", description=__doc__.split("\n")[2])
    ap.add_argument("symbol", help="the -symbol.json file")
    ap.add_argument("params", help="the .params file")
    ap.add_argument(
        "--shape",
        type=_shape,
        action="append",
        required=True,
        help="shape of a data input, e.g. 1,3,224,224 (once per input, in order)",
    )
    ap.add_argument("--dtype", default="float32", help="dtype of the data inputs")
    ap.add_argument("-o", "--output", default="model.onnx", help="the ONNX file to write")
    ap.add_argument("--opset", type=int, default=None, help="ONNX opset (default the newest)")
    ap.add_argument("--dynamic-batch", action="store_true", help="make dimension 0 dynamic")
    ap.add_argument("--check", action="store_true", help="compare ONNX Runtime with mxlite")
    ap.add_argument("--tol", type=float, default=1e-4, help="--check's relative tolerance")
    args = ap.parse_args(argv)

    dyn = [(None,) + s[1:] for s in args.shape] if args.dynamic_batch else None
    export_model(args.symbol, args.params, args.shape, np.dtype(args.dtype), args.output,
                 dynamic=args.dynamic_batch, dynamic_input_shapes=dyn,
                 opset_version=args.opset)  # fmt: skip
    print(f"wrote {args.output} (opset {args.opset or newest_opset()})")
    if not args.check:
        return 0
    from ._check import compare

    batches = [args.shape[0][0]] + ([args.shape[0][0] + 1] if args.dynamic_batch else [])
    worst = 0.0
    for b in batches:
        shapes = [(b,) + s[1:] if args.dynamic_batch else s for s in args.shape]
        diff, scale = compare(args.symbol, args.params, args.output, shapes, args.dtype)
        print(f"batch {b}: largest difference {diff:.3g} (outputs up to {scale:.3g})")
        worst = max(worst, diff / max(scale, 1.0))
    return 0 if worst <= args.tol else 1


if __name__ == "__main__":
    sys.exit(main())
