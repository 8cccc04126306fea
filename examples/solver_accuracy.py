"""Training accuracy of each solver on the paper's Van der Pol data, and the TS = SLM equivalence.

Run: ``python examples/solver_accuracy.py`` (about 40 s of CPU). Prints, for seeds 0-4, the training
MSE of a 100-rule SLM fitted with each solver, then the largest relative gap between Takagi-Sugeno
inference (``RuleBase.predict``) and the paper's closed form on random models.
"""

import time

import numpy as np
from tabulate import tabulate

from randomts import RandomTSRegressor, RuleBase
from randomts.paper.experiment import van_der_pol_dataset


def solver_table(seeds=range(5)):
    X, Y = van_der_pol_dataset()
    rows = []
    for solver, alpha in [("lstsq", 0.0), ("pinv", 0.0), ("cholesky", 1e-12), ("cholesky", 1e-8)]:
        mse, seconds = [], []
        for seed in seeds:
            model = RandomTSRegressor.paper(
                n_rules=100, solver=solver, alpha=alpha, random_state=seed
            )
            start = time.perf_counter()
            model.fit(X, Y)
            seconds.append(time.perf_counter() - start)
            mse.append(np.mean((model.predict(X) - Y) ** 2))
        rows.append([solver, alpha, min(mse), np.mean(mse), max(mse), np.median(seconds)])
    headers = ["solver", "alpha", "min MSE", "mean MSE", "max MSE", "median fit s"]
    return tabulate(rows, headers=headers, tablefmt="github", floatfmt=".3g")


def closed_form_gap(seeds=range(20), n_rules=50, n_features=3, n_outputs=2):
    """Largest |TS - closed form| / sum_i |term_i| over random models and inputs, both modes."""
    worst = {False: 0.0, True: 0.0}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        a = rng.normal(0.0, np.sqrt(2.0), size=(n_rules, n_features))
        b = 1.0 - rng.uniform(size=n_rules)
        alpha = rng.normal(size=(n_rules, n_outputs, n_features))
        beta = rng.normal(size=(n_rules, n_outputs))
        X = rng.normal(0.0, 1.5, size=(500, n_features))
        g = np.exp(-(b[None, :, None] * (X[:, None, :] - a[None]) ** 2).sum(axis=2))
        terms = g[:, :, None] * (np.einsum("imk,jk->jim", alpha, X) + beta)
        for normalize in (False, True):
            denominator = g.sum(axis=1)[:, None] if normalize else 1.0
            exact = terms.sum(axis=1) / denominator
            scale = np.abs(terms).sum(axis=1) / denominator
            predicted = RuleBase.from_slm(a, b, alpha, beta, normalize=normalize).predict(X)
            gap = float(np.max(np.abs(predicted - exact) / scale))
            worst[normalize] = max(worst[normalize], gap)
    return worst


if __name__ == "__main__":
    print(solver_table())
    gap = closed_form_gap()
    print("\nTS inference vs closed form, largest relative gap over 20 random models x 500 inputs:")
    print(f"  weighted sum     {gap[False]:.2e}")
    print(f"  weighted average {gap[True]:.2e}")
