"""Fits whose predictions are pinned in ``tests/data/pinned_predictions.npz``.

Every case fits an estimator through the public API on small data and
returns the arrays it predicts (and the penalties it chose). The fixture
was recorded from these cases before the estimators' code was reorganised;
``tests/test_pinned_predictions.py`` fits them again and compares.

The cases name ``structure="random"`` and ``lock_range=False``
(:data:`RANDOM`): the fits recorded before the rules were grown and held in
their ranges by default keep their predictions bit for bit under that name. Regenerate (only when a change of the models is
the point, and say so in the CHANGELOG): ``python tests/pinned_fits.py``.
"""

import os
import platform
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "data", "pinned_predictions.npz")

_rng = np.random.default_rng(2024)
X = _rng.uniform(-2.0, 2.0, size=(240, 3))
Y = np.column_stack(
    [
        np.sin(X[:, 0]) * X[:, 1] + 0.3 * X[:, 2] ** 2 + 0.05 * _rng.normal(size=240),
        np.cos(X[:, 1]) - 0.5 * X[:, 0] + 0.05 * _rng.normal(size=240),
    ]
)
y = Y[:, 0]
LABELS = np.where(y > np.median(y), "high", "low")
CLASSES = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
# the random rules of the paper, which every case names, evaluated wherever the rows lie (the
# regressor's lock_range holds them in the training ranges, and some rows below lie beyond)
RANDOM = {"structure": "random", "lock_range": False}
# rows to predict: inside the training box, and a few beyond it
X_TEST = np.vstack([_rng.uniform(-2.0, 2.0, size=(40, 3)), _rng.uniform(-3.0, 3.0, size=(10, 3))])


def _regressor(**params):
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor(**RANDOM, **params).fit(X, y)
        return {"predict": model.predict(X_TEST), "alpha": np.float64(model.alpha_)}

    return fit


def _regressor_multi(**params):
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor(**RANDOM, **params).fit(X, Y)
        return {"predict": model.predict(X_TEST), "alpha": np.float64(model.alpha_)}

    return fit


def _paper(**params):
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor.paper(**params).fit(X, y)
        return {"predict": model.predict(X_TEST)}

    return fit


def _kmeans_combined(**params):
    """Rules on the k-means clusters, averaged, combined learning (the former interpretable())."""
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor(
            **RANDOM, centers="kmeans", normalize=True, learning="combined", **params
        ).fit(X, y)
        return {
            "predict": model.predict(X_TEST),
            "alpha": np.float64(model.alpha_),
            "local_weight": np.float64(model.local_weight_),
        }

    return fit


def _partial(chunks, **params):
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor(**RANDOM, **params)
        for rows in np.array_split(np.arange(X.shape[0]), chunks):
            model.partial_fit(X[rows], y[rows])
        return {"predict": model.predict(X_TEST), "alpha": np.float64(model.alpha_)}

    return fit


def _partial_paper(chunks, **params):
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor.paper(**params)
        for rows in np.array_split(np.arange(X.shape[0]), chunks):
            model.partial_fit(X[rows], y[rows])
        return {"predict": model.predict(X_TEST)}

    return fit


def _classifier(labels, **params):
    from randomts import RandomTSClassifier

    def fit():
        model = RandomTSClassifier(**RANDOM, **params).fit(X, labels)
        return {
            "decision": model.decision_function(X_TEST),
            "proba": model.predict_proba(X_TEST),
            "temperature": np.float64(model.temperature_),
        }

    return fit


def _dask(**params):
    def fit():
        import dask
        import dask.array as da

        from randomts import RandomTSRegressor
        from randomts.distributed import fit_estimator_dask

        with dask.config.set(scheduler="synchronous"):
            model = fit_estimator_dask(
                RandomTSRegressor(**RANDOM, **params),
                da.from_array(X, chunks=(60, 3)),
                da.from_array(y, chunks=60),
            )
        return {"predict": model.predict(X_TEST), "alpha": np.float64(model.alpha_)}

    return fit


def _intervals(**params):
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor(**RANDOM, **params).fit_conformalize(X[:160], y[:160])
        lower, upper = model.predict_interval(X_TEST, coverage=0.9)
        split = RandomTSRegressor(**RANDOM, **params).fit(X[:160], y[:160])
        split = split.conformalize(X[160:], y[160:])
        split_lower, split_upper = split.predict_interval(X_TEST, coverage=0.9)
        return {
            "lower": lower,
            "upper": upper,
            "split_lower": split_lower,
            "split_upper": split_upper,
        }

    return fit


def _pruned(k, **params):
    from randomts import RandomTSRegressor

    def fit():
        model = RandomTSRegressor(**RANDOM, **params).fit(X, y)
        return {"predict": model.prune(k, X, y).predict(X_TEST)}

    return fit


def _rule_base_fits():
    from randomts import RuleBase

    antecedents = RuleBase.random(3, n_rules=15, centers="samples", data=X, random_state=3)
    return {
        "auto": antecedents.fit_consequents(X, Y, alpha="auto").predict(X_TEST),
        "lstsq": antecedents.fit_consequents(X, Y, alpha=1e-4).predict(X_TEST),
        "order0": antecedents.fit_consequents(X, y, order=0, alpha="auto").predict(X_TEST),
        "combined": antecedents.replace(normalize=True)
        .fit_consequents(X, y, alpha="auto", learning="combined")
        .predict(X_TEST),
    }


CASES = {
    "regressor_default_seed0": _regressor(random_state=0),
    "regressor_default_seed1": _regressor(random_state=1),
    "regressor_20_rules_seed2": _regressor(n_rules=20, random_state=2),
    "regressor_order0": _regressor(n_rules=30, order=0, random_state=0),
    "regressor_normalize": _regressor(n_rules=20, normalize=True, random_state=0),
    "regressor_raw_inputs": _regressor(n_rules=20, standardize=False, random_state=0),
    "regressor_lstsq": _regressor(n_rules=20, alpha=1e-3, solver="lstsq", random_state=0),
    "regressor_pinv": _regressor(n_rules=20, alpha=1e-3, solver="pinv", random_state=0),
    "regressor_cholesky": _regressor(n_rules=20, alpha=1e-3, solver="cholesky", random_state=0),
    "regressor_centers_normal": _regressor(n_rules=20, centers="normal", random_state=0),
    "regressor_centers_uniform": _regressor(
        n_rules=20, centers="uniform", center_bounds=(-2.0, 2.0), random_state=0
    ),
    "regressor_centers_data": _regressor(n_rules=20, centers="data", random_state=0),
    "regressor_kmeans": _regressor(n_rules=8, centers="kmeans", random_state=0),
    "regressor_local": _regressor(n_rules=8, centers="kmeans", learning="local", random_state=0),
    "regressor_combined_fixed": _regressor(
        n_rules=8, learning="combined", local_weight=2.0, alpha=1e-2, random_state=0
    ),
    "regressor_multi_output": _regressor_multi(n_rules=20, random_state=0),
    "regressor_refine": _regressor(n_rules=6, refine=10, random_state=0),
    "regressor_refine_alpha": _regressor(n_rules=6, refine=10, alpha=1e-2, random_state=1),
    "regressor_refine_normalize": _regressor(
        n_rules=6, refine=10, normalize=True, centers="kmeans", random_state=0
    ),
    "paper_seed0": _paper(n_rules=20, random_state=0),
    "paper_seed1_order0": _paper(n_rules=40, order=0, random_state=1),
    "paper_pinv": _paper(n_rules=20, solver="pinv", random_state=0),
    "paper_cholesky": _paper(n_rules=20, solver="cholesky", alpha=1e-6, random_state=0),
    "paper_normalize": _paper(n_rules=20, normalize=True, random_state=0),
    "interpretable_seed0": _kmeans_combined(n_rules=6, random_state=0),
    "interpretable_seed1": _kmeans_combined(n_rules=5, random_state=1),
    "partial_fit_paper": _partial_paper(4, n_rules=20, alpha=1e-3, random_state=0),
    "partial_fit_auto": _partial(3, n_rules=20, random_state=0),
    "partial_fit_combined": _partial(
        3, n_rules=6, normalize=True, learning="combined", random_state=0
    ),
    "classifier_two": _classifier(LABELS, n_rules=20, random_state=0),
    "classifier_three": _classifier(CLASSES, n_rules=20, random_state=0),
    "classifier_default": _classifier(LABELS, random_state=1),
    "dask_default": _dask(n_rules=15, random_state=0),
    "dask_alpha": _dask(n_rules=15, alpha=1e-3, random_state=0),
    "dask_combined": _dask(
        n_rules=6, normalize=True, learning="combined", centers="samples", random_state=0
    ),
    "intervals": _intervals(n_rules=10, random_state=0),
    "pruned": _pruned(6, n_rules=25, random_state=0),
}


def run(name):
    """The arrays of case ``name``, warnings silenced (some test rows lie beyond the data)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "rule_base_fits":
            return _rule_base_fits()
        return CASES[name]()


NAMES = [*CASES, "rule_base_fits"]


def environment():
    """What the exactness of a recorded float depends on: the versions and the BLAS."""
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    blas = sorted(
        f"{info.get('internal_api')}-{info.get('version')}-{info.get('architecture')}"
        f"-{info.get('num_threads')}"
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    )
    return "|".join(
        [platform.machine(), np.__version__, scipy.__version__, sklearn.__version__, *blas]
    )


if __name__ == "__main__":
    arrays = {"environment": np.array(environment())}
    for name in NAMES:
        for key, value in run(name).items():
            arrays[f"{name}/{key}"] = np.asarray(value)
    np.savez_compressed(FIXTURE, **arrays)
    print(f"wrote {FIXTURE}: {len(arrays) - 1} arrays")
