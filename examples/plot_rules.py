"""
Fit, read and draw a rule base
==============================

Fit a Takagi-Sugeno model with random rules to a function of two inputs,
print its rules, and draw them: the Gaussian sets of each input, the rule
centres over the data, the output surface, and the predictions against the
targets.
"""

import matplotlib.pyplot as plt
import numpy as np

from randomts import RandomTSRegressor
from randomts.plotting import (
    plot_memberships,
    plot_predicted_vs_true,
    plot_rule_centers,
    plot_surface,
)

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(400, 2))
y = np.sin(X[:, 0]) * X[:, 1]
X_test = rng.uniform(-2, 2, size=(400, 2))
y_test = np.sin(X_test[:, 0]) * X_test[:, 1]

model = RandomTSRegressor(n_rules=8, structure="random", random_state=0).fit(X, y)
print(
    f"R^2 on training data {model.score(X, y):.6f}, on new data {model.score(X_test, y_test):.6f}"
)

# %%
# The rules, with four significant digits. ``G(c, s)`` is a Gaussian set with
# centre ``c`` and standard deviation ``s``; every consequent is written in full.
print(model.rule_base_.to_text(precision=4))

# %%
# The Gaussian sets of each input, one curve per rule. The centres are drawn
# from N(0, 2) and the widths from the paper's U(0, 1), independently of the
# data: some sets are narrow, some cover the whole range.
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
for k, ax in enumerate(axes):
    plot_memberships(model, feature=k, x_range=(-4, 4), ax=ax)

# %%
# The rule centres over the training data, each with the ellipse one standard
# deviation wide on each input. Rules whose centre lies outside the data still
# fire on it through their wide Gaussians.
ax = plot_rule_centers(model, X)
ax.set_aspect("equal")

# %%
# The fitted output over the two inputs (the data as white dots), and the
# predictions on new data against the true values.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
plot_surface(model, X, ax=axes[0])
plot_predicted_vs_true(y_test, model.predict(X_test), ax=axes[1])
axes[1].set_title("New data: predicted against true")
