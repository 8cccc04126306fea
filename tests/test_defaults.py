"""The estimator's defaults on raw data: scale invariance, the choice of alpha, the warnings."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import ShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from randomts import RandomTSRegressor, RuleBase
from randomts.core.sampling import PAPER_CENTER_SCALE
from randomts.exceptions import ExtrapolationWarning, RandomTSWarning, UnderdeterminedWarning
from randomts.fitting.ridge import choose_alpha


def smooth_data(n_samples, n_features, seed=0, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_samples, n_features))
    y = np.sin(2 * X[:, 0]) * (1 + X[:, -1]) + X.sum(axis=1) + noise * rng.normal(size=n_samples)
    return X, y


@pytest.mark.filterwarnings("error::randomts.exceptions.RandomTSWarning")
@pytest.mark.parametrize("n_features, n_rules", [(1, 30), (2, 100), (10, 100), (10, 5)])
def test_shifting_and_rescaling_the_inputs_changes_nothing(n_features, n_rules):
    X, y = smooth_data(300, n_features)
    model = RandomTSRegressor(n_rules=n_rules, random_state=0, structure="random").fit(X, y)
    moved = RandomTSRegressor(n_rules=n_rules, random_state=0, structure="random").fit(
        1000 * X + 300, y
    )
    assert moved.alpha_ == pytest.approx(model.alpha_, rel=1e-9)
    np.testing.assert_allclose(
        moved.predict(1000 * X + 300), model.predict(X), rtol=1e-6, atol=1e-9
    )


@pytest.mark.filterwarnings("error::randomts.exceptions.RandomTSWarning")
def test_inputs_far_from_the_origin_give_a_useful_model():
    X, y = smooth_data(400, 3, seed=1)
    X = 300 + 50 * X  # inputs in 250-350
    model = RandomTSRegressor(random_state=0, structure="random").fit(X[:300], y[:300])
    assert model.score(X[300:], y[300:]) > 0.95
    # the paper's setting, on the same raw inputs, fires no rule: an error, not a zero model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomTSWarning)  # 400 unknowns for 300 rows
        with pytest.raises(ValueError, match="No rule fires on any of the 300 rows"):
            RandomTSRegressor.paper(random_state=0).fit(X[:300], y[:300])


@pytest.mark.filterwarnings("error::randomts.exceptions.RandomTSWarning")
@pytest.mark.parametrize("n_features", [1, 3, 10])
def test_targets_far_from_zero_give_the_same_model_shifted(n_features):
    # a weighted sum reproduces the targets' mean only approximately: that error, times the
    # mean, stays below a thousandth of the targets' spread up to 1000 spreads away from 0
    X, y = smooth_data(300, n_features)
    spread = y.std()
    model = RandomTSRegressor(random_state=0, structure="random").fit(X, y)
    for offset in (1e2 * spread, -1e3 * spread):
        shifted = RandomTSRegressor(random_state=0, structure="random").fit(X, y + offset)
        assert shifted.alpha_ == pytest.approx(model.alpha_, rel=1e-9)
        difference = shifted.predict(X) - offset - model.predict(X)
        assert np.max(np.abs(difference)) < 1e-3 * spread


def test_targets_whose_mean_dwarfs_their_spread_warn():
    X, y = smooth_data(200, 2)
    with pytest.warns(RandomTSWarning, match=r"mean of the targets .* standard deviation"):
        RandomTSRegressor(random_state=0, structure="random").fit(X, y + 1e5 * y.std())
    with pytest.warns(RandomTSWarning, match=r"mean of output 1 "):
        RandomTSRegressor(random_state=0, structure="random").fit(
            X, np.column_stack([y, y + 1e5 * y.std()])
        )
    with pytest.warns(RandomTSWarning, match=r"mean of the targets"):  # from the first chunk
        RandomTSRegressor(random_state=0, structure="random").partial_fit(
            X[:100], y[:100] + 1e5 * y.std()
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RandomTSWarning)
        RandomTSRegressor(random_state=0, structure="random").fit(X, y + 1e3 * y.std())
        RandomTSRegressor(normalize=True, random_state=0, structure="random").fit(
            X, y + 1e5 * y.std()
        )
        RandomTSRegressor(random_state=0, structure="random").fit(
            X, np.full(200, 7.0)
        )  # constant: exact enough


@pytest.mark.filterwarnings("error::randomts.exceptions.RandomTSWarning")
def test_ten_inputs_fire_rules_and_fit():
    X, y = smooth_data(300, 10, seed=2)
    model = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(X, y)
    assert model.score(X, y) > 0.9
    strongest = model.rule_base_.firing_strengths(X).max(axis=1)
    assert np.median(strongest) > 0.1


def test_paper_is_the_paper_setting():
    model = RandomTSRegressor.paper(n_rules=7, random_state=3)
    params = model.get_params()
    assert params["standardize"] is False and params["centers"] == "normal"
    assert params["center_scale"] == PAPER_CENTER_SCALE and params["width_range"] == (0.0, 1.0)
    assert params["alpha"] == 0.0 and params["n_rules"] == 7
    X, y = smooth_data(100, 2)
    drawn = RuleBase.random(n_features=2, n_rules=7, random_state=3)
    fitted = model.fit(X, y).rule_base_
    np.testing.assert_array_equal(fitted.centers, drawn.centers)
    np.testing.assert_array_equal(fitted.sigmas, drawn.sigmas)
    # exact: the parameter is stored as given
    assert RandomTSRegressor.paper(normalize=True, alpha=1e-3).get_params()["alpha"] == 1e-3


def test_default_centres_are_training_rows():
    X, y = smooth_data(200, 3)
    centers = (
        RandomTSRegressor(n_rules=50, random_state=0, structure="random")
        .fit(X, y)
        .rule_base_.centers
    )
    distance = np.abs(centers[:, None, :] - X[None, :, :]).max(axis=2).min(axis=1)
    assert np.all(distance < 1e-12)
    assert len({tuple(c) for c in np.round(centers, 12)}) == 50  # distinct rows


def test_alpha_auto_is_the_leave_one_out_choice_and_helps_on_noisy_data():
    X, y = smooth_data(600, 2, seed=3, noise=0.3)
    fit, test = slice(0, 300), slice(300, None)
    # the rules evaluated wherever the test rows lie: the penalty's effect, not the lock's
    params = {"random_state": 0, "structure": "random", "lock_range": False}
    auto = RandomTSRegressor(**params).fit(X[fit], y[fit])
    assert auto.alpha_ > 0
    with pytest.warns(
        UnderdeterminedWarning, match="300 unknowns per output .100 rules. to 300 rows"
    ):
        exact = RandomTSRegressor(alpha=0.0, **params).fit(X[fit], y[fit])
    mse_auto = np.mean((auto.predict(X[test]) - y[test]) ** 2)
    mse_exact = np.mean((exact.predict(X[test]) - y[test]) ** 2)
    assert mse_auto < 0.15 and mse_exact > 5 * mse_auto  # measured 0.093 and 0.65


def test_underdetermined_warning_becomes_an_error_and_is_silent_otherwise():
    X, y = smooth_data(100, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnderdeterminedWarning)
        with pytest.raises(UnderdeterminedWarning, match="alpha='auto'"):
            RandomTSRegressor(n_rules=34, alpha=0.0, structure="random").fit(
                X, y
            )  # 102 unknowns, 100 rows
        RandomTSRegressor(n_rules=33, alpha=0.0, structure="random").fit(
            X, y
        )  # 99 unknowns: no warning
        RandomTSRegressor(n_rules=34, alpha=1e-6, structure="random").fit(X, y)
        RandomTSRegressor(n_rules=34, structure="random").fit(X, y)
        # partial_fit does not warn: the rows of later chunks may make up for it
        RandomTSRegressor(n_rules=34, alpha=0.0, structure="random").partial_fit(X[:50], y[:50])


@pytest.mark.parametrize("normalize", [False, True])
def test_extrapolation_warning_gives_the_fraction_of_rows(normalize):
    X, y = smooth_data(300, 2)
    model = RandomTSRegressor(
        n_rules=20, normalize=normalize, random_state=0, structure="random", lock_range=False
    ).fit(X, y)
    low, high = X.min(axis=0), X.max(axis=0)
    edge = high + 0.09 * (high - low)  # past the range, within the margin
    far = np.array([[50.0, 0.0], [0.0, -80.0], X.mean(axis=0), edge])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExtrapolationWarning)
        model.predict(X)  # the training rows themselves
        model.predict(far[2:])  # inside the box, and just outside it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.predict(far)
    messages = [str(w.message) for w in caught if w.category is ExtrapolationWarning]
    assert len(messages) == 2
    # the two far rows, named by input and distance, then as rows where no rule fires
    assert messages[0].startswith("2 of 4 rows (50%) given to predict lie beyond the training")
    assert "x1 up to" in messages[0] and "(row 0)" in messages[0]
    assert "x2 up to" in messages[0] and "below its training minimum" in messages[0]
    assert messages[1].startswith("2 of 4 rows (50%) given to predict lie where no rule fires")
    assert "where the model extrapolates" in messages[0]


@pytest.mark.parametrize("normalize", [False, True])
def test_a_range_locked_model_says_it_holds_the_inputs_and_checks_the_held_rows(normalize):
    X, y = smooth_data(300, 2)
    model = RandomTSRegressor(
        n_rules=20, normalize=normalize, random_state=0, structure="random"
    ).fit(X, y)
    assert model.rule_base_.lock_range  # the regressor's default
    far = np.array([[50.0, 0.0], [0.0, -80.0], X.mean(axis=0)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        predicted = model.predict(far)
    messages = [str(w.message) for w in caught if w.category is ExtrapolationWarning]
    # held at the edge of the box, the far rows lie where the rules fire: one warning
    assert len(messages) == 1
    assert messages[0].startswith("2 of 3 rows (66.7%) given to predict")
    assert "holds the input at the edge of its range (lock_range)" in messages[0]
    # they are predicted as their nearest points of the box are
    held = np.clip(far, X.min(axis=0), X.max(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        np.testing.assert_array_equal(predicted, model.predict(held))


@pytest.mark.parametrize("margin", [0.15, 0.5, 3.0])
def test_the_range_warning_says_how_far_out_each_input_is(margin):
    from randomts.core.ranges import EXTRAPOLATION_MARGIN

    X, y = smooth_data(200, 3)
    model = RandomTSRegressor(n_rules=10, random_state=0, structure="random").fit(X, y)
    low, high = X.min(axis=0), X.max(axis=0)
    row = X.mean(axis=0)
    row[2] = low[2] - margin * (high[2] - low[2])  # beyond the minimum of the third input
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.predict(np.vstack([X[:5], row]))
    message = str(caught[0].message)
    assert caught[0].category is ExtrapolationWarning
    assert message.startswith("1 of 6 rows (16.7%) given to predict lie beyond the training range")
    assert f"more than {100 * EXTRAPOLATION_MARGIN:g}% of its span" in message
    far = f"{100 * margin:.3g}% of its span" if margin < 1 else f"{margin:.3g} times its span"
    assert f"x3 up to {far} below its training minimum" in message
    assert "(row 5)" in message and "x1" not in message and "x2" not in message


def _loo_by_refitting(K, y, alpha, prior):
    errors = []
    for j in range(K.shape[0]):
        keep = np.arange(K.shape[0]) != j
        Kj, yj = K[keep], y[keep] - K[keep] @ prior
        gamma = prior + np.linalg.solve(Kj.T @ Kj + alpha * np.eye(K.shape[1]), Kj.T @ yj)
        errors.append((y[j] - K[j] @ gamma) ** 2)
    return np.mean(errors)


@pytest.mark.parametrize("n_samples, n_columns", [(40, 12), (15, 40)])
@pytest.mark.parametrize("toward_mean", [False, True])
def test_ridge_loo_equals_refitting_without_each_row(n_samples, n_columns, toward_mean):
    """Column space (K^T K) and row space (K K^T) against the definition of LOO."""
    rng = np.random.default_rng(n_columns)
    K = rng.normal(size=(n_samples, n_columns))
    y = 5.0 + K @ rng.normal(size=n_columns) + 0.3 * rng.normal(size=n_samples)
    alphas = [1e-2, 1e-1, 1.0, 10.0]
    selection = choose_alpha(K, y, alphas, toward_mean=toward_mean)
    if toward_mean:  # the prior: the constant fitted with a penalty of 1e-10 of the mean eigenvalue
        eps = 1e-10 * np.trace(K.T @ K) / n_columns
        # (K^T K + eps I)^-1 K^T = K^T (K K^T + eps I)^-1: solve in the smaller, regular space
        if n_samples >= n_columns:
            ones = np.linalg.solve(K.T @ K + eps * np.eye(n_columns), K.T @ np.ones(n_samples))
        else:
            ones = K.T @ np.linalg.solve(K @ K.T + eps * np.eye(n_samples), np.ones(n_samples))
        prior = ones * y.mean()
    else:
        prior = np.zeros(n_columns)
    expected = [_loo_by_refitting(K, y, a, prior) for a in alphas]
    np.testing.assert_allclose(selection.errors, expected, rtol=1e-6)
    best = alphas[int(np.argmin(expected))]
    assert selection.alpha == pytest.approx(best, rel=1e-12)  # a point of the grid
    gamma = prior + np.linalg.solve(K.T @ K + best * np.eye(n_columns), K.T @ (y - K @ prior))
    np.testing.assert_allclose(selection.coefficients[:, 0], gamma, rtol=1e-6, atol=1e-8)


def test_partial_fit_with_alpha_auto_takes_alpha_from_the_first_chunk():
    X, y = smooth_data(600, 3, noise=0.2)
    streamed = RandomTSRegressor(n_rules=30, random_state=0, structure="random")
    for rows in np.array_split(np.arange(600), 3):
        streamed.partial_fit(X[rows], y[rows])
    first = RandomTSRegressor(n_rules=30, random_state=0, structure="random").fit(X[:200], y[:200])
    # the same grid point; its value (the grid times the spectrum's mean) is computed in both
    assert streamed.alpha_ == pytest.approx(first.alpha_, rel=1e-12)
    assert streamed.score(X, y) > 0.95


def test_on_the_diabetes_data_the_defaults_are_as_good_as_ridge():
    """Real data (442 patients, 10 inputs in their own units): 3 random 75/25 splits."""
    X, y = load_diabetes(return_X_y=True, scaled=False)
    ratios = []
    for train, test in ShuffleSplit(3, test_size=0.25, random_state=0).split(X):
        ours = (
            RandomTSRegressor(random_state=0, structure="random")
            .fit(X[train], y[train])
            .predict(X[test])
        )
        ridge = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-3, 3, 13)))
        theirs = ridge.fit(X[train], y[train]).predict(X[test])
        ratios.append(np.sqrt(np.mean((ours - y[test]) ** 2) / np.mean((theirs - y[test]) ** 2)))
    assert np.mean(ratios) < 1.02, ratios
