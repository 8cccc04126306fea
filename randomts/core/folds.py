"""Folding a block of rows into a QR or Gram factor: LAPACK ``dtpqrt`` and BLAS ``dsyrk``.

The two routines that :mod:`randomts.core.accumulators` calls on every block
of rows, in one of two ways that give the same results:

- the compiled kernel ``randomts.core._kernels``, built at install where a C
  compiler is found, calls them through SciPy's Cython interface
  (:mod:`scipy.linalg.cython_lapack`, :mod:`scipy.linalg.cython_blas`) with
  the GIL released, so that threads fold their row blocks at once;
- without it, SciPy's Python wrappers (:func:`scipy.linalg.lapack.dtpqrt`,
  :func:`scipy.linalg.blas.dsyrk`) call the same routines of the same
  library with the same arguments, so the factors are the same, bit for bit.
  These hold the GIL during the call: threads take turns, and only their
  overlap is lost.

:func:`compiled` says which one runs.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas, lapack

try:
    from randomts.core import _kernels
except ImportError:  # installed without a C compiler: SciPy's Python wrappers, below
    _kernels = None

__all__ = ["compiled", "fold_qr", "fold_gram"]


def compiled() -> bool:
    """Whether the compiled kernel runs the folds (else SciPy's Python wrappers do).

    Examples
    --------
    >>> isinstance(compiled(), bool)
    True
    """
    return _kernels is not None


def fold_qr(R, B, block, T, work):
    """Fold the rows ``B`` into the upper triangle ``R``: the R factor of ``[R; B]``, in place.

    LAPACK ``dtpqrt`` with inner block ``block``. ``R`` (q, q) and ``B``
    (m, q) are Fortran-ordered float64; ``B`` is overwritten with Householder
    vectors. ``T`` (Fortran, (block, q)) and ``work`` (at least ``block * q``
    entries) are scratch for the compiled kernel; ``1 <= block <= q``.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.zeros((2, 2), order="F")
    >>> B = np.asfortranarray([[3.0, 0.0], [4.0, 5.0]])
    >>> fold_qr(R, B, 1, np.empty((1, 2), order="F"), np.empty(2))
    >>> np.abs(R).round(6)
    array([[5., 4.],
           [0., 3.]])
    """
    if _kernels is not None:
        _kernels.fold_qr(R, B, block, T, work)
        return
    m, q = _fortran_matrix("B", B).shape
    if _fortran_matrix("R", R).shape != (q, q):
        raise ValueError(f"R must have shape ({q}, {q}) to match B; got {R.shape}.")
    if (
        not 1 <= block <= max(q, 1)
        or _fortran_matrix("T", T).shape[0] != block
        or T.shape[1] < q
        or np.size(work) < block * q
    ):
        raise ValueError(
            f"T must have shape ({block}, {q}) and work {block * q} entries, 1 <= block <= q; "
            f"got block {block}, T {T.shape}, work {np.size(work)}."
        )
    if m == 0 or q == 0:
        return
    folded, _, _, info = lapack.dtpqrt(0, block, R, B, overwrite_a=1, overwrite_b=1)
    if info != 0:  # pragma: no cover - LAPACK reports only illegal arguments here
        raise RuntimeError(f"LAPACK dtpqrt failed with info={info}.")
    if folded is not R:  # SciPy updates a Fortran-ordered float64 R in place; else copy back
        R[...] = folded


def fold_gram(G, B):
    """Add ``B^T B`` to the upper triangle of ``G`` (q, q), in place; both Fortran-ordered.

    BLAS ``dsyrk``; the strict lower triangle of ``G`` is left as it was.

    Examples
    --------
    >>> import numpy as np
    >>> G = np.zeros((2, 2), order="F")
    >>> fold_gram(G, np.asfortranarray([[1.0, 2.0], [3.0, 4.0]]))
    >>> G
    array([[10., 14.],
           [ 0., 20.]])
    """
    if _kernels is not None:
        _kernels.fold_gram(G, B)
        return
    m, q = _fortran_matrix("B", B).shape
    if _fortran_matrix("G", G).shape != (q, q):
        raise ValueError(f"G must have shape ({q}, {q}) to match B; got {G.shape}.")
    if m == 0 or q == 0:
        return
    folded = blas.dsyrk(1.0, B, beta=1.0, c=G, trans=1, lower=0, overwrite_c=1)
    if folded is not G:  # SciPy updates a Fortran-ordered float64 G in place; else copy back
        G[...] = folded


def _fortran_matrix(name, array):
    """``array`` if it is a Fortran-ordered float64 matrix (what LAPACK updates in place)."""
    if not (
        isinstance(array, np.ndarray)
        and array.ndim == 2
        and array.dtype == np.float64
        and array.flags.f_contiguous
        and array.flags.writeable
    ):
        got = (
            f"{array.ndim}-d {array.dtype}, {'F' if array.flags.f_contiguous else 'C'} order"
            if isinstance(array, np.ndarray)
            else type(array).__name__
        )
        raise ValueError(f"{name} must be a writeable Fortran-ordered float64 matrix; got {got}.")
    return array
