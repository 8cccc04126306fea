"""Random antecedents: the only place randomness enters a randomts model.

The paper draws each rule's centre ``a_i ~ N(0, 2 I)`` (variance 2 per
coordinate) and its width ``b_i ~ U(0, 1)``, independently of the data, and
uses the RBF ``exp(-b_i ||x - a_i||^2)``. In randomts's Gaussian terms that is
a standard deviation ``sigma_i = 1 / sqrt(2 b_i)`` on every input.
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_option, check_pair

__all__ = [
    "CENTER_DISTRIBUTIONS",
    "PAPER_CENTER_SCALE",
    "check_random_state",
    "sample_centers",
    "sample_rows",
    "sample_widths",
    "default_width_range",
    "widths_to_sigmas",
    "sigmas_to_widths",
]

#: The paper's standard deviation of the centres: variance 2 per coordinate.
PAPER_CENTER_SCALE = float(np.sqrt(2.0))

#: Names accepted by :func:`sample_centers`.
CENTER_DISTRIBUTIONS = ("normal", "uniform")


def check_random_state(random_state):
    """Turn ``random_state`` into a generator (as scikit-learn's, plus ``Generator``).

    ``None`` and ints give a new ``numpy.random.RandomState``; an existing
    ``RandomState`` or ``Generator`` is returned as is.

    Examples
    --------
    >>> check_random_state(0).uniform() == check_random_state(0).uniform()
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return np.random.RandomState(random_state)
    raise TypeError(
        "The 'random_state' parameter must be None, an int, a numpy.random.RandomState or a "
        f"numpy.random.Generator. Got {random_state!r} instead."
    )


def sample_centers(
    n_rules,
    n_features,
    *,
    distribution="normal",
    loc=0.0,
    scale=PAPER_CENTER_SCALE,
    bounds=None,
    random_state=None,
):
    """Draw rule centres ``a_i`` from a continuous distribution.

    Parameters
    ----------
    n_rules : int
        Number of rules ``h``.
    n_features : int
        Number of inputs ``n``.
    distribution : {"normal", "uniform"}, default="normal"
        ``"normal"``: each coordinate ``~ N(loc, scale**2)`` (the paper's
        default is ``loc=0``, ``scale=sqrt(2)``, i.e. variance 2).
        ``"uniform"``: uniform over the box ``bounds``.
    loc : float or array-like of shape (n_features,), default=0.0
        Mean of the normal distribution.
    scale : float or array-like of shape (n_features,), default=sqrt(2)
        Standard deviation of the normal distribution.
    bounds : tuple (low, high), optional
        For ``"uniform"``: the box, each a float or an array of shape
        (n_features,) with ``low < high``.
    random_state : int, RandomState, Generator or None
        Source of randomness; an int gives reproducible draws.

    Returns
    -------
    ndarray of shape (n_rules, n_features)

    Examples
    --------
    >>> sample_centers(2, 3, random_state=0).shape
    (2, 3)
    >>> c = sample_centers(1000, 1, distribution="uniform", bounds=(-1.0, 1.0), random_state=0)
    >>> bool(c.min() >= -1.0 and c.max() < 1.0)
    True
    """
    n_rules = check_int(n_rules, "n_rules", low=1)
    n_features = check_int(n_features, "n_features", low=1)
    check_option(distribution, "centers", CENTER_DISTRIBUTIONS)
    rng = check_random_state(random_state)
    size = (n_rules, n_features)
    if distribution == "normal":
        loc = np.broadcast_to(np.asarray(loc, dtype=float), (n_features,))
        scale = np.broadcast_to(np.asarray(scale, dtype=float), (n_features,))
        if not (np.all(np.isfinite(loc)) and np.all(np.isfinite(scale)) and np.all(scale > 0)):
            raise ValueError(
                "The normal centre distribution needs finite 'loc' and a finite 'scale' > 0. "
                f"Got loc={loc.tolist()}, scale={scale.tolist()}."
            )
        return loc + scale * rng.standard_normal(size)
    if bounds is None:
        raise ValueError(
            "The 'bounds' parameter is required when centers='uniform': give (low, high)."
        )
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise ValueError(f"The 'bounds' parameter must be a pair (low, high). Got {bounds!r}.")
    low, high = bounds
    low = np.broadcast_to(np.asarray(low, dtype=float), (n_features,))
    high = np.broadcast_to(np.asarray(high, dtype=float), (n_features,))
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high)) and np.all(low < high)):
        raise ValueError(
            "The 'bounds' parameter must hold finite low < high on every feature. "
            f"Got low={low.tolist()}, high={high.tolist()}."
        )
    return rng.uniform(low, high, size=size)


def sample_rows(n_rules, X, *, random_state=None):
    """Rule centres drawn from the rows of ``X``: centres that cover the data.

    Distinct rows are drawn uniformly without replacement while there are at
    least ``n_rules`` rows; with fewer rows every row is taken and the rest are
    drawn with replacement.

    Parameters
    ----------
    n_rules : int
        Number of rules.
    X : array-like of shape (n_samples, n_features)
        The rows to draw from (standardised training inputs, in the estimator).
        Anything with a ``shape`` that takes an array of row indices (a NumPy
        array, a memmap, a dask array) is read only at the drawn rows.
    random_state : int, RandomState, Generator or None
        Source of randomness.

    Returns
    -------
    ndarray of shape (n_rules, n_features)
        A copy of the drawn rows.

    Examples
    --------
    >>> X = np.arange(10.0).reshape(5, 2)
    >>> centers = sample_rows(3, X, random_state=0)
    >>> centers.shape, all(any((row == X).all(axis=1)) for row in centers)
    ((3, 2), True)
    >>> len({tuple(row) for row in sample_rows(5, X, random_state=0)})  # all 5 rows
    5
    """
    n_rules = check_int(n_rules, "n_rules", low=1)
    if not hasattr(X, "shape"):
        X = np.asarray(X, dtype=float)
    if len(X.shape) != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array of rows; got shape {X.shape}.")
    rng = check_random_state(random_state)
    n_samples = X.shape[0]
    if n_rules <= n_samples:
        rows = rng.permutation(n_samples)[:n_rules]
    else:
        extra = rng.choice(n_samples, size=n_rules - n_samples)
        rows = np.concatenate([rng.permutation(n_samples), extra])
    return np.array(X[rows], dtype=float)


def default_width_range(n_features, *, normalize=False):
    """Widths ``b_i ~ U(0, 1 / (2 n_features)]`` for standardised inputs.

    Two independent rows of per-feature standardised data are at squared
    distance ``2 n_features`` on average, whatever the correlation between the
    features, so a rule of width ``b_i = u_i / (2 n_features)``, ``u_i ~ U(0, 1]``,
    fires at about ``exp(-u_i)`` on a typical row: the paper's ``U(0, 1)``
    widths measured in units of the data's spread rather than of the raw
    coordinates, which keeps every rule active in any dimension, from nearly
    flat rules (``u_i`` near 0) to rules of about one typical distance.

    With ``normalize=True`` (the weighted average), 16 times narrower rules at
    most, ``b_i ~ U(0, 8 / n_features]``: the normalised firing strengths of
    rules that all fire alike are all about ``1 / n_rules``, and the average
    is then nearly a constant.

    Examples
    --------
    >>> default_width_range(10)
    (0.0, 0.05)
    >>> default_width_range(10, normalize=True)
    (0.0, 0.8)
    """
    n_features = check_int(n_features, "n_features", low=1)
    return (0.0, (16.0 if normalize else 1.0) / (2.0 * n_features))


def sample_widths(n_rules, *, low=0.0, high=1.0, random_state=None):
    """Draw rule widths ``b_i ~ U(low, high]``, strictly positive.

    The paper's default is ``U(0, 1)``. The draw is taken on the half-open
    interval ``(low, high]`` so that ``b_i = 0`` (an infinitely wide rule)
    cannot occur.

    Parameters
    ----------
    n_rules : int
        Number of rules.
    low, high : float, default=(0.0, 1.0)
        Interval of the uniform distribution, ``0 <= low < high``.
    random_state : int, RandomState, Generator or None
        Source of randomness.

    Returns
    -------
    ndarray of shape (n_rules,)

    Examples
    --------
    >>> b = sample_widths(1000, random_state=0)
    >>> bool(b.min() > 0.0 and b.max() <= 1.0)
    True
    """
    n_rules = check_int(n_rules, "n_rules", low=1)
    low, high = check_pair((low, high), "width_range", low=0.0)
    rng = check_random_state(random_state)
    return high - (high - low) * rng.uniform(0.0, 1.0, size=n_rules)


def widths_to_sigmas(b, n_features):
    """Gaussian standard deviations from RBF widths: ``sigma = 1 / sqrt(2 b)``.

    Parameters
    ----------
    b : array-like of shape (n_rules,)
        RBF widths, all positive.
    n_features : int
        Number of inputs; every input of rule ``i`` gets the same ``sigma_i``.

    Returns
    -------
    ndarray of shape (n_rules, n_features)

    Examples
    --------
    >>> widths_to_sigmas([0.5, 2.0], 2)
    array([[1. , 1. ],
           [0.5, 0.5]])
    """
    b = np.asarray(b, dtype=float)
    sigma = 1.0 / np.sqrt(2.0 * b)
    return np.repeat(sigma[:, None], n_features, axis=1)


def sigmas_to_widths(sigmas):
    """RBF widths from isotropic Gaussian standard deviations: ``b = 1 / (2 sigma^2)``.

    Parameters
    ----------
    sigmas : ndarray of shape (n_rules, n_features)
        Standard deviations; each row must hold one value.

    Returns
    -------
    ndarray of shape (n_rules,)

    Raises
    ------
    ValueError
        If a rule has different widths on different inputs (no single ``b_i``).

    Examples
    --------
    >>> sigmas_to_widths(np.array([[1.0, 1.0], [0.5, 0.5]]))
    array([0.5, 2. ])
    """
    sigmas = np.asarray(sigmas, dtype=float)
    spread = np.ptp(sigmas, axis=1)
    if np.any(spread > 1e-12 * sigmas.max(axis=1)):
        bad = int(np.argmax(spread > 1e-12 * sigmas.max(axis=1)))
        raise ValueError(
            "The rule base has per-input widths, so it has no single RBF width b_i per rule "
            f"(rule {bad} has sigmas {sigmas[bad].tolist()}); to_slm needs isotropic rules."
        )
    return 1.0 / (2.0 * sigmas[:, 0] ** 2)
