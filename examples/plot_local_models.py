"""
Local linear models: when a rule reads as a linearisation
=========================================================

A Takagi-Sugeno rule says *near my centre, the output is this linear
function*. Whether a fitted consequent really is the function's tangent near
the rule's centre depends on how much the rules overlap and on the ridge
penalty. Fit ``y = tanh(2x) + 0.3x`` on ``[-3, 3]`` with weighted-average
models (``normalize=True``) three ways and draw each rule's consequent over its
centre plus or minus one standard deviation:

1. seven rules placed by hand on a grid: the consequents are close to the
   tangents;
2. seven random rules, exact least squares (``alpha=0``): the fit is as good
   but overlapping rules trade large opposite consequents;
3. the same random rules with a small ridge penalty (``alpha=1e-3``): the
   consequents come closer to the function, at a small cost in fit.
"""

import matplotlib.pyplot as plt
import numpy as np

from randomts import RuleBase
from randomts.plotting import plot_local_models

rng = np.random.default_rng(1)
X = np.sort(rng.uniform(-3, 3, size=(300, 1)), axis=0)
y = np.tanh(2 * X[:, 0]) + 0.3 * X[:, 0]

grid = RuleBase(
    centers=np.linspace(-3, 3, 7)[:, None], sigmas=np.full((7, 1), 0.45), normalize=True
)
random = RuleBase.random(
    n_features=1,
    n_rules=7,
    centers="uniform",
    center_bounds=(-3.0, 3.0),
    width_range=(1.0, 3.0),
    normalize=True,
    random_state=5,
)
fits = {
    "grid, alpha=0": grid.fit_consequents(X, y),
    "random, alpha=0": random.fit_consequents(X, y),
    "random, alpha=1e-3": random.fit_consequents(X, y, alpha=1e-3),
}
for name, rule_base in fits.items():
    rmse = np.sqrt(np.mean((rule_base.predict(X)[:, 0] - y) ** 2))
    c = rule_base.centers
    at_centre = rule_base.rule_outputs(c)[np.arange(len(c)), np.arange(len(c)), 0]
    gap = np.max(np.abs(at_centre - (np.tanh(2 * c[:, 0]) + 0.3 * c[:, 0])))
    print(f"{name:19s} training RMSE {rmse:.1e}; largest |consequent - y| at a centre {gap:.2g}")

# %%
fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), layout="constrained", sharey=True)
for ax, (name, rule_base) in zip(axes, fits.items(), strict=True):
    plot_local_models(rule_base, X=X, y=y, ax=ax)
    ax.set_title(name)
    ax.get_legend().remove()
axes[0].set_ylim(-2.5, 2.5)
axes[0].legend(loc="upper left", fontsize="small", ncols=2)

# %%
# The rules of the grid model. Compare each consequent's slope with the slope
# of ``tanh(2x) + 0.3x`` at the rule's centre: 2.3 at 0, 0.44 at 1 and -1, 0.30
# at 2, 3, -2 and -3. The fitted slopes come close but not all the way: each rule
# also covers part of its neighbours' ground.
print(fits["grid, alpha=0"].to_text(precision=3))
