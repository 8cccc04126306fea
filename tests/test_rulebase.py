import numpy as np
import pytest
from skfuzzy.membership import gaussmf
from slm_helpers import slm_closed_form, slm_parameters

from randomts import RuleBase

SEEDS = range(10)


def ts_inference_with_skfuzzy(X, rule_base, normalize):
    """Takagi-Sugeno inference written from its definition with scikit-fuzzy's gaussmf."""
    n_samples = X.shape[0]
    strengths = np.ones((n_samples, rule_base.n_rules))
    for i, rule in enumerate(rule_base):
        for k in range(rule_base.n_features):
            strengths[:, i] *= gaussmf(X[:, k], rule.center[k], rule.sigma[k])
    consequents = np.stack([X @ rule.coef.T + rule.intercept for rule in rule_base], axis=1)
    weighted = np.einsum("ji,jim->jm", strengths, consequents)
    if normalize:
        weighted /= strengths.sum(axis=1, keepdims=True)
    return weighted


@pytest.mark.parametrize("seed", SEEDS)
def test_ts_inference_equals_the_slm_closed_form(seed):
    a, b, alpha, beta = slm_parameters(seed)
    X = np.random.default_rng(seed + 100).normal(0.0, 1.5, size=(200, 3))
    expected, scale = slm_closed_form(X, a, b, alpha, beta)
    rule_base = RuleBase.from_slm(a, b, alpha, beta)
    for predicted in (rule_base.predict(X), ts_inference_with_skfuzzy(X, rule_base, False)):
        assert np.all(np.abs(predicted - expected) <= 1e-12 * scale)


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_average_equals_its_closed_form(seed):
    a, b, alpha, beta = slm_parameters(seed)
    X = np.random.default_rng(seed + 100).normal(0.0, 1.5, size=(200, 3))
    g = np.exp(-np.sum(b[None, :, None] * (X[:, None, :] - a[None]) ** 2, axis=2))
    consequents = np.einsum("imk,jk->jim", alpha, X) + beta
    expected = np.einsum("ji,jim->jm", g, consequents) / g.sum(axis=1, keepdims=True)
    scale = np.einsum("ji,jim->jm", g, np.abs(consequents)) / g.sum(axis=1, keepdims=True)
    rule_base = RuleBase.from_slm(a, b, alpha, beta, normalize=True)
    for predicted in (rule_base.predict(X), ts_inference_with_skfuzzy(X, rule_base, True)):
        assert np.all(np.abs(predicted - expected) <= 1e-12 * scale)


def test_from_slm_and_to_slm_round_trip():
    a, b, alpha, beta = slm_parameters(0)
    a2, b2, alpha2, beta2 = RuleBase.from_slm(a, b, alpha, beta).to_slm()
    np.testing.assert_array_equal(a2, a)
    np.testing.assert_allclose(b2, b, rtol=4e-16)
    np.testing.assert_array_equal(alpha2, alpha)
    np.testing.assert_array_equal(beta2, beta)


def test_to_slm_refuses_per_input_widths():
    rule_base = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 2.0]])
    with pytest.raises(ValueError, match="per-input widths"):
        rule_base.to_slm()


def test_random_draws_the_papers_distributions():
    rule_base = RuleBase.random(n_features=2, n_rules=20000, random_state=0)
    a, b, _, _ = rule_base.to_slm()
    # N(0, 2): mean within 5 standard errors, variance within 5 standard errors
    assert abs(a.mean()) < 5 * np.sqrt(2.0 / a.size)
    assert abs(a.var() - 2.0) < 5 * 2.0 * np.sqrt(2.0 / a.size)
    # U(0, 1]
    assert 0.0 < b.min() and b.max() <= 1.0
    assert abs(b.mean() - 0.5) < 5 * np.sqrt(1 / 12 / b.size)
    assert rule_base.order == 0 and not rule_base.intercept.any()


def test_same_seed_same_rule_base_bit_for_bit():
    first = RuleBase.random(n_features=3, n_outputs=2, n_rules=50, random_state=7)
    second = RuleBase.random(n_features=3, n_outputs=2, n_rules=50, random_state=7)
    assert first == second
    assert first != RuleBase.random(n_features=3, n_outputs=2, n_rules=50, random_state=8)


def test_uniform_centres_in_the_box():
    rule_base = RuleBase.random(
        n_features=2,
        n_rules=500,
        centers="uniform",
        center_bounds=([0, 10], [1, 20]),
        random_state=0,
    )
    c = rule_base.centers
    assert c[:, 0].min() >= 0 and c[:, 0].max() < 1 and c[:, 1].min() >= 10 and c[:, 1].max() < 20


def test_rules_iterate_and_index():
    a, b, alpha, beta = slm_parameters(1, n_rules=4)
    rule_base = RuleBase.from_slm(a, b, alpha, beta)
    rules = list(rule_base)
    assert len(rules) == len(rule_base) == 4
    assert [r.index for r in rules] == [0, 1, 2, 3]
    np.testing.assert_array_equal(rule_base[-1].coef, alpha[3])
    with pytest.raises(IndexError, match="out of range"):
        rule_base[4]
    assert not rule_base.centers.flags.writeable


def test_subset_keeps_the_chosen_rules():
    a, b, alpha, beta = slm_parameters(2, n_rules=5)
    rule_base = RuleBase.from_slm(a, b, alpha, beta)
    part = rule_base.subset([4, 1])
    np.testing.assert_array_equal(part.centers, a[[4, 1]])
    X = np.random.default_rng(0).normal(size=(10, 3))
    np.testing.assert_allclose(
        part.predict(X), rule_base.contributions(X)[:, [4, 1]].sum(axis=1), rtol=1e-12
    )


@pytest.mark.parametrize("normalize", [False, True])
def test_contributions_add_up_to_the_prediction(normalize):
    a, b, alpha, beta = slm_parameters(3)
    rule_base = RuleBase.from_slm(a, b, alpha, beta, normalize=normalize)
    X = np.random.default_rng(1).normal(size=(30, 3))
    np.testing.assert_allclose(
        rule_base.contributions(X).sum(axis=1), rule_base.predict(X), rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize("seed", range(5))
def test_in_original_units_predicts_like_the_standardised_model(seed):
    a, b, alpha, beta = slm_parameters(seed)
    rng = np.random.default_rng(seed)
    mean, scale = rng.normal(size=3) * 10, rng.uniform(0.1, 5.0, size=3)
    standardised = RuleBase.from_slm(a, b, alpha, beta)
    original = standardised.in_original_units(mean, scale)
    X = mean + scale * rng.normal(size=(100, 3))
    _, terms = slm_closed_form((X - mean) / scale, a, b, alpha, beta)
    difference = original.predict(X) - standardised.predict((X - mean) / scale)
    assert np.all(np.abs(difference) <= 1e-12 * (terms + 1e-300))


def test_far_from_every_centre_the_output_never_is_nan():
    a, b, alpha, beta = slm_parameters(4)
    X = np.array([[1e6, -1e6, 1e6], [1e150, 0.0, 0.0]])
    weighted_sum = RuleBase.from_slm(a, b, alpha, beta).predict(X)
    np.testing.assert_array_equal(weighted_sum, 0.0)
    weighted_average = RuleBase.from_slm(a, b, alpha, beta, normalize=True).predict(X)
    assert np.all(np.isfinite(weighted_average))


def test_predict_in_pieces_and_threads_agrees_with_one_shot_to_the_rounding_of_its_sums():
    """Each row is the same sums whatever block, group of blocks or thread holds it.

    Their order is BLAS's: OpenBLAS's kernels for CPUs without AVX sum a
    row of a product by its place in the block, so the pieces agree to the
    rounding of those sums, not bit for bit. Each output is the sum over
    ``h`` rules of ``w_i (alpha_i x + beta_i)``, whose products ``W theta``
    (``h`` terms) are combined with the ``n`` inputs (``n + 1`` terms): two
    evaluations differ by at most ``2 (h + n + 2) eps`` times the sum of
    the terms' magnitudes, ``sum_i w_i (|alpha_i| |x| + |beta_i|)``.
    """
    a, b, alpha, beta = slm_parameters(5)
    rule_base = RuleBase.from_slm(a, b, alpha, beta)
    X = np.random.default_rng(2).normal(size=(40_000, 3))
    whole = rule_base.predict(X)
    magnitudes = sum(
        np.exp(-b[i] * np.sum((X - a[i]) ** 2, axis=1))[:, None]
        * (np.abs(X) @ np.abs(alpha[i]).T + np.abs(beta[i]))
        for i in range(a.shape[0])
    )
    tolerance = 2 * (a.shape[0] + a.shape[1] + 2) * np.finfo(float).eps * magnitudes
    for size in (33, 1000, 7777):  # (a single row goes through BLAS gemv: other rounding)
        pieces = [rule_base.predict(X[start : start + size]) for start in range(0, 8000, size)]
        assert np.all(np.abs(np.vstack(pieces)[:8000] - whole[:8000]) <= tolerance[:8000])
    for n_jobs in (2, 3):
        assert np.all(np.abs(rule_base.predict(X, n_jobs=n_jobs) - whole) <= tolerance)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_predict_of_many_rows_in_groups_and_threads_equals_the_closed_form(n_jobs):
    a, b, alpha, beta = slm_parameters(7, n_rules=100)  # 1310-row blocks, 6 per unit (1 thread)
    # 23 blocks: with 2 threads, 5 units of at most 5 blocks handed out as the threads ask
    X = np.random.default_rng(8).normal(0.0, 1.5, size=(30_011, 3))
    expected, scale = slm_closed_form(X, a, b, alpha, beta)
    predicted = RuleBase.from_slm(a, b, alpha, beta).predict(X, n_jobs=n_jobs)
    assert np.all(np.abs(predicted - expected) <= 1e-12 * scale)


def test_a_globally_linear_target_is_recovered_to_machine_precision():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(500, 2))
    A = np.array([[2.0, -1.0], [0.5, 3.0]])
    Y = X @ A.T + np.array([1.0, -2.0])
    antecedents = RuleBase.random(
        n_features=2, n_outputs=2, n_rules=10, normalize=True, random_state=0
    )
    rule_base = antecedents.fit_consequents(X, Y)
    X_new = rng.uniform(-3, 3, size=(200, 2))
    scale = np.abs(X_new) @ np.abs(A.T) + np.array([1.0, 2.0])
    assert np.all(
        np.abs(rule_base.predict(X_new) - (X_new @ A.T + [1.0, -2.0]))
        <= 64 * np.finfo(float).eps * scale
    )


def test_fit_consequents_of_order_zero_is_an_elm():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(300, 2))
    Y = np.sin(X).sum(axis=1)
    antecedents = RuleBase.random(n_features=2, n_rules=40, random_state=1)
    rule_base = antecedents.fit_consequents(X, Y, order=0, solver="pinv")
    a, b, _, _ = antecedents.to_slm()
    G = np.exp(-b * ((X[:, None, :] - a[None]) ** 2).sum(axis=2))
    beta = np.linalg.pinv(G) @ Y
    assert rule_base.order == 0
    np.testing.assert_allclose(
        rule_base.intercept[:, 0], beta, rtol=1e-6, atol=1e-8 * np.abs(beta).max()
    )
    np.testing.assert_allclose(rule_base.predict(X)[:, 0], G @ beta, rtol=1e-9, atol=1e-12)


BAD_CONSTRUCTIONS = [
    (
        dict(centers=[[0.0]], sigmas=[[0.0]]),
        ValueError,
        r"sigmas must all be > 0 and normal floats \(>= 2.2250738585072014e-308, so that 1 / "
        r"sigma is finite\); got sigmas\[0, 0\] = 0.0",
    ),
    (dict(centers=[[0.0]], sigmas=[[-1.0]]), ValueError, "sigmas must all be > 0"),
    (
        dict(centers=[[0.0, 1.0]], sigmas=[[1.0]]),
        ValueError,
        r"sigmas must have the shape of centers.*\(1, 2\); got \(1, 1\)",
    ),
    (
        dict(centers=[[np.nan]], sigmas=[[1.0]]),
        ValueError,
        "Input centers contains NaN or infinity",
    ),
    (dict(centers=[["a"]], sigmas=[[1.0]]), TypeError, "Input centers must hold real numbers"),
    (
        dict(centers=[0.0, 1.0], sigmas=[[1.0]]),
        ValueError,
        "Input centers must be a 2-D array; got 1-D",
    ),
    (
        dict(centers=np.zeros((0, 2)), sigmas=np.zeros((0, 2))),
        ValueError,
        r"Input centers has 0 rule\(s\)",
    ),
    (
        dict(centers=[[0.0]], sigmas=[[1.0]], coef=[[[1.0, 2.0]]]),
        ValueError,
        r"coef must have shape \(n_rules, n_outputs, n_features\)",
    ),
    (
        dict(centers=[[0.0]], sigmas=[[1.0]], intercept=[[1.0], [2.0]]),
        ValueError,
        r"intercept must have shape \(n_rules, n_outputs\)",
    ),
    (
        dict(centers=[[0.0]], sigmas=[[1.0]], input_names=["a", "b"]),
        ValueError,
        "'input_names' parameter must hold 1 names",
    ),
    (
        dict(centers=[[0.0], [1.0]], sigmas=[[1.0], [1.0]], normalize="yes"),
        TypeError,
        "'normalize' parameter of RuleBase must be a bool",
    ),
]


@pytest.mark.parametrize("kwargs, error, message", BAD_CONSTRUCTIONS)
def test_bad_hand_built_rule_bases(kwargs, error, message):
    with pytest.raises(error, match=message):
        RuleBase(**kwargs)


@pytest.mark.parametrize(
    "X, error, message",
    [
        (
            [[1.0, 2.0]],
            ValueError,
            "X has 2 features, but this rule base is expecting 3 features as input",
        ),
        (
            [[1.0, np.inf, 2.0]],
            ValueError,
            r"Input X contains NaN or infinity \(first at row 0, column 1\)",
        ),
        (np.zeros((0, 3)), ValueError, "Input X has 0 sample"),
        ([1.0, 2.0, 3.0], ValueError, "Input X must be a 2-D array; got 1-D"),
        ([["a", "b", "c"]], TypeError, "Input X must hold real numbers"),
    ],
)
def test_bad_inputs_at_predict(X, error, message):
    a, b, alpha, beta = slm_parameters(0)
    with pytest.raises(error, match=message):
        RuleBase.from_slm(a, b, alpha, beta).predict(X)


def test_random_rejects_bad_parameters():
    with pytest.raises(
        ValueError,
        match=r"The 'n_rules' parameter must be an int in the range \[1, inf\). Got 0 instead.",
    ):
        RuleBase.random(n_features=2, n_rules=0)
    with pytest.raises(ValueError, match="The 'width_range' parameter must be a pair"):
        RuleBase.random(n_features=2, width_range=(1.0, 0.5))
    with pytest.raises(ValueError, match="The 'centers' parameter must be a str among"):
        RuleBase.random(n_features=2, centers="gamma")
    with pytest.raises(ValueError, match="'bounds' parameter is required"):
        RuleBase.random(n_features=2, centers="uniform")


def test_ranges_are_recorded_by_fit_and_kept_by_subset_and_replace():
    rng = np.random.default_rng(0)
    X = rng.uniform([0.5, -1.0], [1.5, 1.0], size=(80, 2))
    Y = np.column_stack([X[:, 0] / 10, X[:, 1] ** 2])
    antecedents = RuleBase.random(n_features=2, n_rules=5, random_state=0)
    assert antecedents.input_range is None and antecedents.output_range is None
    fitted = antecedents.fit_consequents(X, Y)
    np.testing.assert_array_equal(fitted.input_range, np.column_stack([X.min(0), X.max(0)]))
    np.testing.assert_array_equal(fitted.output_range, np.column_stack([Y.min(0), Y.max(0)]))
    assert not fitted.input_range.flags.writeable
    for kept in (fitted.subset([3, 1]), fitted.replace(normalize=True), fitted.prune(2, X)):
        assert np.array_equal(kept.input_range, fitted.input_range)
        assert np.array_equal(kept.output_range, fitted.output_range)
    one_output = fitted.replace(
        intercept=np.zeros((5, 1)), coef=np.zeros((5, 1, 2)), output_names=None
    )
    assert one_output.output_range is None  # no longer one [low, high] per output
    assert np.array_equal(one_output.input_range, fitted.input_range)
    assert fitted.replace(input_range=None).input_range is None
    assert fitted == antecedents.fit_consequents(X, Y).replace(input_range=[[0, 1], [0, 1]])


def test_in_original_units_maps_the_input_range():
    rb = RuleBase(centers=[[0.0, 1.0]], sigmas=[[1.0, 1.0]], input_range=[[-1.5, 2.0], [0.0, 1.0]])
    orig = rb.in_original_units(mean=[10.0, -3.0], scale=[4.0, 0.5])
    np.testing.assert_allclose(orig.input_range, [[4.0, 18.0], [-3.0, -2.5]], rtol=1e-15)


def test_ranges_in_metadata_become_the_attributes():
    rb = RuleBase(
        centers=[[0.0]], sigmas=[[1.0]], metadata={"seed": 1, "input_range": [[-2.0, 2.0]]}
    )
    assert rb.input_range.tolist() == [[-2.0, 2.0]] and rb.metadata == {"seed": 1}
    given = RuleBase(
        centers=[[0.0]],
        sigmas=[[1.0]],
        input_range=[[0.0, 1.0]],
        metadata={"input_range": [[-2.0, 2.0]]},
    )
    assert given.input_range.tolist() == [[0.0, 1.0]]  # the argument wins


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            {"input_range": [[0.0, 1.0], [0.0, 1.0]]},
            ValueError,
            r"The 'input_range' parameter of RuleBase must have shape \(1, 2\), one \[low, high\] "
            r"per variable; got shape \(2, 2\)",
        ),
        (
            {"input_range": [[1.0, 0.0]]},
            ValueError,
            r"must hold finite pairs with low <= high; got \[1.0, 0.0\] for variable 0",
        ),
        (
            {"output_range": [[0.0, np.inf]]},
            ValueError,
            r"'output_range' parameter of RuleBase must hold finite pairs",
        ),
        (
            {"input_range": [["low", "high"]]},
            TypeError,
            r"'input_range' parameter of RuleBase must be \[low, high\] pairs of numbers",
        ),
        (
            {"metadata": {"input_range": [1.0, 2.0]}},
            ValueError,
            r"'input_range' parameter of RuleBase must have shape \(1, 2\)",
        ),
    ],
)
def test_bad_ranges_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        RuleBase(centers=[[0.0]], sigmas=[[1.0]], **kwargs)


def test_random_centres_from_data_rows_and_box():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), np.full(40, 3.0)])
    rows = RuleBase.random(2, n_rules=5, centers="samples", data=X, random_state=1)
    assert all((center == X).all(axis=1).any() for center in rows.centers)
    assert rows == RuleBase.random(2, n_rules=5, centers="samples", data=X, random_state=1)
    box = RuleBase.random(2, n_rules=200, centers="data", data=X, random_state=1)
    assert X[:, 0].min() <= box.centers[:, 0].min() and box.centers[:, 0].max() <= X[:, 0].max()
    assert 2.5 <= box.centers[:, 1].min() and box.centers[:, 1].max() <= 3.5  # constant: width 1
    with pytest.raises(ValueError, match="centers='samples' needs the rows"):
        RuleBase.random(2, centers="samples")
    with pytest.raises(ValueError, match="n_features=3 columns; got shape \\(40, 2\\)"):
        RuleBase.random(3, centers="data", data=X)
    with pytest.raises(ValueError, match="The 'centers' parameter must be a str among"):
        RuleBase.random(2, centers="kmeans++", data=X)
