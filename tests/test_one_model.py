"""One model vocabulary: a general system of the rule base's shape is the rule base.

``FuzzySystem`` runs ``RuleBase``'s inference kernel when it has the rule
base's shape, so both give the same floats; both give the one documented
answer where no rule fires (``randomts.fuzzy``).
"""

import warnings

import numpy as np
import pytest

from randomts import FuzzySystem, NoRuleFiredWarning, RuleBase
from randomts.fuzzy import FuzzyRule, InputVariable, OutputVariable, parse_rule
from randomts.fuzzy.terms import Constant, Gaussian, Linear, Triangle


def _random_rule_base(seed, normalize, n_features=3, n_outputs=2, n_rules=9):
    rng = np.random.default_rng(seed)
    return RuleBase(
        centers=rng.normal(size=(n_rules, n_features)),
        sigmas=rng.uniform(0.3, 2.0, size=(n_rules, n_features)),
        coef=rng.normal(size=(n_rules, n_outputs, n_features)),
        intercept=rng.normal(size=(n_rules, n_outputs)),
        normalize=normalize,
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("normalize", [False, True])
def test_a_system_of_the_rule_base_shape_predicts_with_its_kernel_bit_for_bit(seed, normalize):
    rb = _random_rule_base(seed, normalize)
    system = FuzzySystem.from_rule_base(rb)
    X = np.random.default_rng(100 + seed).normal(scale=4.0, size=(3000, 3))
    X[:5] *= 1e6  # far from every rule: the weighted average's limit, the weighted sum's 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rules fire everywhere: nothing to warn about
        expected = rb.predict(X)
        got = system.predict(X)
    # the same kernel on the same arrays: the same floats, by construction
    np.testing.assert_array_equal(got, expected)
    assert np.all(np.isfinite(got))


def test_the_kernel_follows_a_replaced_part():
    rb = _random_rule_base(0, True)
    system = FuzzySystem.from_rule_base(rb)
    X = np.random.default_rng(1).normal(size=(50, 3))
    system.predict(X)
    other = _random_rule_base(1, True)
    system.outputs = FuzzySystem.from_rule_base(other).outputs  # other consequents
    np.testing.assert_array_equal(
        system.predict(X), other.replace(centers=rb.centers, sigmas=rb.sigmas).predict(X)
    )


def test_a_system_of_another_shape_uses_the_general_inference():
    # a rule of height 0.5: not the rule base's shape; its output follows the general definition
    system = FuzzySystem(
        [
            InputVariable(
                "x", {"a": Gaussian(0.0, 1.0, height=0.5), "b": Gaussian(2.0, 1.0)}, (-5, 5)
            )
        ],
        [
            OutputVariable(
                "y", {"a": Constant(1.0), "b": Linear([2.0], 0.0)}, (-5, 5), defuzzifier="wtsum"
            )
        ],
        ["if x is a then y is a", "if x is b then y is b"],
    )
    assert system.rule_base_mismatch() is not None
    x = np.array([[0.3], [1.7]])
    w = np.column_stack([0.5 * np.exp(-0.5 * x[:, 0] ** 2), np.exp(-0.5 * (x[:, 0] - 2.0) ** 2)])
    expected = w[:, 0] * 1.0 + w[:, 1] * 2.0 * x[:, 0]  # weighted sum
    np.testing.assert_allclose(system.predict(x)[:, 0], expected, rtol=1e-14)


def test_where_no_rule_fires_both_answer_as_documented():
    # bounded support: no rule fires at x = 5; a weighted average is undefined there
    average = FuzzySystem(
        [InputVariable("x", {"mid": Triangle(0, 1, 2)}, range=(0, 6))],
        [OutputVariable("y", {"one": Constant(1.0)}, range=(0, 1))],
        [parse_rule("if x is mid then y is one")],
    )
    with pytest.warns(NoRuleFiredWarning, match="No rule fired at 1 of 2"):
        Y = average.predict([[1.0], [5.0]])
    assert Y[0, 0] == pytest.approx(1.0, rel=1e-15)
    assert np.isnan(Y[1, 0])
    # the same system summing: the empty sum, 0
    total = average.replace(
        outputs=[OutputVariable("y", {"one": Constant(1.0)}, range=(0, 1), defuzzifier="wtsum")]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert total.predict([[5.0]])[0, 0] == 0.0  # exact: the empty sum
    # Gaussian rules always fire: far away a weighted average is the nearest rule's output,
    # also where every squared distance overflows (the nearest in the scaled distance)
    for centers, far, nearest in (
        ([[0.0], [10.0]], [[-1e3], [1e3]], [1.0, 7.0]),
        ([[0.0], [1e199]], [[-1e200], [1e201]], [1.0, 7.0]),
    ):
        rb = RuleBase(
            centers=centers, sigmas=[[1.0], [1.0]], intercept=[[1.0], [7.0]], normalize=True
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_allclose(rb.predict(far)[:, 0], nearest, rtol=1e-15)
            system = FuzzySystem.from_rule_base(rb)
            np.testing.assert_array_equal(system.predict(far), rb.predict(far))


def test_one_public_rule_class_per_name():
    import randomts
    import randomts.fuzzy

    assert randomts.Rule is randomts.fuzzy.Rule
    assert randomts.fuzzy.FuzzyRule is not randomts.Rule
    assert isinstance(parse_rule("if x is a then y is b"), FuzzyRule)
    assert isinstance(RuleBase.random(n_features=1, n_rules=2, random_state=0)[0], randomts.Rule)


@pytest.mark.parametrize("normalize", [False, True])
def test_a_system_of_the_rule_base_shape_explains_as_the_rule_base(normalize):
    rb = _random_rule_base(3, normalize)
    system = FuzzySystem.from_rule_base(rb)
    X = np.random.default_rng(7).normal(scale=3.0, size=(200, 3))
    X[0] = 1e180  # far from every rule: the contributions still add up to the output
    np.testing.assert_array_equal(system.contributions(X), rb.contributions(X))
    np.testing.assert_array_equal(
        system.firing_strengths(X, normalize=True), rb.firing_strengths(X, normalize=True)
    )
    total = system.contributions(X).sum(axis=1)
    # the kernel sums w_i A_ik x_k over rules for each input, then over inputs; the
    # contributions group them by rule: both round within a few ulps of the sizes of the terms
    W = rb.firing_strengths(X)
    sizes = np.einsum("ji,imk,jk->jm", W, np.abs(rb.coef), np.abs(X)) + W @ np.abs(rb.intercept)
    bound = 4 * (rb.n_rules + rb.n_features) * np.finfo(float).eps * sizes
    assert np.all(np.abs(total - system.predict(X)) <= bound)


def test_every_hedge_is_a_keyword_that_names_are_quoted_against():
    from randomts.fuzzy import HEDGES
    from randomts.text.numbers import KEYWORDS, format_name

    assert set(HEDGES) <= KEYWORDS
    for hedge in HEDGES:  # a variable named like a hedge reads back as a name
        rule = parse_rule(f"if {format_name(hedge)} is a then y is b")
        assert rule.antecedent.variable == hedge
