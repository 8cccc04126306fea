"""
Rule centres over the Van der Pol trajectories (the paper's Figure 1)
=====================================================================

The paper's experiment: predict the next state of a Van der Pol oscillator
(``lambda = 1``, forward Euler) from the current one with a Shuffled Linear
Model of 100 random rules. Its Figure 1 shows the rule centres, drawn from
N(0, 2) independently of the data, over the trajectories. This example uses
the standard (attracting) form of the oscillator, ``x2' = (1 - x1^2) x2 - x1``,
step 0.01, ten trajectories of 1000 steps from initial states uniform in
``[-2, 2]^2``.
"""

import matplotlib.pyplot as plt
import numpy as np

from randomts import RandomTSRegressor
from randomts.dynamics.systems import van_der_pol
from randomts.plotting import plot_rule_centers

rng = np.random.default_rng(0)
trajectories = van_der_pol(rng.uniform(-2, 2, size=(10, 2)), n_steps=1000, step=0.01)
X = trajectories[:, :-1].reshape(-1, 2)
Y = trajectories[:, 1:].reshape(-1, 2)
model = RandomTSRegressor.paper(n_rules=100, random_state=0).fit(X, Y)
mse = np.mean((model.predict(X) - Y) ** 2)
print(f"{X.shape[0]} one-step pairs, 100 rules, training MSE {mse:.2e}")

# %%
# The centres (black dots) over the trajectories (grey), with the ellipses one
# standard deviation wide. Many centres lie far outside the data and fire on it
# only weakly; the least-squares fit uses all of them.
fig, ax = plt.subplots(figsize=(7, 6.5), layout="constrained")
plot_rule_centers(model, trajectories, n_sigmas=None, ax=ax)
ax.set_aspect("equal")
ax.set_xlabel("x1(k)")
ax.set_ylabel("x2(k)")

# %%
# One-step predictions on ten new trajectories. The errors are far below what
# a predicted-against-true scatter could show, so they are drawn along time,
# for the new trajectory on which they are largest.
new = van_der_pol(rng.uniform(-2, 2, size=(10, 2)), n_steps=1000, step=0.01)
X_new, Y_new = new[:, :-1].reshape(-1, 2), new[:, 1:].reshape(-1, 2)
errors = np.abs(model.predict(X_new) - Y_new).reshape(10, 1000, 2)
worst = int(np.argmax(np.mean(errors**2, axis=(1, 2))))
print(
    f"one-step MSE on the new trajectories {np.mean(errors**2):.2e}, "
    f"on the worst one (number {worst}) {np.mean(errors[worst] ** 2):.2e}"
)
fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
for m, name in enumerate(["x1(k+1)", "x2(k+1)"]):
    ax.semilogy(np.arange(1, 1001), errors[worst, :, m], linewidth=0.8, label=name)
ax.set_xlabel(f"step k (new trajectory {worst})")
ax.set_ylabel("|predicted - true|")
ax.set_title("One-step prediction error")
ax.legend()
