"""The NARX estimator: a model of a dynamical system from its input/output records.

:class:`NARXRegressor` takes input/output data with time on axis 0, builds
the lagged regressors of :class:`randomts.dynamics.narx.NARX` experiment by
experiment (no row mixes two experiments), fits a
:class:`~randomts.RandomTSRegressor` (or another regressor) on them, and
predicts one step ahead or runs the model freely from initial outputs.

The defaults are chosen for a simulator on raw data in engineering units:

- the model predicts the increment ``y(k) - y(k-1)`` (``target="increment"``):
  far from every rule a weighted sum of rules decays to zero, and so does the
  increment, so the simulated output holds its last value instead of falling
  to 0 (a temperature of 440 K would otherwise be drawn toward 0 K);
- the inputs of the rules are standardised and the increment has a mean near
  0, so kelvin, volts or pH need no scaling by hand;
- the ridge penalty ``alpha="auto"`` is chosen by cross-validation on
  contiguous blocks of time, not by leave-one-out: lagged rows share most of
  their values with their neighbours, so leaving out one row leaves its
  near-copies in the fit and the leave-one-out error is optimistic, which
  picks penalties too small for a free run.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.metrics import r2_score
from sklearn.utils.validation import check_is_fitted

from randomts._validation import check_int, check_option
from randomts.core.ranges import EXTRAPOLATION_MARGIN
from randomts.dynamics.narx import NARX, TARGETS, check_lags
from randomts.dynamics.simulation_fit import refine_for_simulation
from randomts.estimators.regressor import RandomTSRegressor
from randomts.estimators.saving import STATE_KEY, fit_scaling, jsonable, recorded_params
from randomts.estimators.series import (
    Several,
    SimulatedOutputs,
    band,
    blocked_folds,
    check_length,
    earlier_blocks,
    horizon_quantiles,
    lagged_rows,
    read_experiments,
    sizes,
    split_off,
    variable_names,
)
from randomts.exceptions import DivergenceWarning, ExtrapolationWarning
from randomts.fitting.conformal import check_coverage, split_quantile

__all__ = ["FOCUS", "LAG_CHOICES", "NARXRegressor"]

_OWNER = "NARXRegressor"
_RECORD = "narx"
# Starting points of the held-out free runs that calibrate simulate_interval, per record.
_FREE_RUN_STARTS = 24
#: The lag counts ``"auto"`` chooses between (``n``: lags ``1..n``).
LAG_CHOICES = (1, 2, 4, 6)
#: What the consequents are fitted for.
FOCUS = ("prediction", "simulation")


class NARXRegressor(RegressorMixin, BaseEstimator):
    """Nonlinear ARX model of input/output data: one-step prediction and free-run simulation.

    The output at time ``k`` is modelled from past outputs and inputs,

    .. math:: y(k) = y(k - 1) + f\\big(y(k - 1), \\ldots, y(k - n_y),\\;
              u(k - 1), \\ldots, u(k - n_u)\\big)

    with ``target="increment"`` (the default), or ``y(k) = f(...)`` with
    ``target="output"``; ``f`` is a :class:`~randomts.RandomTSRegressor`
    fitted on the lagged rows (:class:`randomts.dynamics.narx.NARX`).

    Data: time on axis 0. ``u`` is ``(n_steps,)`` or ``(n_steps, n_inputs)``,
    or None for an autoregression; ``y`` is ``(n_steps,)`` or ``(n_steps,
    n_outputs)``; ``u[k]`` is the input at the time of ``y[k]``. Several
    experiments are lists of such arrays (``fit([u1, u2], [y1, y2])``) or a
    list of ``(u, y)`` pairs (``fit([(u1, y1), (u2, y2)])``): no lagged row
    mixes two experiments.

    Parameters
    ----------
    y_lags : int, sequence of int or "auto", default=2
        Output lags: ``n`` means ``y(k-1) ... y(k-n)``; a sequence gives the
        lags themselves, each ``>= 1``. ``"auto"``: the count of
        :data:`~randomts.estimators.narx.LAG_CHOICES` that the free run chooses (with
        ``focus="simulation"``, as it chooses the estimator: ``selection_blocks``;
        every count costs its fits). With both lags
        ``"auto"``, the same count for both.
    u_lags : int, sequence of int or "auto", default=2
        Input lags: ``n`` means ``u(k-1) ... u(k-n)``; a sequence may
        include 0 (``u(k)`` acts on ``y(k)`` directly); ``"auto"`` as for
        ``y_lags``. Not used when ``u`` is None.
    target : {"increment", "output"}, default="increment"
        What ``f`` predicts: ``y(k) - y(k-1)`` (needs lag 1 in ``y_lags``),
        or ``y(k)``. Either way :meth:`predict` and :meth:`simulate` return
        the outputs. Away from the data a weighted sum of rules decays to 0:
        with increments the simulated output then holds its value, with
        outputs it is drawn toward 0.
    estimator : regressor, optional
        The model ``f`` of the lagged rows, cloned in :meth:`fit`. By default,
        with ``focus="simulation"``, three are fitted and refined, and the
        free run chooses (``selection_blocks``, ``selection_errors_``):
        ``RandomTSRegressor()`` (100 random rules,
        weighted sum), ``RandomTSRegressor.interpretable()`` (10 rules on
        the data's clusters, weighted average) and a single rule (a linear
        ARX model); no one of them is best on every system (see
        :doc:`/user_guide/system_identification`). With
        ``focus="prediction"``, ``RandomTSRegressor()``. A randomts regressor's ``alpha="auto"`` is
        chosen by ``n_folds``-fold cross-validation on contiguous blocks of
        rows (``fit(X, y, folds=...)``); any other scikit-learn regressor is
        fitted as it is (then :meth:`explain`, :meth:`linearize` and
        :func:`randomts.save` are not available).
    n_folds : int, default=5
        Number of contiguous blocks of the cross-validation of ``alpha``
        (:func:`~randomts.estimators.series.blocked_folds` over the rows of every experiment in turn).
    focus : {"simulation", "prediction"}, default="simulation"
        What the model is fitted for. ``"prediction"``: the one-step least
        squares on every row. ``"simulation"``: the one-step solution on the
        first ``1 - validation_fraction`` of every experiment, then refined
        on the error of the model's own multi-step runs (multiple shooting
        over segments of ``horizon`` steps, analytic sensitivities,
        Levenberg-Marquardt shrunk toward the one-step solution), stopped
        early on a free run over the held-out last part of every experiment
        and kept only where better there
        (:func:`randomts.dynamics.simulation_fit.refine_for_simulation`).
        A good one-step predictor can be a poor simulator; this is the
        setting for a model that will run on its own outputs. Needs randomts
        estimators.
    horizon : int, default=200
        Steps of every segment of ``focus="simulation"`` (at most the
        length of the shortest fitted stretch). Longer segments weigh the
        feedback of more steps; shorter ones keep a model that runs away
        from running away for long.
    validation_fraction : float, default=0.2
        The last part of every experiment that ``focus="simulation"`` holds
        out to stop on.
    selection_blocks : int, default=5
        With more than one estimator or lag count to choose from: the blocks
        of time of the blocked cross-validation of the free run that chooses.
        The held-out end is one block; the rest of every experiment is cut
        into ``selection_blocks - 1`` more, and each is held out in turn, run
        freely by the estimators fitted (and refined, stopped on it) on the
        rest. From the simplest (fewest consequent parameters) on, a more
        complex one replaces the one kept only if its errors are smaller,
        block by block, by more than their noise (the mean log-ratio below
        minus its standard error); the model kept is the one fitted on the
        first ``1 - validation_fraction`` of every experiment. One held-out
        stretch of a short record is a noisy judge, and a flexible estimator
        can win on it by chance. ``1``: the least error on the
        held-out end alone (every choice costs one fit, not
        ``selection_blocks``).
    max_iter : int, default=20
        Refinement steps of ``focus="simulation"`` at the most.
    output_names : str or sequence of str, optional
        Names of the outputs: ``"y"`` for one output, ``y1, y2, ...`` for more.
    input_names : str or sequence of str, optional
        Names of the inputs: ``"u"`` for one input, ``u1, u2, ...`` for more.
    random_state : int, RandomState instance or None, default=None
        When not None, the ``random_state`` of the estimator (the rules drawn).

    Attributes
    ----------
    estimator_ : regressor
        The fitted model ``f`` of the lagged rows, its rule base named with
        the lagged names.
    narx_ : NARX
        The lag structure: ``regressor_names``, ``target_names``, ``max_lag``.
    simulation_fit_ : SimulationFit or None
        With ``focus="simulation"``: the held-out free-run error of the kept
        model before and after the refinement, and its steps.
    candidate_errors_ : ndarray of shape (n_candidates,) or None
        With ``focus="simulation"``: the held-out free-run RMSE of every
        estimator fitted, in the order above (``inf`` for a run that
        diverged); with lags ``"auto"``, for every lag count in turn.
    selection_errors_ : ndarray of shape (n_candidates, selection_blocks) or None
        The free-run RMSE of every estimator (rows as in
        ``candidate_errors_``) on every block of the cross-validation that
        chose (``selection_blocks``), in time order, the last column being
        ``candidate_errors_``; None without a choice or with one block.
    rule_base_ : RuleBase
        The fitted rules (of a randomts estimator), e.g.
        ``IF y(k-1) is ... AND u(k-1) is ... THEN y(k)-y(k-1) = ...``.
    alpha_ : float or None
        The ridge penalty used by the estimator, when it has one.
    max_lag_ : int
        The largest lag: the number of initial outputs :meth:`simulate` needs.
    n_inputs_, n_outputs_ : int
        Numbers of inputs (0 for an autoregression) and outputs.

    Warns
    -----
    ExtrapolationWarning
        From :meth:`simulate`, naming the step at which a run leaves the
        training range of a lagged output or input.
    DivergenceWarning
        From :meth:`simulate`, naming the step at which a run's output stops
        being finite.

    See Also
    --------
    randomts.dynamics.narx.NARX : the lag structure, for any model.

    Examples
    --------
    A tank whose level (in cm, around 40) follows its inflow through a square
    root:

    >>> import numpy as np
    >>> from randomts import NARXRegressor
    >>> rng = np.random.default_rng(0)
    >>> u = np.repeat(rng.uniform(0.5, 1.5, size=60), 25)  # steps held for 25 samples
    >>> y = np.empty(u.size); y[0] = 40.0
    >>> for k in range(1, u.size):
    ...     y[k] = y[k - 1] + 0.2 * (10 * u[k - 1] - np.sqrt(y[k - 1]) * 1.6)
    >>> model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u[:1000], y[:1000])
    >>> simulated = model.simulate(u[1000:], y[1000:1001])  # from the first output alone
    >>> simulated.shape, simulated.left_data, simulated.diverged
    ((500,), False, False)
    >>> bool(np.sqrt(np.mean((simulated - y[1000:]) ** 2)) < 0.1)
    True
    >>> model.narx_.regressor_names, model.rule_base_.output_names
    (('y(k-1)', 'u(k-1)'), ('y(k)-y(k-1)',))
    """

    def __init__(
        self,
        y_lags=2,
        u_lags=2,
        *,
        target="increment",
        estimator=None,
        n_folds=5,
        focus="simulation",
        horizon=200,
        validation_fraction=0.2,
        selection_blocks=5,
        max_iter=20,
        output_names=None,
        input_names=None,
        random_state=None,
    ):
        self.y_lags = y_lags
        self.u_lags = u_lags
        self.target = target
        self.estimator = estimator
        self.n_folds = n_folds
        self.focus = focus
        self.horizon = horizon
        self.validation_fraction = validation_fraction
        self.selection_blocks = selection_blocks
        self.max_iter = max_iter
        self.output_names = output_names
        self.input_names = input_names
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _structures(self, n_inputs, n_outputs):
        """The NARX structures to fit: that of the lags given, or those ``"auto"`` chooses from."""
        automatic = [lags == "auto" for lags in (self.y_lags, self.u_lags)]
        if automatic[0] and automatic[1]:
            pairs = [(n, n) for n in LAG_CHOICES]
        elif automatic[0]:
            pairs = [(n, self.u_lags) for n in LAG_CHOICES]
        elif automatic[1]:
            pairs = [(self.y_lags, n) for n in LAG_CHOICES]
        else:
            pairs = [(self.y_lags, self.u_lags)]
        structures = {}
        for y_lags, u_lags in pairs:
            narx = self._structure(n_inputs, n_outputs, y_lags, u_lags)
            structures.setdefault((narx.y_lags, narx.u_lags), narx)
        return list(structures.values())

    def _structure(self, n_inputs, n_outputs, y_lags, u_lags):
        """The NARX structure of these lags, for data of these sizes."""
        y_lags = check_lags(y_lags, "y_lags", minimum=1, owner=_OWNER)
        u_lags = check_lags(u_lags, "u_lags", minimum=0, owner=_OWNER) if n_inputs else ()
        target = check_option(self.target, "target", TARGETS, owner=_OWNER)
        if not y_lags and not u_lags:
            raise ValueError(
                f"{_OWNER} needs at least one lag: y_lags={self.y_lags!r} and "
                f"u_lags={self.u_lags!r}{' (no input given)' if not n_inputs else ''} give none."
            )
        if target == "increment" and 1 not in y_lags:
            raise ValueError(
                f"The 'y_lags' parameter of {_OWNER} must include lag 1 with "
                f"target='increment' (y(k) = y(k-1) + f(...)). Got {self.y_lags!r} instead."
            )
        output_names = variable_names(self.output_names, "output_names", "y", n_outputs)
        input_names = (
            variable_names(self.input_names, "input_names", "u", n_inputs) if n_inputs else "u"
        )
        return NARX(
            y_lags,
            u_lags,
            output_names=output_names,
            input_names=input_names,
            target=target,
        )

    def _new_estimator(self):
        estimator = RandomTSRegressor() if self.estimator is None else self.estimator
        if not (hasattr(estimator, "fit") and callable(getattr(estimator, "predict", None))):
            raise TypeError(
                f"The 'estimator' parameter of {_OWNER} must be a regressor with fit and "
                f"predict methods. Got {type(estimator).__name__} instead."
            )
        estimator = clone(estimator)
        if self.random_state is not None and "random_state" in estimator.get_params():
            estimator.set_params(random_state=self.random_state)
        return estimator

    # --------------------------------------------------------------------- fit
    def fit(self, u, y=None):
        """Fit ``f`` on the lagged rows of every experiment.

        Parameters
        ----------
        u : array-like of shape (n_steps,) or (n_steps, n_inputs), None, or a list
            Inputs on the time axis of ``y``; None for an autoregression; a
            list of arrays (with a list ``y``) for several experiments, or a
            list of ``(u, y)`` pairs (and ``y`` omitted).
        y : array-like of shape (n_steps,) or (n_steps, n_outputs), or a list
            Outputs; every experiment needs more than ``max_lag`` steps.

        Returns
        -------
        self : NARXRegressor
        """
        experiments, y_ndim = read_experiments(u, y, "y")
        n_inputs, n_outputs = sizes(experiments)
        structures = self._structures(n_inputs, n_outputs)
        n_folds = check_int(self.n_folds, "n_folds", low=2, owner=_OWNER)
        focus = check_option(self.focus, "focus", FOCUS, owner=_OWNER)
        if len(structures) > 1 and focus != "simulation":
            raise ValueError(
                f"Lags 'auto' are chosen by the held-out free run of focus='simulation'; got "
                f"focus={self.focus!r} with y_lags={self.y_lags!r}, u_lags={self.u_lags!r}."
            )
        horizon = max_iter = None
        if focus == "simulation":
            horizon = check_int(self.horizon, "horizon", low=1, owner=_OWNER)
            max_iter = check_int(self.max_iter, "max_iter", low=0, owner=_OWNER)
        self.simulation_fit_ = None
        selection_blocks = check_int(self.selection_blocks, "selection_blocks", low=1, owner=_OWNER)
        settings = (n_folds, horizon, max_iter)
        # (estimator, rule base, refinement, rows, narx, held-out stretches, errors by block)
        options = []
        for narx in structures:
            candidates = self._candidates(focus)
            fitted, held_out, folds = experiments, [], []
            if focus == "simulation":
                for candidate in candidates:
                    if not hasattr(candidate, "draw_antecedents"):
                        raise ValueError(
                            f"The 'focus' parameter of {_OWNER} can be 'simulation' only with a "
                            "randomts estimator (it refines the rules' consequents); got "
                            f"{type(candidate).__name__}."
                        )
                fitted, held_out = split_off(experiments, self.validation_fraction, narx.max_lag)
                if len(structures) * len(candidates) > 1 and selection_blocks > 1:
                    folds = earlier_blocks(experiments, fitted, selection_blocks, narx.max_lag)
            for estimator in candidates:
                blocks = []  # the free-run RMSE on every earlier block, then on the end
                for train, held in folds:
                    block = self._fit_one(clone(estimator), narx, train, held, *settings)
                    blocks.append(block[2].error)
                fit = self._fit_one(estimator, narx, fitted, held_out, *settings)
                result = fit[2]
                blocks.append(np.nan if result is None else result.error)
                options.append((*fit, narx, held_out, np.array(blocks)))
        estimator, rule_base, result, X, narx, held_out, _ = options[self._choose(options)]
        errors = np.array([option[-1] for option in options])
        self.candidate_errors_ = errors[:, -1] if focus == "simulation" else None
        self.selection_errors_ = errors if focus == "simulation" and errors.shape[1] > 1 else None
        self.simulation_fit_ = result
        self._interval_scores = None
        if rule_base is not None:
            estimator.rule_base_ = narx.name_rules(rule_base)
            self.rule_base_ = estimator.rule_base_
        self.estimator_ = estimator
        self.narx_ = narx
        self.alpha_ = getattr(estimator, "alpha_", None)
        self.max_lag_ = narx.max_lag
        self.n_inputs_ = n_inputs
        self.n_outputs_ = n_outputs
        self._y_ndim = y_ndim
        X_all = X if not held_out else lagged_rows(narx, experiments)[0]
        self._ranges = (X_all.min(axis=0), X_all.max(axis=0))
        if held_out:  # the stretches the fit never saw calibrate the intervals
            self._interval_scores = self._scores(held_out)
        return self

    def _fit_one(self, estimator, narx, fitted, held_out, n_folds, horizon, max_iter):
        """``(estimator, rule base, refinement, rows)``: one estimator fitted on ``fitted``.

        With a ``horizon`` (``focus="simulation"``) the one-step fit is refined
        for simulation, stopped on ``held_out``; the refinement is None
        otherwise.
        """
        X, Y = lagged_rows(narx, fitted)
        if "folds" in inspect.signature(estimator.fit).parameters:
            estimator.fit(X, Y, folds=blocked_folds(X.shape[0], n_folds))
        else:
            estimator.fit(X, Y[:, 0] if Y.shape[1] == 1 else Y)
        rule_base, result = getattr(estimator, "rule_base_", None), None
        if horizon is not None:
            scaling = fit_scaling(rule_base.metadata, X.shape[1])
            mean, scale = scaling or (np.zeros(X.shape[1]), np.ones(X.shape[1]))
            result = refine_for_simulation(
                narx,
                rule_base,
                fitted,
                held_out,
                mean=mean,
                scale=scale,
                alpha=estimator.alpha_,
                order=estimator.order,
                horizon=horizon,
                max_iter=max_iter,
            )
            rule_base = result.rule_base
        return estimator, rule_base, result, X

    @staticmethod
    def _choose(options):
        """The index of the option kept: a more complex one only where it wins beyond the noise.

        Every option has its free-run RMSE on every held-out block. From the
        option of fewest consequent parameters on, in that order, the next
        one replaces the option kept if it is better block by block beyond
        the noise: the mean over the blocks of the logarithm of the ratio of
        their errors (every block counts alike, an easy one as much as a
        hard one) is below minus its standard error. With one block, the
        least error on it.
        """
        if len(options) == 1:
            return 0
        errors = np.array([option[-1] for option in options], dtype=float)
        errors = np.where(np.isnan(errors), np.inf, errors)
        if errors.shape[1] == 1:
            return int(np.argmin(errors[:, 0]))
        logs = np.log(np.maximum(errors, np.finfo(float).tiny))
        size = [option[1].coef.size + option[1].intercept.size for option in options]
        order = sorted(range(len(options)), key=lambda i: (size[i], i))
        kept = order[0]
        for index in order[1:]:
            if not np.all(np.isfinite(logs[index])):
                continue  # diverged on a block
            if not np.all(np.isfinite(logs[kept])):
                kept = index
                continue
            ratio = logs[index] - logs[kept]
            if ratio.mean() < -ratio.std(ddof=1) / np.sqrt(ratio.size):
                kept = index
        return kept

    # ------------------------------------------------------------- intervals
    def conformalize(self, u, y=None):
        """Keep the residuals of a record the model was not fitted on, for the intervals.

        :meth:`fit` with ``focus="simulation"`` does it on the held-out
        stretches; use this for a model fitted with ``focus="prediction"``,
        or to calibrate on a longer record. Two kinds of scores are kept, per
        output: the one-step residuals ``|y(k) - y_hat(k)|``, and the free-run
        residuals by horizon of runs started at several points of the record.

        Parameters
        ----------
        u, y
            As in :meth:`fit`: a record (or several) not used in the fit.

        Returns
        -------
        self : NARXRegressor
        """
        check_is_fitted(self, "narx_")
        experiments, _ = read_experiments(u, y, "y")
        self._check_sizes(experiments)
        self._interval_scores = self._scores(experiments)
        return self

    def _scores(self, experiments):
        """One-step residuals ``(n, n_outputs)``, and free-run residuals by horizon.

        The free runs start from ``_FREE_RUN_STARTS`` measured windows spread
        over the first half of every record and run for half its length, so
        that every horizon up to there has a residual from every start:
        ``(n_runs, horizon, n_outputs)``, NaN past a shorter record's runs.
        """
        lag = self.max_lag_
        one_step, free = [], []
        for U, Y in experiments:
            check_length(Y.shape[0], lag + 1, "y")
            predicted = self.narx_.predict_one_step(
                self.estimator_, Y[None], None if U is None else U[None]
            )[0]
            one_step.append(np.abs(predicted - Y[lag:]))
            horizon = max(1, (Y.shape[0] - lag) // 2)
            starts = np.unique(
                np.linspace(0, Y.shape[0] - lag - horizon, _FREE_RUN_STARTS).astype(int)
            )
            windows = np.stack([Y[s : s + lag] for s in starts])
            inputs = None if U is None else np.stack([U[s : s + lag + horizon] for s in starts])
            run = self.narx_.free_run(self.estimator_, windows, inputs, n_steps=horizon)
            truth = np.stack([Y[s + lag : s + lag + horizon] for s in starts])
            residual = np.abs(run.outputs[:, lag:] - truth)
            free.append(np.where(np.isfinite(residual), residual, np.inf))
        longest = max(r.shape[1] for r in free)
        padded = [
            np.pad(r, ((0, 0), (0, longest - r.shape[1]), (0, 0)), constant_values=np.nan)
            for r in free
        ]
        return np.vstack(one_step), np.concatenate(padded)

    def _quantile(self, kind, coverage):
        if getattr(self, "_interval_scores", None) is None:
            raise ValueError(
                f"This {_OWNER} keeps no residuals to build intervals from: fit it with "
                "focus='simulation' (which holds out the end of every experiment), or call "
                "conformalize(u, y) with a record it was not fitted on."
            )
        coverage = check_coverage(coverage, owner=kind)
        if kind == "predict_interval":
            return split_quantile(self._interval_scores[0], coverage)
        return horizon_quantiles(self._interval_scores[1], coverage)

    def predict_interval(self, u, y=None, coverage=0.9):
        """One-step-ahead prediction intervals: split conformal on held-out one-step residuals.

        The prediction of :meth:`predict` plus or minus the
        ``ceil(coverage (n + 1))``-th smallest of the ``n`` one-step
        residuals kept (:meth:`conformalize`), per output. For exchangeable
        rows this covers with probability at least ``coverage``; the rows of
        a time series are not exchangeable, so the coverage is what the
        benchmarks measure (``benchmarks/RESULTS.md``), not a guarantee.

        Parameters
        ----------
        u, y
            As in :meth:`predict`.
        coverage : float in (0, 1), default=0.9
            Target coverage.

        Returns
        -------
        lower, upper : ndarray shaped like :meth:`predict`'s result (or lists)
            The first ``max_lag_`` rows are the measured outputs (no width).

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> u = rng.normal(size=1500); x = np.zeros(1500)
        >>> for k in range(1, 1500):
        ...     x[k] = 0.8 * x[k - 1] + np.tanh(u[k - 1])
        >>> y = x + 0.1 * rng.normal(size=1500)
        >>> model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u[:1000], y[:1000])
        >>> lower, upper = model.predict_interval(u[1000:], y[1000:], coverage=0.9)
        >>> inside = (lower[1:] <= y[1001:]) & (y[1001:] <= upper[1:])
        >>> bool(0.8 < inside.mean() < 0.97)
        True
        """
        q = self._quantile("predict_interval", coverage)
        predicted = self.predict(u, y)
        return band(predicted, q, self.max_lag_)

    def simulate_interval(self, u, y_init, coverage=0.9, *, n_steps=None):
        """Free-run bands that widen with the horizon: held-out free-run quantiles.

        The run of :meth:`simulate` plus or minus, at its ``j``-th simulated
        step, the split-conformal quantile of the held-out free-run residuals
        at horizons ``2^b <= j + 1 < 2^(b+1)`` (pooled with the next such bins
        until there are enough of them), never narrower than at an earlier
        step; past the longest held-out horizon, the last width. The
        residuals come from runs started at several points of every held-out
        stretch (:meth:`conformalize`). A run's errors are correlated, and a
        run that leaves the data extrapolates: the coverage is measured on
        the benchmarks, not guaranteed.

        Parameters
        ----------
        u, y_init, n_steps
            As in :meth:`simulate`.
        coverage : float in (0, 1), default=0.9
            Target coverage.

        Returns
        -------
        lower, upper : ndarray shaped like :meth:`simulate`'s result (or lists)
            The rows of ``y_init`` have no width.
        """
        q = self._quantile("simulate_interval", coverage)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtrapolationWarning)
            runs = self.simulate(u, y_init, n_steps=n_steps)
        if isinstance(runs, list):  # several experiments, each with its own initial outputs
            bands = [band(run, q, np.shape(y0)[0]) for run, y0 in zip(runs, y_init, strict=True)]
            return [b[0] for b in bands], [b[1] for b in bands]
        return band(runs, q, np.shape(y_init)[0])

    def _candidates(self, focus):
        """The estimators to fit: the one given, or the defaults' (one, or three to choose from)."""
        if self.estimator is not None:
            return [self._new_estimator()]
        if focus == "prediction":
            return [self._new_estimator()]
        # a hundred random rules, ten rules on the data's clusters, one rule (a linear model):
        # the free run chooses
        candidates = [
            RandomTSRegressor(),
            RandomTSRegressor.interpretable(),
            RandomTSRegressor(n_rules=1, normalize=True),
        ]
        if self.random_state is not None:
            for candidate in candidates:
                candidate.set_params(random_state=self.random_state)
        return candidates

    def regressors(self, u, y=None):
        """The lagged rows ``(X, Y)`` that :meth:`fit` fits ``f`` on.

        Experiment after experiment, each from its step ``max_lag`` on: a
        row holds the lags named by ``narx_.regressor_names`` and the target
        ``y(k)`` (or ``y(k) - y(k-1)``).

        Parameters
        ----------
        u, y
            As in :meth:`fit`.

        Returns
        -------
        X : ndarray of shape (n_rows, n_regressors)
        Y : ndarray of shape (n_rows, n_outputs)

        Examples
        --------
        >>> import numpy as np
        >>> u, y = np.arange(4.0), 10 * np.arange(4.0)
        >>> model = NARXRegressor(y_lags=1, u_lags=(0, 1), target="output", focus="prediction")
        >>> X, Y = model.fit(u, y).regressors(u, y)
        >>> np.hstack([X, Y])  # y(k-1), u(k), u(k-1) -> y(k)
        array([[ 0.,  1.,  0., 10.],
               [10.,  2.,  1., 20.],
               [20.,  3.,  2., 30.]])
        """
        check_is_fitted(self, "narx_")
        experiments, _ = read_experiments(u, y, "y")
        self._check_sizes(experiments)
        return lagged_rows(self.narx_, experiments)

    # ----------------------------------------------------------------- predict
    def predict(self, u, y=None):
        """One-step-ahead prediction: every ``y(k)`` from the measured past.

        Parameters
        ----------
        u, y
            As in :meth:`fit`: the measured inputs and outputs.

        Returns
        -------
        ndarray shaped like ``y``, or a list of them for several experiments
            Row ``k >= max_lag_`` is the prediction of ``y[k]`` from the
            measured ``y`` and ``u`` before it (and ``u[k]`` with input lag
            0); the first ``max_lag_`` rows, which have no past, are the
            measured outputs.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> u = rng.normal(size=400); y = np.zeros(400)
        >>> for k in range(1, 400):
        ...     y[k] = 0.8 * y[k - 1] + np.tanh(u[k - 1])
        >>> model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u, y)
        >>> predicted = model.predict(u, y)
        >>> predicted.shape, bool(np.max(np.abs(predicted - y)) < 0.05)
        ((400,), True)
        """
        check_is_fitted(self, "narx_")
        experiments, y_ndim = read_experiments(u, y, "y")
        self._check_sizes(experiments)
        results = []
        for U, Y in experiments:
            check_length(Y.shape[0], self.max_lag_ + 1, "y")
            out = Y.copy()
            out[self.max_lag_ :] = self.narx_.predict_one_step(
                self.estimator_, Y[None], None if U is None else U[None]
            )[0]
            results.append(out[:, 0] if y_ndim == 1 else out)
        return results if isinstance(experiments, Several) else results[0]

    def score(self, u, y=None):
        """R^2 of the one-step-ahead predictions, over the steps that have a past.

        Parameters
        ----------
        u, y
            As in :meth:`fit`.

        Returns
        -------
        float
            :func:`sklearn.metrics.r2_score` of the rows from ``max_lag_`` on
            of every experiment (averaged over outputs).
        """
        check_is_fitted(self, "narx_")
        predicted = self.predict(u, y)
        experiments, _ = read_experiments(u, y, "y")
        if not isinstance(experiments, Several):
            predicted = [predicted]
        lag = self.max_lag_
        true = np.concatenate([Y[lag:] for _, Y in experiments])
        guess = np.concatenate([np.reshape(p, (len(p), -1))[lag:] for p in predicted])
        return float(r2_score(true, guess))

    # ---------------------------------------------------------------- simulate
    def simulate(self, u, y_init, *, n_steps=None):
        """Free run: from initial outputs, the model's own outputs fed back.

        Parameters
        ----------
        u : array-like of shape (n_total,) or (n_total, n_inputs), None, or a list
            Inputs over the whole run, on the time axis of the outputs; a
            list for several experiments (with a list ``y_init``). None for
            an autoregression (then ``n_steps`` is required).
        y_init : array-like of shape (n_init,) or (n_init, n_outputs), or a list
            The first outputs, ``n_init >= max_lag_``: the run starts after
            them from its last ``max_lag_`` rows (e.g. a window of measured
            outputs to initialise the model).
        n_steps : int, optional
            Number of steps to simulate after ``y_init`` in an autoregression
            (with inputs, ``n_total - n_init``).

        Returns
        -------
        SimulatedOutputs, or a list of them for several experiments
            The outputs at every step of ``u`` (``n_init + n_steps`` without
            inputs), shaped like ``y_init``: the first ``n_init`` rows are
            ``y_init``, the rest simulated from ``u`` alone. Each says where
            the run left the training data (``left_data_step``) or diverged
            (``divergence_step``, after which its rows are NaN).

        Warns
        -----
        ExtrapolationWarning
            When a run's regressors leave their training ranges by more than
            :data:`~randomts.core.ranges.EXTRAPOLATION_MARGIN` of their span,
            naming the first experiment and step.
        DivergenceWarning
            When a run's output stops being finite, naming the first
            experiment and step.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> u = rng.normal(size=600); y = np.zeros(600)
        >>> for k in range(1, 600):
        ...     y[k] = 0.8 * y[k - 1] + np.tanh(u[k - 1])
        >>> model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u[:400], y[:400])
        >>> run = model.simulate(u[400:], y[400:401])
        >>> run.shape, run.left_data, run.diverged
        ((200,), False, False)
        >>> bool(np.sqrt(np.mean((run - y[400:]) ** 2)) < 0.15)  # y spans 5.5 there
        True
        """
        check_is_fitted(self, "narx_")
        if u is None and self.n_inputs_:
            raise ValueError(f"This {_OWNER} was fitted with inputs; u is required.")
        if u is not None and not self.n_inputs_:
            raise ValueError(
                f"This {_OWNER} was fitted without inputs (an autoregression), but u was given."
            )
        if u is not None and n_steps is not None:
            raise ValueError(
                "n_steps is for an autoregression; with inputs the run lasts as long as u. "
                f"Got n_steps={n_steps!r}."
            )
        experiments, y_ndim = read_experiments(u, y_init, "y_init", allow_shorter_y=True)
        self._check_sizes(experiments)
        runs = []
        for U, Y0 in experiments:
            runs.append(self._simulate_one(U, Y0, n_steps))
        self._warn(runs, several=isinstance(experiments, Several))
        shaped = [run[:, 0] if y_ndim == 1 else run for run in runs]
        return shaped if isinstance(experiments, Several) else shaped[0]

    def _simulate_one(self, U, Y0, n_steps):
        lag, n_init = self.max_lag_, Y0.shape[0]
        check_length(n_init, lag, "y_init")
        if U is None:
            n_steps = check_int(n_steps, "n_steps", low=1) if n_steps is not None else None
            if n_steps is None:
                raise ValueError("n_steps is required for an autoregression (u is None).")
            window = None
        else:
            n_steps = U.shape[0] - n_init
            if n_steps < 1:
                raise ValueError(
                    f"u must run past the initial outputs: it has {U.shape[0]} steps and y_init "
                    f"{n_init}."
                )
            window = U[None, n_init - lag :]
        run = self.narx_.free_run(
            self.estimator_,
            Y0[None, n_init - lag :],
            window,
            n_steps=n_steps,
            ranges=self._ranges,
        )
        shift = n_init - lag
        outputs = np.concatenate([Y0[:shift], run.outputs[0]])
        left = int(run.extrapolation_step[0])
        diverged = int(run.divergence_step[0])
        return SimulatedOutputs(
            outputs,
            left_data_step=None if left < 0 else left + shift,
            left_data_variable=(
                None if left < 0 else self.narx_.regressor_names[int(run.extrapolation_column[0])]
            ),
            divergence_step=None if diverged < 0 else diverged + shift,
        )

    def _warn(self, runs, *, several):
        low, high = self._ranges
        names = self.narx_.regressor_names
        for attribute, category in (
            ("left_data_step", ExtrapolationWarning),
            ("divergence_step", DivergenceWarning),
        ):
            which = [i for i, run in enumerate(runs) if getattr(run, attribute) is not None]
            if not which:
                continue
            first = min(which, key=lambda i: getattr(runs[i], attribute))
            run, step = runs[first], getattr(runs[first], attribute)
            if not several:
                where = "The free run"
            elif len(which) == 1:
                where = f"The free run of experiment {first}"
            else:
                where = f"{len(which)} of {len(runs)} free runs; the first, of experiment {first},"
            if category is ExtrapolationWarning:
                column = names.index(run.left_data_variable)
                message = (
                    f"{where} leaves the training data at step {step}: "
                    f"{run.left_data_variable} lies beyond its training range "
                    f"[{low[column]:.6g}, {high[column]:.6g}] by more than "
                    f"{100 * EXTRAPOLATION_MARGIN:g}% of its span, and the model extrapolates "
                    "from there (left_data_step of the result)."
                )
            else:
                message = (
                    f"{where} diverged at step {step}: the output stopped being finite and the "
                    "rows from there on are NaN (divergence_step of the result)."
                )
            warnings.warn(message, category, stacklevel=3)

    # ------------------------------------------------------- reading the model
    def explain(self, x, top=None):
        """The rules behind the prediction of ``f`` at one regressor row.

        :func:`randomts.analysis.explain.explain` of ``rule_base_``: with
        ``target="increment"`` it explains the increment ``y(k) - y(k-1)``.

        Parameters
        ----------
        x : array-like of shape (n_regressors,), dict or Series
            One row of regressors, in the order of ``narx_.regressor_names``
            or named by them (``{"y(k-1)": ..., "u(k-1)": ...}``).
        top : int, optional
            List only the ``top`` rules with the largest shares.

        Returns
        -------
        Explanation

        Examples
        --------
        >>> import numpy as np
        >>> u = np.sin(np.arange(300) / 7); y = np.zeros(300)
        >>> for k in range(1, 300):
        ...     y[k] = 0.5 * y[k - 1] + u[k - 1]
        >>> model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u, y)
        >>> model.explain({"y(k-1)": 0.5, "u(k-1)": 0.2}).input_names
        ('y(k-1)', 'u(k-1)')
        """
        from randomts.analysis.explain import explain

        return explain(self._rules("explain"), x, top=top)

    def linearize(self, regressor):
        """The local linear model ``y(k) ~ A s + B v + O`` at a regressor row.

        ``s`` are the lagged outputs of the row and ``v`` the lagged inputs
        (:meth:`randomts.dynamics.narx.NARX.linearize`; with increments the
        identity is added on the ``y(k-1)`` columns, so ``A s + B v + O`` is
        ``y(k)``).

        Parameters
        ----------
        regressor : array-like of shape (n_regressors,) or (n_points, n_regressors)
            Operating point(s), in the order of ``narx_.regressor_names``.

        Returns
        -------
        LinearModel

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> u = rng.normal(size=500); y = np.zeros(500)
        >>> for k in range(1, 500):
        ...     y[k] = 0.5 * y[k - 1] + u[k - 1]
        >>> model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u, y)
        >>> A, B, O = model.linearize([0.0, 0.0])
        >>> round(float(A[0, 0]), 2), round(float(B[0, 0]), 2)
        (0.5, 1.0)
        """
        return self.narx_.linearize(self._rules("linearize"), regressor)

    def _rules(self, what):
        check_is_fitted(self, "narx_")
        if not hasattr(self, "rule_base_"):
            raise TypeError(
                f"{what} reads the rules of a randomts estimator; this {_OWNER} was fitted with "
                f"{type(self.estimator_).__name__}."
            )
        return self.rule_base_

    def _check_sizes(self, experiments):
        n_inputs, n_outputs = sizes(experiments)
        if n_outputs != self.n_outputs_:
            raise ValueError(
                f"y has {n_outputs} outputs, but {_OWNER} is expecting {self.n_outputs_} "
                "outputs as in fit."
            )
        if n_inputs != self.n_inputs_:
            raise ValueError(
                f"u has {n_inputs} inputs, but {_OWNER} is expecting {self.n_inputs_} "
                "inputs as in fit."
            )

    # ------------------------------------------------------------------ saving
    def __randomts_saved__(self):
        """The rule base :func:`randomts.save` writes: the rules, and how to rebuild ``self``.

        The estimator's record, naming this class, with a ``"narx"`` entry:
        the parameters (but the estimator, which the estimator's own record
        rebuilds), the lags, names and target, and the training sizes.
        """
        check_is_fitted(self, "narx_")
        if not hasattr(self.estimator_, "__randomts_saved__"):
            raise TypeError(
                f"save writes the rules of a randomts estimator; this {_OWNER} was fitted with "
                f"{type(self.estimator_).__name__}: pickle it instead."
            )
        rule_base = self.estimator_.__randomts_saved__()
        metadata = rule_base.metadata
        params = self.get_params(deep=False)
        params.pop("estimator")
        metadata[STATE_KEY].update(
            {
                "class": type(self).__name__,
                _RECORD: {
                    "params": jsonable(params),
                    "default_estimator": self.estimator is None,
                    "y_lags": list(self.narx_.y_lags),
                    "u_lags": list(self.narx_.u_lags),
                    "output_names": list(self.narx_.output_names),
                    "input_names": list(self.narx_.input_names),
                    "target": self.narx_.target,
                    "target_ndim": int(self._y_ndim),
                },
            }
        )
        return rule_base.replace(metadata=metadata)

    @classmethod
    def __randomts_restored__(cls, rule_base):
        """The fitted estimator that :meth:`__randomts_saved__` described."""
        metadata = rule_base.metadata
        state = dict(metadata[STATE_KEY])
        record = state.pop(_RECORD, None)
        if not isinstance(record, dict):
            raise ValueError(f"the {_RECORD!r} record is missing or not an object: {record!r}")
        state["class"] = RandomTSRegressor.__name__
        metadata[STATE_KEY] = state
        estimator = RandomTSRegressor.__randomts_restored__(rule_base.replace(metadata=metadata))
        try:
            narx = NARX(
                tuple(record["y_lags"]),
                tuple(record["u_lags"]),
                output_names=record["output_names"],
                input_names=record["input_names"] or "u",
                target=record["target"],
            )
            y_ndim = int(record["target_ndim"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"the {_RECORD!r} record is damaged: {exc!r}") from None
        if (
            narx.regressor_names != estimator.rule_base_.input_names
            or narx.n_outputs != estimator.rule_base_.n_outputs
            or y_ndim not in (1, 2)
        ):
            raise ValueError(
                f"the {_RECORD!r} record describes regressors {narx.regressor_names}, but the "
                f"rules read {estimator.rule_base_.input_names}"
            )
        known = cls().get_params(deep=False)
        params = recorded_params(record.get("params"), known)
        if not record.get("default_estimator", True):
            params["estimator"] = clone(estimator)
        model = cls(**params)
        model.estimator_ = estimator
        model.rule_base_ = estimator.rule_base_
        model.narx_ = narx
        model.alpha_ = getattr(estimator, "alpha_", None)
        model.max_lag_ = narx.max_lag
        model.n_inputs_ = narx.n_inputs
        model.n_outputs_ = narx.n_outputs
        model._y_ndim = y_ndim
        ranges = estimator.rule_base_.input_range
        model._ranges = None if ranges is None else (ranges[:, 0].copy(), ranges[:, 1].copy())
        return model


# ----------------------------------------------------------------- the data
