"""Streaming fits: exact accumulation of [K Y] gives the model of one fit on all the rows."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from randomts import RandomTSRegressor, RuleBase
from randomts.core.accumulators import LeastSquaresAccumulator, merge_r
from randomts.core.design import stack_coefficients
from randomts.fitting.consequents import (
    ConsequentStream,
    fit_consequents,
    fit_consequents_streaming,
)
from randomts.io.chunks import iter_chunks, npy_chunks, with_progress


def sine_data(seed, n=500, n_outputs=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    Y = np.column_stack([np.sin(X[:, 0] + k) * np.cos(X[:, 1]) for k in range(n_outputs)])
    return X, Y


def relative_gap(a, b):
    """max |a - b| relative to the largest |b| (the tests ask 1e-10 of streamed fits)."""
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


def split_rows(n, seed, n_chunks):
    """Uneven chunk boundaries, some chunks shorter than q (fewer rows than columns of K)."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, n), size=n_chunks - 1, replace=False))
    return np.split(np.arange(n), cuts)


# ------------------------------------------------------------------- accumulators
@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
@pytest.mark.parametrize("seed", range(3))
def test_accumulated_factor_is_a_factor_of_the_stacked_rows(solver, seed):
    """R^T R (QR) or G (Gram) equals [K Y]^T [K Y], whatever the blocks."""
    rng = np.random.default_rng(seed)
    K, Y = rng.normal(size=(1300, 9)), rng.normal(size=(1300, 2))
    acc = LeastSquaresAccumulator(9, 2, solver=solver)
    for rows in split_rows(1300, seed, 7):
        acc.update(K[rows], Y[rows])
    KY = np.hstack([K, Y])
    gram = KY.T @ KY
    if solver == "lstsq":
        R = np.triu(acc.factor)
        np.testing.assert_allclose(R.T @ R, gram, rtol=1e-12, atol=1e-10)
    else:
        np.testing.assert_allclose(np.triu(acc.factor), np.triu(gram), rtol=1e-12, atol=1e-10)
    assert acc.n_samples == 1300
    residual = Y - K @ np.linalg.lstsq(K, Y, rcond=None)[0]
    np.testing.assert_allclose(acc.residual_sum_of_squares(), (residual**2).sum(axis=0), rtol=1e-8)


@pytest.mark.parametrize("solver", ["lstsq", "pinv", "cholesky"])
def test_accumulator_solution_matches_numpy_lstsq(solver):
    rng = np.random.default_rng(7)
    K, Y = rng.normal(size=(700, 12)), rng.normal(size=(700, 3))
    acc = LeastSquaresAccumulator(12, 3, solver=solver)
    for rows in np.array_split(np.arange(700), 5):
        acc.update(K[rows], Y[rows])
    np.testing.assert_allclose(
        acc.solve(), np.linalg.lstsq(K, Y, rcond=None)[0], rtol=1e-9, atol=1e-12
    )
    alpha = 0.3
    ridge = np.linalg.solve(K.T @ K + alpha * np.eye(12), K.T @ Y)
    np.testing.assert_allclose(acc.solve(alpha), ridge, rtol=1e-9, atol=1e-12)


def test_fewer_rows_than_columns_gives_the_minimum_norm_solution():
    rng = np.random.default_rng(2)
    K, Y = rng.normal(size=(9, 20)), rng.normal(size=(9, 1))
    acc = LeastSquaresAccumulator(20, 1)
    for rows in ([0, 1], [2, 3, 4, 5], [6, 7, 8]):
        acc.update(K[rows], Y[rows])
    np.testing.assert_allclose(acc.solve(), np.linalg.pinv(K) @ Y, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
def test_merging_in_a_tree_equals_one_pass(solver):
    rng = np.random.default_rng(3)
    K, Y = rng.normal(size=(400, 6)), rng.normal(size=(400, 1))
    parts = [
        LeastSquaresAccumulator(6, 1, solver=solver).update(K[rows], Y[rows])
        for rows in np.array_split(np.arange(400), 4)
    ]
    tree = parts[0].merge(parts[1]).merge(parts[2].merge(parts[3]))
    whole = LeastSquaresAccumulator(6, 1, solver=solver).update(K, Y)
    assert tree.n_samples == 400
    np.testing.assert_allclose(tree.solve(), whole.solve(), rtol=1e-11, atol=1e-13)


def test_merge_r_of_two_triangles_is_the_r_of_the_stack():
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(30, 5)), rng.normal(size=(40, 5))
    Ra = np.asfortranarray(np.linalg.qr(A, mode="r"))
    Rb = np.linalg.qr(B, mode="r")
    R = np.triu(merge_r(Ra, Rb))
    stacked = np.vstack([A, B])
    np.testing.assert_allclose(R.T @ R, stacked.T @ stacked, rtol=1e-12)


# ---------------------------------------------------------- the one consequent fit
EPS = np.finfo(float).eps


def summation_bound(rule_base, X):
    """Largest change of a prediction when its sum over the rules runs in another order.

    ``(n_rules - 1) eps sum_i |w_i g_i|`` per row (the classic bound of a reordered sum), the
    largest over the rows: the tolerance of two computations that do the same arithmetic.
    """
    contributions = np.abs(rule_base.contributions(X)).sum(axis=1)  # (n_samples, n_outputs)
    return rule_base.n_rules * EPS * contributions.max()


@pytest.mark.parametrize("standardize", [True, False])
@pytest.mark.parametrize(
    "n_samples, n_outputs, order, normalize",
    [(400, 1, 1, False), (400, 2, 1, True), (400, 2, 0, False), (40, 1, 1, False)],
)
def test_fit_consequents_auto_is_the_estimators_auto_route(
    standardize, n_samples, n_outputs, order, normalize
):
    """alpha="auto" chooses the estimator's penalty and gives its rule base (40 rows: the row space)."""
    X, Y = sine_data(3, n=n_samples, n_outputs=n_outputs)
    X = 10 * X + 3  # far from standardised
    params = dict(n_rules=15, order=order, normalize=normalize, standardize=standardize)
    # the rules as fitted, not held in the training ranges (fitted.predict below holds nothing)
    model = RandomTSRegressor(random_state=4, **params, structure="random", lock_range=False).fit(
        X, Y
    )
    if standardize:  # as fit standardises: U = (X - mean) / std
        mean, scale = X.mean(axis=0), X.std(axis=0)
        U = (X - mean) / scale
    else:
        U = X
    antecedents = RandomTSRegressor(random_state=4, **params, structure="random").draw_antecedents(
        U, n_outputs
    )
    fitted = fit_consequents(antecedents, U, Y, order=order, alpha="auto")
    # one grid value, computed by the same arithmetic: equal to within its last bit
    assert abs(fitted.metadata["alpha"] - model.alpha_) <= np.spacing(model.alpha_)
    if standardize:  # the estimator keeps the rule base in the data's units
        fitted = fitted.in_original_units(mean, scale)
    gap = np.abs(model.predict(X).reshape(n_samples, -1) - fitted.predict(X)).max()
    assert gap <= summation_bound(fitted, X)


@pytest.mark.parametrize("solver", ["lstsq", "pinv", "cholesky"])
@pytest.mark.parametrize("relative_alpha", [1e-6, 1e-3, 1.0])
@pytest.mark.parametrize("order", [0, 1])
def test_fit_consequents_with_a_number_is_the_closed_form_ridge(solver, relative_alpha, order):
    """Gamma = (K^T K + alpha I)^-1 K^T Y, to the accuracy a backward-stable solve promises."""
    X, Y = sine_data(6, n=500, n_outputs=2)
    antecedents = RuleBase.random(n_features=2, n_outputs=2, n_rules=12, random_state=6)
    K = antecedents.design_matrix(X, order=order)
    p = K.shape[1]
    alpha = relative_alpha * np.trace(K.T @ K) / p  # in units of the mean eigenvalue of K^T K
    M = K.T @ K + alpha * np.eye(p)
    closed_form = np.linalg.solve(M, K.T @ Y)
    fitted = fit_consequents(antecedents, X, Y, order=order, alpha=alpha, solver=solver)
    gamma = stack_coefficients(fitted.coef, fitted.intercept, order=order)
    # Each solution is within c p eps cond(M) of the exact one, relative (a backward-stable solve
    # of the normal equations; QR and the SVD do better): their gap is within twice that.
    bound = 2 * p * EPS * np.linalg.cond(M)
    assert np.linalg.norm(gamma - closed_form) <= bound * np.linalg.norm(closed_form)
    predictions = fitted.predict(X)
    scale = np.linalg.norm(K, 2) * np.linalg.norm(closed_form)
    assert np.abs(predictions - K @ closed_form).max() <= bound * scale + summation_bound(fitted, X)


def test_rule_base_fit_consequents_is_fit_consequents():
    X, Y = sine_data(7, n=300, n_outputs=2)
    antecedents = RuleBase.random(n_features=2, n_outputs=2, n_rules=10, random_state=7)
    for alpha in ("auto", 1e-3):
        method = antecedents.fit_consequents(X, Y, alpha=alpha)
        function = fit_consequents(antecedents, X, Y, alpha=alpha)
        assert np.abs(method.predict(X) - function.predict(X)).max() <= summation_bound(function, X)
    chosen = antecedents.fit_consequents(X, Y, alpha="auto").metadata["alpha"]
    assert chosen > 0 and "alpha" not in antecedents.fit_consequents(X, Y).metadata
    np.testing.assert_array_equal(method.input_range, np.column_stack([X.min(0), X.max(0)]))


def test_a_stream_with_a_prior_shrinks_toward_it():
    """The stream fits Y - K Gamma_0 and adds Gamma_0: the ridge solution shrunk toward Gamma_0."""
    X, Y = sine_data(8, n=400)
    antecedents = RuleBase.random(n_features=2, n_rules=8, random_state=8)
    K = antecedents.design_matrix(X)
    p = K.shape[1]
    prior = np.random.default_rng(8).normal(size=(p, 1))
    alpha = 1e-2 * np.trace(K.T @ K) / p
    stream = ConsequentStream(antecedents, prior=prior, solver="cholesky")
    for rows in np.array_split(np.arange(400), 3):
        stream.update(X[rows], Y[rows])
    M = K.T @ K + alpha * np.eye(p)
    expected = prior + np.linalg.solve(M, K.T @ (Y - K @ prior))
    bound = 2 * p * EPS * np.linalg.cond(M)
    gamma = stream.coefficients(alpha)
    assert np.linalg.norm(gamma - expected) <= bound * np.linalg.norm(expected)
    np.testing.assert_array_equal(stream.rule_base(alpha).output_range, [[Y.min(), Y.max()]])


def test_fit_consequents_errors():
    antecedents = RuleBase.random(n_features=2, n_rules=3, random_state=0)
    X, y = np.zeros((10, 2)), np.zeros(10)
    with pytest.raises(TypeError, match=r"antecedents must be a RuleBase; got str\."):
        fit_consequents("rules", X, y)
    with pytest.raises(
        ValueError, match=r"The 'alpha' parameter must be 'auto' or a float >= 0\. Got 'best'"
    ):
        fit_consequents(antecedents, X, y, alpha="best")
    with pytest.raises(ValueError, match=r"'alpha' parameter must be a finite real number"):
        fit_consequents(antecedents, X, y, alpha=-1.0)
    with pytest.raises(ValueError, match="The 'solver' parameter must be a str among"):
        fit_consequents(antecedents, X, y, solver="qr")
    with pytest.raises(ValueError, match="same number of samples; got 10 and 9"):
        fit_consequents(antecedents, X, y[:9], alpha="auto")
    stream = ConsequentStream(antecedents).update(X, y)
    with pytest.raises(
        ValueError, match="Got 'auto' instead: the leave-one-out choice reads the rows twice"
    ):
        stream.rule_base("auto")
    with pytest.raises(ValueError, match="reads the rows twice"):
        fit_consequents_streaming(antecedents, iter_chunks(X, y), alpha="auto")
    with pytest.raises(ValueError, match=r"prior must have shape \(n_columns, n_outputs\)"):
        ConsequentStream(antecedents, prior=np.zeros((4, 1)))
    with pytest.raises(ValueError, match="same antecedents, prior"):
        stream.merge(ConsequentStream(antecedents, prior=np.zeros((9, 1))))


# --------------------------------------------------------------- partial_fit
@pytest.mark.parametrize(
    "solver, alpha", [("lstsq", 0.0), ("pinv", 0.0), ("cholesky", 1e-3), ("lstsq", 1e-3)]
)
@pytest.mark.parametrize("seed", range(3))
def test_partial_fit_on_chunks_gives_the_model_of_one_fit(solver, alpha, seed):
    X, Y = sine_data(seed, n=600, n_outputs=2)
    params = dict(n_rules=15, solver=solver, alpha=alpha, random_state=seed)
    whole = RandomTSRegressor.paper(**params).fit(X, Y)
    streamed = RandomTSRegressor.paper(**params)
    for rows in split_rows(600, seed, 6):
        streamed.partial_fit(X[rows], Y[rows])
    np.testing.assert_array_equal(streamed.rule_base_.centers, whole.rule_base_.centers)
    np.testing.assert_array_equal(streamed.rule_base_.sigmas, whole.rule_base_.sigmas)
    assert relative_gap(streamed.predict(X), whole.predict(X)) < 1e-10
    assert streamed.rule_base_.metadata["n_samples_fit"] == 600


@pytest.mark.parametrize("normalize, order", [(True, 1), (False, 0), (True, 0)])
def test_partial_fit_weighted_average_and_zero_order(normalize, order):
    X, Y = sine_data(5, n=400)
    params = dict(n_rules=12, order=order, normalize=normalize, random_state=1)
    whole = RandomTSRegressor.paper(**params).fit(X, Y[:, 0])
    streamed = RandomTSRegressor.paper(**params)
    for rows in np.array_split(np.arange(400), 3):
        streamed.partial_fit(X[rows], Y[rows, 0])
    assert streamed.predict(X).shape == (400,)
    assert relative_gap(streamed.predict(X), whole.predict(X)) < 1e-10


def test_partial_fit_on_the_ill_conditioned_van_der_pol_data(van_der_pol_data):
    """cond(K) ~ 1e16: predictions agree, the consequents themselves need not."""
    X, Y = van_der_pol_data
    whole = RandomTSRegressor.paper(n_rules=100, random_state=0).fit(X, Y)
    streamed = RandomTSRegressor.paper(n_rules=100, random_state=0)
    for rows in np.array_split(np.arange(X.shape[0]), 7):
        streamed.partial_fit(X[rows], Y[rows])
    assert relative_gap(streamed.predict(X), whole.predict(X)) < 1e-10
    assert np.mean((streamed.predict(X) - Y) ** 2) <= 1e-20
    # The consequents themselves are not determined by the data: K is rank-deficient in floating
    # point, so which minimum-norm solution comes out is decided by rounding. Measured (seeds 0-2,
    # 7 and 50 chunks): predictions agree to 2e-14 relative, slopes differ by 2e-2 to 2e-1 and
    # intercepts by 3e-2 to 4e-1 relative to the largest one.


def test_partial_fit_after_fit_starts_a_new_stream():
    X, Y = sine_data(0, n=300)
    model = RandomTSRegressor.paper(n_rules=10, random_state=0).fit(X[:100], Y[:100, 0])
    model.partial_fit(X[100:], Y[100:, 0])
    only_the_rest = RandomTSRegressor.paper(n_rules=10, random_state=0).fit(X[100:], Y[100:, 0])
    assert relative_gap(model.predict(X), only_the_rest.predict(X)) < 1e-10
    assert model.rule_base_.metadata["n_samples_fit"] == 200


def test_partial_fit_standardises_with_the_first_chunk():
    rng = np.random.default_rng(0)
    X = rng.normal(loc=[50.0, -3.0], scale=[10.0, 0.1], size=(300, 2))
    y = np.sin((X[:, 0] - 50) / 10) + (X[:, 1] + 3) * 5
    model = RandomTSRegressor(n_rules=15, standardize=True, random_state=0, structure="random")
    for rows in np.array_split(np.arange(300), 3):
        model.partial_fit(X[rows], y[rows])
    meta = model.rule_base_.metadata
    np.testing.assert_allclose(meta["input_mean"], X[:100].mean(axis=0), rtol=1e-15)
    assert model.score(X, y) > 0.99


def test_partial_fit_rejects_inconsistent_chunks():
    X, Y = sine_data(0, n=60, n_outputs=2)
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").partial_fit(
        X[:30], Y[:30]
    )
    with pytest.raises(ValueError, match="X has 3 features, but RandomTSRegressor is expecting 2"):
        model.partial_fit(np.zeros((5, 3)), Y[:5])
    with pytest.raises(ValueError, match="y has 1 outputs, but RandomTSRegressor is expecting 2"):
        model.partial_fit(X[30:], Y[30:, 0])
    with pytest.raises(ValueError, match="The 'n_rules' parameter of RandomTSRegressor"):
        RandomTSRegressor(n_rules=0, structure="random").partial_fit(X, Y)


# --------------------------------------------------------------- out of core
@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
def test_fit_from_npy_files_equals_the_in_memory_fit(tmp_path, solver):
    X, Y = sine_data(2, n=2000, n_outputs=2)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "Y.npy", Y)
    antecedents = RuleBase.random(n_features=2, n_outputs=2, n_rules=20, random_state=0)
    alpha = 1e-3 if solver == "cholesky" else 0.0
    chunks = npy_chunks(tmp_path / "X.npy", tmp_path / "Y.npy", chunk_rows=300)
    assert len(chunks) == 7
    streamed = fit_consequents_streaming(antecedents, chunks, solver=solver, alpha=alpha)
    whole = antecedents.fit_consequents(X, Y, solver=solver, alpha=alpha)
    assert relative_gap(streamed.predict(X), whole.predict(X)) < 1e-10
    assert streamed.output_names == whole.output_names


def test_npy_chunks_read_the_rows_of_the_file(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(1001, 3)), rng.normal(size=1001)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    chunks = list(npy_chunks(tmp_path / "X.npy", tmp_path / "y.npy", chunk_rows=250))
    np.testing.assert_array_equal(np.vstack([x for x, _ in chunks]), X)
    np.testing.assert_array_equal(np.concatenate([t for _, t in chunks]), y)
    np.save(tmp_path / "F.npy", np.asfortranarray(X))
    with pytest.raises(ValueError, match="X_path must be a C-ordered 1-D or 2-D numeric .npy file"):
        npy_chunks(tmp_path / "F.npy", tmp_path / "y.npy")
    with pytest.raises(ValueError, match="same number of rows; got 1001 and 1000"):
        np.save(tmp_path / "short.npy", y[:1000])
        npy_chunks(tmp_path / "X.npy", tmp_path / "short.npy")


def test_fit_from_memmaps_equals_the_in_memory_fit(tmp_path):
    X, Y = sine_data(6, n=800)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "Y.npy", Y)
    Xm, Ym = np.load(tmp_path / "X.npy", mmap_mode="r"), np.load(tmp_path / "Y.npy", mmap_mode="r")
    antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=6)
    rb = fit_consequents_streaming(antecedents, iter_chunks(Xm, Ym, chunk_rows=333))
    assert relative_gap(rb.predict(X), antecedents.fit_consequents(X, Y).predict(X)) < 1e-10


def test_fit_from_a_generator_with_a_progress_bar(capsys):
    X, Y = sine_data(3, n=900)

    def generate():
        for start in range(0, 900, 200):
            yield X[start : start + 200], Y[start : start + 200, 0]

    antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=3)
    rb = fit_consequents_streaming(antecedents, with_progress(generate()))
    assert "randomts fit" in capsys.readouterr().err
    assert relative_gap(rb.predict(X), antecedents.fit_consequents(X, Y[:, 0]).predict(X)) < 1e-10


@pytest.mark.parametrize("solver", ["lstsq", "cholesky"])
def test_internal_blocks_and_threads_change_only_rounding(monkeypatch, solver):
    """A chunk is folded in blocks of rows, in stripes over threads: neither changes the model."""
    import randomts.core.accumulators as accumulators

    X, Y = sine_data(4, n=3000)
    antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=4)
    # The Gram matrix squares cond(K): with a small ridge, rounding moves the fit by ~1e-9.
    alpha, tolerance = (0.0, 1e-10) if solver == "lstsq" else (1e-8, 1e-8)
    with threadpool_limits(1):
        stream = ConsequentStream(antecedents, solver=solver).update(X, Y)
        reference = stream.rule_base(alpha)
    monkeypatch.setattr(accumulators, "_QR_BLOCK_ROWS", 37)
    monkeypatch.setattr(accumulators, "_GRAM_BLOCK_ROWS", 37)
    with threadpool_limits(2):
        blocked = ConsequentStream(antecedents, solver=solver, n_jobs=2).update(X, Y)
        blocked = blocked.rule_base(alpha)
    assert relative_gap(blocked.predict(X), reference.predict(X)) < tolerance


def test_stream_errors():
    antecedents = RuleBase.random(n_features=2, n_rules=3, random_state=0)
    with pytest.raises(TypeError, match="antecedents must be a RuleBase"):
        ConsequentStream("rules")
    stream = ConsequentStream(antecedents, 2)
    with pytest.raises(ValueError, match="No rows have been seen yet"):
        stream.rule_base()
    with pytest.raises(ValueError, match=r"Y must have shape \(n_rows, n_outputs\) = \(4, 2\)"):
        stream.update(np.zeros((4, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="X has 3 features, but this rule base is expecting 2"):
        stream.update(np.zeros((4, 3)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="same number of rows"):
        list(iter_chunks(np.zeros((4, 2)), np.zeros(3)))
    with pytest.raises(ValueError, match="chunks yielded no rows"):
        fit_consequents_streaming(antecedents, iter([]))
    with pytest.raises(ValueError, match="The 'solver' parameter must be a str among"):
        LeastSquaresAccumulator(3, solver="qr")
    with pytest.raises(ValueError, match="K must be a 2-D array with 3 columns"):
        LeastSquaresAccumulator(3).update(np.zeros((2, 4)), np.zeros(2))
    with pytest.raises(ValueError, match="Can only merge"):
        LeastSquaresAccumulator(3).merge(LeastSquaresAccumulator(3, solver="cholesky"))
