"""What a model's rules do on data: importance, agreement with the data, explanations.

Every function here asks the model only what every Takagi-Sugeno model of
randomts answers, the analysis protocol (:class:`~randomts.analysis.protocol.RuleModel`):
a :class:`~randomts.RuleBase`, a :class:`~randomts.FuzzySystem`, or a fitted
estimator through its ``rule_base_`` (:func:`~randomts.analysis.protocol.as_model`).

- :mod:`randomts.analysis.importance`: each rule's share of the output,
  ranking and pruning;
- :mod:`randomts.analysis.agreement`: whether a rule says what its model
  and its data do where it lives;
- :mod:`randomts.analysis.explain`: the rules behind one prediction;
- :mod:`randomts.analysis.on_data`: importance and agreement together, as
  the rule texts and tables with data show them.
"""
