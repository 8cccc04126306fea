"""Out-of-core fit: rows streamed from .npy files on disk, memory and time against N.

Writes ``X.npy`` (N x 2) and ``Y.npy`` (N x 2) a block at a time, then fits
the consequents of 100 random rules with
:func:`randomts.fitting.consequents.fit_consequents_streaming` over
:func:`randomts.io.chunks.npy_chunks`, each N in a fresh child process so that
its peak resident memory (``ru_maxrss``: interpreter, libraries and all) is its
own. Prints a markdown table. Usage::

    python benchmarks/bench_streaming.py                        # N = 1e6, 3e6, 1e7
    python benchmarks/bench_streaming.py --rows 100000 300000 --progress
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


def write_problem(folder, n_rows, block=1_000_000, seed=0):
    X_file = np.lib.format.open_memmap(os.path.join(folder, "X.npy"), mode="w+", shape=(n_rows, 2))
    Y_file = np.lib.format.open_memmap(os.path.join(folder, "Y.npy"), mode="w+", shape=(n_rows, 2))
    rng = np.random.default_rng(seed)
    for start in range(0, n_rows, block):
        stop = min(start + block, n_rows)
        X = rng.uniform(-2.0, 2.0, size=(stop - start, 2))
        X_file[start:stop] = X
        Y_file[start:stop] = np.column_stack([np.sin(X.sum(axis=1)), np.cos(X[:, 0]) * X[:, 1]])
    X_file.flush()
    Y_file.flush()
    del X_file, Y_file


def child(folder, n_rules, chunk_rows, progress):
    from randomts import RuleBase
    from randomts.fitting.consequents import fit_consequents_streaming
    from randomts.io.chunks import npy_chunks, with_progress

    antecedents = RuleBase.random(n_features=2, n_outputs=2, n_rules=n_rules, random_state=0)
    chunks = npy_chunks(os.path.join(folder, "X.npy"), os.path.join(folder, "Y.npy"), chunk_rows)
    start, cpu_start = time.perf_counter(), time.process_time()
    rb = fit_consequents_streaming(antecedents, with_progress(chunks, progress))
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    X = np.load(os.path.join(folder, "X.npy"), mmap_mode="r")[:100_000]
    Y = np.load(os.path.join(folder, "Y.npy"), mmap_mode="r")[:100_000]
    mse = float(np.mean((rb.predict(np.asarray(X)) - Y) ** 2))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(json.dumps({"seconds": seconds, "cpu": cpu_seconds, "peak_mb": peak_mb, "mse": mse}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=float, nargs="+", default=[1e6, 3e6, 1e7])
    parser.add_argument("--n-rules", type=int, default=100)
    parser.add_argument("--chunk-rows", type=int, default=200_000)
    parser.add_argument("--progress", action="store_true", help="progress bar on stderr")
    parser.add_argument(
        "--folder", default=None, help="where to write the .npy files (default: a temp dir)"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.folder, args.n_rules, args.chunk_rows, args.progress)
        return
    lines = [
        "| rows N | fit wall time (s) | fit CPU time (s) | CPU time per 10^6 rows (s) "
        "| peak RSS of the process (MB) | MSE on the first 10^5 rows |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        for n_rows in (int(n) for n in args.rows):
            write_problem(folder, n_rows)
            command = [
                sys.executable,
                __file__,
                "--child",
                "--folder",
                folder,
                "--n-rules",
                str(args.n_rules),
                "--chunk-rows",
                str(args.chunk_rows),
            ] + (["--progress"] if args.progress else [])
            done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            lines.append(
                f"| {n_rows:.0e} | {result['seconds']:.1f} | {result['cpu']:.1f} "
                f"| {result['cpu'] / n_rows * 1e6:.2f} | {result['peak_mb']:.0f} "
                f"| {result['mse']:.1e} |"
            )
    print(
        f"<!-- h={args.n_rules} rules, n=2 inputs, 2 outputs, solver lstsq, "
        f"chunks of {args.chunk_rows} rows -->"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
