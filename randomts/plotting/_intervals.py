"""Pictures of prediction intervals: the band along one input or along the rows."""

from __future__ import annotations

import numpy as np

from randomts._validation import check_matrix
from randomts.plotting._common import _index, _new_axes


def plot_interval(model, X, y=None, *, coverage=0.9, feature=None, output=0, ax=None):
    """A fitted estimator's prediction interval as a band, with its prediction and the targets.

    Parameters
    ----------
    model : RandomTSRegressor
        A fitted estimator with conformity scores (``fit_conformalize`` or
        ``conformalize``; see :meth:`RandomTSRegressor.predict_interval
        <randomts.RandomTSRegressor.predict_interval>`).
    X : array-like of shape (n_samples, n_features)
        The rows drawn.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
        Their targets, drawn as points; the legend then gives the share of
        them inside the band.
    coverage : float in (0, 1), default=0.9
        Coverage of the interval.
    feature : int or str, optional
        The input along the horizontal axis, by position or name (the rows
        are sorted along it). None: the row index, e.g. time for rows in
        time order.
    output : int or str, default=0
        The output drawn.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        The band is ``ax.collections[0]`` (label ``"<coverage>% interval
        (<method>)"``), the prediction ``ax.lines[0]``, the targets (if any)
        ``ax.collections[1]``, labelled with the share covered.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(300, 1)); y = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=300)
    >>> model = RandomTSRegressor(n_rules=10, structure="random", random_state=0)
    >>> model = model.fit_conformalize(X[:200], y[:200])
    >>> ax = plot_interval(model, X[200:], y[200:], feature=0)
    >>> ax.collections[0].get_label(), ax.collections[1].get_label()
    ('90% interval (jackknife+)', 'targets: 88% inside')
    """
    rule_base = getattr(model, "rule_base_", None)
    if rule_base is None or not hasattr(model, "predict_interval"):
        raise TypeError(
            "plot_interval needs a fitted estimator with prediction intervals (a "
            f"RandomTSRegressor after fit_conformalize or conformalize); got {type(model).__name__}."
        )
    X = check_matrix(X, "X", n_columns=rule_base.n_features, owner="the model")
    m = _index(output, rule_base.output_names, "output")
    lower, upper = model.predict_interval(X, coverage=coverage)
    prediction = model.predict(X)
    columns = [np.reshape(a, (X.shape[0], -1))[:, m] for a in (lower, upper, prediction)]
    lower, upper, prediction = columns
    if feature is None:
        position, label = np.arange(X.shape[0]), "row"
    else:
        k = _index(feature, rule_base.input_names, "feature")
        position, label = X[:, k], rule_base.input_names[k]
    order = np.argsort(position, kind="stable")
    ax = _new_axes(ax)
    method = model.conformity_method
    ax.fill_between(
        position[order],
        lower[order],
        upper[order],
        alpha=0.3,
        linewidth=0,
        label=f"{100 * coverage:g}% interval ({method})",
    )
    ax.plot(position[order], prediction[order], linewidth=1.2, label="prediction")
    if y is not None:
        Y = check_matrix(y, "y", allow_1d=True, column_label="outputs")
        if Y.shape[0] != X.shape[0]:
            raise ValueError(
                f"X and y must have the same number of rows; got {X.shape[0]} and {Y.shape[0]}."
            )
        target = Y[:, m]
        inside = float(np.mean((lower <= target) & (target <= upper)))
        ax.scatter(
            position, target, s=6, color="black", label=f"targets: {100 * inside:.3g}% inside"
        )
    ax.set_xlabel(label)
    ax.set_ylabel(rule_base.output_names[m])
    ax.set_title(f"Prediction interval at {100 * coverage:g}% coverage")
    ax.legend(fontsize="small")
    return ax
