"""
How many rules reach zero training error
========================================

The paper's theorem: for ``N`` distinct samples in ``n`` inputs, a
Shuffled Linear Model with ``h = N / (n + 1)`` random rules makes the block
matrix ``K`` square and, with probability one, invertible, so the training
error is zero; an Extreme Learning Machine with RBF nodes (``order=0``, the
paper's ``alpha_i = 0``) needs ``h = N`` nodes. Here ``N = 60``, ``n = 2``:
20 rules against 60 nodes.
"""

import matplotlib.pyplot as plt
import numpy as np

from randomts import RandomTSRegressor

rng = np.random.default_rng(0)
N, n = 60, 2
X = rng.uniform(-2, 2, size=(N, n))
y = np.sin(2 * X[:, 0]) + np.cos(3 * X[:, 1])

sizes = np.arange(2, 71, 2)
seeds = range(5)
curves = {}
for order, name in [(1, "SLM (order=1)"), (0, "ELM (order=0)")]:
    mse = np.array(
        [
            [
                np.mean(
                    (
                        RandomTSRegressor.paper(n_rules=h, order=order, random_state=s)
                        .fit(X, y)
                        .predict(X)
                        - y
                    )
                    ** 2
                )
                for s in seeds
            ]
            for h in sizes
        ]
    )
    curves[name] = mse
    for h in (N // (n + 1) - 2, N // (n + 1), N - 2, N):
        row = mse[sizes == h][0]
        print(
            f"{name}, {h:2d} rules: training MSE from {row.min():.1e} to {row.max():.1e} "
            f"over {len(seeds)} seeds"
        )

# %%
# The largest training MSE over five seeds, against the number of rules
# (nodes). Past the threshold the error is rounding (below ``1e-27`` for the SLM at
# 58 and 60 rules); at the threshold itself, where ``K`` is square and at its worst
# conditioned, rounding reaches ``1e-18`` (SLM, 20 rules) and ``4e-20`` (ELM, 60 nodes).
fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
for name, mse in curves.items():
    ax.semilogy(sizes, np.maximum(mse.max(axis=1), 1e-32), marker="o", markersize=3, label=name)
ax.axvline(N / (n + 1), color="tab:blue", linestyle="--", linewidth=1, label="h = N / (n + 1) = 20")
ax.axvline(N, color="tab:orange", linestyle="--", linewidth=1, label="h = N = 60")
ax.set_xlabel("number of rules h (ELM: hidden nodes)")
ax.set_ylabel("training MSE (worst of 5 seeds)")
ax.set_title(f"N = {N} samples, n = {n} inputs")
ax.legend()
