"""The fuzzylite ``fll`` format (``.fll``): a Takagi-Sugeno engine in the FuzzyLite Language.

Written as pyfuzzylite's ``FllImporter`` reads it. A
:class:`~randomts.RuleBase` is written as its :class:`~randomts.FuzzySystem`
(:meth:`~randomts.FuzzySystem.from_rule_base`: a term ``r<i>`` per rule on
every variable, ``Constant`` terms for constant consequents)::

    Engine: randomts
    InputVariable: x1
      enabled: true
      range: -4.2 3.9
      lock-range: false
      term: r1 Gaussian 0.42 0.13          # mean, standard deviation
      ...
    OutputVariable: y
      enabled: true
      range: -1.0 1.0
      lock-range: false
      aggregation: none
      defuzzifier: WeightedSum TakagiSugeno   # or WeightedAverage
      default: nan
      lock-previous: false
      term: r1 Linear 1.3 -0.4 0.12         # c_1 ... c_n constant
      ...
    RuleBlock: rules
      enabled: true
      conjunction: AlgebraicProduct
      disjunction: none
      implication: none
      activation: General
      rule: if x1 is r1 and x2 is r1 then y is r1

fuzzylite's ``WeightedSum`` is ``sum_i w_i z_i`` and ``WeightedAverage`` is
``sum_i w_i z_i / sum_i w_i``; where no rule fires pyfuzzylite 8 returns NaN
for both, randomts 0 for a weighted sum (see :mod:`randomts.fuzzy`). The
conjunction is always written; the disjunction is written ``none`` when no
rule uses ``or`` and it is ``probor``, which the reader gives for ``none``
(a RuleBase has no OR), else by name. A ``sum`` aggregation is written
``none``, fuzzylite's sum of the degrees.

Names must be identifiers in FLL: other characters become ``_`` (and a name
that is an FLL keyword gets a trailing ``_``, a name met twice among the
variables a suffix ``_2``, ...); the original name is kept in the variable's
``description`` as a JSON string (with ``#`` written ``\\u0023``, since ``#``
starts a comment), from which the reader restores it. Numbers are written
with ``repr``. The metadata, if any, follow the rules on one comment line
``# randomts-metadata: {...}`` (JSON).

The reader accepts engines written by other tools when randomts can
represent them: every input term of :mod:`randomts.fuzzy.terms`, ``Linear``
or ``Constant`` outputs, one rule block with ``General`` activation, any
norms, hedges, weights, ``lock-range`` and ``default``. A disabled input
(``enabled: false``) is read as fuzzylite evaluates it: its propositions
have degree 0 whatever their hedges, so they drop out of an ``or``, and a
rule that needs one through ``and`` never fires: it is kept with the weight
0. It rejects, naming the line, anything else: a disabled output (fuzzylite
leaves its value as it was), ``lock-previous: true``, Mamdani and Tsukamoto
outputs, ``Function`` terms. In an engine named ``randomts`` (a rule base)
every rule must use every input and output, and every term must be used by
some rule: an unused term means a truncated file.

Examples
--------
>>> from randomts import RuleBase
>>> rb = RuleBase.random(n_features=2, n_rules=2, random_state=0)
>>> fmt = FllFormat()
>>> fmt.from_string(fmt.to_string(rb)) == rb
True
"""

from __future__ import annotations

import json
import re

from randomts.io._base import (
    RuleBaseFormat,
    as_system,
    metadata_comment,
    read_metadata_comment,
)
from randomts.io._fll_reader import (
    SNORMS,
    TNORMS,
    FllReader,
    antecedent_propositions,
    renamed_rule,
    uses,
)
from randomts.io._names import unique_names

__all__ = ["FllFormat"]

_KEYWORDS = {
    "if",
    "is",
    "then",
    "and",
    "or",
    "with",
    "not",
    "any",
    "very",
    "somewhat",
    "seldom",
    "extremely",
    "none",
    "nan",
    "inf",
}


def _identifier(name):
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not text or text[0].isdigit():
        text = "_" + text
    if text in _KEYWORDS:
        text += "_"
    return text


def _numbers(values):
    return " ".join(repr(float(v)) for v in values)


class FllFormat(RuleBaseFormat):
    """fuzzylite Takagi-Sugeno engine (see the module docstring)."""

    name = "fll"
    extensions = (".fll",)

    def to_string(self, rule_base) -> str:
        """A RuleBase or a FuzzySystem as FLL text (ValueError for what FLL cannot hold).

        A RuleBase is written as its FuzzySystem
        (:meth:`~randomts.FuzzySystem.from_rule_base`).
        """
        return _system_to_fll(as_system(rule_base))

    def from_string(self, text):
        """A RuleBase if the engine has its shape (with its metadata comment), else a FuzzySystem."""
        return self._rule_base_or_system(text)

    def system_from_string(self, text):
        """Read any Takagi-Sugeno engine as a FuzzySystem (its metadata from the metadata comment)."""
        return FllReader(text).fuzzy_system(metadata=read_metadata_comment(text, "#"))


# ------------------------------------------------------------------ writing


def _system_to_fll(system):
    """The FLL text of a FuzzySystem, its metadata on a comment line after the rules."""
    if system.name == "randomts" and not _strict(system):
        raise ValueError(
            "In FLL the engine name 'randomts' marks a rule base (every rule uses every input "
            "and output, every term is used); give this system another name, e.g. "
            "system.replace(name='system')."
        )
    for key, value, table in (
        ("conjunction", system.conjunction, TNORMS),
        ("disjunction", system.disjunction, SNORMS),
    ):
        if value not in table.values():
            raise ValueError(f"fuzzylite has no {key} {value!r}.")
    engine = re.sub(r"[#\n\r]", "_", system.name).strip() or "engine"
    lines = [f"Engine: {engine}"]
    names, term_names = {}, {}
    identifiers = unique_names([_identifier(v.name) for v in system.inputs + system.outputs])
    for kind, variables, offset in (
        ("InputVariable", system.inputs, 0),
        ("OutputVariable", system.outputs, system.n_features),
    ):
        for k, variable in enumerate(variables):
            identifier = identifiers[offset + k]
            names[variable.name] = identifier
            terms = unique_names([_identifier(t) for t in variable.terms])
            term_names[variable.name] = dict(zip(variable.terms, terms, strict=False))
            changed = terms != list(variable.terms)
            lines.append(f"{kind}: {identifier}")
            if changed:
                description = {"name": variable.name, "terms": list(variable.terms)}
            elif identifier != variable.name:
                description = variable.name
            else:
                description = None
            if description is not None:
                lines.append(
                    "  description: "
                    + json.dumps(description, ensure_ascii=False).replace("#", "\\u0023")
                )
            lines += [
                "  enabled: true",
                f"  range: {_numbers(variable.range)}",
                f"  lock-range: {'true' if variable.lock_range else 'false'}",
            ]
            if kind == "OutputVariable":
                aggregation = next(k for k, v in SNORMS.items() if v == variable.aggregation)
                defuzzifier = (
                    "WeightedAverage" if variable.defuzzifier == "wtaver" else "WeightedSum"
                )
                lines += [
                    f"  aggregation: {'none' if variable.aggregation == 'sum' else aggregation}",
                    f"  defuzzifier: {defuzzifier} TakagiSugeno",
                    f"  default: {variable.default!r}",
                    "  lock-previous: false",
                ]
            for term_name, term in variable.terms.items():
                kind_name, values = term.to_fll()
                lines.append(
                    f"  term: {term_names[variable.name][term_name]} {kind_name} {_numbers(values)}"
                )
    conjunction = next(k for k, v in TNORMS.items() if v == system.conjunction)
    disjunction = next(k for k, v in SNORMS.items() if v == system.disjunction)
    if system.disjunction == "probor" and not any(uses(r.antecedent, "or") for r in system.rules):
        disjunction = "none"  # read back as probor; what a rule base (no OR) is written with
    lines += [
        "RuleBlock: rules",
        "  enabled: true",
        f"  conjunction: {conjunction}",
        f"  disjunction: {disjunction}",
        "  implication: none",
        "  activation: General",
    ]
    for k, rule in enumerate(system.rules, start=1):
        for p in antecedent_propositions(rule.antecedent) + list(rule.consequent):
            if any(not isinstance(h, str) for h in p.hedges):
                raise ValueError(
                    f"Rule {k}: fuzzylite has no power hedge {p.hedges[-1]!r} (only very = ^2 "
                    "and somewhat = ^0.5)."
                )
        lines.append(f"  rule: {renamed_rule(rule, names, term_names).to_text()}")
    lines += metadata_comment(system, "#")  # a comment to fuzzylite
    return "\n".join(lines) + "\n"


def _strict(system):
    used = {v.name: set() for v in system.inputs + system.outputs}
    for rule in system.rules:
        antecedent = antecedent_propositions(rule.antecedent)
        for group, variables in ((antecedent, system.inputs), (rule.consequent, system.outputs)):
            if sorted(p.variable for p in group) != sorted(v.name for v in variables):
                return False
            for p in group:
                used[p.variable].add(p.term)
    return all(set(v.terms) == used[v.name] for v in system.inputs + system.outputs)
