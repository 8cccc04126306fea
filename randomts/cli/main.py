"""The ``randomts`` command: parse arguments, call the library, print."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports errors as one line and exit code 2."""

    def error(self, message):
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


# Each subcommand has one ``_add_<name>`` function that registers its arguments and
# its handler; a handler takes the parsed arguments and returns the text to print.


def _add_demo(commands):
    demo = commands.add_parser(
        "demo",
        help="reproduce the paper's Table 1: SLM against ELM on the Van der Pol oscillator",
        description="The paper's experiment (section 6, Table 1): learning, generalisation and "
        "simulation phases of 10 Van der Pol trajectories x 1000 steps, for the SLM (100 rules) "
        "and the ELM (300 RBF nodes), with the paper's pinv and the exact lstsq solver, repeated; "
        "prints the table beside the paper's. Progress goes to stderr.",
    )
    demo.add_argument(
        "--repeats",
        type=int,
        default=10,
        help="number of repeats, averaged (default 10; the paper: 100)",
    )
    demo.add_argument(
        "--rules",
        type=int,
        default=100,
        help="rules of the SLM; the ELM gets 3x as many nodes (default 100)",
    )
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.add_argument(
        "--initial-box",
        type=float,
        default=2.0,
        metavar="A",
        help="initial states in [-A, A]^2 (default 2)",
    )
    demo.add_argument(
        "--train-design",
        choices=("latin-hypercube+rest", "latin-hypercube", "uniform"),
        default="latin-hypercube+rest",
        help="training starts: one near rest and the others a Latin hypercube over "
        "the box (default), all on a Latin hypercube, or uniform at random; the "
        "other phases' starts are always uniform at random",
    )
    demo.add_argument(
        "--target",
        choices=("increment", "output"),
        default="increment",
        help="fit the models to x(k) - x(k-1) (default) or to x(k), as the paper",
    )
    demo.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    demo.add_argument(
        "--figures",
        metavar="DIR",
        help="also write figure1.png and simulation.png to DIR (needs matplotlib)",
    )
    demo.add_argument("--quiet", action="store_true", help="no progress on stderr")
    demo.set_defaults(handler=_demo)


def _demo(args):
    from randomts.paper.demo import progress_printer, run_demo

    return run_demo(
        repeats=args.repeats,
        seed=args.seed,
        n_rules=args.rules,
        initial_box=args.initial_box,
        train_design=args.train_design,
        target=args.target,
        json_path=args.json,
        figures_dir=args.figures,
        progress=None if args.quiet else progress_printer(sys.stderr),
    )


_SUBCOMMANDS = [_add_demo]


# --------------------------------------------- rule bases: make, read, convert


def _int_at_least(low, expected):
    """An argparse type: an int ``>= low``, else an error saying ``expected``."""

    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return convert


_positive_int = _int_at_least(1, "a positive integer")
_non_negative_int = _int_at_least(0, "an integer >= 0")


def _formats_help():
    from randomts.io import FORMATS

    return "{" + ",".join(sorted(FORMATS)) + "}"


def _add_generate(commands):
    cmd = commands.add_parser(
        "generate",
        help="draw a random rule base (antecedents as in the paper) and print or save it",
        description="Draw random Gaussian antecedents (centres ~ N(0, 2), widths b ~ U(0, 1)); "
        "consequents are zero unless --random-consequents.",
    )
    cmd.add_argument("--inputs", type=_positive_int, required=True, help="number of inputs N")
    cmd.add_argument(
        "--outputs", type=_positive_int, default=1, help="number of outputs M (default 1)"
    )
    cmd.add_argument(
        "--rules", type=_positive_int, default=10, help="number of rules H (default 10)"
    )
    cmd.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    cmd.add_argument(
        "--normalize", action="store_true", help="weighted average instead of weighted sum"
    )
    cmd.add_argument(
        "--random-consequents",
        action="store_true",
        help="draw consequent coefficients and constants from N(0, 1) too",
    )
    cmd.add_argument("-o", "--output", metavar="FILE", help="save to FILE instead of printing")
    cmd.add_argument(
        "--format", help=f"file format of FILE {_formats_help()} (default: from the extension)"
    )
    cmd.add_argument(
        "--precision",
        type=_positive_int,
        help="print the rules in words with this many significant digits (default: the "
        "lossless TXT format, every digit)",
    )
    cmd.set_defaults(handler=_generate)


def _generate(args):
    from randomts.core.sampling import check_random_state
    from randomts.fuzzy.rulebase import RuleBase

    if args.output:
        _check_output(args.output, args.format)
    rng = check_random_state(args.seed)
    rule_base = RuleBase.random(
        args.inputs, args.outputs, args.rules, normalize=args.normalize, random_state=rng
    )
    if args.random_consequents:
        rule_base = rule_base.replace(
            coef=rng.standard_normal((args.rules, args.outputs, args.inputs)),
            intercept=rng.standard_normal((args.rules, args.outputs)),
        )
    rule_base = rule_base.replace(
        metadata={
            "generated_by": "randomts generate",
            "seed": args.seed,
            "random_consequents": args.random_consequents,
        }
    )
    if args.output:
        return _save(rule_base, args.output, args.format)
    if args.precision is None:  # every digit: the TXT format, as it would be saved
        return rule_base.to_text(lossless=True)
    return rule_base.to_text(precision=args.precision)


def _check_output(path, format, option="--format"):
    """Refuse, before any work, an output whose format is unknown or whose folder is missing."""
    from randomts.io import format_for

    format_for(path, format, option=option)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"Cannot write {path!r}: the folder {folder!r} does not exist.")


def _save(model, path, format):
    from randomts.io import save

    save(model, path, format=format)
    rule_base = getattr(model, "rule_base_", model)  # a fitted estimator is saved as its rules
    return (
        f"wrote {path} ({rule_base.n_rules} rules, {rule_base.n_features} inputs, "
        f"{rule_base.n_outputs} outputs)"
    )


def _load(path, format=None, *, keep_names=False):
    from randomts.fuzzy.system import FuzzySystem
    from randomts.io import load

    model = load(path, format=format)
    model = getattr(model, "rule_base_", model)  # the rules of a file saved from an estimator
    if keep_names and not isinstance(model, FuzzySystem):
        # A FIS/FLL of RuleBase shape may name its terms its own way: keep the names.
        system = load(path, format=format, system=True)
        plain = FuzzySystem.from_rule_base(model)
        if [list(v.terms) for v in system.inputs + system.outputs] != [
            list(v.terms) for v in plain.inputs + plain.outputs
        ]:
            return system
    return model


def _alpha(text):
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0.0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected 'auto' or a number >= 0, got {text!r}")
    return value


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


def _delimiter(text):
    value = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(value) != 1 or value in '"\r\n':
        raise argparse.ArgumentTypeError(
            f"expected one character (or '\\t' or 'tab' for a tab), got {text!r}"
        )
    return value


def _add_delimiter(cmd):
    cmd.add_argument(
        "--delimiter",
        type=_delimiter,
        default=",",
        metavar="CHAR",
        help="the character between cells (default ','; '\\t' or 'tab' for a tab)",
    )


# ``--task auto`` classifies a numeric target of integers with at most this many distinct
# values, each seen this many times on average (binary 0/1, digits 0-9, classes coded 1-3);
# counts, years or ratings over a wider range, and fractions, are regressed.
_MAX_AUTO_CLASSES = 10
_ROWS_PER_AUTO_CLASS = 5


def _add_fit(commands):
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
        type=_positive_int,
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
        "--centers",
        choices=("samples", "normal", "data", "kmeans"),
        default="samples",
        help="rule centres: training rows drawn at random (default), normal, uniform over the "
        "data's box, or the k-means clusters of the inputs (widths from their spread)",
    )
    cmd.add_argument(
        "--refine",
        type=_non_negative_int,
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
    _add_delimiter(cmd)
    cmd.add_argument("--quiet", action="store_true", help="no progress bar")
    cmd.add_argument(
        "-o", "--output", metavar="MODEL", required=True, help="where to save the model"
    )
    cmd.add_argument(
        "--format", help=f"file format of MODEL {_formats_help()} (default: from the extension)"
    )
    cmd.set_defaults(handler=_fit)


def _fit(args):
    from randomts.io.csv_data import read_csv, read_csv_text, select_columns

    _check_output(args.output, args.format)
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
    with _reported_warnings():
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
    with _reported_warnings():
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
    with _progress_bar(args.cv + 1, quiet=args.quiet) as bar:
        scores = cross_validated(bar) if args.cv else None
        model.fit(X, y)
        bar.update()
    return scores


def _saved_report(model, inputs, args, summary, scores):
    """Save the fitted model as if fitted on a table of the CSV's columns; the report's lines."""
    import numpy as np

    model.feature_names_in_ = np.asarray(inputs, dtype=object)
    saved = _save(model, args.output, args.format)
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


class _NoBar:
    def update(self, n=1):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _progress_bar(total, *, quiet):
    """A tqdm bar on stderr when it is a terminal and the work lasts over a second, else nothing."""
    if quiet or not sys.stderr.isatty():
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional: no bar
        return _NoBar()
    return tqdm(
        total=total, desc="randomts fit", unit="fit", file=sys.stderr, leave=False, delay=1.0
    )


@contextlib.contextmanager
def _reported_warnings():
    """Print the warnings raised in the block, once per message, as readable lines on stderr.

    Each line reads ``randomts: warning: <message> [<class>] (<n> times)``.
    Deprecation warnings (for developers, not for the data's owner) and
    scikit-learn's note that an array has no feature names (the CLI selects
    the columns by name) are left out.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        yield
    counts = {}
    for item in caught:
        key = (item.category.__name__, str(item.message))
        counts[key] = counts.get(key, 0) + 1
    for (category, message), count in counts.items():
        times = f" ({count} times)" if count > 1 else ""
        print(f"randomts: warning: {message} [{category}]{times}", file=sys.stderr)


def _add_rules(commands):
    from randomts.text.rules import TABLE_FORMATS

    cmd = commands.add_parser(
        "rules",
        help="print a model's rules as text or as a table",
        description="Print the rules of MODEL (any format randomts reads) in words: each input as "
        "'about centre (±spread)', each equation as the rule's output at its centre plus slopes. "
        "With --data, the rules come most important first.",
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
        "--precision", type=_positive_int, default=4, help="significant digits (default 4)"
    )
    cmd.add_argument(
        "--data",
        metavar="DATA.csv",
        help="a CSV file with the model's input columns (by name): order the rules by "
        "their importance on it",
    )
    cmd.add_argument(
        "--top",
        type=_positive_int,
        metavar="K",
        help="with --data, only the K most important rules",
    )
    cmd.add_argument(
        "--labels",
        type=_positive_int,
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
    cmd.set_defaults(handler=_rules)


def _rules(args):
    from randomts.fuzzy.system import FuzzySystem

    rule_base = _load(args.model, keep_names=True)
    if args.top is not None and args.data is None:
        raise ValueError("--top needs --data, the data on which the rules are ranked.")
    if isinstance(rule_base, FuzzySystem):  # any Takagi-Sugeno system, with its own names
        unsupported = [
            flag
            for flag, value in (
                ("--data", args.data),
                ("--labels", args.labels),
                ("--intercept", args.intercept),
            )
            if value
        ]
        if unsupported:
            raise ValueError(
                f"{', '.join(unsupported)} apply to random-rule models; "
                f"{args.model} holds a general Takagi-Sugeno system."
            )
        return rule_base.to_text(precision=None if args.lossless else args.precision)
    if args.lossless:
        if args.style != "text" or args.data or args.labels or args.intercept:
            raise ValueError(
                "--lossless prints the TXT format; it takes no --format, --data, "
                "--labels or --intercept."
            )
        return rule_base.to_text(lossless=True)
    X = None
    if args.data is not None:
        from randomts.io.csv_data import read_csv, select_columns

        header, values = read_csv(args.data)
        X = select_columns(header, values, list(rule_base.input_names), what="input column(s)")
    options = dict(
        precision=args.precision, labels=args.labels, centered=not args.intercept, X=X, top=args.top
    )
    if args.style == "text":
        return rule_base.to_text(**options)
    return rule_base.table(fmt="plain" if args.style == "table" else args.style, **options)


def _add_predict(commands):
    cmd = commands.add_parser(
        "predict",
        help="predict the outputs of a model for every row of a CSV file",
        description="Read MODEL and DATA.csv (a header row naming the model's inputs; other "
        "columns are ignored) and write one CSV row of outputs per data row, with a header of "
        "the model's output names; for a classifier, the predicted class label, headed by the "
        "name of the target column it was fitted to by 'randomts fit' (else 'class').",
    )
    cmd.add_argument("model", metavar="MODEL", help="a saved model")
    cmd.add_argument("data", metavar="DATA.csv", help="inputs, with a header row")
    cmd.add_argument(
        "-o", "--output", metavar="OUT.csv", help="write the CSV here instead of printing it"
    )
    _add_delimiter(cmd)
    cmd.set_defaults(handler=_predict)


def _predict(args):
    from randomts.io import load
    from randomts.io.csv_data import format_csv, read_csv, write_csv

    model = load(args.model)  # a fitted estimator predicts with its own checks and warnings
    rule_base = getattr(model, "rule_base_", model)
    _, X = read_csv(args.data, delimiter=args.delimiter, columns=list(rule_base.input_names))
    with _reported_warnings():
        Y = model.predict(X)
    if hasattr(model, "classes_"):  # a classifier: one column of labels, named by the target
        header = [str(rule_base.metadata.get("target", "class"))]
        Y = Y.astype(str).reshape(-1, 1)
    else:
        header = rule_base.output_names
        Y = Y.reshape(X.shape[0], rule_base.n_outputs)  # a column per output
    if args.output:
        write_csv(args.output, header, Y, delimiter=args.delimiter)
        return f"wrote {args.output} ({Y.shape[0]} rows)"
    return format_csv(header, Y, delimiter=args.delimiter).rstrip("\n")


def _add_explain(commands):
    from randomts.text.rules import TABLE_FORMATS

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
        metavar="V1,V2,...",
        help="the input values in the model's input order (write --x=-1,2 for a leading minus)",
    )
    cmd.add_argument(
        "--top",
        type=_positive_int,
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
        "--precision", type=_positive_int, default=4, help="significant digits (default 4)"
    )
    cmd.set_defaults(handler=_explain)


def _explain(args):
    rule_base = _load(args.model)
    if not hasattr(rule_base, "explain"):  # a general FuzzySystem
        raise ValueError(
            f"{args.model} holds a general fuzzy system; explain reads rule bases "
            "(see 'randomts rules' and 'randomts predict' for it)."
        )
    try:
        x = [float(v) for v in args.x.split(",")]
    except ValueError:
        raise ValueError(f"--x must be comma-separated numbers; got {args.x!r}.") from None
    if len(x) != rule_base.n_features:
        raise ValueError(
            f"--x has {len(x)} value(s) but the model has {rule_base.n_features} inputs "
            f"{list(rule_base.input_names)}."
        )
    return rule_base.explain(x, top=args.top).to_text(fmt=args.style, precision=args.precision)


def _add_convert(commands):
    cmd = commands.add_parser(
        "convert",
        help="convert a model between formats (text, json, fis, fll)",
        description="Read IN and write OUT; the formats follow the extensions unless given.",
    )
    cmd.add_argument("source", metavar="IN", help="the model to read")
    cmd.add_argument("target", metavar="OUT", help="the file to write")
    cmd.add_argument("--from", dest="source_format", help=f"format of IN {_formats_help()}")
    cmd.add_argument("--to", dest="target_format", help=f"format of OUT {_formats_help()}")
    cmd.set_defaults(handler=_convert)


def _convert(args):
    from randomts.io import load

    _check_output(args.target, args.target_format, option="--to")
    model = load(args.source, format=args.source_format)  # a fitted estimator stays one
    if not hasattr(model, "rule_base_"):
        model = _load(args.source, args.source_format, keep_names=True)
    return _save(model, args.target, args.target_format)


def _add_plot(commands):
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
        help="a CSV file with the model's input columns: its ranges, drawn as points",
    )
    cmd.add_argument("--dpi", type=_positive_int, default=100, help="resolution (default 100)")
    cmd.set_defaults(handler=_plot)


def _plot(args):
    import io

    from randomts.io._base import atomic_write

    rule_base = _load(args.model)
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
        from randomts.io.csv_data import read_csv, select_columns

        header, values = read_csv(args.data)
        X = select_columns(header, values, names, what="input column(s)")
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


_SUBCOMMANDS += [_add_generate, _add_fit, _add_rules, _add_predict, _add_explain, _add_convert]
_SUBCOMMANDS += [_add_plot]


def build_parser():
    """The argument parser of the ``randomts`` command.

    Examples
    --------
    >>> build_parser().parse_args(["demo", "--rules", "10"]).rules
    10
    """
    from randomts._version import __version__

    parser = _Parser(prog="randomts", description="Takagi-Sugeno fuzzy models with random rules.")
    parser.add_argument("--version", action="version", version=f"randomts {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in _SUBCOMMANDS:
        add(commands)
    return parser


def main(argv=None):
    """Run the command line; return the exit code (0 ok, 1 error, 2 usage).

    Without arguments, print the usage and the subcommands to stderr and
    return 2.

    Examples
    --------
    >>> main(["demo", "--rules", "0"])
    1
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print(build_parser().format_help(), file=sys.stderr, end="")
        return 2
    try:
        args = build_parser().parse_args(argv)
        output = args.handler(args)
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as exc:
        print(f"randomts: error: {exc}", file=sys.stderr)
        return 1
    if output:
        try:
            print(output)
        except BrokenPipeError:  # e.g. `randomts rules MODEL | head`
            sys.stderr.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
