"""Whether the rules say what the model does, and at what cost in accuracy, on real data.

For every data set of ``bench_refinement.py`` and every model:

* accuracy: shuffled 5-fold cross-validation gives the test RMSE (as a
  fraction of the target's standard deviation) and the fit time (mean per
  fold);
* honesty: the model fitted on every row; over the 10 rules with the largest
  share of the absolute contributions on those rows, the distance of a rule's
  ``THEN`` part at its own centre from the model's prediction there and from
  the mean of ``y`` over the 10 training rows nearest the centre
  (:func:`randomts.analysis.agreement.rule_agreement`), in standard deviations of
  ``y``: median and largest; the number of those rules off the data beyond
  the noise of its mean (``RuleAgreement.off_data``); and the number with a
  width wider than its input's range.

The mean of 10 rows carries noise of its own: about ``RMSE / sqrt(10)``
standard deviations when the model's error is the noise. The table gives that
floor beside the distances from the data.

Models: ``random 100`` (``structure="random"``: 100 random rules, global
learning, the earlier default), the k-means recipe with global learning
(``kmeans h``: ``centers="kmeans", normalize=True``), ``interpretable h``
(the setting ``interpretable()`` had before it became the grown rules: ``h``
k-means rules, combined learning), ``grown`` (``RandomTSRegressor()``, the
rules grown where the data need them), and at equal rule counts ``pyFUME`` and
``anfis-toolbox`` when importable (their rules are not ours to measure:
accuracy only).

Usage::

    python benchmarks/bench_honest_rules.py              # every data set
    python benchmarks/bench_honest_rules.py --quick      # the three smallest
    python benchmarks/bench_honest_rules.py --quick-start  # the README's quick start
    python benchmarks/bench_honest_rules.py --cost   # combined against global, 100 rules
    python benchmarks/bench_honest_rules.py --more-rules --datasets engel concrete Clothing
    PYTHONPATH=/tmp/rts-peers python benchmarks/bench_honest_rules.py --peers
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from bench_refinement import DATASETS, QUICK, fit_anfis, fit_pyfume
from sklearn.model_selection import KFold

from randomts import RandomTSRegressor
from randomts.analysis.agreement import rule_agreement

TOP = 10


def _kmeans_combined(n_rules):
    """``interpretable(n_rules)`` as it was before it became the grown rules.

    ``n_rules`` random rules on the k-means clusters, averaged, fitted by
    combined learning: the "interpretable N" rows of ``benchmarks/RESULTS.md``.
    """
    return lambda seed: RandomTSRegressor(
        n_rules,
        structure="random",
        centers="kmeans",
        normalize=True,
        learning="combined",
        random_state=seed,
    )


def _more_rules():
    """More rules for the honest setting, and a weighted average of 100 random rules."""
    ours = _models(peers=False)
    return {
        "random 100": ours["random 100"],
        "interpretable 10": ours["interpretable 10"],
        "interpretable 40": _kmeans_combined(40),
        "interpretable 80": _kmeans_combined(80),
        "average 100": lambda seed: RandomTSRegressor(
            structure="random", normalize=True, random_state=seed
        ),
        "average 100 combined": lambda seed: RandomTSRegressor(
            structure="random", normalize=True, learning="combined", random_state=seed
        ),
    }


def _models(peers, more=False):
    """``{name: make}``: ``make(seed)`` an unfitted estimator of ours, or a peer's ``fit``."""
    if more:
        return _more_rules()
    out = {
        "random 100": lambda seed: RandomTSRegressor(structure="random", random_state=seed),
        "kmeans 10": lambda seed: RandomTSRegressor(
            10, centers="kmeans", normalize=True, random_state=seed
        ),
        "interpretable 10": _kmeans_combined(10),
        "interpretable 20": _kmeans_combined(20),
        "grown": lambda seed: RandomTSRegressor(structure="grown"),
    }
    if peers:
        out["pyFUME 10"] = fit_pyfume(10)
        out["anfis-toolbox"] = fit_anfis
    return out


PEERS = ("pyFUME 10", "anfis-toolbox")


def honesty(model, X, y):
    """Median and largest distance from the model and the data, and rules too wide."""
    rule_base = model.rule_base_
    share = np.abs(rule_base.contributions(X)).mean(axis=0).sum(axis=1)
    top = np.argsort(share)[::-1][:TOP]
    found = rule_agreement(rule_base, X, y)
    from_model = np.abs(found.from_model[top]).max(axis=1)
    from_data = np.abs(found.from_data[top]).max(axis=1)
    off_data = int(found.off_data[top].any(axis=1).sum())
    too_wide = int(found.too_wide[top].any(axis=1).sum())
    return (
        np.median(from_model),
        from_model.max(),
        np.median(from_data),
        from_data.max(),
        too_wide,
        off_data,
    )


def run(names, peers, n_splits=5, more=False):
    rows = {}
    for name in names:
        X, y = DATASETS[name][0]()
        scale = y.std()
        for model_name, make in _models(peers, more).items():
            ours = model_name not in PEERS
            errors, times, failure = [], [], None
            folds = KFold(n_splits, shuffle=True, random_state=0).split(X)
            for fold, (train, test) in enumerate(folds):
                start = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if ours:
                            prediction = make(fold).fit(X[train], y[train]).predict(X[test])
                        else:
                            prediction = make(X[train], y[train], X[test], fold)[0]
                except Exception as exc:  # a peer that does not run is reported, not fatal
                    failure = f"{type(exc).__name__}: {str(exc)[:60]}"
                    break
                times.append(time.perf_counter() - start)
                errors.append(np.sqrt(np.mean((prediction - y[test]) ** 2)) / scale)
            if failure is not None:
                rows[name, model_name] = failure
                continue
            found = None
            if ours:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    found = honesty(make(0).fit(X, y), X, y)
            rows[name, model_name] = (np.mean(errors), np.mean(times), found, X.shape)
            print(name, model_name, rows[name, model_name], flush=True)
    return rows


def tables(rows, names, model_names):
    accuracy = [
        "| data set (rows x inputs) | " + " | ".join(model_names) + " |",
        "|---" * (len(model_names) + 1) + "|",
    ]
    honest = [
        "| data set | model | from model: median | largest | from data: median | largest "
        "| noise floor | off the data | too wide |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in names:
        shape = next(v[3] for (d, _), v in rows.items() if d == name and not isinstance(v, str))
        cells = []
        for model_name in model_names:
            value = rows[name, model_name]
            if isinstance(value, str):
                cells.append("n/a")
                continue
            cells.append(f"{value[0]:.3f} ({value[1]:.2g} s)")
            if value[2] is not None:
                fm, fm_max, fd, fd_max, wide, off = value[2]
                floor = value[0] / np.sqrt(10)
                honest.append(
                    f"| {name} | {model_name} | {fm:.3f} | {fm_max:.3f} | {fd:.3f} | "
                    f"{fd_max:.3f} | {floor:.3f} | {off} | {wide} |"
                )
        accuracy.append(f"| {name} ({shape[0]} x {shape[1]}) | " + " | ".join(cells) + " |")
    for label, reduce in (("geometric mean", lambda v: np.exp(np.mean(np.log(v)))), ("worst", max)):
        cells = []
        for model_name in model_names:
            values = [
                rows[name, model_name][0] / rows[name, "random 100"][0]
                for name in names
                if not isinstance(rows[name, model_name], str)
            ]
            cells.append(f"{reduce(values):.3f}" if len(values) == len(names) else "n/a")
        accuracy.append(f"| {label} RMSE / random 100 | " + " | ".join(cells) + " |")
    summary = [
        "| model | median of medians from model | largest from model | rules off the data "
        "| rules too wide |"
    ]
    summary.append("|---|---|---|---|---|")
    for model_name in model_names:
        found = [
            rows[name, model_name][2]
            for name in names
            if not isinstance(rows[name, model_name], str) and rows[name, model_name][2]
        ]
        if found:
            summary.append(
                f"| {model_name} | {np.median([f[0] for f in found]):.3f} | "
                f"{max(f[1] for f in found):.3f} | {sum(f[5] for f in found)} | "
                f"{sum(f[4] for f in found)} |"
            )
    return "\n".join(accuracy), "\n".join(honest), "\n".join(summary)


def quick_start():
    """The honesty figures of the README's quick start: random, k-means and grown rules."""
    rng = np.random.default_rng(0)
    X = rng.uniform(250, 350, size=(500, 2))
    y = np.sin(X[:, 0] / 20) * X[:, 1] / 100 + rng.normal(scale=0.05, size=500)
    for name, model in (
        ("random rules", RandomTSRegressor(structure="random", random_state=0)),
        ("interpretable 10 (k-means)", _kmeans_combined(10)(0)),
        ("RandomTSRegressor() (grown)", RandomTSRegressor()),
    ):
        fm, fm_max, fd, fd_max, wide, off = honesty(model.fit(X, y), X, y)
        print(
            f"{name}: from the model median {fm:.3f}, largest {fm_max:.3f}; from the data "
            f"median {fd:.3f}, largest {fd_max:.3f}; of the top {TOP}, {off} off the data "
            f"beyond its noise, {wide} too wide"
        )


def cost():
    """Fit time of combined against global learning: 100 rules, 2,000 rows of 10 inputs."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 10))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=2000)
    seconds = {}
    for learning in ("global", "combined"):
        model = RandomTSRegressor(structure="random", learning=learning, random_state=0)
        with threadpool_limits(1):
            start = time.perf_counter()
            model.fit(X, y)
            seconds[learning] = time.perf_counter() - start
    print(
        f"100 rules, 2,000 rows of 10 inputs, one BLAS thread: global {seconds['global']:.2f} s, "
        f"combined {seconds['combined']:.2f} s ({seconds['combined'] / seconds['global']:.0f}x)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the three smallest data sets")
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), help="these data sets")
    parser.add_argument("--peers", action="store_true", help="also pyFUME and anfis-toolbox")
    parser.add_argument("--quick-start", action="store_true", help="the README's quick start")
    parser.add_argument("--cost", action="store_true", help="combined against global fit time")
    parser.add_argument(
        "--more-rules",
        action="store_true",
        help="the k-means setting with 40 and 80 rules, and weighted averages of 100 random rules",
    )
    args = parser.parse_args()
    if args.quick_start:
        return quick_start()
    if args.cost:
        return cost()
    names = QUICK if args.quick else tuple(args.datasets or DATASETS)
    rows = run(names, args.peers, more=args.more_rules)
    accuracy, honest, summary = tables(rows, names, list(_models(args.peers, args.more_rules)))
    print("\nTest RMSE / std(y), shuffled 5-fold CV (mean fit time per fold):\n")
    print(accuracy)
    print(f"\nThe {TOP} rules with the largest share, fitted on every row (std of y):\n")
    print(honest)
    print()
    print(summary)
    failures = sorted({f"{m}: {v}" for (d, m), v in rows.items() if isinstance(v, str)})
    if failures:
        print("\nNot run:", *failures, sep="\n- ")


if __name__ == "__main__":
    main()
