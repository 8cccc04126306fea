"""
Far from the rules: weighted sum against weighted average
=========================================================

Inside the data both outputs fit. Outside it they part: every firing
strength of the weighted sum (the paper's SLM) decays to zero, so its output
returns to 0; the weighted average (classic Takagi-Sugeno) divides by the sum
of the strengths, so it follows the consequent of the nearest rule, a straight
line, for ever.
"""

import matplotlib.pyplot as plt
import numpy as np

from randomts import RandomTSRegressor

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(200, 1))
y = X[:, 0] ** 2

models = {
    normalize: RandomTSRegressor(
        n_rules=10, structure="random", normalize=normalize, random_state=2
    ).fit(X, y)
    for normalize in (False, True)
}
grid = np.linspace(-8, 8, 801)[:, None]
inside = np.abs(grid[:, 0]) <= 2
for normalize, model in models.items():
    error = np.max(np.abs(model.predict(grid[inside]) - grid[inside, 0] ** 2))
    print(
        f"normalize={normalize!s:5}: largest error on [-2, 2] {error:.1e}, "
        f"output at x = -8: {model.predict([[-8.0]])[0]:.3g}, "
        f"at x = 8: {model.predict([[8.0]])[0]:.3g}"
    )

# %%
fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
ax.axvspan(-2, 2, color="0.92", label="training data range")
ax.plot(grid, grid[:, 0] ** 2, color="black", linewidth=1, linestyle=":", label="$x^2$")
ax.plot(grid, models[False].predict(grid), label="weighted sum (normalize=False, the SLM)")
ax.plot(grid, models[True].predict(grid), label="weighted average (normalize=True)")
ax.set_ylim(-5, 30)
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.legend(loc="upper center")
ax.set_title("Extrapolation of the two ways of combining the same kind of rules")
