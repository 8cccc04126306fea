"""The training rows a fit reads: in memory, or held elsewhere (a cluster's workers).

The fit of :class:`~randomts.RandomTSRegressor` and
:class:`~randomts.RandomTSClassifier` asks its rows for four things, in this
order: their ranges and, if it standardises, their moments; the inputs as
the fit sees them (standardised or not); the consequents of the antecedents
it placed, fitted on every row; the weakest firing of a row's strongest
rule. :class:`InMemoryRows` answers from arrays;
:func:`randomts.distributed.fit_estimator_dask` answers from dask arrays,
each statistic computed where the rows are.
"""

from __future__ import annotations

from randomts.core.scaling import Standardisation
from randomts.estimators.extrapolation import TrainingDomain, weakest_log_firing
from randomts.fitting.consequents import consequent_fit

__all__ = ["InMemoryRows", "TrainingRows"]


class TrainingRows:
    """What a fit reads of its training rows; subclasses say where the rows are.

    Attributes
    ----------
    n_samples, n_features, n_outputs : int
        Sizes.
    y_ndim : int
        1 when the targets were given as a 1-D array (one output), else 2.
    X : ndarray of shape (n_samples, n_features) or None
        The inputs when they are in memory (the fit warns about those that
        hold one value), None for rows held elsewhere.
    targets : ndarray of shape (n_samples, n_outputs) or None
        The targets when they are in memory: the antecedent step reads them
        to refine or grow rules, the fit to warn of an underdetermined
        model. None for rows held elsewhere, which only random antecedents
        can be drawn on.
    complete : bool
        True when these are all the training rows; False for the first
        chunk of a stream (a fit of too few rows then warns of nothing).
    checked : bool
        True when the inputs are checked finite float64 arrays; False for
        rows read lazily, whose drawn antecedents are checked instead.

    Examples
    --------
    >>> import numpy as np
    >>> rows = InMemoryRows(np.zeros((4, 2)), np.arange(4.0))
    >>> isinstance(rows, TrainingRows), rows.n_samples, rows.n_outputs, rows.y_ndim
    (True, 4, 1, 1)
    """

    n_samples: int
    n_features: int
    n_outputs: int
    y_ndim: int
    X = None
    targets = None
    complete = True
    checked = True

    def statistics(self, standardize):
        """``(domain, scaling)``: the rows' ranges (a TrainingDomain) and standardisation (or None)."""
        raise NotImplementedError

    def inputs(self, scaling):
        """The inputs as the fit sees them: standardised by ``scaling``, or as they are."""
        raise NotImplementedError

    def fit_consequents(self, antecedents, U, settings):
        """``(ConsequentFit, weakest log firing)`` of ``antecedents`` on every row.

        ``settings`` are the keyword arguments of
        :func:`~randomts.fitting.consequents.consequent_fit` (``order``,
        ``alpha``, ``solver``, ``learning``, ``local_weight``, ``n_jobs``).
        """
        raise NotImplementedError

    def weakest_log_firing(self, antecedents, U):
        """The least over the rows of the log firing of each row's strongest rule."""
        raise NotImplementedError


class InMemoryRows(TrainingRows):
    """Rows held as arrays, checked by the caller.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite float64 inputs.
    y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Finite float64 targets.
    folds : array-like of int of shape (n_samples,), optional
        The fold of each row for the cross-validated choices of the fit
        (see :func:`~randomts.fitting.consequents.fit_consequents`).

    Examples
    --------
    >>> import numpy as np
    >>> rows = InMemoryRows(np.array([[0.0], [2.0]]), np.array([1.0, 3.0]))
    >>> domain, scaling = rows.statistics(standardize=True)
    >>> domain.low.tolist(), domain.high.tolist(), rows.inputs(scaling).ravel().tolist()
    ([0.0, 1.0], [2.0, 3.0], [-1.0, 1.0])
    """

    def __init__(self, X, y, folds=None):
        self.X = X
        self.y_ndim = y.ndim
        self.targets = y.reshape(-1, 1) if y.ndim == 1 else y
        self.folds = folds
        self.n_samples, self.n_features = X.shape
        self.n_outputs = self.targets.shape[1]

    def statistics(self, standardize):
        domain = TrainingDomain.of(self.X, self.targets)
        return domain, Standardisation.of(self.X) if standardize else None

    def inputs(self, scaling):
        return self.X if scaling is None else scaling.apply(self.X)

    def fit_consequents(self, antecedents, U, settings):
        fit = consequent_fit(
            antecedents, U, self.targets, folds=self.folds, check_input=False, **settings
        )
        return fit, weakest_log_firing(antecedents, U)

    def weakest_log_firing(self, antecedents, U):
        return weakest_log_firing(antecedents, U)
