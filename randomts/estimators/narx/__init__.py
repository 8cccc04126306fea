"""The NARX estimator, with its candidates and their choice, and its intervals.

:class:`NARXRegressor` (:mod:`~randomts.estimators.narx.estimator`) fits
candidates of the lagged rows of input/output records and keeps the one
whose free run is best (:mod:`~randomts.estimators.narx.selection`); its
intervals and bands are split conformal on held-out residuals
(:mod:`~randomts.estimators.narx.intervals`). The records, the lag structure
and the refinement for simulation are :mod:`randomts.dynamics`.
"""

from randomts.estimators.narx.estimator import (
    FOCUS as FOCUS,
    LAG_CHOICES as LAG_CHOICES,
    NARXRegressor as NARXRegressor,
)
