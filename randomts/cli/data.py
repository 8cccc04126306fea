"""What the subcommands read from CSV files: columns by name, missing cells, text inputs.

Every subcommand reads only the columns it uses, so the others may hold
anything. A cell that is empty or ``NA``, ``N/A``, ``NaN``, ``null``,
``None``, ``?`` (any case) is missing: a row with a missing cell in a column
used is refused, naming the column and the lines, unless ``--missing drop``
leaves it out (the count is reported on stderr). ``fit`` one-hot encodes an
input column whose every cell is text: one 0/1 input ``<column>_<value>`` per
value (for two values, one input for the second in sorted order), recorded in
the saved model's metadata under ``"text_inputs"``, so that ``predict``,
``explain``, ``rules --data`` and ``plot --data`` read the same column of text
from the same kind of file.
"""

from __future__ import annotations

import hashlib

import numpy as np

from randomts._validation import positions_text
from randomts.cli.common import note
from randomts.exceptions import FormatError

__all__ = [
    "MISSING",
    "Table",
    "add_missing",
    "encode_inputs",
    "inputs_at",
    "inputs_of",
    "model_inputs",
    "rows_digest",
    "source_columns",
]

#: Cells read as missing, compared without case (pandas' defaults, and ``?``).
MISSING = frozenset({"", "na", "n/a", "nan", "-nan", "null", "none", "<na>", "#n/a", "?"})

# A text column with more distinct values than this, and than half its rows, is a name or an
# identifier, not a category (mtcars' car names: 32 values in 32 rows).
_MAX_LEVELS_AT_ANY_SIZE = 10


def add_missing(cmd):
    """Add the ``--missing`` option of a command that reads a CSV file of data."""
    cmd.add_argument(
        "--missing",
        choices=("refuse", "drop"),
        default="refuse",
        help="a row with a missing cell (empty, NA, NaN, null, ...) in a column used: "
        "'refuse' it with an error naming the lines (default), or 'drop' it and report "
        "how many were dropped",
    )


def _lines_text(lines):
    return positions_text(lines, "line")


def _rows(count):
    return f"{count} row" + ("" if count == 1 else "s")


class Table:
    """Columns of a CSV file as the cells written, with the line of each row.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = open(path, "w").write("x,city\\n1.5,Rome\\nNA,Oslo\\n")
    >>> table = Table.read(path)
    >>> table.missing(["x"]).tolist(), table.is_text("city")
    ([False, True], True)
    """

    def __init__(self, path, header, cells, lines):
        self.path = str(path)
        self.header = list(header)
        self.cells = cells
        self.lines = lines

    @classmethod
    def read(cls, path, *, delimiter=",", columns=None, what="column(s)"):
        """The columns ``columns`` (all by default) of the CSV file ``path``.

        A column missing from the header raises a ValueError naming it as
        ``what`` and listing the file's columns.
        """
        from randomts.io.csv_data import read_csv_cells

        header, cells, lines = read_csv_cells(path, delimiter=delimiter)
        if columns is None:
            return cls(path, header, cells, lines)
        missing = [name for name in columns if name not in header]
        if missing:
            if len(header) == 1:  # one column: is the file separated otherwise? (its error says)
                read_csv_cells(path, delimiter=delimiter, columns=missing)
            raise ValueError(f"The data has no {what} {missing}; its columns are {header}.")
        table = cls(path, header, cells, lines)
        return cls(path, list(columns), table.cells[:, [header.index(n) for n in columns]], lines)

    @property
    def n_rows(self):
        return self.cells.shape[0]

    def column(self, name):
        """The cells of the column ``name``."""
        return self.cells[:, self.header.index(name)]

    def take(self, rows):
        """The table of the rows ``rows`` (a boolean mask or indices)."""
        return Table(self.path, self.header, self.cells[rows], self.lines[rows])

    def missing(self, columns):
        """A boolean mask of the rows with a missing cell in one of ``columns``."""
        if not columns:
            return np.zeros(self.n_rows, dtype=bool)
        cells = np.char.lower(self.cells[:, [self.header.index(n) for n in columns]])
        return np.isin(cells, list(MISSING)).any(axis=1)

    def without_missing(
        self, columns, policy, option="--missing drop", dropped="dropped", notes=None
    ):
        """The table without the rows missing a cell in ``columns``, as ``policy`` says.

        ``"refuse"``: a ValueError naming each column with missing cells, its
        lines and ``option``; ``"drop"``: the other rows, and a line on stderr
        saying how many rows were ``dropped``.
        """
        lowered = {
            name: np.isin(np.char.lower(self.column(name)), list(MISSING)) for name in columns
        }
        counts = {name: int(mask.sum()) for name, mask in lowered.items() if mask.any()}
        if not counts:
            return self
        if policy != "drop":
            parts = [
                f"column {name!r} in {_rows(count)} ({_lines_text(self.lines[lowered[name]])})"
                for name, count in counts.items()
            ]
            raise ValueError(
                f"{self.path}: missing values (empty, NA, NaN, ...) in "
                + "; ".join(parts)
                + f". Pass {option} to leave those rows out, or fill them in."
            )
        gone = np.any(list(lowered.values()), axis=0)
        if gone.all():
            raise ValueError(
                f"{self.path}: every one of its {_rows(self.n_rows)} misses a value in the "
                f"columns used {list(columns)}; nothing is left to use."
            )
        per_column = ", ".join(f"{name} {count}" for name, count in counts.items())
        note(
            notes,
            f"{dropped} {int(gone.sum())} of {self.n_rows} rows of {self.path} with a "
            f"missing value ({per_column})",
        )
        return self.take(~gone)

    def not_a_number(self, name, row, problem="not a number"):
        """The FormatError for the cell of column ``name`` in ``row``, quoting its line."""
        from randomts.io.csv_data import line_text

        line = int(self.lines[row])
        cell = self.column(name)[row]
        return FormatError(
            f"column {name!r} holds {cell[:40]!r}, {problem}",
            line=line,
            text=line_text(self.path, line),
            source=self.path,
        )

    def numbers(self, name):
        """The column ``name`` as finite floats, or a FormatError naming the first bad cell."""
        cells = self.column(name)
        try:
            values = cells.astype(np.float64)
        except ValueError:
            values = None
        if values is None:
            for row, cell in enumerate(cells):
                try:
                    float(cell)
                except ValueError:
                    raise self.not_a_number(name, row) from None
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise self.not_a_number(name, bad[0], "NaN and infinity are not data")
        return values

    def is_text(self, name):
        """Whether no cell of the column ``name`` is a number: a column of text."""
        for cell in self.column(name):
            try:
                float(cell)
            except ValueError:
                continue
            return False
        return True


def _dates(cells):
    """Whether every cell is an ISO 8601 date or time (``2001-01-31``, ``2001-01-31T12:00``)."""
    try:
        np.array(cells, dtype="datetime64")
    except ValueError:
        return False
    return True


def encode_inputs(table, columns, *, chosen, notes=None):
    """The inputs of ``fit``: ``(X, names, text_inputs)``, text columns one-hot.

    ``columns`` are the input columns; ``chosen`` says whether the user named
    them (``--input``). A column whose every cell is text is one-hot encoded;
    one that looks like a name or an identifier (more distinct values than
    half its rows, and than 10) is left out with a note when the inputs were
    not named, refused when they were. A column that mixes numbers and text
    is refused at its first text cell.
    """
    blocks, names, text_inputs = [], [], {}
    for column in columns:
        if not table.is_text(column):
            blocks.append(table.numbers(column)[:, None])
            names.append(column)
            continue
        cells = table.column(column)
        if _dates(cells):
            what = (
                f"column {column!r} of {table.path} holds dates, e.g. {str(cells[0])!r}, not "
                "numbers; a column of numbers made of them (days since the first, say) can be "
                "an input"
            )
            if chosen:
                raise ValueError(what + ".")
            note(notes, f"left out of the inputs: {what}")
            continue
        levels = sorted(set(cells.tolist()))
        if len(levels) > _MAX_LEVELS_AT_ANY_SIZE and 2 * len(levels) > table.n_rows:
            what = (
                f"column {column!r} of {table.path} holds text with {len(levels)} different values "
                f"in {_rows(table.n_rows)}, e.g. {levels[0]!r}: a name or an identifier, not a "
                "category"
            )
            if chosen:
                raise ValueError(f"{what}; it cannot be an input. Leave it out of --input.")
            note(notes, f"left out of the inputs: {what}")
            continue
        encoded = levels[1:] if len(levels) == 2 else levels
        inputs = {f"{column}_{level}": level for level in encoded}
        clash = [name for name in inputs if name in table.header or name in names]
        if clash:
            raise ValueError(
                f"The one-hot inputs of the text column {column!r} would be named {clash}, "
                f"which {table.path} already has; rename one of the columns."
            )
        blocks.append(np.column_stack([cells == level for level in encoded]).astype(float))
        names += list(inputs)
        text_inputs[column] = {"levels": levels, "inputs": inputs}
    if not names:
        raise ValueError(f"{table.path} has no input columns left to fit on.")
    if text_inputs:
        listed = "; ".join(
            f"{column} as {', '.join(spec['inputs'])}" for column, spec in text_inputs.items()
        )
        note(notes, f"one-hot encoded text: {listed}")
    # column by column, as a DataFrame of the same columns hands them to the estimator: the fit
    # then equals one on that DataFrame bit for bit
    return np.asfortranarray(np.hstack(blocks)), names, text_inputs


def source_columns(rule_base):
    """The CSV columns a model's inputs come from, in order: text columns once for their inputs."""
    text_inputs = getattr(rule_base, "metadata", {}).get("text_inputs") or {}
    source = {
        name: column for column, spec in text_inputs.items() for name in spec.get("inputs", {})
    }
    columns = []
    for name in rule_base.input_names:
        column = source.get(name, name)
        if column not in columns:
            columns.append(column)
    return columns, source


def model_inputs(
    path,
    rule_base,
    *,
    delimiter=",",
    missing="refuse",
    extra=(),
    extra_what="output column(s)",
    dropped="dropped",
    notes=None,
):
    """``(X, table, kept)``: a model's inputs from the CSV file ``path``, by name, as ``fit`` read them.

    The input columns (a text column once for its one-hot inputs) and the
    ``extra`` columns (``extra_what``: outputs, a target) are read; the file's
    other columns may hold anything. Rows missing a cell in a column read
    follow ``missing`` (``dropped`` words the note); ``kept`` marks, among
    the file's rows, those in ``table`` and ``X``. A value of a text column
    that ``fit`` did not see gets 0 in every input of that column, with a
    line on stderr.
    """
    columns, source = source_columns(rule_base)
    table = Table.read(path, delimiter=delimiter)
    Table.read(path, delimiter=delimiter, columns=columns, what="input column(s)")
    extra = [name for name in extra if name not in columns]
    Table.read(path, delimiter=delimiter, columns=extra, what=extra_what)
    wanted = columns + extra
    table = Table(
        path, wanted, table.cells[:, [table.header.index(n) for n in wanted]], table.lines
    )
    all_lines = table.lines
    table = table.without_missing(wanted, missing, dropped=dropped, notes=notes)
    X = inputs_of(table, rule_base, source, notes=notes)
    return X, table, np.isin(all_lines, table.lines)


def inputs_of(table, rule_base, source=None, notes=None):
    """The model's inputs from the columns of ``table`` (see :func:`model_inputs`)."""
    if source is None:
        _, source = source_columns(rule_base)
    text_inputs = getattr(rule_base, "metadata", {}).get("text_inputs") or {}
    X = np.empty((table.n_rows, rule_base.n_features), order="F")  # a DataFrame's layout
    for k, name in enumerate(rule_base.input_names):
        column = source.get(name)
        if column is None:
            X[:, k] = table.numbers(name)
        else:
            X[:, k] = table.column(column) == text_inputs[column]["inputs"][name]
    for column, spec in text_inputs.items():
        if column not in table.header:
            continue
        unknown = ~np.isin(table.column(column), spec["levels"])
        if unknown.any():
            first = str(table.column(column)[unknown][0])
            note(
                notes,
                f"warning: column {column!r} of {table.path} holds values the model "
                f"was not fitted to, e.g. {first!r}, in {_rows(int(unknown.sum()))} "
                f"({_lines_text(table.lines[unknown])}): their inputs "
                f"{', '.join(spec['inputs'])} are all 0",
            )
    return X


def rows_digest(table, columns):
    """A SHA-256 of the rows of ``table`` in ``columns``, whatever their order.

    Two files with the same rows (the cells as written) have the same digest:
    ``predict --calibration`` compares it with the one ``fit`` saved.
    """
    positions = [table.header.index(name) for name in columns]
    rows = sorted(
        hashlib.sha256("\x1f".join(row).encode("utf-8")).digest()
        for row in table.cells[:, positions].tolist()
    )
    return hashlib.sha256(b"".join(rows)).hexdigest()


def inputs_at(text, rule_base):
    """One input row from ``--x``: values in the model's input order, or ``name=value`` pairs.

    Names are the model's inputs or, for one-hot inputs, the text column
    they come from (``ShelveLoc=Good``); every input must be given once.
    """
    items = [item.strip() for item in text.split(",")]
    names = list(rule_base.input_names)
    if not any("=" in item for item in items):  # positions
        try:
            x = [float(v) for v in items]
        except ValueError:
            raise ValueError(
                f"--x must be comma-separated numbers in the model's input order, or "
                f"name=value pairs; got {text!r}."
            ) from None
        if len(x) != len(names):
            raise ValueError(
                f"--x has {len(x)} value(s) but the model has {len(names)} inputs {names}."
            )
        return x
    given = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--x: {item!r} is not name=value; give every input by name.")
        given[name.strip()] = value.strip()
    columns, source = source_columns(rule_base)
    known = set(columns) | set(names)
    unknown = [name for name in given if name not in known]
    if unknown:
        raise ValueError(f"--x names {unknown}, not inputs of the model; its inputs are {columns}.")
    text_inputs = getattr(rule_base, "metadata", {}).get("text_inputs") or {}
    x = []
    absent = []
    for name in names:
        column = source.get(name)
        if column is not None and column in given:
            levels = text_inputs[column]["levels"]
            if given[column] not in levels:
                raise ValueError(
                    f"--x: {column}={given[column]!r} is not a value the model was fitted to; "
                    f"{column} takes {levels}."
                )
            x.append(float(given[column] == text_inputs[column]["inputs"][name]))
            continue
        if name not in given:
            absent.append(column or name)
            continue
        try:
            x.append(float(given[name]))
        except ValueError:
            raise ValueError(f"--x: {name}={given[name]!r} is not a number.") from None
    if absent:
        missing = list(dict.fromkeys(absent))
        raise ValueError(f"--x gives no value for {missing}; give every input: {columns}.")
    return x
