"""Pictures of the rules: membership sets, rule centres, local models."""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix, check_real
from randomts.core.membership import gaussian_memberships
from randomts.fuzzy.system import FuzzySystem
from randomts.plotting._common import (
    _MAX_LABELLED_RULES,
    _as_rule_base,
    _check_data,
    _feature_pair,
    _fixed_inputs,
    _index,
    _new_axes,
    _range,
    _rule_indices,
    as_model,
)


def plot_memberships(model, feature=0, *, rules=None, x_range=None, n_points=400, ax=None):
    """The membership functions of one input: a rule base's Gaussian in every rule, a system's terms.

    Parameters
    ----------
    model : RuleBase, FuzzySystem or fitted estimator
        The rules. A FuzzySystem's input terms are drawn, each once, labelled
        with its name (in the order the input variable lists them).
    feature : int or str, default=0
        The input, by position or by name.
    rules : sequence of int, optional
        The rules to draw (0-based); all by default. For a FuzzySystem, the
        terms of the input that these rules name.
    x_range : (float, float), optional
        The interval drawn; by default the recorded input range
        (:attr:`RuleBase.input_range`, a FuzzySystem's variable range), else
        the centres widened by three median widths on each side (a system's
        terms' parameters).
    n_points : int, default=400
        Points per curve.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.

    Returns
    -------
    matplotlib.axes.Axes
        One line per rule, labelled ``R1``, ``R2``, ... (per term of a
        FuzzySystem, labelled with the term's name; a legend is drawn for up
        to 12 lines).

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

    A system's terms, by name:

    >>> from randomts import FuzzySystem
    >>> from randomts.fuzzy import InputVariable, OutputVariable
    >>> from randomts.fuzzy.terms import Constant, Triangle
    >>> system = FuzzySystem(
    ...     [InputVariable("food", {"bad": Triangle(0, 0, 6), "good": Triangle(4, 10, 10)},
    ...                    range=(0, 10))],
    ...     [OutputVariable("tip", {"low": Constant(5.0), "high": Constant(20.0)}, range=(0, 30))],
    ...     ["if food is bad then tip is low", "if food is good then tip is high"])
    >>> ax = plot_memberships(system, "food")
    >>> [line.get_label() for line in ax.get_lines()], [float(v) for v in ax.get_xlim()]
    (['bad', 'good'], [0.0, 10.0])
    """
    model = as_model(model, "plot_memberships")
    k = _index(feature, model.input_names, "feature")
    index = _rule_indices(model, rules)
    n_points = check_int(n_points, "n_points", low=2)
    low, high = _range(x_range, model, k, None, "x_range")
    grid = np.linspace(low, high, n_points)
    name = model.input_names[k]
    if isinstance(model, FuzzySystem):
        curves = [
            (term, model.inputs[k].terms[term](grid))
            for term in _terms_of(model, k, None if rules is None else index)
        ]
        if not curves:
            raise ValueError(
                f"The 'rules' parameter selects rules {index.tolist()} "
                f"({', '.join(f'R{i + 1}' for i in index)}), which name no term of input "
                f"{name!r}; choose rules that use it."
            )
        title = f"Terms of {name} ({len(curves)} terms)"
    else:
        mu = gaussian_memberships(
            grid[:, None], model.centers[index][:, [k]], model.sigmas[index][:, [k]]
        )[:, :, 0]
        curves = [(f"R{i + 1}", mu[:, column]) for column, i in enumerate(index)]
        title = f"Gaussian sets of {name} ({index.size} rules)"
    ax = _new_axes(ax)
    for label, values in curves:
        ax.plot(grid, values, label=label)
    ax.set_xlim(low, high)
    ax.set_ylim(0.0, 1.05 * max([1.0, *(float(np.max(v)) for _, v in curves)]))
    ax.set_xlabel(name)
    ax.set_ylabel("membership")
    ax.set_title(title)
    if len(curves) <= _MAX_LABELLED_RULES:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return ax


def _terms_of(system, k, index):
    """The terms of input ``k`` that the rules ``index`` name (all if None), in the variable's order."""
    variable = system.inputs[k]
    if index is None:
        return list(variable.terms)
    named = set()
    for i in index:
        antecedent = system.rules[i].antecedent
        stack = [antecedent]
        while stack:
            node = stack.pop()
            if hasattr(node, "operands"):
                stack.extend(node.operands)
            elif node.variable == variable.name and node.term is not None:
                named.add(node.term)
    return [term for term in variable.terms if term in named]


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
    rule_base = _as_rule_base(model, "plot_rule_centers")
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
    rule_base = _as_rule_base(model, "plot_local_models")
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
