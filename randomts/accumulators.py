"""Least squares row block by row block: exact accumulators of ``[K Y]`` (pure arrays).

The solution of ``min ||K Gamma - Y||_F^2 + alpha ||Gamma||_F^2`` depends on
the rows of ``[K Y]`` only through a small square matrix, which can be
accumulated one block of rows at a time, merged across machines, and solved
at the end. Two are kept, one per kind of solver:

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

Merging two factors is one more ``tpqrt`` (of two triangles) or a sum, so the
blocks may be reduced in any order or tree (see :mod:`randomts.distributed`).
:func:`fold_rows` uses that to fold contiguous stripes of rows in threads,
one per core, through LAPACK and BLAS calls that release the GIL
(``randomts._lapack``), and to take the rows from a function that writes
them block by block, so that ``K`` need never be formed.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import scipy.linalg
from scipy.linalg import blas, lapack

from . import _lapack
from ._threads import blas_thread_limit, run_stripes, single_blas_thread
from ._validation import check_int, check_option, check_real

__all__ = ["FACTORS", "SOLVER_FACTOR", "LeastSquaresAccumulator", "fold_rows", "fold_threads"]

#: Kinds of accumulated factor.
FACTORS = ("r", "gram")

#: The factor each solver is computed from.
SOLVER_FACTOR = {"lstsq": "r", "pinv": "r", "cholesky": "gram"}

# Rows of [K Y] per Householder update. Measured on N = 10^4,
# q = 302, one BLAS thread: blocks of 512 rows with an inner block of 16
# columns run the QR in 2.3x the time of one syrk of K (55 ms against 24 ms),
# where one dgeqrf of the whole tall matrix takes 7.6x and gelsy on K 6.8x.
# For q = 1502 (N = 2 * 10^4) an inner block of 32 runs the QR in 2.4x the
# syrk, 64 in 2.5x and 16 in 2.9x. For q = 5502 (2048 rows) 64 takes 2.86 s,
# 48 3.00 s, 32 3.15 s and 128 2.95 s, against 1.10 s for the syrk; merging
# two such triangles takes 3.75 s with 16, 2.44 s with 64 (1.47 s on 2 threads).
_QR_BLOCK_ROWS = 512
_QR_INNER_BLOCKS = ((600, 16), (2000, 32), (None, 64))  # (q below, inner block)
# A thread takes a stripe of at least this many rows per column of [K Y]: merging
# two triangles costs about q^3 flops against 2 m q^2 for a stripe of m rows, so
# m >= 8 q keeps the merges under about 6% of the work.
_QR_ROWS_PER_COLUMN_PER_THREAD = 8
# Columns from which the one-off calls after the stripes (merges, gelsy) use BLAS's
# threads: 2 threads gain 1.3x at q = 1000 to 1.6x at 1500, nothing at 300 (measured), where
# OpenBLAS's threads would only spin on after the call and slow the caller's next threads.
_THREADED_COLUMNS = 1000
# Rows per syrk update when [K Y] has to be copied into one Fortran block.
_GRAM_BLOCK_ROWS = 2048


def _check_block(K, Y, n_columns, n_outputs):
    K = np.asarray(K, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if K.ndim != 2 or K.shape[1] != n_columns:
        raise ValueError(f"K must be a 2-D array with {n_columns} columns; got shape {K.shape}.")
    if Y.ndim != 2 or Y.shape != (K.shape[0], n_outputs):
        raise ValueError(
            f"Y must have shape (n_rows, n_outputs) = ({K.shape[0]}, {n_outputs}) to match K; "
            f"got {Y.shape}."
        )
    return K, Y


def _row_blocks(n_rows, block, start=0):
    return ((lo, min(lo + block, n_rows)) for lo in range(start, n_rows, block))


def _block_rows(kind):
    return _QR_BLOCK_ROWS if kind == "r" else _GRAM_BLOCK_ROWS


def _after_stripes_threads(q):
    """BLAS's threads for the one-off calls after the stripes, from _THREADED_COLUMNS on."""
    return single_blas_thread() if q < _THREADED_COLUMNS else nullcontext()


def _inner_block(q):
    for below, inner in _QR_INNER_BLOCKS:
        if below is None or q < below:
            return min(inner, q)


def _fold_stripe(factor, fill, start, stop, kind):
    """Fold rows ``start:stop`` of ``[K Y]``, written in blocks by ``fill``, into ``factor``."""
    q = factor.shape[0]
    if kind == "r":
        inner = _inner_block(q)
        T, work = np.empty((inner, q), order="F"), np.empty(inner * q)
    buffer = None
    for lo, hi in _row_blocks(stop, _block_rows(kind), start):
        if buffer is None or buffer.shape[0] != hi - lo:
            buffer = np.empty((hi - lo, q), order="F")
        fill(lo, hi, buffer)
        if kind == "r":
            _lapack.dtpqrt(factor, buffer, inner, T, work)
        else:
            _lapack.dsyrk(factor, buffer)
    return factor


def fold_threads(n_rows, q, threads=None, *, kind="r"):
    """Threads :func:`fold_rows` uses for ``n_rows`` rows of ``q`` columns.

    As many as BLAS may use (``randomts._threads.blas_thread_limit``, so
    ``threadpoolctl.threadpool_limits(1)`` gives one), but no more than gives
    every thread 2 blocks of rows (Gram matrices, which merge by a sum) or,
    for the QR factor, 4 blocks and ``8 q`` rows: below that, merging the
    stripes' triangles costs more than the threads save.

    Examples
    --------
    >>> fold_threads(10_000, 302, threads=2), fold_threads(1_000, 302, threads=2)
    (2, 1)
    """
    if threads is None:
        threads = blas_thread_limit()
    if not _lapack.RELEASES_GIL:  # pragma: no cover - threads would only queue on the GIL
        return 1
    if kind == "r":
        stripe = max(_QR_ROWS_PER_COLUMN_PER_THREAD * q, 4 * _QR_BLOCK_ROWS)
    else:
        stripe = 2 * _GRAM_BLOCK_ROWS
    return max(1, min(threads, n_rows // stripe))


def fold_rows(factor, fill, n_rows, *, kind="r", threads=None):
    """Fold ``n_rows`` rows of ``[K Y]`` into an accumulated factor (in place; returned).

    The rows are never held all at once: ``fill(start, stop, out)`` writes
    rows ``start:stop`` of ``[K Y]`` into the Fortran-ordered ``out`` of shape
    ``(stop - start, q)``, a block of at most 512 (QR) or 2048 (Gram) rows at
    a time, and each block is folded in: by Householder reflections (LAPACK
    ``tpqrt``) into the triangular factor ``R``, or by BLAS ``syrk`` into the
    upper triangle of the Gram matrix.

    With several threads (:func:`fold_threads`) the rows are cut into one
    contiguous stripe per thread, each stripe folded by its own thread with
    one BLAS thread and the GIL released, and the stripes' factors merged in
    order at the end. The result then agrees with one thread's to rounding
    (the R factor or Gram matrix of the same rows), and is the same on every
    run with the same thread count. ``fill`` is called from those threads, on
    disjoint row ranges.

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
    threads : int, optional
        Upper bound on the threads; default ``randomts._threads.blas_thread_limit()``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).normal(size=(9000, 3))
    >>> def fill(start, stop, out):
    ...     out[...] = A[start:stop]
    >>> R = fold_rows(np.zeros((3, 3), order="F"), fill, 9000, threads=2)
    >>> bool(np.allclose(np.abs(R), np.abs(np.linalg.qr(A, mode="r"))))
    True
    >>> G = fold_rows(np.zeros((3, 3), order="F"), fill, 9000, kind="gram", threads=2)
    >>> bool(np.allclose(np.triu(G), np.triu(A.T @ A)))
    True
    """
    q = factor.shape[0]
    factor = np.asfortranarray(factor)  # LAPACK's layout (a copy only if it was not)
    n_threads = fold_threads(n_rows, q, threads, kind=kind)
    with single_blas_thread():  # small calls: threads only add waiting (see randomts._threads)
        if n_threads == 1:
            return _fold_stripe(factor, fill, 0, n_rows, kind)
        # equal stripes, not whole blocks: 10^4 rows in 2048-row blocks would split 4096:5904
        bounds = [n_rows * i // n_threads for i in range(n_threads + 1)]

        def fold(start, stop):  # the first stripe folds into factor, the others into zeros
            target = factor if start == 0 else np.zeros((q, q), order="F")
            return _fold_stripe(target, fill, start, stop, kind)

        factors = run_stripes(fold, bounds)
    # the stripes are done: large merges (one tpqrt of two q x q triangles each) use BLAS's
    # threads; small ones gain nothing and would leave OpenBLAS's threads spinning
    with _after_stripes_threads(q):
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


def update_r(R, K, Y, *, threads=None):
    """Fold the rows ``[K Y]`` into the triangular factor ``R`` (in place; returned).

    ``R`` is a Fortran-ordered ``(q, q)`` upper triangle, ``q = K.shape[1] + Y.shape[1]``.
    See :func:`fold_rows` for the threads.
    """
    return fold_rows(R, _copy_rows(K, Y), K.shape[0], kind="r", threads=threads)


def merge_r(R, other):
    """The triangular factor of ``[A; B]`` from those of ``A`` (``R``, overwritten) and ``B``."""
    q = R.shape[0]
    triangle = np.array(other, dtype=float, order="F", copy=True)
    R, _, _, info = lapack.dtpqrt(
        q, _inner_block(q), R, triangle, overwrite_a=1, overwrite_b=1
    )
    if info != 0:  # pragma: no cover
        raise RuntimeError(f"LAPACK dtpqrt failed with info={info}.")
    return R


def update_gram(G, K, Y):
    """Add ``[K Y]^T [K Y]`` to the upper triangle of ``G`` (in place; returned)."""
    n_columns = K.shape[1]
    if K.flags.c_contiguous and Y.flags.c_contiguous:
        # K^T is Fortran-ordered: syrk reads K where it lies, no copy.
        G[:n_columns, :n_columns] = blas.dsyrk(
            1.0, K.T, beta=1.0, c=G[:n_columns, :n_columns], trans=0, lower=0
        )
        G[:n_columns, n_columns:] += K.T @ Y
        G[n_columns:, n_columns:] += Y.T @ Y
        return G
    # otherwise [K Y] is copied into Fortran blocks, folded by syrk like any rows
    return fold_rows(G, _copy_rows(K, Y), K.shape[0], kind="gram")


def _matlab_tolerance(s, shape):
    return max(shape) * np.finfo(float).eps * s[0] if s.size else 0.0


def solve_r(R, n_columns, *, solver="lstsq", alpha=0.0, n_samples=None):
    """``Gamma`` from the triangular factor of ``[K Y]`` (see the module docstring).

    ``"lstsq"`` runs LAPACK ``gelsy`` (rank at ``eps * s_max``) on
    ``R11 Gamma = C`` (stacked over ``sqrt(alpha) I`` for a ridge), or, when
    ``trcon`` shows ``R11`` square and surely of full rank at that tolerance
    (:func:`_numerically_full_rank`), the triangular solve of the same
    system, whose solution is then the unique (so minimum-norm) one;
    ``"pinv"`` forms ``pinv(R11)`` with MATLAB's tolerance
    ``max(n_samples, n_columns) * eps * s_max`` (the singular values of
    ``R11`` are those of ``K``) and applies it to ``C``.
    """
    # With fewer rows than columns, rows n_samples.. of R hold only rounding
    # (the stacked rows have rank <= n_samples): drop them, so that a
    # minimum-norm solve sees exact zeros there rather than noise of size eps.
    rows = n_columns if n_samples is None else max(1, min(n_samples, n_columns))
    R11 = np.triu(R[:rows, :n_columns])
    C = R[:rows, n_columns:]
    if solver == "pinv":
        U, s, Vt = scipy.linalg.svd(
            R11, full_matrices=False, check_finite=False, lapack_driver="gesdd"
        )
        if alpha > 0:
            filtered = s / (s * s + alpha)
        else:
            filtered = np.zeros_like(s)
            keep = s > _matlab_tolerance(s, (n_samples or n_columns, n_columns))
            filtered[keep] = 1.0 / s[keep]
        return ((Vt.T * filtered) @ U.T) @ C
    if alpha > 0:
        R11 = np.vstack([R11, np.sqrt(alpha) * np.eye(n_columns)])
        C = np.vstack([C, np.zeros((n_columns, C.shape[1]))])
    elif _numerically_full_rank(R11):
        # the least-squares solution is unique, so the minimum-norm one: gelsy's
        # pivoted QR (4/3 q^3 flops, 15.7 s at q = 5500) would only re-derive it
        return scipy.linalg.solve_triangular(R11, C, check_finite=False)
    with _after_stripes_threads(n_columns):  # gelsy's pivoted QR is half BLAS-2
        gamma, *_ = scipy.linalg.lstsq(R11, C, lapack_driver="gelsy", check_finite=False)
    return gamma


def _numerically_full_rank(R11):
    """Whether the square triangle ``R11`` has full rank at gelsy's tolerance, surely.

    LAPACK ``trcon`` estimates ``1 / cond_1(R11)`` in ``O(q^2)``. The 2-norm
    condition number is at most ``q`` times the 1-norm one, and the estimate
    is rarely low by more than a factor of 10, so an estimate above
    ``10 q eps`` puts every singular value above ``eps * s_max``, where
    ``gelsy`` (rank at ``eps * s_max``) keeps them all.
    """
    q = R11.shape[0]
    if q == 0 or R11.shape[1] != q or not np.all(np.diag(R11)):
        return False
    rcond, info = lapack.dtrcon(R11, norm="1", uplo="U", diag="N")
    return info == 0 and rcond > 10.0 * q * np.finfo(float).eps


def cholesky_gram(G, n_columns, *, alpha=0.0):
    """``(K^T K + alpha I)^{-1} K^T Y`` by Cholesky from the Gram matrix of ``[K Y]``.

    Raises :class:`numpy.linalg.LinAlgError` when ``K^T K + alpha I`` is not
    positive definite in floating point.
    """
    A = G[:n_columns, :n_columns].copy(order="F")
    A[np.diag_indices(n_columns)] += alpha
    factor = scipy.linalg.cho_factor(A, lower=False, overwrite_a=True, check_finite=False)
    return scipy.linalg.cho_solve(factor, G[:n_columns, n_columns:], check_finite=False)


def solve_gram(G, n_columns, *, alpha=0.0, n_samples=None):
    """Ridge normal equations from the Gram matrix of ``[K Y]``, by Cholesky.

    When the factorisation fails (``K^T K + alpha I`` singular in floating
    point) the eigendecomposition of ``K^T K`` is used: eigenvalues at most
    ``max(n_samples, n_columns) * eps * lambda_max`` (the Gram matrix's own
    rounding level) are dropped when ``alpha == 0``.
    """
    try:
        return cholesky_gram(G, n_columns, alpha=alpha)
    except np.linalg.LinAlgError:
        pass  # not positive definite in floating point: the eigendecomposition below
    B = G[:n_columns, n_columns:]
    eigenvalues, V = scipy.linalg.eigh(G[:n_columns, :n_columns], lower=False, check_finite=False)
    eigenvalues = np.maximum(eigenvalues, 0.0)
    if alpha > 0:
        inverse = 1.0 / (eigenvalues + alpha)
    else:
        inverse = np.zeros_like(eigenvalues)
        cut = (
            max(n_samples or n_columns, n_columns)
            * np.finfo(float).eps
            * eigenvalues.max(initial=0.0)
        )
        keep = eigenvalues > cut
        inverse[keep] = 1.0 / eigenvalues[keep]
    return V @ (inverse[:, None] * (V.T @ B))


class LeastSquaresAccumulator:
    """Accumulate ``[K Y]`` row block by row block; solve for ``Gamma`` at any time.

    Parameters
    ----------
    n_columns : int
        Columns of ``K``.
    n_outputs : int, default=1
        Columns of ``Y``.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Decides the factor kept: the QR factor ``R`` for the first two, the
        Gram matrix for ``"cholesky"`` (see the module docstring).

    Attributes
    ----------
    n_samples : int
        Rows folded in so far.
    factor : ndarray of shape (q, q)
        The accumulated upper-triangular ``R`` or Gram matrix (upper triangle),
        ``q = n_columns + n_outputs``.

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

    def __init__(self, n_columns, n_outputs=1, *, solver="lstsq"):
        self.n_columns = check_int(n_columns, "n_columns", low=1)
        self.n_outputs = check_int(n_outputs, "n_outputs", low=1)
        self.solver = check_option(solver, "solver", tuple(SOLVER_FACTOR))
        self.kind = SOLVER_FACTOR[solver]
        q = self.n_columns + self.n_outputs
        self.factor = np.zeros((q, q), order="F")
        self.n_samples = 0

    def update(self, K, Y):
        """Fold in rows ``K`` (n_rows, n_columns) and ``Y`` (n_rows, n_outputs); return self."""
        K, Y = _check_block(K, Y, self.n_columns, self.n_outputs)
        if K.shape[0]:
            if self.kind == "r":
                self.factor = update_r(self.factor, K, Y)
            else:
                self.factor = update_gram(self.factor, K, Y)
            self.n_samples += K.shape[0]
        return self

    def update_rows(self, fill, n_rows):
        """Fold in ``n_rows`` rows written in blocks by ``fill(start, stop, out)``; return self.

        See :func:`fold_rows`: rows of ``[K Y]`` are produced where they are
        folded in (e.g. by :func:`randomts.design.design_rows_writer`), so ``K``
        is never held whole, and the blocks are folded in threads.

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
        if n_rows:
            self.factor = fold_rows(self.factor, fill, n_rows, kind=self.kind)
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
        self.merge_factor(other.factor, other.n_samples)
        return self

    def merge_factor(self, factor, n_samples):
        """Fold in a factor of the same kind computed elsewhere (e.g. on a worker)."""
        factor = np.asarray(factor, dtype=float)
        if factor.shape != self.factor.shape:
            raise ValueError(f"factor must have shape {self.factor.shape}; got {factor.shape}.")
        if self.kind == "r":
            self.factor = merge_r(self.factor, factor)
        else:
            self.factor += np.triu(factor)  # in place: keeps the Fortran order
        self.n_samples += check_int(n_samples, "n_samples", low=0)
        return self

    def solve(self, alpha=0.0):
        """The solution ``Gamma`` of shape (n_columns, n_outputs) of the rows seen so far."""
        alpha = check_real(alpha, "alpha", low=0.0)
        if self.kind == "r":
            return solve_r(
                self.factor,
                self.n_columns,
                solver=self.solver,
                alpha=alpha,
                n_samples=self.n_samples,
            )
        return solve_gram(self.factor, self.n_columns, alpha=alpha, n_samples=self.n_samples)

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
        gamma = self.solve(0.0)
        B = self.factor[:p, p:]
        return np.diag(self.factor[p:, p:]) - np.einsum("ij,ij->j", B, gamma)

    def __repr__(self):
        return (
            f"LeastSquaresAccumulator(n_columns={self.n_columns}, n_outputs={self.n_outputs}, "
            f"solver={self.solver!r}, n_samples={self.n_samples})"
        )
