"""NARXRegressor on public nonlinear system-identification benchmarks, in free run.

Each benchmark follows its standard protocol (see ``../shared/data/sysid/README.md``
or the docs page :doc:`/user_guide/system_identification`):

- cascaded tanks: fit on (uEst, yEst); free-run RMSE (V) on (uVal, yVal), the
  run started from the first ``max_lag`` measured outputs and scored after them;
- Silverbox: fit on the first 75 % of samples 40650-127400 (the multisine
  part); free run on the "arrow" record (samples 100-40575) after a 50-sample
  window of measured outputs; RMSE in mV on the whole arrow and on its first
  32000 samples (no extrapolation);
- gas furnace: (a) first 148 samples to fit, free run on the last 148;
  (b) one-step MSE on all 296 samples with regressors y(t-1), u(t-4).

Compared with a linear ARX (least squares on the same lags) and, when it can
be imported, SysIdentPy's FROLS polynomial NARX (degree 2). The data are not
part of the repository: pass the folder holding the CSV files.

Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=/tmp/rts-sysid \\
        python benchmarks/bench_sysid.py ../shared/data/sysid

``--only tanks|silverbox|gas`` and ``--lags 6,6`` run a part; ``--selection-blocks 1``
chooses the estimator by the held-out end alone; ``--no-prediction`` skips the
``focus="prediction"`` rows; ``--auto-lags`` and ``--intervals`` run the other tables.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.linear_model import LinearRegression

from randomts import NARXRegressor, RandomTSRegressor
from randomts.dynamics.narx import NARX
from randomts.estimators.narx import LAG_CHOICES
from randomts.exceptions import RandomTSWarning

SEEDS = (0, 1, 2)
# parameters of every focus="simulation" fit, from the command line (--selection-blocks)
EXTRA = {}
# the estimators NARXRegressor's defaults fit and choose from, in order
CANDIDATES = ("100 random rules", "10 interpretable rules", "1 rule (linear)")


def read(folder, name):
    return np.genfromtxt(os.path.join(folder, name), delimiter=",", names=True)


def rmse(a, b):
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def arx_free_run(y_lags, u_lags, u_fit, y_fit, u_run, y_init):
    """Linear ARX by least squares on the same lagged rows, simulated from ``y_init``."""
    narx = NARX(y_lags, u_lags)
    linear = LinearRegression().fit(*narx.regressors(u_fit, y_fit))
    n_init = len(y_init)
    start = n_init - narx.max_lag
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", RandomTSWarning)
        run = narx.simulate(linear, u_run[start:], y_init[start:])
    return np.concatenate([y_init[:start], run])


def frols_free_run(y_lags, u_lags, u_fit, y_fit, u_run, y_init, n_terms):
    """SysIdentPy's FROLS (polynomial degree 2), or None if it cannot be imported."""
    try:
        from sysidentpy.basis_function import Polynomial
        from sysidentpy.model_structure_selection import FROLS
        from sysidentpy.parameter_estimation import LeastSquares
    except ImportError:
        return None
    model = FROLS(
        order_selection=False,
        n_terms=n_terms,
        ylag=int(y_lags),
        xlag=int(u_lags),
        estimator=LeastSquares(),
        basis_function=Polynomial(degree=2),
    )
    model.fit(X=u_fit.reshape(-1, 1), y=y_fit.reshape(-1, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = model.predict(X=u_run.reshape(-1, 1), y=y_init.reshape(-1, 1))
    return np.asarray(run).ravel()[: len(u_run)]


def narx_runs(params, u_fit, y_fit, u_run, y_init, seeds=SEEDS):
    """Free runs of NARXRegressor(**params) for every seed, with the fit times."""
    params = {**EXTRA, **params} if params.get("focus") != "prediction" else params
    runs, times = [], []
    for seed in seeds:
        start = time.perf_counter()
        model = NARXRegressor(random_state=seed, **params).fit(u_fit, y_fit)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RandomTSWarning)
            run = model.simulate(u_run, y_init)
        times.append(time.perf_counter() - start)
        runs.append(run)
        if model.candidate_errors_ is not None and len(model.candidate_errors_) > 1:
            kept = {100: 0, 10: 1, 1: 2}.get(model.rule_base_.n_rules)
            blocks = model.selection_errors_
            print(
                f"    seed {seed}: kept {CANDIDATES[kept] if kept is not None else '?'} "
                f"(free-run RMSE of each on the held-out end: "
                f"{', '.join(f'{e:.4g}' for e in model.candidate_errors_)}"
                + (
                    ""
                    if blocks is None
                    else "; on every block: "
                    + "; ".join(" ".join(f"{e:.3g}" for e in row) for row in blocks)
                )
                + ")",
                flush=True,
            )
    return runs, times


def report(name, score, runs, times, scale=1.0, unit=""):
    values = [score(run) * scale for run in runs]
    flags = [
        ("diverged" if run.diverged else "") + (" left data" if run.left_data else "")
        for run in runs
    ]
    flag = ", ".join(sorted({f.strip() for f in flags if f.strip()})) or "-"
    print(
        f"  {name:<44} {np.mean(values):9.4g} +- {np.std(values):<8.2g}{unit} "
        f"[{' '.join(f'{v:.4g}' for v in values)}]  {flag}  ({np.mean(times):.1f} s)",
        flush=True,
    )


def cascaded_tanks(folder, configurations):
    data = read(folder, "cascaded_tanks.csv")
    ue, ye, uv, yv = data["uEst"], data["yEst"], data["uVal"], data["yVal"]
    print("Cascaded tanks: free-run RMSE on the validation record (V)")
    for label, lags, params in configurations:
        ny, nu = lags
        n_init = max(ny, nu)
        y_init = yv[:n_init]

        def score(run, n_init=n_init):
            return rmse(run[n_init:], yv[n_init:])

        runs, times = narx_runs(dict(y_lags=ny, u_lags=nu, **params), ue, ye, uv, y_init)
        report(f"NARXRegressor {label} lags {lags}", score, runs, times, unit=" V")
        arx = arx_free_run(ny, nu, ue, ye, uv, y_init)
        print(f"  {'linear ARX lags ' + str(lags):<44} {score(arx):9.4g} V")
        frols = frols_free_run(ny, nu, ue, ye, uv, yv[: max(ny, nu)], n_terms=10)
        if frols is not None:
            print(f"  {'FROLS degree 2, 10 terms, lags ' + str(lags):<44} {score(frols):9.4g} V")


def silverbox(folder, configurations):
    data = read(folder, "silverbox.csv")
    u, y = data["V1"], data["V2"]
    multisine = slice(40650, 127400)
    n_fit = int(0.75 * (multisine.stop - multisine.start))
    u_fit, y_fit = u[multisine][:n_fit], y[multisine][:n_fit]
    arrow_u, arrow_y = u[100:40575], y[100:40575]
    window = 50
    print("Silverbox: free-run RMSE on the arrow record after a 50-sample window (mV)")

    def full(run):
        return rmse(run[window:], arrow_y[window:])

    def no_extrapolation(run):
        return rmse(run[window:32000], arrow_y[window:32000])

    for label, lags, params in configurations:
        ny, nu = lags
        runs, times = narx_runs(
            dict(y_lags=ny, u_lags=nu, **params), u_fit, y_fit, arrow_u, arrow_y[:window]
        )
        report(f"NARXRegressor {label} lags {lags}, full", full, runs, times, 1e3, " mV")
        report(
            f"NARXRegressor {label} lags {lags}, no extrap.",
            no_extrapolation,
            runs,
            times,
            1e3,
            " mV",
        )
        arx = arx_free_run(ny, nu, u_fit, y_fit, arrow_u, arrow_y[:window])
        print(
            f"  {'linear ARX lags ' + str(lags):<44} full {1e3 * full(arx):.4g} mV, "
            f"no extrap. {1e3 * no_extrapolation(arx):.4g} mV"
        )


def gas_furnace(folder, configurations):
    data = read(folder, "gas_furnace.csv")
    u, y = data["u"], data["y"]
    print("Gas furnace (a): fit on the first 148 samples, free run on the last 148")
    for label, lags, params in configurations:
        ny, nu = lags
        n_init = max(ny, nu)
        u_run, y_run = u[148:], y[148:]

        def score(run, n_init=n_init, y_run=y_run):
            return rmse(run[n_init:], y_run[n_init:])

        runs, times = narx_runs(
            dict(y_lags=ny, u_lags=nu, **params), u[:148], y[:148], u_run, y_run[:n_init]
        )
        report(f"NARXRegressor {label} lags {lags}", score, runs, times)
        arx = arx_free_run(ny, nu, u[:148], y[:148], u_run, y_run[:n_init])
        print(f"  {'linear ARX lags ' + str(lags):<44} {score(arx):9.4g}")
        frols = frols_free_run(ny, nu, u[:148], y[:148], u_run, y_run[:n_init], n_terms=6)
        if frols is not None:
            print(f"  {'FROLS degree 2, 6 terms, lags ' + str(lags):<44} {score(frols):9.4g}")
    print("Gas furnace (b): one-step MSE on all 296 samples, regressors y(t-1), u(t-4)")
    for n_rules in (2, 6, 10):
        errors = []
        for seed in SEEDS:
            model = NARXRegressor(
                y_lags=1,
                u_lags=(4,),
                estimator=RandomTSRegressor(n_rules=n_rules),
                focus="prediction",  # the protocol's criterion is the one-step error
                random_state=seed,
            ).fit(u, y)
            errors.append(np.mean((model.predict(u, y)[4:] - y[4:]) ** 2))
        print(
            f"  NARXRegressor {n_rules:>3} rules  MSE {np.mean(errors):.4g} +- {np.std(errors):.2g}"
        )
    narx = NARX(1, (4,))
    X, Y = narx.regressors(u, y)
    linear = LinearRegression().fit(X, Y)
    print(f"  linear ARX        MSE {np.mean((linear.predict(X) - Y) ** 2):.4g}")


def automatic_lags(folder):
    """The cascaded tanks with ``y_lags="auto", u_lags="auto"``: the lags kept and the error."""
    data = read(folder, "cascaded_tanks.csv")
    ue, ye, uv, yv = data["uEst"], data["yEst"], data["uVal"], data["yVal"]
    n_init = max(LAG_CHOICES)
    print("Cascaded tanks, lags 'auto': free-run RMSE on the validation record (V)")
    for seed in SEEDS:
        start = time.perf_counter()
        model = NARXRegressor("auto", "auto", random_state=seed, **EXTRA).fit(ue, ye)
        seconds = time.perf_counter() - start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RandomTSWarning)
            run = model.simulate(uv, yv[:n_init])
        print(
            f"  seed {seed}: lags {len(model.narx_.y_lags)}, "
            f"{rmse(run[n_init:], yv[n_init:]):.4g} V ({seconds:.1f} s)",
            flush=True,
        )


def interval_coverage(folder):
    """Coverage and width of the defaults' one-step intervals and free-run bands (seed 0)."""
    tanks = read(folder, "cascaded_tanks.csv")
    box = read(folder, "silverbox.csv")
    gas = read(folder, "gas_furnace.csv")
    multisine = slice(40650, 127400)
    n_fit = int(0.75 * (multisine.stop - multisine.start))
    records = {
        # name: (lags, fit u, fit y, test u, test y, initial outputs, unit scale)
        "cascaded tanks (V)": (
            (4, 4),
            tanks["uEst"],
            tanks["yEst"],
            tanks["uVal"],
            tanks["yVal"],
            4,
            1.0,
        ),
        "Silverbox arrow (mV)": (
            (4, 4),
            box["V1"][multisine][:n_fit],
            box["V2"][multisine][:n_fit],
            box["V1"][100:40575],
            box["V2"][100:40575],
            50,
            1e3,
        ),
        "gas furnace (% CO2)": (
            (2, 2),
            gas["u"][:148],
            gas["y"][:148],
            gas["u"],
            gas["y"],
            148,
            1.0,
        ),
    }
    print("Intervals of the defaults (seed 0): coverage on the test record, mean width")
    for name, (lags, u_fit, y_fit, u_test, y_test, n_init, unit) in records.items():
        model = NARXRegressor(*lags, random_state=0).fit(u_fit, y_fit)
        for coverage in (0.8, 0.9, 0.95):
            lower, upper = model.predict_interval(u_test, y_test, coverage=coverage)
            keep = slice(n_init, None)  # after the initial outputs (the gas furnace: its test half)
            inside = (lower[keep] <= y_test[keep]) & (y_test[keep] <= upper[keep])
            one_step = (np.mean(inside), unit * np.mean(upper[keep] - lower[keep]))
            lower, upper = model.simulate_interval(u_test, y_test[:n_init], coverage=coverage)
            free = slice(n_init, None)
            inside = (lower[free] <= y_test[free]) & (y_test[free] <= upper[free])
            run = (np.mean(inside), unit * np.mean(upper[free] - lower[free]))
            print(
                f"  {name:<22} {coverage:.2f}: one-step {one_step[0]:.3f} (width {one_step[1]:.4g}),"
                f" free run {run[0]:.3f} (width {run[1]:.4g})",
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "folder", help="folder holding cascaded_tanks.csv, silverbox.csv, gas_furnace.csv"
    )
    parser.add_argument("--only", choices=("tanks", "silverbox", "gas"), default=None)
    parser.add_argument(
        "--intervals", action="store_true", help="coverage of the intervals and bands instead"
    )
    parser.add_argument(
        "--auto-lags", action="store_true", help="the cascaded tanks with lags 'auto' instead"
    )
    parser.add_argument(
        "--selection-blocks",
        type=int,
        default=None,
        help="selection_blocks of every focus='simulation' fit (default: the estimator's)",
    )
    parser.add_argument(
        "--no-prediction", action="store_true", help="skip the focus='prediction' rows"
    )
    parser.add_argument(
        "--lags", default=None, help="only the configurations of these lags, e.g. 6,6"
    )
    args = parser.parse_args()
    if args.selection_blocks is not None:
        EXTRA["selection_blocks"] = args.selection_blocks
    if args.intervals:
        return interval_coverage(args.folder)
    if args.auto_lags:
        return automatic_lags(args.folder)
    variants = (("focus='prediction'", {"focus": "prediction"}), ("defaults", {}))
    if args.no_prediction:
        variants = variants[1:]
    configurations = {
        "tanks": [
            (name, lags, params) for lags in ((2, 2), (4, 4), (6, 6)) for name, params in variants
        ],
        "silverbox": [
            (name, lags, params) for lags in ((4, 4), (6, 6)) for name, params in variants
        ],
        "gas": [(name, lags, params) for lags in ((2, 2), (4, 6)) for name, params in variants],
    }
    if args.lags is not None:
        chosen = tuple(int(n) for n in args.lags.split(","))
        configurations = {
            key: [c for c in values if c[1] == chosen] for key, values in configurations.items()
        }
    runners = {"tanks": cascaded_tanks, "silverbox": silverbox, "gas": gas_furnace}
    for key, runner in runners.items():
        if args.only in (None, key):
            runner(args.folder, configurations[key])


if __name__ == "__main__":
    main()
