"""Conformal prediction intervals and sets: coverage, the exact jackknife+, errors, persistence."""

import pickle

import numpy as np
import pytest
from scipy.stats import binom
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from randomts import RandomTSClassifier, RandomTSRegressor
from randomts.estimators.saving import fit_scaling
from randomts.fitting.conformal import conformal_rank, min_rows, ridge_loo_terms, split_quantile
from randomts.fitting.ridge import choose_consequent_alpha, design_of

COVERAGES = (0.8, 0.9, 0.95)


def _data(seed, n, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    # heteroscedastic noise: the marginal guarantee must hold anyway
    y = np.sin(2 * X[:, 0]) * X[:, 1] + noise * (1 + 0.5 * np.abs(X[:, 0])) * rng.normal(size=n)
    return X, y


def _binomial_band(coverage, n_test, n_seeds, low_coverage=None):
    """Bounds on the mean coverage over seeds: 4 standard deviations of a binomial proportion."""
    low_coverage = coverage if low_coverage is None else low_coverage
    count = n_test * n_seeds
    low = binom.ppf(3e-5, count, low_coverage) / count
    high = binom.ppf(1 - 3e-5, count, coverage) / count
    return low, high


# ---------------------------------------------------------------- the jackknife+, exactly
def _brute_force_bounds(model, X, y, X_new, coverage):
    """Jackknife+ by refitting the consequents without each row (antecedents, alpha, prior fixed)."""
    mean, scale = fit_scaling(model.rule_base_.metadata, X.shape[1])
    U, U_new = (X - mean) / scale, (X_new - mean) / scale
    antecedents = model.rule_base_.in_original_units(-mean / scale, 1.0 / scale)
    K, K_new = design_of(antecedents, U, model.order), design_of(antecedents, U_new, model.order)
    if model.alpha == "auto":  # shrunk toward the prior of the fit, held fixed
        selection = choose_consequent_alpha(antecedents, U, y, order=model.order)
        alpha, prior = selection.alpha, selection.prior[:, 0]
    else:
        alpha, prior = model.alpha, np.zeros(K.shape[1])
    n = len(y)
    loo_new, radius = np.empty((len(X_new), n)), np.empty(n)
    for j in range(n):
        keep = np.arange(n) != j
        # the ridge as least squares on [K; sqrt(alpha) I], by QR: no squared condition number
        Kj = np.vstack([K[keep], np.sqrt(alpha) * np.eye(K.shape[1])])
        yj = np.concatenate([y[keep] - K[keep] @ prior, np.zeros(K.shape[1])])
        gamma = prior + np.linalg.lstsq(Kj, yj, rcond=None)[0]
        loo_new[:, j] = K_new @ gamma
        radius[j] = abs(y[j] - K[j] @ gamma)
    k = int(np.ceil(coverage * (n + 1)))
    upper = np.sort(loo_new + radius, axis=1)[:, k - 1]
    lower = -np.sort(radius - loo_new, axis=1)[:, k - 1]
    return lower, upper, alpha


@pytest.mark.parametrize("alpha", ["auto", 0.05])
@pytest.mark.parametrize("order", [0, 1])
def test_jackknife_plus_equals_refitting_without_each_row(order, alpha):
    # a penalty that keeps K^T K + alpha I well conditioned, so that both sides are exact to 1e-8
    X, y = _data(0, 60, noise=1.0)
    X_new = _data(1, 15)[0]
    model = RandomTSRegressor(
        n_rules=6, order=order, alpha=alpha, random_state=0, structure="random"
    )
    model.fit_conformalize(X, y)
    for coverage in COVERAGES:
        lower, upper = model.predict_interval(X_new, coverage=coverage)
        expected_lower, expected_upper, alpha = _brute_force_bounds(model, X, y, X_new, coverage)
        assert model.alpha_ == pytest.approx(alpha, rel=1e-12)
        scale = np.max(np.abs(y))
        np.testing.assert_allclose(lower, expected_lower, rtol=1e-8, atol=1e-8 * scale)
        np.testing.assert_allclose(upper, expected_upper, rtol=1e-8, atol=1e-8 * scale)


@pytest.mark.parametrize("shape", [(40, 5), (8, 20)])  # more rows than columns, and fewer
def test_leave_one_out_terms_equal_refits(shape):
    rng = np.random.default_rng(0)
    K = rng.normal(size=shape)
    Y = rng.normal(size=(shape[0], 2))
    alpha = 0.3
    p = shape[1]
    gamma = np.linalg.solve(K.T @ K + alpha * np.eye(p), K.T @ Y)
    terms = ridge_loo_terms(K, Y - K @ gamma, alpha)
    shifts = terms.shifts(K)
    for j in range(shape[0]):
        keep = np.arange(shape[0]) != j
        refit = np.linalg.solve(K[keep].T @ K[keep] + alpha * np.eye(p), K[keep].T @ Y[keep])
        loo = K @ gamma - shifts[:, j, None] * terms.residuals[j]
        np.testing.assert_allclose(loo, K @ refit, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(terms.residuals[j], Y[j] - K[j] @ refit, rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------- coverage
@pytest.mark.parametrize("coverage", COVERAGES)
def test_jackknife_plus_coverage_over_seeds(coverage):
    n_test, seeds = 400, range(8)
    covered = []
    for seed in seeds:
        X, y = _data(seed, 200 + n_test)
        model = RandomTSRegressor(
            n_rules=15, random_state=seed, structure="random"
        ).fit_conformalize(X[:200], y[:200])
        lower, upper = model.predict_interval(X[200:], coverage=coverage)
        covered.append(np.mean((lower <= y[200:]) & (y[200:] <= upper)))
    low, high = _binomial_band(coverage, n_test, len(seeds))
    # the guarantee is 1 - 2 (1 - coverage); a ridge this stable sits near the nominal
    assert low - 0.02 <= np.mean(covered) <= high + 0.02


@pytest.mark.parametrize("coverage", COVERAGES)
def test_split_conformal_coverage_over_seeds(coverage):
    n_test, seeds = 400, range(8)
    covered = []
    for seed in seeds:
        X, y = _data(seed, 400 + n_test)
        model = RandomTSRegressor.paper(n_rules=10, alpha=1e-3, random_state=seed)
        for rows in np.array_split(np.arange(200), 4):
            model.partial_fit(X[rows], y[rows])
        model.conformalize(X[200:400], y[200:400])
        lower, upper = model.predict_interval(X[400:], coverage=coverage)
        covered.append(np.mean((lower <= y[400:]) & (y[400:] <= upper)))
    # split conformal: at least the nominal, and at most nominal + 1 / (n_cal + 1) on average
    low, high = _binomial_band(coverage + 1 / 201, n_test, len(seeds), low_coverage=coverage)
    assert low <= np.mean(covered) <= high


def test_classifier_sets_cover_over_seeds():
    n_test, coverage, covered, sizes = 400, 0.9, [], []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(600 + n_test, 2))
        y = np.digitize(X[:, 0] + 0.3 * X[:, 1] + 0.4 * rng.normal(size=len(X)), [-0.5, 0.5])
        clf = RandomTSClassifier(
            n_rules=15, random_state=seed, structure="random"
        ).fit_conformalize(X[:600], y[:600])
        sets = clf.predict_set(X[600:], coverage=coverage)
        covered.append(sets[np.arange(n_test), y[600:]].mean())
        sizes.append(sets.sum(axis=1).mean())
    low, high = _binomial_band(coverage, n_test, 6)
    assert low - 0.02 <= np.mean(covered) <= high + 0.02
    assert 1.0 <= np.mean(sizes) < 3.0  # informative: not every class


def test_classifier_split_sets_cover():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=3000) > 0, "b", "a")
    clf = RandomTSClassifier(n_rules=10, random_state=0, structure="random").fit(X[:1000], y[:1000])
    clf.conformalize(X[1000:2000], y[1000:2000])
    sets = clf.predict_set(X[2000:], coverage=0.9)
    covered = sets[np.arange(1000), np.searchsorted(clf.classes_, y[2000:])].mean()
    low, high = _binomial_band(0.9 + 1 / 1001, 1000, 1, low_coverage=0.9)
    assert low <= covered <= high


# ---------------------------------------------------------------- shapes and options
def test_shapes_follow_predict():
    X, y = _data(0, 120)
    one = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit_conformalize(X, y)
    lower, upper = one.predict_interval(X[:7])
    assert lower.shape == upper.shape == one.predict(X[:7]).shape == (7,)
    assert np.all(lower <= upper)
    Y = np.column_stack([y, 3 * y + 1])
    two = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit_conformalize(X, Y)
    lower, upper = two.predict_interval(X[:7])
    assert lower.shape == upper.shape == (7, 2)
    # each output's interval is that of its own fit: the second, 3y + 1, is three times wider
    width = upper - lower
    np.testing.assert_allclose(width[:, 1], 3 * width[:, 0], rtol=0.2)
    split = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(X[:60], Y[:60])
    lower, upper = split.conformalize(X[60:], Y[60:]).predict_interval(X[:7])
    assert lower.shape == (7, 2)
    np.testing.assert_allclose(upper - lower, np.broadcast_to((upper - lower)[0], (7, 2)))


def test_wider_at_higher_coverage_and_around_the_prediction():
    X, y = _data(2, 200)
    model = RandomTSRegressor(n_rules=10, random_state=0, structure="random").fit_conformalize(X, y)
    widths = [np.mean(np.subtract(*model.predict_interval(X[:50], c)[::-1])) for c in COVERAGES]
    assert widths[0] < widths[1] < widths[2]
    lower, upper = model.predict_interval(X[:50], 0.9)
    prediction = model.predict(X[:50])
    assert np.all(lower <= prediction) and np.all(prediction <= upper)


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.1},
        {"alpha": 0.0, "n_rules": 5},
        {"standardize": False},
        {"normalize": True},
        {"refine": 3},
        {"centers": "kmeans"},
    ],
)
def test_settings_give_finite_ordered_bounds(params):
    X, y = _data(3, 150)
    model = RandomTSRegressor(**{"n_rules": 8, "random_state": 0, **params}, structure="random")
    lower, upper = model.fit_conformalize(X, y).predict_interval(X[:20], coverage=0.9)
    assert np.all(np.isfinite(lower)) and np.all(lower < upper)


def test_dataframe_inputs_and_explain_state_the_interval():
    pd = pytest.importorskip("pandas")
    X, y = _data(4, 150)
    frame = pd.DataFrame(X, columns=["speed", "load"])
    model = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit_conformalize(
        frame, y
    )
    lower, upper = model.predict_interval(frame.iloc[:3])
    explanation = model.explain(frame.iloc[[0]], top=2, coverage=0.8)
    low80, high80 = model.predict_interval(frame.iloc[:1], coverage=0.8)
    np.testing.assert_allclose(explanation.interval[0], low80, rtol=1e-12)
    np.testing.assert_allclose(explanation.interval[1], high80, rtol=1e-12)
    first = explanation.to_text().splitlines()[0]
    assert "80% interval [" in first and "(jackknife+)" in first
    plain = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(frame, y)
    assert plain.explain(frame.iloc[[0]]).interval is None


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("coverage", [0.0, 1.0, -0.1, 1.5, "0.9", None, True])
def test_coverage_outside_the_open_unit_interval(coverage):
    X, y = _data(0, 60)
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit_conformalize(X, y)
    with pytest.raises(ValueError, match="The 'coverage' parameter of predict_interval must be"):
        model.predict_interval(X[:2], coverage=coverage)
    clf = RandomTSClassifier(n_rules=3, random_state=0, structure="random").fit_conformalize(
        X, y > 0
    )
    with pytest.raises(ValueError, match="The 'coverage' parameter of predict_set must be"):
        clf.predict_set(X[:2], coverage=coverage)


def test_too_few_rows_for_the_coverage():
    X, y = _data(0, 60)
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit(X[:40], y[:40])
    model.conformalize(X[40:50], y[40:50])
    assert model.predict_interval(X[:2], coverage=0.9)[0].shape == (2,)  # 9 rows suffice
    with pytest.raises(ValueError, match="needs at least 19 calibration rows .* got 10"):
        model.predict_interval(X[:2], coverage=0.95)
    small = RandomTSRegressor(n_rules=2, random_state=0, structure="random").fit_conformalize(
        X[:12], y[:12]
    )
    with pytest.raises(ValueError, match="needs at least 19 training rows .* got 12"):
        small.predict_interval(X[:2], coverage=0.95)
    assert min_rows(0.95) == 19 and conformal_rank(19, 0.95) == 19


def test_intervals_need_scores_of_the_current_fit():
    X, y = _data(0, 80)
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit(X, y)
    with pytest.raises(NotFittedError, match="no conformity scores for predict_interval.*"):
        model.predict_interval(X[:2])
    model.fit_conformalize(X, y)
    model.fit(X[:50], y[:50])  # the rules changed: the leave-one-out terms are stale
    with pytest.raises(NotFittedError, match="belong to other rules.*fit_conformalize"):
        model.predict_interval(X[:2])
    model.conformalize(X[50:], y[50:])
    model.predict_interval(X[:2])
    pruned = model.prune(2, X, y)
    with pytest.raises(NotFittedError, match="belong to other rules"):
        pruned.predict_interval(X[:2])
    with pytest.raises(NotFittedError):
        RandomTSRegressor(structure="random").predict_interval(X[:2])
    clf = RandomTSClassifier(n_rules=3, random_state=0, structure="random").fit(X, y > 0)
    with pytest.raises(NotFittedError, match="no conformity scores for predict_set"):
        clf.predict_set(X[:2])


def test_settings_without_a_leave_one_out():
    X, y = _data(0, 30)
    with pytest.raises(ValueError, match="The 'alpha' parameter of RandomTSRegressor must be"):
        RandomTSRegressor(n_rules=20, alpha=0.0, structure="random").fit_conformalize(X, y)
    with pytest.raises(ValueError, match="The 'alpha' parameter of RandomTSClassifier must be"):
        RandomTSClassifier(n_rules=20, alpha=0.0, structure="random").fit_conformalize(X, y > 0)
    with pytest.raises(ValueError, match="leverage is 1"):
        ridge_loo_terms(np.eye(4), np.zeros(4), 0.0)


def test_calibration_rows_must_match_the_fit():
    X, y = _data(0, 80)
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit(X, y)
    with pytest.raises(ValueError, match="y has 2 outputs, but RandomTSRegressor is expecting 1"):
        model.conformalize(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="X has 1 features"):
        model.conformalize(X[:, :1], y)
    clf = RandomTSClassifier(n_rules=3, random_state=0, structure="random").fit(
        X, np.where(y > 0, "a", "b")
    )
    with pytest.raises(
        ValueError, match=r"labels that RandomTSClassifier was not fitted to: \['c'\]"
    ):
        clf.conformalize(X[:3], ["a", "c", "b"])


# ---------------------------------------------------------------- persistence and scikit-learn
def test_pickle_keeps_the_intervals_and_clone_drops_them():
    X, y = _data(0, 100)
    model = RandomTSRegressor(n_rules=4, random_state=0, structure="random").fit_conformalize(X, y)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict_interval(X[:5]), model.predict_interval(X[:5]))
    fresh = clone(model)
    assert not hasattr(fresh, "_conformity")
    with pytest.raises(NotFittedError):
        fresh.fit(X, y).predict_interval(X[:2])
    clf = RandomTSClassifier(n_rules=4, random_state=0, structure="random").fit_conformalize(
        X, y > 0
    )
    clf_copy = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf_copy.predict_set(X[:5]), clf.predict_set(X[:5]))


def test_save_keeps_split_scores(tmp_path):
    from randomts import load, save

    X, y = _data(0, 120)
    model = RandomTSRegressor(n_rules=4, random_state=0, structure="random").fit(X[:60], y[:60])
    model.conformalize(X[60:], y[60:])
    for name in ("model.json", "model.txt"):
        save(model, tmp_path / name)
        loaded = load(tmp_path / name)
        np.testing.assert_allclose(
            loaded.predict_interval(X[:5]), model.predict_interval(X[:5]), rtol=1e-12
        )
    jackknife = RandomTSRegressor(n_rules=4, random_state=0, structure="random").fit_conformalize(
        X, y
    )
    save(jackknife, tmp_path / "jackknife.json")
    with pytest.raises(NotFittedError, match="no conformity scores"):
        load(tmp_path / "jackknife.json").predict_interval(X[:2])


def test_split_quantile_is_the_conformal_order_statistic():
    scores = np.random.default_rng(0).permutation(np.arange(1.0, 100.0))
    assert split_quantile(scores, 0.9)[0] == 90.0  # ceil(0.9 * 100) = 90th smallest of 99
    assert split_quantile(scores, 0.5)[0] == 50.0


# ---------------------------------------------------------------- the command line
def _run(capsys, *argv):
    from randomts.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_cli_predict_writes_the_bounds(tmp_path, capsys):
    from randomts import save
    from randomts.io.csv_data import read_csv, write_csv

    X, y = _data(0, 300)
    write_csv(tmp_path / "train.csv", ["a", "b", "target"], np.column_stack([X, y])[:150])
    write_csv(tmp_path / "cal.csv", ["a", "b", "target"], np.column_stack([X, y])[150:250])
    write_csv(tmp_path / "new.csv", ["a", "b"], X[250:])
    code, _, err = _run(
        capsys, "fit", tmp_path / "train.csv", "--target", "target", "--rules", 8, "--cv", 0,
        "-o", tmp_path / "model.json",
    )  # fmt: skip
    assert code == 0, err
    code, out, err = _run(
        capsys, "predict", tmp_path / "model.json", tmp_path / "new.csv",
        "--interval", 0.9, "--calibration", tmp_path / "cal.csv", "-o", tmp_path / "out.csv",
    )  # fmt: skip
    assert code == 0, err
    header, values = read_csv(tmp_path / "out.csv")
    assert header == ["predicted(target)", "lower(target)", "upper(target)"]
    model = randomts_load(tmp_path / "model.json")
    model.conformalize(X[150:250], y[150:250])
    lower, upper = model.predict_interval(X[250:], coverage=0.9)
    np.testing.assert_allclose(values[:, 1], lower, rtol=1e-12)
    np.testing.assert_allclose(values[:, 2], upper, rtol=1e-12)
    # a model saved with its calibration needs no --calibration
    save(model, tmp_path / "calibrated.json")
    code, out, _ = _run(capsys, "predict", tmp_path / "calibrated.json", tmp_path / "new.csv",
                        "--interval", 0.9)  # fmt: skip
    assert code == 0 and out.splitlines()[0] == "predicted(target),lower(target),upper(target)"
    # errors: no scores, a coverage out of range, --calibration alone
    code, _, err = _run(capsys, "predict", tmp_path / "model.json", tmp_path / "new.csv",
                        "--interval", 0.9)  # fmt: skip
    assert code == 1 and "--interval needs calibration scores" in err
    code, _, err = _run(capsys, "predict", tmp_path / "model.json", tmp_path / "new.csv",
                        "--interval", 90)  # fmt: skip
    assert code == 2 and "expected a coverage in the open interval (0, 1)" in err
    code, _, err = _run(capsys, "predict", tmp_path / "model.json", tmp_path / "new.csv",
                        "--calibration", tmp_path / "cal.csv")  # fmt: skip
    assert code == 1 and "give both" in err


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.filterwarnings("ignore::randomts.exceptions.ExtrapolationWarning")
def test_cli_predict_writes_the_sets_of_a_classifier(tmp_path, capsys):
    from randomts.io.csv_data import write_csv

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    labels = np.where(X[:, 0] + 0.5 * rng.normal(size=300) > 0, 1.0, 0.0)
    write_csv(tmp_path / "train.csv", ["a", "b", "kind"], np.column_stack([X, labels])[:150])
    write_csv(tmp_path / "cal.csv", ["a", "b", "kind"], np.column_stack([X, labels])[150:250])
    write_csv(tmp_path / "new.csv", ["a", "b"], X[250:])
    code, _, err = _run(
        capsys, "fit", tmp_path / "train.csv", "--target", "kind", "--task", "classify",
        "--rules", 8, "--cv", 0, "-o", tmp_path / "model.json",
    )  # fmt: skip
    assert code == 0, err
    code, out, err = _run(
        capsys, "predict", tmp_path / "model.json", tmp_path / "new.csv",
        "--interval", 0.8, "--calibration", tmp_path / "cal.csv",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "predicted(kind),set(kind)" and len(lines) == 51
    model = randomts_load(tmp_path / "model.json")
    sets = model.conformalize(X[150:250], labels[150:250]).predict_set(X[250:], coverage=0.8)
    expected = ["|".join(str(c) for c in model.classes_[row]) for row in sets]
    assert [line.split(",")[1] for line in lines[1:]] == expected


def randomts_load(path):
    from randomts import load

    return load(path)


def test_plot_interval_draws_the_band():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from randomts.plotting import plot_interval

    X, y = _data(0, 200)
    model = RandomTSRegressor(n_rules=6, random_state=0, structure="random").fit_conformalize(
        X[:100], y[:100]
    )
    ax = plot_interval(model, X[100:], y[100:], coverage=0.8)  # along the rows
    assert ax.get_xlabel() == "row" and ax.collections[0].get_label() == "80% interval (jackknife+)"
    ax = plot_interval(model, X[100:], feature="x2")
    assert ax.get_xlabel() == "x2" and len(ax.collections) == 1
    with pytest.raises(TypeError, match="plot_interval needs a fitted estimator"):
        plot_interval(model.rule_base_, X)
