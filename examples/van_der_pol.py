"""Identify the Van der Pol oscillator with random rules: the paper's experiment, step by step.

Run: ``python examples/van_der_pol.py [REPEATS] [FIGURES_DIR]`` (defaults 3 and no figures;
about 10 s per repeat on a busy 2-core machine). It first walks through one run with the public
API (data, fit, one-step prediction, free run, local linear model), then prints the paper's
Table 1 reproduced over REPEATS repeats, with the same code as ``randomts demo``.
"""

import sys

import numpy as np

from randomts import RandomTSRegressor
from randomts.dynamics.narx import NARX
from randomts.paper.demo import format_table1, progress_printer
from randomts.paper.experiment import Table1Settings, run_table1, van_der_pol_phases


def identify_once(seed=0):
    """One pass of the experiment with the public API; returns a short report."""
    settings = Table1Settings()  # standard form, dt = 0.01, 10 x 1000 steps per phase
    phases = van_der_pol_phases(settings, np.random.default_rng(seed))
    # x(k) = x(k-1) + f(x(k-1)): the model is fitted to the increment, as the demo's
    narx = NARX(y_lags=1, output_names=("x1", "x2"), target="increment")
    X, Y = narx.regressors(y=phases["train"])
    model = RandomTSRegressor.paper(n_rules=100, random_state=seed).fit(X, Y)

    one_step = narx.predict_one_step(model, y=phases["generalisation"])
    free_run = narx.simulate(model, y_init=phases["simulation"][:, :1], n_steps=settings.n_steps)
    A, _, offset = narx.linearize(model, [0.0, 0.0])
    text = narx.name_rules(model).to_text(precision=4).splitlines()
    rules = [line for line in text if not line.startswith("#")][:3]  # the first rule
    return "\n".join(
        [
            f"training MSE      {np.mean((model.predict(X) - Y) ** 2):.3g} (of the increments)",
            f"one-step MSE      {np.mean((one_step - phases['generalisation'][:, 1:]) ** 2):.3g}"
            " (new trajectories)",
            f"free-run MSE      {np.mean((free_run - phases['simulation']) ** 2):.3g}"
            " (from the initial states only)",
            f"A at the origin   {np.array2string(A, precision=6)}  (Euler map: [[1, 0.01], [-0.01, 1.01]])",
            f"O at the origin   {np.array2string(offset, precision=2)}",
            *rules,
        ]
    )


def main(repeats=3, figures_dir=None):
    print(identify_once())
    print()
    table = run_table1(Table1Settings(repeats=repeats), progress=progress_printer(sys.stderr))
    print(format_table1(table))
    if figures_dir is not None:
        from randomts.paper.figures import write_figures

        for path in write_figures(table, figures_dir):
            print("wrote", path)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3, sys.argv[2] if len(sys.argv) > 2 else None)
