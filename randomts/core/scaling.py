"""The standardisation of inputs: ``u = (x - mean) / scale`` per feature.

Every fit that standardises its inputs (the estimators, streaming and dask
fits, k-means placement, refinement) takes the mean and the standard
deviation of each feature, a standard deviation of 0 counting as 1 so that
the feature stays as it is, shifted to 0. A feature that holds one value in
every row gets that value as its mean and a scale of 1 (its standardised
value is 0), not the rounding error of its standard deviation.

Examples
--------
>>> import numpy as np
>>> scaling = Standardisation.of(np.array([[1.0, 5.0], [3.0, 5.0]]))
>>> scaling.mean.tolist(), scaling.scale.tolist()
([2.0, 5.0], [1.0, 1.0])
>>> scaling.apply(np.array([[3.0, 6.0]])).tolist()
[[1.0, 1.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Standardisation"]


@dataclass(frozen=True, eq=False)
class Standardisation:
    """Per-feature ``mean`` and ``scale > 0``: ``u = (x - mean) / scale``.

    Attributes
    ----------
    mean : ndarray of shape (n_features,)
    scale : ndarray of shape (n_features,)
        Standard deviations, those that are not ``> 0`` replaced by 1.
    """

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def of(cls, X):
        """The standardisation of the rows ``X`` (n_samples, n_features).

        Examples
        --------
        >>> scaling = Standardisation.of(np.array([[0.0, 0.1], [2.0, 0.1]]))
        >>> scaling.mean.tolist(), scaling.scale.tolist()
        ([1.0, 0.1], [1.0, 1.0])
        """
        mean, std = X.mean(axis=0), X.std(axis=0)
        constant = np.all(X == X[:1], axis=0)  # one value in every row
        mean[constant] = X[0, constant]
        std[constant] = 0.0
        return cls.from_moments(mean, std)

    @classmethod
    def from_moments(cls, mean, std):
        """From each feature's mean and standard deviation (computed elsewhere, e.g. by dask).

        Examples
        --------
        >>> Standardisation.from_moments([1.0, 2.0], [0.0, 4.0]).scale
        array([1., 4.])
        """
        scale = np.array(std, dtype=float)
        scale[~(scale > 0)] = 1.0
        return cls(np.asarray(mean, dtype=float), scale)

    def apply(self, X):
        """``(X - mean) / scale``: NumPy arrays, or anything with NumPy-style arithmetic (dask).

        Examples
        --------
        >>> Standardisation(np.array([1.0]), np.array([2.0])).apply(np.array([[5.0]]))
        array([[2.]])
        """
        return (X - self.mean) / self.scale
