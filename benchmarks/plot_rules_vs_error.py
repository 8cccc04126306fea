"""Held-out error against the number of rules on real data: k-means rules, refined rules, random.

For the diabetes data (scikit-learn) and the yearly sunspot numbers (statsmodels,
NARX on 4 lags), shuffled 5-fold cross-validation of the test RMSE (as a
fraction of the target's standard deviation) of ``h`` k-means rules
(``RandomTSRegressor(h, centers="kmeans", normalize=True)``), the same rules
refined (``refine=50``), and, as a level, ``RandomTSRegressor()`` at its
defaults (100 random rules), as in ``bench_refinement.py``. Writes
``docs/images/rules_vs_error.png`` and prints the numbers. Usage::

    python benchmarks/plot_rules_vs_error.py
"""

from __future__ import annotations

import os
import warnings

import numpy as np
from bench_refinement import DATASETS, fit_kmeans, fit_random
from sklearn.model_selection import KFold

SIZES = (2, 3, 5, 8, 12, 20)
OUTPUT = os.path.join(os.path.dirname(__file__), "..", "docs", "images", "rules_vs_error.png")


def cv_rmse(fit, X, y):
    errors = []
    for fold, (train, test) in enumerate(KFold(5, shuffle=True, random_state=0).split(X)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prediction, _ = fit(X[train], y[train], X[test], fold)
        errors.append(np.sqrt(np.mean((prediction - y[test]) ** 2)) / y.std())
    return float(np.mean(errors))


def main():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = ("diabetes", "sunspots")
    figure, axes = plt.subplots(1, len(names), figsize=(9, 3.4), constrained_layout=True)
    for axis, name in zip(axes, names, strict=True):
        X, y = DATASETS[name][0]()
        kmeans = [cv_rmse(fit_kmeans(h, 0), X, y) for h in SIZES]
        refined = [cv_rmse(fit_kmeans(h, 50), X, y) for h in SIZES]
        random = cv_rmse(fit_random, X, y)
        print(name, "h:", SIZES)
        print("  k-means:", np.round(kmeans, 3).tolist())
        print("  refined:", np.round(refined, 3).tolist())
        print("  defaults (100 random rules):", round(random, 3))
        axis.plot(SIZES, kmeans, "o--", label="k-means rules")
        axis.plot(SIZES, refined, "s-", label="refined rules")
        axis.axhline(random, color="grey", linestyle=":", label="defaults: 100 random rules")
        axis.set_xlabel("number of rules")
        axis.set_title(f"{name} ({X.shape[0]} rows, {X.shape[1]} inputs)")
    axes[0].set_ylabel("test RMSE / std(y), 5-fold CV")
    axes[0].legend()
    figure.savefig(OUTPUT, dpi=110)
    print("wrote", os.path.normpath(OUTPUT))


if __name__ == "__main__":
    main()
