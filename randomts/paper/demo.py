"""The ``randomts demo`` report: the paper's Table 1 beside ours, and what it shows.

:func:`run_demo` runs the experiment (:mod:`randomts.paper.experiment`) and
returns the report as text (nothing here prints); :func:`format_table1`
writes the table beside the paper's, :func:`table1_json` the figures as JSON.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict

import numpy as np
from tabulate import tabulate

from randomts.io.text_format import format_rules
from randomts.paper.experiment import (
    PAPER_TABLE1,
    ROW_KEYS,
    Table1Settings,
    explain_settings,
    run_table1,
)

__all__ = ["format_table1", "table1_json", "progress_printer", "run_demo"]


def _seconds(value):
    return f"{value:.4g}"


def _mse_text(value):
    return f"{value:.3g}" if np.isfinite(value) else "diverged"


def format_table1(table, *, tablefmt="simple"):
    """The table in the paper's layout, the paper's figures beside ours.

    Examples
    --------
    >>> table = run_table1(Table1Settings(repeats=1, n_rules=5, n_steps=20, n_trajectories=2))
    >>> print(format_table1(table).splitlines()[0])  # doctest: +NORMALIZE_WHITESPACE
                                      SLM paper    SLM pinv    SLM lstsq    ELM paper    ELM pinv    ELM lstsq
    """
    settings = table.settings
    columns = [("SLM", None)] + [("SLM", s) for s in settings.solvers]
    columns += [("ELM", None)] + [("ELM", s) for s in settings.solvers]

    def value(model, solver, key):
        if solver is None:
            paper = PAPER_TABLE1[model]
            if key == "build_seconds":
                return paper["fit_seconds"] - paper["solve_seconds"]
            return paper[key]
        row = table.row(model, solver)
        if key == "build_seconds":
            return row["fit_seconds"] - row["solve_seconds"]
        return row[key]

    lines = [
        ("Rules (SLM) / hidden nodes (ELM)", "n_rules", str),
        ("Total computation time (s)", "fit_seconds", _seconds),
        ("Time outside the final solve: draw, build K (s)", "build_seconds", _seconds),
        ("Time in the final solve (s)", "solve_seconds", _seconds),
        ("MSE during training", "mse_train", _mse_text),
        ("MSE during generalisation", "mse_generalisation", _mse_text),
        ("MSE during simulation", "mse_simulation", _mse_text),
    ]
    body = [
        [label] + [text(value(model, solver, key)) for model, solver in columns]
        for label, key, text in lines
    ]
    headers = [""] + [f"{model} {solver or 'paper'}" for model, solver in columns]
    return tabulate(
        body,
        headers=headers,
        tablefmt=tablefmt,
        disable_numparse=True,
        colalign=("left",) + ("right",) * len(columns),
    )


def table1_json(table) -> str:
    """The measured figures as JSON: ``{"rows": [...], "settings": {...}}``.

    Each row holds exactly :data:`randomts.paper.experiment.ROW_KEYS`; floats are written in full
    (``repr``), so nothing is lost; a diverged simulation's MSE is ``null``.

    Examples
    --------
    >>> table = run_table1(Table1Settings(repeats=1, n_rules=5, n_steps=20, n_trajectories=2))
    >>> sorted(json.loads(table1_json(table)))
    ['rows', 'settings']
    """
    settings = asdict(table.settings)
    settings["width_range"] = list(settings["width_range"])
    settings["solvers"] = list(settings["solvers"])
    settings["elm_nodes"] = table.settings.elm_nodes
    box = table.settings.initial_box
    settings["target_names"] = list(table.settings.narx.target_names)
    settings["initial_states"] = (
        f"training: {table.settings.train_design} on [-{box!r}, {box!r}]^2; "
        f"generalisation and simulation: uniform on [-{box!r}, {box!r}]^2"
    )
    rows = [
        {
            key: (row[key] if not isinstance(row[key], float) or np.isfinite(row[key]) else None)
            for key in ROW_KEYS
        }
        for row in table.rows
    ]
    return json.dumps({"rows": rows, "settings": settings}, indent=2, allow_nan=False)


def _times(ours, paper):
    """``12.3 times below`` or ``4.56 times above``: how ``ours`` stands against ``paper``."""
    if ours <= paper:
        return f"{paper / ours:.3g} times below" if ours > 0 else "below"
    return f"{ours / paper:.3g} times above"


def _headline(table):
    """The result that matters, first: each model's free-run simulation error beside the paper's."""
    settings = table.settings
    solver = "lstsq" if "lstsq" in settings.solvers else settings.solvers[0]
    solver_name = "the exact solver (lstsq)" if solver == "lstsq" else f"the solver {solver}"
    slm, elm = table.row("SLM", solver), table.row("ELM", solver)
    paper_slm, paper_elm = (PAPER_TABLE1[m]["mse_simulation"] for m in ("SLM", "ELM"))

    def against(row, paper):
        ours = row["mse_simulation"]
        if not np.isfinite(ours):
            return f"diverged (the paper's: {paper:.3g})"
        return f"{_mse_text(ours)}, {_times(ours, paper)} the paper's {paper:.3g}"

    return "\n".join(
        [
            "The paper's Table 1 (section 6), reproduced: SLM against ELM on the Van der Pol "
            f"oscillator, {settings.repeats} repeat(s), seed {settings.seed}",
            f"  free-run simulation MSE with {solver_name}: SLM ({settings.n_rules} rules) "
            f"{against(slm, paper_slm)}; ELM ({settings.elm_nodes} nodes) "
            f"{against(elm, paper_elm)}",
        ]
    )


def _comparison(table):
    """How the measured rows compare with the paper's, as text lines."""
    lines = ["Against the paper (from these rows):"]
    if "lstsq" in table.settings.solvers:
        slm = table.row("SLM", "lstsq")
        for key in ("mse_generalisation", "mse_simulation"):
            paper = PAPER_TABLE1["SLM"][key]
            lines.append(
                f"  SLM lstsq {key[4:]} MSE {_mse_text(slm[key])}: "
                f"{_times(slm[key], paper)} the paper's {paper:.3g}"
            )
        spread = table.per_repeat["SLM", "lstsq"]["mse_simulation"]
        lines.append(
            f"    its simulation MSE over the {spread.size} repeat(s): min {_mse_text(spread.min())}, "
            f"median {_mse_text(np.median(spread))}, max {_mse_text(spread.max())}; the mean is set by"
        )
        lines.append(
            "    the worst repeats, whose free runs start where no training trajectory passed"
        )
    for solver in table.settings.solvers:
        slm, elm = table.row("SLM", solver), table.row("ELM", solver)
        slm_build = slm["fit_seconds"] - slm["solve_seconds"]
        elm_build = elm["fit_seconds"] - elm["solve_seconds"]
        lines.append(
            f"  time outside the final solve, {solver}: SLM {slm_build:.4g} s, "
            f"ELM {elm_build:.4g} s (ELM / SLM {elm_build / slm_build:.2f})"
        )
    if "pinv" in table.settings.solvers:
        for model in ("SLM", "ELM"):
            row, paper = table.row(model, "pinv"), PAPER_TABLE1[model]
            ratios = ", ".join(f"{key[4:]} {row[key] / paper[key]:.2g}" for key in ROW_KEYS[5:])
            lines.append(f"  {model} pinv MSE, ours / paper's: {ratios}")
    return "\n".join(lines)


def _linearisation(table):
    """The section 5.4 reading: the last SLM linearised at the origin, against the Euler map."""
    solver = "lstsq" if "lstsq" in table.settings.solvers else table.settings.solvers[0]
    rule_base = table.last["rule_bases"]["SLM", solver]
    A, _, offset = table.settings.narx.linearize(rule_base, np.zeros(2))
    dt, lam = table.settings.step, table.settings.lam
    sign = 1.0 if table.settings.form == "standard" else -1.0
    exact = np.array([[1.0, dt], [-dt, 1.0 + sign * lam * dt]])

    def matrix(M):
        return "[" + "; ".join(" ".join(f"{v:+.10f}" for v in row) for row in M) + "]"

    eigenvalues = np.linalg.eigvals(A)
    return "\n".join(
        [
            f"Local linear model at the origin (section 5.4) of the last SLM ({solver}), "
            "x(k) ~ A x(k-1) + O:",
            f"  A = {matrix(A)}, O = [{offset[0]:+.1e} {offset[1]:+.1e}]",
            f"  the Euler map's Jacobian [[1, dt], [-dt, 1 + lambda dt]] = {matrix(exact)}",
            f"  |A - Jacobian| <= {np.max(np.abs(A - exact)):.1e}; eigenvalues of A "
            f"{eigenvalues[0]:.6f}, {eigenvalues[1]:.6f} (|.| = {np.abs(eigenvalues[0]):.6f}: "
            "the origin repels, as the oscillator's does)",
        ]
    )


_TRAIN_DESIGN_TEXT = {
    "latin-hypercube+rest": "training: one start near rest, the others a Latin hypercube; "
    "other phases uniform at random",
    "latin-hypercube": "a Latin hypercube for training, uniform at random for the other phases",
    "uniform": "uniform at random",
}


def _header(settings):
    form = (
        "lambda (1 - x1^2) x2 - x1 (standard form)"
        if settings.form == "standard"
        else "lambda (x1^2 - 1) x2 - x1 (the paper's printed sign)"
    )
    box = settings.initial_box
    return "\n".join(
        [
            "The paper's experiment (section 6, Table 1): SLM against ELM on the Van der Pol oscillator",
            f"  system  dx1/dt = x2, dx2/dt = {form}, lambda = {settings.lam:g},",
            f"          forward Euler, dt = {settings.step:g}",
            f"  data    learning, generalisation and simulation phases, each {settings.n_trajectories} "
            f"trajectories x {settings.n_steps} steps;",
            f"          initial states in [-{box:g}, {box:g}]^2, new for every phase and repeat:",
            "          " + _TRAIN_DESIGN_TEXT[settings.train_design],
            "  target  "
            + (
                "x(k) - x(k-1) (the increment), x(k) = x(k-1) + f(x(k-1))"
                if settings.target == "increment"
                else "x(k) (as in the paper)"
            ),
            f"  models  SLM with {settings.n_rules} rules, ELM (order 0) with {settings.elm_nodes} RBF "
            "nodes: the same number of free parameters;",
            f"          a_i ~ N(0, {settings.center_variance:g} I), "
            f"b_i ~ U({settings.width_range[0]:g}, {settings.width_range[1]:g}), "
            "drawn anew every repeat",
            "  solvers 'pinv' (the paper's pinv(K) * Y) and 'lstsq' (exact least squares, QR-based)",
            f"  runs    {settings.repeats} repeat(s), seed {settings.seed}; means over the repeats; "
            f"timings after one untimed warm-up fit;",
            f"          Python {platform.python_version()}, numpy {np.__version__}, "
            f"{os.cpu_count()} CPU(s); the paper: 100 runs, MATLAB, 2.80 GHz",
        ]
    )


def progress_printer(stream, *, label="randomts demo"):
    """A ``progress(done, total)`` callback that reports on ``stream`` (e.g. ``sys.stderr``).

    On a terminal it rewrites one line; otherwise it writes a line at
    roughly every tenth of the run and at the end.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> report = progress_printer(out)
    >>> report(1, 2); report(2, 2)
    >>> out.getvalue().splitlines()[-1].startswith("randomts demo: repeat 2/2")
    True
    """
    start = time.perf_counter()
    interactive = getattr(stream, "isatty", lambda: False)()

    def report(done, total):
        elapsed = time.perf_counter() - start
        remaining = elapsed / done * (total - done)
        text = (
            f"{label}: repeat {done}/{total}, {elapsed:.0f} s elapsed, about {remaining:.0f} s left"
        )
        if interactive:
            stream.write("\r" + text + ("\n" if done == total else ""))
        elif done == total or done % max(1, total // 10) == 0:
            stream.write(text + "\n")
        stream.flush()

    return report


def run_demo(
    *,
    repeats=10,
    seed=0,
    n_rules=100,
    initial_box=2.0,
    train_design="latin-hypercube+rest",
    target="increment",
    json_path=None,
    figures_dir=None,
    show_rules=2,
    progress=None,
    verbose=False,
):
    """The main job: reproduce the paper's Table 1 and describe it.

    The report starts with its headline, each model's free-run simulation
    error beside the paper's, then the table beside the paper's; with
    ``verbose``, also the settings, the choices the paper leaves open, the
    comparison row by row, the local linear model at the origin and the
    first rules of the last SLM.

    Parameters
    ----------
    repeats : int, default=10
        Number of repeats (the paper: 100).
    seed : int, default=0
        Seed of everything random.
    n_rules : int, default=100
        Rules of the SLM; the ELM gets three times as many nodes.
    initial_box : float, default=2.0
        Initial states lie in ``[-initial_box, initial_box]^2``.
    train_design : {"latin-hypercube+rest", "latin-hypercube", "uniform"}, \
            default="latin-hypercube+rest"
        How the training starts are placed (see :func:`randomts.paper.experiment.initial_states`).
    target : {"increment", "output"}, default="increment"
        What the models are fitted to: ``x(k) - x(k-1)``, or ``x(k)`` as in
        the paper (see :class:`randomts.dynamics.narx.NARX`).
    json_path : str or path, optional
        Also write the figures there as JSON (:func:`table1_json`).
    figures_dir : str or path, optional
        Also write the paper's Figure 1 and the simulation figure there as
        PNG files (needs matplotlib, the ``plot`` extra).
    show_rules : int, default=2
        Number of rules of the last SLM to show.
    progress : callable, optional
        ``progress(done, total)``, see :func:`progress_printer`.
    verbose : bool, default=False
        Also the details after the table (see above).

    Returns
    -------
    str
        The report.

    Examples
    --------
    >>> report = run_demo(repeats=1, n_rules=5, show_rules=1)
    >>> print(report.splitlines()[0])
    The paper's Table 1 (section 6), reproduced: SLM against ELM on the Van der Pol oscillator, 1 repeat(s), seed 0
    >>> "MSE during simulation" in report, "Local linear model" in report
    (True, False)
    """
    settings = Table1Settings(
        repeats=repeats,
        seed=seed,
        n_rules=n_rules,
        initial_box=initial_box,
        train_design=train_design,
        target=target,
    )
    if json_path is not None:
        parent = os.path.dirname(os.path.abspath(os.fspath(json_path)))
        if not os.path.isdir(parent):
            raise ValueError(
                f"The 'json_path' parameter names a file in a directory that does not exist: "
                f"{os.fspath(json_path)!r}."
            )
    if figures_dir is not None:
        from randomts.paper.figures import require_matplotlib

        require_matplotlib()
    table = run_table1(settings, progress=progress)
    rule_base = table.last["rule_bases"]["SLM", settings.solvers[-1]]
    parts = [_headline(table), format_table1(table)]
    if verbose:
        parts += [
            _header(settings),
            explain_settings(settings),
            _comparison(table),
            _linearisation(table),
            f"The first {show_rules} of the last SLM's rules ({settings.solvers[-1]}):\n"
            + format_rules(rule_base, precision=4, max_rules=show_rules),
        ]
    else:
        parts.append(
            "Means over the repeats; the times change with the machine's load. --verbose adds "
            "the settings, the choices the paper leaves open, the comparison row by row, the "
            "local linear model at the origin and the first rules."
        )
    if json_path is not None:
        with open(json_path, "w", encoding="utf-8") as handle:
            handle.write(table1_json(table) + "\n")
        parts.append(f"Table written to {os.fspath(json_path)} (JSON).")
    if figures_dir is not None:
        from randomts.paper.figures import write_figures

        paths = write_figures(table, figures_dir)
        parts.append("Plots written: " + ", ".join(os.fspath(p) for p in paths))
    return "\n\n".join(parts)
