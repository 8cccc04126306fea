"""Input checks shared by every layer.

Each check raises a :class:`ValueError` or :class:`TypeError` whose message
names the parameter or input, what was received and what is allowed.
"""

from __future__ import annotations

import datetime
import numbers

import numpy as np
from sklearn.utils.validation import validate_data

__all__ = [
    "check_matrix",
    "check_int",
    "check_real",
    "check_option",
    "check_int_option",
    "check_pair",
    "constant_columns",
    "positions_text",
    "validate_numeric_data",
]


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def check_int(value, name: str, *, low: int | None = None, owner: str | None = None) -> int:
    """Return ``value`` as an int, or raise naming ``name``.

    Examples
    --------
    >>> check_int(3, "n_rules", low=1)
    3
    >>> check_int(0, "n_rules", low=1, owner="RuleBase")
    Traceback (most recent call last):
    ...
    ValueError: The 'n_rules' parameter of RuleBase must be an int in the range [1, inf). Got 0 instead.
    """
    where = f" of {owner}" if owner else ""
    allowed = "an int" if low is None else f"an int in the range [{low}, inf)"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"The {name!r} parameter{where} must be {allowed}. Got {_describe(value)} instead."
        )
    if low is not None and value < low:
        raise ValueError(f"The {name!r} parameter{where} must be {allowed}. Got {value!r} instead.")
    return int(value)


def check_real(
    value,
    name: str,
    *,
    low: float | None = None,
    low_inclusive: bool = True,
    owner: str | None = None,
) -> float:
    """Return ``value`` as a finite float, or raise naming ``name``.

    Examples
    --------
    >>> check_real(0.5, "alpha", low=0.0)
    0.5
    >>> check_real(-1.0, "alpha", low=0.0)
    Traceback (most recent call last):
    ...
    ValueError: The 'alpha' parameter must be a finite real number in the range [0.0, inf). Got -1.0 instead.
    """
    where = f" of {owner}" if owner else ""
    if low is None:
        allowed = "a finite real number"
    else:
        bracket = "[" if low_inclusive else "("
        allowed = f"a finite real number in the range {bracket}{low!r}, inf)"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"The {name!r} parameter{where} must be {allowed}. Got {_describe(value)} instead."
        )
    value = float(value)
    too_low = low is not None and (value < low if low_inclusive else value <= low)
    if not np.isfinite(value) or too_low:
        raise ValueError(f"The {name!r} parameter{where} must be {allowed}. Got {value!r} instead.")
    return value


def check_option(value, name: str, options, *, owner: str | None = None) -> str:
    """Return ``value`` if it is one of ``options``, or raise naming ``name``.

    Examples
    --------
    >>> check_option("lstsq", "solver", ("lstsq", "pinv"))
    'lstsq'
    >>> check_option("qr", "solver", ("lstsq", "pinv"))
    Traceback (most recent call last):
    ...
    ValueError: The 'solver' parameter must be a str among {'lstsq', 'pinv'}. Got 'qr' instead.
    """
    where = f" of {owner}" if owner else ""
    listed = "{" + ", ".join(repr(o) for o in options) + "}"
    if not isinstance(value, str) or value not in options:
        error = ValueError if isinstance(value, str) else TypeError
        raise error(
            f"The {name!r} parameter{where} must be a str among {listed}. Got {value!r} instead."
        )
    return value


def check_matrix(
    X,
    name: str = "X",
    *,
    n_columns: int | None = None,
    ndim: int = 2,
    min_rows: int = 1,
    allow_1d: bool = False,
    column_label: str = "features",
    row_label: str = "sample(s)",
    owner: str | None = None,
) -> np.ndarray:
    """Return ``X`` as a finite float64 array with ``ndim`` dimensions.

    Parameters
    ----------
    X : array-like
        The input to check.
    name : str
        The name of the input, used in error messages.
    n_columns : int, optional
        The required length of the last axis.
    ndim : int
        The required number of dimensions.
    min_rows : int
        The least number of rows (first axis) allowed.
    allow_1d : bool
        When ``ndim == 2``, accept a 1-D array and return it as one column.
    column_label : str
        What the last axis counts, for error messages.
    row_label : str
        What the first axis counts, for error messages.
    owner : str, optional
        The object that expects ``X``, for error messages.

    Returns
    -------
    ndarray of float64
        A C-contiguous copy or view of ``X``.

    Examples
    --------
    >>> check_matrix([[1, 2], [3, 4]]).dtype
    dtype('float64')
    >>> check_matrix([[1.0, float("nan")]])
    Traceback (most recent call last):
    ...
    ValueError: Input X contains NaN or infinity (first at row 0, column 1); all values must be finite.
    >>> check_matrix([[1.0, 2.0]], n_columns=3, owner="RuleBase")
    Traceback (most recent call last):
    ...
    ValueError: X has 2 features, but RuleBase is expecting 3 features as input.
    """
    if hasattr(X, "to_numpy") and not isinstance(X, np.ndarray):
        X = X.to_numpy()
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise ValueError(f"Input {name} could not be read as a numeric array: {exc}") from None
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"Input {name} must hold real numbers; got an array of dtype {arr.dtype}."
            ) from None
    if np.iscomplexobj(arr):
        raise TypeError(f"Input {name} must hold real numbers; got complex values.")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if allow_1d and ndim == 2 and arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != ndim:
        raise ValueError(
            f"Input {name} must be a {ndim}-D array; got {arr.ndim}-D with shape {arr.shape}."
            + (" Reshape 1-D data with X.reshape(-1, 1) for one feature." if arr.ndim == 1 else "")
        )
    if arr.shape[0] < min_rows:
        raise ValueError(
            f"Input {name} has {arr.shape[0]} {row_label} (shape={arr.shape}) while a minimum of "
            f"{min_rows} is required."
        )
    if arr.ndim >= 2 and arr.shape[-1] == 0:
        raise ValueError(
            f"Input {name} has 0 {column_label} (shape={arr.shape}); at least 1 is required."
        )
    if n_columns is not None and arr.shape[-1] != n_columns:
        whom = owner or "the model"
        raise ValueError(
            f"{name} has {arr.shape[-1]} {column_label}, but {whom} is expecting {n_columns} "
            f"{column_label} as input."
        )
    finite = np.isfinite(arr)
    if not finite.all():
        where = np.argwhere(~finite)[0]
        position = ", ".join(
            f"{label} {int(i)}" for label, i in zip(("row", "column", "index"), where, strict=False)
        )
        raise ValueError(
            f"Input {name} contains NaN or infinity (first at {position}); all values must be finite."
        )
    return arr


def check_int_option(value, name: str, options, *, owner: str | None = None) -> int:
    """Return ``value`` if it is one of the integer ``options``.

    Examples
    --------
    >>> check_int_option(2, "order", (0, 1))
    Traceback (most recent call last):
    ...
    ValueError: The 'order' parameter must be an int among [0, 1]. Got 2 instead.
    """
    where = f" of {owner}" if owner else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value not in options:
        error = ValueError if isinstance(value, numbers.Integral) else TypeError
        raise error(
            f"The {name!r} parameter{where} must be an int among {list(options)}. Got {value!r} instead."
        )
    return int(value)


def check_pair(pair, name: str, *, low: float | None = None, owner: str | None = None):
    """Return ``(a, b)`` as floats with ``low <= a < b``, or raise naming ``name``.

    Examples
    --------
    >>> check_pair((0, 1), "width_range", low=0.0)
    (0.0, 1.0)
    >>> check_pair((1, 1), "width_range", low=0.0)
    Traceback (most recent call last):
    ...
    ValueError: The 'width_range' parameter must be a pair (low, high) of finite numbers with 0.0 <= low < high. Got (1, 1) instead.
    """
    where = f" of {owner}" if owner else ""
    floor = "" if low is None else f"{low!r} <= "
    message = (
        f"The {name!r} parameter{where} must be a pair (low, high) of finite numbers with "
        f"{floor}low < high. Got {pair!r} instead."
    )
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ValueError(message)
    a, b = pair
    for value in (a, b):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(message)
    a, b = float(a), float(b)
    if not (np.isfinite(a) and np.isfinite(b) and a < b) or (low is not None and a < low):
        raise ValueError(message)
    return a, b


def positions_text(positions, word="row", limit=5):
    """``row 3``, ``rows 3 and 10`` or ``rows 3, 10, 17, 24, 31 and 6 more`` (``word``: "line", ...).

    Examples
    --------
    >>> positions_text([4]), positions_text([4, 8], "line"), positions_text(range(9))
    ('row 4', 'lines 4 and 8', 'rows 0, 1, 2, 3, 4 and 4 more')
    """
    positions = [int(p) for p in positions]
    if len(positions) == 1:
        return f"{word} {positions[0]}"
    shown = ", ".join(str(p) for p in positions[: min(limit, len(positions) - 1)])
    rest = len(positions) - min(limit, len(positions) - 1)
    return f"{word}s {shown} and {positions[-1] if rest == 1 else f'{rest} more'}"


def _column_name(label, name, position=None):
    """How a message names a column: by a DataFrame's name, else by position and rule name."""
    if position is None:
        return f"column {label!r} of {name}"
    if name == "X":
        return f"column {position} (x{position + 1}) of X"
    return f"column {position} of {name}"


_MISSING_HINT = {
    "X": "Drop those rows (e.g. DataFrame.dropna()) or fill them in (e.g. scikit-learn's "
    "SimpleImputer in a pipeline).",
    "y": "Drop those rows from X and y.",
}


def _cell_kind(cell):
    """What a cell that does not convert to a float is: missing, text, dates, or another type.

    ``"missing"``, ``"text"``, ``"dates"``, ``"durations"`` or the type's
    name; None for a cell that is a number (or text of one).
    """
    if cell is None or type(cell).__name__ in ("NAType", "NaTType"):
        return "missing"
    if isinstance(cell, (datetime.date, datetime.time, np.datetime64)):
        return "dates"
    if isinstance(cell, (datetime.timedelta, np.timedelta64)):
        return "durations"
    try:
        float(cell)
    except (TypeError, ValueError):
        return "text" if isinstance(cell, (str, bytes)) else type(cell).__name__
    return None


_DATES_HINT = {
    "dates": "convert them to numbers first, e.g. days since the first date, "
    "(X[{col}] - X[{col}].min()) / pandas.Timedelta(days=1), or calendar parts (day of the "
    "year, hour) as columns of their own",
    "durations": "convert them to numbers first, e.g. seconds, X[{col}].dt.total_seconds()",
}


def _dates_hint(found, label):
    """What to do with a column of dates or durations, with its name where it has one."""
    return _DATES_HINT[found].format(col=repr(label) if label is not None else "col")


def _not_numbers(values, where, owner, hint, missing_hint, label):
    """The error for a column of cells that do not all convert to floats (``values`` 1-D)."""
    examples, missing = [], []
    found = None
    for row, cell in enumerate(values.tolist()):
        kind = _cell_kind(cell)
        if kind == "missing":
            missing.append(row)
        elif kind is not None and found is None:
            found = kind
        if kind == "text" and cell not in examples and len(examples) < 3:
            examples.append(cell)
    if found == "text":
        shown = ", ".join(repr(v) for v in examples)
        return ValueError(f"{where} of {owner} must hold numbers; got text: {shown}. {hint}")
    if found in _DATES_HINT:
        return TypeError(
            f"{where} of {owner} holds {found}, not numbers: {_dates_hint(found, label)}."
        )
    if found is not None:  # other objects: scikit-learn's conversion error names their type
        return None
    if missing:
        return ValueError(
            f"{where} of {owner} holds missing values (None or NA) in {_count(missing)} "
            f"({positions_text(missing)}); every value must be a finite number. {missing_hint}"
        )
    return None


def _count(rows):
    return f"{len(rows)} row" + ("s" if len(rows) != 1 else "")


def _check_finite_column(values, where, owner, missing_hint):
    """Raise naming ``where`` and the first rows if the float column ``values`` is not finite."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(values.sum()):  # a finite sum proves every entry finite
            return
    nan = np.flatnonzero(np.isnan(values))
    inf = np.flatnonzero(np.isinf(values))
    parts = [
        f"{label} in {_count(rows)} ({positions_text(rows)})"
        for label, rows in (("NaN", nan), ("infinity", inf))
        if rows.size
    ]
    if parts:
        raise ValueError(
            f"{where} of {owner} holds {' and '.join(parts)}; every value must be a finite "
            f"number. {missing_hint}"
        )


def _check_column(values, where, owner, hint, missing_hint, label=None):
    """Check one column (1-D array) of an input: numbers, finite; named by ``where``.

    ``label`` is the column's name in a DataFrame, for the hints.
    """
    kind = values.dtype.kind
    if kind in "Mm":
        found = "dates" if kind == "M" else "durations"
        raise TypeError(
            f"{where} of {owner} holds {found} ({values.dtype}), not numbers: "
            f"{_dates_hint(found, label)}."
        )
    if kind in "biuc":  # integers and booleans (0/1) are finite; complex is scikit-learn's
        return
    if kind in "USOV":
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            error = _not_numbers(values, where, owner, hint, missing_hint, label)
            if error is not None:
                raise error from None
            return
    _check_finite_column(values, where, owner, missing_hint)


def _check_input(data, name, owner, hint):
    """Check every column of ``data`` (X or y), named as the user knows it; the array if read.

    Text, dates, durations, missing values, NaN and infinity are refused with
    the column (a DataFrame's name, else its position) and the first rows.
    """
    missing_hint = _MISSING_HINT[name]
    columns = getattr(data, "columns", None)
    if columns is not None and hasattr(data, "dtypes"):  # a DataFrame: name the columns
        for label in columns:
            where = _column_name(label, name)
            _check_column(np.asarray(data[label]), where, owner, hint, missing_hint, label)
        return None
    if hasattr(data, "dtype") and hasattr(data, "name") and hasattr(data, "to_numpy"):
        values = np.asarray(data)  # a Series: its name, if it has one
        where = name if data.name is None else f"{name} ({data.name!r})"
        _check_column(values, where, owner, hint, missing_hint)
        return values
    try:
        values = np.asarray(data)
    except (TypeError, ValueError):  # ragged: scikit-learn's checks say so
        return None
    if values.ndim == 1:
        _check_column(values, name, owner, hint, missing_hint)
    elif values.ndim == 2:
        kind = values.dtype.kind
        if kind == "f":  # the common case: one pass over the whole array
            with np.errstate(over="ignore", invalid="ignore"):
                if np.isfinite(values.sum()):
                    return values
        if kind not in "biuc":
            for k in range(values.shape[1]):
                where = _column_name(None, name, k)
                _check_column(values[:, k], where, owner, hint, missing_hint)
    return values


def constant_columns(X):
    """Positions of the columns of the 2-D array ``X`` that hold one value in every row.

    Examples
    --------
    >>> constant_columns(np.array([[1.0, 2.0, 0.5], [3.0, 2.0, 0.5]])).tolist()
    [1, 2]
    """
    if X.shape[0] < 2:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(np.all(X == X[:1], axis=0))


_X_HINT = (
    "Encode text inputs as numbers (e.g. scikit-learn's OneHotEncoder or OrdinalEncoder in a "
    "pipeline) or drop them."
)
_Y_HINT = "A regressor's targets are numbers; for class labels use RandomTSClassifier."


def validate_numeric_data(estimator, X, y="no_validation", *, numeric_y=True, **kwargs):
    """scikit-learn's ``validate_data``, after refusing by name what is not a finite number.

    Before scikit-learn's checks, each column of ``X`` (by name for a
    DataFrame, by position otherwise) and, with ``numeric_y``, of ``y`` is
    checked, and the first that does not hold finite numbers raises an
    error that names it and says what to do: text (a :class:`ValueError`
    pointing to an encoder), dates and durations (a :class:`TypeError`
    saying how to turn them into numbers), missing values, NaN and infinity
    (a :class:`ValueError` naming the first rows, by position from 0).
    Booleans are numbers, 0 and 1. With ``numeric_y``, targets written as
    text that are all numbers are read as numbers, as ``X`` is. The arrays
    come back in row-major order, so that the numbers of a fit do not depend
    on the layout the data came in (a DataFrame's columns, a Fortran-ordered
    array): the products of BLAS round by it.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.array([["1.0", "a"], ["2.0", "b"]])
    >>> validate_numeric_data(RandomTSRegressor(), X, [1.0, 2.0])
    Traceback (most recent call last):
    ...
    ValueError: column 1 (x2) of X of RandomTSRegressor must hold numbers; got text: 'a', 'b'. ...
    >>> X = np.array([[1.0, 2.0], [np.nan, 3.0], [np.nan, 1.0]])
    >>> validate_numeric_data(RandomTSRegressor(), X, [1.0, 2.0, 3.0])
    Traceback (most recent call last):
    ...
    ValueError: column 0 (x1) of X of RandomTSRegressor holds NaN in 2 rows (rows 1 and 2); ...
    """
    owner = type(estimator).__name__
    kwargs.setdefault("order", "C")
    _check_input(X, "X", owner, _X_HINT)
    has_y = y is not None and not (isinstance(y, str) and y == "no_validation")
    if numeric_y and has_y:
        values = _check_input(y, "y", owner, _Y_HINT)
        if values is not None and values.dtype.kind in "US":  # numbers written as text
            y = values.astype(np.float64)
        if kwargs.get("multi_output") and kwargs.get("y_numeric"):
            return _validate_numeric_targets(estimator, X, y, owner, **kwargs)
    return validate_data(estimator, X, y, **kwargs)


def _validate_numeric_targets(
    estimator, X, y, owner, *, multi_output, y_numeric, reset=True, **kwargs
):
    """``validate_data`` of ``X`` and of 1-D or 2-D numeric targets: one array check each.

    scikit-learn's ``check_X_y`` reaches the same arrays through three more
    helpers; here ``X`` and ``y`` are checked once each (``y`` like ``X``,
    without the requirement of two dimensions), and their numbers of rows
    compared by name.
    """
    y_params = {"ensure_2d": False, "dtype": kwargs.get("dtype", "numeric"), "order": "C"}
    X, y = validate_data(estimator, X, y, reset=reset, validate_separately=(kwargs, y_params))
    if y.ndim > 2:
        raise ValueError(
            f"y of {owner} must be 1-D (one output) or 2-D (one column per output). "
            f"Got an array of shape {y.shape} instead."
        )
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X and y of {owner} have inconsistent numbers of samples: {X.shape[0]} rows "
            f"in X, {y.shape[0]} in y. They must have one row per sample."
        )
    return X, y
