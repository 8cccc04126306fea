"""randomts: Takagi-Sugeno fuzzy models with randomly generated rules.

The Shuffled Linear Model (Bliek): Gaussian rules with random centres and
widths, linear consequents fitted in one shot by least squares.

Examples
--------
>>> import numpy as np
>>> import randomts
>>> rb = randomts.RuleBase.random(n_features=1, n_rules=2, random_state=0)
>>> rb
RuleBase(n_rules=2, n_features=1, n_outputs=1, order=0, weighted sum)
"""

from randomts._version import __version__
from randomts.estimators.classifier import RandomTSClassifier
from randomts.estimators.narx import NARXRegressor
from randomts.estimators.regressor import RandomTSRegressor
from randomts.exceptions import (
    ConstantInputWarning,
    DivergenceWarning,
    ExtrapolationWarning,
    FormatError,
    NoRuleFiredWarning,
    RandomTSWarning,
    UndefinedDegreeWarning,
    UnderdeterminedWarning,
)
from randomts.fuzzy.rulebase import Rule, RuleBase
from randomts.fuzzy.system import FuzzySystem
from randomts.io import load, save

__all__ = [
    "ConstantInputWarning",
    "DivergenceWarning",
    "ExtrapolationWarning",
    "FormatError",
    "FuzzySystem",
    "NARXRegressor",
    "NoRuleFiredWarning",
    "RandomTSClassifier",
    "RandomTSRegressor",
    "RandomTSWarning",
    "Rule",
    "RuleBase",
    "UndefinedDegreeWarning",
    "UnderdeterminedWarning",
    "__version__",
    "load",
    "save",
]
