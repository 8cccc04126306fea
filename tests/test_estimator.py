import itertools

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from randomts import RandomTSRegressor, RuleBase

SETTINGS = [
    RandomTSRegressor(structure="random"),  # the defaults: rules grown where the data need them
    RandomTSRegressor(n_rules=3, random_state=0, structure="random"),
    RandomTSRegressor(structure="random"),
    RandomTSRegressor(order=0, normalize=True, random_state=0, structure="random"),
    *(
        RandomTSRegressor(
            n_rules=n_rules, order=order, normalize=normalize, random_state=0, structure="random"
        )
        for n_rules, order, normalize in itertools.product((1, 5, 20), (0, 1), (False, True))
    ),
]


@parametrize_with_checks(SETTINGS)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


def sine_data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    return X, np.sin(X[:, 0]) * np.cos(X[:, 1])


def test_same_seed_gives_the_same_model_bit_for_bit():
    X, y = sine_data()
    first = RandomTSRegressor(n_rules=30, random_state=3, structure="random").fit(X, y)
    second = RandomTSRegressor(n_rules=30, random_state=3, structure="random").fit(X, y)
    assert first.rule_base_ == second.rule_base_
    np.testing.assert_array_equal(first.predict(X), second.predict(X))
    third = RandomTSRegressor(n_rules=30, random_state=4, structure="random").fit(X, y)
    assert third.rule_base_ != first.rule_base_


def test_fit_is_the_rule_base_fit_of_the_drawn_antecedents():
    X, y = sine_data()
    model = RandomTSRegressor.paper(n_rules=25, random_state=5).fit(X, y)
    antecedents = RuleBase.random(n_features=2, n_rules=25, random_state=5)
    np.testing.assert_array_equal(model.rule_base_.centers, antecedents.centers)
    np.testing.assert_array_equal(model.rule_base_.sigmas, antecedents.sigmas)
    expected = antecedents.fit_consequents(X, y)
    np.testing.assert_array_equal(model.rule_base_.coef, expected.coef)


@pytest.mark.parametrize("seed", range(5))
def test_order_zero_is_an_elm_with_rbf_nodes(seed):
    X, y = sine_data(seed)
    model = RandomTSRegressor.paper(n_rules=60, order=0, solver="pinv", random_state=seed).fit(X, y)
    a, b, alpha, beta = model.rule_base_.to_slm()
    assert not alpha.any()
    G = np.exp(-b * ((X[:, None, :] - a[None]) ** 2).sum(axis=2))
    elm_weights = np.linalg.pinv(G) @ y
    # same minimisation, independent SVD: predictions agree to the conditioning of G
    tolerance = 1e3 * np.linalg.cond(G) * np.finfo(float).eps * np.abs(y).max()
    assert np.max(np.abs(model.predict(X) - G @ elm_weights)) < max(tolerance, 1e-10)


@pytest.mark.parametrize("seed", range(6))
def test_lemma_3_full_rank_and_theorem_2_zero_training_error(seed):
    """N distinct samples, full-rank Z: rank K = min(N, h(n+1)); h(n+1) >= N interpolates."""
    rng = np.random.default_rng(seed)
    N, n = 30, 2
    X = rng.uniform(-2, 2, size=(N, n))
    Y = rng.normal(size=(N, 2))  # arbitrary targets
    assert np.linalg.matrix_rank(np.hstack([X, np.ones((N, 1))])) == n + 1
    for h in (4, 10, 15):
        antecedents = RuleBase.random(n_features=n, n_outputs=2, n_rules=h, random_state=seed)
        K = antecedents.design_matrix(X)
        assert np.linalg.matrix_rank(K) == min(N, h * (n + 1))
        if h * (n + 1) >= N:
            fitted = antecedents.fit_consequents(X, Y)
            residual = np.max(np.abs(fitted.predict(X) - Y))
            # backward-stable solve: residual <= c * cond(K) * eps * |Y|
            bound = 100 * np.linalg.cond(K) * np.finfo(float).eps * np.abs(Y).max()
            assert residual <= bound, (h, residual, bound)
            assert residual < 1e-6


@pytest.mark.parametrize("seed", range(5))
def test_standardised_fit_gives_an_equivalent_rule_base_in_original_units(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=[100.0, -5.0], scale=[20.0, 0.01], size=(400, 2))
    y = np.sin((X[:, 0] - 100) / 20) + (X[:, 1] + 5) * 50
    model = RandomTSRegressor.paper(n_rules=20, standardize=True, random_state=seed).fit(X, y)
    meta = model.rule_base_.metadata
    mean, scale = np.array(meta["input_mean"]), np.array(meta["input_scale"])
    internal = RuleBase.random(n_features=2, n_rules=20, random_state=seed).fit_consequents(
        (X - mean) / scale, y
    )
    terms = np.abs(internal.contributions((X - mean) / scale)).sum(axis=1)[:, 0]
    diff = model.predict(X) - internal.predict((X - mean) / scale)[:, 0]
    assert np.all(np.abs(diff) <= 1e-12 * terms + 1e-300)
    np.testing.assert_allclose(
        model.rule_base_.centers, internal.centers * scale + mean, rtol=1e-15
    )
    assert model.score(X, y) > 0.99


def test_multi_output_and_output_shapes():
    X, y = sine_data()
    Y = np.column_stack([y, -2 * y])
    model = RandomTSRegressor(n_rules=20, random_state=0, structure="random").fit(X, Y)
    assert model.predict(X).shape == (300, 2) and model.n_outputs_ == 2
    single = RandomTSRegressor(n_rules=20, random_state=0, structure="random").fit(X, y)
    assert single.predict(X).shape == (300,)
    # one alpha for both outputs: the second's LOO curve is 4 times the first's, same argmin;
    # the two solves differ only by the rounding of the eigen route (|y| <= 1)
    assert model.alpha_ == pytest.approx(single.alpha_, rel=1e-12)
    np.testing.assert_allclose(model.predict(X)[:, 0], single.predict(X), rtol=0, atol=1e-9)


def test_dataframe_names_become_rule_names():
    pd = pytest.importorskip("pandas")
    X, y = sine_data()
    frame = pd.DataFrame(X, columns=["speed", "angle"])
    target = pd.Series(y, name="torque")
    model = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(frame, target)
    assert model.rule_base_.input_names == ("speed", "angle")
    assert model.rule_base_.output_names == ("torque",)
    assert list(model.feature_names_in_) == ["speed", "angle"]
    assert "IF speed is about " in str(model.rule_base_) and "AND angle is about " in str(
        model.rule_base_
    )


def test_pipeline_and_grid_search():
    X, y = sine_data(1, n=200)
    pipe = make_pipeline(MinMaxScaler(), RandomTSRegressor(random_state=0, structure="random"))
    search = GridSearchCV(
        pipe, {"randomtsregressor__n_rules": [3, 15], "randomtsregressor__alpha": [0.0, 1e-6]}, cv=3
    )
    search.fit(X, y)
    assert search.best_params_["randomtsregressor__n_rules"] == 15
    assert search.score(X, y) > 0.99


@pytest.mark.parametrize(
    "centers, extra",
    [
        ("uniform", {"center_bounds": (-2.0, 2.0), "standardize": False}),
        ("data", {}),
        ("samples", {}),
    ],
)
def test_centre_distributions(centers, extra):
    X, y = sine_data()
    model = RandomTSRegressor(
        n_rules=40, centers=centers, random_state=0, **extra, structure="random"
    ).fit(X, y)
    c = model.rule_base_.centers
    assert c.min() >= X.min() - 1e-12 and c.max() <= X.max() + 1e-12
    assert model.score(X, y) > 0.999


@pytest.mark.parametrize(
    "params, error, message",
    [
        (
            {"n_rules": 0},
            ValueError,
            r"The 'n_rules' parameter of RandomTSRegressor must be an int in the range \[1, inf\). Got 0 instead.",
        ),
        (
            {"n_rules": 2.5},
            TypeError,
            r"The 'n_rules' parameter of RandomTSRegressor must be an int in the range \[1, inf\). Got 2.5 \(float\) instead.",
        ),
        (
            {"order": 2},
            ValueError,
            r"The 'order' parameter of RandomTSRegressor must be an int among \[0, 1\]. Got 2 instead.",
        ),
        (
            {"solver": "qr"},
            ValueError,
            r"The 'solver' parameter of RandomTSRegressor must be a str among \{'lstsq', 'pinv', 'cholesky'\}. Got 'qr' instead.",
        ),
        (
            {"alpha": -1.0},
            ValueError,
            r"The 'alpha' parameter of RandomTSRegressor must be a finite real number in the range \[0.0, inf\). Got -1.0 instead.",
        ),
        (
            {"normalize": "yes"},
            TypeError,
            "The 'normalize' parameter of RandomTSRegressor must be a bool or None. Got 'yes' instead.",
        ),
        (
            {"centers": "data2"},
            ValueError,
            r"The 'centers' parameter of RandomTSRegressor must be a str among \{'samples', 'normal', 'uniform', 'data', 'kmeans'\}",
        ),
        (
            {"alpha": "best"},
            ValueError,
            "The 'alpha' parameter of RandomTSRegressor must be 'auto' or a float >= 0. Got 'best' instead.",
        ),
        (
            {"n_jobs": 0},
            ValueError,
            r"The 'n_jobs' parameter of RandomTSRegressor must be None, a positive int or a negative int \(-1: all CPUs\). Got 0 instead.",
        ),
        (
            {"centers": "uniform"},
            ValueError,
            "The 'center_bounds' parameter of RandomTSRegressor is required when centers='uniform'",
        ),
        (
            {"center_scale": 0.0},
            ValueError,
            r"The 'center_scale' parameter of RandomTSRegressor must be a finite real number in the range \(0.0, inf\)",
        ),
        (
            {"width_range": (0.0, 0.0)},
            ValueError,
            "The 'width_range' parameter of RandomTSRegressor must be a pair",
        ),
        (
            {"width_factor": 1.5},
            ValueError,
            r"The 'width_factor' parameter of RandomTSRegressor must be 'auto' or a float in the range \(0.0, 1.0\] \(no wider than its box\). Got 1.5 instead.",
        ),
        (
            {"width_factor": 0.25},
            ValueError,
            r"The 'width_factor' parameter of RandomTSRegressor sizes grown rules; random rules draw their widths \(width_range\). Got width_factor=0.25: leave it 'auto', or use structure='grown'.",
        ),
        ({"random_state": "x"}, TypeError, "The 'random_state' parameter must be None, an int"),
    ],
)
def test_bad_parameters(params, error, message):
    X, y = sine_data(n=20)
    with pytest.raises(error, match=message):
        RandomTSRegressor(**params, structure="random").fit(X, y)


@pytest.mark.parametrize(
    "X, y, error, message",
    [
        ([[1.0, np.nan]], [1.0], ValueError, r"column 1 \(x2\) of X of .* NaN in 1 row \(row 0\)"),
        ([[1.0, 2.0]], [np.inf], ValueError, r"y of RandomTSRegressor holds infinity in 1 row"),
        (np.zeros((0, 2)), np.zeros(0), ValueError, "0 sample"),
        ([["a", "b"]], [1.0], ValueError, r"column 0 \(x1\) of X of RandomTSRegressor must hold"),
        ([[1.0, 2.0], [3.0, 4.0]], [1.0], ValueError, "inconsistent numbers of samples"),
    ],
)
def test_bad_training_data(X, y, error, message):
    with pytest.raises(error, match=message):
        RandomTSRegressor(n_rules=2, structure="random").fit(X, y)


def test_wrong_feature_count_at_predict():
    X, y = sine_data(n=50)
    model = RandomTSRegressor(n_rules=3, structure="random").fit(X, y)
    with pytest.raises(
        ValueError,
        match="X has 3 features, but RandomTSRegressor is expecting 2 features as input.",
    ):
        model.predict(np.zeros((2, 3)))


@pytest.mark.parametrize("solver, bound", [("lstsq", 1e-20), ("pinv", 1e-9), ("cholesky", 1e-6)])
def test_van_der_pol_training_mse(van_der_pol_data, solver, bound):
    """The paper's setting: 10 trajectories x 1000 steps, 100 rules, a ~ N(0, 2), b ~ U(0, 1)."""
    X, Y = van_der_pol_data
    mse = []
    for seed in range(3):
        model = RandomTSRegressor.paper(
            n_rules=100,
            solver=solver,
            alpha=1e-12 if solver == "cholesky" else 0.0,
            random_state=seed,
        )
        mse.append(np.mean((model.fit(X, Y).predict(X) - Y) ** 2))
    assert max(mse) <= bound, mse


def test_array_api_dispatch_with_numpy_inputs():
    """scikit-learn gates its array-API check behind SCIPY_ARRAY_API=1, which must be set before
    SciPy is imported (so the in-process check above is skipped): run it in a fresh interpreter.

    The check is called by name: which checks ``check_estimator`` yields for an estimator
    depends on the scikit-learn version."""
    import os
    import subprocess
    import sys

    code = (
        "import unittest\n"
        "from sklearn.utils.estimator_checks import check_array_api_input\n"
        "from randomts import RandomTSRegressor\n"
        "try:\n"
        "    check_array_api_input('RandomTSRegressor', RandomTSRegressor(random_state=0), 'numpy')\n"
        "except unittest.SkipTest as reason:  # scikit-learn < 1.7 without array-api-compat\n"
        "    print('skipped by scikit-learn:', reason)\n"
        "else:\n"
        "    print('array api check passed')\n"
    )
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    if done.stdout.startswith("skipped by scikit-learn:"):
        pytest.skip(done.stdout.strip())
    assert "array api check passed" in done.stdout


def test_rule_base_records_the_training_ranges():
    X, y = sine_data(n=100)
    Y = np.column_stack([y, 3 * y])
    model = RandomTSRegressor(n_rules=4, random_state=0, structure="random").fit(X, Y)
    rule_base = model.rule_base_
    np.testing.assert_array_equal(rule_base.input_range, np.column_stack([X.min(0), X.max(0)]))
    np.testing.assert_array_equal(rule_base.output_range, np.column_stack([Y.min(0), Y.max(0)]))
    assert "input_range" not in rule_base.metadata  # one place: the attributes
    streamed = RandomTSRegressor(n_rules=4, random_state=0, structure="random")
    for rows in np.array_split(np.arange(100), 3):
        streamed.partial_fit(X[rows], Y[rows])
    np.testing.assert_array_equal(streamed.rule_base_.input_range, rule_base.input_range)
    np.testing.assert_array_equal(streamed.rule_base_.output_range, rule_base.output_range)
    standardized = RandomTSRegressor(
        n_rules=4, standardize=True, random_state=0, structure="random"
    ).fit(X, Y)
    np.testing.assert_array_equal(standardized.rule_base_.input_range, rule_base.input_range)


def test_the_fit_is_the_same_whatever_the_layout_of_its_data():
    """A Fortran-ordered array or a DataFrame's columns fit the model of a C-ordered array.

    The checked inputs are C-ordered copies of the same numbers, so the fits
    run the same operations on the same arrays: equal by construction.
    """
    pandas = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(60, 3))
    Y = np.column_stack([np.sin(X[:, 0]) * X[:, 1], X[:, 2] ** 2])
    models = [
        RandomTSRegressor(n_rules=6, random_state=0).fit(data, targets)
        for data, targets in [
            (X, Y),
            (np.asfortranarray(X), np.asfortranarray(Y)),
            (pandas.DataFrame(X, columns=["a", "b", "c"]), pandas.DataFrame(Y)),
        ]
    ]
    for model in models[1:]:
        np.testing.assert_array_equal(model.rule_base_.coef, models[0].rule_base_.coef)  # exact
        np.testing.assert_array_equal(model.predict(X), models[0].predict(X))  # exact
