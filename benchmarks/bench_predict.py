"""Where ``predict``'s time goes on the Van der Pol problem, against the memberships alone.

``bench_fit.py`` reports ``predict`` throughput as a fraction of the
memberships-only throughput. This script splits that ratio, in one process on
the same data, with one BLAS thread (process CPU time, best of ``--repeats``
runs taken round-robin):

* ``memberships``: ``firing_strengths(X, ...)``, the baseline;
* ``strengths in blocks``: ``predict``'s own membership kernel, block by block
  in its cache-sized buffers, without the consequents;
* ``+ GEMM``: the same plus ``W @ theta`` for every block;
* ``predict``: ``RandomTSRegressor.predict``, which also combines ``W @ theta``
  with the inputs into outputs and checks its input.

With ``--threads 2`` it also times ``predict`` (wall clock) right after a
threaded ``K^T K`` and right after the memberships, to show what OpenBLAS
workers still spinning after a threaded call do to a short threaded
``predict`` (each round starts 0.3 s after the last threaded call). Run it
several times: the baseline moves between processes. Usage::

    python benchmarks/bench_predict.py
    python benchmarks/bench_predict.py --threads 2
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np
from bench_fit import van_der_pol_problem  # the same data as bench_fit.py's Van der Pol rows
from threadpoolctl import threadpool_limits

from randomts import RandomTSRegressor
from randomts.core.inference import inference_constants
from randomts.core.membership import BLOCK_ELEMENTS, _log_strengths_block, firing_strengths


def _blocks(X, rule_base, gemm, strengths, work, mixed):
    """``predict``'s blocks on one thread: strengths, then (if ``gemm``) ``W @ theta``."""
    _, theta, inv_sigmas, _ = inference_constants(
        rule_base.coef, rule_base.intercept, rule_base.sigmas
    )
    step = strengths.shape[0]
    with np.errstate(over="ignore"):
        for start in range(0, X.shape[0], step):
            Xc = X[start : start + step]
            W = strengths[: Xc.shape[0]]
            _log_strengths_block(Xc, rule_base.centers, inv_sigmas, W, work[: Xc.shape[0]])
            np.exp(W, out=W)
            if gemm:
                np.matmul(W, theta, out=mixed[start : start + Xc.shape[0]])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=60, help="runs per timing (default 60)")
    parser.add_argument("--threads", type=int, choices=(1, 2), default=1)
    args = parser.parse_args(argv)
    _, X, Y = van_der_pol_problem()
    model = RandomTSRegressor.paper(n_rules=100, random_state=0).fit(X, Y)
    rule_base = model.rule_base_
    step = BLOCK_ELEMENTS // rule_base.n_rules  # predict's block of rows
    strengths, work = np.empty((step, rule_base.n_rules)), np.empty((step, rule_base.n_rules))
    theta = inference_constants(rule_base.coef, rule_base.intercept, rule_base.sigmas)[1]
    mixed = np.empty((X.shape[0], theta.shape[1]))
    functions = {
        "memberships": lambda: firing_strengths(X, rule_base.centers, rule_base.sigmas),
        "strengths in blocks": lambda: _blocks(X, rule_base, False, strengths, work, mixed),
        "+ GEMM": lambda: _blocks(X, rule_base, True, strengths, work, mixed),
        "predict": lambda: model.predict(X),
    }
    best = dict.fromkeys(functions, float("inf"))
    with threadpool_limits(1):
        for _ in range(args.repeats):
            for name, function in functions.items():
                gc.collect()
                start = time.process_time()
                function()
                best[name] = min(best[name], time.process_time() - start)
    print("| one BLAS thread (CPU time) | ms | memberships / this |")
    print("| --- | --- | --- |")
    for name, seconds in best.items():
        print(f"| {name} | {seconds * 1e3:.2f} | {best['memberships'] / seconds:.2f} |")
    if args.threads == 2:
        K = rule_base.design_matrix(X)
        times = {"memberships": [], "predict after the memberships": [], "predict after K^T K": []}
        with threadpool_limits(2):
            for _ in range(args.repeats):
                time.sleep(0.3)  # OpenBLAS's threads from the last K^T K have stopped spinning
                for name in times:
                    if name == "predict after K^T K":
                        K.T @ K  # leaves OpenBLAS's second thread spinning for a while
                    function = functions["memberships" if name == "memberships" else "predict"]
                    start = time.perf_counter()
                    function()
                    times[name].append(time.perf_counter() - start)
        print("\n| two threads (wall time) | best ms | median ms | memberships / this (best) |")
        print("| --- | --- | --- | --- |")
        for name, seconds in times.items():
            ratio = min(times["memberships"]) / min(seconds)
            best_ms, median_ms = min(seconds) * 1e3, np.median(seconds) * 1e3
            print(f"| {name} | {best_ms:.2f} | {median_ms:.2f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
