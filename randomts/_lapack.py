"""LAPACK ``dtpqrt`` and BLAS ``dsyrk`` called with the GIL released, so row blocks fold in threads.

SciPy's f2py wrappers (:func:`scipy.linalg.lapack.dtpqrt`,
:func:`scipy.linalg.blas.dsyrk`) hold the GIL for the whole call: two Python
threads factoring row blocks take as long as one.
:mod:`scipy.linalg.cython_lapack` and :mod:`scipy.linalg.cython_blas` export
the same routines as C function pointers (``PyCapsule`` objects in their
``__pyx_capi__``, the route Numba takes too); calling them through
:mod:`ctypes` releases the GIL for the call.
Measured on the 2-core development machine (40 blocks of 512 x 302, one BLAS
thread each): 0.135 s in one thread, 0.082 s in two, results bit-identical to
the f2py wrapper's.

If a capsule is missing or its signature is not the one expected, the f2py
wrappers are used and :data:`RELEASES_GIL` is False (threads then gain
nothing, but the results are the same).
"""

from __future__ import annotations

import ctypes

import numpy as np
from scipy.linalg import blas, lapack

__all__ = ["RELEASES_GIL", "dsyrk", "dtpqrt"]

_INT = ctypes.c_int
_INT_P = ctypes.POINTER(_INT)
_PTR = ctypes.c_void_p
_CHAR_P = ctypes.c_char_p
# void dtpqrt(int *m, int *n, int *l, int *nb, d *a, int *lda, d *b, int *ldb,
#             d *t, int *ldt, d *work, int *info)
_DTPQRT_SIGNATURE = ("int *",) * 4 + ("d *", "int *") * 4
_DTPQRT_ARGTYPES = [_INT_P] * 4 + [_PTR, _INT_P] * 4
# void dsyrk(char *uplo, char *trans, int *n, int *k, d *alpha, d *a, int *lda,
#            d *beta, d *c, int *ldc)
_DSYRK_SIGNATURE = (
    "char *",
    "char *",
    "int *",
    "int *",
    "d *",
    "d *",
    "int *",
    "d *",
    "d *",
    "int *",
)
_DSYRK_ARGTYPES = [_CHAR_P, _CHAR_P, _INT_P, _INT_P, _PTR, _PTR, _INT_P, _PTR, _PTR, _INT_P]


def _signature_of(name):
    """Argument types of a Cython capsule's C signature, with Cython's type mangling removed."""
    arguments = name[name.index("(") + 1 : name.rindex(")")].split(",")
    simplified = []
    for argument in arguments:
        argument = argument.strip()
        if argument.endswith("*") and (
            "cython_lapack_d" in argument or "cython_blas_d" in argument
        ):
            argument = "d *"
        simplified.append(argument)
    return tuple(simplified)


def _load(module_name, function, signature, argtypes):
    try:
        import importlib

        capsule = importlib.import_module(module_name).__pyx_capi__[function]
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype, get_pointer.argtypes = (
            ctypes.c_void_p,
            [ctypes.py_object, ctypes.c_char_p],
        )
        name = get_name(capsule)
        if not name.startswith(b"void ") or _signature_of(name.decode()) != signature:
            return None
        return ctypes.CFUNCTYPE(None, *argtypes)(get_pointer(capsule, name))
    except (AttributeError, ImportError, KeyError, ValueError, TypeError):  # pragma: no cover
        return None


_DTPQRT = _load("scipy.linalg.cython_lapack", "dtpqrt", _DTPQRT_SIGNATURE, _DTPQRT_ARGTYPES)
_DSYRK = _load("scipy.linalg.cython_blas", "dsyrk", _DSYRK_SIGNATURE, _DSYRK_ARGTYPES)

#: Whether :func:`dtpqrt` and :func:`dsyrk` run without the GIL (threads fold blocks in parallel).
RELEASES_GIL = _DTPQRT is not None and _DSYRK is not None


def dsyrk(G, B):
    """Add ``B^T B`` to the upper triangle of ``G``, in place (BLAS ``dsyrk``).

    Parameters
    ----------
    G : ndarray of shape (q, q), Fortran order
        Only the upper triangle is read and written.
    B : ndarray of shape (m, q), Fortran order

    Examples
    --------
    >>> import numpy as np
    >>> B = np.asfortranarray(np.arange(6.0).reshape(3, 2)); G = np.ones((2, 2), order="F")
    >>> dsyrk(G, B)
    >>> np.triu(G)
    array([[21., 27.],
           [ 0., 36.]])
    """
    m, q = B.shape
    if not (
        G.dtype == B.dtype == np.float64 and G.flags.f_contiguous and B.flags.f_contiguous
        and G.flags.writeable and G.shape == (q, q)
    ):  # fmt: skip
        raise ValueError(
            "dsyrk needs float64 arrays in Fortran order: G of shape (q, q), writeable, and B "
            f"of shape (m, q); got G {G.shape}, B {B.shape}."
        )
    if m == 0 or q == 0:
        return
    if _DSYRK is None:  # pragma: no cover - only without scipy.linalg.cython_blas
        blas.dsyrk(1.0, B, beta=1.0, c=G, trans=1, lower=0, overwrite_c=1)
        return
    one = ctypes.c_double(1.0)
    _DSYRK(
        b"U", b"T", ctypes.byref(_INT(q)), ctypes.byref(_INT(m)), _PTR(ctypes.addressof(one)),
        _PTR(B.ctypes.data), ctypes.byref(_INT(m)), _PTR(ctypes.addressof(one)),
        _PTR(G.ctypes.data), ctypes.byref(_INT(q)),
    )  # fmt: skip


def dtpqrt(R, B, block, T=None, work=None):
    """Fold the rows ``B`` into the upper triangle ``R``: the QR factor of ``[R; B]``, in place.

    Parameters
    ----------
    R : ndarray of shape (q, q), Fortran order
        Upper-triangular factor; overwritten by that of ``[R; B]``.
    B : ndarray of shape (m, q), Fortran order
        Rows to fold in; overwritten (by Householder vectors).
    block : int
        LAPACK's inner block size ``nb``, ``1 <= nb <= q``.
    T, work : ndarray, optional
        Scratch of at least ``block * q`` float64 entries each (Fortran
        ``T`` of shape (block, q)), reused across calls by a caller that owns them.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.asfortranarray(np.arange(1.0, 13.0).reshape(4, 3) ** 1.5)
    >>> R = np.zeros((3, 3), order="F")
    >>> dtpqrt(R, A.copy(order="F"), 2)
    >>> bool(np.allclose(np.abs(R), np.abs(np.linalg.qr(A, mode="r"))))
    True
    """
    m, q = B.shape
    if T is None:
        T = np.empty((block, q), order="F")
    if work is None:
        work = np.empty(block * q)
    # LAPACK writes through raw pointers: check every shape and layout it relies on.
    if not (
        R.dtype == B.dtype == T.dtype == work.dtype == np.float64
        and R.flags.f_contiguous and B.flags.f_contiguous and T.flags.f_contiguous
        and work.flags.c_contiguous and R.flags.writeable and B.flags.writeable
        and R.shape == (q, q) and T.shape == (block, q) and work.size >= block * q
        and 1 <= block <= max(q, 1)
    ):  # fmt: skip
        raise ValueError(
            "dtpqrt needs writeable float64 arrays: R of shape (q, q) and B of shape (m, q) in "
            "Fortran order, T of shape (block, q) in Fortran order, work of block * q entries, "
            f"1 <= block <= q; got R {R.shape}, B {B.shape}, T {T.shape}, work {work.shape}, "
            f"block {block}."
        )
    if m == 0:
        return
    if _DTPQRT is None:  # pragma: no cover - only without scipy.linalg.cython_lapack
        _, _, _, info = lapack.dtpqrt(0, block, R, B, overwrite_a=1, overwrite_b=1)
    else:
        status = _INT(0)
        _DTPQRT(
            ctypes.byref(_INT(m)), ctypes.byref(_INT(q)), ctypes.byref(_INT(0)),
            ctypes.byref(_INT(block)), _PTR(R.ctypes.data), ctypes.byref(_INT(q)),
            _PTR(B.ctypes.data), ctypes.byref(_INT(m)), _PTR(T.ctypes.data),
            ctypes.byref(_INT(block)), _PTR(work.ctypes.data), ctypes.byref(status),
        )  # fmt: skip
        info = status.value
    if info != 0:  # pragma: no cover - LAPACK reports only illegal arguments here
        raise RuntimeError(f"LAPACK dtpqrt failed with info={info}.")
