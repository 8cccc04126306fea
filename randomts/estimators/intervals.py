"""The conformity scores a fitted estimator keeps for its intervals and sets, and how it reads them.

Two kinds of scores, made by the estimators' ``fit_conformalize`` and
``conformalize``:

* :class:`JackknifeScores`: the exact leave-one-out models of the ridge fit
  of the consequents (:func:`randomts.fitting.conformal.leave_one_out_terms`),
  for the jackknife+ (:func:`randomts.fitting.conformal.jackknife_plus_bounds`);
  ``8 rank n_samples`` bytes, ``rank <= min(n_unknowns, n_samples)``.
* :class:`SplitScores`: the scores of held-out calibration rows, for split
  conformal prediction (:func:`randomts.fitting.conformal.split_quantile`);
  one number per calibration row and output.

Either belongs to one fitted rule base: a refit (``fit``, ``partial_fit``,
``prune``) makes another, and the scores of the old one are refused with a
message saying how to get new ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.special
from sklearn.exceptions import NotFittedError

from randomts.estimators.parameters import resolved
from randomts.fitting.conformal import (
    LeaveOneOutTerms,
    jackknife_plus_bounds,
    jackknife_plus_sets,
    leave_one_out_terms,
    split_quantile,
)
from randomts.fitting.ridge import design_of

__all__ = [
    "JackknifeScores",
    "SplitScores",
    "check_jackknife",
    "class_nonconformity",
    "class_scores",
    "current_scores",
    "interval_bounds",
    "jackknife_class_scores",
    "jackknife_scores",
    "prediction_sets",
    "split_scores",
]

# Entries of the (rows x training rows [x classes]) arrays formed at once (2^22, 32 MiB).
_BLOCK_ELEMENTS = 1 << 22


@dataclass(frozen=True, eq=False)
class JackknifeScores:
    """The exact leave-one-out models of a fit, for jackknife+ intervals and sets.

    Attributes
    ----------
    rule_base : RuleBase
        The fitted rule base (in the data's units) these scores belong to.
    antecedents : RuleBase
        Its rules in the units of the fit (standardised inputs, if so).
    scaling : Standardisation or None
        The standardisation of the fit.
    order : int
        Consequent order.
    terms : LeaveOneOutTerms
        The leave-one-out terms.
    train_scores : ndarray of shape (n_samples,) or None
        For a classifier: each training row's nonconformity under the model
        without it.
    """

    rule_base: object
    antecedents: object
    scaling: object
    order: int
    terms: LeaveOneOutTerms
    train_scores: np.ndarray | None = None

    method = "jackknife+"

    @property
    def n_samples(self) -> int:
        """Training rows."""
        return self.terms.n_samples

    def shifts(self, X):
        """``LeaveOneOutTerms.shifts`` of the rows ``X`` (the data's units), held as ``predict`` holds them."""
        if self.rule_base.lock_range:
            ranges = self.rule_base.input_range
            X = np.clip(X, ranges[:, 0], ranges[:, 1])
        if self.scaling is not None:
            X = self.scaling.apply(X)
        return self.terms.shifts(design_of(self.antecedents, X, self.order))


@dataclass(frozen=True, eq=False)
class SplitScores:
    """The nonconformity scores of calibration rows, for split-conformal intervals and sets.

    Attributes
    ----------
    rule_base : RuleBase
        The fitted rule base these scores belong to.
    scores : ndarray of shape (n_samples, n_outputs) or (n_samples,)
        Absolute residuals (regression) or one minus the probability of the
        true class (classification).
    """

    rule_base: object
    scores: np.ndarray

    method = "split"

    @property
    def n_samples(self) -> int:
        """Calibration rows."""
        return self.scores.shape[0]


def check_jackknife(model, shape, owner=None):
    """Refuse, before fitting, a RandomTSRegressor whose fit has no exact leave-one-out.

    ``shape`` is the shape of the training inputs. The jackknife+ reads the
    leave-one-out models of the global ridge fit, and needs them determined
    by the other rows (no leverage of 1).

    Examples
    --------
    >>> from randomts import RandomTSRegressor
    >>> check_jackknife(RandomTSRegressor(n_rules=10, structure="random", alpha=0.0), (20, 2))
    Traceback (most recent call last):
    ...
    ValueError: The 'alpha' parameter of RandomTSRegressor must be 'auto' or > 0 for ...
    """
    owner = owner or type(model).__name__
    settings = resolved(model)
    if settings.grown and settings.learning == "local":
        raise ValueError(
            f"The 'structure' parameter of {owner} is 'grown', whose local lines have no "
            "jackknife+ here (fit_conformalize reads the exact leave-one-out models of the "
            "global ridge fit of random rules). Fit on part of the rows and "
            "conformalize(X_calibration, y_calibration) on the rest (split conformal), or use "
            "structure='random'."
        )
    if settings.learning != "global":
        raise ValueError(
            f"The 'learning' parameter of {owner} must be 'global' for fit_conformalize, "
            "whose jackknife+ reads the exact leave-one-out models of the global ridge fit. "
            f"Got {settings.learning!r}: fit on part of the rows and "
            "conformalize(X_calibration, y_calibration) on the rest (split conformal)."
        )
    if isinstance(model.alpha, str) or float(model.alpha) != 0.0 or len(shape) != 2:
        return
    unknowns = settings.n_rules * (shape[1] + 1 if model.order == 1 else 1)
    if unknowns >= shape[0]:
        raise ValueError(
            f"The 'alpha' parameter of {owner} must be 'auto' or > 0 for fit_conformalize "
            f"with {unknowns} unknowns per output and {shape[0]} rows: alpha=0 then fits "
            "every row exactly (leverage 1), and no leave-one-out model is determined by the "
            "other rows. Got alpha=0."
        )


def jackknife_scores(rule_base, scaling, X, Y, *, alpha, order, n_jobs=None):
    """The :class:`JackknifeScores` of a fitted ``rule_base`` (the data's units) on its training rows.

    ``X`` (n_samples, n_features) and ``Y`` (n_samples, n_outputs) are the
    checked training arrays, ``scaling`` the fit's
    :class:`~randomts.core.scaling.Standardisation` (or None); the
    leave-one-out terms are computed at the penalty ``alpha`` of the fit, on
    the inputs as the fit saw them.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(50, 2)); Y = X[:, :1] ** 2
    >>> model = RandomTSRegressor(
    ...     n_rules=5, structure="random", standardize=False, random_state=0
    ... ).fit(X, Y)
    >>> scores = jackknife_scores(model.rule_base_, None, X, Y, alpha=model.alpha_, order=1)
    >>> scores.method, scores.n_samples, scores.terms.residuals.shape
    ('jackknife+', 50, (50, 1))
    """
    U, antecedents = X, rule_base
    if scaling is not None:
        mean, scale = scaling.mean, scaling.scale
        U = scaling.apply(X)
        antecedents = rule_base.in_original_units(-mean / scale, 1.0 / scale, check_input=False)
    residuals = Y - rule_base.predict(X, n_jobs=n_jobs, check_input=False)
    terms = leave_one_out_terms(
        antecedents, U, residuals, alpha, order=order, n_jobs=n_jobs, check_input=False
    )
    return JackknifeScores(rule_base, antecedents, scaling, order, terms)


def split_scores(rule_base, X, Y, *, n_jobs=None):
    """The :class:`SplitScores` (absolute residuals) of a fitted rule base on calibration rows.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(50, 2)); Y = X[:, :1] ** 2
    >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit(X, Y)
    >>> split_scores(model.rule_base_, X[:20], Y[:20]).scores.shape
    (20, 1)
    """
    predictions = rule_base.predict(X, n_jobs=n_jobs, check_input=False)
    return SplitScores(rule_base, np.abs(Y - predictions))


def current_scores(scores, rule_base, owner, what):
    """``scores`` if they belong to ``rule_base``, or a NotFittedError saying how to get them.

    ``scores`` are those an estimator keeps (or None), ``rule_base`` its
    fitted rules, ``owner`` its class name and ``what`` names the method
    asking (``"predict_interval"``, ``"predict_set"``).

    Examples
    --------
    >>> current_scores(None, None, "RandomTSRegressor", "predict_interval")
    Traceback (most recent call last):
    ...
    sklearn.exceptions.NotFittedError: This RandomTSRegressor has no conformity scores for ...
    """
    if scores is None:
        raise NotFittedError(
            f"This {owner} has no conformity scores for {what}: it was fitted by fit, "
            "partial_fit or from a rule base. Fit it with fit_conformalize(X, y) (jackknife+, "
            "from the exact leave-one-out models of the training rows) or call "
            "conformalize(X_calibration, y_calibration) with rows held out of the fit "
            "(split conformal)."
        )
    if scores.rule_base is not rule_base:
        made = "fit_conformalize" if scores.method == "jackknife+" else "conformalize"
        raise NotFittedError(
            f"The conformity scores of this {owner} belong to other rules: its rules changed "
            f"(fit, partial_fit or prune) after {made}. Call fit_conformalize(X, y) or "
            "conformalize(X_calibration, y_calibration) again."
        )
    return scores


def _row_blocks(n_rows, width):
    step = max(1, _BLOCK_ELEMENTS // max(width, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def interval_bounds(scores, X, predictions, coverage):
    """``(lower, upper)`` of shape (n_rows, n_outputs) around ``predictions`` at the rows ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 1)); Y = X**2 + 0.1 * rng.normal(size=(200, 1))
    >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit(X[:100], Y[:100])
    >>> scores = split_scores(model.rule_base_, X[100:], Y[100:])
    >>> lower, upper = interval_bounds(scores, X[:3], model.rule_base_.predict(X[:3]), 0.9)
    >>> bool(np.allclose(upper - lower, (upper - lower)[0]))  # split conformal: one width
    True
    """
    if isinstance(scores, SplitScores):
        radius = split_quantile(scores.scores, coverage)
        return predictions - radius, predictions + radius
    lower = np.empty(predictions.shape)
    upper = np.empty(predictions.shape)
    residuals = scores.terms.residuals
    for rows in _row_blocks(X.shape[0], scores.n_samples):
        lower[rows], upper[rows] = jackknife_plus_bounds(
            predictions[rows], scores.shifts(X[rows]), residuals, coverage
        )
    return lower, upper


def class_scores(scores):
    """One score per class along the last axis: ``(-s/2, s/2)`` for a two-class score ``s``.

    Examples
    --------
    >>> import numpy as np
    >>> class_scores(np.array([[2.0]]))
    array([[-1.,  1.]])
    """
    if scores.shape[-1] == 1:
        return np.concatenate([-0.5 * scores, 0.5 * scores], axis=-1)
    return scores


def class_nonconformity(scores, temperature):
    """One minus the softmax probability of each class, from the classifier's raw scores.

    Examples
    --------
    >>> import numpy as np
    >>> class_nonconformity(np.array([[0.0]]), 1.0)
    array([[0.5, 0.5]])
    """
    return 1.0 - scipy.special.softmax(class_scores(scores) / temperature, axis=-1)


def jackknife_class_scores(scores, targets, indices, temperature):
    """The training rows' nonconformity under the models without them (``train_scores``).

    ``targets`` are the indicator targets the classifier's regressor was
    fitted to, ``indices`` the rows' classes.
    """
    loo = targets - scores.terms.residuals  # the leave-one-out prediction at each row
    nonconformity = class_nonconformity(loo, temperature)
    return nonconformity[np.arange(indices.size), indices]


def prediction_sets(scores, X, predictions, temperature, coverage):
    """Boolean sets of shape (n_rows, n_classes) from the classifier's raw scores ``predictions``.

    Examples
    --------
    >>> import numpy as np
    >>> scores = SplitScores(None, np.linspace(0.0, 0.6, 19))
    >>> prediction_sets(scores, None, np.array([[4.0], [0.0]]), 1.0, 0.9)
    array([[False,  True],
           [ True,  True]])
    """
    if isinstance(scores, SplitScores):
        threshold = split_quantile(scores.scores, coverage)[0]
        return class_nonconformity(predictions, temperature) <= threshold
    n_classes = class_scores(predictions[:1]).shape[1]
    sets = np.empty((predictions.shape[0], n_classes), dtype=bool)
    residuals = scores.terms.residuals
    for rows in _row_blocks(X.shape[0], scores.n_samples * n_classes):
        shifts = scores.shifts(X[rows])
        loo = predictions[rows, None, :] - shifts[:, :, None] * residuals[None, :, :]
        sets[rows] = jackknife_plus_sets(
            class_nonconformity(loo, temperature), scores.train_scores, coverage
        )
    return sets
