"""Rules grown where the error is: closed forms, honesty, determinism, outputs, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from randomts import RuleBase
from randomts.analysis.agreement import rule_agreement
from randomts.fitting.growth import CRITERIA, HONESTY_TOLERANCE, SEARCH_COST, grow_rules
from randomts.io import dumps, loads

SEEDS = range(5)


def _grow(U, Y, **params):
    """The rule base that ``grow_rules`` grows."""
    return RuleBase(**grow_rules(U, Y, **params).arguments)


def _kink(seed, n=300, noise=0.05):
    rng = np.random.default_rng(seed)
    u = rng.uniform(-1.0, 1.0, size=(n, 1))
    return u, np.maximum(u[:, 0], 0.0) + noise * rng.normal(size=n)


def _surface(seed, target, n=300, d=3, noise=0.05):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n, d))
    f = {
        "sine": np.sin(2.0 * U[:, 0]) + 0.5 * U[:, 1],
        "product": U[:, 0] * U[:, 1],
        "step": np.tanh(4.0 * U[:, 0]) + 0.3 * U[:, 2],
    }[target]
    return U, f + noise * rng.normal(size=n)


def test_one_rule_is_ordinary_least_squares():
    rng = np.random.default_rng(0)
    U = rng.normal(size=(200, 3))
    Y = np.column_stack([U @ [1.0, -2.0, 0.5] + 3.0, np.sin(U[:, 0])]) + 0.1 * rng.normal(
        size=(200, 2)
    )
    rules = _grow(U, Y, max_rules=1, root_alpha=0.0)
    Z = np.column_stack([U, np.ones(len(U))])
    solution = np.linalg.lstsq(Z, Y, rcond=None)[0]
    assert rules.n_rules == 1 and rules.normalize
    # a well-conditioned 4 x 4 problem: the normal equations agree with lstsq to ~1e-12;
    # the least ridge (1e-10 of the rows) moves the solution by about 1e-10 relative
    np.testing.assert_allclose(rules.coef[0], solution[:3].T, rtol=0, atol=1e-8)
    np.testing.assert_allclose(rules.intercept[0], solution[3], rtol=0, atol=1e-8)
    np.testing.assert_allclose(rules.predict(U), Z @ solution, rtol=0, atol=1e-8)


@pytest.mark.parametrize("alpha", [0.5, 20.0, 300.0])
def test_one_rule_with_a_root_alpha_is_ridge_regression(alpha):
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(3)
    U = rng.normal(size=(150, 3))
    Y = np.column_stack([U @ [1.0, -2.0, 0.5] + 3.0, np.cos(U[:, 1])]) + 0.2 * rng.normal(
        size=(150, 2)
    )
    rules = _grow(U, Y, max_rules=1, root_alpha=alpha)
    # the growth works in units of each output's deviation: a ridge on slopes only, with a
    # free intercept, gives the same line in any units of y, so it is scikit-learn's Ridge
    reference = Ridge(alpha=alpha).fit(U, Y)
    # a well-conditioned 4 x 4 problem; the least ridge (1e-10 of the rows) is far below it
    np.testing.assert_allclose(rules.coef[0], reference.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(rules.intercept[0], reference.intercept_, rtol=0, atol=1e-8)
    assert rules.metadata["growth"]["root_alpha"] == alpha  # exact: recorded as given


def test_the_first_rule_ridge_is_chosen_by_leave_one_out():
    from randomts.fitting.ridge import choose_alpha

    U, y = _surface(1, "sine")
    growth = _grow(U, y).metadata["growth"]
    K = np.column_stack([U - U.mean(axis=0), np.ones(len(U))])
    chosen = choose_alpha(K, y / y.std()).alpha
    assert growth["root_alpha"] == chosen  # exact: one computation on the same arrays


def test_inputs_that_move_together_do_not_get_cancelling_slopes():
    # two readings of one quantity: least squares splits its effect between them, often
    # with large slopes of opposite signs that cancel only on the data
    plain_swing = chosen_swing = 0.0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        a = rng.normal(size=200)
        U = np.column_stack([a, a + 0.01 * rng.normal(size=200), rng.normal(size=200)])
        y = 2.0 * a + 0.5 * U[:, 2] + 0.5 * rng.normal(size=200)
        plain = _grow(U, y, max_rules=1, root_alpha=0.0)
        chosen = _grow(U, y, max_rules=1)
        pair, plain_pair = chosen.coef[0, 0, :2], plain.coef[0, 0, :2]
        # a ridge never lengthens the slopes; both lines keep the effect of the pair
        assert np.linalg.norm(pair) <= np.linalg.norm(plain_pair) * (1 + 1e-9)
        assert abs(pair.sum() - 2.0) < 0.15 and abs(plain_pair.sum() - 2.0) < 0.15
        # one reading held at the edge of its range while the other goes on
        far = np.array([[4.0, 4.0, 0.0]])
        held = np.array([[4.0, U[:, 1].max(), 0.0]])
        plain_swing += np.abs(plain.predict(held) - plain.predict(far))[0, 0]
        chosen_swing += np.abs(chosen.predict(held) - chosen.predict(far))[0, 0]
    assert plain_swing > 30.0  # the data do make least squares cancel
    assert chosen_swing < 0.75 * plain_swing


@pytest.mark.parametrize("seed", SEEDS)
def test_a_linear_target_stays_one_rule(seed):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(300, 3))
    y = 1.0 + 2.0 * U[:, 0] - U[:, 1] + 0.1 * rng.normal(size=300)
    assert _grow(U, y).n_rules == 1


@pytest.mark.parametrize("seed", SEEDS)
def test_a_kink_is_cut_where_it_is(seed):
    u, y = _kink(seed)
    two = _grow(u, y, max_rules=2)
    assert two.n_rules == 2
    left, right = np.argsort(two.centers[:, 0])
    # one rule on each side of the kink at 0 (the median of the rows), with its slope
    assert two.centers[left, 0] < -0.3 and two.centers[right, 0] > 0.3
    assert abs(two.coef[left, 0, 0]) < 0.15 and abs(two.coef[right, 0, 0] - 1.0) < 0.15
    errors = two.metadata["growth"]["error_path"]
    assert errors[1] < 0.2 * errors[0]
    # left to choose, the criterion keeps few rules: the kink, and its rounding
    assert 2 <= _grow(u, y).n_rules <= 5


@pytest.mark.parametrize("target", ["sine", "product", "step"])
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("width_factor", [0.25, "auto"])
def test_every_rule_says_what_the_model_does_at_its_centre(seed, target, width_factor):
    U, y = _surface(seed, target)
    rules = _grow(U, y, width_factor=width_factor)
    found = rule_agreement(rules, U, y)
    assert rules.n_rules > 1
    assert np.max(np.abs(found.from_model)) <= HONESTY_TOLERANCE
    assert not found.too_wide.any()
    box = np.column_stack([U.min(axis=0), U.max(axis=0)])
    assert np.all((rules.centers >= box[:, 0]) & (rules.centers <= box[:, 1]))


def test_the_growth_is_recorded():
    U, y = _surface(0, "sine")
    rules = _grow(U, y, criterion="loo")
    growth = rules.metadata["growth"]
    sizes = growth["n_rules"]
    assert sizes == list(range(1, len(sizes) + 1))
    least = int(np.argmin(growth["criterion_path"]))
    # the fewest rules within one standard error of the least criterion
    assert 1 < rules.n_rules <= sizes[least]
    assert growth["error_path"][rules.n_rules - 1] < 0.5 * growth["error_path"][0]
    assert len(growth["dof_path"]) == len(sizes)
    json.dumps(growth)  # the record is plain data, as files keep it


def _leave_one_out_by_refitting(rules, U, y, shrinkage_free=True):
    """Refit each rule's weighted least squares without each row, validities held fixed."""
    phi = rules.firing_strengths(U, normalize=True)
    Z = np.column_stack([U, np.ones(len(U))])
    errors = np.empty(len(U))
    for n in range(len(U)):
        keep = np.arange(len(U)) != n
        prediction = 0.0
        for i in range(rules.n_rules):
            w = phi[keep, i]
            theta = np.linalg.solve(Z[keep].T @ (w[:, None] * Z[keep]), Z[keep].T @ (w * y[keep]))
            prediction += phi[n, i] * Z[n] @ theta
        errors[n] = y[n] - prediction
    return errors


def test_the_leave_one_out_criterion_is_that_of_refitting():
    rng = np.random.default_rng(1)
    U = rng.uniform(-1.0, 1.0, size=(80, 2))
    y = np.sin(3.0 * U[:, 0]) + 0.1 * rng.normal(size=80)
    # no shrinkage: each rule's line is then its plain weighted least squares
    rules = _grow(U, y, criterion="loo", shrinkage=0.0, root_alpha=0.0, max_rules=3, patience=3)
    growth = rules.metadata["growth"]
    value = growth["criterion_path"][growth["n_rules"].index(rules.n_rules)]
    errors = _leave_one_out_by_refitting(rules, U, y)
    # in units of y's variance, each cut charged SEARCH_COST parameters as generalised
    # cross-validation charges them; the refits are well conditioned (rounding ~1e-10)
    search = (len(U) / (len(U) - SEARCH_COST * (rules.n_rules - 1))) ** 2
    np.testing.assert_allclose(value, search * np.mean(errors**2) / np.var(y), rtol=1e-6)


@pytest.mark.parametrize("root_alpha", [0.0, 6.0])
def test_the_leave_one_out_criterion_refits_the_parent_too(root_alpha):
    u, y = _kink(2, n=60, noise=0.1)
    shrinkage = 3.0
    rules = _grow(u, y, max_rules=2, shrinkage=shrinkage, root_alpha=root_alpha)
    assert rules.n_rules == 2
    value = rules.metadata["growth"]["criterion_path"][1]
    ys = y / y.std()  # the growth works in units of y's standard deviation
    phi = rules.firing_strengths(u, normalize=True)
    Z = np.column_stack([u, np.ones(len(u))])
    errors = np.empty(len(u))
    for n in range(len(u)):
        keep = np.arange(len(u)) != n
        # the root's slope shrunk toward zero by root_alpha, its intercept free
        root = np.linalg.solve(
            Z[keep].T @ Z[keep] + np.diag([root_alpha, 0.0]), Z[keep].T @ ys[keep]
        )
        prediction = 0.0
        for i in range(2):
            # centred on the rule, slope shrunk toward the root's as it is without row n
            Zc = np.column_stack([u[:, 0] - rules.centers[i, 0], np.ones(len(u))])
            w = phi[keep, i]
            A = Zc[keep].T @ (w[:, None] * Zc[keep]) + np.diag([shrinkage, 0.0])
            b = Zc[keep].T @ (w * ys[keep]) + np.array([shrinkage * root[0], 0.0])
            prediction += phi[n, i] * Zc[n] @ np.linalg.solve(A, b)
        errors[n] = ys[n] - prediction
    search = (len(u) / (len(u) - SEARCH_COST)) ** 2
    # the least ridge of the growth (1e-10 of the rows) and rounding: ~1e-9 relative
    np.testing.assert_allclose(value, search * np.mean(errors**2), rtol=1e-6)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_the_same_rows_give_the_same_rules(criterion):
    U, y = _surface(2, "product")
    first = _grow(U, y, criterion=criterion, max_rules=12)
    second = _grow(U.copy(), y.copy(), criterion=criterion, max_rules=12)
    assert first == second  # exact: the same arithmetic on the same numbers
    assert first.metadata == second.metadata


def test_the_last_bit_of_the_inputs_moves_nothing_much():
    U, y = _surface(3, "sine")
    rules = _grow(U, y)
    nudged = _grow(np.nextafter(U, np.inf), np.nextafter(y, -np.inf))
    assert nudged.n_rules == rules.n_rules
    # the centres, widths and lines are continuous in the data: a change of one ulp
    # moves them by rounding of the order of the sums they are made of (~1e-13)
    np.testing.assert_allclose(nudged.centers, rules.centers, rtol=0, atol=1e-9)
    np.testing.assert_allclose(nudged.predict(U), rules.predict(U), rtol=0, atol=1e-9)


def test_the_units_of_y_change_only_the_units_of_the_rules():
    U, y = _surface(4, "step")
    rules = _grow(U, y, max_rules=12)
    scaled = _grow(U, 1000.0 * y - 7.0, max_rules=12)
    assert scaled.n_rules == rules.n_rules
    np.testing.assert_allclose(scaled.centers, rules.centers, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(scaled.predict(U), 1000.0 * rules.predict(U) - 7.0, rtol=1e-7)


def test_several_outputs_grow_on_their_summed_error():
    U, y = _surface(0, "sine")
    Y = np.column_stack([y, 2.0 * y + 1.0])
    rules = _grow(U, Y, max_rules=12)
    alone = _grow(U, y, max_rules=12)
    # the second output is an affine image of the first: the same growth, the same lines
    assert rules.n_outputs == 2 and rules.n_rules == alone.n_rules
    np.testing.assert_allclose(rules.coef[:, 1], 2.0 * rules.coef[:, 0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rules.intercept[:, 1], 2.0 * rules.intercept[:, 0] + 1.0, atol=1e-9)
    np.testing.assert_allclose(rules.predict(U)[:, 0], alone.predict(U)[:, 0], atol=1e-9)


def test_per_class_scores_add_up_to_one():
    rng = np.random.default_rng(0)
    U = rng.normal(size=(300, 2))
    labels = (U[:, 0] > 0).astype(int) + (U[:, 1] > 0.5).astype(int)
    scores = np.eye(3)[labels]
    rules = _grow(U, scores, max_rules=12)
    predicted = rules.predict(U)
    # each rule's lines fit columns that add up to 1: the fit of 1 is exactly 1 (slopes 0)
    np.testing.assert_allclose(predicted.sum(axis=1), 1.0, atol=1e-8)
    assert np.mean(predicted.argmax(axis=1) == labels) > 0.9


def test_constant_consequents():
    u, y = _kink(0)
    rules = _grow(u, y, order=0)
    assert rules.order == 0 and rules.n_rules > 2
    assert np.sqrt(np.mean((rules.predict(u)[:, 0] - y) ** 2)) < 0.1
    U, y = _surface(0, "sine")  # several inputs
    rules = _grow(U, y, order=0)
    assert rules.order == 0 and rules.n_rules > 2
    assert np.sqrt(np.mean((rules.predict(U)[:, 0] - y) ** 2)) < 0.5 * y.std()


@pytest.mark.parametrize("n_rows", [1, 3, 6])
def test_fewer_rows_than_unknowns(n_rows):
    rng = np.random.default_rng(0)
    U = rng.normal(size=(n_rows, 8))
    y = rng.normal(size=n_rows)
    rules = _grow(U, y)
    assert rules.n_rules == 1
    assert np.all(np.isfinite(rules.coef)) and np.all(np.isfinite(rules.predict(U)))


def test_a_constant_input_and_a_constant_output():
    rng = np.random.default_rng(0)
    U = np.column_stack([rng.normal(size=100), np.full(100, 3.0)])
    rules = _grow(U, np.abs(U[:, 0]))
    assert rules.n_rules > 1 and np.all(np.isfinite(rules.predict(U)))
    flat = _grow(U, np.full(100, 2.0))
    np.testing.assert_allclose(flat.predict(U), 2.0, atol=1e-9)


def test_the_rules_are_an_ordinary_rule_base():
    u, y = _kink(1)
    rules = RuleBase(**grow_rules(u, y).arguments, input_names=["load"], output_names=["stress"])
    again = loads(dumps(rules, "json"), "json")
    assert isinstance(again, RuleBase) and again == rules
    assert "load" in rules.to_text() and "stress" in rules.to_text()


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"max_rules": 0}, ValueError, r"'max_rules' parameter of grow_rules must be an int"),
        ({"max_rules": 2.5}, TypeError, r"'max_rules' parameter of grow_rules"),
        ({"width_factor": 0.0}, ValueError, r"'width_factor' parameter of grow_rules"),
        ({"width_factor": 1.5}, ValueError, r"range \(0.0, 1.0\].*Got 1.5"),
        ({"width_factor": "wide"}, ValueError, r"'auto' or a float.*Got 'wide'"),
        ({"split": "mean"}, ValueError, r"'split' parameter of grow_rules must be a str among"),
        ({"criterion": "bic"}, ValueError, r"'criterion' parameter of grow_rules"),
        ({"order": 2}, ValueError, r"'order' parameter of grow_rules must be an int among"),
        ({"shrinkage": -1.0}, ValueError, r"'shrinkage' parameter of grow_rules"),
        ({"root_alpha": -1.0}, ValueError, r"'root_alpha' parameter of grow_rules"),
        ({"root_alpha": "loo"}, ValueError, r"'root_alpha'.*'auto' or a float.*Got 'loo'"),
        ({"min_samples_leaf": 0}, ValueError, r"'min_samples_leaf' parameter of grow_rules"),
        ({"min_samples_leaf": "few"}, TypeError, r"'auto' or an int.*Got 'few'"),
        ({"patience": 0}, ValueError, r"'patience' parameter of grow_rules"),
    ],
)
def test_bad_parameters(params, error, message):
    u, y = _kink(0, n=50)
    with pytest.raises(error, match=message):
        _grow(u, y, **params)


@pytest.mark.parametrize(
    ("U", "Y", "message"),
    [
        (np.zeros(5), np.zeros(5), r"Input U must be a 2-D array"),
        (np.full((5, 1), np.nan), np.zeros(5), r"Input U contains NaN"),
        (np.zeros((5, 1)), np.zeros(4), r"U and Y must have the same number of rows; got 5 and 4"),
        (np.zeros((5, 1)), np.full(5, np.inf), r"Input Y contains NaN or infinity"),
    ],
)
def test_bad_inputs(U, Y, message):
    with pytest.raises(ValueError, match=message):
        _grow(U, Y)
