"""``randomts rules``, ``predict`` and ``explain``: print what a saved model does.

``rules`` prints its rules, ``predict`` its outputs for the rows of a CSV file and
``explain`` the rules behind its output at one input.
"""

from __future__ import annotations

import argparse

import numpy as np

from randomts.cli.common import (
    add_delimiter,
    flush_notes,
    load_model,
    positive_int,
    reported_warnings,
)
from randomts.cli.data import add_missing

__all__ = [
    "add_rules",
    "handle_rules",
    "add_predict",
    "handle_predict",
    "add_explain",
    "handle_explain",
]


def add_rules(commands):
    """Register ``randomts rules`` and its handler with the subparsers ``commands``."""
    from randomts.text import TABLE_FORMATS

    cmd = commands.add_parser(
        "rules",
        help="print a model's rules as text or as a table",
        description="Print the rules of MODEL (any format randomts reads) in words: for a "
        "random-rule model, each input as 'about centre (±spread)' and each equation as the "
        "rule's output at its centre plus slopes; for a general system, its variables, terms and "
        "rules. With --data, the rules come most important first.",
    )
    cmd.add_argument("model", metavar="MODEL", help="a saved model")
    cmd.add_argument(
        "--format",
        dest="style",
        default="text",
        choices=("text", "table") + TABLE_FORMATS,
        metavar="STYLE",
        help="'text' (IF-THEN lines, the default), 'table', or a tabulate table format: "
        + ", ".join(TABLE_FORMATS),
    )
    cmd.add_argument(
        "--precision", type=positive_int, default=4, help="significant digits (default 4)"
    )
    cmd.add_argument(
        "--data",
        metavar="DATA.csv",
        help="a CSV file with the model's input columns (by name; other columns may hold "
        "anything): order the rules by their importance on it",
    )
    cmd.add_argument(
        "--top",
        type=positive_int,
        metavar="K",
        help="with --data, only the K most important rules",
    )
    cmd.add_argument(
        "--check",
        action="store_true",
        help="with --data holding the model's output columns too (by name; for a classifier "
        "fitted by 'randomts fit', its target column): set each rule "
        "beside the model's prediction and the data's mean where it lives (at its centre for "
        "random rules, averaged where it fires for a general system), and mark with '!' a "
        "rule whose THEN part disagrees with either or whose widths exceed the data's range",
    )
    cmd.add_argument(
        "--labels",
        type=positive_int,
        nargs="?",
        const=3,
        metavar="N",
        help="name each input's set low/medium/high (N labels, 2 to 7; default 3) "
        "from its place in the input's training range",
    )
    cmd.add_argument(
        "--intercept",
        action="store_true",
        help="write each equation with its constant at x = 0 instead of centred",
    )
    cmd.add_argument(
        "--lossless",
        action="store_true",
        help="print the lossless TXT format (every digit, as saved to .txt files)",
    )
    add_delimiter(cmd)
    add_missing(cmd)
    cmd.set_defaults(handler=handle_rules)


def handle_rules(args):
    """Run ``randomts rules`` on the parsed ``args``; the text to print."""
    from randomts.fuzzy.system import FuzzySystem

    rule_base = load_model(args.model, keep_names=True)
    if args.top is not None and args.data is None:
        raise ValueError("--top needs --data, the data on which the rules are ranked.")
    if args.check and args.data is None:
        raise ValueError("--check needs --data, with the model's input and output columns.")
    system = isinstance(rule_base, FuzzySystem)  # any Takagi-Sugeno system, with its own names
    if system:
        unsupported = [
            flag
            for flag, value in (("--labels", args.labels), ("--intercept", args.intercept))
            if value
        ]
        if unsupported:
            raise ValueError(
                f"{', '.join(unsupported)} apply to random-rule models; "
                f"{args.model} holds a general Takagi-Sugeno system."
            )
    if args.lossless:
        if system and (args.style != "text" or args.data):
            raise ValueError(
                "--lossless prints the system's text with every digit; it takes no "
                "--format or --data."
            )
        if not system and (args.style != "text" or args.data or args.labels or args.intercept):
            raise ValueError(
                "--lossless prints the TXT format; it takes no --format, --data, "
                "--labels, --intercept or --check."
            )
        from randomts.io.text_format import TextFormat

        if system:
            return rule_base.to_text(precision=None)
        return TextFormat().to_string(rule_base).rstrip("\n")  # as a .txt file holds it
    X = y = None
    if args.data is not None:
        notes = []
        X, y = _data(rule_base, args, notes)
        flush_notes(notes)
    fmt = "plain" if args.style == "table" else args.style
    if system:
        with reported_warnings():
            if args.style == "text":
                return rule_base.to_text(precision=args.precision, X=X, y=y, top=args.top)
            return rule_base.table(fmt=fmt, precision=args.precision, X=X, y=y, top=args.top)
    options = dict(
        precision=args.precision,
        labels=args.labels,
        centered=not args.intercept,
        X=X,
        y=y,
        top=args.top,
    )
    if args.style == "text":
        return rule_base.to_text(**options)
    return rule_base.table(fmt=fmt, **options)


def _data(rule_base, args, notes):
    """``(X, y)`` of ``--data``: the model's inputs, and with ``--check`` its outputs.

    A classifier fitted by ``randomts fit`` is checked against its target
    column, coded as the scores it fits (for two classes ``+1`` for the
    second in sorted order and ``-1`` for the first; else one 0/1 column per
    class).
    """

    metadata = getattr(rule_base, "metadata", {})
    target = metadata.get("target") if metadata.get("classes") else None
    outputs = [] if not args.check else [target] if target else list(rule_base.output_names)
    X, table = _inputs_and_outputs(args.data, rule_base, args, outputs, bool(target), notes)
    if not args.check:
        return X, None
    if target:
        return X, _class_scores(table, target, metadata["classes"])
    return X, np.column_stack([table.numbers(name) for name in outputs])


def _inputs_and_outputs(path, rule_base, args, outputs, classifier, notes):
    """``(X, table)`` of the CSV file ``path``: the model's inputs, and ``outputs`` in ``table``."""
    from randomts.cli.data import model_inputs

    X, table, _ = model_inputs(
        path,
        rule_base,
        delimiter=args.delimiter,
        missing=args.missing,
        extra=outputs,
        extra_what="target column" if classifier else "output column(s)",
        notes=notes,
    )
    return X, table


def _class_scores(table, target, classes):
    """The scores a classifier fits, from the labels of its target column (see :func:`_data`)."""
    cells = table.column(target)
    classes = [str(c) for c in classes]
    try:  # numeric labels compare as numbers: 1 and 1.0 are one class
        found = np.asarray(cells, dtype=float)
        known = np.asarray(classes, dtype=float)
    except ValueError:
        found, known = cells, np.asarray(classes)
    index = np.full(cells.size, -1)
    for k, label in enumerate(known):
        index[found == label] = k
    if np.any(index < 0):
        row = int(np.argmax(index < 0))
        raise table.not_a_number(
            target, row, f"not one of the classes the model was fitted to: {classes}"
        )
    if len(classes) == 2:
        return np.where(index == 1, 1.0, -1.0)[:, None]
    return np.eye(len(classes))[index]


def add_predict(commands):
    """Register ``randomts predict`` and its handler with the subparsers ``commands``."""
    cmd = commands.add_parser(
        "predict",
        help="predict the outputs of a model for every row of a CSV file",
        description="Read MODEL and DATA.csv (a header row naming the model's inputs; other "
        "columns may hold anything) and write one CSV row of outputs per data row, each column "
        "headed predicted(<output>); for a classifier, the predicted class label, headed "
        "predicted(<target>) with the name of the target column it was fitted to by "
        "'randomts fit' (else 'class').",
    )
    cmd.add_argument("model", metavar="MODEL", help="a saved model")
    cmd.add_argument("data", metavar="DATA.csv", help="inputs, with a header row")
    cmd.add_argument(
        "-o", "--output", metavar="OUT.csv", help="write the CSV here instead of printing it"
    )
    cmd.add_argument(
        "--interval",
        type=_coverage,
        metavar="COVERAGE",
        help="also write conformal prediction intervals at this coverage (e.g. 0.9): the "
        "columns lower(<output>) and upper(<output>) after each output; for a classifier, the "
        "column set(<target>), the labels of the prediction set joined by '|'. The scores come "
        "from --calibration, or from MODEL if it was saved with split-conformal scores",
    )
    cmd.add_argument(
        "--calibration",
        metavar="CAL.csv",
        help="with --interval: rows that the model was not fitted to, with its input and output "
        "(or target) columns, whose errors calibrate the intervals (split conformal); the "
        "rows a model was fitted to by 'randomts fit' are refused",
    )
    add_delimiter(cmd)
    add_missing(cmd)
    cmd.set_defaults(handler=handle_predict)


def _coverage(text):
    """An argparse type: a number in the open interval (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            f"expected a coverage in the open interval (0, 1), e.g. 0.9; got {text!r}"
        )
    return value


def handle_predict(args):
    """Run ``randomts predict`` on the parsed ``args``; the text to print."""
    from randomts.analysis.protocol import as_model
    from randomts.cli.data import model_inputs
    from randomts.io import load
    from randomts.io.csv_data import format_csv, write_csv

    if args.calibration is not None and args.interval is None:
        raise ValueError("--calibration calibrates the intervals of --interval; give both.")
    model = load(args.model)  # a fitted estimator predicts with its own checks and warnings
    rule_base = as_model(model, "randomts predict")
    notes = []
    X, _, kept = model_inputs(
        args.data,
        rule_base,
        delimiter=args.delimiter,
        missing=args.missing,
        dropped="left the outputs empty for",
        notes=notes,
    )
    if args.interval is not None:
        _calibrate(model, args, notes)
    flush_notes(notes)
    with reported_warnings():
        Y = model.predict(X)
        if hasattr(model, "classes_"):  # a classifier: one column of labels, named by the target
            target = str(rule_base.metadata.get("target", "class"))
            header = [f"predicted({target})"]
            Y = Y.astype(str).reshape(-1, 1)
            if args.interval is not None:
                sets = _interval(model, "predict_set", X, args)
                labels = ["|".join(str(c) for c in model.classes_[row]) for row in sets]
                header.append(f"set({target})")
                Y = np.column_stack([Y, np.array(labels, dtype=str)])
        else:
            outputs = list(rule_base.output_names)
            header = [f"predicted({name})" for name in outputs]
            Y = Y.reshape(X.shape[0], rule_base.n_outputs)  # a column per output
            if args.interval is not None:
                lower, upper = _interval(model, "predict_interval", X, args)
                shape = (X.shape[0], rule_base.n_outputs)
                Y = np.stack([Y, lower.reshape(shape), upper.reshape(shape)], axis=2)
                Y = Y.reshape(X.shape[0], -1)  # each output, then its bounds
                header = [
                    f"{kind}({name})"
                    for name in outputs
                    for kind in ("predicted", "lower", "upper")
                ]
    if not kept.all():  # rows with a missing input: empty outputs, one line per row still
        cells = Y.astype(str) if Y.dtype.kind in "US" else np.vectorize(lambda v: repr(float(v)))(Y)
        Y = np.full((kept.size, Y.shape[1]), "", dtype=cells.dtype)
        Y[kept] = cells
    if args.output:
        write_csv(args.output, header, Y, delimiter=args.delimiter)
        return f"wrote {args.output} ({Y.shape[0]} rows)"
    return format_csv(header, Y, delimiter=args.delimiter).rstrip("\n")


def _calibrate(model, args, notes):
    """Give ``model`` the split-conformal scores of ``--calibration``, if given."""

    if not hasattr(model, "conformalize"):
        raise ValueError(
            f"--interval needs a model saved from a fitted estimator; {args.model} holds a rule "
            "base without one."
        )
    if args.calibration is None:
        return
    rule_base = model.rule_base_
    classifier = hasattr(model, "classes_")
    target = str(rule_base.metadata.get("target", "class"))
    outputs = [target] if classifier else list(rule_base.output_names)
    X, table = _inputs_and_outputs(args.calibration, rule_base, args, outputs, classifier, notes)
    _refuse_training_rows(table, rule_base.metadata, args)
    if classifier:
        y = table.column(target)
        if model.classes_.dtype.kind in "biuf":  # labels of numbers: compare as numbers
            y = _numeric_labels(y, target, model.classes_.dtype)
    else:
        y = np.column_stack([table.numbers(name) for name in outputs])
        if y.shape[1] == 1:  # one output: 1-D, whichever way the model was fitted
            y = y[:, 0]
    with reported_warnings():
        model.conformalize(X, y)


def _refuse_training_rows(table, metadata, args):
    """Refuse calibration rows that are the rows the model was fitted to (``fit`` saves a digest)."""
    from randomts.cli.data import rows_digest

    record = metadata.get("training_data") or {}
    columns = record.get("columns") or []
    if not columns or any(name not in table.header for name in columns):
        return
    if rows_digest(table, columns) == record.get("sha256"):
        raise ValueError(
            f"--calibration {args.calibration} holds the {table.n_rows} rows that "
            f"{args.model} was fitted to: a model's errors on its own training rows are "
            "smaller than on new rows, so intervals calibrated on them would cover less than "
            "they promise. Calibrate on rows held out of the fit (fit on part of the data, "
            "and pass the rest)."
        )


def _numeric_labels(cells, target, dtype):
    """The cells of a target column of numbers as class labels of ``dtype``."""
    import numpy as np

    try:
        values = cells.astype(float)
    except ValueError:
        raise ValueError(
            f"The calibration column {target!r} must hold the model's numeric class labels; "
            f"got text such as {cells[0]!r}."
        ) from None
    if dtype.kind in "biu":
        whole = np.round(values)
        if np.any(values != whole):  # not a class label; conformalize names it
            return values
        return whole.astype(dtype)
    return values.astype(dtype)


def _interval(model, method, X, args):
    """``model.<method>(X, coverage)``, with the way to the missing scores named for the CLI."""
    from sklearn.exceptions import NotFittedError

    try:
        return getattr(model, method)(X, coverage=args.interval)
    except NotFittedError:
        raise ValueError(
            f"--interval needs calibration scores, and {args.model} holds none: pass "
            "--calibration CAL.csv, rows the model was not fitted to with its input and output "
            "columns."
        ) from None


def add_explain(commands):
    """Register ``randomts explain`` and its handler with the subparsers ``commands``."""
    from randomts.text import TABLE_FORMATS

    cmd = commands.add_parser(
        "explain",
        help="show which rules produce a model's output at one input",
        description="List the rules that fire at the input --x, their firing strengths and their "
        "contributions to each output (they add up to the prediction).",
    )
    cmd.add_argument("model", metavar="MODEL", help="a saved model")
    cmd.add_argument(
        "--x",
        required=True,
        metavar="NAME=V,...",
        help="the input, by name (--x speed=1,load=0.5; a text column fitted as one-hot "
        "inputs takes its text, --x ShelveLoc=Good) or as values in the model's input order "
        "(--x 1,0.5; write --x=-1,2 for a leading minus)",
    )
    cmd.add_argument(
        "--top",
        type=positive_int,
        help="list only the TOP rules with the largest shares of the output",
    )
    cmd.add_argument(
        "--format",
        dest="style",
        default="plain",
        choices=TABLE_FORMATS,
        metavar="STYLE",
        help="tabulate table format (default plain)",
    )
    cmd.add_argument(
        "--precision", type=positive_int, default=4, help="significant digits (default 4)"
    )
    cmd.set_defaults(handler=handle_explain)


def handle_explain(args):
    """Run ``randomts explain`` on the parsed ``args``; the text to print."""
    from randomts.cli.data import inputs_at

    rule_base = load_model(args.model, keep_names=True)
    x = inputs_at(args.x, rule_base)
    with reported_warnings():  # a general system warns where no rule fires
        explanation = rule_base.explain(x, top=args.top)
    return explanation.to_text(fmt=args.style, precision=args.precision)
