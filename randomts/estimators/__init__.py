"""scikit-learn estimators over random rule bases, and what a fitted one records."""

from randomts.estimators.classifier import (
    RandomTSClassifier as RandomTSClassifier,
)
from randomts.estimators.regressor import (
    RandomTSRegressor as RandomTSRegressor,
)
