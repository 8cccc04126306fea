"""Antecedents refined on the data: few rules that predict well.

:func:`refine_antecedents` moves the centres and widths of a rule base (e.g.
placed by :func:`~randomts.fitting.kmeans.kmeans_antecedents`) by nonlinear
least squares with the consequents re-solved exactly at every step: variable
projection (Golub and Pereyra, 1973), the "hybrid learning" of ANFIS (Jang,
1993) done with a Gauss-Newton trust region
(:func:`scipy.optimize.least_squares`) and an analytic Jacobian.

The refined model is an ordinary :class:`~randomts.RuleBase`, built by the
``replace`` of the one given.

The variable-projection problem
-------------------------------
With antecedent parameters ``theta`` (every centre ``c_ik`` and every log
width ``log sigma_ik``), design matrix ``K(theta)`` and a ridge ``alpha > 0``
on the consequents ``Gamma``, the objective is
``||Y - K Gamma||^2 + alpha ||Gamma||^2``. For fixed ``theta`` its minimiser is
``Gamma(theta) = M^{-1} K^T Y`` with ``M = K^T K + alpha I``; what remains is
the residual of the augmented system ``K~ = [K; sqrt(alpha) I]``,
``Y~ = [Y; 0]``::

    r(theta) = Y~ - K~ Gamma(theta) = [Y - K Gamma; -sqrt(alpha) Gamma].

Kaufman's (1975) Jacobian drops the second of Golub and Pereyra's two terms:
``J_t = -P (dK~/dtheta_t) Gamma`` with ``P`` the projector onto the
orthogonal complement of the range of ``K~``. With ``v_t = (dK/dtheta_t)
Gamma`` (an ``n_samples x n_outputs`` block) and ``B_t = M^{-1} K^T v_t``::

    J_t = [-(v_t - K B_t); sqrt(alpha) B_t].

The dropped term lies in the range of ``K~``, orthogonal to ``r``, so the
gradient ``J^T r`` is exact. The model output is ``y_hat = sum_i wbar_i g_i``
(``g_i`` the consequent of rule ``i``, ``wbar_i`` its raw or normalised
firing strength) and, with ``d_ik = d log w_i / d theta_ik`` (``(x_k - c_ik)
/ sigma_ik^2`` for a centre, ``(x_k - c_ik)^2 / sigma_ik^2`` for a log
width),

    v_ik = wbar_i d_ik (g_i - y_hat)   (weighted average; ``g_i`` alone for the weighted sum).

:func:`refine_antecedents` appends a weak prior toward the starting
antecedents ``theta_0``, the rows ``sqrt(mu) (theta - theta_0)`` of the
residual (and ``sqrt(mu) I`` of the Jacobian), with
``mu = 1e-6 n_samples mean(var(Y))``: moving one centre by one standard
deviation of its input costs a millionth of the targets' total sum of
squares. It fixes the directions the data do not see. A weighted average
of ``h <= 2 n_features`` rules has exact ones: adding the same quadratic in
``x`` to every rule's log firing strength leaves the normalised strengths
unchanged, a ``(2 n_features - h + 1)``-dimensional family of equal models.
Without the prior the Jacobian is singular there (condition numbers near
``1e15``), the descent wanders along that valley on rounding error and its
end point changes with the last bits of the inputs: a change of the inputs'
units moves the predictions of 6 refined rules on 3 inputs by up to 0.7
standard deviations of ``y``, and by at most ``1e-4`` with the prior (20
seeds, weighted sum and average).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.optimize
from sklearn.model_selection import KFold

from randomts._validation import check_int, check_int_option, check_matrix, check_real
from randomts.core import membership as _membership
from randomts.core.accumulators import LeastSquaresAccumulator, ridge_cholesky
from randomts.core.design import design_matrix, split_coefficients
from randomts.core.sampling import check_random_state
from randomts.core.scaling import Standardisation
from randomts.fitting.consequents import consequent_fit
from randomts.fitting.protocol import check_rule_base
from randomts.fitting.ridge import choose_consequent_alpha

__all__ = ["refine_antecedents", "variable_projection_residual"]

# Log widths are kept within this factor of the standardised unit (no overflow in d_ik).
_LOG_SIGMA_BOUND = np.log(1e3)
# Least paired t statistic of the held-out improvement for refined antecedents to be kept.
_MIN_T_STATISTIC = 3.0
# Weight of the prior toward the starting antecedents, per row and unit of the targets' variance.
_PRIOR_WEIGHT = 1e-6


def _antecedents_like(rule_base, centers, sigmas, n_outputs):
    """These antecedents, built by ``rule_base.replace``, in its mode and with nothing else of it.

    Zero consequents for ``n_outputs`` outputs, default names, no metadata
    and no recorded ranges.
    """
    n_rules, n_features = centers.shape
    return rule_base.replace(
        centers=centers,
        sigmas=sigmas,
        coef=np.zeros((n_rules, n_outputs, n_features)),
        intercept=np.zeros((n_rules, n_outputs)),
        input_names=None,
        output_names=None,
        metadata={},
        input_range=None,
        output_range=None,
        check_input=False,
    )


def _unpack(theta, n_rules, n_features):
    """Centres and widths from ``theta = [centers.ravel(), log(sigmas).ravel()]``."""
    size = n_rules * n_features
    centers = theta[:size].reshape(n_rules, n_features)
    log_sigmas = np.clip(theta[size:], -_LOG_SIGMA_BOUND, _LOG_SIGMA_BOUND)
    return centers, np.exp(log_sigmas).reshape(n_rules, n_features)


class _Problem:
    """The variable-projection residual and Jacobian on standardised data, cached per ``theta``.

    With ``theta0``, the residual ends with the prior rows ``sqrt(mu) (theta - theta0)``.
    """

    def __init__(self, U, Y, n_rules, *, normalize, order, alpha, center=False, theta0=None):
        # centred: the ridge shrinks toward the targets' mean, not toward 0
        self.offset = Y.mean(axis=0) if center else np.zeros(Y.shape[1])
        self.U, self.Y = U, Y - self.offset
        self.theta0 = theta0
        if theta0 is not None:
            variance = float(np.mean(Y.var(axis=0)))
            self.root_prior = np.sqrt(
                _PRIOR_WEIGHT * Y.shape[0] * (variance if variance > 0 else 1.0)
            )
        self.n_rules, self.n_features = n_rules, U.shape[1]
        self.normalize, self.order, self.alpha = normalize, order, alpha
        self.n_columns = n_rules * (self.n_features + 1 if order == 1 else 1)
        self._key, self._state = None, None

    def unpack(self, theta):
        return _unpack(theta, self.n_rules, self.n_features)

    def weights(self, U, centers, sigmas):
        return _membership.firing_strengths(U, centers, sigmas, normalize=self.normalize)

    def state(self, theta):
        key = theta.tobytes()
        if key != self._key:
            centers, sigmas = self.unpack(theta)
            W = self.weights(self.U, centers, sigmas)
            K = design_matrix(W, self.U, order=self.order)
            # the fitting engine's Gram matrix of [K Y] and the Cholesky factor of
            # M = K^T K + alpha I, which serves the ridge solution and the Jacobian's
            # M^-1 K^T V (2 n_rules n_features right-hand sides per output)
            p = self.n_columns
            gram = LeastSquaresAccumulator(p, self.Y.shape[1], solver="cholesky")
            G = gram.update(K, self.Y).factor
            self._factor = ridge_cholesky(G, p, self.alpha)
            gamma = scipy.linalg.cho_solve(self._factor, G[:p, p:], check_finite=False)
            self._key, self._state = key, (centers, sigmas, W, K, gamma)
        return self._state

    def predict(self, theta, U):
        centers, sigmas, _, _, gamma = self.state(theta)
        design = design_matrix(self.weights(U, centers, sigmas), U, order=self.order)
        return design @ gamma + self.offset

    def residual(self, theta):
        _, _, _, K, gamma = self.state(theta)
        parts = [(self.Y - K @ gamma).ravel(), -np.sqrt(self.alpha) * gamma.ravel()]
        if self.theta0 is not None:
            parts.append(self.root_prior * (theta - self.theta0))
        return np.concatenate(parts)

    def jacobian(self, theta):
        centers, sigmas, W, K, gamma = self.state(theta)
        U, n_samples, n_outputs = self.U, self.U.shape[0], self.Y.shape[1]
        coef, intercept = split_coefficients(gamma, self.n_rules, self.n_features, order=self.order)
        g = np.einsum("iok,jk->jio", coef, U) + intercept[None]  # rule outputs (N, h, m)
        if self.normalize:
            g = g - (K @ gamma)[:, None, :]
        A = W[:, :, None] * g  # (N, h, m)
        diff = (U[:, None, :] - centers[None]) / sigmas[None]  # (N, h, n)
        d_center = diff / sigmas[None]
        d_log_sigma = diff * diff
        size = self.n_rules * self.n_features
        inside = np.abs(theta[size:]) < _LOG_SIGMA_BOUND  # clipped widths do not move
        d_log_sigma *= inside.reshape(self.n_rules, self.n_features)[None]
        n_params = 2 * self.n_rules * self.n_features
        V = np.empty((n_samples, n_outputs, n_params))
        half = n_params // 2
        V[:, :, :half] = np.einsum("jio,jik->joik", A, d_center).reshape(n_samples, n_outputs, -1)
        V[:, :, half:] = np.einsum("jio,jik->joik", A, d_log_sigma).reshape(
            n_samples, n_outputs, -1
        )
        V = V.reshape(n_samples, n_outputs * n_params)
        B = scipy.linalg.cho_solve(self._factor, K.T @ V, check_finite=False)  # M^-1 K^T V
        top = -(V - K @ B).reshape(n_samples * n_outputs, n_params)
        rows = [top, np.sqrt(self.alpha) * B.reshape(-1, n_params)]
        if self.theta0 is not None:
            rows.append(self.root_prior * np.eye(n_params))
        return np.vstack(rows)


def _check_data(rule_base, X, Y, names=("X", "Y")):
    owner = "this rule base"
    X = check_matrix(X, names[0], n_columns=rule_base.n_features, owner=owner)
    Y = check_matrix(Y, names[1], allow_1d=True, column_label="outputs")
    if Y.shape[0] != X.shape[0]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same number of rows; "
            f"got {X.shape[0]} and {Y.shape[0]}."
        )
    return X, Y


def _theta(rule_base, mean, scale):
    centers = (rule_base.centers - mean) / scale
    log_sigmas = np.log(rule_base.sigmas / scale)
    return np.concatenate(
        [centers.ravel(), np.clip(log_sigmas, -_LOG_SIGMA_BOUND, _LOG_SIGMA_BOUND).ravel()]
    )


def variable_projection_residual(rule_base, X, Y, *, order=1, alpha):
    """The variable-projection residual of a rule base's antecedents and its Jacobian.

    For the antecedents of ``rule_base`` (consequents ignored) on ``(X, Y)``:
    the residual ``[Y - K Gamma; -sqrt(alpha) Gamma]`` at the ridge solution
    ``Gamma``, and Kaufman's Jacobian with respect to
    ``theta = [centers.ravel(), log(sigmas).ravel()]`` (see
    :mod:`randomts.fitting.refinement`). Everything is in the units of ``X``.

    Parameters
    ----------
    rule_base : RuleBase
        The antecedents.
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
    order : {0, 1}, default=1
        Consequent order.
    alpha : float
        Ridge penalty, ``> 0``.

    Returns
    -------
    residual : ndarray of shape (n_samples * n_outputs + n_columns * n_outputs,)
        Rows ``(j, o)`` of ``Y - K Gamma``, then rows ``(column, o)`` of
        ``-sqrt(alpha) Gamma``.
    jacobian : ndarray of shape (residual.size, 2 * n_rules * n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (100, 1)); y = np.tanh(3 * X[:, 0])
    >>> rb = RuleBase(centers=[[-0.5], [0.5]], sigmas=[[0.5], [0.5]])
    >>> r, J = variable_projection_residual(rb, X, y, alpha=1e-6)
    >>> r.shape, J.shape
    ((104,), (104, 4))
    >>> bool(np.linalg.norm(J.T @ r) > 0)  # not at a stationary point
    True
    """
    check_rule_base(rule_base, "rule_base")
    X, Y = _check_data(rule_base, X, Y)
    order = check_int_option(order, "order", (0, 1))
    alpha = check_real(alpha, "alpha", low=0.0, low_inclusive=False)
    problem = _Problem(
        X, Y, rule_base.n_rules, normalize=rule_base.normalize, order=order, alpha=alpha
    )
    theta = np.concatenate([rule_base.centers.ravel(), np.log(rule_base.sigmas).ravel()])
    return problem.residual(theta), problem.jacobian(theta)


class _EarlyStop(Exception):
    """Raised inside the optimiser's residual when the held-out error stops improving."""


def _descend(problem, theta0, n_evaluations, *, U_val=None, Y_val=None, patience=None):
    """Levenberg-Marquardt from ``theta0`` for at most ``n_evaluations`` residual evaluations.

    After every evaluation the incumbent (the evaluated ``theta`` of least
    training cost so far: the optimiser's current point) is recorded, with
    its held-out mean squared error when held-out rows are given; ``patience``
    evaluations without a better held-out error stop the descent. Returns
    ``(incumbents, held_out, stopped)``.
    """
    incumbents, held_out = [], []
    state = {"cost": np.inf, "theta": theta0, "mse": np.inf, "best": np.inf, "stale": 0}

    def residual(theta):
        r = problem.residual(theta)
        cost = float(r @ r)
        if cost < state["cost"] or not incumbents:
            state.update(cost=cost, theta=theta.copy())
            if U_val is not None:
                state["mse"] = float(np.mean((problem.predict(theta, U_val) - Y_val) ** 2))
        incumbents.append(state["theta"])
        held_out.append(state["mse"])
        if patience is not None and len(incumbents) < n_evaluations:
            if state["mse"] < state["best"]:
                state.update(best=state["mse"], stale=0)
            else:
                state["stale"] += 1
                if state["stale"] >= patience:
                    raise _EarlyStop
        return r

    stopped = "n_iter"
    if n_evaluations <= 1:
        residual(theta0)
        return incumbents, held_out, stopped
    # MINPACK's Levenberg-Marquardt (a QR of J per step) where it applies: at least as many
    # residuals as parameters (always, with the prior's rows); the trust-region reflective
    # method (an SVD) otherwise. The state at theta0 is cached for the optimiser's first call.
    method = "lm" if problem.residual(theta0).size >= theta0.size else "trf"
    try:
        result = scipy.optimize.least_squares(
            residual,
            theta0,
            jac=problem.jacobian,
            method=method,
            x_scale="jac",
            max_nfev=n_evaluations,
        )
        if result.status != 0:
            stopped = str(result.message)
    except _EarlyStop:
        stopped = "early"
    return incumbents, held_out, stopped


def refine_antecedents(
    rule_base,
    X,
    Y,
    n_iter=20,
    *,
    order=1,
    alpha=None,
    X_val=None,
    Y_val=None,
    validation_fraction=0.2,
    n_folds=None,
    patience=5,
    random_state=None,
    check_input=True,
):
    """Refine the centres and widths of a rule base, consequents re-solved exactly at every step.

    Variable projection (see :mod:`randomts.fitting.refinement`): Levenberg-Marquardt
    (:func:`scipy.optimize.least_squares`, ``method="lm"``; ``"trf"`` when
    there are fewer residuals than parameters) on the centres and log
    widths, with the analytic Jacobian of
    :func:`variable_projection_residual`, on standardised inputs (so that
    steps and the ridge do not depend on the inputs' units). Widths are
    clipped to within a factor ``1e3`` of the inputs' standard deviations.
    A weak prior toward the starting antecedents (a millionth of the
    targets' sum of squares per standard deviation moved, see
    :mod:`randomts.fitting.refinement`) keeps the descent determined where the data
    leave it free, so that the result does not depend on the last bits of
    the inputs.

    The consequents carry a ridge ``alpha`` that shrinks them toward zero,
    or for the weighted average (``normalize=True``, which reproduces a
    constant exactly) toward the targets' mean: the ridge fit of the
    centred targets, plus their mean.

    Guarding against over-fitting: the number of steps is chosen on
    held-out rows. After every evaluation of the residual the optimiser's
    current point (the antecedents of least training cost so far) is scored
    on held-out rows, its consequents fitted on the training rows; the
    descent stops after ``patience`` evaluations without a better held-out
    error, and the point with the best one is kept if its gain over the
    start is beyond the noise of the held-out rows: the mean of the per-row
    decrease of the squared error at least three times its standard error
    (a paired t statistic >= 3: the best of many points on the same rows
    passes a looser test by chance too often). Otherwise, and when no point is better, the
    result has the starting antecedents: it is never worse on the held-out
    rows than the start (with ``n_folds``: in mean held-out error over the
    folds).

    Parameters
    ----------
    rule_base : RuleBase
        Starting antecedents (e.g. from :func:`~randomts.fitting.kmeans.kmeans_antecedents`); its
        consequents are ignored.
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Training targets.
    n_iter : int, default=20
        Most evaluations of the residual (scipy's ``max_nfev``): one per
        trust-region step, accepted or not; 0 only fits the consequents.
    order : {0, 1}, default=1
        Consequent order.
    alpha : float, optional
        Ridge penalty on the consequents (on standardised inputs). None:
        chosen at the starting antecedents on the training rows by exact
        leave-one-out error, on the grid of ``alpha="auto"``
        (:func:`randomts.fitting.ridge.choose_consequent_alpha`, shrinking
        toward zero as the refinement does), then kept fixed.
    X_val, Y_val : array-like, optional
        Held-out rows for early stopping. Given, the consequents of the
        result are fitted on ``(X, Y)`` only.
    validation_fraction : float in (0, 1), default=0.2
        Without ``X_val`` and ``n_folds``: the share of the rows, drawn at
        random, held out while refining; the final consequents are fitted
        on all rows.
    n_folds : int, optional
        Instead of one held-out share, K-fold cross-validation (shuffled):
        the descent runs on each fold's training rows, the number of
        evaluations of least mean held-out error over the folds is chosen
        (the start, if none is better), and the descent runs that many
        evaluations on all rows. ``n_folds + 1`` descents, a steadier choice
        on few rows.
    patience : int, default=5
        Evaluations without a better held-out error before stopping.
    random_state : int, RandomState, Generator or None
        Seed of the held-out split or of the folds.
    check_input : bool, default=True
        False for checked rows: ``X`` and a 2-D ``Y`` finite float64 arrays
        of matching rows (the held-out rows, when given, are checked anyway).

    Returns
    -------
    RuleBase
        The refined antecedents with their consequents, in the units of
        ``X``, names of ``rule_base``. Its metadata hold a ``"refinement"``
        record: ``alpha``, ``n_evaluations`` (of the descent that gave the
        result), ``stopped`` (``"early"``, ``"n_iter"`` or scipy's
        convergence message), ``n_folds`` (1 for one held-out set) and the
        held-out mean squared errors ``validation_mse_start`` and
        ``validation_mse_end`` (means over the folds with ``n_folds``).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> from randomts.fitting.kmeans import kmeans_antecedents
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(400, 1)); y = np.sin(X[:, 0]) + 0.05 * rng.normal(size=400)
    >>> start = RuleBase(*kmeans_antecedents(X, 3, random_state=0))
    >>> refined = refine_antecedents(start, X, y, n_iter=30, random_state=0)
    >>> len(refined), refined.order
    (3, 1)
    >>> record = refined.metadata["refinement"]
    >>> bool(record["validation_mse_end"] <= record["validation_mse_start"])
    True
    """
    if check_input:
        check_rule_base(rule_base, "rule_base")
        X, Y = _check_data(rule_base, X, Y)
    n_iter = check_int(n_iter, "n_iter", low=0)
    order = check_int_option(order, "order", (0, 1))
    patience = check_int(patience, "patience", low=1)
    if alpha is not None:
        alpha = check_real(alpha, "alpha", low=0.0, low_inclusive=False)
    X_train, Y_train, splits = _held_out_splits(
        rule_base,
        X,
        Y,
        X_val,
        Y_val,
        validation_fraction,
        n_folds,
        check_random_state(random_state),
    )
    scaling = Standardisation.of(X)
    U_all = scaling.apply(X_train)
    theta0 = _theta(rule_base, scaling.mean, scaling.scale)
    if alpha is None:
        alpha = _starting_alpha(rule_base, theta0, U_all, Y_train, splits[0][0], order)

    def problem_on(rows):
        return _Problem(
            U_all[rows],
            Y_train[rows],
            rule_base.n_rules,
            normalize=rule_base.normalize,
            order=order,
            alpha=alpha,
            center=rule_base.normalize,
            theta0=theta0,
        )

    n_evaluations = max(n_iter, 1)
    curves, runs = [], []
    for train, val in splits:
        incumbents, held_out, stopped = _descend(
            problem_on(train),
            theta0,
            n_evaluations,
            U_val=U_all[val],
            Y_val=Y_train[val],
            patience=patience,
        )
        runs.append((incumbents, stopped))
        curves.append(held_out + held_out[-1:] * (n_evaluations - len(held_out)))
    curve = np.mean(curves, axis=0)
    chosen = _chosen_evaluation(curve, splits, runs, problem_on, theta0, U_all, Y_train)
    if len(splits) == 1:
        incumbents, stopped = runs[0]
        theta, used = incumbents[min(chosen, len(incumbents) - 1)], len(incumbents)
        final_rows = np.arange(U_all.shape[0]) if X_val is None else splits[0][0]
    else:  # that many evaluations on all rows
        final_rows = np.arange(X.shape[0])
        incumbents, _, stopped = _descend(problem_on(final_rows), theta0, chosen + 1)
        theta, used = incumbents[-1], len(incumbents)
        if chosen + 1 < n_evaluations:
            stopped = "early"
    refined = _with_consequents(rule_base, problem_on(final_rows), theta, Y.shape[1], order)
    metadata = rule_base.metadata
    metadata["refinement"] = {
        "alpha": float(alpha),
        "n_evaluations": int(used),
        "stopped": stopped,
        "n_folds": len(splits),
        "validation_mse_start": float(curve[0]),
        "validation_mse_end": float(curve[chosen]),
    }
    output_names = rule_base.output_names if Y.shape[1] == rule_base.n_outputs else None
    return refined.in_original_units(scaling.mean, scaling.scale, check_input=False).replace(
        input_names=rule_base.input_names,
        output_names=output_names,
        metadata=metadata,
        check_input=False,
    )


def _held_out_splits(rule_base, X, Y, X_val, Y_val, validation_fraction, n_folds, rng):
    """``(X_train, Y_train, splits)``: the rows refined on and the ``(train, held-out)`` splits.

    One share of the rows held out at random, ``n_folds`` shuffled folds, or
    the given held-out rows (appended to the training rows).
    """
    if (X_val is None) != (Y_val is None):
        raise ValueError("Give both X_val and Y_val, or neither.")
    n_samples = X.shape[0]
    if n_folds is not None:
        n_folds = check_int(n_folds, "n_folds", low=2)
        if X_val is not None:
            raise ValueError("Give n_folds or X_val and Y_val, not both.")
        if n_samples < n_folds or n_samples - -(-n_samples // n_folds) < 2:
            raise ValueError(
                f"n_folds={n_folds} folds need at least {n_folds} rows and 2 training rows in "
                f"each fold; got {n_samples} rows. Give more rows or fewer folds."
            )
        splits = KFold(n_folds, shuffle=True, random_state=rng.randint(2**31 - 1)).split(X)
        return X, Y, [(train, val) for train, val in splits]
    if X_val is None:
        fraction = check_real(
            validation_fraction, "validation_fraction", low=0.0, low_inclusive=False
        )
        if fraction >= 1.0:
            raise ValueError(
                f"The 'validation_fraction' parameter must be in (0, 1). Got {fraction!r} instead."
            )
        n_val = int(round(fraction * n_samples))
        if n_val < 1 or n_val > n_samples - 2:
            raise ValueError(
                f"validation_fraction={fraction!r} of {n_samples} rows leaves no held-out rows or "
                "fewer than 2 training rows; give more rows, another fraction or X_val and Y_val."
            )
        order_of_rows = rng.permutation(n_samples)
        return X, Y, [(order_of_rows[n_val:], order_of_rows[:n_val])]
    X_val, Y_val = _check_data(rule_base, X_val, Y_val, names=("X_val", "Y_val"))
    if Y_val.shape[1] != Y.shape[1]:
        raise ValueError(f"Y_val must have the {Y.shape[1]} outputs of Y; got {Y_val.shape[1]}.")
    # the given held-out rows follow the training rows
    held_out = np.arange(n_samples, n_samples + X_val.shape[0])
    return np.vstack([X, X_val]), np.vstack([Y, Y_val]), [(np.arange(n_samples), held_out)]


def _starting_alpha(rule_base, theta0, U, Y, train, order):
    """The penalty of least leave-one-out error at the starting antecedents, on the training rows.

    Shrinking toward zero as the refinement does (the weighted average's
    targets centred: it reproduces their mean exactly).
    """
    n_rules, n_features = rule_base.n_rules, rule_base.n_features
    start = _antecedents_like(rule_base, *_unpack(theta0, n_rules, n_features), Y.shape[1])
    centred = Y[train] - (Y[train].mean(axis=0) if rule_base.normalize else 0.0)
    return choose_consequent_alpha(
        start, U[train], centred, order=order, toward_mean=False, check_input=False
    ).alpha


def _chosen_evaluation(curve, splits, runs, problem_on, theta0, U, Y):
    """The evaluation kept: the first of least held-out error, if beyond the held-out rows' noise.

    A later point replaces the start only when the mean of the per-row
    decrease of the squared error is at least :data:`_MIN_T_STATISTIC`
    times its standard error; otherwise 0 (the start).
    """
    chosen = int(np.argmin(curve))  # the first of the least: the start if nothing is better
    if chosen == 0:
        return 0
    gains = []
    for (train, val), (incumbents, _) in zip(splits, runs, strict=True):
        problem = problem_on(train)
        theta = incumbents[min(chosen, len(incumbents) - 1)]
        before = np.sum((problem.predict(theta0, U[val]) - Y[val]) ** 2, axis=1)
        after = np.sum((problem.predict(theta, U[val]) - Y[val]) ** 2, axis=1)
        gains.append(before - after)
    gains = np.concatenate(gains)
    spread = gains.std(ddof=1) / np.sqrt(gains.size) if gains.size > 1 else 0.0
    return chosen if gains.mean() > _MIN_T_STATISTIC * spread else 0


def _with_consequents(rule_base, final, theta, n_outputs, order):
    """The antecedents ``theta`` with their consequents fitted on the rows of ``final``.

    The weighted average reproduces the mean exactly: its consequents are
    the ridge fit of the centred targets, which the descent solved at
    ``theta``, plus their mean; the weighted sum's are fitted again.
    """
    centers, sigmas = final.unpack(theta)
    refined = _antecedents_like(rule_base, centers, sigmas, n_outputs)
    if rule_base.normalize:
        coef, intercept = split_coefficients(
            final.state(theta)[4], rule_base.n_rules, rule_base.n_features, order=order
        )
        return refined.replace(coef=coef, intercept=intercept + final.offset, check_input=False)
    return consequent_fit(
        refined,
        final.U,
        final.Y,
        order=order,
        alpha=final.alpha,
        solver="cholesky",
        check_input=False,
    ).rule_base
