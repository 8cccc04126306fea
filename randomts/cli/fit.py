"""``randomts fit``: fit a regressor or a classifier to a CSV file, cross-validate, save."""

from __future__ import annotations

import argparse

import numpy as np

from randomts.cli.common import (
    add_delimiter,
    check_output,
    flush_notes,
    formats_help,
    non_negative_int,
    note,
    positive_int,
    progress_bar,
    reported_warnings,
    save_model,
)
from randomts.cli.data import add_missing
from randomts.exceptions import ConstantInputWarning

__all__ = ["add_fit", "handle_fit"]


def _auto_or_number(text, *, positive):
    """``"auto"``, or a finite number ``>= 0`` (``> 0`` if ``positive``), for argparse."""
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (value > 0.0 if positive else value >= 0.0) or value == float("inf"):
        bound = "> 0" if positive else ">= 0"
        raise argparse.ArgumentTypeError(f"expected 'auto' or a number {bound}, got {text!r}")
    return value


def _alpha(text):
    return _auto_or_number(text, positive=False)


def _local_weight(text):
    return _auto_or_number(text, positive=True)


def _cv_folds(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value == 1 or value < 0:
        raise argparse.ArgumentTypeError(
            f"expected 0 (no cross-validation) or a number of folds >= 2, got {text!r}"
        )
    return value


# ``--task auto`` classifies a numeric target of integers with at most this many distinct
# values, each seen this many times on average (binary 0/1, digits 0-9, classes coded 1-3);
# counts, years or ratings over a wider range, and fractions, are regressed.
_MAX_AUTO_CLASSES = 10
_ROWS_PER_AUTO_CLASS = 5


def add_fit(commands):
    """Register ``randomts fit`` and its handler with the subparsers ``commands``."""
    cmd = commands.add_parser(
        "fit",
        help="fit a model to a CSV file, report its cross-validated score and save it",
        description="Fit random Takagi-Sugeno rules (the Shuffled Linear Model) to DATA.csv, a CSV "
        "file with a header row; the --target columns are the outputs, the --input columns (by "
        "default all others) the inputs. An unnamed first column (the index that pandas' to_csv "
        "writes) is left out. A regression reports the training RMSE and a K-fold "
        "cross-validated R^2 and RMSE of the same settings; a classification (one target, "
        "class labels; see --task) the training and the stratified K-fold cross-validated "
        "accuracy. The task chosen, the library's warnings and, on a terminal, a progress bar "
        "go to stderr.",
    )
    cmd.add_argument("data", metavar="DATA.csv", help="training data with a header row")
    cmd.add_argument(
        "--target",
        action="append",
        required=True,
        metavar="COL",
        help="an output column (repeat for several outputs)",
    )
    cmd.add_argument(
        "--input",
        action="append",
        metavar="COL",
        help="an input column (repeat for several; default: every column but the targets)",
    )
    cmd.add_argument(
        "--task",
        choices=("auto", "regress", "classify"),
        default="auto",
        help="'regress' the targets (RandomTSRegressor), 'classify' one target's labels "
        "(RandomTSClassifier), or 'auto' (default): classify a target that holds text, or "
        f"integers only with at most {_MAX_AUTO_CLASSES} distinct values and at least "
        f"{_ROWS_PER_AUTO_CLASS} rows per value on average; regress otherwise",
    )
    cmd.add_argument(
        "--structure",
        choices=("grown", "random"),
        default=None,
        help="rules grown where the data need them, each saying what the model does where "
        "it lives (grown), or drawn at random as in the paper (random); default: the "
        "estimator's, grown to regress unless --centers or --refine asks "
        "for random rules, random to classify",
    )
    cmd.add_argument(
        "--lock-range",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="hold the inputs in their training ranges and the outputs in theirs beyond the "
        "data (--lock-range), or evaluate the rules wherever the inputs lie (--no-lock-range); "
        "default: the estimator's, held to regress, not to classify",
    )
    cmd.add_argument(
        "--rules",
        type=positive_int,
        help="the most rules grown (default 40), or the number of random rules (default "
        "100 to regress, 150 to classify)",
    )
    cmd.add_argument(
        "--order",
        type=int,
        choices=(0, 1),
        default=1,
        help="consequent order: 0 constant, 1 linear (default 1)",
    )
    cmd.add_argument(
        "--normalize",
        action="store_true",
        help="random rules: weighted average instead of weighted sum (grown rules are "
        "always averaged)",
    )
    cmd.add_argument(
        "--standardize",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="draw the rules on standardised inputs, the saved model in the data's units "
        "(default; --no-standardize draws them on the raw inputs)",
    )
    cmd.add_argument(
        "--alpha",
        type=_alpha,
        default="auto",
        help="ridge penalty, a number >= 0 or 'auto' (default: chosen by leave-one-out error)",
    )
    cmd.add_argument(
        "--learning",
        choices=("global", "local", "combined"),
        default=None,
        help="fit the consequents to the model's output (global, default of random rules), "
        "each rule to the data under it (local, default of grown rules), or both (combined): "
        "local and combined rules say what the model does where they live; for few random "
        "rules on the data, e.g. --structure random --rules 10 --centers kmeans --normalize "
        "--learning combined",
    )
    cmd.add_argument(
        "--local-weight",
        type=_local_weight,
        default="auto",
        help="weight of the local term of --learning combined, a number > 0 or 'auto' "
        "(default: chosen by cross-validation)",
    )
    cmd.add_argument(
        "--centers",
        choices=("samples", "normal", "data", "kmeans"),
        default=None,
        help="random rules' centres: training rows drawn at random (default), normal, uniform "
        "over the data's box, or the k-means clusters of the inputs (widths from their spread)",
    )
    cmd.add_argument(
        "--refine",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="random rules: N iterations of nonlinear least squares on the centres and "
        "widths, the consequents re-solved at each (default 0: no refinement); for few rules, "
        "e.g. --structure random --rules 10 --centers kmeans --normalize --refine 50",
    )
    cmd.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    cmd.add_argument(
        "--cv",
        type=_cv_folds,
        default=5,
        metavar="K",
        help="K-fold cross-validation of the same settings, on rows shuffled with "
        "--seed (default 5; 0 skips it)",
    )
    add_delimiter(cmd)
    add_missing(cmd)
    cmd.add_argument("--quiet", action="store_true", help="no progress bar")
    cmd.add_argument(
        "-o", "--output", metavar="MODEL", required=True, help="where to save the model"
    )
    cmd.add_argument(
        "--format", help=f"file format of MODEL {formats_help()} (default: from the extension)"
    )
    cmd.set_defaults(handler=handle_fit)


def handle_fit(args):
    """Run ``randomts fit`` on the parsed ``args``; the text to print."""
    from randomts.cli.data import Table, encode_inputs, rows_digest
    from randomts.estimators.parameters import warn_constant_inputs

    check_output(args.output, args.format)
    targets = list(dict.fromkeys(args.target))
    chosen = list(dict.fromkeys(args.input or []))
    both = [name for name in chosen if name in targets]
    if both:
        raise ValueError(f"The column(s) {both} cannot be both --input and --target.")
    table = Table.read(args.data, delimiter=args.delimiter)
    for names, what in ((targets, "target column(s)"), (chosen, "input column(s)")):
        Table.read(args.data, delimiter=args.delimiter, columns=names, what=what)  # say which
    inputs = chosen or [name for name in table.header if name not in targets]
    if not inputs:
        raise ValueError(f"{args.data} has no input columns besides the targets {targets}.")
    notes = []  # said once the input has passed every check
    table = table.without_missing(inputs + targets, args.missing, notes=notes)
    cells = np.column_stack([table.column(name) for name in targets])
    task, labels, reason = _task(args.task, targets, cells)
    if args.task == "auto":
        note(notes, f"task: {task} ({reason})")
    X, names, text_inputs = encode_inputs(table, inputs, chosen=bool(chosen), notes=notes)
    used = [name for name in inputs if name in names or name in text_inputs]
    record = {
        "text_inputs": text_inputs,
        "training_data": {
            "columns": used + targets,
            "rows": table.n_rows,
            "sha256": rows_digest(table, used + targets),
        },
    }
    if task == "classify":
        classes = np.unique(labels).size
        Y = None
    else:
        Y = np.column_stack([table.numbers(name) for name in targets])
    _check_memory(args, X, len(targets) if Y is not None else (1 if classes == 2 else classes))
    flush_notes(notes)
    with reported_warnings():  # the constant inputs, by the CSV's names
        warn_constant_inputs("the model", X, names)
    if task == "classify":
        return _fit_classifier(args, X, labels, names, targets[0], record)
    return _fit_regressor(args, X, Y, names, targets, record)


def _check_memory(args, X, n_outputs):
    """Refuse, before any work, settings whose fit cannot fit in memory."""
    from randomts.estimators.parameters import check_fit_memory
    from randomts.estimators.regressor import RandomTSRegressor

    model = RandomTSRegressor(random_state=args.seed, **_model_params(args))
    check_fit_memory(model, X.shape[0], X.shape[1], n_outputs)


def _task(task, targets, cells):
    """``(task, labels, reason)``: what ``--task`` makes of the target cells, and why.

    ``labels`` are the class labels of a classification (int when every cell
    is an integer, else the text as written), else None.
    """
    if task == "regress":
        return task, None, "--task regress"
    if len(targets) > 1:
        if task == "classify":
            raise ValueError(
                f"--task classify takes one --target column; got {len(targets)}: {targets}."
            )
        return "regress", None, f"{len(targets)} target columns; a classifier takes one"
    column, name = cells[:, 0], targets[0]
    text = None
    numbers = np.empty(column.size)
    for k, cell in enumerate(column):
        try:
            numbers[k] = float(cell)
        except ValueError:
            text = cell
            break
    integers = text is None and bool(  # exactly representable integers
        np.all(np.abs(numbers) <= 2.0**53) and np.all(numbers == np.round(numbers))
    )
    labels = numbers.astype(np.int64) if integers else column
    if task == "classify":
        return task, labels, "--task classify"
    classes = np.unique(labels)
    found = f"{classes.size} classes: {_listed(classes)}"
    if text is not None:
        return "classify", labels, f"target {name!r} holds text, e.g. {str(text)!r}; {found}"
    if not integers:
        return "regress", None, f"target {name!r} holds numbers that are not all integers"
    if 2 <= classes.size <= _MAX_AUTO_CLASSES and column.size >= _ROWS_PER_AUTO_CLASS * (
        classes.size
    ):
        return "classify", labels, f"target {name!r} holds few distinct integers; {found}"
    return (
        "regress",
        None,
        (
            f"target {name!r} holds {classes.size} distinct integers in {column.size} rows; "
            f"'auto' classifies at most {_MAX_AUTO_CLASSES}, with {_ROWS_PER_AUTO_CLASS} rows each "
            "on average (--task classify to classify)"
        ),
    )


def _listed(values, limit=6):
    """``a, b, c`` or ``a, b, ... (12 in all)``."""
    shown = [str(v) for v in values[:limit]]
    return ", ".join(shown) + (f", ... ({len(values)} in all)" if len(values) > limit else "")


def _fit_regressor(args, X, Y, inputs, targets, record):
    from randomts.estimators.regressor import RandomTSRegressor

    y = Y[:, 0] if len(targets) == 1 else Y  # one target: a model of 1-D predictions
    if 2 * args.cv > X.shape[0]:  # R^2 needs two rows in every test fold
        raise ValueError(
            f"--cv {args.cv} needs at least {2 * args.cv} rows (2 per fold); "
            f"{args.data} has {X.shape[0]}; pass a smaller --cv, or --cv 0."
        )
    model = RandomTSRegressor(random_state=args.seed, **_model_params(args))
    names = (inputs, targets)
    with reported_warnings(ignore=ConstantInputWarning):  # said above, by name
        scores = _fit_cross_validated(
            model, X, y, args, names, lambda bar: _cross_validated(model, X, y, names, args, bar)
        )
    rmse = np.sqrt(np.mean((model.predict(X).reshape(Y.shape) - Y) ** 2, axis=0))
    _record(model, record)
    errors = ", ".join(f"{name} {value:.4g}" for name, value in zip(targets, rmse, strict=True))
    summary = f"fitted {len(model.rule_base_)} rules on {X.shape[0]} samples of {inputs}; training RMSE: {errors}"
    return _saved_report(model, inputs, args, summary, scores)


def _named(model, inputs, targets=None):
    """``model`` with its rules' inputs (and a regressor's outputs) named as the CSV's columns.

    Its warnings (inputs beyond the training range, say) then use those names.
    """
    names = {"input_names": inputs}
    if targets is not None:
        names["output_names"] = targets
    model.rule_base_ = model.rule_base_.replace(**names)
    return model


def _record(model, record):
    """Keep in the saved model how its inputs were read: text inputs, the training rows' digest."""
    metadata = model.rule_base_.metadata
    metadata.update({key: value for key, value in record.items() if value})
    model.rule_base_ = model.rule_base_.replace(metadata=metadata)


def _model_params(args):
    """The estimator's parameters that the command line sets (``--rules``: if given)."""
    params = dict(
        structure=args.structure,
        order=args.order,
        normalize=True if args.normalize else None,  # None: the structure's default
        standardize=args.standardize,
        alpha=args.alpha,
        learning=args.learning,
        local_weight=args.local_weight,
        centers=args.centers,
        refine=args.refine,
        lock_range=args.lock_range,
    )
    if args.rules is not None:
        params["n_rules"] = args.rules
    return params


def _fit_classifier(args, X, labels, inputs, target, record):
    from randomts.estimators.classifier import RandomTSClassifier

    classes, counts = np.unique(labels, return_counts=True)
    if classes.size < 2:
        raise ValueError(
            f"The target column {target!r} holds one class ({classes[0]}); a classifier needs "
            "at least 2."
        )
    if args.cv and counts.min() < args.cv:  # stratified folds: every class in every fold
        rare = classes[np.argmin(counts)]
        raise ValueError(
            f"--cv {args.cv} needs at least {args.cv} rows of every class (stratified folds); "
            f"class {rare} of {target!r} has {counts.min()}; pass a smaller --cv, or --cv 0."
        )
    model = RandomTSClassifier(random_state=args.seed, **_model_params(args))
    with reported_warnings(ignore=ConstantInputWarning):  # said above, by name
        scores = _fit_cross_validated(
            model,
            X,
            labels,
            args,
            (inputs, None),
            lambda bar: _cross_validated_accuracy(model, X, labels, inputs, args, bar),
        )
        accuracy = np.mean(model.predict(X) == labels)
    # The target's name, which `randomts predict` heads its column of labels with.
    _record(model, {**record, "target": target})
    summary = (
        f"fitted {len(model.rule_base_)} rules on {X.shape[0]} samples of {inputs} to the "
        f"{classes.size} classes of {target!r} ({_listed(classes)}); "
        f"training accuracy: {accuracy:.4g}"
    )
    return _saved_report(model, inputs, args, summary, scores)


def _fit_cross_validated(model, X, y, args, names, cross_validated):
    """``cross_validated(bar)`` (with ``--cv``), then ``model.fit(X, y)``, under one progress bar.

    The fitted model's rules take the CSV's ``names`` (inputs, and a
    regressor's outputs).
    """
    with progress_bar(args.cv + 1, quiet=args.quiet) as bar:
        scores = cross_validated(bar) if args.cv else None
        _named(model.fit(X, y), *names)
        bar.update()
    return scores


def _saved_report(model, inputs, args, summary, scores):
    """Save the fitted model as if fitted on a table of the CSV's columns; the report's lines."""
    model.feature_names_in_ = np.asarray(inputs, dtype=object)
    saved = save_model(model, args.output, args.format)
    return "\n".join([summary, *([scores] if scores is not None else []), saved])


def _fold_predictions(model, X, y, folds, names, bar):
    """``(y_test, predicted)`` of each fold: a clone fitted on the others, named as the CSV's."""
    from sklearn.base import clone

    results = []
    for train, test in folds:
        fitted = _named(clone(model).fit(X[train], y[train]), *names)
        results.append((y[test], fitted.predict(X[test])))
        bar.update()
    return results


def _cross_validated_accuracy(model, X, labels, inputs, args, bar):
    """One line: the mean (and standard deviation) of the accuracy over stratified folds."""
    from sklearn.model_selection import StratifiedKFold

    folds = StratifiedKFold(n_splits=args.cv, shuffle=True, random_state=args.seed)
    results = _fold_predictions(model, X, labels, folds.split(X, labels), (inputs, None), bar)
    accuracy = [np.mean(predicted == truth) for truth, predicted in results]
    return (
        f"{args.cv}-fold stratified cross-validation: accuracy "
        f"{np.mean(accuracy):.4g} (sd {np.std(accuracy):.2g})"
    )


def _cross_validated(model, X, y, names, args, bar):
    """One line: the mean (and standard deviation) over the ``--cv`` folds of R^2 and RMSE."""
    from sklearn.metrics import r2_score, root_mean_squared_error
    from sklearn.model_selection import KFold

    folds = KFold(n_splits=args.cv, shuffle=True, random_state=args.seed).split(X)
    results = _fold_predictions(model, X, y, folds, names, bar)
    r2 = [r2_score(truth, predicted) for truth, predicted in results]
    rmse = np.array(
        [
            np.atleast_1d(root_mean_squared_error(truth, predicted, multioutput="raw_values"))
            for truth, predicted in results
        ]
    )

    def summary(values):
        return f"{np.mean(values):.4g} (sd {np.std(values):.2g})"

    errors = ", ".join(f"{name} {summary(rmse[:, k])}" for k, name in enumerate(names[1]))
    return f"{args.cv}-fold cross-validation: R^2 {summary(r2)}; RMSE {errors}"
