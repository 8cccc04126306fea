"""The scikit-learn estimator: random Takagi-Sugeno rules, consequents fitted in one shot."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from randomts._threads import effective_n_jobs
from randomts._validation import (
    check_int,
    check_int_option,
    check_matrix,
    check_option,
    check_pair,
    check_real,
    validate_numeric_data,
)
from randomts.core.accumulators import check_factor_memory
from randomts.core.design import design_rows_writer, split_coefficients
from randomts.core.sampling import (
    PAPER_CENTER_SCALE,
    check_random_state,
    default_width_range,
)
from randomts.core.solvers import SOLVERS
from randomts.exceptions import ExtrapolationWarning, RandomTSWarning, UnderdeterminedWarning
from randomts.fitting.consequents import ConsequentStream
from randomts.fitting.model_selection import _ridge_loo
from randomts.fitting.refinement import kmeans_antecedents, refine_antecedents
from randomts.fuzzy.rulebase import RuleBase

__all__ = ["RandomTSRegressor"]

_CENTERS = ("samples", "normal", "uniform", "data", "kmeans")
# predict warns about rows whose strongest rule fires below this fraction of the weakest
# strongest-rule firing seen on a training row
_EXTRAPOLATION_FACTOR = 1e-3
# fit warns when a weighted sum with alpha="auto" is to reproduce targets whose mean
# exceeds this many standard deviations (the error of a constant's reproduction, times the
# mean, reaches a few thousandths of the spread there)
_FAR_OFFSET = 1e4
# fewest training rows that refine > 0 accepts (a fifth of them held out)
_MIN_REFINE_SAMPLES = 5
# rows of training data whose firing is measured at once in fit (bounds the work array)
_FIRING_ROWS = 1 << 14


def _without_refinement(model):
    """``partial_fit`` exists only with ``refine=0``: refining needs all the rows at once."""
    if model.refine != 0:
        raise ValueError(
            f"The 'refine' parameter of {type(model).__name__} must be 0 for partial_fit: "
            f"refining the antecedents needs all rows at once. Got refine={model.refine!r}; "
            "use fit, or refine=0."
        )
    return True


def _library_version():
    from randomts._version import __version__

    return __version__


class RandomTSRegressor(RegressorMixin, BaseEstimator):
    """Takagi-Sugeno regressor with random rules: the Shuffled Linear Model.

    ``fit`` draws ``n_rules`` Gaussian antecedents, then fits every rule's
    consequent by one least-squares solve of the block system ``K Gamma = Y``.

    The defaults work on raw data of any scale and dimension:

    * the inputs are standardised (``standardize=True``) and the rule base is
      expressed back in the data's own units, so shifting or rescaling an
      input changes nothing but the units of the rules;
    * the centres are training rows drawn at random (``centers="samples"``),
      so they cover the data;
    * the widths ``b_i ~ U(0, 1 / (2 n_features)]`` (in
      ``exp(-b_i ||u - a_i||^2)``, ``u`` standardised) scale with the number
      of inputs: two rows of standardised data are ``2 n_features`` apart in
      squared distance on average, so every rule fires on a typical row, from
      nearly flat rules to rules about one typical distance wide;
    * ``alpha="auto"`` chooses the ridge penalty by exact leave-one-out error
      over a grid (see :func:`randomts.fitting.model_selection.ridge_loo`), shrinking
      the consequents toward the rule base that reproduces the mean of the
      targets; this costs about one least-squares fit. A weighted sum of
      rules reproduces a constant only approximately: ``fit`` warns
      (:class:`~randomts.RandomTSWarning`) when the targets' mean exceeds
      ``1e4`` standard deviations, where that error can show.

    The paper's exact setting (centres ``N(0, 2 I)``, widths ``U(0, 1)`` on
    the raw inputs, no penalty) is :meth:`paper`.

    Parameters
    ----------
    n_rules : int, default=100
        Number of rules (local models) ``h``.
    order : {0, 1}, default=1
        1: linear consequents ``A_i x + b_i`` (the SLM). 0: constant
        consequents, i.e. an Extreme Learning Machine with RBF nodes.
    normalize : bool, default=False
        False: output is the weighted **sum** of consequents (the paper).
        True: the weighted **average** (classic Takagi-Sugeno).
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Solver for a fixed ``alpha`` (unused with ``alpha="auto"``).
        ``"lstsq"``: exact minimum-norm least squares (Householder QR of
        ``[K Y]``, then LAPACK ``gelsy`` on the triangle, or a triangular
        solve where it is surely of full rank). ``"pinv"``: the paper's
        Moore-Penrose pseudo-inverse with MATLAB's tolerance. ``"cholesky"``:
        ridge normal equations, the fastest; use with ``alpha > 0``. See
        :mod:`randomts.core.solvers`.
    alpha : "auto" or float, default="auto"
        Ridge penalty on the consequent parameters (of the standardised
        problem when ``standardize=True``). ``"auto"``: the value of least
        leave-one-out error on a grid of 25 values, half a decade apart, from
        ``1e-10`` to ``1e2`` times the mean squared column norm of ``K``,
        with the consequents shrunk toward the rule base that best reproduces
        the targets' mean (one eigendecomposition of ``K^T K``, or of ``K K^T``
        when there are more unknowns than rows). A float ``>= 0``: that
        penalty, shrinking toward zero, solved by ``solver``; with ``0`` and
        at least as many unknowns as rows, ``fit`` warns
        (:class:`~randomts.exceptions.UnderdeterminedWarning`).
    standardize : bool, default=True
        Draw the antecedents and fit on per-feature standardised inputs
        (zero mean, unit variance), then express the rule base back in the
        data's own units (an exactly equivalent model).
    centers : {"samples", "normal", "uniform", "data", "kmeans"}, default="samples"
        Centre distribution: ``"samples"``, distinct training rows drawn at
        random (after standardisation, if any); ``"normal"`` with
        ``center_scale``; ``"uniform"`` over ``center_bounds``; ``"data"``
        uniform over the training inputs' bounding box. ``"kmeans"``: not
        random, the centres of the k-means clusters of the standardised
        training inputs, each rule's widths from its cluster's spread
        (:func:`randomts.fitting.refinement.kmeans_antecedents`; ``width_range`` is
        not used); needs at least ``n_rules`` distinct training rows. The
        choice for few rules, with ``refine``.
    center_scale : float, default=sqrt(2)
        Standard deviation of the normal centre distribution (the paper: variance 2).
    center_bounds : (float, float), optional
        Box for ``centers="uniform"``.
    width_range : (float, float), optional
        ``b_i ~ U(low, high]``; sigma of the Gaussian sets is ``1/sqrt(2 b_i)``.
        By default ``(0, 1 / (2 n_features))`` for the weighted sum (see above)
        and ``(0, 8 / n_features)`` for the weighted average, whose rules must
        be local (wide rules average to a constant); the paper's is ``(0, 1)``.
    refine : int, default=0
        Iterations of nonlinear least squares that move the centres and
        widths, the consequents re-solved exactly at every step (variable
        projection: :func:`randomts.fitting.refinement.refine_antecedents`, with
        the ridge ``alpha``, or with ``alpha="auto"`` the one chosen by
        leave-one-out at the starting antecedents). A random fifth of the
        training rows is held out while refining: the refinement stops when
        their error stops falling and keeps the antecedents that predicted
        them best if the gain is beyond the noise of those rows (else the
        drawn ones), so it never ends worse on them than where it started
        (see :doc:`/user_guide/few_rules`).
        The consequents are then fitted on all rows as without refinement
        (``alpha="auto"`` chooses the penalty again). ``0`` keeps the drawn
        antecedents. Needs ``alpha="auto"`` or ``alpha > 0`` and at least 5
        training rows. With ``refine > 0`` the estimator has no
        :meth:`partial_fit` (refining needs all rows at once; calling it
        raises a ValueError).
    random_state : int, RandomState instance or None, default=None
        Seed of the antecedents. The same seed gives the same model, bit for bit.
    n_jobs : int, default=None
        Threads of randomts's own that fit and predict blocks of rows at once:
        None means 1 unless in a ``joblib.parallel_config`` context, -1 all
        CPUs. Results do not depend on it. BLAS's own threads follow its
        configuration (``threadpoolctl``); with ``n_jobs > 1``,
        ``threadpool_limits(1)`` around the call avoids their competing.

    Attributes
    ----------
    rule_base_ : RuleBase
        The fitted rule base, in the data's own units.
    alpha_ : float
        The ridge penalty used (chosen, with ``alpha="auto"``).
    n_features_in_ : int
        Number of inputs seen in ``fit``.
    feature_names_in_ : ndarray of str
        Input names, when ``X`` was a DataFrame with string column names.
    n_outputs_ : int
        Number of outputs.

    Warns
    -----
    UnderdeterminedWarning
        From ``fit``, with ``alpha=0`` and at least as many unknowns as rows.
    ExtrapolationWarning
        From ``predict``, for rows where no rule fires: the strongest rule
        fires below ``1e-3`` times the weakest strongest-rule firing of the
        training rows.

    See Also
    --------
    RuleBase : the model the estimator fits.
    randomts.fitting.model_selection.ridge_loo : the choice of ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(200, 2))
    >>> y = np.sin(X[:, 0]) * X[:, 1]
    >>> model = RandomTSRegressor(n_rules=20, random_state=0).fit(X, y)
    >>> model.score(X, y) > 0.999
    True
    >>> len(model.rule_base_), model.alpha_ > 0
    (20, True)

    Inputs far from the origin, in any units, give the same model:

    >>> moved = RandomTSRegressor(n_rules=20, random_state=0).fit(1000 * X + 300, y)
    >>> bool(np.allclose(moved.predict(1000 * X + 300), model.predict(X), rtol=1e-6))
    True
    """

    def __init__(
        self,
        n_rules=100,
        *,
        order=1,
        normalize=False,
        solver="lstsq",
        alpha="auto",
        standardize=True,
        centers="samples",
        center_scale=PAPER_CENTER_SCALE,
        center_bounds=None,
        width_range=None,
        refine=0,
        random_state=None,
        n_jobs=None,
    ):
        self.n_rules = n_rules
        self.order = order
        self.normalize = normalize
        self.solver = solver
        self.alpha = alpha
        self.standardize = standardize
        self.centers = centers
        self.center_scale = center_scale
        self.center_bounds = center_bounds
        self.width_range = width_range
        self.refine = refine
        self.random_state = random_state
        self.n_jobs = n_jobs

    @classmethod
    def paper(cls, n_rules=100, **params):
        """The paper's setting: raw inputs, centres ``N(0, 2 I)``, widths ``U(0, 1)``, no penalty.

        Parameters
        ----------
        n_rules : int, default=100
            Number of rules.
        **params
            Any other parameter of the estimator (``order``, ``normalize``,
            ``solver``, ``random_state``, ...), also overriding the paper's.

        Returns
        -------
        RandomTSRegressor
            Unfitted, with ``standardize=False``, ``centers="normal"``,
            ``center_scale=sqrt(2)``, ``width_range=(0, 1)`` and ``alpha=0``.

        Examples
        --------
        >>> model = RandomTSRegressor.paper(n_rules=30, random_state=0)
        >>> model.standardize, model.centers, model.width_range, model.alpha
        (False, 'normal', (0.0, 1.0), 0.0)
        """
        settings = {
            "standardize": False,
            "centers": "normal",
            "center_scale": PAPER_CENTER_SCALE,
            "width_range": (0.0, 1.0),
            "alpha": 0.0,
        }
        settings.update(params)
        return cls(n_rules, **settings)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        # a few dozen constant rules (an RBF network) follow a trend in many inputs only
        # coarsely: no training score to promise on arbitrary data
        tags.regressor_tags.poor_score = self.order == 0 and self.n_rules < 50
        return tags

    def _validate_hyperparameters(self):
        owner = type(self).__name__
        check_int(self.n_rules, "n_rules", low=1, owner=owner)
        check_int_option(self.order, "order", (0, 1), owner=owner)
        for flag in ("normalize", "standardize"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise TypeError(
                    f"The {flag!r} parameter of {owner} must be a bool. "
                    f"Got {getattr(self, flag)!r} instead."
                )
        check_option(self.solver, "solver", SOLVERS, owner=owner)
        if not (isinstance(self.alpha, str) and self.alpha == "auto"):
            if isinstance(self.alpha, str):
                raise ValueError(
                    f"The 'alpha' parameter of {owner} must be 'auto' or a float >= 0. "
                    f"Got {self.alpha!r} instead."
                )
            check_real(self.alpha, "alpha", low=0.0, owner=owner)
        check_option(self.centers, "centers", _CENTERS, owner=owner)
        check_real(self.center_scale, "center_scale", low=0.0, low_inclusive=False, owner=owner)
        if self.centers == "uniform":
            if self.center_bounds is None:
                raise ValueError(
                    f"The 'center_bounds' parameter of {owner} is required when centers='uniform'; "
                    "give a pair (low, high)."
                )
            check_pair(self.center_bounds, "center_bounds", owner=owner)
        if self.width_range is not None:
            check_pair(self.width_range, "width_range", low=0.0, owner=owner)
        check_int(self.refine, "refine", low=0, owner=owner)
        if self.refine > 0 and not self._auto_alpha() and float(self.alpha) == 0.0:
            raise ValueError(
                f"The 'refine' parameter of {owner} needs a ridge penalty: alpha='auto' or "
                f"alpha > 0. Got refine={self.refine!r} with alpha={self.alpha!r}."
            )
        effective_n_jobs(self.n_jobs, owner=owner)

    def fit(self, X, y):
        """Draw the rules and fit their consequents.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; a DataFrame's column names become rule input names.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets; a Series' name or a DataFrame's columns become output names.

        Returns
        -------
        self : RandomTSRegressor
            The fitted estimator.
        """
        self._validate_hyperparameters()
        output_names = _output_names(y)
        X, y = validate_numeric_data(
            self, X, y, multi_output=True, y_numeric=True, dtype=np.float64
        )
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        self._check_memory(*X.shape, Y.shape[1])
        self._warn_if_far_offset(Y)
        U, antecedents = self._draw_antecedents(X, Y, output_names)
        if self.refine > 0:
            antecedents = self._refine(antecedents, U, Y)
        if self._auto_alpha():
            selection, _ = self._leave_one_out_ridge(antecedents, U, Y)
            coef, intercept = split_coefficients(
                selection.coefficients,
                antecedents.n_rules,
                antecedents.n_features,
                order=self.order,
            )
            rule_base = antecedents.replace(coef=coef, intercept=intercept)
            self.alpha_ = selection.alpha
        else:
            self._warn_if_underdetermined(antecedents, U.shape[0])
            rule_base = antecedents.fit_consequents(
                U, Y, order=self.order, solver=self.solver, alpha=self.alpha, n_jobs=self.n_jobs
            )
            self.alpha_ = float(self.alpha)
        self._stream = None
        self._y_ndim = y.ndim
        self._record_ranges(X, Y, reset=True)
        self._record_firing(antecedents, U, reset=True)
        self._set_rule_base(rule_base, X.shape[0])
        return self

    def _refine(self, antecedents, U, Y):
        """The antecedents refined by :func:`randomts.fitting.refinement.refine_antecedents` on ``U``."""
        if U.shape[0] < _MIN_REFINE_SAMPLES:
            raise ValueError(
                f"The 'refine' parameter of {type(self).__name__} needs at least "
                f"{_MIN_REFINE_SAMPLES} training samples (a fifth is held out to stop the "
                f"refinement); got {U.shape[0]} sample(s). Use refine=0 or more rows."
            )
        if self._auto_alpha():  # the penalty fit would choose for the starting antecedents
            alpha = self._leave_one_out_ridge(antecedents, U, Y)[0].alpha
        else:
            alpha = float(self.alpha)
        refined = refine_antecedents(
            antecedents,
            U,
            Y,
            n_iter=self.refine,
            order=self.order,
            alpha=alpha,
            random_state=check_random_state(self.random_state),
        )
        return refined.replace(metadata=antecedents.metadata)

    def _leave_one_out_ridge(self, antecedents, U, Y):
        """``(selection, prior)`` of :func:`randomts.fitting.model_selection.ridge_loo` on ``U``'s rows."""
        return _ridge_loo(
            lambda start, stop: antecedents.design_matrix(U[start:stop], order=self.order),
            U.shape[0],
            self._n_unknowns(antecedents),
            Y,
            None,
            True,
            fill=design_rows_writer(
                U,
                Y,
                antecedents.centers,
                antecedents.sigmas,
                normalize=antecedents.normalize,
                order=self.order,
            ),
            n_jobs=self.n_jobs,
        )

    def _auto_alpha(self):
        return isinstance(self.alpha, str)

    def _n_unknowns(self, antecedents):
        """Columns of ``K``: the unknowns of each output's least-squares problem."""
        return antecedents.n_rules * (antecedents.n_features + 1 if self.order == 1 else 1)

    def _check_memory(self, n_samples, n_features, n_outputs):
        """Refuse, before drawing anything, a fit whose factors cannot fit in memory."""
        n_columns = self.n_rules * (n_features + 1 if self.order == 1 else 1)
        row_space = self._auto_alpha() and n_columns > n_samples  # the LOO through K K^T
        check_factor_memory(
            n_columns,
            n_outputs,
            n_rows=n_samples if row_space else 0,
            row_space=row_space,
            what=f"n_rules={self.n_rules} with {n_features} inputs and order={self.order}",
        )

    def _warn_if_far_offset(self, Y):
        """Warn when a weighted sum is to reproduce targets whose mean dwarfs their spread."""
        if self.normalize or not self._auto_alpha():
            return
        mean, spread = np.abs(Y.mean(axis=0)), Y.std(axis=0)
        far = (spread > 0) & (mean > _FAR_OFFSET * spread)  # a constant target is exact enough
        if np.any(far):
            k = int(np.argmax(np.where(far, mean, 0.0) / np.where(far, spread, 1.0)))
            warnings.warn(
                f"The mean of {'the targets' if Y.shape[1] == 1 else f'output {k}'} "
                f"({Y[:, k].mean():.6g}) is more than {_FAR_OFFSET:.0e} "
                f"times their standard deviation ({spread[k]:.3g}): a weighted sum of rules "
                "reproduces a constant only approximately, and that error, times the mean, "
                "may show in the predictions. Subtract a constant from y before fitting (and "
                "add it to the predictions), or use normalize=True (weighted average).",
                RandomTSWarning,
                stacklevel=3,
            )

    def _warn_if_underdetermined(self, antecedents, n_samples):
        n_unknowns = self._n_unknowns(antecedents)
        if float(self.alpha) == 0.0 and n_unknowns >= n_samples:
            warnings.warn(
                f"{type(self).__name__} fits {n_unknowns} unknowns per output "
                f"({antecedents.n_rules} rules) to {n_samples} rows with alpha=0: the "
                "consequents interpolate the training targets, noise included, and predict "
                "poorly between them. Use "
                "alpha='auto' (or alpha > 0), fewer rules or more rows.",
                UnderdeterminedWarning,
                stacklevel=3,
            )

    def _record_firing(self, antecedents, U, *, reset):
        """Keep the least over the training rows of the log firing of each row's strongest rule."""
        weakest = np.inf
        for start in range(0, U.shape[0], _FIRING_ROWS):
            strongest = antecedents.log_firing_strengths(U[start : start + _FIRING_ROWS]).max(
                axis=1
            )
            weakest = min(weakest, float(strongest.min()))
        if not reset:
            weakest = min(weakest, self._weakest_log_firing)
        self._weakest_log_firing = weakest

    @available_if(_without_refinement)
    def partial_fit(self, X, y):
        """Fit on one more chunk of rows: the same model as one ``fit`` on all the chunks.

        The first call (on an estimator without a stream: fresh, or after
        :meth:`fit`) validates the hyperparameters and draws the antecedents —
        with ``standardize=True`` or ``centers="data"`` from that first
        chunk's statistics. Every call then folds the chunk into an exact
        accumulation of the least-squares system (the QR factor of ``[K Y]``
        for ``"lstsq"``/``"pinv"``, its Gram matrix for ``"cholesky"``; see
        :mod:`randomts.fitting.consequents`) and re-solves the consequents, which costs
        ``O(q^3)`` with ``q = n_rules * (n_features + 1) + n_outputs``. The
        solver is fixed at the first call; a float ``alpha`` is read at every
        call. With ``alpha="auto"`` the first chunk fixes the penalty and the
        prior (the leave-one-out choice of :meth:`fit` on that chunk) and the
        stream fits the rest. The model equals one ``fit`` on all the chunks
        when nothing is taken from the first chunk: a float ``alpha``,
        ``standardize=False`` and centres ``"normal"`` or ``"uniform"``, as in
        :meth:`paper`.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            A chunk of inputs.
        y : array-like of shape (n_rows,) or (n_rows, n_outputs)
            Its targets, with the number of outputs of the first chunk.

        Returns
        -------
        self : RandomTSRegressor

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(600, 2)); y = np.sin(X[:, 0]) * X[:, 1]
        >>> streamed = RandomTSRegressor.paper(n_rules=20, random_state=0)
        >>> for rows in np.array_split(np.arange(600), 5):
        ...     _ = streamed.partial_fit(X[rows], y[rows])
        >>> whole = RandomTSRegressor.paper(n_rules=20, random_state=0).fit(X, y)
        >>> bool(np.allclose(streamed.predict(X), whole.predict(X), rtol=1e-10, atol=1e-12))
        True
        """
        first = getattr(self, "_stream", None) is None
        if first:
            self._validate_hyperparameters()

        output_names = _output_names(y) if first else None
        X, y = validate_numeric_data(
            self, X, y, reset=first, multi_output=True, y_numeric=True, dtype=np.float64
        )
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        if first:
            U, antecedents = self._draw_antecedents(X, Y, output_names)
            self._stream = ConsequentStream(
                antecedents, Y.shape[1], order=self.order, solver=self.solver, n_jobs=self.n_jobs
            )
            self._y_ndim = y.ndim
            self._stream_prior = None
            if self._auto_alpha():  # alpha and prior by leave-one-out on this first chunk
                self._warn_if_far_offset(Y)
                selection, prior = self._leave_one_out_ridge(antecedents, U, Y)
                coef, intercept = split_coefficients(
                    prior, antecedents.n_rules, antecedents.n_features, order=self.order
                )
                self._stream_prior = (
                    antecedents.replace(coef=coef, intercept=intercept),
                    selection.alpha,
                )
        else:
            if Y.shape[1] != self.n_outputs_:
                raise ValueError(
                    f"y has {Y.shape[1]} outputs, but {type(self).__name__} is expecting "
                    f"{self.n_outputs_} outputs as in the first partial_fit call."
                )
            U = X if self._scaling is None else (X - self._scaling[0]) / self._scaling[1]
        prior = self._stream_prior
        if prior is None:
            if self._auto_alpha():
                raise ValueError(
                    f"The 'alpha' parameter of {type(self).__name__} was a float at the first "
                    "partial_fit call and can change only to another float. Got 'auto' instead."
                )
            alpha = check_real(self.alpha, "alpha", low=0.0, owner=type(self).__name__)
            self._stream.update(U, Y)
        else:  # fit the rest, Y - prior(U), shrunk toward zero: the prior plus that
            alpha = prior[1]
            self._stream.update(U, Y - prior[0]._predict(U))
        self._record_ranges(X, Y, reset=first)
        self._record_firing(self._stream.antecedents, U, reset=first)
        self.alpha_ = alpha
        rule_base = self._stream.rule_base(alpha)
        if prior is not None:
            rule_base = rule_base.replace(
                coef=rule_base.coef + prior[0].coef,
                intercept=rule_base.intercept + prior[0].intercept,
            )
        self._set_rule_base(rule_base, self._stream.n_samples)
        return self

    def _draw_antecedents(self, X, Y, output_names):
        """Standardise ``X`` if asked and draw the antecedents; returns ``(U, antecedents)``."""
        self.n_outputs_ = Y.shape[1]
        if self.standardize:
            mean = X.mean(axis=0)
            scale = X.std(axis=0)
            scale[scale == 0] = 1.0
            U = (X - mean) / scale
            self._scaling = (mean, scale)
        else:
            U = X
            self._scaling = None
        return U, self.draw_antecedents(U, self.n_outputs_, output_names=output_names)

    def draw_antecedents(self, U, n_outputs=1, *, output_names=None):
        """The rules :meth:`fit` draws, before their consequents are fitted.

        ``fit`` draws them on its inputs as it sees them: standardised
        (``(X - mean) / std`` per feature, with a standard deviation of 0
        taken as 1) when ``standardize=True``. The same parameters and
        ``random_state`` give the same rules, bit for bit. This is the first
        half of ``fit`` for data that is not in memory, e.g. in
        :func:`randomts.distributed.fit_estimator_dask`.

        Parameters
        ----------
        U : array-like of shape (n_samples, n_features)
            The inputs as ``fit`` sees them. Anything with a ``shape`` and
            NumPy-style row indexing and reductions (a dask array) is read only
            where the centres need it.
        n_outputs : int, default=1
            Number of outputs of the rule base.
        output_names : sequence of str, optional
            Output names.

        Returns
        -------
        RuleBase
            The antecedents, zero consequents, in the units of ``U``; input
            names are ``feature_names_in_`` when the estimator has them.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.random.default_rng(0).normal(size=(100, 3))
        >>> model = RandomTSRegressor(n_rules=5, standardize=False, random_state=0)
        >>> rules = model.draw_antecedents(X)
        >>> fitted = model.fit(X, X[:, 0]).rule_base_
        >>> np.array_equal(rules.centers, fitted.centers), np.array_equal(rules.sigmas, fitted.sigmas)
        (True, True)
        """
        self._validate_hyperparameters()
        n_features = U.shape[1]
        input_names = (
            [str(name) for name in self.feature_names_in_]
            if hasattr(self, "feature_names_in_") and len(self.feature_names_in_) == n_features
            else None
        )
        if output_names is not None and len(output_names) != n_outputs:
            output_names = None
        width_range = self.width_range
        if width_range is None:
            width_range = default_width_range(n_features, normalize=self.normalize)
        if self.centers == "kmeans":  # not random: on the k-means clusters of U
            U = np.asarray(U, dtype=float)
            n_distinct = np.unique(U, axis=0).shape[0]
            if n_distinct < self.n_rules:
                raise ValueError(
                    f"{type(self).__name__} with centers='kmeans' needs a training sample of "
                    f"distinct inputs per rule (n_rules={self.n_rules}); got {n_distinct} "
                    "sample(s) with distinct inputs. Use fewer rules or another 'centers'."
                )
            centers, sigmas = kmeans_antecedents(
                U, self.n_rules, random_state=check_random_state(self.random_state)
            )
            return RuleBase(
                centers,
                sigmas,
                n_outputs=n_outputs,
                normalize=self.normalize,
                input_names=input_names,
                output_names=output_names,
            )
        return RuleBase.random(
            n_features,
            n_outputs,
            self.n_rules,
            centers=self.centers,
            center_scale=self.center_scale,
            center_bounds=self.center_bounds,
            width_range=width_range,
            normalize=self.normalize,
            input_names=input_names,
            output_names=output_names,
            data=U,
            random_state=check_random_state(self.random_state),
        )

    def _record_ranges(self, X, Y, *, reset):
        """Keep the per-variable ``[min, max]`` of the inputs and outputs seen so far."""
        low = np.concatenate([X.min(axis=0), Y.min(axis=0)])
        high = np.concatenate([X.max(axis=0), Y.max(axis=0)])
        if not reset:
            low = np.minimum(low, self._ranges[0])
            high = np.maximum(high, self._ranges[1])
        self._ranges = (low, high)

    def _set_rule_base(self, rule_base, n_samples):
        """Store the fitted rule base, in the data's own units, with its provenance.

        The rule base records the training ranges (``input_range``,
        ``output_range``: ``[min, max]`` per variable), which text labels, plots
        and the FIS and FLL writers use, and in its metadata the penalty
        (``alpha``) and the weakest firing of a training row's strongest rule
        (``weakest_log_firing``, the reference of the extrapolation warning).
        """
        n_features = rule_base.n_features
        metadata = {
            "library": "randomts",
            "library_version": _library_version(),
            "estimator": type(self).__name__,
            "params": _jsonable(self.get_params()),
            "n_samples_fit": int(n_samples),
        }
        if getattr(self, "alpha_", None) is not None:
            metadata["alpha"] = float(self.alpha_)
        weakest = getattr(self, "_weakest_log_firing", None)
        if weakest is not None and np.isfinite(weakest):
            metadata["weakest_log_firing"] = float(weakest)
        if self._scaling is not None:
            mean, scale = self._scaling
            rule_base = rule_base.in_original_units(mean, scale)
            metadata["input_mean"] = mean.tolist()
            metadata["input_scale"] = scale.tolist()
        ranges = {}
        if self._ranges is not None:
            low, high = self._ranges
            ranges = {
                "input_range": np.column_stack([low[:n_features], high[:n_features]]),
                "output_range": np.column_stack([low[n_features:], high[n_features:]]),
            }
        self.rule_base_ = rule_base.replace(metadata=metadata, **ranges)

    @classmethod
    def from_rule_base(
        cls, rule_base, *, input_mean=None, input_scale=None, n_samples=None, **params
    ):
        """A fitted estimator that predicts with ``rule_base``.

        For a rule base built or fitted outside :meth:`fit` — read from a
        file of another tool, refined by hand, or fitted on data that is not
        in memory (:func:`randomts.distributed.fit_estimator_dask`) — to be
        used where scikit-learn expects a fitted regressor: ``predict``,
        ``score``, pipelines, :meth:`prune`, :func:`randomts.save`. It is the
        second half of ``fit``: with ``input_mean`` and ``input_scale``, the
        rule base is the model of the standardised inputs
        ``(X - input_mean) / input_scale`` (as ``fit`` fits it) and is stored
        in the data's units, the standardisation recorded as ``fit`` records
        it.

        Parameters
        ----------
        rule_base : RuleBase
            Fitted rules. Their ``input_range`` and ``output_range``, when
            recorded, are the training ranges (the reference of
            :class:`~randomts.exceptions.ExtrapolationWarning`, with the
            metadata ``weakest_log_firing`` if present); the metadata
            ``alpha`` gives ``alpha_`` when the ``alpha`` parameter is ``"auto"``.
        input_mean, input_scale : array-like of shape (n_features,), optional
            The standardisation the rule base was fitted under, both or neither
            (``input_scale > 0``).
        n_samples : int, optional
            Training rows, recorded in the metadata.
        **params
            Parameters of the estimator (those it was fitted with, which
            ``clone`` and refitting use); the defaults otherwise.

        Returns
        -------
        RandomTSRegressor
            Fitted: ``rule_base_`` is ``rule_base`` in the data's units with the
            estimator's metadata; ``predict`` returns 1-D predictions for one output.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> X = np.random.default_rng(0).uniform(-1, 1, size=(200, 2)); y = X[:, 0] * X[:, 1]
        >>> rules = RuleBase.random(2, n_rules=8, random_state=0).fit_consequents(X, y)
        >>> model = RandomTSRegressor.from_rule_base(rules, alpha=0.0, n_rules=8)
        >>> bool(np.allclose(model.predict(X), rules.predict(X)[:, 0]))
        True
        >>> bool(model.score(X, y) > 0.9), model.n_features_in_
        (True, 2)
        """
        if not isinstance(rule_base, RuleBase):
            raise TypeError(f"rule_base must be a RuleBase; got {type(rule_base).__name__}.")
        model = cls(**params)
        model._validate_hyperparameters()
        n_features = rule_base.n_features
        if (input_mean is None) != (input_scale is None):
            raise ValueError("Give both input_mean and input_scale, or neither.")
        model._scaling = None
        if input_mean is not None:
            mean = check_matrix(input_mean, "input_mean", ndim=1, n_columns=n_features)
            scale = check_matrix(input_scale, "input_scale", ndim=1, n_columns=n_features)
            if np.any(scale <= 0):
                raise ValueError(f"input_scale must be > 0 on every input; got {scale.tolist()}.")
            model._scaling = (mean, scale)
        metadata = rule_base.metadata
        alpha = _recorded_number(metadata, "alpha") if model._auto_alpha() else model.alpha
        model.alpha_ = None if alpha is None else float(alpha)
        model.n_features_in_ = n_features
        model.n_outputs_ = rule_base.n_outputs
        model._y_ndim = 1 if rule_base.n_outputs == 1 else 2
        model._stream = None
        # the recorded ranges, in the data's units
        in_data_units = (
            rule_base if model._scaling is None else rule_base.in_original_units(*model._scaling)
        )
        model._ranges = _recorded_ranges(in_data_units)
        # the extrapolation warning compares with the training rows' weakest firing, inside
        # their ranges
        model._weakest_log_firing = (
            None if model._ranges is None else _recorded_number(metadata, "weakest_log_firing")
        )
        if n_samples is None:
            n_samples = metadata.get("n_samples_fit", 0)
        model._set_rule_base(rule_base, check_int(n_samples, "n_samples", low=0))
        return model

    def predict(self, X):
        """Predict with the fitted rule base.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
            One column per output; 1-D when ``fit`` was given a 1-D ``y``.
        """
        check_is_fitted(self, "rule_base_")
        if not self._is_plain_valid_input(X):
            X = validate_numeric_data(self, X, reset=False, dtype=np.float64)
        self._warn_if_extrapolating(X)
        Y = self.rule_base_._predict(X, n_jobs=self.n_jobs)
        return Y[:, 0] if self._y_ndim == 1 else Y

    def _warn_if_extrapolating(self, X):
        """Warn about rows where no rule fires, in about ``O(n_samples * n_features)``.

        Only rows outside the box of the training inputs are examined (inside it
        the training rows' coverage is the reference); for them, the firing of
        the strongest rule is compared with ``1e-3`` times the weakest such
        firing over the training rows.
        """
        weakest = getattr(self, "_weakest_log_firing", None)
        if weakest is None:
            return
        n_features = X.shape[1]
        low, high = self._ranges[0][:n_features], self._ranges[1][:n_features]
        outside = np.flatnonzero(((X < low) | (X > high)).any(axis=1))
        if outside.size == 0:
            return
        threshold = weakest + np.log(_EXTRAPOLATION_FACTOR)
        strongest = self.rule_base_.log_firing_strengths(X[outside]).max(axis=1)
        count = int(np.count_nonzero(strongest < threshold))
        if count:
            fate = (
                "the weighted average follows the nearest rule's linear model however far away"
                if self.rule_base_.normalize
                else "the weighted sum decays to 0"
            )
            warnings.warn(
                f"{count} of {X.shape[0]} rows ({100 * count / X.shape[0]:.3g}%) given to predict "
                "lie where no rule fires: their strongest rule fires below "
                f"{np.exp(threshold):.3g}, {_EXTRAPOLATION_FACTOR:g} times the weakest firing of a "
                f"training row's strongest rule ({np.exp(weakest):.3g}). Their predictions are "
                f"extrapolations ({fate}).",
                ExtrapolationWarning,
                stacklevel=3,
            )

    def _is_plain_valid_input(self, X):
        """True if ``validate_data(self, X, reset=False)`` would return ``X`` itself, unchanged.

        That is a finite 2-D float64 ndarray of the fitted width, and no feature
        names to compare. Skipping scikit-learn's validation then saves its fixed
        cost (about 0.3 ms a call), a tenth of ``predict`` on 10^4 rows. Anything
        else, including every input that should raise or warn, takes the full path.
        Finiteness is tested through the sum, as scikit-learn does first: a finite
        sum proves every entry finite; an infinite or NaN sum defers to the full check.
        """
        return (
            type(X) is np.ndarray
            and X.dtype == np.float64
            and X.ndim == 2
            and X.shape[0] > 0
            and X.shape[1] == self.n_features_in_
            and not hasattr(self, "feature_names_in_")
            and _sum_is_finite(X)
        )

    # ------------------------------------------ rules, pruning and saving a fitted estimator
    def rule_importance(self, X):
        """Each rule's share of the total absolute contribution on ``X``.

        See :func:`randomts.importance.rule_importance`, which this calls on
        ``rule_base_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data on which importance is measured (e.g. the training inputs).

        Returns
        -------
        ndarray of shape (n_rules,)
            Non-negative; sums to 1 unless every contribution is zero.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(200, 2)); y = np.sin(X[:, 0]) * X[:, 1]
        >>> model = RandomTSRegressor(n_rules=10, random_state=0).fit(X, y)
        >>> importance = model.rule_importance(X)
        >>> importance.shape, round(float(importance.sum()), 6)
        ((10,), 1.0)
        """
        from randomts.importance import rule_importance

        check_is_fitted(self, "rule_base_")
        X = validate_numeric_data(self, X, reset=False, dtype=np.float64)
        return rule_importance(self.rule_base_, X)

    def prune(self, k, X, y):
        """A new fitted estimator with the ``k`` most important rules, consequents refitted.

        The rules are ranked by :meth:`rule_importance` on ``X`` and the
        consequents of the ``k`` kept ones are fitted again to ``(X, y)`` by
        :func:`randomts.importance.prune`, with this estimator's ``order``,
        ``solver`` and ridge penalty, on the same (standardised, if so)
        inputs as ``fit``. This estimator is left unchanged. The new one has
        ``n_rules=k`` and the other parameters of this one; its metadata
        record ``pruned_from`` (the number of rules before pruning).

        Parameters
        ----------
        k : int
            Number of rules to keep, ``1 <= k <= n_rules``.
        X : array-like of shape (n_samples, n_features)
            Inputs, used both to rank the rules and to refit.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets, with the outputs of ``fit``.

        Returns
        -------
        RandomTSRegressor
            Fitted, with ``k`` rules, most important first.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(300, 2)); y = np.sin(X[:, 0]) * X[:, 1]
        >>> model = RandomTSRegressor(n_rules=40, random_state=0).fit(X, y)
        >>> small = model.prune(10, X, y)
        >>> len(small.rule_base_), small.n_rules, small.predict(X[:3]).shape
        (10, 10, (3,))
        >>> bool(small.score(X, y) > 0.99)
        True
        """
        import copy

        from randomts.importance import prune

        check_is_fitted(self, "rule_base_")
        X, y = validate_numeric_data(
            self, X, y, reset=False, multi_output=True, y_numeric=True, dtype=np.float64
        )
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        if Y.shape[1] != self.n_outputs_:
            raise ValueError(
                f"y has {Y.shape[1]} outputs, but {type(self).__name__} is expecting "
                f"{self.n_outputs_} outputs as in fit."
            )
        rule_base = self.rule_base_
        metadata = rule_base.metadata
        scaling = _fit_scaling(metadata, rule_base.n_features)
        if scaling is not None:  # rank and refit where fit did: on standardised inputs
            mean, scale = scaling
            rule_base = rule_base.in_original_units(-mean / scale, 1.0 / scale)
            X = (X - mean) / scale
        alpha = getattr(self, "alpha_", self.alpha)  # the penalty chosen by fit, if it chose one
        pruned = prune(rule_base, k, X, Y, order=self.order, solver=self.solver, alpha=alpha)
        if scaling is not None:
            pruned = pruned.in_original_units(*scaling)
        new = copy.copy(self)
        new._stream = None  # a partial_fit after pruning starts a new model
        new.n_rules = len(pruned)
        metadata["params"] = _jsonable(new.get_params())
        metadata["pruned_from"] = self.rule_base_.n_rules
        new.rule_base_ = pruned.replace(metadata=metadata)
        return new

    def _saved_rule_base(self):
        """The rule base :func:`randomts.save` writes: ``rule_base_`` and how to rebuild ``self``.

        The metadata gain ``estimator_state``: the class, the dimension of
        ``y`` in ``fit``, ``feature_names_in_``, the variable names (which
        some formats must change) and the other fitted attributes that JSON
        holds exactly (scalars, short 1-D arrays: a penalty chosen in ``fit``,
        say); :meth:`_from_saved` reads them back.
        """
        check_is_fitted(self, "rule_base_")
        rule_base = self.rule_base_
        names = getattr(self, "feature_names_in_", None)
        metadata = rule_base.metadata
        metadata["estimator_state"] = {
            "class": type(self).__name__,
            "target_ndim": int(self._y_ndim),
            "feature_names_in": None if names is None else [str(n) for n in names],
            "input_names": list(rule_base.input_names),
            "output_names": list(rule_base.output_names),
            "attributes": _recordable_attributes(self),
        }
        return rule_base.replace(metadata=metadata)

    @classmethod
    def _from_saved(cls, rule_base):
        """The fitted estimator that :meth:`_saved_rule_base` described (see :func:`randomts.load`).

        The parameters are the recorded ones that this class has (a random
        generator, which JSON cannot hold, becomes ``None``); the rule base,
        as read, is the fitted model, and its metadata lose the record (so
        that saving ``rule_base_`` alone writes a rule base).
        """
        metadata = rule_base.metadata
        state = metadata.pop("estimator_state")  # saving the rules alone writes a rule base
        known = cls().get_params()
        model = cls(**_recorded_params(metadata.get("params"), known))
        model._validate_hyperparameters()  # a damaged record fails here, not in predict
        names = state["feature_names_in"]
        if names is not None:
            model.feature_names_in_ = np.asarray(names, dtype=object)
        model.n_features_in_ = rule_base.n_features
        model.n_outputs_ = rule_base.n_outputs
        model._y_ndim = state["target_ndim"]
        for name, value in (state.get("attributes") or {}).items():
            _restore_attribute(model, name, value)
        model._stream = None
        model._scaling = _fit_scaling(metadata, rule_base.n_features)
        model._ranges = _recorded_ranges(rule_base)  # None: a partial_fit records them
        if model._ranges is not None:
            model._weakest_log_firing = _recorded_number(metadata, "weakest_log_firing")
        model.rule_base_ = rule_base.replace(metadata=metadata)
        return model


#: Fitted attributes that saving records elsewhere, or that are the model itself.
_NOT_RECORDED = ("rule_base_", "feature_names_in_", "n_features_in_", "n_outputs_")
#: Longest 1-D array attribute recorded with a saved estimator.
_MAX_RECORDED = 10_000


def _recordable_attributes(model):
    """Public fitted attributes (``name_``) that JSON holds exactly, as ``{name: record}``.

    Python and NumPy scalars (bool, int, float, str) are kept as they are;
    1-D NumPy arrays of up to :data:`_MAX_RECORDED` numbers or strings as
    ``{"array": [...], "dtype": "..."}``. Anything else is left out.
    """
    records = {}
    for name, value in vars(model).items():
        if not name.endswith("_") or name.startswith("_") or name in _NOT_RECORDED:
            continue
        if isinstance(value, np.generic):
            value = value.item()
        if value is None or isinstance(value, (bool, int, str)):
            records[name] = value
        elif isinstance(value, float) and np.isfinite(value):
            records[name] = value
        elif (
            isinstance(value, np.ndarray)
            and value.ndim == 1
            and value.size <= _MAX_RECORDED
            and value.dtype.kind in "biufU"
            and (value.dtype.kind not in "f" or np.all(np.isfinite(value)))
        ):
            records[name] = {"array": value.tolist(), "dtype": value.dtype.str}
    return records


def _restore_attribute(model, name, record):
    """Set one attribute recorded by :func:`_recordable_attributes`, or raise a ValueError."""
    if (
        not isinstance(name, str)
        or not name.endswith("_")
        or name.startswith("_")
        or name in _NOT_RECORDED
    ):
        raise ValueError(f"{name!r} is not an attribute that is saved")
    if isinstance(record, dict):
        try:
            dtype = np.dtype(record["dtype"])
            if dtype.kind not in "biufU":
                raise TypeError(f"dtype {dtype} is not one that is saved")
            record = np.asarray(record["array"], dtype=dtype)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"attribute {name!r} is not a 1-D array record: {exc}") from None
        if record.ndim != 1:
            raise ValueError(f"attribute {name!r} is not a 1-D array record")
    elif not (record is None or isinstance(record, (bool, int, float, str))):
        raise ValueError(f"attribute {name!r} holds {type(record).__name__}")
    setattr(model, name, record)


def _recorded_params(recorded, known):
    """The parameters a saved estimator recorded, those of ``known`` (a ``get_params()``).

    Lists become tuples, and a random generator (recorded as ``"<Generator>"``, which JSON
    cannot hold) becomes None; a parameter of another version is left out (the rule base is
    what predicts).
    """
    params = {}
    for key, value in (recorded if isinstance(recorded, dict) else {}).items():
        if key not in known:
            continue
        if isinstance(value, list):
            value = tuple(value)
        elif isinstance(value, str) and value.startswith("<") and key == "random_state":
            value = None
        params[key] = value
    return params


def _recorded_number(metadata, key):
    """A finite number recorded in the metadata under ``key``, else None."""
    value = metadata.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value):
        return float(value)
    return None


def _recorded_ranges(rule_base):
    """``(low, high)`` over the inputs then outputs, from the rule base's ranges, or None."""
    if rule_base.input_range is None or rule_base.output_range is None:
        return None
    ranges = np.concatenate([rule_base.input_range, rule_base.output_range])
    return ranges[:, 0].copy(), ranges[:, 1].copy()


def _fit_scaling(metadata, n_features):
    """``(mean, scale)`` of the standardisation recorded in the metadata, or None."""
    mean, scale = metadata.get("input_mean"), metadata.get("input_scale")
    if mean is None or scale is None:
        return None
    try:
        mean, scale = np.asarray(mean, dtype=float), np.asarray(scale, dtype=float)
    except (TypeError, ValueError):
        return None
    if mean.shape != (n_features,) or scale.shape != (n_features,):
        return None
    if not (np.all(np.isfinite(mean)) and np.all((scale > 0) & np.isfinite(scale))):
        return None
    return mean, scale


def _sum_is_finite(X):
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(X.sum()))


def _output_names(y):
    """Names of the targets from a pandas Series or DataFrame, if any."""
    columns = getattr(y, "columns", None)
    if columns is not None:
        names = [str(c) for c in columns]
    elif getattr(y, "name", None) is not None and hasattr(y, "to_numpy"):
        names = [str(y.name)]
    else:
        return None
    if len(set(names)) != len(names) or not all(n.strip() for n in names):
        return None
    return names


def _jsonable(params):
    out = {}
    for key, value in params.items():
        if isinstance(value, (np.random.RandomState, np.random.Generator)):
            value = f"<{type(value).__name__}>"
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, np.generic):
            value = value.item()
        out[key] = value
    return out
