"""scikit-learn estimators over random rule bases, and what a fitted one records."""

from randomts.estimators.classifier import RandomTSClassifier
from randomts.estimators.regressor import RandomTSRegressor

__all__ = ["RandomTSClassifier", "RandomTSRegressor"]
