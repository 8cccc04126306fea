"""What the pictures share: pyplot on demand, the model, its inputs and ranges."""

from __future__ import annotations

import numbers

import numpy as np

from randomts._validation import check_matrix, check_pair
from randomts.analysis.protocol import as_model
from randomts.fuzzy.system import FuzzySystem

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


def _as_rule_base(model, caller):
    """The model as a RuleBase, for the pictures of Gaussian rules (centres and widths)."""
    model = as_model(model, caller)
    if isinstance(model, FuzzySystem):
        problem = model.rule_base_mismatch()
        if problem is not None:
            raise TypeError(
                f"{caller} draws Gaussian rules (centres and widths) and needs a RuleBase, a "
                "fitted estimator or a FuzzySystem of RuleBase shape; got a FuzzySystem whose "
                f"{problem}. plot_memberships and plot_surface draw any system."
            )
        return model.to_rule_base()
    return model


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


def _feature_pair(model, features):
    """Positions of two different inputs given by position or name."""
    if not isinstance(features, (tuple, list)) or len(features) != 2:
        raise ValueError(f"features must be a pair of inputs; got {features!r}.")
    k0, k1 = (_index(f, model.input_names, "feature") for f in features)
    if k0 == k1:
        raise ValueError(f"features must name two different inputs; got {features!r}.")
    return k0, k1


def _rule_indices(model, rules):
    if rules is None:
        return np.arange(model.n_rules)
    index = np.atleast_1d(np.asarray(rules))
    if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
        raise ValueError(f"rules must be a non-empty sequence of rule indices; got {rules!r}.")
    if index.min() < 0 or index.max() >= model.n_rules:
        raise ValueError(f"rules must lie in [0, {model.n_rules}); got {index.tolist()}.")
    return index


def _default_range(model, k, X):
    """Range of input ``k`` in ``X``, else the recorded one, else from the rules' sets.

    The sets' range is, in a rule base, the centres widened by three median
    widths and, in a system, the span of its terms' parameters.
    """
    if X is not None:
        low, high = float(X[:, k].min()), float(X[:, k].max())
        if high > low:
            return low, high
    if model.input_range is not None:
        low, high = (float(v) for v in model.input_range[k])
        if high > low and np.isfinite(low) and np.isfinite(high):
            return low, high
    if isinstance(model, FuzzySystem):
        values = [
            v
            for term in model.inputs[k].terms.values()
            for v in term.parameters[: len(term.names)]
            if np.isfinite(v)
        ]
        low, high = (min(values), max(values)) if values else (-1.0, 1.0)
        return (low, high) if high > low else (low - 1.0, high + 1.0)
    centers = model.centers[:, k]
    spread = 3.0 * float(np.median(model.sigmas[:, k]))
    return float(centers.min()) - spread, float(centers.max()) + spread


def _range(value, model, k, X, name):
    return _default_range(model, k, X) if value is None else check_pair(value, name)


def _fixed_inputs(model, X, fixed):
    """The values the inputs not plotted are held at.

    ``fixed``, else the data's mean, else the middle of the recorded input
    ranges (0 for an input whose range is infinite), else 0.
    """
    if fixed is not None:
        return check_matrix(fixed, "fixed", ndim=1, n_columns=model.n_features, owner="the model")
    if X is not None:
        return X.mean(axis=0)
    if model.input_range is not None:
        with np.errstate(invalid="ignore"):
            middle = model.input_range.mean(axis=1)
        return np.where(np.isfinite(middle), middle, 0.0)
    return np.zeros(model.n_features)


def _check_data(X, model):
    if X is None:
        return None
    return check_matrix(X, "X", n_columns=model.n_features, owner="the model")
