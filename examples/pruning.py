"""Pruning a 100-rule model on the paper's Van der Pol data: test accuracy against k rules kept.

Run: ``python examples/pruning.py`` (74 s measured on a shared 2-core machine). For seeds 0-2,
fits the paper's 100-rule SLM on
10 trajectories (``randomts.paper.experiment.van_der_pol_dataset(seed=0)``), then for each k keeps

- ``pruned``: the k most important rules (share of the total absolute contribution on the training
  inputs, :mod:`randomts.analysis.importance`) with their consequents refitted;
- ``random k``: k rules drawn at random from the same 100, consequents refitted (the baseline that
  tells whether the importance ranking helps);
- ``fresh k``: a new k-rule model drawn from scratch with the same seed;

and prints the median test MSE over the seeds on 10 other trajectories (``seed=1``).
"""

import numpy as np
from tabulate import tabulate

from randomts import RandomTSRegressor
from randomts.paper.experiment import van_der_pol_dataset


def mse(rule_base, X, Y):
    return float(np.mean((rule_base.predict(X) - Y) ** 2))


def accuracy_against_k(
    ks=(5, 10, 20, 30, 50, 75, 100), seeds=range(3), n_rules=100, n_trajectories=10, n_steps=1000
):
    """Rows ``[k, pruned, random k, fresh k]`` of median test MSE over ``seeds``."""
    X, Y = van_der_pol_dataset(n_trajectories=n_trajectories, n_steps=n_steps, seed=0)
    X_test, Y_test = van_der_pol_dataset(n_trajectories=n_trajectories, n_steps=n_steps, seed=1)
    results = {k: [] for k in ks}
    for seed in seeds:
        full = RandomTSRegressor.paper(n_rules=n_rules, random_state=seed).fit(X, Y).rule_base_
        rng = np.random.default_rng(seed)
        for k in ks:
            pruned = full.prune(k, X, Y)
            baseline = full.subset(rng.choice(n_rules, size=k, replace=False)).fit_consequents(X, Y)
            fresh = RandomTSRegressor.paper(n_rules=k, random_state=seed).fit(X, Y).rule_base_
            results[k].append(
                [
                    mse(pruned, X_test, Y_test),
                    mse(baseline, X_test, Y_test),
                    mse(fresh, X_test, Y_test),
                ]
            )
    return [[k, *np.median(results[k], axis=0)] for k in ks]


def main():
    rows = accuracy_against_k()
    return tabulate(
        rows, headers=["k", "pruned", "random k", "fresh k"], tablefmt="github", floatfmt=".3g"
    )


if __name__ == "__main__":
    print("Median test MSE over seeds 0-2 (100-rule SLM, Van der Pol, 10 + 10 trajectories)")
    print(main())
