"""The Takagi-Sugeno model: the general system and the random rule base.

:class:`FuzzySystem` is any Sugeno system (variables owning named terms,
rules naming terms, norms); :class:`RuleBase` is its vectorised special case
(Gaussian on every input, the product, one consequent per rule).
"""

from randomts.fuzzy.rulebase import Rule, RuleBase
from randomts.fuzzy.system import FuzzySystem

__all__ = ["FuzzySystem", "Rule", "RuleBase"]
