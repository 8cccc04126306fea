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

from randomts.exceptions import FormatError
from randomts.io._base import atomic_write, read_text

__all__ = [
    "read_csv",
    "read_csv_text",
    "read_csv_cells",
    "line_text",
    "format_csv",
    "write_csv",
    "select_columns",
]


def read_csv(path, *, delimiter=",", columns=None):
    """Read a CSV file of numbers with a header row.

    A header whose first cell is empty while the others are named (what
    ``pandas.DataFrame.to_csv`` writes for an unnamed index) marks an index
    column: it is dropped, whatever it holds.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    delimiter : str, default=","
        The one character between cells (``"\\t"`` for tab-separated files).
    columns : sequence of str, optional
        Read only these columns, in this order; the others may hold anything
        (text, dates). By default every column is read.

    Returns
    -------
    header : list of str
        The names of the columns read.
    values : ndarray of shape (n_rows, n_columns)

    Raises
    ------
    FormatError
        With the line and the offending text, for a missing or ambiguous
        header, a row of the wrong length, a cell that is not a finite number
        (naming its column), or no data rows.
    ValueError
        If ``columns`` names a column the header does not have, or
        ``delimiter`` is not one character.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = open(path, "w").write("a,b\\n1,2\\n3\\n")
    >>> read_csv(path)
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: ...data.csv: line 3: expected 2 values as in the header; ...
    >>> _ = open(path, "w").write(",a,b\\n0,1.5,x\\n1,2.5,y\\n")  # pandas' index, a text column
    >>> read_csv(path, columns=["a"])
    (['a'], array([[1.5],
           [2.5]]))
    """
    return _read(path, delimiter, columns, numeric=True)


def read_csv_text(path, *, delimiter=",", columns=None):
    """Read columns of a CSV file with a header row as text (class labels, say).

    The header, the index column and the row lengths are read and checked as
    by :func:`read_csv`; the cells are kept as strings, stripped of the
    spaces around them.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    delimiter : str, default=","
        The one character between cells.
    columns : sequence of str, optional
        Read only these columns, in this order; by default every column.

    Returns
    -------
    header : list of str
        The names of the columns read.
    values : ndarray of str, shape (n_rows, n_columns)

    Raises
    ------
    FormatError
        As :func:`read_csv` does, and for an empty cell (naming its column).
    ValueError
        If ``columns`` names a column the header does not have.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = open(path, "w").write("x,species\\n1.5,setosa\\n2.5, virginica\\n")
    >>> read_csv_text(path, columns=["species"])[1].ravel().tolist()
    ['setosa', 'virginica']
    """
    return _read(path, delimiter, columns, numeric=False)


def read_csv_cells(path, *, delimiter=",", columns=None):
    """Read columns of a CSV file with a header row as they are written, empty cells included.

    The header, the index column and the row lengths are read and checked as
    by :func:`read_csv`; every cell is kept as a string, stripped of the
    spaces around it, whatever it holds, and each row's line number is
    returned, so that the caller can decide what a cell means and name the
    line of a cell it cannot use.

    Parameters
    ----------
    path, delimiter, columns
        As for :func:`read_csv_text`.

    Returns
    -------
    header : list of str
        The names of the columns read.
    cells : ndarray of str, shape (n_rows, n_columns)
    lines : ndarray of int, shape (n_rows,)
        The line of the file each row starts on.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = open(path, "w").write("x,colour\\n1.5,red\\n\\n,blue\\n")
    >>> header, cells, lines = read_csv_cells(path)
    >>> cells.tolist(), lines.tolist()
    ([['1.5', 'red'], ['', 'blue']], [2, 4])
    """
    return _read(path, delimiter, columns, numeric=None)


def line_text(path, number):
    """The text of line ``number`` (from 1) of the file ``path``, for an error message; or None.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = open(path, "w").write("x,y\\n1,2\\n")
    >>> line_text(path, 2), line_text(path, 9)
    ('1,2', None)
    """
    lines = read_text(path).split("\n")
    return lines[number - 1] if 0 < number <= len(lines) else None


def _read(path, delimiter, columns, numeric):
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
        raise ValueError(
            "The 'delimiter' parameter must be one character other than a quote or a line "
            f"break. Got {delimiter!r} instead."
        )
    try:
        return _parse(read_text(path), delimiter, columns, numeric)
    except FormatError as error:
        raise error.with_source(path) from None


#: Delimiters other than the one given that suggest the file uses another one.
_OTHER_DELIMITERS = (";", "\t", ",", "|")


def _delimiter_hint(cell, delimiter):
    """A hint when ``cell`` holds another common delimiter, else an empty string."""
    for other in _OTHER_DELIMITERS:
        if other != delimiter and other in cell:
            return (
                f" (is the file separated by {other!r}? Pass delimiter={other!r}; on the "
                f"command line --delimiter {other!r})"
            )
    return ""


def _parse(text, delimiter, columns, numeric=True):
    lines = text.split("\n")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [name.strip() for name in next(reader)]
    except (StopIteration, csv.Error) as exc:
        raise FormatError(f"no header row ({exc})", line=1, text=lines[0]) from None
    first = 1 if len(header) > 1 and not header[0] and all(header[1:]) else 0  # pandas' index
    names = header[first:]
    if not all(names):
        position = names.index("") + first + 1
        raise FormatError(
            f"column {position} of the header has no name; every column needs one",
            line=1,
            text=lines[0],
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise FormatError(
            f"the header names the column(s) {repeated} more than once", line=1, text=lines[0]
        )
    if columns is None:
        wanted = names
    else:
        wanted = list(columns)
        missing = [n for n in wanted if n not in names]
        if missing:
            hint = _delimiter_hint(lines[0], delimiter) if len(names) == 1 else ""
            raise ValueError(f"The data has no column(s) {missing}; its columns are {names}{hint}.")
    positions = [first + names.index(n) for n in wanted]
    rows, numbers = [], []
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
            if numeric is None:  # the cells as written
                rows.append([row[k].strip() for k in positions])
                numbers.append(number)
                continue
            if not numeric:
                values = [row[k].strip() for k in positions]
                if not all(values):
                    name = header[positions[values.index("")]]
                    raise FormatError(
                        f"column {name!r} is empty in this row", line=number, text=lines[number - 1]
                    )
                rows.append(values)
                continue
            try:
                values = [float(row[k]) for k in positions]
            except ValueError:
                values = None
            if values is None or not np.all(np.isfinite(values)):
                raise _cell_error(row, positions, header, delimiter, number, lines[number - 1])
            rows.append(values)
    except csv.Error as exc:
        raise FormatError(f"bad CSV: {exc}", line=reader.line_num) from None
    if not rows:
        raise FormatError("no data rows after the header", line=1, text=lines[0])
    if numeric is None:
        cells = np.array(rows, dtype=str).reshape(len(rows), len(wanted))
        return wanted, cells, np.array(numbers, dtype=int)
    if not numeric:
        return wanted, np.array(rows, dtype=str).reshape(len(rows), len(wanted))
    return wanted, np.array(rows, dtype=float).reshape(len(rows), len(wanted))


def _cell_error(row, positions, header, delimiter, number, text):
    """The FormatError that names the first cell of ``row`` that is not a finite number."""
    for k in positions:
        cell = row[k]
        try:
            value = float(cell)
        except ValueError:
            return FormatError(
                f"column {header[k]!r} holds {cell.strip()[:40]!r}, not a number"
                + _delimiter_hint(cell, delimiter),
                line=number,
                text=text,
            )
        if not np.isfinite(value):
            return FormatError(
                f"column {header[k]!r} holds {cell.strip()!r}; NaN and infinity are not data",
                line=number,
                text=text,
            )
    return FormatError("not a number in this row", line=number, text=text)


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


def format_csv(header, values, *, delimiter=",") -> str:
    """A table as CSV text with ``repr`` numbers (lossless); a table of strings as they are."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    values = np.asarray(values)
    if values.dtype.kind in "US":
        writer.writerows(values.tolist())
        return buffer.getvalue()
    for row in values.astype(float):
        writer.writerow([repr(float(v)) for v in row])
    return buffer.getvalue()


def write_csv(path, header, values, *, delimiter=",") -> None:
    """Write a table as CSV, atomically."""
    atomic_write(path, format_csv(header, values, delimiter=delimiter).encode("utf-8"))
