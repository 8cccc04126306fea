"""Rules placed on the data: Gaussian antecedents on the k-means clusters of the inputs.

Random rules need many rules; fuzzy-model users want few they can read.
:func:`kmeans_antecedents` places ``n_rules`` rules where the data are, each
rule's widths from its cluster's spread: the start of
:meth:`RandomTSRegressor.interpretable <randomts.RandomTSRegressor.interpretable>`
and of the refinement of :mod:`randomts.fitting.refinement`.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans

from randomts._validation import check_int, check_matrix, check_real
from randomts.core.sampling import check_random_state
from randomts.core.scaling import Standardisation

__all__ = ["kmeans_antecedents"]


def kmeans_antecedents(X, n_rules, random_state=None, *, width_factor=None, check_input=True):
    """Rule centres on the k-means clusters of the inputs, widths from their spread.

    k-means (:class:`sklearn.cluster.KMeans`, k-means++ starts) runs on the
    standardised inputs, so that no feature dominates the distances. Rule
    ``i`` sits at cluster ``i``'s centre; its width on input ``k`` is the
    root-mean-square deviation of the cluster's members from the centre
    along ``k``, times ``width_factor``. With the default factor
    ``sqrt(n_features)`` a member of a cluster at the root-mean-square
    distance from its centre fires the rule at ``exp(-1/2)``, so that
    neighbouring rules overlap. (In :class:`~randomts.RandomTSRegressor`,
    whose leave-one-out ridge shrinks the consequents toward the targets'
    mean, on the thirteen real data sets of
    ``benchmarks/bench_refinement.py``, ``2 sqrt(n_features)`` gave a test
    error 0.6 % higher with 5 rules, 0.4 % lower with 10 and 4.2 % lower
    with 15, in geometric mean; no one factor is best on every set.) A
    cluster of one point, or one with no spread along an input, takes the
    median spread of the other clusters along it (the feature's own
    standard deviation if none has any). No width exceeds its input's range
    over ``X`` (``max - min``, when not 0): a wider rule would not tell one
    part of the data from another along that input.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training inputs, at least ``n_rules`` distinct rows.
    n_rules : int
        Number of rules (clusters).
    random_state : int, RandomState, Generator or None
        Seed of k-means' starts.
    width_factor : float, optional
        Multiplier of the clusters' spreads; default ``sqrt(n_features)``.
    check_input : bool, default=True
        False for a checked ``X`` (a finite float64 matrix).

    Returns
    -------
    centers : ndarray of shape (n_rules, n_features)
        In the units of ``X``.
    sigmas : ndarray of shape (n_rules, n_features)
        Standard deviations of the Gaussian sets, in the units of ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(10, 1, (50, 2))])
    >>> centers, sigmas = kmeans_antecedents(X, 2, random_state=0)
    >>> [round(float(c)) for c in np.sort(centers[:, 0])]
    [0, 10]
    >>> bool(np.all((sigmas > 1.0) & (sigmas < 2.0)))  # sqrt(2) x the clusters' spread 1
    True
    """
    if check_input:
        X = check_matrix(X, "X")
    n_rules = check_int(n_rules, "n_rules", low=1)
    n_samples, n_features = X.shape
    if width_factor is None:
        width_factor = np.sqrt(n_features)
    width_factor = check_real(width_factor, "width_factor", low=0.0, low_inclusive=False)
    n_distinct = np.unique(X, axis=0).shape[0]
    if n_distinct < n_rules:
        raise ValueError(
            f"kmeans_antecedents needs at least n_rules={n_rules} distinct rows of X to place "
            f"{n_rules} rules; got {n_distinct} distinct rows."
        )
    scaling = Standardisation.of(X)
    U = scaling.apply(X)
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    kmeans = KMeans(n_clusters=n_rules, n_init=4, random_state=seed).fit(U)
    centers = kmeans.cluster_centers_
    labels = kmeans.labels_
    spread = np.zeros((n_rules, n_features))
    counts = np.bincount(labels, minlength=n_rules)
    for i in range(n_rules):
        members = U[labels == i]
        if members.shape[0] > 1:
            spread[i] = np.sqrt(np.mean((members - centers[i]) ** 2, axis=0))
    for k in range(n_features):
        good = (counts > 1) & (spread[:, k] > 1e-12)
        fill = np.median(spread[good, k]) if good.any() else 1.0
        spread[~good, k] = fill
    widths = width_factor * spread
    # a hair under the range, so that the round trips through the standardisations (a few
    # roundings of relative size eps each) never leave a width above it
    span = (U.max(axis=0) - U.min(axis=0)) * (1.0 - 64 * np.finfo(float).eps)
    widths = np.where(span > 0, np.minimum(widths, span), widths)
    return centers * scaling.scale + scaling.mean, widths * scaling.scale
