"""Where a fitted estimator's training data lay, and the warnings about rows beyond it.

A fit records its :class:`TrainingDomain`: the ``[min, max]`` of every
input and output of the training rows, and the weakest firing of a
training row's strongest rule. ``predict`` then warns
(:class:`~randomts.exceptions.ExtrapolationWarning`) about rows beyond an
input's range and rows where no rule fires.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from randomts.core.membership import log_firing_strengths
from randomts.core.ranges import EXTRAPOLATION_MARGIN, beyond_range, span_distance
from randomts.exceptions import ExtrapolationWarning

__all__ = ["EXTRAPOLATION_FACTOR", "TrainingDomain", "is_plain_valid_input", "weakest_log_firing"]

#: ``predict`` warns about rows whose strongest rule fires below this fraction of the weakest
#: strongest-rule firing seen on a training row.
EXTRAPOLATION_FACTOR = 1e-3
# rows of training data whose firing is measured at once (bounds the work array)
_FIRING_ROWS = 1 << 14


def weakest_log_firing(antecedents, U):
    """The least over the rows of ``U`` of the log firing of each row's strongest rule.

    ``U`` is a checked float64 array of the antecedents' inputs.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [1.0]])
    >>> weakest_log_firing(rb, np.array([[0.0], [1.0], [3.0]]))
    -0.5
    """
    weakest = np.inf
    centers, sigmas = antecedents.centers, antecedents.sigmas
    for start in range(0, len(U), _FIRING_ROWS):
        # one block of strengths alive at a time: reduced to each row's strongest at once
        strengths = log_firing_strengths(U[start : start + _FIRING_ROWS], centers, sigmas)
        weakest = min(weakest, float(strengths.max(axis=1).min()))
    return weakest


@dataclass(frozen=True, eq=False)
class TrainingDomain:
    """The ranges of the training rows and the weakest firing of their strongest rules.

    Attributes
    ----------
    low, high : ndarray of shape (n_features + n_outputs,)
        The least and greatest value of every input, then every output.
    weakest_log_firing : float or None
        The least over the training rows of the log firing of each row's
        strongest rule (of the rule base in the data's units), or None when
        not known.

    Examples
    --------
    >>> import numpy as np
    >>> domain = TrainingDomain(np.array([0.0, -1.0]), np.array([1.0, 1.0]), -2.0)
    >>> other = TrainingDomain(np.array([-1.0, 0.0]), np.array([0.5, 3.0]), -4.0)
    >>> union = domain.union(other)
    >>> union.low.tolist(), union.high.tolist(), union.weakest_log_firing
    ([-1.0, -1.0], [1.0, 3.0], -4.0)
    """

    low: np.ndarray
    high: np.ndarray
    weakest_log_firing: float | None = None

    @classmethod
    def of(cls, X, Y, weakest=None):
        """The domain of the rows ``X`` (n_samples, n_features) and targets ``Y`` (n_samples, n_outputs).

        Examples
        --------
        >>> import numpy as np
        >>> TrainingDomain.of(np.array([[0.0], [2.0]]), np.array([[1.0], [3.0]])).high
        array([2., 3.])
        """
        low = np.concatenate([X.min(axis=0), Y.min(axis=0)])
        high = np.concatenate([X.max(axis=0), Y.max(axis=0)])
        return cls(low, high, weakest)

    def union(self, other):
        """The domain of the rows of both."""
        weakest = self.weakest_log_firing
        if other.weakest_log_firing is not None:
            weakest = (
                other.weakest_log_firing
                if weakest is None
                else min(weakest, other.weakest_log_firing)
            )
        return TrainingDomain(
            np.minimum(self.low, other.low), np.maximum(self.high, other.high), weakest
        )

    def warn_if_extrapolating(
        self, X, rule_base, *, method="predict", margin=EXTRAPOLATION_MARGIN, stacklevel=2
    ):
        """Warn about rows of ``X`` beyond the training data, in about ``O(n_samples * n_features)``.

        Two checks, each an :class:`~randomts.exceptions.ExtrapolationWarning`:

        - rows with an input beyond its training range by more than
          ``margin`` of its span
          (:data:`~randomts.core.ranges.EXTRAPOLATION_MARGIN` for
          ``predict``; 0 for the conformal ``predict_interval`` and
          ``predict_set``, whose coverage holds only for rows like the
          training rows); the message names ``method``, the inputs and how
          far out they are;
        - rows outside the box of the training inputs where no rule fires:
          the firing of their strongest rule is below ``1e-3`` times the
          weakest such firing over the training rows (at the rows held in
          the training ranges, for a rule base with ``lock_range``).

        ``stacklevel`` points the warnings at the caller, as for
        ``warnings.warn`` from the method that calls this one.

        Examples
        --------
        >>> import warnings
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> rules = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 1.0]])
        >>> domain = TrainingDomain(np.array([-1.0, -1.0, 0.0]), np.array([1.0, 1.0, 1.0]), -1.0)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     domain.warn_if_extrapolating(np.array([[0.5, 0.5], [1.5, 0.0]]), rules)
        >>> print(caught[0].message)  # doctest: +ELLIPSIS
        1 of 2 rows (50%) given to predict lie beyond the training range of an input ...: x1 ...
        """
        n_features = X.shape[1]
        low, high = self.low[:n_features], self.high[:n_features]
        outside = np.flatnonzero(((X < low) | (X > high)).any(axis=1))
        if outside.size == 0:
            return
        names = rule_base.input_names
        held = rule_base.lock_range
        self._warn_beyond_range(X, outside, low, high, names, method, margin, held, stacklevel + 1)
        weakest = self.weakest_log_firing
        if weakest is None:
            return
        threshold = weakest + np.log(EXTRAPOLATION_FACTOR)
        rows = np.clip(X[outside], low, high) if held else X[outside]  # where the rules see them
        strongest = log_firing_strengths(rows, rule_base.centers, rule_base.sigmas)
        count = int(np.count_nonzero(strongest.max(axis=1) < threshold))
        if count:
            if held:
                fate = "at their inputs held in the training ranges, no rule covers them either"
            elif rule_base.normalize:
                fate = (
                    "the weighted average follows the nearest rule's linear model however far away"
                )
            else:
                fate = "the weighted sum decays to 0"
            warnings.warn(
                f"{count} of {X.shape[0]} rows ({100 * count / X.shape[0]:.3g}%) given to "
                f"{method} lie where no rule fires: their strongest rule fires below "
                f"{np.exp(threshold):.3g}, {EXTRAPOLATION_FACTOR:g} times the weakest firing of "
                f"a training row's strongest rule ({np.exp(weakest):.3g}). Their predictions are "
                f"extrapolations ({fate}).",
                ExtrapolationWarning,
                stacklevel=stacklevel + 1,
            )

    @staticmethod
    def _warn_beyond_range(X, outside, low, high, names, method, margin, held, stacklevel):
        """The range part of :meth:`warn_if_extrapolating`, on the rows ``outside`` the box."""
        rows = X[outside]
        beyond = beyond_range(rows, low, high, margin)
        flagged = beyond.any(axis=1)
        if not flagged.any():
            return
        distance = span_distance(rows, low, high)
        parts = []
        for k in np.flatnonzero(beyond.any(axis=0)):
            column = np.where(beyond[:, k], distance[:, k], 0.0)
            worst = int(np.argmax(np.abs(column)))
            side, end = ("above", high[k]) if column[worst] > 0 else ("below", low[k])
            far = abs(column[worst])
            if high[k] == low[k]:  # the distance is in the data's units
                parts.append(
                    f"{names[k]} up to {far:.3g} {side} {end:.6g}, its one value in training "
                    f"(row {int(outside[worst])})"
                )
                continue
            far = f"{100 * far:.3g}% of its span" if far < 1 else f"{far:.3g} times its span"
            parts.append(
                f"{names[k]} up to {far} {side} its training "
                f"{'maximum' if side == 'above' else 'minimum'} {end:.6g} "
                f"(row {int(outside[worst])})"
            )
        count = int(flagged.sum())
        by = f" by more than {100 * margin:g}% of its span" if margin > 0 else ""
        coverage = (
            ""
            if method == "predict"
            else " Conformal coverage holds only for rows like the training (or calibration) "
            "rows: there it may fall short."
        )
        warnings.warn(
            f"{count} of {X.shape[0]} rows ({100 * count / X.shape[0]:.3g}%) given to {method} "
            f"lie beyond the training range of an input{by}, where the model "
            + (
                "holds the input at the edge of its range (lock_range): "
                if held
                else "extrapolates: "
            )
            + "; ".join(parts)
            + "."
            + coverage,
            ExtrapolationWarning,
            stacklevel=stacklevel + 1,
        )


def is_plain_valid_input(model, X):
    """True if ``validate_data(model, X, reset=False)`` would return ``X`` itself, unchanged.

    That is a finite 2-D float64 ndarray of the fitted width, and no feature
    names to compare. Skipping scikit-learn's validation then saves its fixed
    cost (about 0.3 ms a call), a tenth of ``predict`` on 10^4 rows. Anything
    else, including every input that should raise or warn, takes the full path.
    Finiteness is tested through the sum, as scikit-learn does first: a finite
    sum proves every entry finite; an infinite or NaN sum defers to the full check.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(50, 2))
    >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit(X, X[:, 0])
    >>> is_plain_valid_input(model, X), is_plain_valid_input(model, X.tolist())
    (True, False)
    """
    return (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.shape[0] > 0
        and X.shape[1] == model.n_features_in_
        and not hasattr(model, "feature_names_in_")
        and _sum_is_finite(X)
    )


def _sum_is_finite(X):
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(X.sum()))
