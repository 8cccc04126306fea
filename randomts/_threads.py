"""Threads: one BLAS thread for loops of small BLAS calls, and our own threads over row stripes.

A loop of many small BLAS calls (Householder updates of a few hundred rows,
the thin GEMM of a prediction block) gains nothing from BLAS threads, and on
a machine whose cores are shared with other jobs it loses badly: OpenBLAS
threads spin waiting for one another at every call. Measured on the 2-core
development machine under load: a streamed QR fit of 10^5 rows took 1.6 s
with one thread and 113 s with two; ``RuleBase.predict`` on 10^5 rows 0.15 s
against 0.45-0.72 s. scikit-learn limits threads the same way around its
loops of small BLAS calls (e.g. in ``KMeans``).

The cores are used instead by our own threads, each calling BLAS with one
thread. The fit splits the rows into one contiguous stripe per core, each
folded into a factor of its own (:func:`run_stripes`) through GIL-free
LAPACK/BLAS calls (``randomts._lapack``). ``predict`` hands out units of row
blocks to its threads as they ask (:func:`run_shared`; NumPy releases the GIL
in its loops), so that a thread on a busy core does less; each row's output is
the same whichever thread computes it, whereas the fit keeps fixed stripes
because the rows folded into each factor decide its rounding. How many threads:
as many as BLAS is allowed (:func:`blas_thread_limit`), so ``threadpoolctl``
controls both.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext

import numpy as np
from threadpoolctl import ThreadpoolController

_controller = None
_blas = None  # the BLAS libraries among _controller's
_scratch = threading.local()  # per thread: name -> the last scratch array handed out
_pool = None  # (process id, workers, executor): a forked child must not reuse its parent's threads
_pool_lock = threading.Lock()


def _get_controller():
    global _controller
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller


def _blas_libraries():
    """The BLAS libraries loaded in the process (as ``threadpoolctl`` controls them).

    Selected once, like the controller itself (selecting took about 7 microseconds a
    call, measured: about a quarter of a one-row ``predict``).
    """
    global _blas
    if _blas is None:
        _blas = _get_controller().select(user_api="blas").lib_controllers
    return _blas


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
    threads = [lib.num_threads for lib in _blas_libraries()]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(threads or [cores or 1]))


def single_blas_thread():
    """Context manager limiting BLAS to one thread; a null context if it already runs one.

    A limit costs about 0.1 ms of CPU time to enter and leave (measured with
    ``time.process_time``; 3 % of ``predict`` on 10^4 rows and 100 rules), so under
    ``threadpool_limits(1)``, as in joblib's workers, it is skipped.

    Examples
    --------
    >>> import numpy as np
    >>> with single_blas_thread():
    ...     float(np.ones((2, 2)) @ np.ones(2) @ np.ones(2))
    4.0
    """
    if all(lib.num_threads == 1 for lib in _blas_libraries()):
        return nullcontext()  # already one thread (e.g. under threadpool_limits(1))
    return _get_controller().limit(limits=1, user_api="blas")


def _executor(n_workers):
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid() or _pool[1] < n_workers:
            executor = ThreadPoolExecutor(n_workers, thread_name_prefix="randomts")
            _pool = (os.getpid(), n_workers, executor)
        return _pool[2]


def run_stripes(function, bounds):
    """Call ``function(bounds[i], bounds[i + 1])`` for every stripe, the first in this thread.

    The others run in a pool of threads kept for the process (a new pool
    costs about 0.26 ms a call, 6 % of a 4.4 ms ``predict`` of 10^4 rows; a
    forked child gets a pool of its own). Returns the results in stripe order; an
    exception raised by any stripe is re-raised here, once every stripe has
    finished.

    Examples
    --------
    >>> run_stripes(lambda start, stop: sum(range(start, stop)), [0, 5, 10])
    [10, 35]
    """
    stripes = list(zip(bounds[:-1], bounds[1:], strict=True))
    if len(stripes) == 1:
        return [function(*stripes[0])]
    pool = _executor(len(stripes) - 1)
    futures = [pool.submit(function, *stripe) for stripe in stripes[1:]]
    try:
        first = function(*stripes[0])
    finally:
        for future in futures:
            future.exception()  # waits for every stripe, whatever happened in this thread
    return [first] + [future.result() for future in futures]  # re-raises a stripe's exception


def run_shared(function, n_items, n_threads):
    """Call ``function(items)`` in ``n_threads`` threads, ``items`` handing out ``range(n_items)``.

    Dynamic scheduling: every thread iterates over the same sequence, and each
    item goes to whichever thread asks first, exactly once. A thread that starts
    late or shares its core with another job (such as OpenBLAS workers still
    spinning after a threaded call) simply takes fewer items, where equal
    stripes would wait for it. The first thread is this one; results are
    returned in thread order, and exceptions re-raised as in :func:`run_stripes`.

    Examples
    --------
    >>> done = run_shared(lambda items: sorted(items), 5, 1)
    >>> done
    [[0, 1, 2, 3, 4]]
    >>> sorted(sum(run_shared(lambda items: list(items), 100, 2), [])) == list(range(100))
    True
    """
    lock = threading.Lock()
    shared = iter(range(n_items))

    def items():
        while True:
            with lock:
                item = next(shared, None)
            if item is None:
                return
            yield item

    return run_stripes(lambda start, stop: function(items()), list(range(n_threads + 1)))


def scratch(name, shape):
    """A C-ordered float64 work array of ``shape``, kept for this thread's next call.

    Large fresh arrays come from the operating system zeroed, page by page, on
    every call: for ``predict`` of 10^4 rows with 100 rules, fresh buffers
    made the call about 0.1 ms (3 %) slower (measured). A buffer asked for
    again by the same thread, under the same ``name`` and with no more
    elements, is the same memory; so a caller must not hold on to it across
    calls that ask for ``name`` again, nor ask for ``name`` twice at once.
    Each thread keeps only the largest array per name it has needed.

    Examples
    --------
    >>> a = scratch("doctest", (4, 3)); b = scratch("doctest", (2, 5))
    >>> b.shape, np.shares_memory(a, b)
    ((2, 5), True)
    """
    size = math.prod(shape)  # (np.prod costs 4 microseconds a call)
    buffers = getattr(_scratch, "buffers", None)
    if buffers is None:
        buffers = _scratch.buffers = {}
    buffer = buffers.get(name)
    if buffer is None or buffer.size < size:
        buffer = buffers[name] = np.empty(size)
    return buffer[:size].reshape(shape)
