"""The inference kernel: outputs of Gaussian rules joined by the product, in blocks of rows.

The one kernel of randomts: :meth:`randomts.RuleBase.predict` runs it, and so
does a :class:`randomts.FuzzySystem` of the rule base's shape.
"""

from __future__ import annotations

import numpy as np

from randomts._threads import effective_n_jobs, parallel_map, scratch
from randomts.core.membership import BLOCK_ELEMENTS, _log_strengths_block, firing_strengths

__all__ = ["inference_constants", "predict", "rule_base_jacobian"]

# Elements of the largest (chunk, n_rules, n_features) work array of the Jacobian.
_CHUNK_ELEMENTS = 1 << 21

# Blocks of rows per predict thread, at least: fewer are not worth a thread's start-up.
_MIN_BLOCKS_PER_THREAD = 4
# Units of blocks per predict thread, at least, handed out as the threads ask for them.
_UNITS_PER_THREAD = 2
# Entries of W @ theta kept before they are combined with the inputs into outputs: the
# combination is a few small array operations, whose calls cost as much as their arithmetic
# when made block by block (0.2 ms of a 3.7 ms predict at N = 10^4, h = 100, n = 2).
_COMBINE_ELEMENTS = 1 << 16


def inference_constants(coef, intercept, sigmas):
    """``(linear, theta, 1 / sigmas, n_outputs)`` for :func:`predict`, computed once per rule base.

    ``theta`` is ``intercept`` for constant consequents; for linear ones it
    stacks every output's slopes and constant, laid out (input k, output), so
    that one GEMM per block, ``W @ theta``, gives all of them and each input's
    slice is one strided view.

    Examples
    --------
    >>> import numpy as np
    >>> linear, theta, inv, n_outputs = inference_constants(
    ...     np.ones((3, 2, 4)), np.zeros((3, 2)), np.full((3, 4), 0.5))
    >>> linear, theta.shape, float(inv[0, 0]), n_outputs
    (True, (3, 10), 2.0, 2)
    """
    n_rules, n_outputs = intercept.shape
    linear = bool(np.any(coef))
    if linear:
        theta = np.concatenate([coef, intercept[:, :, None]], axis=2)
        theta = theta.transpose(0, 2, 1).reshape(n_rules, -1)
    else:
        theta = intercept
    return linear, _frozen(theta), _frozen(1.0 / sigmas), n_outputs


def _frozen(array):
    array = np.array(array, dtype=float, copy=True, order="C")
    array.setflags(write=False)
    return array


def predict(X, centers, sigmas, constants, *, normalize, n_jobs=None):
    """Takagi-Sugeno inference of Gaussian rules with the product, in blocks of rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite inputs, float64.
    centers, sigmas : ndarray of shape (n_rules, n_features)
        The rules' Gaussian sets.
    constants : tuple
        ``inference_constants(coef, intercept, sigmas)``, computed once per rule base.
    normalize : bool
        Weighted average (True) or weighted sum (False).
    n_jobs : int, optional
        Threads computing blocks of rows at once; the output does not depend on it.

    Returns
    -------
    ndarray of shape (n_samples, n_outputs)

    Examples
    --------
    >>> import numpy as np
    >>> c, s = np.array([[0.0], [2.0]]), np.ones((2, 1))
    >>> k = inference_constants(np.zeros((2, 1, 1)), np.array([[1.0], [5.0]]), s)
    >>> predict(np.array([[1.0]]), c, s, k, normalize=True)
    array([[3.]])
    """
    n_samples, n_features = X.shape
    linear, theta, inv_sigmas, n_outputs = constants
    n_rules = centers.shape[0]
    Y = np.empty((n_samples, n_outputs))
    # Blocks of BLOCK_ELEMENTS strengths, in buffers reused across blocks so that the
    # strengths and the GEMM's output stay in cache. With n_jobs threads, units of whole
    # blocks are handed out to threads as they ask (NumPy releases the GIL in its loops
    # and GEMMs); each row's arithmetic is the same whatever the threads, so the output is too.
    step = max(1, min(n_samples, BLOCK_ELEMENTS // n_rules))
    n_blocks = -(-n_samples // step)
    n_threads = 1
    if n_blocks >= 2 * _MIN_BLOCKS_PER_THREAD:  # small inputs (a free run's steps): no query
        n_threads = max(1, min(effective_n_jobs(n_jobs), n_blocks // _MIN_BLOCKS_PER_THREAD))

    # A unit: blocks whose rows of W @ theta are combined into outputs at once, and
    # with several threads at most a share of 1 / (_UNITS_PER_THREAD * n_threads), so
    # that a thread slowed by a busy core leaves its part to the others.
    unit_blocks = max(1, _COMBINE_ELEMENTS // (step * theta.shape[1]))
    if n_threads > 1:
        unit_blocks = max(1, min(unit_blocks, n_blocks // (_UNITS_PER_THREAD * n_threads)))
    unit_rows = unit_blocks * step

    def run(unit):  # in whichever thread asks for the unit
        with np.errstate(over="ignore"):  # (per thread) an overflow gives w = 0: exact
            # buffers of the thread, reused by all its blocks (and by its next call)
            strengths = scratch("predict strengths", (step, n_rules))
            work = scratch("predict work", (step, n_rules))
            mixed = scratch("predict mixed", (min(unit_rows, n_samples), theta.shape[1]))
            total = scratch("predict total", (mixed.shape[0],))
            term = scratch("predict term", (mixed.shape[0],))
            unit_start = unit * unit_rows
            unit_stop = min(unit_start + unit_rows, n_samples)
            for start in range(unit_start, unit_stop, step):
                rows = slice(start, min(start + step, n_samples))
                Xc = X[rows]
                m = Xc.shape[0]
                if normalize:
                    W = firing_strengths(Xc, centers, sigmas, normalize=True)
                else:
                    W = strengths[:m]
                    _log_strengths_block(Xc, centers, inv_sigmas, W, work[:m])
                    np.exp(W, out=W)
                if linear:
                    offset = start - unit_start
                    np.matmul(W, theta, out=mixed[offset : offset + m])
                else:
                    np.matmul(W, theta, out=Y[rows])
            if linear:
                _combine(mixed, X, Y, unit_start, unit_stop, total, term)

    def _combine(mixed, X, Y, start, stop, total, term):
        """``Y[start:stop] = W beta + sum_k x_k (W alpha_k)`` from ``mixed = W @ theta``.

        Output by output, over whole columns: operations on the (rows, n_outputs)
        views would run NumPy's inner loops n_outputs long, 4x slower (measured).
        """
        m = stop - start
        total, term, Xc = total[:m], term[:m], X[start:stop]
        for o in range(n_outputs):
            np.copyto(total, mixed[:m, n_features * n_outputs + o])
            for k in range(n_features):
                total += np.multiply(mixed[:m, k * n_outputs + o], Xc[:, k], out=term)
            Y[start:stop, o] = total

    parallel_map(run, -(-n_blocks // unit_blocks), n_threads)
    return Y


def rule_base_jacobian(X, centers, sigmas, coef, intercept, *, normalize=False):
    """Jacobian of a Takagi-Sugeno output with respect to its inputs (pure, over arrays).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Points.
    centers, sigmas : ndarray of shape (n_rules, n_features)
        Gaussian antecedents.
    coef : ndarray of shape (n_rules, n_outputs, n_features)
        Consequent slopes.
    intercept : ndarray of shape (n_rules, n_outputs)
        Consequent constants.
    normalize : bool, default=False
        Weighted average (True) or weighted sum (False).

    Returns
    -------
    ndarray of shape (n_samples, n_outputs, n_features)
        ``J[j, m, k] = d f_m / d x_k`` at ``X[j]``.

    Examples
    --------
    >>> import numpy as np
    >>> # f(x) = exp(-x^2 / 2) (2 x + 1): f'(0) = 2
    >>> rule_base_jacobian(np.array([[0.0]]), np.zeros((1, 1)), np.ones((1, 1)),
    ...                    np.array([[[2.0]]]), np.array([[1.0]]))
    array([[[2.]]])
    """
    n_samples, n_features = X.shape
    n_rules, n_outputs = intercept.shape
    J = np.empty((n_samples, n_outputs, n_features))
    inverse_variances = 1.0 / (sigmas * sigmas)
    step = max(1, _CHUNK_ELEMENTS // (n_rules * (n_features + n_outputs)))
    for start in range(0, n_samples, step):
        Xc = X[start : start + step]
        W = firing_strengths(Xc, centers, sigmas, normalize=normalize)
        D = (centers[None, :, :] - Xc[:, None, :]) * inverse_variances[None, :, :]
        rule_outputs = np.einsum("imk,jk->jim", coef, Xc) + intercept[None, :, :]
        if normalize:
            rule_outputs -= np.einsum("ji,jim->jm", W, rule_outputs)[:, None, :]
        # weight before multiplying by D: a rule with w_i = 0 adds exactly 0, however far away
        weighted = W[:, :, None] * rule_outputs
        J[start : start + step] = np.einsum("jim,jik->jmk", weighted, D, optimize=True)
        J[start : start + step] += np.einsum("ji,imk->jmk", W, coef, optimize=True)
    return J
