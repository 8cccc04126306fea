"""Rows read in chunks: slices of arrays and memmaps, ``.npy`` files a chunk at a time, with progress.

The chunks feed :func:`randomts.fitting.consequents.fit_consequents_streaming`
(or a :class:`~randomts.fitting.consequents.ConsequentStream`): memory stays at
one chunk whatever the number of rows. :func:`with_progress` shows a
progress bar on stderr while they are read (tqdm when installed, else a
counter).
"""

from __future__ import annotations

import sys

import numpy as np

from randomts._validation import check_int

__all__ = ["iter_chunks", "npy_chunks", "with_progress"]


def iter_chunks(X, Y, chunk_rows=65536):
    """Successive row chunks ``(X[a:b], Y[a:b])`` of two arrays or memmaps.

    Slices of a :class:`numpy.memmap` are views: their rows are read from disk
    only when the chunk is used, so memory stays at one chunk.

    Examples
    --------
    >>> import numpy as np
    >>> [x.shape[0] for x, _ in iter_chunks(np.zeros((10, 2)), np.zeros(10), chunk_rows=4)]
    [4, 4, 2]
    """
    chunk_rows = check_int(chunk_rows, "chunk_rows", low=1)
    n_rows = len(X)
    if len(Y) != n_rows:
        raise ValueError(f"X and Y must have the same number of rows; got {n_rows} and {len(Y)}.")
    for start in range(0, n_rows, chunk_rows):
        stop = min(start + chunk_rows, n_rows)
        yield X[start:stop], Y[start:stop]


def npy_chunks(X_path, Y_path, chunk_rows=65536):
    """Row chunks of two ``.npy`` files, read from disk a chunk at a time.

    Each chunk is read with plain file reads into a fresh array (not a
    memory map, whose pages would stay resident), so memory stays at one
    chunk whatever the file size.

    Returns
    -------
    iterable of (ndarray, ndarray)
        With a ``len()`` (the number of chunks), so a progress bar knows its total.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> np.save(os.path.join(folder, "X.npy"), np.arange(10.0).reshape(5, 2))
    >>> np.save(os.path.join(folder, "Y.npy"), np.ones(5))
    >>> chunks = npy_chunks(os.path.join(folder, "X.npy"), os.path.join(folder, "Y.npy"), 2)
    >>> len(chunks), [x.shape for x, _ in chunks]
    (3, [(2, 2), (2, 2), (1, 2)])
    >>> next(iter(chunks))[0]
    array([[0., 1.],
           [2., 3.]])
    """
    X = _NpyRows(X_path, "X_path")
    Y = _NpyRows(Y_path, "Y_path")
    return _SizedChunks(X, Y, check_int(chunk_rows, "chunk_rows", low=1))


class _NpyRows:
    """Rows of a C-ordered ``.npy`` file, sliced by reading the file."""

    def __init__(self, path, name):
        self.path = path
        with open(path, "rb") as file:
            version = np.lib.format.read_magic(file)
            if version == (1, 0):
                header = np.lib.format.read_array_header_1_0(file)
            else:
                header = np.lib.format.read_array_header_2_0(file)
            shape, fortran_order, dtype = header
            self.offset = file.tell()
        if fortran_order or len(shape) not in (1, 2) or dtype.hasobject:
            raise ValueError(
                f"{name} must be a C-ordered 1-D or 2-D numeric .npy file; got shape {shape}, "
                f"dtype {dtype}, fortran_order={fortran_order} in {str(path)!r}."
            )
        self.shape, self.dtype = shape, dtype
        self.row_items = int(np.prod(shape[1:], dtype=np.int64))

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, rows):
        start, stop, _ = rows.indices(self.shape[0])
        count = max(0, stop - start) * self.row_items
        offset = self.offset + start * self.row_items * self.dtype.itemsize
        data = np.fromfile(self.path, dtype=self.dtype, count=count, offset=offset)
        return data.reshape((-1,) + tuple(self.shape[1:]))


class _SizedChunks:
    def __init__(self, X, Y, chunk_rows):
        if len(X) != len(Y):
            raise ValueError(
                f"X and Y must have the same number of rows; got {len(X)} and {len(Y)}."
            )
        self.X, self.Y, self.chunk_rows = X, Y, chunk_rows

    def __len__(self):
        return -(-len(self.X) // self.chunk_rows)

    def __iter__(self):
        return iter_chunks(self.X, self.Y, self.chunk_rows)


def with_progress(chunks, progress=True):
    """``chunks`` shown on stderr as they are read: a tqdm bar when installed, else a counter.

    Examples
    --------
    >>> import numpy as np
    >>> chunks = with_progress(iter_chunks(np.zeros((4, 1)), np.zeros(4), 2), progress=False)
    >>> [x.shape[0] for x, _ in chunks]
    [2, 2]
    """
    if not progress:
        return chunks
    total = len(chunks) if hasattr(chunks, "__len__") else None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # no tqdm: a plain counter on stderr
        return _text_progress(chunks, total)
    return tqdm(chunks, total=total, unit="chunk", desc="randomts fit")


def _text_progress(chunks, total):
    done = 0
    for chunk in chunks:
        yield chunk
        done += 1
        sys.stderr.write(f"\rrandomts fit: {done}" + (f"/{total}" if total else "") + " chunks")
        sys.stderr.flush()
    sys.stderr.write("\n")
