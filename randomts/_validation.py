"""Input checks shared by every layer.

Each check raises a :class:`ValueError` or :class:`TypeError` whose message
names the parameter or input, what was received and what is allowed.
"""

from __future__ import annotations

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


def _text_examples(values):
    """Up to three distinct strings of ``values`` that are not numbers, and the first's index."""
    examples, first = [], None
    for index, value in enumerate(values.ravel().tolist()):
        if not isinstance(value, (str, bytes)):
            continue
        try:
            float(value)
        except ValueError:
            first = index if first is None else first
            if value not in examples:
                examples.append(value)
            if len(examples) == 3:
                break
    return examples, first


def _refuse_text(values, where, owner, hint):
    """Raise naming ``where`` if the array ``values`` holds a string that is not a number."""
    if values.dtype.kind not in "USO":
        return
    try:
        values.astype(np.float64)
    except (TypeError, ValueError):  # text, or objects that scikit-learn's checks refuse
        examples, first = _text_examples(values)
        if examples:
            if where == "X" and values.ndim == 2:
                where = f"column {first % values.shape[1]} of X"
            shown = ", ".join(repr(v) for v in examples)
            raise ValueError(
                f"{where} of {owner} must hold numbers; got text: {shown}. {hint}"
            ) from None


def _check_no_text(data, name, owner, hint):
    """Refuse text in ``data`` by column; return it as an array where it was read as one."""
    columns = getattr(data, "columns", None)
    if columns is not None and hasattr(data, "dtypes"):  # a DataFrame: name the column
        for label, dtype in zip(columns, data.dtypes, strict=True):
            if getattr(dtype, "kind", "O") not in "biufc":
                _refuse_text(np.asarray(data[label]), f"column {label!r} of {name}", owner, hint)
        return None
    try:
        values = np.asarray(data)
    except ValueError:  # ragged: scikit-learn's checks say so
        return None
    _refuse_text(values, name, owner, hint)
    return values


_X_HINT = (
    "Encode text inputs as numbers (e.g. scikit-learn's OneHotEncoder or OrdinalEncoder in a "
    "pipeline) or drop them."
)
_Y_HINT = "A regressor's targets are numbers; for class labels use RandomTSClassifier."


def validate_numeric_data(estimator, X, y="no_validation", *, numeric_y=True, **kwargs):
    """scikit-learn's ``validate_data``, after refusing text by name.

    A string that is not a number in ``X`` (naming its column, by name for a
    DataFrame) or, with ``numeric_y``, in ``y`` raises a :class:`ValueError`
    that says where, instead of numpy's conversion error from inside
    scikit-learn. With ``numeric_y``, targets written as text that are all
    numbers are read as numbers, as ``X`` is.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.array([["1.0", "a"], ["2.0", "b"]])
    >>> validate_numeric_data(RandomTSRegressor(), X, [1.0, 2.0])
    Traceback (most recent call last):
    ...
    ValueError: column 1 of X of RandomTSRegressor must hold numbers; got text: 'a', 'b'. ...
    """
    owner = type(estimator).__name__
    _check_no_text(X, "X", owner, _X_HINT)
    if numeric_y and y is not None and not (isinstance(y, str) and y == "no_validation"):
        values = _check_no_text(y, "y", owner, _Y_HINT)
        if values is not None and values.dtype.kind in "US":  # numbers written as text
            y = values.astype(np.float64)
    return validate_data(estimator, X, y, **kwargs)
