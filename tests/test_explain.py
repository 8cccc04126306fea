"""Explanations of single predictions, rule importance and pruning."""

import numpy as np
import pytest
from slm_helpers import slm_closed_form, slm_parameters

from randomts import RuleBase
from randomts.analysis.explain import explain
from randomts.analysis.importance import prune, rank_rules, rule_importance


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("top", [None, 1, 3])
def test_contributions_and_remainder_add_up_to_the_prediction(seed, normalize, top):
    a, b, alpha, beta = slm_parameters(seed)
    rule_base = RuleBase.from_slm(a, b, alpha, beta, normalize=normalize)
    x = np.random.default_rng(seed).normal(size=3)
    e = explain(rule_base, x, top=top)
    assert np.array_equal(e.prediction, rule_base.predict(x[None, :])[0])
    total = e.contributions.sum(axis=0) + e.remainder
    scale = np.abs(rule_base.contributions(x[None, :])[0]).sum(axis=0)
    assert np.all(np.abs(total - e.prediction) <= 1e-12 * scale)
    assert len(e.rules) == (7 if top is None else top)


@pytest.mark.parametrize("seed", range(5))
def test_weighted_sum_explanation_matches_the_closed_form(seed):
    """Independent check: rule i's contribution is exp(-b_i |x - a_i|^2) (alpha_i x + beta_i)."""
    a, b, alpha, beta = slm_parameters(seed)
    x = np.random.default_rng(100 + seed).normal(size=(1, 3))
    e = explain(RuleBase.from_slm(a, b, alpha, beta), x[0])
    for k, i in enumerate(e.rules):
        g = np.exp(-b[i] * np.sum((x[0] - a[i]) ** 2))
        assert e.strengths[k] == pytest.approx(g, rel=1e-12)
        np.testing.assert_allclose(
            e.rule_outputs[k], alpha[i] @ x[0] + beta[i], rtol=1e-12, atol=1e-14
        )
        np.testing.assert_allclose(
            e.contributions[k], g * (alpha[i] @ x[0] + beta[i]), rtol=1e-12, atol=1e-14
        )
    expected, _ = slm_closed_form(x, a, b, alpha, beta)
    np.testing.assert_allclose(e.prediction, expected[0], rtol=1e-12)


def test_listed_rules_carry_their_firing_and_normalised_strengths():
    rule_base = RuleBase(
        centers=[[0.0], [1.0], [3.0]], sigmas=[[1.0]] * 3, intercept=[[1.0], [2.0], [3.0]]
    )
    e = rule_base.explain([0.9])
    assert e.rules.tolist() == [1, 0, 2]  # shares 0.67, 0.22, 0.11: here also the firing order
    w = np.exp(-0.5 * (0.9 - np.array([1.0, 0.0, 3.0])) ** 2)
    np.testing.assert_allclose(e.strengths, w, rtol=1e-15)
    np.testing.assert_allclose(e.normalized_strengths, w / w.sum(), rtol=1e-15)


def test_explanation_table_lists_rules_rest_and_total():
    a, b, alpha, beta = slm_parameters(0, n_rules=5, n_features=2, n_outputs=1)
    rule_base = RuleBase.from_slm(a, b, alpha, beta)
    e = rule_base.explain([0.1, 0.2], top=2)
    text = e.to_text(precision=None)
    lines = text.splitlines()
    assert lines[0].startswith("x1 = 0.1, x2 = 0.2: y = ") and "weighted sum of 5 rules" in lines[0]
    assert lines[1].split() == [
        "rule",
        "w",
        "w/sum(w)",
        "y:",
        "rule",
        "y:",
        "contribution",
        "y:",
        "share",
    ]
    first = lines[2].split()
    assert first[0] == f"R{e.rules[0] + 1}"
    assert first[-2:] == [repr(float(e.contributions[0, 0])), repr(float(e.shares[0, 0]))]
    assert lines[4].startswith("3 other rules")
    assert lines[4].split()[-2:] == [repr(float(e.remainder[0])), repr(float(e.remainder_share[0]))]
    assert lines[5].split() == ["total", repr(float(e.prediction[0]))]
    assert "<table>" in e.to_table(fmt="html")
    assert str(e) == e.to_text()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("top", [None, 1, 4])
def test_shares_are_contributions_over_the_total_absolute_contribution(seed, normalize, top):
    a, b, alpha, beta = slm_parameters(seed)
    rule_base = RuleBase.from_slm(a, b, alpha, beta, normalize=normalize)
    x = np.random.default_rng(seed).normal(size=3)
    e = explain(rule_base, x, top=top)
    every = rule_base.contributions(x[None, :])[0]  # (n_rules, n_outputs)
    total = np.abs(every).sum(axis=0)
    np.testing.assert_allclose(e.shares, every[e.rules] / total, rtol=1e-14)
    hidden = np.setdiff1d(np.arange(rule_base.n_rules), e.rules)
    np.testing.assert_allclose(
        e.remainder_share, np.abs(every[hidden]).sum(axis=0) / total, rtol=1e-14, atol=1e-16
    )
    np.testing.assert_allclose(np.abs(e.shares).sum(axis=0) + e.remainder_share, 1.0, rtol=1e-13)
    assert np.all(np.sign(e.shares) == np.sign(e.contributions))


def test_shares_are_zero_when_nothing_contributes():
    e = RuleBase(centers=[[0.0], [1.0]], sigmas=[[1.0], [1.0]]).explain([0.5], top=1)
    assert e.shares.tolist() == [[0.0]] and e.remainder_share.tolist() == [0.0]


def test_explain_takes_a_dict_series_or_one_row_frame_by_input_name():
    pd = pytest.importorskip("pandas")
    rule_base = RuleBase.from_slm(*slm_parameters(1)).replace(input_names=["a", "b", "c"])
    x = np.array([0.3, -1.2, 0.5])
    expected = explain(rule_base, x)
    by_name = {"c": 0.5, "a": 0.3, "b": -1.2}
    for given in (
        by_name,
        pd.Series(by_name),
        pd.DataFrame([by_name]),
        pd.DataFrame([x, x + 1]).iloc[[0]],  # unnamed columns 0..2: taken in order
    ):
        e = explain(rule_base, given)
        assert np.array_equal(e.x, x) and np.array_equal(e.contributions, expected.contributions)
    with pytest.raises(ValueError, match=r"x misses \['c'\]; the model's inputs are"):
        explain(rule_base, {"a": 1.0, "b": 2.0})
    with pytest.raises(ValueError, match=r"x has unknown name\(s\) \['d'\]"):
        explain(rule_base, pd.Series({"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0}))
    with pytest.raises(ValueError, match=r"x misses \['c'\] and has unknown name\(s\) \['C'\]"):
        explain(rule_base, {"a": 1.0, "b": 2.0, "C": 3.0})
    with pytest.raises(ValueError, match="got a DataFrame of 2 rows"):
        explain(rule_base, pd.DataFrame([by_name, by_name]))
    with pytest.raises(ValueError, match="keyed by the input names"):
        explain(rule_base, {0: 1.0, 1: 2.0, 2: 3.0})
    with pytest.raises(TypeError, match=r"x must hold numbers \(one per input \['a', 'b', 'c'\]\)"):
        explain(rule_base, {"a": "low", "b": 2.0, "c": 3.0})


def test_explain_rejects_bad_inputs():
    rule_base = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 1.0]])
    with pytest.raises(ValueError, match="x has 3 features, but the model is expecting 2"):
        rule_base.explain([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="The 'top' parameter must be an int in the range"):
        rule_base.explain([1.0, 2.0], top=0)


def _importance_by_loops(rule_base, X):
    """Rule importance written out from the definition, one rule and one output at a time."""
    W = rule_base.firing_strengths(X)
    H, m = rule_base.n_rules, rule_base.n_outputs
    share = np.zeros((H, m))
    for o in range(m):
        absolute = np.zeros((X.shape[0], H))
        for i in range(H):
            absolute[:, i] = np.abs(
                W[:, i] * (X @ rule_base.coef[i, o] + rule_base.intercept[i, o])
            )
        share[:, o] = absolute.sum(axis=0) / absolute.sum()
    return share.mean(axis=1)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("normalize", [False, True])
def test_importance_matches_its_definition_and_sums_to_one(seed, normalize):
    a, b, alpha, beta = slm_parameters(seed)
    rule_base = RuleBase.from_slm(a, b, alpha, beta, normalize=normalize)
    X = np.random.default_rng(seed).normal(size=(300, 3))
    importance = rule_base.rule_importance(X)
    np.testing.assert_allclose(importance, _importance_by_loops(rule_base, X), rtol=1e-12)
    assert importance.sum() == pytest.approx(1.0, abs=1e-12) and np.all(importance >= 0)


def test_importance_is_invariant_to_output_scale_and_zero_for_silent_rules():
    rule_base = RuleBase(
        centers=[[0.0], [0.5], [50.0]],
        sigmas=[[1.0]] * 3,
        intercept=[[1.0, 1000.0], [3.0, 3000.0], [5.0, 5000.0]],
    )
    X = np.linspace(-1, 1, 11).reshape(-1, 1)
    importance = rule_importance(rule_base, X)
    assert importance[2] < 1e-200  # centre far from the data: it never fires there
    single = rule_importance(
        rule_base.replace(
            coef=rule_base.coef[:, :1], intercept=rule_base.intercept[:, :1], output_names=None
        ),
        X,
    )
    np.testing.assert_allclose(importance, single, rtol=1e-12)
    assert rank_rules(rule_base, X).tolist() == [1, 0, 2]


def test_prune_keeps_consequents_without_targets_and_refits_them_with(van_der_pol_data):
    X, Y = van_der_pol_data
    X, Y = X[::10], Y[::10]
    full = RuleBase.random(2, 2, 40, random_state=0).fit_consequents(X, Y)
    order = rank_rules(full, X)
    kept = prune(full, 10, X)
    assert kept == full.subset(order[:10]) and full.prune(10, X) == kept
    pruned = prune(full, 10, X, Y)
    assert pruned == full.subset(order[:10]).fit_consequents(X, Y)
    assert full.prune(10, X, Y) == pruned
    # The refit is the least-squares optimum on the kept antecedents: beats the old consequents.
    mse = lambda rb: np.mean((rb.predict(X) - Y) ** 2)  # noqa: E731
    assert mse(pruned) < mse(kept)


def test_prune_to_every_rule_refits_the_same_model(van_der_pol_data):
    X, Y = van_der_pol_data
    X, Y = X[::20], Y[::20]
    full = RuleBase.random(2, 2, 15, random_state=3).fit_consequents(X, Y)
    pruned = full.prune(15, X, Y)
    np.testing.assert_allclose(pruned.predict(X), full.predict(X), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize(
    "k, error, message",
    [
        (
            0,
            ValueError,
            "The 'k' parameter must be an int in the range \\[1, inf\\). Got 0 instead.",
        ),
        (6, ValueError, "The 'k' parameter must be at most n_rules = 5. Got 6 instead."),
        (2.5, TypeError, "The 'k' parameter must be an int"),
    ],
)
def test_prune_rejects_bad_k(k, error, message):
    rule_base = RuleBase.random(1, 1, 5, random_state=0)
    with pytest.raises(error, match=message):
        rule_base.prune(k, [[0.0]])


def test_the_pruning_example_runs_and_keeps_the_full_model_at_k_equal_n_rules():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "pruning.py")
    spec = importlib.util.spec_from_file_location("pruning_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    rows = example.accuracy_against_k(
        ks=(2, 8), seeds=[0], n_rules=8, n_trajectories=2, n_steps=100
    )
    assert [row[0] for row in rows] == [2, 8]
    assert np.all(np.isfinite(np.array(rows)))
    k8 = rows[1]
    # With every rule kept, pruning and random selection refit the same 8 rules as the fresh model.
    assert k8[1] == pytest.approx(k8[3], rel=1e-3) and k8[2] == pytest.approx(k8[3], rel=1e-3)


def test_rules_are_listed_by_their_share_of_the_output_not_their_firing():
    # at x = 0: R1 fires fully with a tiny consequent, R2 fires at exp(-1/2) with a large one
    rb = RuleBase(
        centers=[[0.0], [1.0], [3.0]], sigmas=[[1.0]] * 3, intercept=[[0.01], [10.0], [-4.0]]
    )
    e = rb.explain([0.0], top=1)
    assert e.rules.tolist() == [1]
    every = rb.explain([0.0])
    assert every.rules.tolist() == [1, 2, 0]
    assert np.all(np.diff(np.abs(every.shares[:, 0])) <= 0)
    np.testing.assert_allclose(e.remainder_share, np.abs(every.shares[1:]).sum(axis=0), rtol=1e-12)
