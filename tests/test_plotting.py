"""The pictures, checked by the artists they draw (headless, Agg)."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

from randomts import RandomTSRegressor, RuleBase  # noqa: E402
from randomts.plotting import (  # noqa: E402
    plot_local_models,
    plot_memberships,
    plot_overview,
    plot_predicted_vs_true,
    plot_rule_centers,
    plot_surface,
)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def two_input_model(seed=0, n_rules=6):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(200, 2))
    y = np.sin(X[:, 0]) * X[:, 1]
    return RandomTSRegressor(n_rules=n_rules, random_state=seed, structure="random").fit(X, y), X, y


def gaussian(x, c, s):
    return np.exp(-((x - c) ** 2) / (2 * s**2))


@pytest.mark.parametrize("seed", range(3))
def test_memberships_draw_each_rules_gaussian(seed):
    model, _, _ = two_input_model(seed)
    rb = model.rule_base_
    ax = plot_memberships(model, feature=1, x_range=(-3.0, 3.0), n_points=101)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == [f"R{i + 1}" for i in range(rb.n_rules)]
    for i, line in enumerate(lines):
        x, mu = line.get_xdata(), line.get_ydata()
        np.testing.assert_array_equal(x, np.linspace(-3.0, 3.0, 101))
        np.testing.assert_allclose(mu, gaussian(x, rb.centers[i, 1], rb.sigmas[i, 1]), rtol=1e-14)
    assert ax.get_xlabel() == "x2" and ax.get_ylabel() == "membership"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        f"R{i + 1}" for i in range(rb.n_rules)
    ]


def test_memberships_by_name_subset_and_default_range():
    rb = RuleBase(
        centers=[[0.0, 5.0], [1.0, 9.0], [2.0, 7.0]],
        sigmas=[[1.0, 2.0]] * 3,
        input_names=["speed", "load"],
    )
    ax = plot_memberships(rb, feature="load", rules=[2, 0])
    assert [line.get_label() for line in ax.get_lines()] == ["R3", "R1"]
    # default range: centres widened by three median widths (6) on each side
    assert ax.get_xlim() == (-1.0, 15.0)
    peak = ax.get_lines()[0]
    assert peak.get_xdata()[np.argmax(peak.get_ydata())] == pytest.approx(7.0, abs=0.05)
    assert ax.get_xlabel() == "load"


def test_recorded_ranges_set_the_default_range_and_fixed_values():
    # y = x3: the surface over (x1, x2) sits at the middle of x3's recorded range, 5
    rb = RuleBase(
        centers=[[0.0, 0.0, 0.0]],
        sigmas=[[1e3, 1e3, 1e3]],
        coef=[[[0.0, 0.0, 1.0]]],
        normalize=True,
        input_range=[[-2.0, 3.0], [10.0, 20.0], [4.0, 6.0]],
    )
    assert plot_memberships(rb, feature=1).get_xlim() == (10.0, 20.0)
    ax = plot_surface(rb, kind="surface")
    assert ax.get_xlim()[0] <= -2.0 and ax.get_xlim()[1] >= 3.0
    np.testing.assert_allclose(ax.collections[0].get_array(), 5.0, rtol=1e-12)
    X = np.array([[0.0, 12.0, 1.0], [1.0, 14.0, 3.0]])  # data come first
    assert plot_memberships(rb, feature=1, x_range=None).get_xlim() == (10.0, 20.0)
    contour = plot_surface(rb, X)
    assert contour.get_xlim() == (0.0, 1.0) and contour.get_ylim() == (12.0, 14.0)


def test_overview_draws_two_inputs_sets_and_the_surface_at_mid_range():
    rb = RuleBase(
        centers=[[0.0, 0.0, 0.0]],
        sigmas=[[1e3, 1e3, 1e3]],
        coef=[[[0.0, 0.0, 1.0]]],
        normalize=True,
        input_names=["a", "b", "c"],
        input_range=[[-2.0, 3.0], [10.0, 20.0], [4.0, 6.0]],
    )
    figure = plot_overview(rb, features=("c", "a"))
    sets_c, sets_a, surface = figure.axes[:3]
    assert sets_c.get_xlabel() == "c" and sets_c.get_xlim() == (4.0, 6.0)
    assert sets_a.get_xlabel() == "a" and sets_a.get_xlim() == (-2.0, 3.0)
    assert (surface.get_xlabel(), surface.get_ylabel()) == ("c", "a")
    levels = surface.collections[0].levels
    assert levels[0] <= 4.0 and levels[-1] >= 6.0  # y = c over c in [4, 6]
    assert figure not in [plt.figure(n) for n in plt.get_fignums()]  # pyplot does not hold it
    one = plot_overview(RuleBase(centers=[[0.0], [1.0]], sigmas=[[1.0], [1.0]]))
    assert len(one.axes) == 2 and one.axes[1].get_lines()[0].get_label() == "model"


def test_many_rules_get_no_legend():
    rb = RuleBase.random(n_features=1, n_rules=30, random_state=0)
    ax = plot_memberships(rb)
    assert len(ax.get_lines()) == 30 and ax.get_legend() is None


def test_rule_centers_draw_dots_ellipses_and_data():
    model, X, _ = two_input_model(1)
    rb = model.rule_base_
    ax = plot_rule_centers(model, X, n_sigmas=2.0)
    centres = [line for line in ax.get_lines() if line.get_label() == "rule centres"]
    assert len(centres) == 1
    np.testing.assert_array_equal(centres[0].get_xydata(), rb.centers)
    ellipses = [p for p in ax.patches if isinstance(p, Ellipse)]
    assert len(ellipses) == rb.n_rules
    for ellipse, c, s in zip(ellipses, rb.centers, rb.sigmas, strict=True):
        assert ellipse.center == pytest.approx(tuple(c))
        assert (ellipse.width, ellipse.height) == pytest.approx((4 * s[0], 4 * s[1]))
    data = [c for c in ax.collections if c.get_label() == "data"]
    np.testing.assert_array_equal(data[0].get_offsets(), X)
    # the view covers every centre and every data point
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    both = np.vstack([X, rb.centers])
    assert x0 < both[:, 0].min() and both[:, 0].max() < x1
    assert y0 < both[:, 1].min() and both[:, 1].max() < y1
    assert [t.get_text() for t in ax.texts] == [f"R{i + 1}" for i in range(rb.n_rules)]


def test_rule_centers_of_trajectories_and_swapped_features():
    rb = RuleBase.random(n_features=3, n_rules=4, random_state=2)
    trajectories = np.random.default_rng(0).normal(size=(3, 50, 3))
    ax = plot_rule_centers(rb, trajectories, features=("x3", 0), n_sigmas=None)
    data_lines = [line for line in ax.get_lines() if line.get_label() != "rule centres"]
    assert len(data_lines) == 3
    np.testing.assert_array_equal(data_lines[1].get_xydata(), trajectories[1][:, [2, 0]])
    assert not ax.patches
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x3", "x1")


@pytest.mark.parametrize("seed", range(3))
def test_surface_contours_span_the_models_output(seed):
    model, X, _ = two_input_model(seed)
    ax = plot_surface(model, X, n_points=30)
    contours = [c for c in ax.collections if isinstance(c, ContourSet)]
    assert len(contours) == 1
    g = np.linspace(X[:, 0].min(), X[:, 0].max(), 30), np.linspace(X[:, 1].min(), X[:, 1].max(), 30)
    g0, g1 = np.meshgrid(*g)
    Z = model.predict(np.column_stack([g0.ravel(), g1.ravel()]))
    levels = contours[0].levels
    assert levels[0] <= Z.min() and Z.max() <= levels[-1]
    # 20 requested levels: the outer ones are within one step of the extremes
    step = levels[1] - levels[0]
    assert Z.min() - levels[0] < step and levels[-1] - Z.max() < step
    assert len(ax.figure.axes) == 2  # the colour bar
    assert ax.figure.axes[1].get_ylabel() == "y"


def test_surface_holds_the_other_inputs_fixed():
    # y = x3 only: with x3 fixed at 4, the surface over (x1, x2) is flat at about 4
    rb = RuleBase(
        centers=[[0.0, 0.0, 0.0]],
        sigmas=[[1e3, 1e3, 1e3]],
        coef=[[[0.0, 0.0, 1.0]]],
        normalize=True,
    )
    ax = plot_surface(rb, x_range=(-1, 1), y_range=(-1, 1), fixed=[0.0, 0.0, 4.0], kind="surface")
    assert ax.name == "3d"
    surface = ax.collections[0]
    # the faces are coloured by their mean height: every face sits at z = 4
    np.testing.assert_allclose(surface.get_array(), 4.0, rtol=1e-12)
    assert ax.get_zlabel() == "y"


def test_local_models_are_the_consequents_around_each_centre():
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, size=(300, 1))
    y = np.tanh(X[:, 0])
    model = RandomTSRegressor(
        n_rules=5, normalize=True, centers="data", random_state=3, structure="random"
    ).fit(X, y)
    rb = model.rule_base_
    ax = plot_local_models(model, X=X, y=y, n_sigmas=0.5)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["model"] + [f"R{i + 1}" for i in range(5)]
    grid = lines[0].get_xdata()
    np.testing.assert_allclose(lines[0].get_ydata(), model.predict(grid[:, None]), rtol=1e-14)
    for i, line in enumerate(lines[1:]):
        c, s = rb.centers[i, 0], rb.sigmas[i, 0]
        x = line.get_xdata()
        np.testing.assert_allclose(x, [c - 0.5 * s, c, c + 0.5 * s], rtol=1e-14)
        np.testing.assert_allclose(
            line.get_ydata(), rb.coef[i, 0, 0] * x + rb.intercept[i, 0], rtol=1e-12
        )
    np.testing.assert_array_equal(ax.collections[0].get_offsets(), np.column_stack([X[:, 0], y]))


def test_local_models_slice_at_fixed_inputs():
    rb = RuleBase(
        centers=[[1.0, 0.0]], sigmas=[[1.0, 1.0]], coef=[[[2.0, 10.0]]], intercept=[[1.0]]
    )
    ax = plot_local_models(rb, feature="x1", fixed=[0.0, 0.5], rules=[0], x_range=(0, 2))
    segment = ax.get_lines()[1]
    # y = 1 + 2*x1 + 10*0.5 at x1 = 0, 1, 2
    np.testing.assert_allclose(segment.get_ydata(), [6.0, 8.0, 10.0])
    # the view is the requested range and the model's outputs with a 25 % margin
    curve = ax.get_lines()[0].get_ydata()
    span = curve.max() - curve.min()
    assert ax.get_xlim() == (0.0, 2.0)
    assert ax.get_ylim() == pytest.approx((curve.min() - 0.25 * span, curve.max() + 0.25 * span))


def test_predicted_vs_true_draws_each_output_and_the_identity():
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(40, 2))
    P = Y + rng.normal(scale=[0.1, 0.3], size=(40, 2))
    ax = plot_predicted_vs_true(Y, P, output_names=["x1(k+1)", "x2(k+1)"])
    series = ax.collections
    assert len(series) == 2
    for m, collection in enumerate(series):
        np.testing.assert_array_equal(collection.get_offsets(), np.column_stack([Y[:, m], P[:, m]]))
        rmse = np.sqrt(np.mean((P[:, m] - Y[:, m]) ** 2))
        assert collection.get_label() == f"x{m + 1}(k+1): RMSE = {rmse:.3g}"
    identity = ax.get_lines()[0]
    low, high = min(Y.min(), P.min()), max(Y.max(), P.max())
    np.testing.assert_array_equal(identity.get_xydata(), [[low, low], [high, high]])


def test_draws_on_the_axes_it_is_given_and_never_shows(monkeypatch):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("show() was called"))
    figure, axes = plt.subplots(1, 2)
    model, X, y = two_input_model(0)
    assert plot_rule_centers(model, X, ax=axes[0]) is axes[0]
    assert plot_predicted_vs_true(y, model.predict(X), ax=axes[1]) is axes[1]
    assert len(plt.get_fignums()) == 1


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda m: plot_memberships(m, feature=5),
            ValueError,
            r"'feature' parameter must lie in \[0, 2\); got 5",
        ),
        (
            lambda m: plot_memberships(m, feature="speed"),
            ValueError,
            r"Unknown feature 'speed'.*\['x1', 'x2'\]",
        ),
        (
            lambda m: plot_memberships(m, feature=1.0),
            TypeError,
            "'feature' parameter must be an int or a name",
        ),
        (
            lambda m: plot_memberships(m, rules=[9]),
            ValueError,
            r"rules must lie in \[0, 6\); got \[9\]",
        ),
        (
            lambda m: plot_memberships(m, x_range=(1, 0)),
            ValueError,
            "'x_range' parameter must be a pair",
        ),
        (lambda m: plot_rule_centers(m, features=(0, 0)), ValueError, "two different inputs"),
        (
            lambda m: plot_rule_centers(m, np.zeros((5, 3))),
            ValueError,
            "X has 3 features, but the model is expecting 2",
        ),
        (
            lambda m: plot_surface(m, kind="mesh"),
            ValueError,
            "'kind' parameter must be 'contour' or 'surface'; got 'mesh'",
        ),
        (lambda m: plot_surface(m, output="z"), ValueError, "Unknown output 'z'"),
        (
            lambda m: plot_local_models(m, n_sigmas=0),
            ValueError,
            "'n_sigmas' parameter must be a finite real",
        ),
        (
            lambda m: plot_local_models(m, X=np.zeros((3, 2)), y=np.zeros(4)),
            ValueError,
            "same number of samples",
        ),
        (
            lambda m: plot_memberships(RandomTSRegressor(structure="random")),
            TypeError,
            r"RandomTSRegressor \(not fitted: call fit first\)",
        ),
        (lambda m: plot_predicted_vs_true([1.0, 2.0], [1.0]), ValueError, "same shape"),
    ],
)
def test_bad_input_is_named(call, error, message):
    model, _, _ = two_input_model(0)
    with pytest.raises(error, match=message):
        call(model)


def test_no_module_imports_matplotlib_at_import_time():
    """Every module of the package, plotting included, imports without matplotlib."""
    import subprocess
    import sys

    code = (
        "import importlib, pkgutil, sys, randomts\n"
        "for module in pkgutil.walk_packages(randomts.__path__, 'randomts.'):\n"
        "    importlib.import_module(module.name)\n"
        "print('randomts.plotting' in sys.modules, 'matplotlib' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "True False"
