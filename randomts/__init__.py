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

from .estimator import RandomTSRegressor
from .exceptions import (
    ExtrapolationWarning,
    FormatError,
    RandomTSWarning,
    UnderdeterminedWarning,
)
from .io import load, save
from .rulebase import Rule, RuleBase

__version__ = "0.1.0"

__all__ = [
    "ExtrapolationWarning",
    "FormatError",
    "RandomTSRegressor",
    "RandomTSWarning",
    "Rule",
    "RuleBase",
    "UnderdeterminedWarning",
    "__version__",
    "load",
    "save",
]
