# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The steps of free runs of a NARX rule base, and their sensitivities, compiled.

A run advances one step at a time, every step a few small operations per
segment: in NumPy each is a call whose overhead is most of its cost. This loop
does the same arithmetic (that of :class:`randomts.dynamics.simulation_fit.SimulationProblem`,
which documents it and checks its arguments) without those calls, with the GIL
released.
"""

from libc.math cimport exp, INFINITY


def run_steps(
    double[:, :, ::1] Y,
    const double[:, :, ::1] Zu,
    const double[:, ::1] centers,
    const double[:, ::1] inverse_variances,
    const double[::1] mean,
    const double[::1] scale,
    const Py_ssize_t[::1] state_lags,
    const Py_ssize_t[::1] state_outputs,
    const Py_ssize_t[::1] previous,
    const double[:, :, ::1] gammas,
    const Py_ssize_t[::1] owner,
    int lag,
    int horizon,
    bint normalize,
    int order,
    double[:, :, :, ::1] S,
    bint sensitivities,
    double[::1] z,
    double[::1] log_w,
    double[::1] K,
    double[::1] f,
    double[:, ::1] J,
    double[:, ::1] rule_outputs,
):
    """Run every segment of ``Y`` ``horizon`` steps from its first ``lag`` outputs, in place.

    ``Y`` (n, lag + horizon, m): outputs written after ``lag``. ``Zu`` (n,
    horizon, n_input_columns): the standardised input columns of every step.
    ``centers``, ``inverse_variances`` (rules, n_features) standardised; the
    first ``n_state`` regressor columns are the lagged outputs ``state_outputs``
    at ``state_lags``, standardised by ``mean`` and ``scale`` (n_state,).
    ``previous`` (m or 0): the state column of every output's ``y(k-1)``,
    added back to the model's increment. ``gammas`` (g, q, m), ``owner`` (n,):
    the consequents of every segment. With ``sensitivities``, ``S`` (n, lag +
    horizon, m, q m) receives the derivatives of every output with respect to
    the segment's consequents (its first ``lag`` steps zero). The last six
    arguments are scratch: ``z`` (n_features + 1), ``log_w`` (rules), ``K``
    (q), ``f`` (m), ``J`` (m, n_state), ``rule_outputs`` (rules, m).
    """
    cdef Py_ssize_t n = Y.shape[0], m = Y.shape[2]
    cdef Py_ssize_t n_rules = centers.shape[0], n_features = centers.shape[1]
    cdef Py_ssize_t ns = state_lags.shape[0], nu = n_features - ns
    cdef Py_ssize_t q = gammas.shape[1], p = n_features + 1 if order == 1 else 1
    cdef Py_ssize_t n_params = q * m
    cdef bint increments = previous.shape[0] > 0
    cdef Py_ssize_t i, k, step, r, j, o, c, g, a, base
    cdef double top, total, value, difference, weight, out
    with nogil:
        for i in range(n):
            g = owner[i]
            for k in range(lag, lag + horizon):
                step = k - lag
                for j in range(ns):
                    z[j] = (Y[i, k - state_lags[j], state_outputs[j]] - mean[j]) / scale[j]
                for j in range(nu):
                    z[ns + j] = Zu[i, step, j]
                z[n_features] = 1.0
                top = -INFINITY
                for r in range(n_rules):
                    total = 0.0
                    for j in range(n_features):
                        difference = z[j] - centers[r, j]
                        total -= 0.5 * difference * difference * inverse_variances[r, j]
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
                        total = 0.0
                        for r in range(n_rules):
                            weight = log_w[r]
                            value = -(z[j] - centers[r, j]) * inverse_variances[r, j]
                            value = rule_outputs[r, o] * value
                            if order == 1:
                                value = value + gammas[g, r * p + j, o]
                            total = total + weight * value
                        J[o, j] = total / scale[j]
                for o in range(m):
                    for a in range(n_params):
                        total = 0.0
                        for j in range(ns):
                            total = total + J[o, j] * S[i, k - state_lags[j], state_outputs[j], a]
                        S[i, k, o, a] = total
                    for c in range(q):
                        S[i, k, o, o * q + c] += K[c]
                    if increments:
                        j = previous[o]
                        for a in range(n_params):
                            S[i, k, o, a] += S[i, k - state_lags[j], state_outputs[j], a]
