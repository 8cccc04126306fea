"""The fitting engine: least squares on ``[K Y]``, one block of rows at a time.

Every fit in randomts goes through this module: :meth:`randomts.RuleBase.fit_consequents`
(hence :class:`randomts.RandomTSRegressor`), ``partial_fit`` and
:mod:`randomts.fitting.consequents`, :mod:`randomts.distributed`,
:func:`randomts.core.solvers.solve_least_squares` and :mod:`randomts.fitting.model_selection`.

The solution of ``min ||K Gamma - Y||_F^2 + alpha ||Gamma||_F^2`` depends on
the rows of ``[K Y]`` only through a small square matrix, which is accumulated
one block of rows at a time, merged across threads or machines, and solved at
the end. Two are kept, one per kind of solver, and the paper's algorithm keeps
the rows themselves:

``"r"`` (for ``"lstsq"`` and ``"pinv"``)
    The upper-triangular factor ``R`` of the QR decomposition of
    ``[K Y]``, updated by Householder reflections (LAPACK ``tpqrt``, which
    uses the triangle already held and costs ``2 n_rows q^2`` flops per block,
    ``q = n_columns + n_outputs``). Backward stable: an ill-conditioned ``K``
    keeps its accuracy. With ``R = [[R11, C], [0, D]]``,
    ``min ||K Gamma - Y|| = min ||R11 Gamma - C||`` (the same minimisers,
    hence the same minimum-norm one) and the residual sum of squares is
    ``||D||_F^2``.
``"gram"`` (for ``"cholesky"``)
    The Gram matrix ``[K Y]^T [K Y]``, updated by the BLAS ``syrk``
    (``n_rows q^2`` flops per block, half the QR's). It squares the
    condition number of ``K``: use it with a ridge ``alpha > 0``.
``"rows"`` (for ``"pinv"``)
    The rows of ``[K Y]`` themselves, ``n_samples x q``: the paper's
    algorithm forms the pseudo-inverse of ``K`` (MATLAB's ``pinv(K) * Y``,
    with MATLAB's tolerance), and its result — the rounding of the
    ``p x n_samples`` pseudo-inverse included — needs ``K`` whole. Merging
    stacks the rows, so every path holds exactly the same ``K``.

``"lstsq"`` is the minimum-norm solution with the rank decided as
:func:`numpy.linalg.lstsq` decides it (singular values below
``max(n_samples, n_columns) * eps * s_max`` are zero), ``"pinv"`` uses the
same tolerance (MATLAB's), and ``"cholesky"`` falls back to the
eigendecomposition of the Gram matrix when ``K^T K + alpha I`` is not positive
definite in floating point.

Rows are folded in stripes (:func:`fold_rows`): their number depends only on
the number of rows and columns, each stripe is folded into a factor of its
own, and the factors are merged in order. So the result is the same, bit for
bit, whatever the number of threads that fold the stripes (``n_jobs``) — and
whatever the number of BLAS threads, for BLAS libraries whose results do not
depend on it. The threads call LAPACK and BLAS through :mod:`randomts.core.folds`:
the compiled kernel, which releases the GIL, or where it was not built SciPy's
Python wrappers of the same routines (the same results; the threads take turns).
"""

from __future__ import annotations

import os

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

from randomts._threads import effective_n_jobs, parallel_map
from randomts._validation import check_int, check_option, check_real
from randomts.core import folds

__all__ = [
    "FACTORS",
    "FEW_ROWS",
    "SOLVER_FACTOR",
    "LeastSquaresAccumulator",
    "check_factor_memory",
    "fold_rows",
    "gram_eigh",
    "ridge_cholesky",
    "solve_factor",
    "stripe_bounds",
    "thin_svd",
]

#: Kinds of accumulated factor.
FACTORS = ("r", "gram", "rows")

#: Rows at most this fraction of the columns are few: a ridge solution from them (the SVD of
#: the rows, ``solver="pinv"``) costs less than from their Gram matrix. On one thread the SVD
#: of 0.5 x 2,600 rows of 2,600 columns took 0.45 the time of the eigendecomposition of the
#: Gram matrix, of 0.8 x 2,600 rows 1.6 times.
FEW_ROWS = 0.5

#: The factor each solver is computed from.
SOLVER_FACTOR = {"lstsq": "r", "pinv": "rows", "cholesky": "gram"}

# Rows of [K Y] per Householder update. Measured on N = 10^4, q = 302, one BLAS
# thread: blocks of 512 rows with an inner block of 16 columns run the QR in 2.3x the
# time of one syrk of K, where one dgeqrf of the whole tall matrix takes 7.6x. For
# q = 1502 an inner block of 32 runs in 2.4x the syrk (64: 2.5x, 16: 2.9x); for
# q = 5502, 64 is the fastest of 32, 48, 64 and 128.
_QR_BLOCK_ROWS = 512
_QR_INNER_BLOCKS = ((600, 16), (2000, 32), (None, 64))  # (q below, inner block)
# Rows per syrk update.
_GRAM_BLOCK_ROWS = 2048
# A stripe has at least this many rows per column of [K Y]: merging two triangles
# costs about q^3 flops against 2 m q^2 for a stripe of m rows, so m >= 8 q keeps
# the merges under about 6% of the work.
_ROWS_PER_COLUMN_PER_STRIPE = 8
# At most this many stripes: enough for the cores of a workstation. A constant, so
# that the stripes (and the rounding of the result) never depend on the machine.
_MAX_STRIPES = 8
# Copies of the (q, q) factor alive at once at the most: the factor, a stripe's
# factor per thread, and the solve's working copies.
_FACTOR_COPIES = 4


def _row_blocks(start, stop, block):
    return ((lo, min(lo + block, stop)) for lo in range(start, stop, block))


def _inner_block(q):
    for below, inner in _QR_INNER_BLOCKS:
        if below is None or q < below:
            return min(inner, q)


def stripe_bounds(n_rows, q, *, kind="r"):
    """Row bounds of the stripes :func:`fold_rows` folds one by one and merges.

    Their number depends only on ``n_rows``, ``q`` and ``kind``: at least
    ``8 q`` and 2048 rows a stripe for the QR factor (4096 for the Gram
    matrix), at most 8 stripes.

    Examples
    --------
    >>> stripe_bounds(10_000, 302)
    [0, 2500, 5000, 7500, 10000]
    >>> stripe_bounds(1_000, 302)
    [0, 1000]
    """
    if kind == "r":
        smallest = max(_ROWS_PER_COLUMN_PER_STRIPE * q, 4 * _QR_BLOCK_ROWS)
    else:
        smallest = 2 * _GRAM_BLOCK_ROWS
    n_stripes = max(1, min(_MAX_STRIPES, n_rows // smallest))
    return [n_rows * i // n_stripes for i in range(n_stripes + 1)]


def _fold_stripe(factor, fill, start, stop, kind):
    """Fold rows ``start:stop`` of ``[K Y]``, written in blocks by ``fill``, into ``factor``."""
    q = factor.shape[0]
    if kind == "r":
        inner = _inner_block(q)
        T, work = np.empty((inner, q), order="F"), np.empty(inner * q)
    buffer = None
    for lo, hi in _row_blocks(start, stop, _QR_BLOCK_ROWS if kind == "r" else _GRAM_BLOCK_ROWS):
        if buffer is None or buffer.shape[0] != hi - lo:
            buffer = np.empty((hi - lo, q), order="F")
        fill(lo, hi, buffer)
        if kind == "r":
            folds.fold_qr(factor, buffer, inner, T, work)
        else:
            folds.fold_gram(factor, buffer)
    return factor


def fold_rows(factor, fill, n_rows, *, kind="r", n_jobs=None):
    """Fold ``n_rows`` rows of ``[K Y]`` into an accumulated factor (in place; returned).

    The rows are never held all at once: ``fill(start, stop, out)`` writes
    rows ``start:stop`` of ``[K Y]`` into the Fortran-ordered ``out`` of shape
    ``(stop - start, q)``, a block of at most 512 (QR) or 2048 (Gram) rows at
    a time, and each block is folded in: by Householder reflections (LAPACK
    ``tpqrt``) into the triangular factor ``R``, or by BLAS ``syrk`` into the
    upper triangle of the Gram matrix.

    The rows are cut into the stripes of :func:`stripe_bounds`; the first is
    folded into ``factor``, each other one into a factor of its own, and
    those are merged into ``factor`` in order. Up to ``n_jobs`` threads fold
    the stripes at once, calling ``fill`` on disjoint row ranges; the result
    does not depend on how many.

    Parameters
    ----------
    factor : ndarray of shape (q, q), Fortran order
        Factor of the rows seen before (zeros for none).
    fill : callable
        ``fill(start, stop, out)``, see above.
    n_rows : int
        Rows to fold in.
    kind : {"r", "gram"}, default="r"
        The factor accumulated (see the module docstring).
    n_jobs : int, optional
        Threads (see ``randomts._threads.effective_n_jobs``; default one).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).normal(size=(9000, 3))
    >>> def fill(start, stop, out):
    ...     out[...] = A[start:stop]
    >>> R = fold_rows(np.zeros((3, 3), order="F"), fill, 9000, n_jobs=2)
    >>> bool(np.allclose(np.abs(R), np.abs(np.linalg.qr(A, mode="r"))))
    True
    >>> bool(np.array_equal(R, fold_rows(np.zeros((3, 3), order="F"), fill, 9000)))
    True
    >>> G = fold_rows(np.zeros((3, 3), order="F"), fill, 9000, kind="gram")
    >>> bool(np.allclose(np.triu(G), np.triu(A.T @ A)))
    True
    """
    q = factor.shape[0]
    factor = np.asfortranarray(factor)  # LAPACK's layout (a copy only if it was not)
    bounds = stripe_bounds(n_rows, q, kind=kind)
    n_stripes = len(bounds) - 1

    def fold(i):  # the first stripe folds into factor, the others into zeros
        target = factor if i == 0 else np.zeros((q, q), order="F")
        return _fold_stripe(target, fill, bounds[i], bounds[i + 1], kind)

    factors = parallel_map(fold, n_stripes, effective_n_jobs(n_jobs))
    for other in factors[1:]:
        factor = merge_r(factor, other) if kind == "r" else _add_upper(factor, other)
    return factor


def _add_upper(G, other):
    G += np.triu(other)
    return G


def _copy_rows(K, Y):
    n_columns = K.shape[1]

    def fill(start, stop, out):
        out[:, :n_columns] = K[start:stop]
        out[:, n_columns:] = Y[start:stop]

    return fill


def merge_r(R, other):
    """The triangular factor of ``[A; B]`` from those of ``A`` (``R``, overwritten) and ``B``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).normal(size=(8, 3))
    >>> RA, RB = np.linalg.qr(A[:4], mode="r"), np.linalg.qr(A[4:], mode="r")
    >>> R = merge_r(np.asfortranarray(RA), RB)
    >>> bool(np.allclose(np.abs(R), np.abs(np.linalg.qr(A, mode="r"))))
    True
    """
    q = R.shape[0]
    triangle = np.array(other, dtype=float, order="F", copy=True)
    R, _, _, info = lapack.dtpqrt(q, _inner_block(q), R, triangle, overwrite_a=1, overwrite_b=1)
    if info != 0:  # pragma: no cover - LAPACK reports only illegal arguments here
        raise RuntimeError(f"LAPACK dtpqrt failed with info={info}.")
    return R


def _rank_tolerance(s, n_samples, n_columns):
    """``max(n_samples, n_columns) * eps * s_max``: numpy.linalg.lstsq's and MATLAB pinv's cut."""
    return max(n_samples, n_columns) * np.finfo(float).eps * (s[0] if s.size else 0.0)


def _inverse_singular_values(s, alpha, n_samples, n_columns):
    """``1/s`` above the rank tolerance (``alpha = 0``), else the ridge filter ``s/(s^2+alpha)``."""
    if alpha > 0:
        return s / (s * s + alpha)
    inverse = np.zeros_like(s)
    keep = s > _rank_tolerance(s, n_samples, n_columns)
    inverse[keep] = 1.0 / s[keep]
    return inverse


def solve_r(R, n_columns, *, alpha=0.0, n_samples=None):
    """``Gamma`` from the triangular factor of ``[K Y]`` (see the module docstring).

    ``alpha = 0``: ``R11 Gamma = C`` is solved by one triangular solve when
    LAPACK ``trcon`` shows ``R11`` surely of full rank at the rank tolerance
    (:func:`_numerically_full_rank`; the solution is then unique), and
    otherwise by LAPACK ``gelsy`` (pivoted QR, minimum norm) with the rank
    tolerance ``max(n_samples, n_columns) * eps``, as
    :func:`numpy.linalg.lstsq` decides it. ``alpha > 0``: the stacked system
    ``[R11; sqrt(alpha) I] Gamma = [C; 0]`` (of full rank) by QR, the exact
    ridge solution.
    """
    # With fewer rows than columns, rows n_samples.. of R hold only rounding
    # (the stacked rows have rank <= n_samples): drop them, so that a
    # minimum-norm solve sees exact zeros there rather than noise of size eps.
    n_samples = n_columns if n_samples is None else n_samples
    rows = max(1, min(n_samples, n_columns))
    R11 = np.triu(R[:rows, :n_columns])
    C = R[:rows, n_columns:]
    if alpha > 0:
        stacked = np.vstack([R11, np.sqrt(alpha) * np.eye(n_columns)])
        Q, T = scipy.linalg.qr(stacked, mode="economic", check_finite=False)
        return scipy.linalg.solve_triangular(T, Q[:rows].T @ C, check_finite=False)
    tolerance = max(n_samples, n_columns) * np.finfo(float).eps
    if _numerically_full_rank(R11, tolerance):
        return scipy.linalg.solve_triangular(R11, C, check_finite=False)
    gamma, *_ = scipy.linalg.lstsq(
        R11, C, cond=tolerance, lapack_driver="gelsy", check_finite=False
    )
    return gamma


def _numerically_full_rank(R11, tolerance):
    """Whether the square triangle ``R11`` has no singular value below ``tolerance * s_max``, surely.

    LAPACK ``trcon`` estimates ``1 / cond_1(R11)`` in ``O(q^2)``. The 2-norm
    condition number is at most ``q`` times the 1-norm one, and the estimate
    is rarely low by more than a factor of 10, so an estimate above
    ``10 q tolerance`` puts every singular value above ``tolerance * s_max``.
    """
    q = R11.shape[0]
    if q == 0 or R11.shape[1] != q or not np.all(np.diag(R11)):
        return False
    rcond, info = lapack.dtrcon(R11, norm="1", uplo="U", diag="N")
    return info == 0 and rcond > 10.0 * q * tolerance


def solve_gram(G, n_columns, *, alpha=0.0, n_samples=None):
    """Ridge normal equations from the Gram matrix of ``[K Y]``, by Cholesky.

    When ``K^T K + alpha I`` is not positive definite in floating point, the
    eigendecomposition of ``K^T K`` is used instead: with ``alpha = 0``,
    eigenvalues at most ``max(n_samples, n_columns) * eps * lambda_max`` (the
    Gram matrix's own rounding level) are dropped.
    """
    B = G[:n_columns, n_columns:]
    try:
        return scipy.linalg.cho_solve(ridge_cholesky(G, n_columns, alpha), B, check_finite=False)
    except np.linalg.LinAlgError:
        pass  # not positive definite in floating point: the eigendecomposition below
    eigenvalues, V, above = gram_eigh(G, n_columns, n_samples=n_samples)
    if alpha > 0:
        inverse = 1.0 / (eigenvalues + alpha)
    else:
        inverse = np.zeros_like(eigenvalues)
        inverse[above] = 1.0 / eigenvalues[above]
    return V @ (inverse[:, None] * (V.T @ B))


def ridge_cholesky(G, n_columns, alpha=0.0):
    """The Cholesky factor of ``K^T K + alpha I`` from the Gram factor of ``[K Y]``.

    In the form :func:`scipy.linalg.cho_solve` takes; it solves the ridge
    normal equations for any right-hand side (the consequents, and in
    :mod:`randomts.fitting.refinement` the Jacobian's projections). Raises
    :class:`numpy.linalg.LinAlgError` when the matrix is not positive
    definite in floating point.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.linalg
    >>> K = np.random.default_rng(0).normal(size=(30, 3)); Y = K @ [[1.0], [2.0], [3.0]]
    >>> G = np.hstack([K, Y]).T @ np.hstack([K, Y])
    >>> factor = ridge_cholesky(G, 3)
    >>> np.round(scipy.linalg.cho_solve(factor, G[:3, 3:]).ravel(), 10)
    array([1., 2., 3.])
    """
    shifted = np.array(G[:n_columns, :n_columns], order="F")
    shifted[np.diag_indices(n_columns)] += alpha
    return scipy.linalg.cho_factor(shifted, lower=False, overwrite_a=True, check_finite=False)


def gram_eigh(G, n_columns, *, n_samples=None):
    """The eigendecomposition of ``K^T K`` from the Gram factor of ``[K Y]``.

    Parameters
    ----------
    G : ndarray of shape (q, q)
        The accumulated Gram matrix (its upper triangle is read).
    n_columns : int
        Columns of ``K``.
    n_samples : int, optional
        Rows of ``K``, for the rank tolerance (default ``n_columns``).

    Returns
    -------
    eigenvalues : ndarray of shape (n_columns,)
        Ascending, negative rounding clipped to 0.
    V : ndarray of shape (n_columns, n_columns)
        Orthonormal eigenvectors, column by column.
    above : ndarray of bool, shape (n_columns,)
        Eigenvalues above ``max(n_samples, n_columns) * eps * lambda_max``,
        the Gram matrix's own rounding level: the numerical rank's.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.random.default_rng(0).normal(size=(20, 3)); K[:, 2] = K[:, 0]
    >>> G = np.hstack([K, np.ones((20, 1))]).T @ np.hstack([K, np.ones((20, 1))])
    >>> eigenvalues, V, above = gram_eigh(G, 3, n_samples=20)
    >>> above.tolist()
    [False, True, True]
    >>> bool(np.allclose((V * eigenvalues) @ V.T, K.T @ K))
    True
    """
    eigenvalues, V = scipy.linalg.eigh(
        G[:n_columns, :n_columns], lower=False, check_finite=False, driver="evd"
    )
    eigenvalues = np.maximum(eigenvalues, 0.0)
    cut = _rank_tolerance(eigenvalues[::-1], n_samples or n_columns, n_columns)
    return eigenvalues, V, eigenvalues > cut


def thin_svd(K):
    """``U, s, Vt`` of ``K`` (``full_matrices=False``): divide and conquer, else QR iteration.

    LAPACK's divide-and-conquer driver (``gesdd``) is the fast one; where it
    does not converge, the slower ``gesvd`` does.

    Examples
    --------
    >>> import numpy as np
    >>> U, s, Vt = thin_svd(np.array([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]]))
    >>> s
    array([3., 2.])
    """
    try:
        return scipy.linalg.svd(K, full_matrices=False, check_finite=False, lapack_driver="gesdd")
    except np.linalg.LinAlgError:
        return scipy.linalg.svd(K, full_matrices=False, check_finite=False, lapack_driver="gesvd")


def solve_rows(rows, n_columns, *, alpha=0.0):
    """The paper's ``pinv(K) * Y`` from the rows ``[K Y]``: the pseudo-inverse formed, then applied.

    As MATLAB's ``pinv``: singular values of ``K`` at most
    ``max(n_samples, n_columns) * eps * s_max`` are dropped (``alpha = 0``), or
    filtered as ``s / (s^2 + alpha)`` (the ridge solution). Forming ``K^+``
    rounds entries of size ``1 / s_min`` before the product with ``Y``, which
    is what limits the paper's training error.
    """
    K, Y = rows[:, :n_columns], rows[:, n_columns:]
    U, s, Vt = thin_svd(K)
    inverse = _inverse_singular_values(s, alpha, K.shape[0], n_columns)
    return ((Vt.T * inverse) @ U.T) @ Y


def solve_factor(factor, n_columns, *, kind="r", alpha=0.0, n_samples=None):
    """``Gamma`` from an accumulated factor of ``[K Y]`` of the given kind (see :data:`FACTORS`)."""
    if kind == "r":
        return solve_r(factor, n_columns, alpha=alpha, n_samples=n_samples)
    if kind == "rows":
        return solve_rows(factor, n_columns, alpha=alpha)
    return solve_gram(factor, n_columns, alpha=alpha, n_samples=n_samples)


def _available_bytes():
    """Memory the operating system says is available (Linux ``MemAvailable``), else total."""
    try:
        with open("/proc/meminfo") as file:
            for line in file:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not a POSIX system
        return None


def check_factor_memory(n_columns, n_outputs, *, n_rows=0, what=None, row_space=False):
    """Raise :class:`MemoryError` before allocating a factor that cannot fit in memory.

    The fit holds a few ``(q, q)`` float64 matrices at once,
    ``q = n_columns + n_outputs`` (and, for the paper's ``"pinv"``, a few
    ``(n_rows, q)`` ones); in the row space (more columns than rows, the
    leave-one-out ridge through ``K K^T``) a few ``(n_rows, n_columns)`` ones
    and the ``(n_rows, n_rows)`` Gram matrix. If that is more than the memory
    available, the error says how much is needed and for what, instead of
    NumPy's ``Unable to allocate`` from deep inside.

    Parameters
    ----------
    n_columns, n_outputs : int
        Columns of ``K`` and of ``Y``.
    n_rows : int, default=0
        Rows of ``[K Y]`` held whole (the ``"rows"`` factor, or the row space).
    what : str, optional
        What asked for them, e.g. ``"n_rules=200000 with 2 inputs"``.
    row_space : bool, default=False
        The factors of the row space instead of the column space.

    Examples
    --------
    >>> check_factor_memory(300, 1)
    >>> check_factor_memory(600_000, 1, what="n_rules=200000 with 2 inputs")
    Traceback (most recent call last):
    ...
    MemoryError: n_rules=200000 with 2 inputs gives 600000 unknowns: ...
    """
    if row_space:
        q = n_rows
        needed = _FACTOR_COPIES * 8.0 * n_rows * (n_columns + n_outputs + n_rows)
    else:
        q = n_columns + n_outputs
        needed = _FACTOR_COPIES * 8.0 * q * (q + n_rows)
    available = _available_bytes()
    if available is not None and needed > available:
        subject = what if what is not None else f"{n_columns} columns"
        raise MemoryError(
            f"{subject} gives {n_columns} unknowns: the least-squares fit needs about "
            f"{needed / 2**30:.3g} GiB for its factors of {q} "
            f"{'rows' if row_space else 'columns'}, more than the "
            f"{available / 2**30:.3g} GiB of memory available. Use fewer rules (or fewer "
            "inputs, or order=0)."
        )


class LeastSquaresAccumulator:
    """Accumulate ``[K Y]`` row block by row block; solve for ``Gamma`` at any time.

    Parameters
    ----------
    n_columns : int
        Columns of ``K``.
    n_outputs : int, default=1
        Columns of ``Y``.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Decides the factor kept: the QR factor ``R`` for ``"lstsq"``, the rows
        of ``[K Y]`` for ``"pinv"``, the Gram matrix for ``"cholesky"`` (see
        the module docstring).
    what : str, optional
        What the columns are, for the error raised when the factor cannot
        fit in memory (:func:`check_factor_memory`).

    Attributes
    ----------
    n_samples : int
        Rows folded in so far.
    factor : ndarray of shape (q, q), or (n_samples, q) for ``"pinv"``
        The accumulated upper-triangular ``R`` or Gram matrix (upper triangle),
        ``q = n_columns + n_outputs``, or the rows of ``[K Y]``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> K = rng.normal(size=(100, 4)); Y = K @ np.arange(4.0)
    >>> acc = LeastSquaresAccumulator(4)
    >>> for rows in np.array_split(np.arange(100), 3):
    ...     _ = acc.update(K[rows], Y[rows])
    >>> acc.n_samples
    100
    >>> np.allclose(acc.solve()[:, 0], [0.0, 1.0, 2.0, 3.0])
    True
    >>> bool(acc.residual_sum_of_squares()[0] < 1e-20)
    True
    """

    def __init__(self, n_columns, n_outputs=1, *, solver="lstsq", what=None):
        self.n_columns = check_int(n_columns, "n_columns", low=1)
        self.n_outputs = check_int(n_outputs, "n_outputs", low=1)
        self.solver = check_option(solver, "solver", tuple(SOLVER_FACTOR))
        self.kind = SOLVER_FACTOR[solver]
        self.what = what
        q = self.n_columns + self.n_outputs
        check_factor_memory(self.n_columns, self.n_outputs, what=what)
        self.factor = np.zeros((0 if self.kind == "rows" else q, q), order="F")
        self.n_samples = 0

    def update(self, K, Y, *, n_jobs=None):
        """Fold in rows ``K`` (n_rows, n_columns) and ``Y`` (n_rows, n_outputs); return self."""
        K = np.asarray(K, dtype=float)
        Y = np.asarray(Y, dtype=float)
        if Y.ndim == 1:
            Y = Y.reshape(-1, 1)
        if K.ndim != 2 or K.shape[1] != self.n_columns:
            raise ValueError(
                f"K must be a 2-D array with {self.n_columns} columns; got shape {K.shape}."
            )
        if Y.ndim != 2 or Y.shape != (K.shape[0], self.n_outputs):
            raise ValueError(
                f"Y must have shape (n_rows, n_outputs) = ({K.shape[0]}, {self.n_outputs}) to "
                f"match K; got {Y.shape}."
            )
        return self.update_rows(_copy_rows(K, Y), K.shape[0], n_jobs=n_jobs)

    def update_rows(self, fill, n_rows, *, n_jobs=None):
        """Fold in ``n_rows`` rows written in blocks by ``fill(start, stop, out)``; return self.

        See :func:`fold_rows`: rows of ``[K Y]`` are produced where they are
        folded in (e.g. by :func:`randomts.core.design.design_rows_writer`), so ``K``
        is never held whole.

        Examples
        --------
        >>> import numpy as np
        >>> K = np.random.default_rng(0).normal(size=(50, 2)); Y = K @ [[1.0], [-2.0]]
        >>> def fill(start, stop, out):
        ...     out[:, :2], out[:, 2:] = K[start:stop], Y[start:stop]
        >>> np.round(LeastSquaresAccumulator(2).update_rows(fill, 50).solve().ravel(), 12)
        array([ 1., -2.])
        """
        n_rows = check_int(n_rows, "n_rows", low=0)
        if not n_rows:
            return self
        if self.kind == "rows":
            q = self.factor.shape[1]
            check_factor_memory(
                self.n_columns, self.n_outputs, n_rows=self.n_samples + n_rows, what=self.what
            )
            rows = np.empty((n_rows, q), order="F")
            bounds = stripe_bounds(n_rows, q, kind="gram")

            def write(i):
                fill(bounds[i], bounds[i + 1], rows[bounds[i] : bounds[i + 1]])

            parallel_map(write, len(bounds) - 1, effective_n_jobs(n_jobs))
            self.factor = rows if not self.n_samples else np.vstack([self.factor, rows])
        else:
            self.factor = fold_rows(self.factor, fill, n_rows, kind=self.kind, n_jobs=n_jobs)
        self.n_samples += n_rows
        return self

    def merge(self, other):
        """Fold in another accumulator of the same shape and solver (its rows); returns self.

        Examples
        --------
        >>> import numpy as np
        >>> K = np.arange(12.0).reshape(6, 2) ** 1.5; Y = np.ones((6, 1))
        >>> whole = LeastSquaresAccumulator(2).update(K, Y)
        >>> halves = LeastSquaresAccumulator(2).update(K[:3], Y[:3])
        >>> halves = halves.merge(LeastSquaresAccumulator(2).update(K[3:], Y[3:]))
        >>> np.allclose(halves.solve(), whole.solve(), rtol=1e-12)
        True
        """
        if not isinstance(other, LeastSquaresAccumulator) or (
            other.n_columns,
            other.n_outputs,
            other.kind,
        ) != (self.n_columns, self.n_outputs, self.kind):
            raise ValueError(
                "Can only merge a LeastSquaresAccumulator with the same n_columns, n_outputs and "
                f"factor: expected ({self.n_columns}, {self.n_outputs}, {self.kind!r}); "
                f"got {other!r}."
            )
        if self.kind == "r":
            self.factor = merge_r(self.factor, other.factor)
        elif self.kind == "rows":
            self.factor = np.asfortranarray(np.vstack([self.factor, other.factor]))
        else:
            self.factor += np.triu(other.factor)  # in place: keeps the Fortran order
        self.n_samples += other.n_samples
        return self

    def fires(self):
        """Whether any row folded in so far has a nonzero entry of ``K``.

        ``K`` is zero exactly when its factor's leading block is: for a rule
        base, when no rule fires (strength 0 in floating point) on any row.

        Examples
        --------
        >>> import numpy as np
        >>> LeastSquaresAccumulator(2).update(np.zeros((3, 2)), np.ones(3)).fires()
        False
        """
        return bool(np.any(self.factor[:, : self.n_columns]))

    def gram(self):
        """The Gram matrix ``[K Y]^T [K Y]`` of the rows folded in, whole and symmetric.

        From ``R`` it is ``R^T R``; the normal equations it gives square the
        condition number of ``K`` (see the module docstring).

        Examples
        --------
        >>> import numpy as np
        >>> K = np.arange(12.0).reshape(6, 2) ** 1.5; Y = np.ones((6, 1))
        >>> M = np.hstack([K, Y])
        >>> all(np.allclose(LeastSquaresAccumulator(2, solver=s).update(K, Y).gram(), M.T @ M)
        ...     for s in ("lstsq", "pinv", "cholesky"))
        True
        """
        if self.kind == "r":
            R = np.triu(self.factor)
            return R.T @ R
        if self.kind == "rows":
            return self.factor.T @ self.factor
        G = np.triu(self.factor)
        return G + np.triu(G, 1).T

    def solve(self, alpha=0.0):
        """The solution ``Gamma`` of shape (n_columns, n_outputs) of the rows seen so far."""
        alpha = check_real(alpha, "alpha", low=0.0)
        return solve_factor(
            self.factor, self.n_columns, kind=self.kind, alpha=alpha, n_samples=self.n_samples
        )

    def residual_sum_of_squares(self):
        """``||Y - K Gamma||^2`` per output at ``alpha = 0`` (least-squares residual).

        Exact from ``R`` (``||D||^2`` column by column); from the Gram matrix it
        is ``Y^T Y - B^T G^+ B``, which cancels and is only accurate to
        ``eps * ||Y||^2``.
        """
        p = self.n_columns
        if self.kind == "r":
            D = np.triu(self.factor[p:, p:])
            return np.einsum("ij,ij->j", D, D)
        if self.kind == "rows":
            residual = self.factor[:, p:] - self.factor[:, :p] @ self.solve(0.0)
            return np.einsum("ij,ij->j", residual, residual)
        gamma = self.solve(0.0)
        B = self.factor[:p, p:]
        return np.diag(self.factor[p:, p:]) - np.einsum("ij,ij->j", B, gamma)

    def __repr__(self):
        return (
            f"LeastSquaresAccumulator(n_columns={self.n_columns}, n_outputs={self.n_outputs}, "
            f"solver={self.solver!r}, n_samples={self.n_samples})"
        )
