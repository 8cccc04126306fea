"""The scikit-learn estimator: random Takagi-Sugeno rules, consequents fitted in one shot."""

from __future__ import annotations

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from randomts._validation import check_real, validate_numeric_data
from randomts.core.sampling import PAPER_CENTER_SCALE
from randomts.estimators._base import _RandomTSEstimator
from randomts.estimators.antecedents import draw_rules
from randomts.estimators.extrapolation import TrainingDomain, weakest_log_firing
from randomts.estimators.intervals import (
    check_jackknife,
    current_scores,
    interval_bounds,
    jackknife_scores,
    split_scores,
)
from randomts.estimators.parameters import (
    check_fit_memory,
    output_names,
    resolved,
    warn_if_far_offset,
    without_refinement,
)
from randomts.estimators.rows import InMemoryRows
from randomts.fitting.conformal import check_coverage
from randomts.fitting.consequents import ConsequentFit, ConsequentStream, consequent_fit
from randomts.fuzzy.rulebase import RuleBase

__all__ = ["RandomTSRegressor", "fit_quietly"]


class RandomTSRegressor(RegressorMixin, _RandomTSEstimator):
    """Takagi-Sugeno regressor: rules drawn at random, or grown where the data need them.

    By default (``structure="grown"``), ``fit`` grows the rules where the
    model's error is (:func:`randomts.fitting.growth.grow_rules`, a local
    linear model tree in the manner of Nelles' LOLIMOT): from one linear rule
    it cuts the region of the worst rule in two, at the median of its rows,
    across the input that lowers the error most, and fits each rule's line to
    the data under it (weighted least squares, its slopes shrunk toward its
    parent's). The number of rules, up to ``n_rules`` (40), is chosen by the
    exact leave-one-out error of those local fits, and the width of the rules
    among a few fractions of their regions, keeping every rule within 0.1
    standard deviations of ``y`` of the model at its own centre. Each rule
    sits on the mean of the rows of its region and is no wider than that
    region; the output is the weighted average. Every rule then says what the
    model does where it lives, and beyond the data the model follows the
    outermost rules' lines.

    With ``structure="random"`` (the Shuffled Linear Model of the paper),
    ``fit`` draws ``n_rules`` (100) Gaussian antecedents, then fits every
    rule's consequent by one least-squares solve of the block system
    ``K Gamma = Y``: the weighted sum of the rules by default, accurate, but
    whose rules are terms of a sum that the others correct, not what the
    model does where they live, and which can swing just beyond the data.

    The defaults work on raw data of any scale and dimension:

    * the inputs are standardised (``standardize=True``) and the rule base is
      expressed back in the data's own units, so shifting or rescaling an
      input changes nothing but the units of the rules;
    * random rules: the centres are training rows drawn at random
      (``centers="samples"``), so they cover the data; the widths
      ``b_i ~ U(0, 1 / (2 n_features)]`` (in ``exp(-b_i ||u - a_i||^2)``,
      ``u`` standardised) scale with the number of inputs: two rows of
      standardised data are ``2 n_features`` apart in squared distance on
      average, so every rule fires on a typical row, from nearly flat rules
      to rules about one typical distance wide;
    * random rules: ``alpha="auto"`` chooses the ridge penalty by exact
      leave-one-out error over a grid (see
      :func:`randomts.fitting.ridge.choose_alpha`), shrinking the
      consequents toward the rule base that reproduces the mean of the
      targets; this costs about one least-squares fit. A weighted sum of
      rules reproduces a constant only approximately: ``fit`` warns
      (:class:`~randomts.RandomTSWarning`) when the targets' mean exceeds
      ``1e4`` standard deviations, where that error can show.

    The paper's exact setting (random rules, centres ``N(0, 2 I)``, widths
    ``U(0, 1)`` on the raw inputs, no penalty) is :meth:`paper`.

    Parameters
    ----------
    n_rules : int, optional
        The most rules grown (``structure="grown"``; None: 40), or the number
        of rules drawn (``structure="random"``; None: 100).
    structure : {"grown", "random"}, optional
        How the antecedents are made. ``"grown"``: grown where the data need
        them, their lines fitted locally (see above); ``centers``,
        ``center_scale``, ``center_bounds``, ``width_range`` and ``refine``
        are not used, and setting them is refused. ``"random"``: drawn at
        random (or on the k-means clusters) by ``centers``, as in the paper.
        None (default): ``"grown"`` for the regressor, unless a parameter
        only random rules read is set (``centers``, ``center_scale``,
        ``center_bounds``, ``width_range``, ``refine > 0``,
        ``normalize=False``), which keeps the random rules it configures
        (:func:`randomts.estimators.parameters.structure_of`); ``"random"``
        for :class:`~randomts.RandomTSClassifier`, whose class scores grown
        rules fit less accurately and more slowly (``benchmarks/RESULTS.md``).
    order : {0, 1}, default=1
        1: linear consequents ``A_i x + b_i`` (the SLM). 0: constant
        consequents, i.e. an Extreme Learning Machine with RBF nodes.
    normalize : bool, optional
        False: output is the weighted **sum** of consequents (the paper).
        True: the weighted **average** (classic Takagi-Sugeno). None: True
        for grown rules (which are always averaged), False for random ones.
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
        (:class:`~randomts.exceptions.UnderdeterminedWarning`). With
        ``learning="local"`` or ``"combined"``, ``"auto"`` is chosen by
        5-fold cross-validation instead, on the same relative grid. For the
        local lines of grown rules, a float is the ridge that shrinks each
        rule's slopes toward its parent's (in standardised units), and
        ``"auto"`` is 1.
    learning : {"global", "local", "combined"}, optional
        How the consequents are fitted
        (:mod:`randomts.fitting.local_learning`). ``"global"``: all at once,
        to the model's output, the most accurate on the training rows; a
        consequent is then a term that the other rules correct, not what the
        model does where the rule lives. ``"local"``: each rule to the data
        under it alone (weighted least squares with the rule's weights), so
        that every rule describes its part of the data; it costs accuracy
        where rules overlap. ``"combined"``: global error plus
        ``local_weight`` times the local errors (Yen, Wang & Gillespie,
        1998), one knob between the two. Local and combined learning are for
        few rules with centres on the data (see :meth:`interpretable`): far
        from the data a rule has nothing to describe. None: ``"local"`` for
        grown rules, whose growth fits each line locally (their slopes shrunk
        toward the parent rule's by ``alpha``), ``"global"``
        for random ones. ``"global"`` or ``"combined"`` with grown rules fits
        the consequents of the grown antecedents again by the one fit of the
        consequents.
    local_weight : "auto" or float > 0, default="auto"
        Weight of the local term of ``learning="combined"``: ``"auto"``
        chooses it, with ``alpha``, by 5-fold cross-validation over
        ``0.1 ... 100`` (:data:`randomts.fitting.local_learning.LOCAL_WEIGHTS`).
    standardize : bool, default=True
        Draw the antecedents and fit on per-feature standardised inputs
        (zero mean, unit variance), then express the rule base back in the
        data's own units (an exactly equivalent model).
    centers : {"samples", "normal", "uniform", "data", "kmeans"}, optional
        Centre distribution of random rules (None: ``"samples"``): ``"samples"``, distinct training rows drawn at
        random (after standardisation, if any); ``"normal"`` with
        ``center_scale``; ``"uniform"`` over ``center_bounds``; ``"data"``
        uniform over the training inputs' bounding box. ``"kmeans"``: not
        random, the centres of the k-means clusters of the standardised
        training inputs, each rule's widths from its cluster's spread
        (:func:`randomts.fitting.kmeans.kmeans_antecedents`; ``width_range`` is
        not used); needs at least ``n_rules`` distinct training rows. The
        choice for few rules, with ``refine``.
    center_scale : float, optional
        Standard deviation of the normal centre distribution (None: the
        paper's ``sqrt(2)``, variance 2).
    center_bounds : (float, float), optional
        Box for ``centers="uniform"``.
    width_range : (float, float), optional
        ``b_i ~ U(low, high]``; sigma of the Gaussian sets is ``1/sqrt(2 b_i)``.
        By default ``(0, 1 / (2 n_features))`` for the weighted sum (see above)
        and ``(0, 8 / n_features)`` for the weighted average, whose rules must
        be local (wide rules average to a constant); the paper's is ``(0, 1)``.
    width_factor : float in (0, 1] or "auto", default="auto"
        Grown rules: a rule's Gaussian width on each input as a fraction of
        the side of its region (:func:`randomts.fitting.growth.grow_rules`).
        ``"auto"`` grows the rules at each factor of
        :data:`~randomts.fitting.growth.WIDTH_FACTORS` and keeps the best,
        which costs four growths; a float grows them once. Random rules draw
        their widths (``width_range``): with ``structure="random"`` it must
        be ``"auto"``.
    refine : int, default=0
        Random rules: iterations of nonlinear least squares that move the centres and
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
    lock_range : bool, optional
        None (the default) is True: ``predict`` holds every input in its
        training range before it evaluates the rules, and the output in the
        training targets' range after (:attr:`RuleBase.lock_range
        <randomts.RuleBase.lock_range>`, fuzzylite's ``lock-range``). Just
        outside the data the model then stays at its value on the data's
        edge instead of following the outermost rules' lines (or, for a
        weighted sum, their cancelling terms); predictions there still warn
        (:class:`~randomts.exceptions.ExtrapolationWarning`). False
        evaluates the rules wherever the inputs lie, as the paper's model
        does (``paper()`` sets it). The exports hold the ranges too (see
        :doc:`/user_guide/grown_rules`, "Just beyond the data").
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
    alpha_ : float or None
        The ridge penalty used (chosen, with ``alpha="auto"``); None for the
        local lines of grown rules, whose penalty is ``alpha``'s shrinkage
        toward their parents' slopes.
    local_weight_ : float or None
        The weight of the local term used with ``learning="combined"``
        (chosen, with ``local_weight="auto"``); None otherwise.
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
    randomts.fitting.ridge.choose_alpha : the choice of ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(200, 2))
    >>> y = np.sin(X[:, 0]) * X[:, 1]
    >>> model = RandomTSRegressor().fit(X, y)
    >>> bool(model.score(X, y) > 0.998), model.rule_base_.normalize, len(model.rule_base_) <= 40
    (True, True, True)

    Every rule's line, at its own centre, is what the model predicts there
    (in standard deviations of ``y``):

    >>> from randomts.analysis.agreement import rule_agreement
    >>> bool(np.abs(rule_agreement(model.rule_base_, X, y).from_model).max() < 0.01)
    True

    Inputs far from the origin, in any units, give the same model:

    >>> moved = RandomTSRegressor().fit(1000 * X + 300, y)
    >>> bool(np.allclose(moved.predict(1000 * X + 300), model.predict(X), rtol=1e-6))
    True

    The paper's random rules, a weighted sum whose penalty leave-one-out
    chooses:

    >>> drawn = RandomTSRegressor(n_rules=20, structure="random", random_state=0).fit(X, y)
    >>> bool(drawn.score(X, y) > 0.999), len(drawn.rule_base_), bool(drawn.alpha_ > 0)
    (True, 20, True)
    """

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
            Unfitted, with ``structure="random"``, ``standardize=False``, ``centers="normal"``,
            ``center_scale=sqrt(2)``, ``width_range=(0, 1)``, ``alpha=0`` and
            ``lock_range=False`` (the rules evaluated wherever the inputs lie).

        Examples
        --------
        >>> model = RandomTSRegressor.paper(n_rules=30, random_state=0)
        >>> model.standardize, model.centers, model.width_range, model.alpha
        (False, 'normal', (0.0, 1.0), 0.0)
        """
        settings = {
            "structure": "random",
            "standardize": False,
            "centers": "normal",
            "center_scale": PAPER_CENTER_SCALE,
            "width_range": (0.0, 1.0),
            "alpha": 0.0,
            "lock_range": False,
        }
        settings.update(params)
        return cls(n_rules, **settings)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        # a few dozen constant rules (an RBF network) follow a trend in many inputs only
        # coarsely: no training score to promise on arbitrary data
        settings = resolved(self)
        tags.regressor_tags.poor_score = self.order == 0 and (
            settings.grown or settings.n_rules < 50
        )
        return tags

    def fit(self, X, y, folds=None):
        """Draw the rules and fit their consequents.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; a DataFrame's column names become rule input names.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets; a Series' name or a DataFrame's columns become output names.
        folds : array-like of int of shape (n_samples,), optional
            The fold of each row (labels ``0..k-1``) for the choice of
            ``alpha="auto"`` (and of ``local_weight="auto"``) by K-fold
            cross-validation instead of leave-one-out: e.g. contiguous
            blocks of rows in time order, whose neighbours share most of
            their content and make the leave-one-out error optimistic
            (:func:`randomts.fitting.consequents.fit_consequents`).

        Returns
        -------
        self : RandomTSRegressor
            The fitted estimator.
        """
        self._validate_hyperparameters()
        self._fit_checked(X, y, folds)
        return self

    def _fit_checked(self, X, y, folds=None, *, warn_constant=True, warn_underdetermined=True):
        """:meth:`fit` after the hyperparameters were checked; returns the checked ``(X, Y)``.

        ``warn_constant``, ``warn_underdetermined``: whether to warn about
        constant inputs and about too few rows for the unknowns
        (:func:`fit_quietly`).
        """
        names = output_names(y)
        X, y = validate_numeric_data(
            self, X, y, multi_output=True, y_numeric=True, dtype=np.float64
        )
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        check_fit_memory(self, *X.shape, Y.shape[1])
        warn_if_far_offset(self, Y, stacklevel=4)
        self._stream = None
        self._fit_rows(
            InMemoryRows(X, y, folds),
            output_names=names,
            warn_constant=warn_constant,
            warn_underdetermined=warn_underdetermined,
            stacklevel=4,
        )
        return X, Y

    def fit_rows(self, rows):
        """Fit on training rows that are not arrays in memory: the fit of ``fit``, step by step.

        ``rows`` (a :class:`~randomts.estimators.rows.TrainingRows`) answers
        each step where the rows are: their ranges and moments, the inputs
        as the fit sees them, the consequents of the drawn antecedents and
        the weakest firing of a row's strongest rule.
        :func:`randomts.distributed.fit_estimator_dask` fits dask arrays on a
        cluster this way; :meth:`fit` is this on
        :class:`~randomts.estimators.rows.InMemoryRows`.

        Parameters
        ----------
        rows : TrainingRows
            Checked rows: the parameters are checked here, the data not.

        Returns
        -------
        self : RandomTSRegressor

        Examples
        --------
        >>> import numpy as np
        >>> from randomts.estimators.rows import InMemoryRows
        >>> X = np.random.default_rng(0).uniform(-1, 1, size=(100, 2)); y = X[:, 0] * X[:, 1]
        >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit_rows(InMemoryRows(X, y))
        >>> whole = RandomTSRegressor(n_rules=5, random_state=0).fit(X, y)
        >>> bool(np.array_equal(model.predict(X), whole.predict(X)))
        True
        """
        self._validate_hyperparameters()
        self._stream = None
        return self._fit_rows(rows, stacklevel=3)

    def _new_rows(self, X, y):
        """``(X, Y)`` of rows given to a fitted model, checked against its inputs and outputs."""
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
        return X, Y

    @available_if(without_refinement)
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
        names = output_names(y) if first else None
        X, y = validate_numeric_data(
            self, X, y, reset=first, multi_output=True, y_numeric=True, dtype=np.float64
        )
        if first:
            Y = y.reshape(-1, 1) if y.ndim == 1 else y
            warn_if_far_offset(self, Y, stacklevel=3)
            rows = _FirstChunk(X, y)
            self._fit_rows(rows, output_names=names, stacklevel=3)
            self._stream, self._stream_alpha = rows.stream, rows.stream_alpha
            return self
        Y = y.reshape(-1, 1) if y.ndim == 1 else y
        if Y.shape[1] != self.n_outputs_:
            raise ValueError(
                f"y has {Y.shape[1]} outputs, but {type(self).__name__} is expecting "
                f"{self.n_outputs_} outputs as in the first partial_fit call."
            )
        stream = self._stream
        U = X if self._scaling is None else self._scaling.apply(X)
        stream.update(U, Y, check_input=False)
        fit = _stream_fit(stream, self._stream_alpha, self.alpha, type(self).__name__)
        chunk = TrainingDomain.of(X, Y, weakest_log_firing(stream.antecedents, U))
        self._set_fit(
            fit,
            scaling=self._scaling,
            domain=chunk if self._domain is None else self._domain.union(chunk),
            n_samples=stream.n_samples,
            y_ndim=self._y_ndim,
        )
        return self

    def draw_antecedents(self, U, n_outputs=1, *, output_names=None):
        """The random rules :meth:`fit` draws, before their consequents are fitted.

        For ``structure="random"``: grown rules come from the targets, which
        this method does not see (it raises a ValueError saying so).
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
        >>> model = RandomTSRegressor(
        ...     n_rules=5, structure="random", standardize=False, random_state=0
        ... )
        >>> rules = model.draw_antecedents(X)
        >>> fitted = model.fit(X, X[:, 0]).rule_base_
        >>> np.array_equal(rules.centers, fitted.centers), np.array_equal(rules.sigmas, fitted.sigmas)
        (True, True)
        """
        self._validate_hyperparameters()
        if resolved(self).grown:
            raise ValueError(
                f"The 'structure' parameter of {type(self).__name__} is 'grown': its rules are "
                "grown from the targets by fit, not drawn before them. Use "
                "structure='random' to draw rules with draw_antecedents."
            )
        return draw_rules(
            self,
            U,
            n_outputs,
            output_names,
            width_range=self._default_width_range(U.shape[1]),
        )

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
        return cls._fitted_from(
            rule_base,
            params,
            input_mean=input_mean,
            input_scale=input_scale,
            n_samples=n_samples,
        )

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
        X = self._checked_inputs(X)
        return self._shaped(self._raw_predict(X))

    # ------------------------------------------------------------ conformal intervals
    def fit_conformalize(self, X, y):
        """Fit, and keep the exact leave-one-out models for jackknife+ intervals.

        :meth:`fit`, then the leave-one-out terms of the ridge fit of the
        consequents at ``alpha_``
        (:func:`randomts.fitting.conformal.leave_one_out_terms`):
        without training row ``j`` the consequents move by ``S k_j e_j``
        (``S = (K^T K + alpha I)^{-1}``, ``k_j`` the row of the design matrix,
        ``e_j`` its leave-one-out residual), in closed form, so that
        :meth:`predict_interval` reads all ``n_samples`` leave-one-out models
        and refits none. The antecedents, the standardisation, ``alpha_``
        and the rule base the consequents are shrunk toward are those of the
        fit on all rows, held fixed in every leave-one-out model (with
        ``refine > 0``, the refined antecedents too).

        Cost: one more pass over the rows at ``alpha_`` (forming ``K^T K``,
        its eigendecomposition, and ``K V``), about the time of :meth:`fit`
        again. Memory: ``8 rank n_samples`` bytes, ``rank <= min(n_unknowns,
        n_samples)`` with ``n_unknowns = n_rules (n_features + 1)`` (100
        rules on 8 inputs and 20 000 rows: 900 x 20 000 numbers, 144 MB),
        kept with the estimator by pickle and joblib (:func:`randomts.save`
        writes the rules only). Where that is too much, fit on part of the
        rows and :meth:`conformalize` on the rest (split conformal: one
        number per calibration row and output).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.

        Returns
        -------
        self : RandomTSRegressor

        Raises
        ------
        ValueError
            With ``alpha=0`` and at least as many unknowns as rows: every row
            is fitted exactly (leverage 1), so no leave-one-out model is
            determined by the other rows.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(600, 1))
        >>> y = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=600)
        >>> model = RandomTSRegressor(n_rules=10, structure="random", random_state=0)
        >>> model = model.fit_conformalize(X[:400], y[:400])
        >>> lower, upper = model.predict_interval(X[400:], coverage=0.9)
        >>> covered = np.mean((lower <= y[400:]) & (y[400:] <= upper))
        >>> bool(0.85 < covered < 0.95), round(float(np.mean(upper - lower)), 1)
        (True, 0.6)
        """
        self._validate_hyperparameters()
        check_jackknife(self, np.shape(X))
        self._conformity = None
        X, Y = self._fit_checked(X, y)
        self._conformity = jackknife_scores(
            self.rule_base_,
            self._scaling,
            X,
            Y,
            alpha=self.alpha_,
            order=self.order,
            n_jobs=self.n_jobs,
        )
        return self

    def conformalize(self, X, y):
        """Keep the residuals of calibration rows for split-conformal intervals.

        For a model fitted without these rows: by :meth:`fit` on other rows,
        :meth:`partial_fit`, :func:`randomts.distributed.fit_estimator_dask`
        or :meth:`from_rule_base`. :meth:`predict_interval` then returns the
        prediction plus or minus the ``ceil(coverage (n + 1))``-th smallest of
        the ``n`` absolute residuals, per output: it covers a new row's target
        with probability at least ``coverage`` when the calibration rows and
        the new rows are exchangeable (drawn alike, independently of the
        fit). The scores replace any earlier ones (from this method or
        :meth:`fit_conformalize`); :func:`randomts.save` writes them with
        the rules when there are at most 10 000 of them.

        Parameters
        ----------
        X : array-like of shape (n_calibration, n_features)
            Calibration inputs, not used in the fit.
        y : array-like of shape (n_calibration,) or (n_calibration, n_outputs)
            Their targets.

        Returns
        -------
        self : RandomTSRegressor

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(900, 1))
        >>> y = np.sin(2 * X[:, 0]) + 0.2 * rng.normal(size=900)
        >>> model = RandomTSRegressor.paper(n_rules=10, alpha=1e-3, random_state=0)
        >>> for rows in np.array_split(np.arange(400), 4):  # a stream of chunks
        ...     _ = model.partial_fit(X[rows], y[rows])
        >>> model = model.conformalize(X[400:600], y[400:600])
        >>> lower, upper = model.predict_interval(X[600:], coverage=0.9)
        >>> covered = np.mean((lower <= y[600:]) & (y[600:] <= upper))
        >>> bool(0.85 < covered < 0.95), round(float(np.mean(upper - lower)), 1)
        (True, 0.7)
        """
        X, Y = self._new_rows(X, y)
        self._conformity = split_scores(self.rule_base_, X, Y, n_jobs=self.n_jobs)
        return self

    def predict_interval(self, X, coverage=0.9):
        """Conformal prediction intervals: bounds that cover the target at the given rate.

        From the scores the estimator keeps:

        * after :meth:`fit_conformalize`, the jackknife+ (Barber, Candès,
          Ramdas & Tibshirani 2021): with the ``n`` exact leave-one-out models
          ``mu_{-j}`` and their residuals ``R_j = |y_j - mu_{-j}(x_j)|``, the
          interval at ``x`` runs from the ``floor((1 - coverage)(n +
          1))``-th smallest of ``mu_{-j}(x) - R_j`` to the ``ceil(coverage (n +
          1))``-th smallest of ``mu_{-j}(x) + R_j``. It covers at least ``1 -
          2 (1 - coverage)`` (e.g. 0.8 for 0.9) of exchangeable rows, and
          close to ``coverage`` for a fit as stable as this ridge (the
          measurements are in ``benchmarks/RESULTS.md``). Its width varies with
          ``x``: wider where the leave-one-out models disagree. Cost:
          ``O(n_rows n_samples rank)``;
        * after :meth:`conformalize`, split conformal: the prediction plus or
          minus a quantile of the calibration residuals, covering at least
          ``coverage`` of rows exchangeable with the calibration rows. One
          width for every row.

        Coverage is marginal (an average over rows, not a promise at each
        ``x``) and per output. It does not hold for rows that are not
        exchangeable with the training (or calibration) rows: time series
        and other dependent rows, a test set drawn otherwise (a shift in the
        inputs, extrapolation), or rows that influenced the choices of the
        fit held fixed here. After a refit (:meth:`fit`,
        :meth:`partial_fit`) the scores of the old fit are refused.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            Inputs.
        coverage : float in (0, 1), default=0.9
            The nominal coverage ``1 - a``. The bound is finite with at least
            ``coverage / (1 - coverage)`` training (or calibration) rows: 9
            for 0.9, 19 for 0.95.

        Returns
        -------
        lower, upper : ndarray of shape (n_rows,) or (n_rows, n_outputs)
            Shaped like :meth:`predict`.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator keeps no scores of its current fit.
        ValueError
            For a ``coverage`` outside (0, 1), or too few rows for it.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(1)
        >>> X = rng.uniform(-1, 1, size=(300, 2)); y = X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=300)
        >>> model = RandomTSRegressor(n_rules=10, structure="random", random_state=0).fit_conformalize(X, y)
        >>> lower, upper = model.predict_interval([[0.0, 0.0], [0.5, -0.5]], coverage=0.95)
        >>> (upper - lower).round(2)
        array([0.43, 0.43])
        >>> model.predict_interval([[0.0, 0.0]], coverage=1.0)
        Traceback (most recent call last):
        ...
        ValueError: The 'coverage' parameter of predict_interval must be a float in the open interval (0, 1). Got 1.0 instead.
        """
        check_is_fitted(self, "rule_base_")
        coverage = check_coverage(coverage, owner="predict_interval")
        X = self._checked_inputs(X, method="predict_interval", margin=0.0)
        return self._interval(X, coverage)

    def _interval(self, X, coverage):
        """:meth:`predict_interval` of checked rows."""
        scores = current_scores(
            getattr(self, "_conformity", None),
            self.rule_base_,
            type(self).__name__,
            "predict_interval",
        )
        lower, upper = interval_bounds(scores, X, self._raw_predict(X), coverage)
        return self._shaped(lower), self._shaped(upper)

    def explain(self, x, top=None, *, coverage=0.9):
        """The rules behind the prediction at one input, with its interval when there is one.

        :func:`randomts.analysis.explain.explain` of ``rule_base_``; when the
        estimator keeps conformity scores (:meth:`fit_conformalize`,
        :meth:`conformalize`), the explanation also states the
        :meth:`predict_interval` at ``coverage``.

        Parameters
        ----------
        x : array-like of shape (n_features,), dict, Series or one-row DataFrame
            One input (see :func:`randomts.analysis.explain.explain`).
        top : int, optional
            List only the ``top`` rules with the largest shares.
        coverage : float in (0, 1), default=0.9
            Coverage of the interval stated.

        Returns
        -------
        Explanation

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(300, 1)); y = 2 * X[:, 0] + 0.1 * rng.normal(size=300)
        >>> model = RandomTSRegressor(n_rules=3, structure="random", random_state=0).fit_conformalize(X, y)
        >>> print(model.explain([1.0], top=1).to_text().splitlines()[0])
        x1 = 1: y = 1.996, 90% interval [1.842, 2.151] (jackknife+) (weighted sum of 3 rules)
        """
        from randomts.analysis.explain import explain

        check_is_fitted(self, "rule_base_")
        explanation = explain(self.rule_base_, x, top=top)
        if getattr(self, "_conformity", None) is None:
            return explanation
        coverage = check_coverage(coverage, owner="explain")
        lower, upper = self._interval(explanation.x[None, :], coverage)
        return explanation.with_interval(
            np.reshape(lower, -1), np.reshape(upper, -1), coverage, self._conformity.method
        )

    # ------------------------------------------------------------ pruning
    def prune(self, k, X, y=None):
        """A new fitted estimator with the ``k`` most important rules, consequents refitted to ``y``.

        The rules are ranked by :meth:`rule_importance` on ``X`` and, given
        ``y``, the consequents of the ``k`` kept ones are fitted again to
        ``(X, y)`` by :func:`randomts.analysis.importance.prune` (the one
        pruning of every model), with this estimator's ``order``,
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
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
            Targets, with the outputs of ``fit``; None keeps the consequents
            of the ``k`` rules as they are.

        Returns
        -------
        RandomTSRegressor
            Fitted, with ``k`` rules, most important first.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(300, 2)); y = np.sin(X[:, 0]) * X[:, 1]
        >>> model = RandomTSRegressor(n_rules=40, structure="random", random_state=0).fit(X, y)
        >>> small = model.prune(10, X, y)
        >>> len(small.rule_base_), small.n_rules, small.predict(X[:3]).shape
        (10, 10, (3,))
        >>> bool(small.score(X, y) > 0.99)
        True
        >>> model.prune(10, X).n_rules  # without targets: the ten rules as they are
        10
        """
        if y is None:
            X, Y = self._checked_inputs(X), None
        else:
            X, Y = self._new_rows(X, y)
        return self._pruned_estimator(self._pruned_rules(k, X, Y))


def fit_quietly(model, X, y, folds=None, *, judged=False):
    """``model.fit(X, y, folds)`` for a caller that names its inputs itself.

    The same fit, without the :class:`~randomts.exceptions.ConstantInputWarning`
    that would name the columns of ``X`` by position; ``judged=True``, also
    without the :class:`~randomts.exceptions.UnderdeterminedWarning`, whose
    remedy is to judge the model on rows it was not fitted on: the caller's
    part. :class:`~randomts.NARXRegressor` fits its candidates on lagged
    rows, many times over, names a constant input once, and with
    ``focus="simulation"`` keeps a candidate by its free runs on held-out
    blocks.

    Returns
    -------
    model : RandomTSRegressor
    """
    model._validate_hyperparameters()
    model._fit_checked(X, y, folds, warn_constant=False, warn_underdetermined=not judged)
    return model


class _FirstChunk(InMemoryRows):
    """The first chunk of :meth:`RandomTSRegressor.partial_fit`: its consequents start a stream.

    With ``alpha="auto"`` (or a local weight to choose), the penalty, the
    local weight and the prior are chosen on this chunk by the one fit of
    the consequents; the stream then accumulates this chunk and the next
    ones, fitting ``Y - K prior`` shrunk toward zero (the prior plus that).
    """

    complete = False

    def fit_consequents(self, antecedents, U, settings):
        alpha, learning = settings["alpha"], settings["learning"]
        local_weight = settings["local_weight"] if learning == "combined" else None
        choice = None
        if alpha == "auto" or local_weight == "auto":
            choice = consequent_fit(antecedents, U, self.targets, check_input=False, **settings)
            local_weight = choice.local_weight
        self.stream_alpha = choice.alpha if alpha == "auto" else None
        self.stream = ConsequentStream(
            antecedents,
            self.n_outputs,
            order=settings["order"],
            solver=settings["solver"],
            n_jobs=settings["n_jobs"],
            prior=None if choice is None else choice.prior,
            learning=learning,
            local_weight=local_weight,
        )
        self.stream.update(U, self.targets, check_input=False)
        fit = _stream_fit(self.stream, self.stream_alpha, alpha, "RandomTSRegressor")
        return fit, weakest_log_firing(antecedents, U)


def _stream_fit(stream, stream_alpha, alpha, owner):
    """The :class:`ConsequentFit` of the rows a stream has seen, at the penalty of the stream.

    ``stream_alpha`` is the penalty chosen on the first chunk (None for a
    float ``alpha``, read at every call).
    """
    if stream_alpha is None:
        if isinstance(alpha, str):
            raise ValueError(
                f"The 'alpha' parameter of {owner} was a float at the first partial_fit call "
                "and can change only to another float. Got 'auto' instead."
            )
        stream_alpha = check_real(alpha, "alpha", low=0.0, owner=owner)
    return ConsequentFit(stream.rule_base(stream_alpha), stream_alpha, stream.local_weight, None)
