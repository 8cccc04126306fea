"""Explanations, importance, pruning, tables and pictures of any Sugeno system, not only a RuleBase.

The systems: GNU Octave's heart_disease_risk.fis (trapezoids, min/max, a
weighted average whose rules share terms under the ``max`` aggregation;
committed in docs/data), tests/data/octave_writefis.fis read as a FuzzySystem
(Gaussian, two outputs, weighted sum), a hand-made system with two outputs
that mix a weighted sum and a weighted average, hedges, weights and nested
rules, and ``FuzzySystem.from_rule_base(rb)``.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

import randomts
from randomts import FuzzySystem, RuleBase
from randomts.analysis.explain import explain
from randomts.analysis.importance import prune, rank_rules, rule_importance
from randomts.fuzzy import InputVariable, OutputVariable
from randomts.fuzzy.terms import Constant, Linear, Ramp, Trapezoid, Triangle

ROOT = Path(__file__).parent.parent
HEART = ROOT / "docs" / "data" / "heart_disease_risk.fis"
WRITEFIS = Path(__file__).parent / "data" / "octave_writefis.fis"


def heart():
    return randomts.load(HEART)


def writefis():
    return randomts.load(WRITEFIS, system=True)


def mixed():
    """Two outputs, a weighted sum (aggregation max) and a weighted average; hedges, weights."""
    return FuzzySystem(
        [
            InputVariable(
                "food",
                {"bad": Trapezoid(0, 0, 3, 7), "good": Trapezoid(3, 7, 10, 10)},
                range=(0, 10),
            ),
            InputVariable(
                "service",
                {"poor": Ramp(6, 0), "fair": Triangle(2, 5, 8), "good": Ramp(4, 10)},
                range=(0, 10),
            ),
        ],
        [
            OutputVariable(
                "tip",
                {"low": Constant(5.0), "high": Linear([1.0, 0.5], 10.0)},
                range=(0, 30),
                defuzzifier="wtsum",
                aggregation="max",
            ),
            OutputVariable(
                "mood",
                {"sad": Constant(-1.0), "glad": Constant(2.0), "calm": Constant(0.5)},
                range=(-1, 2),
            ),
        ],
        [
            "if food is bad or service is poor then tip is low and mood is sad",
            "if food is very good and service is not poor then tip is high with 0.5",
            "if (food is good or service is good) and service is fair then tip is low",
            "if service is fair then mood is calm",
            "if food is good and service is good then tip is high and mood is glad",
        ],
        conjunction="min",
        disjunction="max",
        name="mixed",
    )


def random_rule_base(seed, normalize):
    rng = np.random.default_rng(seed)
    rb = RuleBase.random(
        n_features=2, n_outputs=2, n_rules=8, normalize=normalize, random_state=seed
    )
    return rb.replace(
        coef=rng.normal(size=(8, 2, 2)), intercept=rng.normal(size=(8, 2)), input_names=["a", "b"]
    )


def grid(system, n=9):
    """An n-by-n grid over the first two inputs' ranges (the other inputs at mid-range)."""
    axes = [np.linspace(*variable.range, n) for variable in system.inputs[:2]]
    points = np.stack(np.meshgrid(*axes), axis=-1).reshape(-1, 2)
    middle = [np.mean(variable.range) for variable in system.inputs[2:]]
    return np.column_stack([points, np.tile(middle, (len(points), 1))]) if middle else points


SYSTEMS = {
    "heart": heart,
    "writefis": writefis,
    "mixed": mixed,
    "from_rule_base": lambda: FuzzySystem.from_rule_base(random_rule_base(0, True)),
}


def fired_rows(system, X):
    """Rows where some rule concludes every output (elsewhere a weighted average is undefined)."""
    C = system.contributions(X)
    W = system.firing_strengths(X, normalize=False)
    concluded = np.array(
        [
            [any(p.variable == name for p in rule.consequent) for name in system.output_names]
            for rule in system.rules
        ]
    )
    return ((W > 0)[:, :, None] & concluded[None]).any(axis=1).all(axis=1), C


# ------------------------------------------------------------------ the protocol
@pytest.mark.parametrize("make", [heart, mixed, lambda: random_rule_base(0, False)])
def test_every_model_answers_the_protocol(make):
    model = make()
    X = grid(model, 3) if isinstance(model, FuzzySystem) else np.zeros((9, model.n_features))
    n, H, m = len(X), model.n_rules, model.n_outputs
    assert len(model.input_names) == model.n_features and len(model.output_names) == m
    assert model.input_range is None or model.input_range.shape == (model.n_features, 2)
    assert model.firing_strengths(X, normalize=False).shape == (n, H)
    assert model.firing_strengths(X, normalize=True).shape == (n, H)
    assert model.rule_outputs(X).shape == model.contributions(X).shape == (n, H, m)
    assert model.predict(X).shape == (n, m)
    assert model.subset([1, 0]).n_rules == 2
    assert model.normalize in (True, False, None)


def test_a_systems_ranges_and_mode_come_from_its_variables():
    system = heart()
    np.testing.assert_array_equal(system.input_range, [[0.0, 300.0], [0.0, 100.0]])
    np.testing.assert_array_equal(system.output_range, [[0.0, 10.0]])
    assert system.normalize is True and writefis().normalize is False and mixed().normalize is None


@pytest.mark.parametrize("normalize", [False, True])
def test_firing_strengths_raw_and_normalised_are_the_rule_bases(normalize):
    rb = random_rule_base(1, normalize)
    system = FuzzySystem.from_rule_base(rb)
    X = np.random.default_rng(1).normal(size=(50, 2))
    for flag in (False, True):
        np.testing.assert_allclose(
            system.firing_strengths(X, normalize=flag),
            rb.firing_strengths(X, normalize=flag),
            rtol=1e-12,
        )
    with pytest.raises(TypeError, match="'normalize' parameter must be a bool; got 'yes'"):
        system.firing_strengths(X, normalize="yes")


# ------------------------------------------------------------- contributions
@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_contributions_sum_over_the_rules_to_predict(name):
    system = SYSTEMS[name]()
    X = grid(system, 15)
    fired, C = fired_rows(system, X)
    assert fired.mean() > 0.5
    Y = system.predict(X[fired])
    scale = np.abs(C[fired]).sum(axis=1)  # the sum's rounding is relative to it
    assert np.all(np.abs(C[fired].sum(axis=1) - Y) <= 1e-12 * scale)


def test_contributions_share_a_max_aggregated_term_in_proportion_to_the_rules_degrees():
    """Independent of the implementation: heart_disease_risk written out with min, max and wtaver."""
    system = heart()
    X = grid(system, 21)
    low_ldl = [t for t in system.inputs[0].terms.values()]
    hdl = [t for t in system.inputs[1].terms.values()]
    values = [t.value for t in system.outputs[0].terms.values()]
    table = [  # (LDL term, HDL term, output term), 0-based, as in the file's [Rules]
        (0, 0, 2),
        (0, 1, 1),
        (0, 2, 0),
        (1, 0, 2),
        (1, 1, 1),
        (1, 2, 1),
        (2, 0, 3),
        (2, 1, 2),
        (2, 2, 1),
        (3, 0, 3),
        (3, 1, 3),
        (3, 2, 2),
        (4, 0, 4),
        (4, 1, 3),
        (4, 2, 2),
    ]
    d = np.column_stack([np.minimum(low_ldl[a](X[:, 0]), hdl[b](X[:, 1])) for a, b, _ in table])
    terms = np.array([t for _, _, t in table])
    expected = np.zeros_like(d)
    total = np.zeros(len(X))
    for t in range(5):
        members = terms == t
        if not members.any():
            continue
        aggregated = d[:, members].max(axis=1)
        own = d[:, members].sum(axis=1)
        share = np.divide(aggregated, own, out=np.zeros(len(X)), where=own > 0)
        expected[:, members] = d[:, members] * share[:, None] * values[t]
        total += aggregated
    expected /= total[:, None]
    np.testing.assert_allclose(system.contributions(X)[:, :, 0], expected, rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------- explanations
@pytest.mark.parametrize("name", sorted(SYSTEMS))
@pytest.mark.parametrize("top", [None, 1, 3])
def test_explanations_contributions_and_remainder_add_up_to_predict(name, top):
    system = SYSTEMS[name]()
    X = grid(system, 5)
    fired, C = fired_rows(system, X)
    for x, c in zip(X[fired], C[fired], strict=True):
        e = explain(system, x, top=top)
        assert len(e.rules) == (system.n_rules if top is None else top)
        np.testing.assert_array_equal(e.prediction, system.predict(x[None, :])[0])
        total = e.contributions.sum(axis=0) + e.remainder
        assert np.all(np.abs(total - e.prediction) <= 1e-12 * np.abs(c).sum(axis=0))
        np.testing.assert_allclose(
            np.abs(e.shares).sum(axis=0) + e.remainder_share,
            (np.abs(c).sum(axis=0) > 0).astype(float),
            rtol=1e-12,
        )


@pytest.mark.parametrize("normalize", [False, True])
def test_a_rule_base_and_its_system_explain_alike(normalize):
    rb = random_rule_base(2, normalize)
    system = FuzzySystem.from_rule_base(rb)
    for x in np.random.default_rng(2).normal(size=(5, 2)):
        ours, theirs = system.explain(x, top=3), rb.explain(x, top=3)
        assert ours.rules.tolist() == theirs.rules.tolist()
        for field in ("strengths", "normalized_strengths", "rule_outputs", "contributions"):
            np.testing.assert_allclose(getattr(ours, field), getattr(theirs, field), rtol=1e-11)
        np.testing.assert_allclose(ours.prediction, theirs.prediction, rtol=1e-11)
        assert ours.normalize is theirs.normalize is normalize


def test_a_loaded_systems_explanation_names_its_variables_and_rules():
    system = heart()
    e = system.explain({"HDL-Level": 40.0, "LDL-Level": 130.0}, top=2)
    lines = str(e).splitlines()
    assert lines[0] == (
        "LDL-Level = 130, HDL-Level = 40: Heart-Disease-Risk = 5 (weighted average of 15 rules)"
    )
    assert lines[1].split()[:3] == ["rule", "w", "w/sum(w)"]
    fired = np.flatnonzero(system.firing_strengths([[130.0, 40.0]])[0])
    assert {int(i) for i in e.rules} <= set(fired.tolist())
    assert lines[2].split()[0] == f"R{e.rules[0] + 1}"
    assert lines[4].startswith("13 other rules") and lines[5].split()[0] == "total"


def test_a_rule_that_does_not_conclude_an_output_leaves_its_cell_empty():
    system = mixed()
    e = system.explain([8.0, 5.0])
    assert "weighted sums and averages of 5 rules" in e.to_text().splitlines()[0]
    silent = [k for k, i in enumerate(e.rules) if i == 3]  # R4 concludes only mood
    assert np.isnan(e.rule_outputs[silent[0], 0]) and e.contributions[silent[0], 0] == 0.0
    row = [line for line in e.to_table(fmt="tsv").splitlines() if line.startswith("R4")][0]
    assert row.split("\t")[3].strip() == ""  # tip: rule


# ------------------------------------------------------ importance and pruning
@pytest.mark.parametrize("normalize", [False, True])
def test_importance_agrees_between_a_rule_base_and_its_system(normalize):
    rb = random_rule_base(3, normalize)
    system = FuzzySystem.from_rule_base(rb)
    X = np.random.default_rng(3).normal(size=(400, 2))
    np.testing.assert_allclose(system.rule_importance(X), rb.rule_importance(X), rtol=1e-12)
    assert rank_rules(system, X).tolist() == rank_rules(rb, X).tolist()


def test_importance_agrees_between_the_two_readings_of_a_gaussian_fis():
    rule_base, system = randomts.load(WRITEFIS), writefis()
    assert isinstance(rule_base, RuleBase) and isinstance(system, FuzzySystem)
    X = grid(system, 20)
    np.testing.assert_allclose(
        rule_importance(system, X), rule_importance(rule_base, X), rtol=1e-12
    )


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_importance_is_the_share_of_the_absolute_contributions(name):
    system = SYSTEMS[name]()
    X = grid(system, 12)
    C = np.abs(system.contributions(X)).sum(axis=0)  # (n_rules, n_outputs)
    expected = (C / C.sum(axis=0)).mean(axis=1)
    importance = system.rule_importance(X)
    np.testing.assert_allclose(importance, expected, rtol=1e-12)
    assert importance.sum() == pytest.approx(1.0, abs=1e-12) and np.all(importance >= 0)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_pruning_keeps_the_k_most_important_rules(name):
    system = SYSTEMS[name]()
    X = grid(system, 12)
    importance = system.rule_importance(X)
    k = 3
    pruned = system.prune(k, X)
    order = np.argsort(-importance, kind="stable")
    assert pruned.n_rules == k
    assert pruned.rules == tuple(system.rules[i] for i in order[:k])
    assert importance[order[:k]].min() >= importance[order[k:]].max()
    assert pruned.inputs == system.inputs and pruned.outputs == system.outputs
    assert pruned == prune(system, k, X)


@pytest.mark.parametrize("normalize", [False, True])
def test_a_pruned_system_is_the_pruned_rule_base(normalize):
    rb = random_rule_base(4, normalize)
    X = np.random.default_rng(4).normal(size=(300, 2))
    pruned = FuzzySystem.from_rule_base(rb).prune(4, X)
    kept = rb.prune(4, X)
    assert pruned.to_rule_base().replace(input_range=None, output_range=None) == kept.replace(
        input_range=None, output_range=None
    )
    np.testing.assert_allclose(pruned.predict(X), kept.predict(X), rtol=1e-11, atol=1e-12)
    # the rule base keeps its refit
    refit = prune(rb, 4, X, rb.predict(X))
    assert len(refit) == 4 and prune(rb, 4, X) == kept


def test_pruning_a_system_rejects_targets_and_bad_k():
    system = heart()
    X = grid(system, 5)
    with pytest.raises(
        TypeError, match="The 'Y' parameter refits consequents, which a FuzzySystem"
    ):
        prune(system, 3, X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="The 'k' parameter must be at most n_rules = 15. Got 16"):
        system.prune(16, X)
    with pytest.raises(ValueError, match=r"'rules' parameter must be a non-empty 1-D sequence"):
        system.subset([])
    with pytest.raises(IndexError, match=r"indices in \[0, 15\); got \[15\]"):
        system.subset([15])
    assert system.subset(np.arange(15) < 2).n_rules == 2


# ------------------------------------------------------------ text and tables
def test_text_with_data_lists_the_rules_by_importance():
    system = heart()
    X = grid(system, 12)
    importance = system.rule_importance(X)
    order = np.argsort(-importance, kind="stable")
    lines = system.to_text(X=X, top=3).splitlines()
    start = lines.index("rules")
    assert (
        lines[start + 1].startswith("  # most important first")
        and "on 144 samples" in lines[start + 1]
    )
    for line, i in zip(lines[start + 2 : start + 5], order[:3], strict=True):
        label, text = line.strip().split(": ", 1)
        assert label == f"R{i + 1} ({100 * importance[i]:.3g}%)"
        assert text == system.rules[i].to_text(4)
    assert lines[start + 5].startswith("  # ... 12 less important rules not shown (")
    assert system.to_text() == str(system)  # without data: unchanged
    with pytest.raises(ValueError, match="The 'top' parameter needs the data X"):
        system.to_text(top=2)


def test_a_table_has_one_row_per_rule_with_its_terms_and_importance():
    system = heart()
    X = grid(system, 12)
    importance = system.rule_importance(X)
    lines = system.table(fmt="tsv", X=X).splitlines()
    header = [cell.strip() for cell in lines[0].split("\t")]
    assert header == [
        "rule",
        "importance",
        "LDL-Level is",
        "HDL-Level is",
        "then Heart-Disease-Risk is",
    ]
    rows = [[cell.strip() for cell in line.split("\t")] for line in lines[1:]]
    assert len(rows) == 15
    order = np.argsort(-importance, kind="stable")
    assert [row[0] for row in rows] == [f"R{i + 1}" for i in order]
    assert [float(row[1]) for row in rows] == pytest.approx(importance[order], rel=1e-3)
    assert rows[[row[0] for row in rows].index("R1")][2:] == ["Low", "Low-HDL", "Medium-Risk"]
    assert len(system.table(X=X, top=4).splitlines()) == 5
    plain = system.table().splitlines()
    assert plain[0].split()[:2] == ["rule", "LDL-Level"] and plain[1].split()[0] == "R1"


def test_a_table_of_nested_rules_has_an_if_column_and_weights():
    system = mixed()
    lines = system.table(fmt="tsv").splitlines()
    header = [cell.strip() for cell in lines[0].split("\t")]
    assert header == ["rule", "if", "then tip is", "then mood is", "weight"]
    r3 = [cell.strip() for cell in lines[3].split("\t")]
    assert r3 == ["R3", "(food is good or service is good) and service is fair", "low", "", "1"]
    r2 = [cell.strip() for cell in lines[2].split("\t")]
    assert r2[2:] == ["high", "", "0.5"]


def test_a_flat_table_marks_or_rules():
    X = np.array([[5.0, 5.0]])
    system = mixed().subset([0, 1])
    header = [cell.strip() for cell in system.table(fmt="tsv", X=X).splitlines()[0].split("\t")]
    assert header == [
        "rule",
        "importance",
        "food is",
        "service is",
        "connective",
        "then tip is",
        "then mood is",
        "weight",
    ]
    rows = system.table(fmt="tsv").splitlines()[1:]
    assert [cell.strip() for cell in rows[1].split("\t")][:4] == [
        "R2",
        "very good",
        "not poor",
        "and",
    ]


# -------------------------------------------------------------------- pictures
@pytest.fixture
def pyplot():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_memberships_of_a_system_draw_its_terms(pyplot):
    from randomts.plotting import plot_memberships

    system = heart()
    ax = plot_memberships(system, "HDL-Level", n_points=101)
    terms = system.inputs[1].terms
    assert [line.get_label() for line in ax.get_lines()] == list(terms)
    for line, term in zip(ax.get_lines(), terms.values(), strict=True):
        np.testing.assert_array_equal(line.get_xdata(), np.linspace(0.0, 100.0, 101))
        np.testing.assert_allclose(line.get_ydata(), term(line.get_xdata()), rtol=1e-15)
    assert ax.get_xlim() == (0.0, 100.0) and ax.get_xlabel() == "HDL-Level"
    ax = plot_memberships(system, 0, rules=[0, 14])  # R1 and R15 name Low and High
    assert [line.get_label() for line in ax.get_lines()] == ["Low", "High"]
    with pytest.raises(
        ValueError,
        match=r"'rules' parameter selects rules \[0\] \(R1\), which name no term of input 'food'",
    ):
        plot_memberships(mixed().subset([3]), "food", rules=[0])


def test_surface_of_a_system_is_its_predict(pyplot):
    from randomts.plotting import plot_surface

    system = heart()
    ax = plot_surface(system, n_points=30)
    contours = ax.collections[0]
    g0, g1 = np.meshgrid(np.linspace(0, 300, 30), np.linspace(0, 100, 30))
    Z = system.predict(np.column_stack([g0.ravel(), g1.ravel()]))
    assert contours.levels[0] <= Z.min() and contours.levels[-1] >= Z.max()
    assert ax.get_xlabel() == "LDL-Level" and ax.get_ylabel() == "HDL-Level"
    plot_surface(mixed(), output="mood", kind="surface")


@pytest.mark.parametrize("make", [heart, mixed, writefis])
def test_overview_of_a_system_runs(pyplot, make):
    from randomts.plotting import plot_overview

    figure = plot_overview(make())
    assert len(figure.axes) >= 3
    assert figure.axes[0].get_xlabel() == make().input_names[0]


def test_overview_of_a_one_input_system_draws_its_output(pyplot):
    from randomts.plotting import plot_overview

    system = mixed().replace(
        inputs=mixed().inputs[:1],
        outputs=[OutputVariable("tip", {"low": Constant(5.0), "high": Constant(9.0)}, (0, 10))],
        rules=["if food is bad then tip is low", "if food is good then tip is high"],
    )
    figure = plot_overview(system)
    curve = figure.axes[1].get_lines()[0]
    np.testing.assert_allclose(
        curve.get_ydata(), system.predict(curve.get_xdata()[:, None])[:, 0], rtol=1e-15
    )


def test_pictures_of_gaussian_rules_take_a_system_of_rule_base_shape_only(pyplot):
    from randomts.plotting import plot_local_models, plot_rule_centers

    rb = random_rule_base(5, True)
    system = FuzzySystem.from_rule_base(rb)
    ax = plot_rule_centers(system)
    np.testing.assert_allclose(ax.get_lines()[-1].get_xydata(), rb.centers, rtol=1e-15)
    plot_local_models(system)
    with pytest.raises(TypeError, match="plot_rule_centers draws Gaussian rules .* 'LDL-Level'"):
        plot_rule_centers(heart())


# ---------------------------------------------------------------- the modules
@pytest.mark.parametrize(
    "module",
    [
        "analysis/explain.py",
        "analysis/importance.py",
        "analysis/agreement.py",
        "analysis/on_data.py",
        "analysis/protocol.py",
        "text/rule_base.py",
        "text/system.py",
        "text/tables.py",
    ],
)
def test_the_analysis_modules_import_no_model_class(module):
    tree = ast.parse((ROOT / "randomts" / module).read_text(encoding="utf-8"))
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    assert not [name for name in imported if name and name.startswith("randomts.fuzzy")]
