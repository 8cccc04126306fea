"""The demo's two figures (needs matplotlib, the ``plot`` extra; imported only when asked for).

- ``figure1.png``: the paper's Figure 1, the last run's learning phase: the
  training trajectories, the SLM's one-step outputs on them, and the rule
  centres ``a_i`` as black dots.
- ``simulation.png``: the free run of the simulation phase against the true
  trajectories, and the error of every (model, solver) along the run.

Only :class:`matplotlib.figure.Figure` is used (no ``pyplot``), so writing the
figures changes no global matplotlib state.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

__all__ = ["require_matplotlib", "write_figures"]

_STYLES = {
    ("SLM", "lstsq"): dict(color="#1b6ca8", linestyle="-"),
    ("SLM", "pinv"): dict(color="#1b6ca8", linestyle="--"),
    ("ELM", "lstsq"): dict(color="#c0392b", linestyle="-"),
    ("ELM", "pinv"): dict(color="#c0392b", linestyle="--"),
}


def require_matplotlib():
    """Raise a clear error if matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ValueError(
            "Writing the demo's figures needs matplotlib, which is not installed: "
            "pip install 'randomts[plot]'."
        ) from None


def _trajectory_colors(n):
    from matplotlib import colormaps

    return colormaps["viridis"](np.linspace(0.0, 0.9, n))


def _fit_limits(axes, states, padding=0.08):
    """Axis limits that hold every state, with some room around."""
    low, high = states.reshape(-1, 2).min(axis=0), states.reshape(-1, 2).max(axis=0)
    margin = padding * (high - low)
    axes.set_xlim(low[0] - margin[0], high[0] + margin[0])
    axes.set_ylim(low[1] - margin[1], high[1] + margin[1])


def _figure_one(table):
    from matplotlib.figure import Figure

    settings = table.settings
    solver = "lstsq" if "lstsq" in settings.solvers else settings.solvers[0]
    rule_base = table.last["rule_bases"]["SLM", solver]
    train = table.last["phases"]["train"]
    narx = settings.narx
    one_step = narx.predict_one_step(rule_base, y=train)
    figure = Figure(figsize=(7.0, 7.6), layout="constrained")
    axes = figure.add_subplot()
    for color, states, predicted in zip(
        _trajectory_colors(len(train)), train, one_step, strict=True
    ):
        axes.plot(states[:, 0], states[:, 1], color=color, linewidth=2.4, alpha=0.55)
        axes.plot(
            predicted[:, 0], predicted[:, 1], color="white", linewidth=0.7, linestyle=(0, (3, 2))
        )
        axes.plot(states[0, 0], states[0, 1], "o", color=color, markersize=5)
    centers = rule_base.centers
    axes.plot(
        centers[:, 0],
        centers[:, 1],
        "o",
        color="black",
        markersize=4,
        label=f"rule centres $a_i$ ({rule_base.n_rules}, drawn from N(0, 2I))",
    )
    axes.plot(
        [],
        [],
        color="gray",
        linewidth=2.4,
        alpha=0.55,
        label=f"training trajectories ({len(train)} x {settings.n_steps} steps)",
    )
    axes.plot(
        [],
        [],
        color="gray",
        linewidth=0.9,
        linestyle=(0, (3, 2)),
        label="SLM one-step outputs (white dashes)",
    )
    mse = float(np.mean((one_step - train[:, 1:]) ** 2))
    axes.set_title(
        f"Van der Pol oscillator modelled by an SLM with {rule_base.n_rules} random rules\n"
        f"learning phase of the last run ({solver}, training MSE {mse:.2g})",
        fontsize=11,
    )
    axes.set_xlabel("$x_1$")
    axes.set_ylabel("$x_2$")
    axes.set_aspect("equal")
    axes.grid(True, color="0.9")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=2, fontsize=8, frameon=False)
    return figure


def _figure_simulation(table):
    from matplotlib.figure import Figure

    settings = table.settings
    truth = table.last["phases"]["simulation"]
    simulated = table.last["simulated"]
    time = np.arange(truth.shape[1]) * settings.step
    figure = Figure(figsize=(12.0, 5.2), layout="constrained")
    phase_axes, error_axes = figure.subplots(1, 2, width_ratios=(1.0, 1.25))

    solver = "lstsq" if "lstsq" in settings.solvers else settings.solvers[0]
    for color, states in zip(_trajectory_colors(len(truth)), truth, strict=True):
        phase_axes.plot(states[:, 0], states[:, 1], color=color, linewidth=2.6, alpha=0.45)
        phase_axes.plot(states[0, 0], states[0, 1], "o", color=color, markersize=5)
    for r in range(len(truth)):
        free = simulated["SLM", solver][r]
        phase_axes.plot(free[:, 0], free[:, 1], color="black", linewidth=0.7, linestyle=(0, (3, 2)))
    phase_axes.plot([], [], color="gray", linewidth=2.6, alpha=0.45, label="true trajectories")
    phase_axes.plot(
        [],
        [],
        color="black",
        linewidth=0.7,
        linestyle=(0, (3, 2)),
        label=f"SLM ({solver}) free run from the initial state",
    )
    phase_axes.set_title("Simulation phase: free run against the truth", fontsize=11)
    phase_axes.set_xlabel("$x_1$")
    phase_axes.set_ylabel("$x_2$")
    _fit_limits(phase_axes, truth)
    phase_axes.set_aspect("equal")
    phase_axes.grid(True, color="0.9")
    phase_axes.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=8, frameon=False
    )

    floor = np.finfo(float).tiny
    for key in sorted(simulated, key=lambda k: (k[0] != "SLM", k[1])):
        error = np.sqrt(np.mean((simulated[key] - truth) ** 2, axis=(0, 2)))
        mse = float(np.mean((simulated[key][:, 1:] - truth[:, 1:]) ** 2))
        error_axes.semilogy(
            time[1:],
            np.maximum(error[1:], floor),
            linewidth=1.6,
            label=f"{key[0]} {key[1]} (MSE {mse:.2g})",
            **_STYLES.get(key, {}),
        )
    error_axes.set_title("RMS error of the free run over the 10 trajectories", fontsize=11)
    error_axes.set_xlabel(f"time t ({settings.n_steps} Euler steps of dt = {settings.step:g})")
    error_axes.set_ylabel("RMS error of $(x_1, x_2)$")
    error_axes.grid(True, which="major", color="0.9")
    error_axes.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize=8, frameon=False
    )  # below the axes: inside, it would hide a curve
    return figure


def write_figures(table, directory):
    """Write ``figure1.png`` and ``simulation.png`` for a :class:`randomts.paper.experiment.Table1`.

    Parameters
    ----------
    table : Table1
        What :func:`randomts.paper.experiment.run_table1` returned (its last run is drawn).
    directory : str or path
        Created if needed.

    Returns
    -------
    list of Path
        The files written.
    """
    require_matplotlib()
    directory = Path(os.fspath(directory))
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in (("figure1.png", _figure_one), ("simulation.png", _figure_simulation)):
        path = directory / name
        make(table).savefig(path, dpi=120)
        paths.append(path)
    return paths
