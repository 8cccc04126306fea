"""The steps of free runs of a NARX rule base, in NumPy: what ``_runs`` compiles.

:func:`run_steps` does the arithmetic of the compiled kernel
``randomts.dynamics._runs`` (see it for the arguments), vectorised over the
segments instead of looped; :mod:`randomts.dynamics.simulation_fit` runs it when
the kernel was not built. The two agree to rounding (the order of some sums
differs).
"""

from __future__ import annotations

import numpy as np

from randomts.dynamics.polynomial import power_slopes, power_values

__all__ = ["run_steps"]


def run_steps(
    Y,
    Zu,
    centers,
    inverse_variances,
    mean,
    scale,
    state_lags,
    state_outputs,
    previous,
    power_sources,
    power_exponents,
    power_mean,
    power_scale,
    gammas,
    owner,
    lag,
    horizon,
    normalize,
    order,
    S,
    sensitivities,
    antecedents=False,
    *scratch,
):
    """Run every segment of ``Y`` ``horizon`` steps from its first ``lag`` outputs, in place.

    The arguments of ``randomts.dynamics._runs.run_steps`` (its scratch
    arrays are not used).

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.ones((1, 3, 1))  # y(k) = 0.5 y(k-1): one rule of a weighted average
    >>> none, no_powers = np.array([], dtype=int), np.zeros((0, 1), dtype=int)
    >>> run_steps(Y, np.empty((1, 2, 0)), np.zeros((1, 1, 1)), np.ones((1, 1, 1)), np.zeros(1),
    ...           np.ones(1), np.array([1]), np.array([0]), none, no_powers, no_powers, np.empty(0),
    ...           np.empty(0), np.array([[[0.5], [0.0]]]), np.array([0]), 1, 2, True, 1, None, False)
    >>> Y.ravel().tolist()
    [1.0, 0.5, 0.25]
    """
    n_segments, _, n_outputs = Y.shape
    n_rules, n_features = centers.shape[1:]
    ns = state_lags.size
    n_powers = power_sources.shape[0]
    nu = n_features - ns - n_powers
    q = gammas.shape[1]
    rows_gamma = gammas[owner]  # (n, q, m)
    rows_centers, rows_inverse = centers[owner], inverse_variances[owner]  # (n, rules, features)
    p = n_features + 1 if order == 1 else 1
    blocks = rows_gamma.reshape(n_segments, n_rules, p, n_outputs)
    Z = np.empty((n_segments, n_features + 1))
    Z[:, n_features] = 1.0
    if sensitivities:  # the first lag outputs, measured, have none: zero rows before the run's
        padded = np.zeros((n_segments, lag + horizon, *S.shape[2:]))
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        for k in range(lag, lag + horizon):
            step = k - lag
            xs = Y[:, k - state_lags, state_outputs]  # (n, n_state)
            Z[:, :ns] = (xs - mean) / scale
            Z[:, ns : ns + nu] = Zu[:, step]
            powers = power_values(xs, power_sources, power_exponents)
            Z[:, ns + nu : n_features] = (powers - power_mean) / power_scale
            difference = Z[:, None, :n_features] - rows_centers  # (n, rules, features)
            log_w = -0.5 * np.einsum("nrd,nrd->nr", difference * difference, rows_inverse)
            if normalize:
                top = log_w.max(axis=1, keepdims=True)
                top[~np.isfinite(top)] = 0.0
                w = np.exp(log_w - top)
                w /= w.sum(axis=1, keepdims=True)
            else:
                w = np.exp(log_w)
            if order == 1:
                K = (w[:, :, None] * Z[:, None, :]).reshape(n_segments, n_rules * p)
            else:
                K = w
            f = np.einsum("nq,nqm->nm", K, rows_gamma)
            Y[:, k] = f if previous.size == 0 else f + xs[:, previous]
            if not sensitivities:
                continue
            if order == 1:
                rule_outputs = np.einsum("nd,nrdm->nrm", Z, blocks)
            else:
                rule_outputs = blocks[:, :, 0, :]
            if normalize:
                rule_outputs = rule_outputs - f[:, None, :]
            # d f / d z of the state and power columns, then d z / d x of the state
            fed = np.r_[np.arange(ns), np.arange(ns + nu, n_features)]
            derivative = -difference[:, :, fed] * rows_inverse[:, :, fed]  # d log w / d z
            J = np.einsum("nr,nrm,nrd->nmd", w, rule_outputs, derivative)
            if order == 1:
                J += np.einsum("nr,nrdm->nmd", w, blocks[:, :, fed, :])
            J, J_powers = J[:, :, :ns] / scale, J[:, :, ns:]
            if n_powers:
                chain = power_slopes(xs, power_sources, power_exponents)  # (n, powers, factors)
                for column in range(n_powers):
                    for factor in range(power_sources.shape[1]):
                        if power_exponents[column, factor]:
                            J[:, :, power_sources[column, factor]] += (
                                J_powers[:, :, column]
                                * (chain[:, column, factor] / power_scale[column])[:, None]
                            )
            dX = padded[:, k - state_lags, state_outputs]  # (n, n_state, params)
            dY = np.matmul(J, dX)
            for m in range(n_outputs):
                dY[:, m, m * q : (m + 1) * q] += K
            if antecedents:  # d f / d log w_r times d log w_r / d c_rj and / d log sigma_rj
                moved = np.einsum("nr,nrm,nrd->nmrd", w, rule_outputs, difference * rows_inverse)
                widths = q * n_outputs + n_rules * n_features
                dY[:, :, q * n_outputs : widths] += moved.reshape(n_segments, n_outputs, -1)
                dY[:, :, widths:] += (moved * difference[:, None]).reshape(
                    n_segments, n_outputs, -1
                )
            if previous.size:
                dY += dX[:, previous]
            padded[:, k] = dY
    if sensitivities:
        S[...] = padded[:, lag:]
