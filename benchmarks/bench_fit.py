"""Fit and predict speed against the hardware floor, in one process on the same data.

Prints a markdown table. For every problem and BLAS thread count:

* floor: the Gaussian memberships (``firing_strengths``) plus one ``K^T K``
  (BLAS ``syrk`` on all the BLAS threads) — what any least-squares fit of the
  model must at least do;
* each solver's full ``RandomTSRegressor.fit`` as a multiple of the floor, and
  its training MSE. With several threads the fits run with ``n_jobs`` threads of
  randomts's own and BLAS limited to one thread each (``threadpool_limits(1)``,
  the setting the documentation recommends for ``n_jobs > 1``); the "default"
  column times ``lstsq`` as it runs untouched (``n_jobs=None``, BLAS on all threads);
* the paper's algorithm done naively (``K`` built with a Python loop over
  rules, then ``numpy.linalg.pinv(K) @ Y``) as a multiple of our default fit;
* ``predict`` throughput as a fraction of the memberships-only throughput;
* peak memory of each fit (tracemalloc: every NumPy/SciPy array) over the
  size of ``K``.

Times are the best of ``--repeats`` runs taken in turn (round-robin), four
times as many for problems of tens of milliseconds (``K`` of at most 5 * 10^6
entries). With one
BLAS thread the clock is the process's CPU time (``time.process_time``), which
waiting for a core shared with other jobs does not inflate; with all cores it
is wall-clock time. Usage::

    python benchmarks/bench_fit.py            # Van der Pol and five N = 10^5 problems
    python benchmarks/bench_fit.py --quick    # Van der Pol and N = 10^5, n = 2, h = 100
    python benchmarks/bench_fit.py --sizes vdp 2:100   # chosen problems ("vdp": Van der Pol)
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
import tracemalloc

import numpy as np
from threadpoolctl import ThreadpoolController, threadpool_info, threadpool_limits

from randomts import RandomTSRegressor
from randomts.core.membership import firing_strengths
from randomts.dynamics.systems import van_der_pol

SOLVERS = ("lstsq", "cholesky", "pinv")
# One controller for the whole run: threadpool_limits() inspects the loaded libraries again at
# every call (milliseconds, as long as a predict of 10^4 rows).
CONTROLLER = ThreadpoolController()
RIDGE = 1e-6  # alpha of the "cholesky" (ridge) fit


GRID = ["2:100", "2:500", "5:300", "10:100", "10:500"]  # N = 10^5 problems, n:h


def van_der_pol_problem():
    rng = np.random.default_rng(12345)
    states = van_der_pol(rng.uniform(-2.0, 2.0, size=(10, 2)), n_steps=1000, step=0.01)
    return "Van der Pol", states[:, :-1].reshape(-1, 2), states[:, 1:].reshape(-1, 2)


def smooth_problem(n_samples, n_features, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, size=(n_samples, n_features))
    Y = np.column_stack([np.sin(X.sum(axis=1)), np.prod(np.cos(X), axis=1)])
    return f"N=1e{round(np.log10(n_samples))}, n={n_features}", X, Y


def best_times(functions, repeats, clock):
    """Best time of each function, run in turn ``repeats`` times (round-robin, so that a busy
    spell of the machine hits every function alike rather than one of them)."""
    best = {name: float("inf") for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            gc.collect()
            start = clock()
            function()
            best[name] = min(best[name], clock() - start)
    return best


def peak_bytes(function):
    gc.collect()
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def naive_paper_fit(X, Y, a, b):
    """The paper's algorithm as written: K column block by block over rules, then pinv."""
    n_samples, n_features = X.shape
    Z = np.hstack([X, np.ones((n_samples, 1))])
    K = np.empty((n_samples, len(b) * (n_features + 1)))
    for i in range(len(b)):
        g = np.exp(-b[i] * np.sum((X - a[i]) ** 2, axis=1))
        K[:, i * (n_features + 1) : (i + 1) * (n_features + 1)] = g[:, None] * Z
    return np.linalg.pinv(K) @ Y


def ours(function, threads):
    """``function`` run as the fits are timed: BLAS on one thread when our threads are several."""
    if threads == 1:
        return function

    def limited():
        with CONTROLLER.limit(limits=1, user_api="blas"):
            return function()

    return limited


def measure(name, X, Y, n_rules, threads, repeats, skip_slow):
    model = {  # the paper's model (raw inputs, a fixed penalty): the fit this script times
        solver: RandomTSRegressor.paper(
            n_rules=n_rules,
            solver=solver,
            alpha=RIDGE if solver == "cholesky" else 0.0,
            random_state=0,
            n_jobs=threads,
        )
        for solver in SOLVERS
    }
    default = RandomTSRegressor.paper(n_rules=n_rules, random_state=0)
    rb = model["lstsq"].fit(X, Y).rule_base_
    centers, sigmas = rb.centers, rb.sigmas
    K = rb.design_matrix(X)
    row = {"problem": f"{name}, h={n_rules}", "threads": threads, "p": K.shape[1]}
    # One BLAS thread: CPU time of the process, which waiting for a shared core does not inflate.
    # All cores: wall-clock time.
    clock = time.process_time if threads == 1 else time.perf_counter
    functions = {
        "memberships": lambda: firing_strengths(X, centers, sigmas),
        "gram": lambda: K.T @ K,
        "predict": ours(lambda: model["lstsq"].predict(X), threads),
    }
    for solver in SOLVERS:
        if not (skip_slow and solver == "pinv"):
            functions[solver] = ours(lambda solver=solver: model[solver].fit(X, Y), threads)
    if threads > 1:
        functions["default"] = lambda: default.fit(X, Y)
    with threadpool_limits(threads):
        best = best_times(functions, repeats, clock)
        if not skip_slow:
            a, b, _, _ = rb.to_slm()
            best.update(
                best_times(
                    {"naive": lambda: naive_paper_fit(X, Y, a, b)}, max(1, repeats // 2), clock
                )
            )
    floor = best["memberships"] + best["gram"]
    row["floor"] = floor
    for solver in SOLVERS:
        if solver in best:
            mse = float(np.mean((model[solver].fit(X, Y).predict(X) - Y) ** 2))
            row[solver] = (best[solver] / floor, mse, best[solver])
    if "naive" in best:
        row["naive"] = best["naive"] / best["lstsq"]
    if "default" in best:
        row["default"] = best["default"] / floor
    row["predict"] = best["memberships"] / best["predict"]
    K = None  # free K before measuring the peak memory of the fits
    for solver in SOLVERS:
        if skip_slow and solver == "pinv":
            continue
        row[f"mem_{solver}"] = peak_bytes(lambda solver=solver: model[solver].fit(X, Y)) / (
            X.shape[0] * row["p"] * 8
        )
    return row


def table(rows):
    header = (
        "| problem | p | threads | floor (s) | lstsq / floor (MSE) | lstsq default / floor "
        "| cholesky / floor (MSE) | pinv / floor (MSE) | naive paper / lstsq "
        "| predict / memberships throughput | peak memory / K (lstsq, cholesky, pinv) |"
    )
    lines = [header, "|" + " --- |" * 11]
    for r in rows:
        cells = [r["problem"], str(r["p"]), str(r["threads"]), f"{r['floor']:.3g}"]
        for solver in SOLVERS:
            cells.append(f"{r[solver][0]:.2f}x ({r[solver][1]:.1e})" if solver in r else "not run")
            if solver == "lstsq":
                cells.append(f"{r['default']:.2f}x" if "default" in r else "-")
        cells.append(f"{r['naive']:.1f}x" if "naive" in r else "not run")
        cells.append(f"{r['predict']:.2f}")
        cells.append(", ".join(f"{r['mem_' + s]:.2f}" if "mem_" + s in r else "-" for s in SOLVERS))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="Van der Pol and one N = 10^5 problem")
    parser.add_argument("--repeats", type=int, default=None, help="runs per timing (best is kept)")
    parser.add_argument(
        "--slow-above",
        type=int,
        default=1200,
        help="skip pinv and the naive algorithm when K has more columns than this (default 1200)",
    )
    parser.add_argument(
        "--max-k-gb",
        type=float,
        default=2.5,
        help="skip problems whose K (which the floor needs) exceeds this many GB (default 2.5)",
    )
    parser.add_argument(
        "--sizes",
        nargs="+",
        default=None,
        metavar="n:h",
        help="problems to run: N = 10^5 ones as n_features:n_rules, 'vdp' for Van der Pol "
        "(default: Van der Pol and the N = 10^5 grid)",
    )
    args = parser.parse_args(argv)
    repeats = args.repeats or 5
    sizes = args.sizes or ["vdp"] + (["2:100"] if args.quick else GRID)
    problems = []
    for size in sizes:
        if size == "vdp":
            problems.append((van_der_pol_problem(), 100))
            continue
        try:
            n_features, n_rules = (int(v) for v in size.split(":"))
        except ValueError:
            parser.error(f"--sizes takes 'vdp' or n_features:n_rules such as 2:100; got {size!r}")
        problems.append((smooth_problem(100_000, n_features), n_rules))
    cores = max(
        info["num_threads"] for info in threadpool_info() if info["internal_api"] == "openblas"
    )
    rows = []
    for (name, X, Y), n_rules in problems:
        p = n_rules * (X.shape[1] + 1)
        if X.shape[0] * p * 8 > args.max_k_gb * 1e9:
            size = X.shape[0] * p * 8 / 1e9
            print(f"<!-- skipped {name}, h={n_rules}: K would take {size:.1f} GB -->")
            continue
        for threads in sorted({1, cores}):
            # Problems whose K holds at most 5 * 10^6 entries take tens of milliseconds: four
            # times the runs, so that one busy spell of a shared machine does not decide.
            runs = repeats * 4 if X.shape[0] * p <= 5_000_000 else repeats
            rows.append(measure(name, X, Y, n_rules, threads, runs, skip_slow=p > args.slow_above))
    print(
        f"<!-- {platform.processor() or platform.machine()}, {cores} BLAS threads max, "
        f"numpy {np.__version__}, best of {repeats} ({4 * repeats} for K of at most 5e6 "
        "entries; 1 thread: CPU time; all cores: wall time); "
        f"cholesky with alpha={RIDGE} -->"
    )
    print(table(rows))


if __name__ == "__main__":
    main()
