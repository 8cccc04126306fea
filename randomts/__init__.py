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

from ._version import __version__
from .classifier import RandomTSClassifier
from .estimator import RandomTSRegressor
from .exceptions import (
    ExtrapolationWarning,
    FormatError,
    NoRuleFiredWarning,
    RandomTSWarning,
    UndefinedDegreeWarning,
    UnderdeterminedWarning,
)
from .fuzzy_system import FuzzySystem
from .io import load, save
from .rulebase import Rule, RuleBase

__all__ = [
    "ExtrapolationWarning",
    "FormatError",
    "FuzzySystem",
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
