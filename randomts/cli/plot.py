"""``randomts plot``: draw a model's membership functions and response surface to an image."""

from __future__ import annotations

import os

from randomts.cli.common import add_delimiter, load_model, positive_int
from randomts.cli.data import add_missing

__all__ = ["add_plot", "handle_plot"]


def add_plot(commands):
    """Register ``randomts plot`` and its handler with the subparsers ``commands``."""
    cmd = commands.add_parser(
        "plot",
        help="draw a model's membership functions and response surface to an image",
        description="Write one image of MODEL: the Gaussian sets of two inputs and the output over "
        "them, the other inputs held at the middle of their ranges (the training data's, when the "
        "model records them). Needs matplotlib (pip install 'randomts[plot]').",
    )
    cmd.add_argument("model", metavar="MODEL", help="a saved model")
    cmd.add_argument(
        "-o",
        "--output",
        metavar="IMAGE",
        required=True,
        help="the image to write; its extension chooses the format (.png, .svg, .pdf)",
    )
    cmd.add_argument(
        "--inputs",
        metavar="A,B",
        help="the two inputs drawn, by name or 1-based position (default: the first two)",
    )
    cmd.add_argument(
        "--output-name",
        dest="output_name",
        metavar="Y",
        help="the output drawn, by name (default: the first)",
    )
    cmd.add_argument(
        "--data",
        metavar="DATA.csv",
        help="a CSV file with the model's input columns (by name; other columns may hold "
        "anything): its ranges, drawn as points",
    )
    cmd.add_argument("--dpi", type=positive_int, default=100, help="resolution (default 100)")
    add_delimiter(cmd)
    add_missing(cmd)
    cmd.set_defaults(handler=handle_plot)


def handle_plot(args):
    """Run ``randomts plot`` on the parsed ``args``; the text to print."""
    import io

    from randomts.io import atomic_write

    rule_base = load_model(args.model)
    names = list(rule_base.input_names)
    features = (0, 1)
    if args.inputs is not None:
        chosen = [part.strip() for part in args.inputs.split(",")]
        if len(chosen) != 2:
            raise ValueError(f"--inputs must name two inputs, as A,B; got {args.inputs!r}.")
        features = []
        for part in chosen:
            if part.isdigit() and part not in names:  # a 1-based position
                if not 1 <= int(part) <= len(names):
                    raise ValueError(
                        f"--inputs: position {part} is not in 1..{len(names)}; "
                        f"the inputs are {names}."
                    )
                part = int(part) - 1
            features.append(part)
        features = tuple(features)
    X = None
    if args.data is not None:
        from randomts.cli.data import model_inputs

        X, _, _ = model_inputs(args.data, rule_base, delimiter=args.delimiter, missing=args.missing)
    try:
        from randomts.plotting import plot_overview

        figure = plot_overview(rule_base, X, features=features, output=args.output_name or 0)
    except ImportError as exc:
        raise ValueError(str(exc)) from None
    kind = os.path.splitext(args.output)[1][1:].lower() or "png"
    if kind not in figure.canvas.get_supported_filetypes():
        raise ValueError(
            f"cannot write a .{kind} image; the formats are "
            f"{sorted(figure.canvas.get_supported_filetypes())}."
        )
    buffer = io.BytesIO()
    figure.savefig(buffer, format=kind, dpi=args.dpi)
    atomic_write(args.output, buffer.getvalue())
    return f"wrote {args.output}"
