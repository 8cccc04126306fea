"""Pictures of a rule base or of any Sugeno system, with matplotlib (the ``plot`` extra).

The rest of randomts never imports this module, and this module imports
matplotlib only when a function is called. Every function draws on the
``ax`` it is given (or on a new figure's axes), returns that ``Axes`` and
never calls ``show()``: the caller decides whether to show, save or test the
picture. A function that takes a model accepts a :class:`~randomts.RuleBase`,
a fitted estimator with a ``rule_base_`` attribute, or a
:class:`~randomts.FuzzySystem` (any Sugeno system, as loaded from a ``.fis``
or ``.fll`` file) where the picture needs only its terms and its outputs:

=============================== ============================================ ===========
function                        picture                                      FuzzySystem
=============================== ============================================ ===========
:func:`plot_memberships`        the sets of one input: a rule base's          yes
                                Gaussian of every rule, a system's terms
:func:`plot_rule_centers`       rule centres and widths over 2-D data (the    RuleBase
                                paper's Figure 1)                             shape
:func:`plot_surface`            the output over two inputs (contours or 3-D)  yes
:func:`plot_local_models`       each rule's linear consequent drawn around    RuleBase
                                its centre, with the model's output           shape
:func:`plot_predicted_vs_true`  predictions against targets, one series per   (arrays)
                                output
:func:`plot_overview`           one figure: the sets of two inputs and the    yes
                                output over them (``randomts plot``)
:func:`plot_interval`           an estimator's prediction interval as a band  (estimator)
                                along one input or along the rows
=============================== ============================================ ===========

"RuleBase shape": a FuzzySystem that is a rule base in another form
(:meth:`FuzzySystem.rule_base_mismatch <randomts.FuzzySystem.rule_base_mismatch>`
is None, e.g. one made by :meth:`FuzzySystem.from_rule_base
<randomts.FuzzySystem.from_rule_base>`) is drawn as its
:meth:`~randomts.FuzzySystem.to_rule_base`; rule centres and widths mean
nothing for other systems.
"""

from randomts.plotting._intervals import plot_interval
from randomts.plotting._outputs import plot_overview, plot_predicted_vs_true, plot_surface
from randomts.plotting._rules import plot_local_models, plot_memberships, plot_rule_centers

__all__ = [
    "plot_memberships",
    "plot_rule_centers",
    "plot_surface",
    "plot_local_models",
    "plot_predicted_vs_true",
    "plot_overview",
    "plot_interval",
]
