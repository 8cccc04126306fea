"""Numeric CSV tables with a header row, for the command line's data files.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
>>> _ = open(path, "w").write("x1,x2,y\\n0.5,1,2\\n1.5,-1,0\\n")
>>> header, values = read_csv(path)
>>> header, values.shape
(['x1', 'x2', 'y'], (2, 3))
>>> print(format_csv(["y"], [[0.1], [2.0]]), end="")
y
0.1
2.0
"""

from __future__ import annotations

import csv
import io

import numpy as np

from ..exceptions import FormatError
from ._base import atomic_write, read_text

__all__ = ["read_csv", "format_csv", "write_csv", "select_columns"]


def read_csv(path):
    """Read a CSV file of numbers with a header row.

    Returns
    -------
    header : list of str
    values : ndarray of shape (n_rows, n_columns)

    Raises
    ------
    FormatError
        With the line and the offending text, for a missing header, a row of
        the wrong length, a cell that is not a finite number, or no data rows.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = open(path, "w").write("a,b\\n1,2\\n3\\n")
    >>> read_csv(path)
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: ...data.csv: line 3: expected 2 values as in the header; ...
    """
    try:
        return _parse(read_text(path))
    except FormatError as error:
        raise error.with_source(path) from None


def _parse(text):
    lines = text.split("\n")
    reader = csv.reader(io.StringIO(text))
    try:
        header = [name.strip() for name in next(reader)]
    except (StopIteration, csv.Error) as exc:
        raise FormatError(f"no header row ({exc})", line=1, text=lines[0]) from None
    if not all(header) or len(set(header)) != len(header):
        raise FormatError(
            "the header must hold distinct, non-empty column names", line=1, text=lines[0]
        )
    rows = []
    try:
        for row in reader:
            number = reader.line_num
            if not row or not "".join(row).strip():
                continue
            if len(row) != len(header):
                raise FormatError(
                    f"expected {len(header)} values as in the header; got {len(row)}",
                    line=number,
                    text=lines[number - 1],
                )
            try:
                values = [float(cell) for cell in row]
            except ValueError:
                raise FormatError(
                    "not a number in this row", line=number, text=lines[number - 1]
                ) from None
            if not np.all(np.isfinite(values)):
                raise FormatError(
                    "NaN or infinity in this row", line=number, text=lines[number - 1]
                )
            rows.append(values)
    except csv.Error as exc:
        raise FormatError(f"bad CSV: {exc}", line=reader.line_num) from None
    if not rows:
        raise FormatError("no data rows after the header", line=1, text=lines[0])
    return header, np.array(rows, dtype=float)


def select_columns(header, values, names, what="columns"):
    """The columns ``names`` of a table, by name, or a ValueError naming the missing ones.

    Examples
    --------
    >>> import numpy as np
    >>> select_columns(["a", "b"], np.array([[1.0, 2.0]]), ["b"])
    array([[2.]])
    """
    missing = [n for n in names if n not in header]
    if missing:
        raise ValueError(f"The data has no {what} {missing}; its columns are {header}.")
    return values[:, [header.index(n) for n in names]]


def format_csv(header, values) -> str:
    """A table as CSV text with ``repr`` numbers (lossless)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in np.asarray(values, dtype=float):
        writer.writerow([repr(float(v)) for v in row])
    return buffer.getvalue()


def write_csv(path, header, values) -> None:
    """Write a table as CSV, atomically."""
    atomic_write(path, format_csv(header, values).encode("utf-8"))
