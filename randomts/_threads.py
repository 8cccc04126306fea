"""Our own threads: how many (``n_jobs``), and a parallel map whose threads belong to the call.

randomts never changes a BLAS library's thread setting: that setting is shared
by the whole process, so changing it from one call would change every other
thread's BLAS calls, race with other callers doing the same, and be inherited
by a forked child. BLAS runs as many threads as its configuration allows
(``threadpoolctl.threadpool_limits`` controls it); randomts's own threads are
asked for with ``n_jobs``, and by default (``n_jobs=None``) there is one,
unless a ``joblib.parallel_config(n_jobs=...)`` context says otherwise
(:func:`joblib.effective_n_jobs`, as scikit-learn's estimators do).

Threads of ours run work that releases the GIL: NumPy's loops, and LAPACK/BLAS
called through the compiled kernel of :mod:`randomts.core.folds`. Each of them calls
BLAS, so with several threads of ours the fastest setting is BLAS on one
thread (``with threadpool_limits(1): ...``): otherwise BLAS's threads and ours
compete for the same cores.

Which rows each thread handles never changes a result: the fit cuts its rows
into stripes whose number depends on the problem only (see
``randomts.core.accumulators``), and ``predict`` computes every row the same way
whichever thread takes it.

Every call that runs threads starts them itself and waits for them before it
returns (:func:`parallel_map`): there is no pool shared between calls, so no
call waits on work queued behind its own, however calls are nested.
"""

from __future__ import annotations

import math
import threading

import joblib
import numpy as np

from randomts._validation import check_int

__all__ = ["effective_n_jobs", "parallel_map", "scratch"]

_scratch = threading.local()  # per thread: name -> the last scratch array handed out


def effective_n_jobs(n_jobs=None, *, owner=None):
    """The number of threads of ours that ``n_jobs`` asks for.

    ``None`` means 1 unless a ``joblib.parallel_config`` context sets
    ``n_jobs``; a negative value counts back from the number of CPUs
    (``-1``: all of them), as in joblib and scikit-learn.

    Examples
    --------
    >>> effective_n_jobs(None), effective_n_jobs(3)
    (1, 3)
    >>> import joblib
    >>> with joblib.parallel_config(n_jobs=2):
    ...     effective_n_jobs(None)
    2
    """
    if n_jobs is not None:
        n_jobs = check_int(n_jobs, "n_jobs", owner=owner)
        if n_jobs == 0:
            raise ValueError(
                f"The 'n_jobs' parameter{' of ' + owner if owner else ''} must be None, a "
                "positive int or a negative int (-1: all CPUs). Got 0 instead."
            )
    return max(1, int(joblib.effective_n_jobs(n_jobs)))


def parallel_map(function, n_items, n_threads):
    """``[function(i) for i in range(n_items)]``, computed by up to ``n_threads`` threads.

    The threads are started by this call and joined before it returns; this
    thread is one of them. Items are handed out as threads ask for them, so a
    thread slowed by a busy core simply takes fewer. If any item raises, the
    items not yet started are skipped, every thread is waited for, and the
    first exception is re-raised here.

    Examples
    --------
    >>> parallel_map(lambda i: i * i, 5, 2)
    [0, 1, 4, 9, 16]
    >>> parallel_map(lambda i: i, 0, 2)
    []
    """
    results = [None] * n_items
    errors = []
    lock = threading.Lock()
    items = iter(range(n_items))

    def work():
        while True:
            with lock:
                item = None if errors else next(items, None)
            if item is None:
                return
            try:
                results[item] = function(item)
            except BaseException as error:  # re-raised in the calling thread below
                with lock:
                    errors.append(error)
                return

    helpers = [threading.Thread(target=work) for _ in range(min(n_threads, n_items) - 1)]
    for thread in helpers:
        thread.start()
    try:
        work()
    finally:
        for thread in helpers:
            thread.join()
    if errors:
        raise errors[0]
    return results


def scratch(name, shape):
    """A C-ordered float64 work array of ``shape``, kept for this thread's next call.

    Large fresh arrays come from the operating system zeroed, page by page, on
    every call: for ``predict`` of 10^4 rows with 100 rules, fresh buffers
    made the call about 3 % slower. A buffer asked for again by the same
    thread, under the same ``name`` and with no more elements, is the same
    memory; so a caller must not hold on to it across calls that ask for
    ``name`` again, nor ask for ``name`` twice at once. Each thread keeps only
    the largest array per name it has needed, and a thread's arrays go with it.

    Examples
    --------
    >>> a = scratch("doctest", (4, 3)); b = scratch("doctest", (2, 5))
    >>> b.shape, np.shares_memory(a, b)
    ((2, 5), True)
    """
    size = math.prod(shape)
    buffers = getattr(_scratch, "buffers", None)
    if buffers is None:
        buffers = _scratch.buffers = {}
    buffer = buffers.get(name)
    if buffer is None or buffer.size < size:
        buffer = buffers[name] = np.empty(size)
    return buffer[:size].reshape(shape)
