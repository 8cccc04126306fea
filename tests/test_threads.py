"""Threads: results that do not depend on them, nested and concurrent use, no global trace."""

import ctypes
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from threadpoolctl import threadpool_info, threadpool_limits

from randomts import RandomTSRegressor
from randomts._threads import effective_n_jobs, one_blas_thread, parallel_map, scratch
from randomts.core.accumulators import LeastSquaresAccumulator

HANG = 120  # seconds after which a join means a hang, far above the work's few seconds


def data(seed=0, n_samples=12_000, n_features=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    return X, np.sin(X.sum(axis=1)) + 0.1 * rng.normal(size=n_samples)


def blas_threads():
    return sorted(lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas")


def run_in_threads(function, arguments, n_threads=8):
    with ThreadPoolExecutor(n_threads) as pool:
        futures = [pool.submit(function, *a) for a in arguments]
        return [future.result(timeout=HANG) for future in futures]


# ---------------------------------------------------------------- the thread helpers
def test_effective_n_jobs_follows_n_jobs_and_joblib():
    assert effective_n_jobs(None) == 1 and effective_n_jobs(4) == 4
    assert effective_n_jobs(-1) == joblib.cpu_count()
    with joblib.parallel_config(n_jobs=3):
        assert effective_n_jobs(None) == 3
    with pytest.raises(ValueError, match="'n_jobs' parameter of RandomTSRegressor"):
        effective_n_jobs(0, owner="RandomTSRegressor")
    with pytest.raises(TypeError, match="'n_jobs' parameter"):
        effective_n_jobs(1.5)


def test_parallel_map_keeps_order_reraises_and_leaves_no_thread_behind():
    before = threading.active_count()
    assert parallel_map(lambda i: i * i, 100, 4) == [i * i for i in range(100)]
    started = []

    def work(i):
        started.append(i)
        if i == 3:
            raise ZeroDivisionError("item 3")
        return i

    with pytest.raises(ZeroDivisionError, match="item 3"):
        parallel_map(work, 1000, 2)
    assert len(started) < 1000  # items after the error are skipped
    assert threading.active_count() == before


def test_parallel_map_nested_in_itself_does_not_wait_on_its_own_work():
    def inner(i):
        return sum(parallel_map(lambda j: i * j, 10, 2))

    result = [None]
    thread = threading.Thread(target=lambda: result.__setitem__(0, parallel_map(inner, 20, 2)))
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive()
    assert result[0] == [45 * i for i in range(20)]


def test_scratch_is_reused_by_a_thread_and_never_shared_between_threads():
    here = scratch("test", (100, 3))
    assert scratch("test", (10, 3)).base is here.base  # smaller: the same memory
    bigger = scratch("test", (400, 3))
    assert not np.shares_memory(bigger, here) and bigger.shape == (400, 3)
    with ThreadPoolExecutor(1) as pool:
        there = pool.submit(scratch, "test", (100, 3)).result()
    assert not np.shares_memory(there, scratch("test", (100, 3)))


# ---------------------------------------------------------------- BLAS on one thread, locally
def test_one_blas_thread_limits_blas_inside_and_restores_it_after():
    with threadpool_limits(2, user_api="blas"):
        assert set(blas_threads()) == {2}
        with one_blas_thread():
            assert set(blas_threads()) == {1}
            with one_blas_thread():  # nested: still one, and nothing restored yet
                assert set(blas_threads()) == {1}
            assert set(blas_threads()) == {1}
        assert set(blas_threads()) == {2}
        with pytest.raises(RuntimeError, match="inside"), one_blas_thread():
            raise RuntimeError("inside")
        assert set(blas_threads()) == {2}  # restored after an error too


@pytest.mark.parametrize("first_ends", ["main", "other"])
def test_overlapping_blocks_in_two_threads_leave_the_setting_as_found(first_ends):
    """A block here and one in another thread, overlapping, ending in either order."""
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def other():
        with one_blas_thread():
            entered.set()
            release.wait(HANG)
            seen["other"] = blas_threads()

    with threadpool_limits(2, user_api="blas"):
        thread = threading.Thread(target=other)
        with one_blas_thread():
            thread.start()
            entered.wait(HANG)
            if first_ends == "other":
                release.set()
                thread.join(HANG)
            seen["main"] = blas_threads()
        release.set()
        thread.join(HANG)
        assert set(seen["main"]) == {1}
        assert set(blas_threads()) == {2}


def test_a_narx_fit_is_the_one_thread_fit_and_leaves_blas_as_found():
    from randomts import NARXRegressor

    rng = np.random.default_rng(0)
    u = rng.uniform(-1, 1, 300)
    y = np.zeros(300)
    for k in range(1, 300):
        y[k] = 0.7 * y[k - 1] + np.tanh(u[k - 1])
    models = []
    for blas in (1, 2):
        with threadpool_limits(blas, user_api="blas"):
            params = dict(
                estimator=RandomTSRegressor(n_rules=20, structure="random"), random_state=0
            )
            models.append(NARXRegressor(1, 1, **params).fit(u, y))
            assert set(blas_threads()) == {blas}
    # bit for bit: the fit runs on one BLAS thread whatever the setting outside it
    assert models[0].rule_base_ == models[1].rule_base_


# ---------------------------------------------------------------- results independent of threads
@pytest.mark.parametrize("solver", ["lstsq", "pinv", "cholesky"])
def test_the_same_data_and_seed_give_the_same_model_whatever_n_jobs(solver):
    X, y = data(n_samples=20_000)
    alpha = 1e-6 if solver == "cholesky" else 0.0
    for blas in (1, 2):
        with threadpool_limits(blas):
            models = [
                RandomTSRegressor(
                    n_rules=60,
                    solver=solver,
                    alpha=alpha,
                    random_state=0,
                    n_jobs=n_jobs,
                    structure="random",
                ).fit(X, y)
                for n_jobs in (1, 2, 3)
            ]
        for model in models[1:]:
            assert model.rule_base_ == models[0].rule_base_  # bit for bit
    X_new = data(seed=1, n_samples=5000)[0]
    expected = models[0].rule_base_.predict(X_new, n_jobs=1)
    for n_jobs in (2, 3):
        assert np.array_equal(models[0].rule_base_.predict(X_new, n_jobs=n_jobs), expected)


@pytest.mark.parametrize("alpha, tolerance", [(0.0, 1e-7), (1e-6, 1e-11)])
def test_blas_threads_change_only_blas_rounding(alpha, tolerance):
    """OpenBLAS rounds differently with more threads; the fit amplifies that by its conditioning
    (measured: 1e-9 relative with alpha = 0 and 100 rules' cond(K) ~ 1e13, 2e-13 with a ridge)."""
    X, y = data(n_samples=20_000)
    predictions = []
    for blas in (1, 2):
        with threadpool_limits(blas):
            model = RandomTSRegressor.paper(n_rules=60, alpha=alpha, random_state=0).fit(X, y)
            predictions.append(model.predict(X))
    scale = np.abs(predictions[0]).max()
    assert np.abs(predictions[1] - predictions[0]).max() <= tolerance * scale


def test_fits_and_partial_fits_in_eight_threads_are_the_serial_results():
    problems = [data(seed) for seed in range(8)]

    def fit(X, y, seed):
        return (
            RandomTSRegressor(n_rules=40, random_state=seed, structure="random")
            .fit(X, y)
            .rule_base_
        )

    def stream(X, y, seed):
        model = RandomTSRegressor(n_rules=40, random_state=seed, structure="random")
        for rows in np.array_split(np.arange(len(X)), 3):
            model.partial_fit(X[rows], y[rows])
        return model.rule_base_

    arguments = [(X, y, seed) for seed, (X, y) in enumerate(problems)]
    for function in (fit, stream):
        serial = [function(*a) for a in arguments]
        threaded = run_in_threads(function, arguments)
        assert threaded == serial


def test_eight_threads_predicting_with_one_model_get_the_serial_predictions():
    X, y = data()
    model = RandomTSRegressor(n_rules=50, random_state=0, n_jobs=2, structure="random").fit(X, y)
    inputs = [data(seed)[0] for seed in range(1, 9)]
    serial = [model.predict(Xi) for Xi in inputs]
    threaded = run_in_threads(model.predict, [(Xi,) for Xi in inputs])
    for a, b in zip(serial, threaded, strict=True):
        assert np.array_equal(a, b)


def test_grid_search_in_joblib_threads_is_the_serial_search():
    X, y = data(n_samples=3000)
    grid = {"n_rules": [10, 30], "alpha": [1e-6, 1e-2]}
    serial = GridSearchCV(RandomTSRegressor(random_state=0, structure="random"), grid, cv=3).fit(
        X, y
    )
    with joblib.parallel_backend("threading", n_jobs=2):
        threaded = GridSearchCV(
            RandomTSRegressor(random_state=0, structure="random"), grid, cv=3, n_jobs=2
        ).fit(X, y)
    assert np.array_equal(
        serial.cv_results_["mean_test_score"], threaded.cv_results_["mean_test_score"]
    )


def test_a_fill_that_predicts_in_threads_does_not_hang():
    """Rows written by a function that itself runs a threaded predict, folded in threads."""
    X, y = data(n_samples=20_000)
    teacher = RandomTSRegressor(n_rules=30, random_state=1, structure="random").fit(X, y).rule_base_

    def fill(start, stop, out):
        out[:, :2] = X[start:stop]
        out[:, 2:] = teacher.predict(X[start:stop], n_jobs=2)

    def work():
        accumulator = LeastSquaresAccumulator(2, 1)
        with threadpool_limits(2):
            accumulator.update_rows(fill, len(X), n_jobs=2)
        return accumulator.solve()

    result = run_in_threads(lambda: work(), [()], n_threads=1)[0]
    assert result.shape == (2, 1) and np.all(np.isfinite(result))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_fits_the_same_model_and_inherits_no_limit():
    X, y = data(n_samples=5000)
    expected = (
        RandomTSRegressor(n_rules=20, random_state=0, structure="random").fit(X, y).predict(X[:50])
    )
    before = blas_threads()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            predicted = (
                RandomTSRegressor(n_rules=20, random_state=0, structure="random")
                .fit(X, y)
                .predict(X[:50])
            )
            same = np.array_equal(predicted, expected) and blas_threads() == before
            os.write(write, b"1" if same else b"0")
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.close(read)
    os.waitpid(child, 0)
    assert answer == b"1"


# ---------------------------------------------------------------- nothing global changes
def test_import_fit_and_predict_change_nothing_global():
    get_name = ctypes.pythonapi.PyCapsule_GetName
    signature = (get_name.restype, get_name.argtypes)
    blas, errors = blas_threads(), np.geterr()
    X, y = data()
    model = RandomTSRegressor(n_rules=30, random_state=0, n_jobs=2, structure="random").fit(X, y)
    run_in_threads(model.predict, [(X,)] * 4, n_threads=4)
    assert blas_threads() == blas
    assert np.geterr() == errors  # exact: numpy's error modes, a dict of strings
    assert (get_name.restype, get_name.argtypes) == signature
    assert "randomts._lapack" not in sys.modules
