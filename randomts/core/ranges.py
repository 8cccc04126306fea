"""Where rows lie against the training ranges: the edge of the data, with a margin.

A model is fitted on inputs that each span ``[low, high]``; beyond that it
extrapolates. A value counts as beyond its training range when it lies
farther out than :data:`EXTRAPOLATION_MARGIN` times the span ``high - low``
(any value other than the training one, for an input that was constant):
a test row at the edge of the data is common, one well past it is not.

Examples
--------
>>> import numpy as np
>>> low, high = np.array([0.0, 10.0]), np.array([1.0, 20.0])
>>> beyond_range(np.array([[0.5, 20.4], [1.2, 15.0]]), low, high)
array([[False, False],
       [ True, False]])
>>> np.round(span_distance(np.array([[1.2, 9.0]]), low, high), 3)
array([[ 0.2, -0.1]])
"""

from __future__ import annotations

import numpy as np

__all__ = ["EXTRAPOLATION_MARGIN", "beyond_range", "span_distance"]

#: How far past an input's training range, as a fraction of its span, a value is beyond it.
EXTRAPOLATION_MARGIN = 0.1


def span_distance(X, low, high):
    """How far each value lies outside ``[low, high]``, in units of the span ``high - low``.

    Positive above ``high``, negative below ``low``, 0 inside. For a
    column whose span is 0 the distance is in the data's units instead.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    low, high : ndarray of shape (n_features,)

    Returns
    -------
    ndarray of shape (n_samples, n_features)
    """
    span = np.where(high > low, high - low, 1.0)
    above = np.maximum(X - high, 0.0)
    below = np.maximum(low - X, 0.0)
    return (above - below) / span


def beyond_range(X, low, high, margin=EXTRAPOLATION_MARGIN):
    """Which values lie beyond their column's training range by more than ``margin`` of its span.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    low, high : ndarray of shape (n_features,)
        The training range of each column.
    margin : float, default=EXTRAPOLATION_MARGIN
        The fraction of the span allowed past each end.

    Returns
    -------
    ndarray of bool, shape (n_samples, n_features)
    """
    reach = margin * (high - low)
    return (X < low - reach) | (X > high + reach)
