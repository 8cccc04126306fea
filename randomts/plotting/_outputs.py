"""Pictures of the outputs: surfaces, predictions against targets, the overview."""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix
from randomts.fuzzy.system import FuzzySystem
from randomts.plotting._common import (
    _check_data,
    _default_range,
    _feature_pair,
    _fixed_inputs,
    _index,
    _new_axes,
    _pyplot,
    _range,
    as_model,
)
from randomts.plotting._rules import plot_local_models, plot_memberships


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
    model : RuleBase, FuzzySystem or fitted estimator
        The model; its ``predict`` is evaluated on the grid (a weighted
        average is NaN, and left blank, where no rule fires).
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
        input ranges (:attr:`RuleBase.input_range`, a FuzzySystem's variable
        ranges), else the centres' widened by three median widths.
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
    model = as_model(model, "plot_surface")
    k0, k1 = _feature_pair(model, features)
    m = _index(output, model.output_names, "output")
    if kind not in ("contour", "surface"):
        raise ValueError(f"The 'kind' parameter must be 'contour' or 'surface'; got {kind!r}.")
    n_points = check_int(n_points, "n_points", low=2)
    X = _check_data(X, model)
    x0 = np.linspace(*_range(x_range, model, k0, X, "x_range"), n_points)
    x1 = np.linspace(*_range(y_range, model, k1, X, "y_range"), n_points)
    g0, g1 = np.meshgrid(x0, x1)
    inputs = _grid_inputs(k0, k1, g0, g1, _fixed_inputs(model, X, fixed))
    Z = model.predict(inputs)[:, m].reshape(g0.shape)
    name = model.output_names[m]
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
    ax.set_xlabel(model.input_names[k0])
    ax.set_ylabel(model.input_names[k1])
    ax.set_title(f"{name} over ({model.input_names[k0]}, {model.input_names[k1]})")
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
    two panels: its sets and :func:`plot_local_models` (for a FuzzySystem
    not of RuleBase shape, the output over the input). Ranges are those of
    ``X``, else the recorded input ranges (:attr:`RuleBase.input_range`, a
    FuzzySystem's variable ranges), else the centres' widened by three
    median widths.

    Parameters
    ----------
    model : RuleBase, FuzzySystem or fitted estimator
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
    model = as_model(model, "plot_overview")
    X = _check_data(X, model)
    if figure is None:
        _pyplot()  # the clear error when matplotlib is missing
        from matplotlib.figure import Figure

        figure = Figure(
            figsize=(13.0, 4.0) if model.n_features > 1 else (9.0, 4.0), layout="constrained"
        )
    if fixed is None:
        fixed = [np.mean(_default_range(model, k, X)) for k in range(model.n_features)]
    if model.n_features == 1:
        first, second = figure.subplots(1, 2)
        x_range = _default_range(model, 0, X)
        plot_memberships(model, 0, x_range=x_range, ax=first)
        general = isinstance(model, FuzzySystem) and model.rule_base_mismatch() is not None
        if general:
            _plot_output_curve(model, output, x_range, second)
        else:
            plot_local_models(model, 0, output=output, X=X, fixed=fixed, x_range=x_range, ax=second)
        return figure
    k0, k1 = _feature_pair(model, features)
    axes = figure.subplots(1, 3)
    for ax, k in zip(axes[:2], (k0, k1), strict=True):
        plot_memberships(model, k, x_range=_default_range(model, k, X), ax=ax)
    plot_surface(model, X, features=(k0, k1), output=output, fixed=fixed, ax=axes[2])
    return figure


def _plot_output_curve(model, output, x_range, ax, n_points=400):
    """The output ``output`` of a one-input model over ``x_range``."""
    m = _index(output, model.output_names, "output")
    grid = np.linspace(*x_range, n_points)
    ax.plot(grid, model.predict(grid[:, None])[:, m], color="black", linewidth=2, label="model")
    ax.set_xlim(*x_range)
    ax.set_xlabel(model.input_names[0])
    ax.set_ylabel(model.output_names[m])
    ax.set_title(f"{model.output_names[m]} over {model.input_names[0]}")
    return ax
