"""Row blocks folded into QR and Gram factors in threads, through GIL-free LAPACK/BLAS calls."""

import numpy as np
import pytest
from scipy.linalg import blas, lapack
from threadpoolctl import threadpool_limits

from randomts import RandomTSRegressor, RuleBase, _lapack
from randomts.exceptions import ExtrapolationWarning
from randomts.accumulators import fold_rows, fold_threads, update_r
from randomts.design import design_matrix, design_rows_writer
from randomts.membership import firing_strengths
from randomts.solvers import solve_least_squares


def rows_of(A):
    def fill(start, stop, out):
        out[...] = A[start:stop]

    return fill


def test_the_gil_free_routines_are_found():
    """SciPy exports the capsules; without them the threads would only queue on the GIL."""
    assert _lapack.RELEASES_GIL


@pytest.mark.parametrize("seed", range(3))
def test_dtpqrt_is_bitwise_the_f2py_wrapper(seed):
    rng = np.random.default_rng(seed)
    R0 = np.asfortranarray(np.triu(rng.normal(size=(40, 40))))
    B = np.asfortranarray(rng.normal(size=(300, 40)))
    R1, R2 = R0.copy(order="F"), R0.copy(order="F")
    _lapack.dtpqrt(R1, B.copy(order="F"), 16)
    R2, _, _, info = lapack.dtpqrt(0, 16, R2, B.copy(order="F"), overwrite_a=1, overwrite_b=1)
    assert info == 0
    assert np.array_equal(R1, R2)


def test_dsyrk_is_bitwise_the_f2py_wrapper():
    rng = np.random.default_rng(0)
    B = np.asfortranarray(rng.normal(size=(500, 30)))
    G = np.asfortranarray(rng.normal(size=(30, 30)))
    expected = blas.dsyrk(1.0, B, beta=1.0, c=G.copy(order="F"), trans=1, lower=0)
    _lapack.dsyrk(G, B)
    assert np.array_equal(np.triu(G), np.triu(expected))


@pytest.mark.parametrize(
    "call",
    [
        lambda: _lapack.dtpqrt(np.zeros((3, 3), order="F"), np.zeros((4, 3)), 2),  # B in C order
        lambda: _lapack.dtpqrt(np.zeros((3, 3)), np.zeros((4, 3), order="F"), 2),  # R in C order
        lambda: _lapack.dtpqrt(np.zeros((3, 3), order="F"), np.zeros((4, 3), order="F"), 4),
        lambda: _lapack.dtpqrt(
            np.zeros((3, 3), order="F"),
            np.zeros((4, 3), order="F"),
            2,
            T=np.zeros((1, 3), order="F"),
        ),
        lambda: _lapack.dtpqrt(
            np.zeros((3, 3), order="F"), np.zeros((4, 3), order="F"), 2, work=np.zeros(2)
        ),
        lambda: _lapack.dtpqrt(np.zeros((2, 2), order="F"), np.zeros((4, 3), order="F"), 2),
        lambda: _lapack.dsyrk(np.zeros((3, 3), order="F"), np.zeros((4, 3))),
        lambda: _lapack.dsyrk(np.zeros((2, 2), order="F"), np.zeros((4, 3), order="F")),
        lambda: _lapack.dsyrk(
            np.zeros((3, 3), order="F", dtype=np.float32), np.zeros((4, 3), order="F")
        ),
    ],
)
def test_raw_pointer_calls_refuse_arrays_lapack_would_overrun(call):
    with pytest.raises(ValueError, match="dtpqrt needs|dsyrk needs"):
        call()


def test_fold_threads_follows_the_blas_limit_and_the_size():
    with threadpool_limits(1):
        assert fold_threads(10**6, 300) == 1
    with threadpool_limits(2):
        assert fold_threads(10**6, 300) == 2
        assert fold_threads(3000, 300) == 1  # stripes shorter than 8 q rows: one thread
        assert fold_threads(3000, 300, kind="gram") == 1  # fewer than 4 blocks of 2048 each
        assert fold_threads(20_000, 300, kind="gram") == 2
    assert fold_threads(10**6, 300, threads=1) == 1


@pytest.mark.parametrize("kind", ["r", "gram"])
@pytest.mark.parametrize("seed", range(3))
def test_threads_give_the_same_factor_to_rounding_and_are_reproducible(kind, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(20_000, 12)) * np.logspace(0, 3, 12)
    one = fold_rows(np.zeros((12, 12), order="F"), rows_of(A), len(A), kind=kind, threads=1)
    two = fold_rows(np.zeros((12, 12), order="F"), rows_of(A), len(A), kind=kind, threads=2)
    again = fold_rows(np.zeros((12, 12), order="F"), rows_of(A), len(A), kind=kind, threads=2)
    assert np.array_equal(two, again)
    if kind == "r":  # R is unique up to the signs of its rows
        one, two = np.abs(one), np.abs(two)
    reference = np.abs(np.linalg.qr(A, mode="r")) if kind == "r" else np.triu(A.T @ A)
    scale = np.abs(reference).max()
    assert np.abs(np.triu(one) - reference).max() < 1e-12 * scale
    assert np.abs(np.triu(two) - reference).max() < 1e-12 * scale


def test_fold_rows_folds_into_the_factor_it_is_given():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(12_000, 5))
    R = fold_rows(np.zeros((5, 5), order="F"), rows_of(A[:4000]), 4000)
    R = update_r(R, A[4000:, :4], A[4000:, 4:], threads=2)
    assert np.allclose(np.abs(R), np.abs(np.linalg.qr(A, mode="r")), rtol=1e-12, atol=1e-9)


def test_an_error_in_a_worker_thread_reaches_the_caller():
    A = np.ones((20_000, 3))

    def fill(start, stop, out):
        if start >= 10_000:
            raise KeyError(f"row {start}")
        out[...] = A[start:stop]

    with pytest.raises(KeyError, match="row"):
        fold_rows(np.zeros((3, 3), order="F"), fill, len(A), threads=2)


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("order", [0, 1])
def test_rows_written_in_place_equal_the_design_matrix_bitwise(normalize, order):
    rng = np.random.default_rng(2)
    X, Y = rng.uniform(-2, 2, size=(700, 3)), rng.normal(size=(700, 2))
    rb = RuleBase.random(n_features=3, n_rules=7, normalize=normalize, random_state=0)
    K = design_matrix(
        firing_strengths(X, rb.centers, rb.sigmas, normalize=normalize), X, order=order
    )
    out = np.empty((650, K.shape[1] + 2), order="F")
    design_rows_writer(X, Y, rb.centers, rb.sigmas, normalize=normalize, order=order)(50, 700, out)
    assert np.array_equal(out, np.hstack([K, Y])[50:])


def test_design_matrix_writes_through_an_out_of_any_layout():
    rng = np.random.default_rng(5)
    W, X = rng.random((4, 2)), rng.random((4, 2))
    expected = design_matrix(W, X)
    for out in (np.empty((4, 12))[:, ::2], np.empty((6, 4)).T, np.empty((4, 8), order="F")[:, 1:7]):
        design_matrix(W, X, out=out)
        assert np.array_equal(out, expected)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
def test_the_fit_without_k_is_the_fit_with_k(threads, solver):
    """fit_consequents never forms K; solving from the explicit K gives the same consequents."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(12_000, 2))
    Y = np.column_stack([np.sin(X.sum(1)), np.cos(X[:, 0]) * X[:, 1]])
    antecedents = RuleBase.random(n_features=2, n_outputs=2, n_rules=30, random_state=1)
    alpha = 1e-8 if solver == "cholesky" else 0.0
    with threadpool_limits(threads):
        fitted = antecedents.fit_consequents(X, Y, solver=solver, alpha=alpha)
        K = antecedents.design_matrix(X)
        gamma = solve_least_squares(K, Y, solver=solver, alpha=alpha)
    stacked = np.concatenate([fitted.coef.transpose(0, 2, 1), fitted.intercept[:, None, :]], axis=1)
    stacked = stacked.reshape(-1, 2)
    prediction = fitted.predict(X)
    if solver == "lstsq":  # the same rows in the same stripes: the same R, bit for bit
        assert np.array_equal(stacked, gamma)
        assert np.abs(prediction - K @ gamma).max() < 1e-10 * np.abs(Y).max()  # 3e-12 measured
    else:
        # syrk of row blocks in stripes against syrk on K where it lies: the Gram matrices
        # differ by rounding, which cond(K^T K + alpha I) ~ 1e12 amplifies in the
        # consequents (measured 1e-3 relative) and, less, in the predictions (measured
        # 4e-14 with one thread, 1e-7 with two, relative to max |Y|).
        assert np.abs(prediction - K @ gamma).max() < 1e-6 * np.abs(Y).max()


def test_estimator_predict_skips_only_checks_that_cannot_fail():
    """The fast path for plain finite float64 arrays returns what the validated path returns."""
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, size=(300, 2))
    model = RandomTSRegressor(n_rules=8, random_state=0).fit(X, X[:, 0] * X[:, 1])
    assert model._is_plain_valid_input(X)
    expected = model.rule_base_.predict(X)[:, 0]
    assert np.array_equal(model.predict(X), expected)
    assert np.array_equal(model.predict(X.tolist()), expected)  # validated path
    assert np.array_equal(model.predict(np.asfortranarray(X)), expected)
    for bad in (X[:, :1], np.full((2, 2), np.nan), np.array([[np.inf, 0.0]]), X.astype(np.float32)):
        assert not model._is_plain_valid_input(bad)
    big = np.full((2, 2), 1e308)  # finite entries whose sum overflows: the full check decides
    assert not model._is_plain_valid_input(big)
    with pytest.warns(ExtrapolationWarning, match="2 of 2 rows"):  # where no rule fires
        assert model.predict(big).shape == (2,)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        model.predict(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="X has 1 features, but RandomTSRegressor is expecting 2"):
        model.predict(X[:, :1])


def test_run_stripes_waits_for_every_stripe_then_reraises():
    from randomts._threads import run_stripes

    finished = []

    def work(start, stop):
        if start == 0:
            raise ZeroDivisionError("first stripe")
        finished.append(start)
        return start

    with pytest.raises(ZeroDivisionError, match="first stripe"):
        run_stripes(work, [0, 1, 2, 3])
    assert sorted(finished) == [1, 2]
    assert run_stripes(lambda start, stop: stop - start, [0, 4, 9, 10]) == [4, 5, 1]


@pytest.mark.parametrize("normalize", [False, True])
def test_threaded_predict_is_the_one_thread_predict_and_warns_of_nothing(normalize):
    """Far inputs overflow the squared distance in every thread: w = 0 exactly, and no warning
    (NumPy's error state is per thread, so each predict thread sets its own)."""
    import warnings

    rb = RuleBase.random(
        n_features=2, n_outputs=2, n_rules=1000, normalize=normalize, random_state=0
    )
    rb = rb.replace(intercept=np.random.default_rng(0).normal(size=(1000, 2)))
    X = np.random.default_rng(1).uniform(-3, 3, size=(2000, 2))
    X[::7] = 1e200  # far from every centre
    with threadpool_limits(1):
        one = rb.predict(X)
    with warnings.catch_warnings(), threadpool_limits(2):
        warnings.simplefilter("error")
        two = rb.predict(X)
    assert np.array_equal(one, two)
    if not normalize:
        assert np.all(two[::7] == 0.0)


@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
def test_updates_after_a_merge_and_from_a_c_ordered_factor(solver):
    from randomts.accumulators import LeastSquaresAccumulator

    rng = np.random.default_rng(6)
    K, Y = rng.normal(size=(9000, 4)), rng.normal(size=(9000, 1))
    whole = LeastSquaresAccumulator(4, solver=solver).update(K, Y)
    parts = LeastSquaresAccumulator(4, solver=solver).update(K[:3000], Y[:3000])
    other = LeastSquaresAccumulator(4, solver=solver).update(K[3000:6000], Y[3000:6000])
    parts.merge_factor(np.ascontiguousarray(other.factor), other.n_samples)
    parts.update_rows(rows_of(np.hstack([K, Y])[6000:]), 3000)
    assert parts.n_samples == 9000
    assert np.allclose(parts.solve(), whole.solve(), rtol=1e-10, atol=1e-12)
    C_ordered = np.ascontiguousarray(np.triu(np.ones((5, 5))))
    assert fold_rows(C_ordered, rows_of(np.hstack([K, Y])), 9000, kind="gram").flags.f_contiguous


def test_scratch_is_reused_by_a_thread_and_never_shared_between_threads():
    from concurrent.futures import ThreadPoolExecutor

    from randomts._threads import scratch

    here = scratch("test", (100, 3))
    assert scratch("test", (10, 3)).base is here.base  # smaller: the same memory
    bigger = scratch("test", (400, 3))
    assert not np.shares_memory(bigger, here) and bigger.shape == (400, 3)
    with ThreadPoolExecutor(1) as pool:
        there = pool.submit(scratch, "test", (100, 3)).result()
    assert not np.shares_memory(there, scratch("test", (100, 3)))


def test_single_blas_thread_limits_to_one_and_restores_or_leaves_one_alone():
    from threadpoolctl import threadpool_info

    from randomts._threads import single_blas_thread

    def blas_threads():
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    with threadpool_limits(2):
        with single_blas_thread():
            assert blas_threads() == {1}
        assert blas_threads() == {2}
    with threadpool_limits(1):
        with single_blas_thread() as limiter:  # already one thread: nothing to limit
            assert limiter is None and blas_threads() == {1}
        assert blas_threads() == {1}


def test_predict_constants_are_computed_once_read_only_and_survive_pickling():
    import pickle

    rb = RuleBase.random(n_features=3, n_rules=7, n_outputs=2, random_state=1)
    rb = rb.replace(coef=np.random.default_rng(2).normal(size=(7, 2, 3)))
    X = np.random.default_rng(3).normal(size=(50, 3))
    expected = rb.predict(X)
    linear, theta, inv_sigmas = rb._inference_constants
    assert linear and rb._inference_constants[1] is theta  # cached
    assert not theta.flags.writeable and not inv_sigmas.flags.writeable
    assert theta.shape == (7, 2 * 4) and np.array_equal(inv_sigmas, 1.0 / rb.sigmas)
    # column k * n_outputs + o: slope of input k (k = n_features: the constant) for output o
    assert np.array_equal(theta[:, 1 * 2 + 1], rb.coef[:, 1, 1])
    assert np.array_equal(theta[:, 3 * 2 + 0], rb.intercept[:, 0])
    clone = pickle.loads(pickle.dumps(rb))
    assert clone == rb and np.array_equal(clone.predict(X), expected)
    constant = rb.replace(coef=np.zeros((7, 2, 3)))
    assert constant._inference_constants[0] is False
    assert np.array_equal(constant._inference_constants[1], rb.intercept)


def test_run_shared_hands_each_item_to_one_thread_and_a_late_thread_takes_fewer():
    import threading

    from randomts._threads import run_shared

    main = threading.current_thread()
    other_done = threading.Event()

    def work(items):
        if threading.current_thread() is main:
            assert other_done.wait(timeout=60)  # this thread starts only once the other is done
        taken = list(items)
        if threading.current_thread() is not main:
            other_done.set()
        return taken

    mine, theirs = run_shared(work, 50, 2)
    assert mine == [] and theirs == list(range(50))
    # both busy: every item exactly once, whichever thread took it
    mine, theirs = run_shared(lambda items: list(items), 10_000, 2)
    assert sorted(mine + theirs) == list(range(10_000))
    assert run_shared(lambda items: list(items), 0, 2) == [[], []]


def test_run_shared_reraises_after_every_thread_has_finished():
    from randomts._threads import run_shared

    seen = []

    def work(items):
        for item in items:
            if item == 3:
                raise ZeroDivisionError("item 3")
            seen.append(item)

    with pytest.raises(ZeroDivisionError, match="item 3"):
        run_shared(work, 20, 2)
    assert sorted(seen) == [item for item in range(20) if item != 3]  # the others went on
