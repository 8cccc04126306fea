"""Local and combined learning of the consequents: closed forms, cross-validation, streams."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from randomts import RandomTSClassifier, RandomTSRegressor, RuleBase
from randomts.analysis.agreement import rule_agreement
from randomts.core import membership
from randomts.fitting.consequents import ConsequentStream, fit_consequents
from randomts.fitting.local_learning import (
    LOCAL_WEIGHTS,
    LearningStatistics,
    interleaved_folds,
    local_grams,
)

# Relative agreement of two least-squares solutions of well-conditioned problems
# (condition numbers below about 1e4): the normal equations square it.
RTOL = 1e-7


def _problem(seed, n=300, d=2, h=6, m=1, normalize=True):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    Y = np.column_stack([np.sin(2 * X[:, 0] + j) * (1 + X[:, -1]) for j in range(m)])
    Y += 0.05 * rng.normal(size=Y.shape)
    rules = RuleBase.random(n_features=d, n_rules=h, normalize=normalize, random_state=seed)
    rules = rules.replace(centers=rng.uniform(-1, 1, size=(h, d)), sigmas=np.full((h, d), 0.5))
    return X, Y, rules


def _stacked(X, Y, rules, order, g, w_local, alpha=0.0):
    """The combined objective as one ordinary least-squares problem on stacked rows."""
    W = membership.firing_strengths(X, rules.centers, rules.sigmas, normalize=rules.normalize)
    K = rules.design_matrix(X, order=order)
    Z = np.ones((len(X), 1)) if order == 0 else np.column_stack([X, np.ones(len(X))])
    p = Z.shape[1]
    rows, targets = [np.sqrt(g) * K], [np.sqrt(g) * Y]
    for i in range(rules.n_rules):
        block = np.zeros((len(X), K.shape[1]))
        root = np.sqrt(w_local * W[:, i : i + 1])
        block[:, i * p : (i + 1) * p] = root * Z
        rows.append(block)
        targets.append(root * Y)
    if alpha:
        rows.append(np.sqrt(alpha) * np.eye(K.shape[1]))
        targets.append(np.zeros((K.shape[1], Y.shape[1])))
    return np.linalg.lstsq(np.vstack(rows), np.vstack(targets), rcond=None)[0]


def _coefficients(rb, order):
    if order == 0:
        return rb.intercept
    blocks = np.concatenate([rb.coef.transpose(0, 2, 1), rb.intercept[:, None, :]], axis=1)
    return blocks.reshape(-1, rb.n_outputs)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize(
    ("learning", "weight"), [("combined", 0.3), ("combined", 7.0), ("local", 1.0)]
)
def test_objective_matches_stacked_least_squares(seed, normalize, order, learning, weight):
    X, Y, rules = _problem(seed, m=2, normalize=normalize)
    g, w_local = (0.0, 1.0) if learning == "local" else (1.0, weight)
    for alpha in (0.0, 1e-2):
        expected = _stacked(X, Y, rules, order, g, w_local, alpha)
        fitted = fit_consequents(
            rules, X, Y, order=order, alpha=alpha, learning=learning, local_weight=weight
        )
        got = _coefficients(fitted, order)
        scale = np.max(np.abs(expected))
        assert np.max(np.abs(got - expected)) <= RTOL * scale


def test_local_learning_is_each_rule_alone():
    X, Y, rules = _problem(3, h=4)
    fitted = fit_consequents(rules, X, Y, learning="local")
    W = membership.firing_strengths(X, rules.centers, rules.sigmas, normalize=True)
    Z = np.column_stack([X, np.ones(len(X))])
    for i in range(rules.n_rules):
        root = np.sqrt(W[:, i : i + 1])
        theta = np.linalg.lstsq(root * Z, root * Y, rcond=None)[0]
        got = np.append(fitted.coef[i, 0], fitted.intercept[i, 0])
        assert np.allclose(got, theta[:, 0], rtol=RTOL, atol=RTOL * np.abs(theta).max())


def test_local_grams_closed_form():
    rng = np.random.default_rng(0)
    W, X = rng.uniform(size=(50, 3)), rng.normal(size=(50, 2))
    Z = np.column_stack([X, np.ones(50)])
    expected = np.stack([Z.T @ (W[:, [i]] * Z) for i in range(3)])
    assert np.allclose(local_grams(W, X), expected, rtol=1e-12)
    assert np.allclose(local_grams(W, X, order=0)[:, 0, 0], W.sum(axis=0), rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("learning", ["global", "local", "combined"])
def test_cross_validation_matches_refits(seed, learning):
    """A fold's error at a grid point is that of a fit on the other folds, scored on it."""
    from randomts.fitting.ridge import RELATIVE_ALPHAS

    X, Y, rules = _problem(seed, n=200)
    folds = interleaved_folds(len(X))
    chosen = LearningStatistics(rules).update(X, Y, folds).select(learning)
    weights = chosen.local_weights
    assert chosen.criterion == "cv" and chosen.errors.shape == (weights.size, 25)
    for k in {0, weights.size - 1}:
        g, w_local = {"global": (1.0, 0.0), "local": (0.0, 1.0)}.get(learning, (1.0, weights[k]))
        for j in (3, 12, 20):
            squares = 0.0
            for f in range(5):
                inside = folds != f
                K = rules.design_matrix(X[inside])
                W = membership.firing_strengths(
                    X[inside], rules.centers, rules.sigmas, normalize=True
                )
                D = local_grams(W, X[inside])
                trace = g * np.sum(K**2) + w_local * np.trace(D, axis1=1, axis2=2).sum()
                alpha = trace / K.shape[1] * RELATIVE_ALPHAS[j]
                refit = LearningStatistics(rules, n_folds=1).update(X[inside], Y[inside])
                gamma = refit.select(
                    learning,
                    local_weight=weights[k] if learning == "combined" else "auto",
                    alpha=alpha,
                ).coefficients
                held_out = rules.design_matrix(X[~inside]) @ gamma - Y[~inside]
                squares += np.sum(held_out**2)
            assert chosen.errors[k, j] * Y.size == pytest.approx(squares, rel=1e-6)


def test_choice_is_a_grid_point_and_fit_uses_it():
    X, Y, rules = _problem(4, n=250)
    fitted = fit_consequents(rules, X, Y, alpha="auto", learning="combined")
    assert np.isclose(LOCAL_WEIGHTS, fitted.metadata["local_weight"], rtol=1e-12).any()
    again = fit_consequents(
        rules,
        X,
        Y,
        alpha=fitted.metadata["alpha"],
        learning="combined",
        local_weight=fitted.metadata["local_weight"],
    )
    # the fixed penalty shrinks toward zero, the chosen one toward the mean: both fit the data
    for rb in (fitted, again):
        assert np.sqrt(np.mean((rb.predict(X) - Y) ** 2)) < 0.2


def test_given_folds_choose_alpha_for_global_learning():
    X, Y, rules = _problem(5, n=240)
    blocks = np.repeat(np.arange(4), 60)  # contiguous blocks, as for a time series
    fitted = fit_consequents(rules, X, Y, alpha="auto", folds=blocks)
    chosen = LearningStatistics(rules, n_folds=4).update(X, Y, blocks).select("global")
    assert fitted.metadata["alpha"] == pytest.approx(chosen.alpha, rel=1e-12)
    with pytest.raises(ValueError, match="folds must be a 1-D array of 240 non-negative"):
        fit_consequents(rules, X, Y, alpha="auto", folds=blocks[:10])
    with pytest.raises(ValueError, match="at least 2 folds; got 1"):
        fit_consequents(rules, X, Y, alpha="auto", folds=np.zeros(240, dtype=int))
    with pytest.raises(ValueError, match="non-negative integer fold labels"):
        fit_consequents(rules, X, Y, alpha="auto", folds=np.linspace(0, 1, 240))


def test_parameter_errors():
    X, Y, rules = _problem(0, n=50)
    with pytest.raises(ValueError, match="The 'learning' parameter must be a str among"):
        fit_consequents(rules, X, Y, learning="both")
    for bad in (0.0, -1.0, np.inf, "best"):
        with pytest.raises(ValueError, match="local_weight"):
            fit_consequents(rules, X, Y, learning="combined", local_weight=bad)
    with pytest.raises(ValueError, match="The 'learning' parameter of RandomTSRegressor"):
        RandomTSRegressor(learning="both", structure="random").fit(X, Y[:, 0])
    with pytest.raises(ValueError, match="The 'local_weight' parameter of RandomTSRegressor"):
        RandomTSRegressor(learning="combined", local_weight=0, structure="random").fit(X, Y[:, 0])
    far = RuleBase(centers=[[1e6, 1e6]], sigmas=[[1.0, 1.0]])
    with pytest.raises(ValueError, match="No rule fires on any of the 50 rows"):
        fit_consequents(far, X, Y, learning="combined", local_weight=1.0)
    with pytest.raises(ValueError, match="needs a float local_weight > 0"):
        ConsequentStream(rules, learning="combined", local_weight="auto")


@pytest.mark.parametrize("learning", ["local", "combined"])
def test_stream_and_chunks_equal_one_fit(learning):
    X, Y, rules = _problem(6, n=400, m=2)
    whole = fit_consequents(rules, X, Y, alpha=1e-3, learning=learning, local_weight=2.0)
    for solver in ("lstsq", "cholesky", "pinv"):
        stream = ConsequentStream(rules, 2, solver=solver, learning=learning, local_weight=2.0)
        halves = ConsequentStream(rules, 2, solver=solver, learning=learning, local_weight=2.0)
        for rows in np.array_split(np.arange(400), 3):
            stream.update(X[rows], Y[rows])
        halves.update(X[:150], Y[:150]).merge(
            ConsequentStream(rules, 2, solver=solver, learning=learning, local_weight=2.0).update(
                X[150:], Y[150:]
            )
        )
        for streamed in (stream.rule_base(1e-3), halves.rule_base(1e-3)):
            assert np.allclose(streamed.predict(X), whole.predict(X), rtol=RTOL, atol=RTOL)
    with pytest.raises(ValueError, match="same antecedents, prior and learning"):
        stream.merge(ConsequentStream(rules, 2, learning="global"))


def test_partial_fit_with_fixed_values_equals_fit():
    X, Y, _ = _problem(7, n=600)
    params = dict(
        n_rules=8,
        standardize=False,
        centers="normal",
        normalize=True,
        alpha=1e-4,
        learning="combined",
        local_weight=3.0,
        random_state=0,
    )
    whole = RandomTSRegressor(**params, structure="random").fit(X, Y[:, 0])
    streamed = RandomTSRegressor(**params, structure="random")
    for rows in np.array_split(np.arange(600), 4):
        streamed.partial_fit(X[rows], Y[rows, 0])
    assert np.allclose(streamed.predict(X), whole.predict(X), rtol=RTOL, atol=RTOL)
    assert streamed.local_weight_ == whole.local_weight_ == 3.0


def test_partial_fit_with_auto_chooses_on_the_first_chunk():
    X, Y, _ = _problem(8, n=800)
    model = RandomTSRegressor(
        n_rules=10, normalize=True, learning="combined", random_state=0, structure="random"
    )
    for rows in np.array_split(np.arange(800), 4):
        model.partial_fit(X[rows], Y[rows, 0])
    assert np.isclose(LOCAL_WEIGHTS, model.local_weight_, rtol=1e-12).any()
    assert model.score(X, Y[:, 0]) > 0.9


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_result_does_not_depend_on_threads(n_jobs):
    X, Y, rules = _problem(9, n=5000)
    one = fit_consequents(rules, X, Y, alpha="auto", learning="combined", n_jobs=1)
    other = fit_consequents(rules, X, Y, alpha="auto", learning="combined", n_jobs=n_jobs)
    # the stripes folded and merged do not depend on the threads: the same bits
    assert np.array_equal(one.intercept, other.intercept)
    assert np.array_equal(one.coef, other.coef)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_local_rules_say_what_the_model_does(seed):
    """Few rules on the data, weighted average: a rule's line at its centre is the model there."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(600, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.05 * rng.normal(size=600)
    common = dict(n_rules=12, centers="kmeans", normalize=True, random_state=seed)
    honest = RandomTSRegressor(learning="combined", **common, structure="random").fit(X, y)
    found = np.abs(rule_agreement(honest.rule_base_, X, y).from_model)
    # measured over these seeds: medians 0.028 to 0.050, largest 0.069
    assert np.median(found) < 0.08 and found.max() < 0.2
    assert honest.score(X, y) > 0.95


def test_estimator_records_and_reloads_the_local_weight(tmp_path):
    from randomts.io import load, save

    X, Y, _ = _problem(10, n=300)
    model = RandomTSRegressor(
        n_rules=6, normalize=True, learning="combined", random_state=0, structure="random"
    )
    model.fit(X, Y[:, 0])
    path = tmp_path / "model.json"
    save(model, path)
    loaded = load(path)
    assert loaded.local_weight_ == pytest.approx(model.local_weight_, rel=1e-15)
    assert np.allclose(loaded.predict(X), model.predict(X), rtol=1e-12, atol=1e-12)


def test_classifier_with_combined_learning():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = RandomTSClassifier(
            n_rules=12,
            centers="kmeans",
            normalize=True,
            learning="combined",
            random_state=0,
            structure="random",
        ).fit(X, y)
    assert clf.score(X, y) > 0.9
    assert clf.local_weight_ in LOCAL_WEIGHTS


def test_dask_equals_in_memory():
    da = pytest.importorskip("dask.array")
    from randomts.distributed import fit_consequents_dask

    X, Y, rules = _problem(11, n=900)
    Xd, Yd = da.from_array(X, chunks=(200, 2)), da.from_array(Y, chunks=(200, 1))
    for learning, weight in (("combined", "auto"), ("local", "auto"), ("combined", 2.0)):
        memory = fit_consequents(rules, X, Y, alpha="auto", learning=learning, local_weight=weight)
        dask = fit_consequents_dask(
            rules, Xd, Yd, alpha="auto", learning=learning, local_weight=weight
        )
        assert dask.metadata["alpha"] == pytest.approx(memory.metadata["alpha"], rel=1e-9)
        assert np.allclose(dask.predict(X), memory.predict(X), rtol=RTOL, atol=RTOL)
    fixed = fit_consequents_dask(rules, Xd, Yd, alpha=1e-3, learning="combined", local_weight=2.0)
    memory = fit_consequents(rules, X, Y, alpha=1e-3, learning="combined", local_weight=2.0)
    assert np.allclose(fixed.predict(X), memory.predict(X), rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_interpretable_widths_stay_within_the_data(seed):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=300) * 10.0**seed, rng.integers(0, 2, size=300)])
    y = X[:, 0] / 10.0**seed + X[:, 1]
    model = RandomTSRegressor.interpretable(n_rules=3, random_state=seed).fit(X, y)
    found = rule_agreement(model.rule_base_, X, y)
    assert not found.too_wide.any()
    from randomts.fitting.kmeans import kmeans_antecedents

    _, sigmas = kmeans_antecedents(X, 3, random_state=seed, width_factor=100.0)
    assert np.all(sigmas <= X.max(axis=0) - X.min(axis=0))


def test_estimator_folds_choose_alpha_on_blocks():
    rng = np.random.default_rng(12)
    t = np.arange(600)
    X = np.column_stack([np.sin(t / 30), np.cos(t / 45)]) + 0.01 * rng.normal(size=(600, 2))
    y = X[:, 0] * X[:, 1] + 0.05 * rng.normal(size=600)
    blocks = t // 120
    model = RandomTSRegressor(n_rules=20, random_state=0, structure="random").fit(
        X, y, folds=blocks
    )
    U = (X - X.mean(axis=0)) / X.std(axis=0)
    rules = model.draw_antecedents(U)
    chosen = LearningStatistics(rules, n_folds=5).update(U, y, blocks).select("global")
    assert model.alpha_ == pytest.approx(chosen.alpha, rel=1e-9)
    with pytest.raises(ValueError, match="folds must be a 1-D array of 600"):
        model.fit(X, y, folds=blocks[:-1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cross_validation_on_fewer_rows_than_columns_matches_refits(seed):
    """Global learning on rows fewer than half the columns: the SVD of the rows, as refits say.

    Shrunk toward zero: the prior toward the mean divides by a penalty of
    1e-10 of the mean eigenvalue, which leaves the Gram matrix's rounding of
    the directions the rows do not span no bound to compare within.
    """
    from randomts.fitting.ridge import RELATIVE_ALPHAS

    X, Y, rules = _problem(seed, n=80, d=3, h=40, m=2)
    folds = interleaved_folds(len(X))
    statistics = LearningStatistics(rules, 2).update(X, Y, folds)
    assert statistics.design_rows is not None  # 80 rows, 160 columns
    chosen = statistics.select("global", toward_mean=False)
    for j in (12, 16, 20, 24):
        squares = bound = 0.0
        for f in range(5):
            inside = folds != f
            K = rules.design_matrix(X[inside])
            eigenvalues = np.linalg.eigvalsh(K.T @ K)
            alpha = np.sum(K**2) / K.shape[1] * RELATIVE_ALPHAS[j]
            # the fold's fit from the Gram matrix instead: it rounds its eigenvalues by about
            # columns x eps x the largest, which the penalty divides
            bound = max(bound, K.shape[1] * np.finfo(float).eps * eigenvalues[-1] / alpha)
            refit = LearningStatistics(rules, 2, n_folds=1).update(X[inside], Y[inside])
            gamma = refit.select(
                "global", alpha=alpha, toward_mean=False, decomposition="gram"
            ).coefficients
            held_out = rules.design_matrix(X[~inside]) @ gamma - Y[~inside]
            squares += np.sum(held_out**2)
        # the held-out error is the squares of targets less what the fit explains: their ratio
        # to it amplifies the fits' rounding; at the least, the rounding of K's products
        amplification = np.sum(Y**2) / squares
        rel = max(K.size * np.finfo(float).eps, 100 * bound * amplification)
        assert chosen.errors[0, j] * Y.size == pytest.approx(squares, rel=rel)


def test_design_rows_are_kept_while_few_and_give_the_gram_matrix_fit():
    X, Y, rules = _problem(3, n=120, d=3, h=40, m=2)  # 160 columns
    folds = interleaved_folds(len(X))
    few = LearningStatistics(rules, 2).update(X[:50], Y[:50], folds[:50])
    more = LearningStatistics(rules, 2).update(X[50:80], Y[50:80], folds[50:80])
    assert sum(len(rows) for rows in few.merge(more).design_rows) == 80
    auto, gram = few.select("global"), few.select("global", decomposition="gram")
    K = rules.design_matrix(X[:80])
    # the same point of grids scaled by the trace of K^T K, summed from the rows or the Gram matrix
    assert auto.alpha == pytest.approx(gram.alpha, rel=K.size * np.finfo(float).eps)
    scale = np.abs(K @ gram.coefficients).max()
    # the Gram matrix's eigenvalues carry its rounding, columns x eps x the largest, divided by
    # the chosen penalty
    largest = np.linalg.eigvalsh(K.T @ K)[-1]
    bound = K.shape[1] * np.finfo(float).eps * largest / auto.alpha
    assert np.abs(K @ auto.coefficients - K @ gram.coefficients).max() <= 10 * bound * scale
    assert few.update(X[80:], Y[80:], folds[80:]).design_rows is None  # 120 rows: beyond half
    with pytest.raises(ValueError, match="decomposition"):
        few.select("global", decomposition="svd")


def _arrivals(X, Y, rules, folds):
    """The same rows folded in five ways: whole, in parts, merged, with a Gram matrix asked for between."""

    def stats(rows):
        return LearningStatistics(rules, Y.shape[1]).update(X[rows], Y[rows], folds[rows])

    a, b, c = np.arange(0, 30), np.arange(30, 60), np.arange(60, len(X))
    whole = stats(np.arange(len(X)))
    parts = stats(a).update(X[b], Y[b], folds[b]).update(X[c], Y[c], folds[c])
    merged = stats(a).merge(stats(b)).merge(stats(c))
    asked = stats(a)
    asked.gram()  # formed while the rows are few, then kept up to date
    asked = asked.merge(stats(b)).update(X[c], Y[c], folds[c])
    into_formed = stats(c).merge(stats(a).merge(stats(b)))  # few rows merged into a Gram matrix
    return {"whole": whole, "parts": parts, "merged": merged, "asked": asked, "into": into_formed}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_gram_matrices_are_the_rows_however_they_arrive(seed):
    X, Y, rules = _problem(seed, n=120, d=3, h=40, m=2)  # 160 columns: rows few up to 80
    folds = interleaved_folds(len(X))
    M = np.column_stack([rules.design_matrix(X), Y, np.ones(len(X))])
    for name, stats in _arrivals(X, Y, rules, folds).items():
        assert stats.n_samples == len(X), name
        assert stats.design_rows is None, name  # 120 rows: beyond half the columns
        assert stats.fires(), name
        for exclude in (None, 0, 3):
            kept = M[folds != exclude]
            # a sum of products: each entry rounds by at most rows x eps x the sum of |products|
            bound = len(kept) * np.finfo(float).eps * (np.abs(kept).T @ np.abs(kept))
            assert np.all(np.abs(stats.gram(exclude) - kept.T @ kept) <= bound), (name, exclude)
    few = LearningStatistics(rules, 2).update(X[:40], Y[:40], folds[:40])
    kept = M[:40]
    bound = len(kept) * np.finfo(float).eps * (np.abs(kept).T @ np.abs(kept))
    assert np.all(np.abs(few.gram() - kept.T @ kept) <= bound)
    assert [len(rows) for rows in few.design_rows] == [8] * 5  # still kept after the Gram matrix


def test_nothing_fires_is_seen_from_the_rows_and_from_the_gram_matrices():
    X, Y, rules = _problem(0, n=120, d=3, h=40, m=1, normalize=False)
    far = rules.replace(centers=rules.centers + 1e3, sigmas=np.full_like(rules.sigmas, 0.1))
    for n in (40, 120):  # the rows kept, then the Gram matrices
        assert LearningStatistics(rules).update(X[:n], Y[:n]).fires()
        assert not LearningStatistics(far).update(X[:n], Y[:n]).fires()
        with pytest.raises(ValueError, match="fire"):
            fit_consequents(far, X[:n], Y[:n], learning="combined")
