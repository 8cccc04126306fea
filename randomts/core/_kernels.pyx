# cython: language_level=3, boundscheck=False, wraparound=False
"""LAPACK ``dtpqrt`` and BLAS ``dsyrk`` on row blocks, called without the GIL.

SciPy's Python wrappers of these routines hold the GIL for the whole call, so
Python threads folding row blocks would take turns. Through SciPy's public
Cython interface (:mod:`scipy.linalg.cython_lapack`,
:mod:`scipy.linalg.cython_blas`) the same routines of the same library run with
the GIL released, and threads fold their blocks at once.
"""

from scipy.linalg.cython_blas cimport dsyrk
from scipy.linalg.cython_lapack cimport dtpqrt


def fold_qr(double[::1, :] R, double[::1, :] B, int block,
            double[::1, :] T, double[::1] work):
    """Fold the rows ``B`` into the upper triangle ``R``: the R factor of ``[R; B]``, in place.

    ``R`` (q, q) and ``B`` (m, q) are Fortran-ordered; ``B`` is overwritten with
    Householder vectors. ``T`` (Fortran, (block, q)) and ``work`` (at least
    ``block * q`` entries) are scratch; ``1 <= block <= q``.
    """
    cdef int m = B.shape[0], q = B.shape[1], zero = 0, info = 0, ldt = block
    if R.shape[0] != q or R.shape[1] != q:
        raise ValueError(f"R must have shape ({q}, {q}) to match B; got ({R.shape[0]}, {R.shape[1]}).")
    if not 1 <= block <= max(q, 1) or T.shape[0] != block or T.shape[1] < q \
            or work.shape[0] < block * q:
        raise ValueError(
            f"T must have shape ({block}, {q}) and work {block * q} entries, 1 <= block <= q; "
            f"got block {block}, T ({T.shape[0]}, {T.shape[1]}), work {work.shape[0]}."
        )
    if m == 0 or q == 0:
        return
    with nogil:
        dtpqrt(&m, &q, &zero, &block, &R[0, 0], &q, &B[0, 0], &m, &T[0, 0], &ldt,
               &work[0], &info)
    if info != 0:
        raise RuntimeError(f"LAPACK dtpqrt failed with info={info}.")


def fold_gram(double[::1, :] G, double[::1, :] B):
    """Add ``B^T B`` to the upper triangle of ``G`` (q, q), in place; both Fortran-ordered."""
    cdef int m = B.shape[0], q = B.shape[1]
    cdef double one = 1.0
    cdef char upper = b"U", transpose = b"T"
    if G.shape[0] != q or G.shape[1] != q:
        raise ValueError(f"G must have shape ({q}, {q}) to match B; got ({G.shape[0]}, {G.shape[1]}).")
    if m == 0 or q == 0:
        return
    with nogil:
        dsyrk(&upper, &transpose, &q, &m, &one, &B[0, 0], &m, &one, &G[0, 0], &q)
