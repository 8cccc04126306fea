"""The NARX estimator: a model of a dynamical system from its input/output records.

:class:`NARXRegressor` takes records (:mod:`randomts.dynamics.records`; the
series in the order ``u, y``, time on axis 0), builds the lagged regressors
of :class:`randomts.dynamics.narx.NARX` record by record (no row mixes two
records), fits a :class:`~randomts.RandomTSRegressor` (or another regressor)
on them, and predicts one or ``k`` steps ahead or runs the model freely from
initial outputs.

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

The candidates and their choice are :mod:`randomts.estimators.narx.selection`;
the intervals :mod:`randomts.estimators.narx.intervals`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.metrics import r2_score
from sklearn.utils.validation import check_is_fitted

from randomts._threads import one_blas_thread
from randomts._validation import check_int, check_option
from randomts.dynamics.narx import NARX, TARGETS, check_lags
from randomts.dynamics.records import check_steps, read_records, variable_names
from randomts.estimators.narx.intervals import band, horizon_quantiles, residual_scores
from randomts.estimators.narx.progress import progress_bar
from randomts.estimators.narx.selection import (
    Settings,
    choose,
    first_part_model,
    fit_candidates,
    fit_estimator,
    linear_fallback,
    refit,
)
from randomts.estimators.parameters import resolved, warn_constant_inputs
from randomts.estimators.regressor import RandomTSRegressor
from randomts.estimators.saving import STATE_KEY, jsonable, recorded_params
from randomts.fitting.conformal import check_coverage, split_quantile
from randomts.fuzzy.rulebase import RuleBase

__all__ = ["EXTRAPOLATION", "FOCUS", "LAG_CHOICES", "NARXRegressor"]

_OWNER = "NARXRegressor"
_RECORD = "narx"
#: The lag counts ``"auto"`` chooses between (``n``: lags ``1..n``).
LAG_CHOICES = (1, 2, 4, 6)
#: What the consequents are fitted for.
FOCUS = ("prediction", "simulation")
#: What a free run does beyond the training data.
EXTRAPOLATION = ("linear", "model")
# The linear ARX model: one rule of a weighted average is a linear model, without a penalty
# the least squares of the lagged rows.
_ARX = {"structure": "random", "n_rules": 1, "normalize": True, "alpha": 0.0, "lock_range": False}
# The candidates' random rules: a hundred summed, and ten on the data's clusters, averaged,
# fitted by combined learning. NARX runs the rules on its own regressors (its free run has
# ``extrapolation``): the rule bases are not range-locked.
_RANDOM = {"structure": "random", "lock_range": False}
_CLUSTERED = {
    **_RANDOM,
    "n_rules": 10,
    "centers": "kmeans",
    "normalize": True,
    "learning": "combined",
}
# Rules grown where the one-step error is (a local linear model tree), their lines then fitted
# again by combined learning: the penalty the refinement shrinks toward them by. Grown once, at
# a third of their regions' sides: "auto" would grow them at four factors, whose one-step
# criteria differ little on lagged rows, for the cost of four growths.
_GROWN = {
    "structure": "grown",
    "n_rules": 10,
    "width_factor": 1.0 / 3.0,
    "learning": "combined",
    "lock_range": False,
}
# The polynomial candidate: the linear model (one rule) of the lagged values and of the squares
# and cubes of the lagged outputs (a polynomial NARX model), fitted and refined for the free run
# as the others are. Odd and even terms: a cubic spring, a quadratic drag or flow ...
_POWERS = (2, 3)
# ... with every product of its lagged outputs (every monomial of degree 2 and 3: a Duffing
# oscillator's discretised spring couples its lags) where the lagged rows number at least this
# many times its coefficients, the powers of each lagged output alone otherwise (a short
# record cannot pin down the products' many coefficients for a free run)
_ROWS_PER_COEFFICIENT = 100
# ... and none where the lagged rows number fewer than this many times the powers' coefficients:
# fitted by plain least squares, a cubic in every lag on fewer rows follows the noise of the
# rows it has, and its free run the cubes beyond them
_POWER_ROWS_PER_COEFFICIENT = 10


def _is_arx(estimator):
    """Whether ``estimator`` is the least-squares linear ARX model."""
    params = estimator.get_params()
    return all(params.get(name) == value for name, value in _ARX.items())


class NARXRegressor(RegressorMixin, BaseEstimator):
    """Nonlinear ARX model of input/output data: one-step prediction and free-run simulation.

    The output at time ``k`` is modelled from past outputs and inputs,

    .. math:: y(k) = y(k - 1) + f\\big(y(k - 1), \\ldots, y(k - n_y),\\;
              u(k - 1), \\ldots, u(k - n_u)\\big)

    with ``target="increment"`` (the default), or ``y(k) = f(...)`` with
    ``target="output"``; ``f`` is a :class:`~randomts.RandomTSRegressor`
    fitted on the lagged rows (:class:`randomts.dynamics.narx.NARX`).

    Data are records (:mod:`randomts.dynamics.records`), the series taken in
    the order ``u, y`` by every method, time on axis 0: ``u`` is
    ``(n_steps,)`` or ``(n_steps, n_inputs)``, or None for an autoregression;
    ``y`` is ``(n_steps,)`` or ``(n_steps, n_outputs)`` (several outputs: a
    MIMO model); ``u[k]`` is the input at the time of ``y[k]``. Several
    records are lists of such arrays (``fit([u1, u2], [y1, y2])``), a list of
    ``(u, y)`` pairs (``fit([(u1, y1), (u2, y2)])``) or 3-D stacks: no lagged
    row mixes two records, and results come back in the layout given.

    **The initial window.** :meth:`simulate` needs ``max_lag_`` initial
    outputs: the first output it computes, at step ``max_lag_``, has
    regressors reaching back ``max(y_lags)`` outputs and ``max(u_lags)``
    inputs. More are accepted (a window of measured outputs): the run starts
    after the last of them, from their last ``max_lag_`` rows. Fewer raise a
    ValueError naming the number needed.

    Parameters
    ----------
    y_lags : int, sequence of int or "auto", default=2
        Output lags: ``n`` means ``y(k-1) ... y(k-n)``; a sequence gives the
        lags themselves, each ``>= 1``. ``"auto"``: the count of
        :data:`~randomts.estimators.narx.estimator.LAG_CHOICES` that the free run chooses (with
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
        with ``focus="simulation"``, four are fitted and refined, and the
        free run chooses (``selection_blocks``, ``selection_errors_``):
        ``RandomTSRegressor(structure="random")`` (100 random rules,
        weighted sum), 10 random rules on the data's clusters (weighted
        average, combined learning), a single rule (a linear ARX model) and
        up to 10 rules grown where the one-step error is
        (``structure="grown"``, a local linear model tree, grown once with
        ``width_factor=1/3``, their lines fitted again by combined
        learning), and, with inputs, a fifth fitted by
        least squares, not refined: the
        linear model of the lagged inputs alone (a FIR model), whose free
        run cannot diverge. Last, a polynomial model: a single rule on the
        lags and the products of degree 2 and 3 of the lagged outputs
        (:class:`~randomts.dynamics.narx.NARX`'s ``powers=(2, 3)`` with
        ``products=True``) where the lagged rows number at least 100 per
        coefficient, else their squares and cubes alone (none where the
        rows number fewer than 10 per coefficient of those), refined from its
        one-step fit (or, where that runs away, from the nearest start on
        the way to the linear model that does not) and an option only
        refined: a cubic spring or a quadratic drag, which it also follows
        beyond the data. An option whose free run over every training
        record whole diverges or leaves the outputs' range by more than
        half their span is never kept. No one of them is best on every system (see
        :doc:`/user_guide/system_identification`). With
        ``focus="prediction"``, ``RandomTSRegressor(structure="random")``. A randomts regressor's ``alpha="auto"`` is
        chosen by ``n_folds``-fold cross-validation on contiguous blocks of
        rows (``fit(X, y, folds=...)``); any other scikit-learn regressor is
        fitted as it is (then :meth:`explain`, :meth:`linearize` and
        :func:`randomts.save` are not available). Grown rules are refined
        for the free run only with ``learning="combined"`` or ``"global"``
        (the one fit the refinement shrinks toward); with
        ``focus="prediction"``, any learning. Grown rules, given or
        default, are grown and fitted on at most 20,000 of the lagged rows,
        evenly spaced in time: the growth's cost grows with the rows.
    n_folds : int, default=5
        Number of contiguous blocks of the cross-validation of ``alpha``
        (:func:`~randomts.dynamics.records.blocked_folds` over the rows of every record in turn).
    focus : {"simulation", "prediction"}, default="simulation"
        What the model is fitted for. ``"prediction"``: the one-step least
        squares on every row. ``"simulation"``: the one-step solution on the
        first ``1 - validation_fraction`` of every record, then refined
        on the error of the model's own multi-step runs (multiple shooting
        over segments of ``horizon`` steps, analytic sensitivities,
        Levenberg-Marquardt shrunk toward the one-step solution), stopped
        early on a free run over the held-out last part of every record
        and kept only where better there
        (:func:`randomts.dynamics.simulation_fit.refine_for_simulation`).
        The model kept is then fitted again on every record whole: its
        one-step fit refined for as many steps as the held-out end chose
        (none if the start was best), so that the latest data are not left
        out of it; it replaces the model fitted on the first part only where
        its free run over every record whole stays in the data and, refined,
        is no worse. A good one-step predictor can be a poor simulator; this
        is the setting for a model that will run on its own outputs. Needs
        randomts estimators.
    horizon : int, default=200
        Steps of every segment of ``focus="simulation"`` (at most the
        length of the shortest fitted stretch). Longer segments weigh the
        feedback of more steps; shorter ones keep a model that runs away
        from running away for long.
    validation_fraction : float, default=0.2
        The last part of every record that ``focus="simulation"`` holds
        out to stop on and to choose by (at least ``max_lag + 1`` steps).
    selection_blocks : int, default=5
        With more than one estimator or lag count to choose from: the blocks
        of time of the blocked cross-validation of the free run that chooses.
        The held-out end is one block; the rest of every record is cut
        into ``selection_blocks - 1`` more, and each is held out in turn, run
        freely by the estimators fitted (and refined, stopped on it) on the
        rest. From the simplest (fewest consequent parameters) on, a more
        complex one replaces the one kept only if its errors are smaller,
        block by block, by more than their noise (the mean log-ratio below
        minus its standard error); a refinement is judged on every block
        after as many steps as the other blocks chose, not as many as the
        block itself chose. One held-out stretch of a short record is
        a noisy judge, and a flexible estimator can win on it by chance. A
        record too short for blocks longer than the largest lag gets fewer.
        ``1``: the least error on the held-out end alone. The blocks share
        every candidate's one fit (its rules and penalty).
    max_iter : int, default=20
        Refinement steps of ``focus="simulation"`` at the most.
    refine_antecedents : bool, default=True
        With ``focus="simulation"``: whether the refinement also moves the
        centres and widths of every estimator that is a weighted average of
        more than one rule (the rules on the clusters and the grown rules
        of the defaults; a weighted sum of random rules keeps its rules as
        drawn), by the same Levenberg-Marquardt steps, with the same
        shrinkage toward the one-step start, in standardised regressors
        (the widths' logarithms). False: their sets stay where they were
        clustered or grown, and only the consequents move. See
        :doc:`/user_guide/system_identification` for what it gives and
        costs.
    output_names : str or sequence of str, optional
        Names of the outputs: ``"y"`` for one output, ``y1, y2, ...`` for more.
    input_names : str or sequence of str, optional
        Names of the inputs: ``"u"`` for one input, ``u1, u2, ...`` for more.
    random_state : int, RandomState instance or None, default=None
        When not None, the ``random_state`` of the estimator (the rules drawn).
    extrapolation : {"linear", "model"}, default="linear"
        What a free run does far beyond the training data. ``"linear"``:
        from its first step more than
        :data:`~randomts.dynamics.narx.FALLBACK_SPAN` (half a span) beyond
        the training ranges of the lagged values (a power follows its lag;
        an input that held one value in training, which the model leaves
        out, does not count), the run continues with a
        linear ARX model of the same lags fitted by least squares on every
        row (``fallback_``; :meth:`NARX.simulate
        <randomts.dynamics.narx.NARX.simulate>`'s ``fallback``). A rule base
        says little where it has no data (a weighted average follows its
        nearest rule's line, which may be unstable there), and the blocks
        that choose the model cannot see there. ``"model"``: the model's
        own extrapolation. A run nearer the data is the same either way.
    progress : {"auto", True, False}, default="auto"
        A progress bar of :meth:`fit` on stderr, one tick per candidate fitted
        (with the ``progress`` extra, tqdm; without it a counter). ``"auto"``:
        on a terminal, for a fit that lasts over a second, and gone when it
        ends (as ``randomts fit`` shows it); ``True``: always; ``False``: never.

    Attributes
    ----------
    estimator_ : regressor
        The fitted model ``f`` of the lagged rows, its rule base named with
        the lagged names.
    narx_ : NARX
        The lag structure: ``regressor_names``, ``target_names``, ``max_lag``.
    simulation_fit_ : SimulationFit or None
        With ``focus="simulation"``: the held-out free-run error of the kept
        candidate, fitted on the first part of every record, before and after
        its refinement, and its steps (``best_iteration``: the steps the
        model fitted on every record whole is refined for); ``rule_base`` is
        that final model's.
    candidate_errors_ : ndarray of shape (n_candidates,) or None
        With ``focus="simulation"``: the held-out free-run RMSE of every
        estimator fitted, in the order above (with the default estimators,
        the model of the inputs alone, then the polynomial model; ``inf``
        for a run that diverged); with lags ``"auto"``, for every lag count
        in turn.
    selection_errors_ : ndarray of shape (n_candidates, n_blocks) or None
        The free-run RMSE of every estimator (rows as in
        ``candidate_errors_``), refined, on every block of the
        cross-validation that chose (``selection_blocks``, or fewer for a
        short record), in time order, the last column being
        ``candidate_errors_``; None without a choice or with one block.
    selection_start_errors_ : ndarray of shape (n_candidates, n_blocks) or None
        The same of every estimator's one-step start: the refined model is
        kept only where it beats its start beyond the noise of the blocks,
        as a more complex estimator must beat a simpler one.
    fallback_ : RuleBase or None
        With ``extrapolation="linear"``: the linear ARX model (one rule,
        least squares on every row) a free run continues with far beyond
        the training data; None otherwise, or when the model kept is that one.
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
        refine_antecedents=True,
        output_names=None,
        input_names=None,
        random_state=None,
        extrapolation="linear",
        progress="auto",
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
        self.refine_antecedents = refine_antecedents
        self.output_names = output_names
        self.input_names = input_names
        self.random_state = random_state
        self.extrapolation = extrapolation
        self.progress = progress

    # ------------------------------------------------------------------ checks
    def _structures(self, records):
        """The NARX structures to fit: that of the lags given, or those ``"auto"`` chooses from."""
        n_inputs, n_outputs = records.n_inputs, records.n_outputs
        automatic = [lags == "auto" for lags in (self.y_lags, self.u_lags)]
        if automatic[0] and automatic[1]:
            pairs = [(n, n) for n in LAG_CHOICES]
        elif automatic[0]:
            pairs = [(n, self.u_lags) for n in LAG_CHOICES]
        elif automatic[1]:
            pairs = [(self.y_lags, n) for n in LAG_CHOICES]
        else:
            pairs = [(self.y_lags, self.u_lags)]
        # with the default estimators fitted for simulation, every lag structure's twin with
        # the products (or powers) of its lagged outputs (the polynomial candidate's)
        twins = self.estimator is None and self.focus == "simulation"

        def enough_rows(narx, per_coefficient):  # the lagged rows against the coefficients
            rows = sum(Y.shape[0] - narx.max_lag for _, Y in records)
            return rows >= per_coefficient * (len(narx.regressor_names) + 1) * n_outputs

        structures = {}
        for y_lags, u_lags in pairs:
            for powers in (), _POWERS if twins else ():
                narx = self._structure(n_inputs, n_outputs, y_lags, u_lags, powers)
                if powers:
                    if not enough_rows(narx, _POWER_ROWS_PER_COEFFICIENT):
                        continue
                    products = self._structure(n_inputs, n_outputs, y_lags, u_lags, powers, True)
                    if enough_rows(products, _ROWS_PER_COEFFICIENT):
                        narx = products
                structures.setdefault((narx.y_lags, narx.u_lags, narx.powers, narx.products), narx)
        return list(structures.values())

    def _structure(self, n_inputs, n_outputs, y_lags, u_lags, powers=(), products=False):
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
            powers=powers,
            products=products,
        )

    def _settings(self, structures):
        """The checked parameters every candidate's fit shares."""
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
        selection_blocks = check_int(self.selection_blocks, "selection_blocks", low=1, owner=_OWNER)
        if not isinstance(self.refine_antecedents, (bool, np.bool_)):
            raise TypeError(
                f"The 'refine_antecedents' parameter of {_OWNER} must be True or False. Got "
                f"{self.refine_antecedents!r} instead."
            )
        return Settings(
            n_folds,
            horizon,
            max_iter,
            self.validation_fraction,
            selection_blocks,
            bool(self.refine_antecedents),
        )

    def _new_estimator(self):
        estimator = RandomTSRegressor(**_RANDOM) if self.estimator is None else self.estimator
        if not (hasattr(estimator, "fit") and callable(getattr(estimator, "predict", None))):
            raise TypeError(
                f"The 'estimator' parameter of {_OWNER} must be a regressor with fit and "
                f"predict methods. Got {type(estimator).__name__} instead."
            )
        estimator = clone(estimator)
        params = estimator.get_params()
        if self.random_state is not None and "random_state" in params:
            estimator.set_params(random_state=self.random_state)
        if "lock_range" in params:
            if params["lock_range"]:
                raise ValueError(
                    f"The 'estimator' parameter of {_OWNER} must not hold its rules in a range "
                    "(lock_range=True): the free run and its 'extrapolation' decide what the "
                    "model does beyond the data. Leave lock_range None or False."
                )
            estimator.set_params(lock_range=False)
        return estimator

    def _candidates(self, focus, narx):
        """The estimators to fit on a structure: the one given, or the defaults'."""
        if self.estimator is not None or focus == "prediction":
            candidates = [self._new_estimator()]
        elif narx.powers:  # one rule on the lags and their powers: a polynomial model
            candidates = [RandomTSRegressor(**_ARX)]
        else:
            # a hundred random rules, ten rules on the data's clusters, one rule (a linear
            # model): the free run chooses
            candidates = [
                RandomTSRegressor(**_RANDOM),
                RandomTSRegressor(**_CLUSTERED),
                RandomTSRegressor(**_ARX),
                RandomTSRegressor(**_GROWN),
            ]
            if self.random_state is not None:
                for candidate in candidates:
                    candidate.set_params(random_state=self.random_state)
        if focus == "simulation":
            for candidate in candidates:
                if not hasattr(candidate, "draw_antecedents"):
                    raise ValueError(
                        f"The 'focus' parameter of {_OWNER} can be 'simulation' only with a "
                        "randomts estimator (it refines the rules' consequents); got "
                        f"{type(candidate).__name__}."
                    )
                settings = resolved(candidate)
                if settings.grown and settings.learning == "local":
                    raise ValueError(
                        f"The 'focus' parameter of {_OWNER} can be 'simulation' with grown rules "
                        "only when their lines are fitted again by one fit of the consequents "
                        "(it refines them on their own free run, shrunk toward that fit by its "
                        f"penalty); got {type(candidate).__name__} with learning='local' (lines "
                        "fitted rule by rule"
                        + (", the default of grown rules" if candidate.learning is None else "")
                        + "). Pass learning='combined' or 'global' to the estimator, or "
                        "focus='prediction' for a one-step model of grown lines."
                    )
        return candidates

    def _read(self, u, y, *, y_name="y", min_steps=None, fitted=True):
        """The records given, read once and checked against the fitted sizes."""
        if fitted:
            check_is_fitted(self, "narx_")
        records = read_records(u, y, y_name=y_name, allow_shorter_y=y_name == "y_init")
        if not fitted:
            return records
        if records.n_outputs != self.n_outputs_:
            raise ValueError(
                f"{y_name} has {records.n_outputs} outputs, but {_OWNER} is expecting "
                f"{self.n_outputs_} outputs as in fit."
            )
        if records.n_inputs and not self.n_inputs_:
            raise ValueError(
                f"This {_OWNER} was fitted without inputs (an autoregression), but u was given."
            )
        if self.n_inputs_ and not records.n_inputs:
            raise ValueError(f"This {_OWNER} was fitted with inputs; u is required.")
        if records.n_inputs != self.n_inputs_:
            raise ValueError(
                f"u has {records.n_inputs} inputs, but {_OWNER} is expecting {self.n_inputs_} "
                "inputs as in fit."
            )
        for index, (_, Y) in enumerate(records):
            check_steps(Y.shape[0], min_steps, f"{y_name}{records.label(index)}")
        return records

    # --------------------------------------------------------------------- fit
    def fit(self, u=None, y=None):
        """Fit ``f`` on the lagged rows of every record.

        Parameters
        ----------
        u : array-like of shape (n_steps,) or (n_steps, n_inputs), None, a list or a stack
            Inputs on the time axis of ``y``; None for an autoregression; a
            list of arrays (with a list ``y``) for several records, or a
            list of ``(u, y)`` pairs (and ``y`` omitted).
        y : array-like of shape (n_steps,) or (n_steps, n_outputs), a list or a stack
            Outputs; every record needs more than ``max_lag`` steps.

        Returns
        -------
        self : NARXRegressor
        """
        records = self._read(u, y, fitted=False)
        structures = self._structures(records)
        settings = self._settings(structures)
        check_option(self.extrapolation, "extrapolation", EXTRAPOLATION, owner=_OWNER)
        for narx in structures:
            for index, (_, Y) in enumerate(records):
                check_steps(Y.shape[0], narx.max_lag + 1, f"y{records.label(index)}")
        if structures[0].u_lags:  # once, by name: the candidates, fitted on lagged rows, do not
            warn_constant_inputs(
                _OWNER,
                np.concatenate([U for U, _ in records]),
                structures[0].input_names,
                rows="steps of the records",
            )
        with one_blas_thread():  # many small solves and steps: BLAS threads only spin
            return self._fit(records, structures, settings)

    def _fit(self, records, structures, settings):
        simulation = settings.horizon is not None
        input_only = simulation and self.estimator is None
        total = sum(len(self._candidates(self.focus, narx)) for narx in structures)
        total += input_only * sum(bool(narx.u_lags and not narx.powers) for narx in structures)
        with progress_bar(total, self.progress, _OWNER) as tick:
            fits, rows = fit_candidates(
                structures,
                lambda narx: self._candidates(self.focus, narx),
                records,
                settings,
                tick,
                input_only=input_only,
            )
        index, refined, _, _ = choose([o for i, fit in enumerate(fits) for o in fit.options(i)])
        kept = fits[index]
        errors = np.array([fit.block_errors for fit in fits])
        self.candidate_errors_ = errors[:, -1] if simulation else None
        several = simulation and errors.shape[1] > 1
        self.selection_errors_ = errors if several else None
        self.selection_start_errors_ = (
            np.array([fit.start_errors for fit in fits]) if several else None
        )
        rows = rows[structures.index(kept.narx)]
        estimator, rule_base = refit(kept, refined, records, rows, settings)
        if estimator is None:  # the inputs alone: a linear model of one rule, of those rules
            estimator = fit_estimator(
                RandomTSRegressor(**_ARX),
                rows.X,
                rows.Y[:, 0] if rows.Y.shape[1] == 1 else rows.Y,
                judged=True,  # the inputs alone are a candidate of the free runs' choice
            )
            rule_base = kept.narx.name_rules(
                estimator.rule_base_.replace(coef=rule_base.coef, intercept=rule_base.intercept)
            )
        if rule_base is not None:
            estimator.rule_base_ = self.rule_base_ = rule_base
        self.simulation_fit_ = kept.simulation_fit(getattr(self, "rule_base_", None), refined)
        self.estimator_ = estimator
        self.narx_ = kept.narx
        self.alpha_ = getattr(estimator, "alpha_", None)
        self.max_lag_ = kept.narx.max_lag
        self.n_inputs_ = records.n_inputs
        self.n_outputs_ = records.n_outputs
        self._y_ndim = records.y_ndim
        self._ranges = (rows.X.min(axis=0), rows.X.max(axis=0))
        self.fallback_ = None
        linear = kept.input_only is not None or (
            refined is False and _is_arx(kept.estimator) and not kept.narx.powers
        )
        if self.extrapolation == "linear" and not linear:
            self.fallback_ = linear_fallback(kept.narx, rows)
        self._interval_scores = None
        if kept.held_out:  # calibrated by the model that never saw the held-out stretches
            self._interval_scores = residual_scores(
                self.narx_, first_part_model(kept, refined), records.take(kept.held_out)
            )
        return self

    # ------------------------------------------------------------- intervals
    def conformalize(self, u=None, y=None):
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
        records = self._read(u, y, min_steps=self.max_lag_ + 1)
        self._interval_scores = residual_scores(self.narx_, self.estimator_, records)
        return self

    def _quantile(self, kind, coverage):
        if getattr(self, "_interval_scores", None) is None:
            raise ValueError(
                f"This {_OWNER} keeps no residuals to build intervals from: fit it with "
                "focus='simulation' (which holds out the end of every record), or call "
                "conformalize(u, y) with a record it was not fitted on."
            )
        coverage = check_coverage(coverage, owner=kind)
        if kind == "predict_interval":
            return split_quantile(self._interval_scores[0], coverage)
        return horizon_quantiles(self._interval_scores[1], coverage)

    def predict_interval(self, u=None, y=None, coverage=0.9, *, steps_ahead=1):
        """Prediction intervals ``steps_ahead`` steps ahead: split conformal on held-out residuals.

        The prediction of :meth:`predict` plus or minus the
        ``ceil(coverage (n + 1))``-th smallest of the ``n`` held-out residuals
        kept (:meth:`conformalize`), per output: the one-step residuals, or,
        ``steps_ahead`` ahead, those of the held-out free runs at that
        horizon (the width of :meth:`simulate_interval` there). For
        exchangeable rows this covers with probability at least
        ``coverage``; the rows of a time series are not exchangeable, so the
        coverage is what the benchmarks measure (``benchmarks/RESULTS.md``),
        not a guarantee.

        Parameters
        ----------
        u, y, steps_ahead
            As in :meth:`predict`.
        coverage : float in (0, 1), default=0.9
            Target coverage.

        Returns
        -------
        lower, upper : ndarray shaped like :meth:`predict`'s result (or lists)
            The rows without a prediction are the measured outputs (no width).

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
        steps = check_int(steps_ahead, "steps_ahead", low=1, owner=_OWNER)
        if steps == 1:
            q = self._quantile("predict_interval", coverage)
        else:
            by_horizon = self._quantile("simulate_interval", coverage)
            q = by_horizon[min(steps, by_horizon.shape[0]) - 1]
        predicted = self.predict(u, y, steps_ahead=steps)
        return band(predicted, q, self.max_lag_ + steps - 1)

    def simulate_interval(self, u=None, y_init=None, coverage=0.9, *, n_steps=None):
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
        records, runs = self._simulate(u, y_init, n_steps, warn=False)
        bands = [band(run, q, y0.shape[0]) for run, (_, y0) in zip(runs, records, strict=True)]
        return records.shaped([b[0] for b in bands]), records.shaped([b[1] for b in bands])

    def regressors(self, u=None, y=None):
        """The lagged rows ``(X, Y)`` that :meth:`fit` fits ``f`` on.

        Record after record, each from its step ``max_lag`` on: a
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
        return self.narx_.regressors(self._read(u, y, min_steps=self.max_lag_ + 1))

    # ----------------------------------------------------------------- predict
    def predict(self, u=None, y=None, *, steps_ahead=1):
        """Prediction ``steps_ahead`` steps ahead: every ``y(k)`` from the outputs measured before.

        Parameters
        ----------
        u, y
            As in :meth:`fit`: the measured inputs and outputs.
        steps_ahead : int, default=1
            How far ahead: ``y(k)`` is predicted from the measured outputs up
            to ``y(k - steps_ahead)`` (and the inputs up to ``u(k)``), the
            model running freely over the steps between
            (:meth:`randomts.dynamics.narx.NARX.predict_ahead`). 1: one step
            ahead; the longer, the nearer a free run (:meth:`simulate`).

        Returns
        -------
        ndarray shaped like ``y``, or a list of them for several records
            Row ``k >= max_lag_ + steps_ahead - 1`` is the prediction of
            ``y[k]``; the rows before, which have no such past, are the
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
        >>> predicted.shape, bool(np.sqrt(np.mean((predicted - y) ** 2)) < 0.05)  # y spans 5.5
        ((400,), True)
        >>> ahead = model.predict(u, y, steps_ahead=10)
        >>> bool(np.sqrt(np.mean((ahead - y) ** 2)) < 0.1)
        True
        """
        steps = check_int(steps_ahead, "steps_ahead", low=1, owner=_OWNER)
        records = self._read(u, y, min_steps=self.max_lag_ + steps)
        if steps == 1:
            predicted = self.narx_.predict_one_step(self.estimator_, records.listed())
        else:
            predicted = self.narx_.predict_ahead(
                self.estimator_,
                records.listed(),
                steps=steps,
                fallback=getattr(self, "fallback_", None),
                ranges=self._ranges,
            )
        outputs = []
        first = self.max_lag_ + steps - 1
        for (_, Y), ahead in zip(records, predicted, strict=True):
            out = Y.copy()
            out[first:] = ahead
            outputs.append(out)
        return records.shaped(outputs)

    def score(self, u=None, y=None):
        """R^2 of the one-step-ahead predictions, over the steps that have a past.

        Parameters
        ----------
        u, y
            As in :meth:`fit`.

        Returns
        -------
        float
            :func:`sklearn.metrics.r2_score` of the rows from ``max_lag_`` on
            of every record (averaged over outputs).
        """
        records = self._read(u, y, min_steps=self.max_lag_ + 1)
        predicted = self.narx_.predict_one_step(self.estimator_, records.listed())
        true = np.concatenate([Y[self.max_lag_ :] for _, Y in records])
        return float(r2_score(true, np.concatenate(predicted)))

    # ---------------------------------------------------------------- simulate
    def simulate(self, u=None, y_init=None, *, n_steps=None):
        """Free run: from initial outputs, the model's own outputs fed back.

        Parameters
        ----------
        u : array-like of shape (n_total,) or (n_total, n_inputs), None, or a list
            Inputs over the whole run, on the time axis of the outputs; a
            list for several records (with a list ``y_init``). None for
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
        SimulatedOutputs, or a list of them for several records
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
            naming the first record and step.
        DivergenceWarning
            When a run's output stops being finite, naming the first
            record and step.

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
        records, runs = self._simulate(u, y_init, n_steps, warn=True)
        return records.shaped(runs)

    def _simulate(self, u, y_init, n_steps, *, warn):
        """The records read and their runs, ``(n_total, n_outputs)`` each."""
        records = self._read(u, y_init, y_name="y_init", min_steps=self.max_lag_)
        runs = self.narx_.free_run(
            self.estimator_,
            records,
            n_steps=n_steps,
            ranges=self._ranges,
            fallback=getattr(self, "fallback_", None),
        )
        if warn:
            self.narx_.warn(runs, self._ranges, several=records.layout != "one", stacklevel=4)
        return records, runs

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
                    "powers": list(self.narx_.powers),
                    "products": self.narx_.products,
                    "target_ndim": int(self._y_ndim),
                    "fallback": None
                    if getattr(self, "fallback_", None) is None
                    else {
                        "coef": self.fallback_.coef[0].tolist(),
                        "intercept": self.fallback_.intercept[0].tolist(),
                    },
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
                powers=tuple(record.get("powers", ())),
                products=record.get("products", False),
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
        model.fallback_ = _recorded_fallback(record.get("fallback"), narx)
        return model


def _recorded_fallback(record, narx):
    """The linear ARX model a saved record describes (one rule of a weighted average), or None."""
    if record is None:
        return None
    try:
        coef = np.asarray(record["coef"], dtype=float).reshape(1, narx.n_outputs, -1)
        intercept = np.asarray(record["intercept"], dtype=float).reshape(1, narx.n_outputs)
        n_features = coef.shape[2]
        return narx.name_rules(
            RuleBase(
                np.zeros((1, n_features)),
                np.ones((1, n_features)),
                coef,
                intercept,
                normalize=True,
            )
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the {_RECORD!r} record's fallback is damaged: {exc!r}") from None
