"""The Takagi-Sugeno model: the general system and the random rule base, one vocabulary.

:class:`FuzzySystem` is any Sugeno system: variables owning named terms
(:mod:`randomts.fuzzy.terms`), rules naming terms (:mod:`randomts.fuzzy.rules`),
norms and hedges (:mod:`randomts.fuzzy.norms`). :class:`RuleBase` is its
vectorised special case (a Gaussian on every input, the product, one
consequent per rule), held as arrays; a :class:`FuzzySystem` of that shape
runs the rule base's kernel, bit for bit.

**Where no rule fires**, both classes give one answer. A rule fires at
``x`` when its degree there is positive. A weighted sum where none fires is
0, the empty sum (or an output's ``default``). A weighted average where none
fires is undefined: NaN (or the ``default``), with a
:class:`~randomts.exceptions.NoRuleFiredWarning`. Gaussian sets are positive
everywhere, so a rule base's rules always fire: its degrees are computed
through their logarithms, which do not underflow, and far from every rule a
weighted average tends to the output of the rule nearest in the scaled
distance, which is what it returns there (no NaN and no warning). Terms with
bounded support (triangles, trapezoids, ...) are zero outside it, and that
is where a general system meets the undefined case.
"""

from randomts.fuzzy.norms import (
    HEDGES as HEDGES,
    NORMS as NORMS,
)
from randomts.fuzzy.rulebase import (
    Rule as Rule,
    RuleBase as RuleBase,
)
from randomts.fuzzy.rules import (
    Connective as Connective,
    FuzzyRule as FuzzyRule,
    Proposition as Proposition,
    parse_rule as parse_rule,
)
from randomts.fuzzy.system import (
    FuzzySystem as FuzzySystem,
)
from randomts.fuzzy.variables import (
    InputVariable as InputVariable,
    OutputVariable as OutputVariable,
)
