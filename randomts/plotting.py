"""Pictures of a rule base, with matplotlib (the ``plot`` extra).

The rest of randomts never imports this module, and this module imports
matplotlib only when a function is called. Every function draws on the
``ax`` it is given (or on a new figure's axes), returns that ``Axes`` and
never calls ``show()``: the caller decides whether to show, save or test the
picture. A function that takes a model accepts a :class:`~randomts.RuleBase`
or a fitted estimator with a ``rule_base_`` attribute.

=============================== ============================================
function                        picture
=============================== ============================================
:func:`plot_memberships`        the Gaussian sets of one input, one per rule
:func:`plot_rule_centers`       rule centres and widths over 2-D data (the
                                paper's Figure 1)
:func:`plot_surface`            the output over two inputs (contours or 3-D)
:func:`plot_local_models`       each rule's linear consequent drawn around
                                its centre, with the model's output
:func:`plot_predicted_vs_true`  predictions against targets, one series per
                                output
:func:`plot_overview`           one figure: the sets of two inputs and the
                                output over them (``randomts plot``)
=============================== ============================================
"""

from __future__ import annotations

import numbers

import numpy as np

from randomts._validation import check_int, check_matrix, check_pair, check_real
from randomts.core.membership import gaussian_memberships
from randomts.fuzzy.rulebase import as_rule_base

__all__ = [
    "plot_memberships",
    "plot_rule_centers",
    "plot_surface",
    "plot_local_models",
    "plot_predicted_vs_true",
    "plot_overview",
]

# Legends and rule labels are drawn only up to this many rules (beyond, they hide the picture).
_MAX_LABELLED_RULES = 12


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            "randomts.plotting needs matplotlib; install the plot extra: "
            "pip install 'randomts[plot]'."
        ) from exc
    return plt


def _new_axes(ax, *, projection=None):
    if ax is not None:
        return ax
    figure = _pyplot().figure(layout="constrained")
    return figure.add_subplot(projection=projection)


def _index(value, names, what):
    """Position of an input or output given by index or by name."""
    if isinstance(value, str):
        if value not in names:
            raise ValueError(f"Unknown {what} {value!r}; the model's {what}s are {list(names)}.")
        return names.index(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"The {what!r} parameter must be an int or a name; got {value!r}.")
    if not 0 <= value < len(names):
        raise ValueError(f"The {what!r} parameter must lie in [0, {len(names)}); got {value}.")
    return int(value)


def _feature_pair(rule_base, features):
    """Positions of two different inputs given by position or name."""
    if not isinstance(features, (tuple, list)) or len(features) != 2:
        raise ValueError(f"features must be a pair of inputs; got {features!r}.")
    k0, k1 = (_index(f, rule_base.input_names, "feature") for f in features)
    if k0 == k1:
        raise ValueError(f"features must name two different inputs; got {features!r}.")
    return k0, k1


def _rule_indices(rule_base, rules):
    if rules is None:
        return np.arange(rule_base.n_rules)
    index = np.atleast_1d(np.asarray(rules))
    if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
        raise ValueError(f"rules must be a non-empty sequence of rule indices; got {rules!r}.")
    if index.min() < 0 or index.max() >= rule_base.n_rules:
        raise ValueError(f"rules must lie in [0, {rule_base.n_rules}); got {index.tolist()}.")
    return index


def _default_range(rule_base, k, X):
    """Range of input ``k`` in ``X``, else the recorded one, else the centres +- 3 median widths."""
    if X is not None:
        low, high = float(X[:, k].min()), float(X[:, k].max())
        if high > low:
            return low, high
    if rule_base.input_range is not None:
        low, high = (float(v) for v in rule_base.input_range[k])
        if high > low:
            return low, high
    centers = rule_base.centers[:, k]
    spread = 3.0 * float(np.median(rule_base.sigmas[:, k]))
    return float(centers.min()) - spread, float(centers.max()) + spread


def _range(value, rule_base, k, X, name):
    return _default_range(rule_base, k, X) if value is None else check_pair(value, name)


def _fixed_inputs(rule_base, X, fixed):
    """The values the inputs not plotted are held at.

    ``fixed``, else the data's mean, else the middle of the recorded input
    ranges, else 0.
    """
    if fixed is not None:
        return check_matrix(
            fixed, "fixed", ndim=1, n_columns=rule_base.n_features, owner="the model"
        )
    if X is not None:
        return X.mean(axis=0)
    if rule_base.input_range is not None:
        return rule_base.input_range.mean(axis=1)
    return np.zeros(rule_base.n_features)


def _check_data(X, rule_base):
    if X is None:
        return None
    return check_matrix(X, "X", n_columns=rule_base.n_features, owner="the model")


def plot_memberships(model, feature=0, *, rules=None, x_range=None, n_points=400, ax=None):
    """The Gaussian membership function of one input in every rule.

    Parameters
    ----------
    model : RuleBase or fitted estimator
        The rules.
    feature : int or str, default=0
        The input, by position or by name.
    rules : sequence of int, optional
        The rules to draw (0-based); all by default.
    x_range : (float, float), optional
        The interval drawn; by default the recorded :attr:`RuleBase.input_range`,
        else the centres widened by three median widths on each side.
    n_points : int, default=400
        Points per curve.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        One line per rule, labelled ``R1``, ``R2``, ... (a legend is drawn
        for up to 12 rules).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [0.5]])
    >>> ax = plot_memberships(rb, x_range=(-3, 4))
    >>> [line.get_label() for line in ax.get_lines()]
    ['R1', 'R2']
    >>> float(ax.get_lines()[1].get_ydata().max()) > 0.99
    True
    """
    rule_base = as_rule_base(model, "plot_memberships")
    k = _index(feature, rule_base.input_names, "feature")
    index = _rule_indices(rule_base, rules)
    n_points = check_int(n_points, "n_points", low=2)
    low, high = _range(x_range, rule_base, k, None, "x_range")
    grid = np.linspace(low, high, n_points)
    mu = gaussian_memberships(
        grid[:, None], rule_base.centers[index][:, [k]], rule_base.sigmas[index][:, [k]]
    )[:, :, 0]
    ax = _new_axes(ax)
    for column, i in enumerate(index):
        ax.plot(grid, mu[:, column], label=f"R{i + 1}")
    ax.set_xlim(low, high)
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel(rule_base.input_names[k])
    ax.set_ylabel("membership")
    ax.set_title(f"Gaussian sets of {rule_base.input_names[k]} ({index.size} rules)")
    if index.size <= _MAX_LABELLED_RULES:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return ax


def plot_rule_centers(model, X=None, *, features=(0, 1), n_sigmas=1.0, rules=None, ax=None):
    """Rule centres and widths over the data, in two inputs (the paper's Figure 1).

    Each rule is a black dot at its centre and an ellipse of semi-axes
    ``n_sigmas`` times its Gaussian widths; the data are grey points, or grey
    lines when ``X`` is a stack of trajectories.

    Parameters
    ----------
    model : RuleBase or fitted estimator
        The rules.
    X : array-like, optional
        Data to draw under the rules: points, shape (n_samples, n_features), or
        one line per trajectory, shape (n_trajectories, n_steps, n_features).
    features : (int or str, int or str), default=(0, 1)
        The two inputs, by position or name (horizontal, vertical).
    n_sigmas : float or None, default=1.0
        Semi-axes of the ellipses in standard deviations; None draws no ellipse.
    rules : sequence of int, optional
        The rules to draw; all by default.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        The centres are the line labelled ``"rule centres"``; the ellipses are
        ``ax.patches``. The view covers the data and the centres (wide
        ellipses may extend beyond it).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from randomts import RuleBase
    >>> rb = RuleBase.random(n_features=2, n_rules=5, random_state=0)
    >>> ax = plot_rule_centers(rb)
    >>> len(ax.patches), ax.get_lines()[0].get_label()
    (5, 'rule centres')
    """
    rule_base = as_rule_base(model, "plot_rule_centers")
    k0, k1 = _feature_pair(rule_base, features)
    index = _rule_indices(rule_base, rules)
    if n_sigmas is not None:
        n_sigmas = check_real(n_sigmas, "n_sigmas", low=0.0, low_inclusive=False)
    ax = _new_axes(ax)
    points = [rule_base.centers[index][:, [k0, k1]]]
    if X is not None:
        if np.ndim(X) == 3:
            trajectories = check_matrix(
                X, "X", ndim=3, n_columns=rule_base.n_features, owner="the model"
            )
            for r, trajectory in enumerate(trajectories):
                ax.plot(
                    trajectory[:, k0],
                    trajectory[:, k1],
                    color="0.6",
                    linewidth=0.8,
                    label="data" if r == 0 else "_nolegend_",
                )
            data = trajectories.reshape(-1, rule_base.n_features)
        else:
            data = _check_data(X, rule_base)
            ax.scatter(data[:, k0], data[:, k1], s=4, color="0.6", label="data")
        points.append(data[:, [k0, k1]])
    if n_sigmas is not None:
        from matplotlib.patches import Ellipse

        for i in index:
            ax.add_patch(
                Ellipse(
                    (rule_base.centers[i, k0], rule_base.centers[i, k1]),
                    width=2 * n_sigmas * rule_base.sigmas[i, k0],
                    height=2 * n_sigmas * rule_base.sigmas[i, k1],
                    fill=False,
                    edgecolor="tab:blue",
                    alpha=0.5,
                    linewidth=0.8,
                )
            )
    ax.plot(
        rule_base.centers[index, k0],
        rule_base.centers[index, k1],
        "o",
        color="black",
        markersize=4,
        label="rule centres",
    )
    if index.size <= _MAX_LABELLED_RULES:
        for i in index:
            ax.annotate(
                f"R{i + 1}",
                (rule_base.centers[i, k0], rule_base.centers[i, k1]),
                xytext=(4, 4),
                textcoords="offset points",
                fontsize="small",
            )
    everything = np.vstack(points)
    low, high = everything.min(axis=0), everything.max(axis=0)
    pad = 0.05 * np.where(high > low, high - low, 1.0)
    ax.set_xlim(low[0] - pad[0], high[0] + pad[0])
    ax.set_ylim(low[1] - pad[1], high[1] + pad[1])
    ax.set_xlabel(rule_base.input_names[k0])
    ax.set_ylabel(rule_base.input_names[k1])
    title = f"{index.size} rule centres"
    if n_sigmas is not None:
        title += f" and their {n_sigmas:g}-sigma ellipses"
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return ax


def _grid_inputs(k0, k1, g0, g1, fixed):
    """Rows of ``fixed`` with inputs ``k0`` and ``k1`` replaced by the grid ``(g0, g1)``."""
    inputs = np.tile(fixed, (g0.size, 1))
    inputs[:, k0] = g0.ravel()
    inputs[:, k1] = g1.ravel()
    return inputs


def plot_surface(
    model,
    X=None,
    *,
    features=(0, 1),
    output=0,
    kind="contour",
    x_range=None,
    y_range=None,
    fixed=None,
    n_points=60,
    ax=None,
):
    """A model's output over two of its inputs, the others held fixed.

    Parameters
    ----------
    model : RuleBase or fitted estimator
        The model; its rule base is evaluated.
    X : array-like of shape (n_samples, n_features), optional
        Data: sets the default ranges and the default ``fixed`` values (its
        mean), and is drawn as points on a contour plot.
    features : (int or str, int or str), default=(0, 1)
        The two inputs, by position or name.
    output : int or str, default=0
        The output drawn.
    kind : {"contour", "surface"}, default="contour"
        Filled contours with a colour bar, or a 3-D surface (``ax`` must then
        be a 3-D axes, if given).
    x_range, y_range : (float, float), optional
        Ranges of the two inputs; by default the data's, else the recorded
        :attr:`RuleBase.input_range`, else the centres' widened by three
        median widths.
    fixed : array-like of shape (n_features,), optional
        Values of all inputs (the two drawn are ignored); default the data's
        mean, else the middle of the recorded input ranges, else zeros.
    n_points : int, default=60
        Grid points per input.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        For ``"contour"`` the filled contour set is ``ax.collections[0]``;
        for ``"surface"`` the surface is the first collection of the 3-D axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 1.0]], intercept=[[2.0]])
    >>> ax = plot_surface(rb, x_range=(-2, 2), y_range=(-2, 2))
    >>> contours = ax.collections[0]
    >>> bool(contours.levels[0] <= 0.04 and contours.levels[-1] >= 2.0)
    True
    """
    rule_base = as_rule_base(model, "plot_surface")
    k0, k1 = _feature_pair(rule_base, features)
    m = _index(output, rule_base.output_names, "output")
    if kind not in ("contour", "surface"):
        raise ValueError(f"The 'kind' parameter must be 'contour' or 'surface'; got {kind!r}.")
    n_points = check_int(n_points, "n_points", low=2)
    X = _check_data(X, rule_base)
    x0 = np.linspace(*_range(x_range, rule_base, k0, X, "x_range"), n_points)
    x1 = np.linspace(*_range(y_range, rule_base, k1, X, "y_range"), n_points)
    g0, g1 = np.meshgrid(x0, x1)
    inputs = _grid_inputs(k0, k1, g0, g1, _fixed_inputs(rule_base, X, fixed))
    Z = rule_base.predict(inputs)[:, m].reshape(g0.shape)
    name = rule_base.output_names[m]
    if kind == "surface":
        ax = _new_axes(ax, projection="3d")
        ax.plot_surface(g0, g1, Z, cmap="viridis", linewidth=0, antialiased=True)
        ax.set_zlabel(name)
    else:
        ax = _new_axes(ax)
        contours = ax.contourf(g0, g1, Z, levels=20, cmap="viridis")
        ax.figure.colorbar(contours, ax=ax, label=name)
        if X is not None:
            ax.scatter(
                X[:, k0], X[:, k1], s=3, color="white", edgecolors="none", alpha=0.6, label="data"
            )
    ax.set_xlabel(rule_base.input_names[k0])
    ax.set_ylabel(rule_base.input_names[k1])
    ax.set_title(f"{name} over ({rule_base.input_names[k0]}, {rule_base.input_names[k1]})")
    return ax


def plot_local_models(
    model,
    feature=0,
    *,
    output=0,
    X=None,
    y=None,
    fixed=None,
    n_sigmas=1.0,
    rules=None,
    x_range=None,
    n_points=400,
    ax=None,
):
    """Each rule's linear consequent drawn around its centre, over one input.

    Rule ``i``'s consequent ``A_i x + b_i`` is drawn as a segment over
    ``c_ik +/- n_sigmas * sigma_ik`` with a dot at the centre, the other
    inputs held at ``fixed``; the model's output is the black curve. In a
    weighted-average model (``normalize=True``) with little overlap each
    segment is the model's local linearisation; in a weighted sum
    (``normalize=False``) the consequents are the terms the firing strengths
    add up, and can lie far from the output.

    Parameters
    ----------
    model : RuleBase or fitted estimator
        The rules.
    feature : int or str, default=0
        The input on the horizontal axis.
    output : int or str, default=0
        The output on the vertical axis.
    X, y : array-like, optional
        Data drawn as grey points (``y`` of shape (n_samples,) or
        (n_samples, n_outputs)); ``X`` also sets the default range and the
        default ``fixed`` values (its mean).
    fixed : array-like of shape (n_features,), optional
        Values of the other inputs; default the data's mean, else the middle
        of the recorded input ranges, else zeros.
    n_sigmas : float, default=1.0
        Half-length of each segment, in the rule's standard deviations.
    rules : sequence of int, optional
        The rules to draw; all by default.
    x_range : (float, float), optional
        Range of the model curve.
    n_points : int, default=400
        Points of the model curve.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        The first line is the model (label ``"model"``), then one line per rule
        (labels ``R1``, ...). The view spans ``x_range`` and the model's (and
        the data's) outputs, with a margin; segments beyond it are clipped.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0], [3.0]], sigmas=[[0.5], [0.5]],
    ...               coef=[[[1.0]], [[-1.0]]], intercept=[[0.0], [6.0]], normalize=True)
    >>> ax = plot_local_models(rb, x_range=(-1, 4))
    >>> [line.get_label() for line in ax.get_lines()]
    ['model', 'R1', 'R2']
    >>> ax.get_lines()[2].get_xydata().tolist()
    [[2.5, 3.5], [3.0, 3.0], [3.5, 2.5]]
    """
    rule_base = as_rule_base(model, "plot_local_models")
    k = _index(feature, rule_base.input_names, "feature")
    m = _index(output, rule_base.output_names, "output")
    index = _rule_indices(rule_base, rules)
    n_sigmas = check_real(n_sigmas, "n_sigmas", low=0.0, low_inclusive=False)
    n_points = check_int(n_points, "n_points", low=2)
    X = _check_data(X, rule_base)
    base = _fixed_inputs(rule_base, X, fixed)
    low, high = _range(x_range, rule_base, k, X, "x_range")
    grid = np.linspace(low, high, n_points)
    inputs = np.tile(base, (n_points, 1))
    inputs[:, k] = grid
    curve = rule_base.predict(inputs)[:, m]
    ax = _new_axes(ax)
    ax.plot(grid, curve, color="black", linewidth=2, label="model")
    for i in index:
        center, half = rule_base.centers[i, k], n_sigmas * rule_base.sigmas[i, k]
        points = np.tile(base, (3, 1))
        points[:, k] = [center - half, center, center + half]
        values = rule_base.rule_outputs(points)[:, i, m]
        ax.plot(
            points[:, k],
            values,
            "-",
            marker="o",
            markevery=[1],
            markersize=4,
            linewidth=1.5,
            alpha=0.8,
            label=f"R{i + 1}",
        )
    if X is not None and y is not None:
        Y = check_matrix(y, "y", allow_1d=True, column_label="outputs")
        if Y.shape[0] != X.shape[0]:
            raise ValueError(
                f"X and y must have the same number of samples; got {X.shape[0]} and {Y.shape[0]}."
            )
        if Y.shape[1] != rule_base.n_outputs:
            raise ValueError(
                f"y has {Y.shape[1]} outputs, but the model has {rule_base.n_outputs}."
            )
        ax.scatter(X[:, k], Y[:, m], s=5, color="0.6", zorder=0, label="data")
        curve = np.concatenate([curve, Y[:, m]])
    # the view is the model's (and the data's): wide or steep consequents are clipped
    bottom, top = float(curve.min()), float(curve.max())
    pad = 0.25 * (top - bottom) if top > bottom else 1.0
    ax.set_xlim(low, high)
    ax.set_ylim(bottom - pad, top + pad)
    ax.set_xlabel(rule_base.input_names[k])
    ax.set_ylabel(rule_base.output_names[m])
    ax.set_title(
        f"Local linear models of {rule_base.output_names[m]} over {rule_base.input_names[k]}"
    )
    if index.size <= _MAX_LABELLED_RULES:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return ax


def plot_predicted_vs_true(y_true, y_pred, *, output_names=None, ax=None):
    """Predictions against targets, one series per output, with the identity line.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets and predictions.
    output_names : sequence of str, optional
        Series labels; ``y`` or ``y1``, ``y2``, ... by default.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        One scatter collection per output, labelled ``"<name>: RMSE = ..."``,
        and the dashed identity line (label ``"y = x"``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_predicted_vs_true([0.0, 1.0, 2.0], [0.0, 1.0, 2.5])
    >>> ax.collections[0].get_label()
    'y: RMSE = 0.289'
    """
    Y_true = check_matrix(y_true, "y_true", allow_1d=True, column_label="outputs")
    Y_pred = check_matrix(y_pred, "y_pred", allow_1d=True, column_label="outputs")
    if Y_true.shape != Y_pred.shape:
        raise ValueError(
            "y_true and y_pred must have the same shape; "
            f"got {np.shape(y_true)} and {np.shape(y_pred)}."
        )
    n_outputs = Y_true.shape[1]
    if output_names is None:
        output_names = ["y"] if n_outputs == 1 else [f"y{m + 1}" for m in range(n_outputs)]
    output_names = [output_names] if isinstance(output_names, str) else list(output_names)
    if len(output_names) != n_outputs:
        raise ValueError(f"output_names must hold {n_outputs} names; got {output_names!r}.")
    ax = _new_axes(ax)
    for m, name in enumerate(output_names):
        rmse = float(np.sqrt(np.mean((Y_pred[:, m] - Y_true[:, m]) ** 2)))
        ax.scatter(Y_true[:, m], Y_pred[:, m], s=6, alpha=0.6, label=f"{name}: RMSE = {rmse:.3g}")
    low = float(min(Y_true.min(), Y_pred.min()))
    high = float(max(Y_true.max(), Y_pred.max()))
    ax.plot([low, high], [low, high], "--", color="black", linewidth=1, label="y = x")
    ax.set_xlabel("true")
    ax.set_ylabel("predicted")
    ax.set_title("Predicted against true")
    ax.legend(fontsize="small")
    return ax


def plot_overview(model, X=None, *, features=(0, 1), output=0, fixed=None, figure=None):
    """One figure of a model: the Gaussian sets of two inputs and the output over them.

    Three panels: :func:`plot_memberships` of each of the two inputs and
    :func:`plot_surface` (filled contours) of the output over them, the other
    inputs held at the middle of their ranges. A model with one input gets
    two panels: its sets and :func:`plot_local_models`. Ranges are those of
    ``X``, else the recorded :attr:`RuleBase.input_range`, else the centres'
    widened by three median widths.

    Parameters
    ----------
    model : RuleBase or fitted estimator
        The model.
    X : array-like of shape (n_samples, n_features), optional
        Data: sets the ranges and is drawn as points.
    features : (int or str, int or str), default=(0, 1)
        The two inputs, by position or name (ignored with one input).
    output : int or str, default=0
        The output drawn.
    fixed : array-like of shape (n_features,), optional
        Values of the inputs not drawn; default the middle of their ranges.
    figure : matplotlib Figure, optional
        Where to draw (its existing axes are kept); by default a new
        :class:`matplotlib.figure.Figure`, not registered with pyplot, so
        that saving it leaves no global state behind.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0, 0.0], [1.0, 2.0]], sigmas=[[1.0, 1.0]] * 2,
    ...               intercept=[[2.0], [1.0]], input_range=[[-1.0, 2.0], [0.0, 3.0]])
    >>> fig = plot_overview(rb)
    >>> [ax.get_xlabel() for ax in fig.axes[:3]]
    ['x1', 'x2', 'x1']
    >>> [round(float(v), 6) for v in fig.axes[0].get_xlim()]
    [-1.0, 2.0]
    """
    rule_base = as_rule_base(model, "plot_overview")
    X = _check_data(X, rule_base)
    if figure is None:
        _pyplot()  # the clear error when matplotlib is missing
        from matplotlib.figure import Figure

        figure = Figure(
            figsize=(13.0, 4.0) if rule_base.n_features > 1 else (9.0, 4.0), layout="constrained"
        )
    if fixed is None:
        fixed = [np.mean(_default_range(rule_base, k, X)) for k in range(rule_base.n_features)]
    if rule_base.n_features == 1:
        first, second = figure.subplots(1, 2)
        plot_memberships(rule_base, 0, x_range=_default_range(rule_base, 0, X), ax=first)
        plot_local_models(
            rule_base,
            0,
            output=output,
            X=X,
            fixed=fixed,
            x_range=_default_range(rule_base, 0, X),
            ax=second,
        )
        return figure
    k0, k1 = _feature_pair(rule_base, features)
    axes = figure.subplots(1, 3)
    for ax, k in zip(axes[:2], (k0, k1), strict=True):
        plot_memberships(rule_base, k, x_range=_default_range(rule_base, k, X), ax=ax)
    plot_surface(rule_base, X, features=(k0, k1), output=output, fixed=fixed, ax=axes[2])
    return figure
