"""``randomts convert``: a model's file in another format, or as C or ONNX to run without Python."""

from __future__ import annotations

import os

from randomts.cli.common import check_output, formats_help, load_model, save_model

__all__ = ["add_convert", "handle_convert", "EXPORTS"]

#: Formats that a model exports to (one way), by name, with their extension.
EXPORTS = {"c": ".c", "onnx": ".onnx"}


def add_convert(commands):
    """Register ``randomts convert`` and its handler with the subparsers ``commands``."""
    cmd = commands.add_parser(
        "convert",
        help="convert a model between formats (text, json, fis, fll), or to C or ONNX",
        description="Read IN and write OUT; the formats follow the extensions unless given. "
        "OUT ending in .c is dependency-free C99 with a predict function (and, compiled with "
        "-DRANDOMTS_MAIN, a program that predicts the CSV rows of stdin); .onnx is an ONNX "
        "model (needs the onnx package).",
    )
    cmd.add_argument("source", metavar="IN", help="the model to read")
    cmd.add_argument("target", metavar="OUT", help="the file to write")
    cmd.add_argument("--from", dest="source_format", help=f"format of IN {formats_help()}")
    cmd.add_argument(
        "--to",
        dest="target_format",
        help=f"format of OUT {_target_formats()} (default: from the extension)",
    )
    cmd.add_argument(
        "--prefix",
        help="C only: the prefix of the names the C file defines (default randomts: "
        "randomts_predict, RANDOMTS_N_FEATURES, ...)",
    )
    cmd.set_defaults(handler=handle_convert)


def _target_formats():
    from randomts.io import FORMATS

    return "{" + ",".join(sorted([*FORMATS, *EXPORTS])) + "}"


def _export(path, format):
    """``"c"`` or ``"onnx"`` if OUT is exported to one, None for a model format, else an error."""
    from randomts.io import FORMATS

    if format is not None:
        name = format.lower() if isinstance(format, str) else format
        if name in EXPORTS:
            return name
        if name not in FORMATS:
            raise ValueError(f"--to must be one of {_target_formats()}. Got {format!r} instead.")
        return None
    extension = os.path.splitext(path)[1].lower()
    for name, suffix in EXPORTS.items():
        if extension == suffix:
            return name
    known = sorted([*EXPORTS.values(), *(e for f in FORMATS.values() for e in f.extensions)])
    if extension not in known:
        raise ValueError(
            f"Cannot tell the format of {path!r} from its extension; pass --to one of "
            f"{_target_formats()} or use one of the extensions {known}."
        )
    return None


def handle_convert(args):
    """Run ``randomts convert`` on the parsed ``args``; the text to print."""
    from randomts.io import atomic_write, load

    export = _export(args.target, args.target_format)
    if args.prefix is not None and export != "c":
        raise ValueError("--prefix applies to C output only (OUT ending in .c, or --to c).")
    if export is None:
        check_output(args.target, args.target_format, option="--to")
        model = load(args.source, format=args.source_format)  # a fitted estimator stays one
        if not hasattr(model, "rule_base_"):
            model = load_model(args.source, args.source_format, keep_names=True)
        return save_model(model, args.target, args.target_format)
    folder = os.path.dirname(os.path.abspath(args.target))
    if not os.path.isdir(folder):
        raise ValueError(f"Cannot write {args.target!r}: the folder {folder!r} does not exist.")
    model = load(args.source, format=args.source_format)
    if export == "c":
        from randomts.io import to_c

        atomic_write(args.target, to_c(model, prefix=args.prefix or "randomts").encode("utf-8"))
        program = os.path.splitext(os.path.basename(args.target))[0] or "model"
        how = f"C99; compile with: cc -std=c99 -O2 -DRANDOMTS_MAIN {args.target} -o {program} -lm"
    else:
        from randomts.io import to_onnx
        from randomts.io.onnx_model import OPSET

        try:
            graph = to_onnx(model)
        except ImportError as exc:
            raise ValueError(f"Cannot write {args.target!r}: {exc}") from None
        atomic_write(args.target, graph.SerializeToString())
        outputs = ", ".join(o.name for o in graph.graph.output)
        how = f"ONNX opset {OPSET}; input X, outputs {outputs}"
    rule_base = getattr(model, "rule_base_", model)
    return (
        f"wrote {args.target} ({rule_base.n_rules} rules, {rule_base.n_features} inputs, "
        f"{rule_base.n_outputs} outputs; {how})"
    )
