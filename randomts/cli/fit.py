"""``randomts fit``: fit a regressor or a classifier to a CSV file, cross-validate, save."""

from __future__ import annotations

import argparse
import sys

from randomts.cli.common import (
    add_delimiter,
    check_output,
    formats_help,
    non_negative_int,
    positive_int,
    progress_bar,
    reported_warnings,
    save_model,
)

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
        "--rules",
        type=positive_int,
        help="number of rules (default: the estimator's, 100 to regress, 150 to classify)",
    )
    cmd.add_argument(
        "--order",
        type=int,
        choices=(0, 1),
        default=1,
        help="consequent order: 0 constant, 1 linear (default 1)",
    )
    cmd.add_argument(
        "--normalize", action="store_true", help="weighted average instead of weighted sum"
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
        default="global",
        help="fit the consequents to the model's output (global, default), each rule to the "
        "data under it (local), or both (combined): local and combined rules say what the "
        "model does where they live; for few rules on the data, e.g. --rules 10 --centers "
        "kmeans --normalize --learning combined",
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
        default="samples",
        help="rule centres: training rows drawn at random (default), normal, uniform over the "
        "data's box, or the k-means clusters of the inputs (widths from their spread)",
    )
    cmd.add_argument(
        "--refine",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="N iterations of nonlinear least squares on the centres and widths, the "
        "consequents re-solved at each (default 0: no refinement); for few rules, e.g. "
        "--rules 10 --centers kmeans --normalize --refine 50",
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
    from randomts.io.csv_data import read_csv, read_csv_text, select_columns

    check_output(args.output, args.format)
    targets = list(dict.fromkeys(args.target))
    chosen = list(dict.fromkeys(args.input or []))
    both = [name for name in chosen if name in targets]
    if both:
        raise ValueError(f"The column(s) {both} cannot be both --input and --target.")
    header, table = read_csv_text(
        args.data, delimiter=args.delimiter, columns=chosen + targets if chosen else None
    )
    if len(header) == 1 and targets != header:  # one column: is the file separated otherwise?
        read_csv(args.data, delimiter=args.delimiter)  # whose error says so
    cells = select_columns(header, table, targets, what="target column(s)")
    inputs = chosen or [name for name in header if name not in targets]
    if not inputs:
        raise ValueError(f"{args.data} has no input columns besides the targets {targets}.")
    task, labels, reason = _task(args.task, targets, cells)
    if args.task == "auto":
        print(f"randomts: task: {task} ({reason})", file=sys.stderr)
    if task == "classify":
        _, X = read_csv(args.data, delimiter=args.delimiter, columns=inputs)
        return _fit_classifier(args, X, labels, inputs, targets[0])
    header, values = read_csv(args.data, delimiter=args.delimiter, columns=inputs + targets)
    X, Y = select_columns(header, values, inputs), select_columns(header, values, targets)
    return _fit_regressor(args, X, Y, inputs, targets)


def _task(task, targets, cells):
    """``(task, labels, reason)``: what ``--task`` makes of the target cells, and why.

    ``labels`` are the class labels of a classification (int when every cell
    is an integer, else the text as written), else None.
    """
    import numpy as np

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


def _fit_regressor(args, X, Y, inputs, targets):
    import numpy as np

    from randomts.estimators.regressor import RandomTSRegressor

    y = Y[:, 0] if len(targets) == 1 else Y  # one target: a model of 1-D predictions
    if 2 * args.cv > X.shape[0]:  # R^2 needs two rows in every test fold
        raise ValueError(
            f"--cv {args.cv} needs at least {2 * args.cv} rows (2 per fold); "
            f"{args.data} has {X.shape[0]}; pass a smaller --cv, or --cv 0."
        )
    model = RandomTSRegressor(random_state=args.seed, **_model_params(args))
    with reported_warnings():
        scores = _fit_cross_validated(
            model, X, y, args, lambda bar: _cross_validated(model, X, y, targets, args, bar)
        )
    rmse = np.sqrt(np.mean((model.predict(X).reshape(Y.shape) - Y) ** 2, axis=0))
    # The CSV's names: the rules' variables.
    model.rule_base_ = model.rule_base_.replace(input_names=inputs, output_names=targets)
    errors = ", ".join(f"{name} {value:.4g}" for name, value in zip(targets, rmse, strict=True))
    summary = (
        f"fitted {model.n_rules} rules on {X.shape[0]} samples of {inputs}; training RMSE: {errors}"
    )
    return _saved_report(model, inputs, args, summary, scores)


def _model_params(args):
    """The estimator's parameters that the command line sets (``--rules``: if given)."""
    params = dict(
        order=args.order,
        normalize=args.normalize,
        standardize=args.standardize,
        alpha=args.alpha,
        learning=args.learning,
        local_weight=args.local_weight,
        centers=args.centers,
        refine=args.refine,
    )
    if args.rules is not None:
        params["n_rules"] = args.rules
    return params


def _fit_classifier(args, X, labels, inputs, target):
    import numpy as np

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
    with reported_warnings():
        scores = _fit_cross_validated(
            model,
            X,
            labels,
            args,
            lambda bar: _cross_validated_accuracy(model, X, labels, args, bar),
        )
        accuracy = np.mean(model.predict(X) == labels)
    # The CSV's names: the rules' inputs, and the target's name, which `randomts predict`
    # heads its column of labels with.
    metadata = model.rule_base_.metadata
    metadata["target"] = target
    model.rule_base_ = model.rule_base_.replace(input_names=inputs, metadata=metadata)
    summary = (
        f"fitted {model.n_rules} rules on {X.shape[0]} samples of {inputs} to the "
        f"{classes.size} classes of {target!r} ({_listed(classes)}); "
        f"training accuracy: {accuracy:.4g}"
    )
    return _saved_report(model, inputs, args, summary, scores)


def _fit_cross_validated(model, X, y, args, cross_validated):
    """``cross_validated(bar)`` (with ``--cv``), then ``model.fit(X, y)``, under one progress bar."""
    with progress_bar(args.cv + 1, quiet=args.quiet) as bar:
        scores = cross_validated(bar) if args.cv else None
        model.fit(X, y)
        bar.update()
    return scores


def _saved_report(model, inputs, args, summary, scores):
    """Save the fitted model as if fitted on a table of the CSV's columns; the report's lines."""
    import numpy as np

    model.feature_names_in_ = np.asarray(inputs, dtype=object)
    saved = save_model(model, args.output, args.format)
    return "\n".join([summary, *([scores] if scores is not None else []), saved])


def _fold_scores(model, X, y, folds, scoring, bar):
    """``cross_validate``'s results over ``folds``: one call per fold, for the progress bar."""
    import numpy as np
    from sklearn.model_selection import cross_validate

    results = []
    for fold in folds:
        results.append(cross_validate(model, X, y, cv=[fold], scoring=scoring, error_score="raise"))
        bar.update()
    return {key: np.concatenate([r[key] for r in results]) for key in results[0]}


def _cross_validated_accuracy(model, X, labels, args, bar):
    """One line: the mean (and standard deviation) of the accuracy over stratified folds."""
    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    folds = StratifiedKFold(n_splits=args.cv, shuffle=True, random_state=args.seed)
    accuracy = _fold_scores(model, X, labels, folds.split(X, labels), "accuracy", bar)
    return (
        f"{args.cv}-fold stratified cross-validation: accuracy "
        f"{np.mean(accuracy['test_score']):.4g} (sd {np.std(accuracy['test_score']):.2g})"
    )


def _cross_validated(model, X, y, targets, args, bar):
    """One line: the mean (and standard deviation) over the ``--cv`` folds of R^2 and RMSE."""
    import numpy as np
    from sklearn.metrics import r2_score, root_mean_squared_error
    from sklearn.model_selection import KFold

    def scores(estimator, X_test, y_test):
        predicted = estimator.predict(X_test)
        rmse = root_mean_squared_error(y_test, predicted, multioutput="raw_values")
        return {"r2": r2_score(y_test, predicted), **{f"rmse{k}": v for k, v in enumerate(rmse)}}

    folds = KFold(n_splits=args.cv, shuffle=True, random_state=args.seed).split(X)
    table = _fold_scores(model, X, y, folds, scores, bar)

    def summary(values):
        return f"{np.mean(values):.4g} (sd {np.std(values):.2g})"

    rmse = ", ".join(f"{name} {summary(table[f'test_rmse{k}'])}" for k, name in enumerate(targets))
    return f"{args.cv}-fold cross-validation: R^2 {summary(table['test_r2'])}; RMSE {rmse}"
