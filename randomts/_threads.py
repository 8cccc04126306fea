"""One BLAS thread for loops of small BLAS calls.

A loop of many small BLAS calls (Householder updates of a few hundred rows,
the thin GEMM of a prediction block) gains nothing from BLAS threads, and on
a machine whose cores are shared with other jobs it loses badly: OpenBLAS
threads spin waiting for one another at every call. Measured on the 2-core
development machine under load: a streamed QR fit of 10^5 rows took 1.6 s
with one thread and 113 s with two; ``RuleBase.predict`` on 10^5 rows 0.15 s
against 0.45-0.72 s. scikit-learn limits threads the same way around its
loops of small BLAS calls (e.g. in ``KMeans``).
"""

from __future__ import annotations

import os

from threadpoolctl import ThreadpoolController

_controller = None


def _get_controller():
    global _controller
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller


def blas_thread_limit():
    """The number of threads BLAS may use now (as limited by ``threadpoolctl``, if at all).

    Routines that run their own threads, each calling BLAS with one thread,
    use this many, so that ``threadpool_limits(1)`` serialises them too.

    Examples
    --------
    >>> from threadpoolctl import threadpool_limits
    >>> with threadpool_limits(1):
    ...     blas_thread_limit()
    1
    """
    threads = [lib.num_threads for lib in _get_controller().select(user_api="blas").lib_controllers]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(threads or [cores or 1]))


def single_blas_thread():
    """Context manager limiting BLAS to one thread (about 20 microseconds to enter).

    Examples
    --------
    >>> import numpy as np
    >>> with single_blas_thread():
    ...     float(np.ones((2, 2)) @ np.ones(2) @ np.ones(2))
    4.0
    """
    return _get_controller().limit(limits=1, user_api="blas")
