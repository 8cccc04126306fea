# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The steps of free runs of a NARX rule base, and their sensitivities, compiled.

A run advances one step at a time, every step a few small operations per
segment: in NumPy each is a call whose overhead is most of its cost. This loop
does the same arithmetic (that of :class:`randomts.dynamics.simulation_fit.SimulationProblem`,
which documents it and checks its arguments) without those calls, with the GIL
released.
"""

from libc.math cimport exp, pow, INFINITY


cdef inline double _slope(
    Py_ssize_t j,
    Py_ssize_t o,
    Py_ssize_t g,
    const double[::1] z,
    const double[:, :, ::1] centers,
    const double[:, :, ::1] inverse_variances,
    const double[:, :, ::1] gammas,
    const double[::1] weights,
    const double[:, ::1] rule_outputs,
    Py_ssize_t p,
    bint linear,
) noexcept nogil:
    """d f / d z_j of output ``o``: sum_r w_r (y_r d_rj + A_rj), ``y_r`` less f if averaged."""
    cdef double total = 0.0, value
    cdef Py_ssize_t r
    for r in range(centers.shape[1]):
        value = -(z[j] - centers[g, r, j]) * inverse_variances[g, r, j]
        value = rule_outputs[r, o] * value
        if linear:
            value = value + gammas[g, r * p + j, o]
        total = total + weights[r] * value
    return total


cdef inline double _power(
    const double[:, ::1] table,
    const Py_ssize_t[:, ::1] sources,
    const Py_ssize_t[:, ::1] exponents,
    Py_ssize_t t,
    Py_ssize_t skip,
) noexcept nogil:
    """Power column ``t``: its factors' powers (``table``) multiplied in order, but factor ``skip``."""
    cdef double x = 1.0
    cdef Py_ssize_t b
    for b in range(sources.shape[1]):
        if b == skip or exponents[t, b] == 0:
            continue
        x = x * table[sources[t, b], exponents[t, b]]
    return x


def run_steps(
    double[:, :, ::1] Y,
    const double[:, :, ::1] Zu,
    const double[:, :, ::1] centers,
    const double[:, :, ::1] inverse_variances,
    const double[::1] mean,
    const double[::1] scale,
    const Py_ssize_t[::1] state_lags,
    const Py_ssize_t[::1] state_outputs,
    const Py_ssize_t[::1] previous,
    const Py_ssize_t[:, ::1] power_sources,
    const Py_ssize_t[:, ::1] power_exponents,
    const double[::1] power_mean,
    const double[::1] power_scale,
    const double[:, :, ::1] gammas,
    const Py_ssize_t[::1] owner,
    int lag,
    int horizon,
    bint normalize,
    int order,
    double[:, :, :, ::1] S,
    bint sensitivities,
    bint antecedents,
    double[::1] z,
    double[::1] log_w,
    double[::1] K,
    double[::1] f,
    double[:, ::1] J,
    double[:, ::1] rule_outputs,
    double[:, ::1] table,
):
    """Run every segment of ``Y`` ``horizon`` steps from its first ``lag`` outputs, in place.

    ``Y`` (n, lag + horizon, m): outputs written after ``lag``. ``Zu`` (n,
    horizon, n_input_columns): the standardised input columns of every step.
    ``centers``, ``inverse_variances`` (g, rules, n_features) standardised, of
    every segment as ``owner`` says; the
    first ``n_state`` regressor columns are the lagged outputs ``state_outputs``
    at ``state_lags``, standardised by ``mean`` and ``scale`` (n_state,).
    ``previous`` (m or 0): the state column of every output's ``y(k-1)``,
    added back to the model's increment. The last ``n_powers`` regressor
    columns, after the inputs, are products over their factors of state
    columns ``power_sources`` raised to ``power_exponents`` (n_powers,
    n_factors; exponent 0 for a factor unused), standardised by
    ``power_mean`` and ``power_scale``.
    ``gammas`` (g, q, m), ``owner`` (n,):
    the consequents of every segment. With ``sensitivities``, ``S`` (n,
    horizon, m, q m) receives the derivatives of every output of the run's
    steps with respect to the segment's consequents (those of the first
    ``lag`` outputs, measured, are zero and not stored: their terms are
    left out of the sums, which for finite derivatives leaves the same
    numbers); with ``antecedents`` too, after them, with respect to the
    centres (rules x n_features, row by row) and then the logarithms of the
    widths. The last seven
    arguments are scratch: ``z`` (n_features + 1), ``log_w`` (rules), ``K``
    (q), ``f`` (m), ``J`` (m, n_state), ``rule_outputs`` (rules, m),
    ``table`` (n_state, the largest exponent + 1: every state column's powers).
    """
    cdef Py_ssize_t n = Y.shape[0], m = Y.shape[2]
    cdef Py_ssize_t n_rules = centers.shape[1], n_features = centers.shape[2]
    cdef Py_ssize_t ns = state_lags.shape[0], n_powers = power_sources.shape[0]
    cdef Py_ssize_t nu = n_features - ns - n_powers
    cdef Py_ssize_t q = gammas.shape[1], p = n_features + 1 if order == 1 else 1
    cdef Py_ssize_t n_params = q * m + (2 * n_rules * n_features if antecedents else 0)
    cdef Py_ssize_t widths = q * m + n_rules * n_features
    cdef bint increments = previous.shape[0] > 0
    cdef bint one_rule = normalize and n_rules == 1
    cdef Py_ssize_t n_factors = power_sources.shape[1]
    cdef Py_ssize_t i, k, step, r, j, o, c, g, a, base, t, e, b
    cdef double top, total, value, difference, weight, out, x
    with nogil:
        for i in range(n):
            g = owner[i]
            for k in range(lag, lag + horizon):
                step = k - lag
                for j in range(ns):
                    z[j] = (Y[i, k - state_lags[j], state_outputs[j]] - mean[j]) / scale[j]
                for j in range(nu):
                    z[ns + j] = Zu[i, step, j]
                if n_powers:
                    for j in range(ns):
                        x = Y[i, k - state_lags[j], state_outputs[j]]
                        table[j, 0] = 1.0  # pow(x, 0) and pow(x, 1), exactly
                        table[j, 1] = x
                        for e in range(2, table.shape[1]):
                            table[j, e] = pow(x, <double>e)
                for t in range(n_powers):
                    x = _power(table, power_sources, power_exponents, t, -1)
                    z[ns + nu + t] = (x - power_mean[t]) / power_scale[t]
                z[n_features] = 1.0
                if one_rule:
                    # the one rule of a weighted average weighs exp(0) / exp(0) = 1 wherever
                    # the inputs are: a linear (or polynomial) model, no distance to compute
                    log_w[0] = 1.0
                else:
                    top = -INFINITY
                    for r in range(n_rules):
                        total = 0.0
                        for j in range(n_features):
                            difference = z[j] - centers[g, r, j]
                            total -= 0.5 * difference * difference * inverse_variances[g, r, j]
                        log_w[r] = total
                        if total > top:
                            top = total
                    if normalize:
                        if top == -INFINITY or top != top:
                            top = 0.0
                        total = 0.0
                        for r in range(n_rules):
                            log_w[r] = exp(log_w[r] - top)
                            total += log_w[r]
                        for r in range(n_rules):
                            log_w[r] = log_w[r] / total
                    else:
                        for r in range(n_rules):
                            log_w[r] = exp(log_w[r])
                # log_w holds the weights from here on; K the design row
                for r in range(n_rules):
                    weight = log_w[r]
                    base = r * p
                    if order == 1:
                        for j in range(p):
                            K[base + j] = weight * z[j]
                    else:
                        K[base] = weight
                for o in range(m):
                    out = 0.0
                    for c in range(q):
                        out = out + K[c] * gammas[g, c, o]
                    f[o] = out
                    if increments:
                        Y[i, k, o] = out + Y[i, k - state_lags[previous[o]], state_outputs[previous[o]]]
                    else:
                        Y[i, k, o] = out
                if not sensitivities:
                    continue
                # rule outputs y_r (less f for a weighted average)
                for r in range(n_rules):
                    base = r * p
                    for o in range(m):
                        if order == 1:
                            out = 0.0
                            for j in range(p):
                                out = out + z[j] * gammas[g, base + j, o]
                        else:
                            out = gammas[g, base, o]
                        rule_outputs[r, o] = out - f[o] if normalize else out
                # J = d f / d x of the state columns: sum_r w_r (y_r d_r + A_r) / scale
                for o in range(m):
                    for j in range(ns):
                        total = _slope(j, o, g, z, centers, inverse_variances, gammas, log_w,
                                       rule_outputs, p, order == 1)
                        J[o, j] = total / scale[j]
                    # a power column's derivative, through d z / d x of its factors' state columns
                    for t in range(n_powers):
                        total = _slope(ns + nu + t, o, g, z, centers, inverse_variances, gammas,
                                       log_w, rule_outputs, p, order == 1)
                        for b in range(n_factors):
                            e = power_exponents[t, b]
                            if e == 0:
                                continue
                            c = power_sources[t, b]
                            x = e * table[c, e - 1] * _power(
                                table, power_sources, power_exponents, t, b)
                            J[o, c] += total * x / power_scale[t]
                for o in range(m):
                    # sum_j J[o, j] S(state column j), state column by state column: the same
                    # sums in the same order, along contiguous rows; a column of the measured
                    # first outputs has no sensitivity (its term would add zeros)
                    for a in range(n_params):
                        S[i, step, o, a] = 0.0
                    for j in range(ns):
                        c = step - state_lags[j]
                        if c < 0:
                            continue
                        value = J[o, j]
                        r = state_outputs[j]
                        for a in range(n_params):
                            S[i, step, o, a] = S[i, step, o, a] + value * S[i, c, r, a]
                    for c in range(q):
                        S[i, step, o, o * q + c] += K[c]
                    if antecedents:
                        # d f / d log w_r = w_r y_r (y_r less f if averaged), times d log w_r
                        # / d c_rj = (z_j - c_rj) / sigma_rj^2 and / d log sigma_rj, that
                        # times (z_j - c_rj)
                        for r in range(n_rules):
                            weight = log_w[r] * rule_outputs[r, o]
                            base = q * m + r * n_features
                            for j in range(n_features):
                                difference = z[j] - centers[g, r, j]
                                value = weight * difference * inverse_variances[g, r, j]
                                S[i, step, o, base + j] += value
                                S[i, step, o, widths + r * n_features + j] += value * difference
                    if increments:
                        j = previous[o]
                        c = step - state_lags[j]
                        if c >= 0:
                            for a in range(n_params):
                                S[i, step, o, a] += S[i, c, state_outputs[j], a]
