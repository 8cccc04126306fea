"""The MATLAB/Octave ``fis`` format (``.fis``): a Sugeno fuzzy inference system.

Written as MATLAB's ``writefis`` lays it out and as GNU Octave's
fuzzy-logic-toolkit ``readfis`` reads it (the ``[System]`` keys in MATLAB's
order). A :class:`~randomts.RuleBase` is written as its
:class:`~randomts.FuzzySystem` (:meth:`~randomts.FuzzySystem.from_rule_base`:
a term ``r<i>`` per rule on every variable)::

    [System]
    Name='randomts'
    Type='sugeno'
    Version=2.0
    NumInputs=2
    NumOutputs=1
    NumRules=3
    AndMethod='prod'
    OrMethod='probor'
    ImpMethod='prod'
    AggMethod='sum'
    DefuzzMethod='wtsum'          # weighted sum; 'wtaver' for weighted average

    [Input1]
    Name='x1'
    Range=[-4.2 3.9]              # the training data's range (else every centre +- 3 widths)
    NumMFs=3                      # one membership function per rule
    MF1='r1':'gaussmf',[sigma center]
    ...
    [Output1]
    Name='y'
    Range=[...]
    NumMFs=3
    MF1='r1':'linear',[c_1 ... c_n constant]   # 'constant',[b] for order 0
    ...
    [Rules]
    1 1, 1 (1) : 1                # input MFs, output MFs (weight) : 1 = AND

Both engines compute ``wtsum`` as ``sum_i w_i z_i`` and ``wtaver`` as
``sum_i w_i z_i / sum_i w_i`` (rules with equal outputs are merged with
``AggMethod='sum'``, which leaves both sums unchanged). Numbers are written with
``repr``; rule weights as MATLAB writes them, ``(1)``, when every weight is
1, else with ``repr``. Names keep every character but quotes and whitespace,
which become ``_`` (and a name met twice among the variables gets a suffix
``_2``, ...). The variables' ``Range`` is the rule base's recorded range (the
training data's, else every centre plus and minus three widths): MATLAB warns
about inputs outside it and Octave's ``evalfis`` refuses them, so widen
``input_range`` before saving to evaluate such a file beyond the data there.
The metadata, if any, follow the rules on one comment line
``% randomts-metadata: {...}`` (JSON), after everything an engine reads.
What MATLAB's FIS cannot hold (fuzzylite's terms, ``default``,
``lock_range``) raises a ValueError naming it: save such a system as FLL. A
range-locked :class:`~randomts.RuleBase` (``lock_range``) is written as its
unlocked rules with ``"lock_range": true`` in the metadata comment, which the
reader turns back into the lock: MATLAB and Octave read the file, and give the
model's outputs wherever the inputs lie in the declared ranges and the
output in its own.

The reader accepts any FIS of this kind written by other tools: keys in any
order, ``%``/``#`` comments, MFs shared between rules, ``'constant'``
outputs, rules that skip inputs (index 0) or outputs (index 0: the rule does
not conclude that output), NOT, GNU Octave's power indices, weights, AND or
OR. It also reads what fuzzylite's FIS exporter adds to MATLAB's format:

- fuzzylite's own terms: ``'rampmf',[start end]``, ``'rectmf',[start end]``,
  ``'cosinemf',[center width]``, ``'concavemf',[inflection end]`` and
  ``'spikemf',[center width]`` (:class:`~randomts.fuzzy.terms.Ramp`,
  ``Rectangle``, ``Cosine``, ``Concave`` and ``Spike``).
- ``Default=`` (a number or ``nan``) in an output: the output's ``default``,
  its value where no rule fires.
- ``LockRange=1`` (or ``0``): the variable's ``lock_range`` (inputs clipped to
  their range before evaluation, outputs after).
- ``LockPrevious=0``. ``LockPrevious=1`` is refused: fuzzylite then replaces
  a NaN output by the previous input row's value, and randomts evaluates
  every row on its own.
- ``Enabled=1`` (or ``0``). A disabled input is read as fuzzylite evaluates
  it: its propositions have degree 0 whatever their hedges, so they drop out
  of an OR, and a rule that needs one through AND never fires: it is kept
  with the weight 0. The input keeps its place (``X`` keeps its column). A
  disabled output is refused: fuzzylite leaves its value as it was (NaN),
  which an output of a FuzzySystem cannot be.
- An empty ``AndMethod=''`` or ``OrMethod=''`` (fuzzylite's "none"): no rule
  may then join inputs with that connective (the reader names the rule that
  does); the system keeps MATLAB's default there. An empty ``AggMethod=''``
  is ``'sum'`` and an empty ``ImpMethod=''`` is ignored, as in fuzzylite.

It rejects, naming the line, anything randomts cannot represent (other
system types, MF types, rule weights below 0, other defuzzification methods).
fuzzylite writes its hedges as fractional indices that GNU Octave reads as
powers. In an antecedent ``.2`` (very, power 2), ``.05`` (somewhat, power
0.5) and ``.4`` (very very, power 4) mean the same in both; the reader
follows Octave for the others (``.3`` is power 3, not fuzzylite's
extremely) and in consequents (``j.2`` raises the degree to the power 1/2,
where fuzzylite squares it).

Examples
--------
>>> from randomts import RuleBase
>>> rb = RuleBase.random(n_features=2, n_rules=2, random_state=0)
>>> fmt = FisFormat()
>>> fmt.from_string(fmt.to_string(rb)) == rb
True
"""

from __future__ import annotations

import math
import re

from randomts.fuzzy import (
    Connective,
    Proposition,
)
from randomts.io._base import (
    RuleBaseFormat,
    as_system,
    lock_from_metadata,
    lock_in_metadata,
    metadata_comment,
    read_metadata_comment,
)
from randomts.io._fis_reader import FisReader
from randomts.io._names import unique_names

__all__ = ["FisFormat"]


def _fis_name(name):
    return re.sub(r"[\s']", "_", name)


def _vector(values):
    return "[" + " ".join(repr(float(v)) for v in values) + "]"


class FisFormat(RuleBaseFormat):
    """MATLAB/Octave Sugeno FIS (see the module docstring)."""

    name = "fis"
    extensions = (".fis",)

    def to_string(self, rule_base) -> str:
        """A RuleBase or a FuzzySystem as a FIS file (ValueError for what FIS cannot hold).

        A RuleBase is written as its FuzzySystem
        (:meth:`~randomts.FuzzySystem.from_rule_base`).
        """
        return _system_to_fis(as_system(lock_in_metadata(rule_base)))

    def from_string(self, text):
        """A RuleBase if the FIS has its shape (with its metadata comment), else a FuzzySystem."""
        return self._rule_base_or_system(text)

    def system_from_string(self, text):
        """Read any Sugeno FIS as a FuzzySystem (its metadata from the metadata comment)."""
        system = FisReader(text).fuzzy_system(metadata=read_metadata_comment(text, "%"))
        return lock_from_metadata(system)


# ------------------------------------------------------------------ writing


def _hedge_index(hedges, kind, where):
    """(negated, hedge digits) of a proposition's hedges in MATLAB's index, or ValueError."""
    hedges = list(hedges)
    negated = bool(hedges) and hedges[0] == "not"
    if negated:
        hedges = hedges[1:]
    if not hedges:
        return negated, 0
    power = {"very": 2.0, "somewhat": 0.5}.get(hedges[0], hedges[0])
    if len(hedges) == 1 and not isinstance(power, str):
        h = power if kind == "input" else 1.0 / power
        digits = math.floor(10 * h + 0.5)
        if 1 <= digits <= 99 and abs(digits / 10 - h) <= 1e-12 * max(1.0, h):
            return negated, digits
    raise ValueError(
        f"{where}: the hedges {tuple(hedges)} have no MATLAB rule index (FIS holds 'not' and "
        "powers h = 0.1, 0.2, ..., 9.9 as index j.0h..j.99)"
    )


def _check_writable(system):
    """ValueError naming the first feature of ``system`` that MATLAB's FIS cannot hold."""
    first = system.outputs[0]
    for variable in system.outputs:
        for key in ("defuzzifier", "aggregation"):
            if getattr(variable, key) != getattr(first, key):
                raise ValueError(
                    f"A FIS has one {key} for all outputs; output {variable.name!r} has "
                    f"{getattr(variable, key)!r} and {first.name!r} has {getattr(first, key)!r}."
                )
        if not math.isnan(variable.default):
            raise ValueError(
                f"A FIS cannot hold the default value of output {variable.name!r} (MATLAB and "
                "GNU Octave do not read fuzzylite's Default=); save the system as FLL or JSON."
            )
    for variable in system.inputs + system.outputs:
        if variable.lock_range:
            raise ValueError(
                f"A FIS cannot hold lock_range of {variable.name!r} (MATLAB and GNU Octave do "
                "not read fuzzylite's LockRange=); save the system as FLL or JSON."
            )
        if not all(math.isfinite(v) for v in variable.range):
            raise ValueError(f"A FIS cannot hold the infinite range of {variable.name!r}.")


def _system_to_fis(system):
    """The FIS text of a FuzzySystem, its metadata on a comment line after the rules."""
    _check_writable(system)
    first = system.outputs[0]
    lines = [
        "[System]",
        f"Name='{_fis_name(system.name)}'",
        "Type='sugeno'",
        "Version=2.0",
        f"NumInputs={system.n_features}",
        f"NumOutputs={system.n_outputs}",
        f"NumRules={system.n_rules}",
        f"AndMethod='{system.conjunction}'",
        f"OrMethod='{system.disjunction}'",
        "ImpMethod='prod'",
        f"AggMethod='{first.aggregation}'",
        f"DefuzzMethod='{first.defuzzifier}'",
    ]
    names = unique_names([_fis_name(v.name) for v in system.inputs + system.outputs])
    for kind, variables, offset in (
        ("Input", system.inputs, 0),
        ("Output", system.outputs, system.n_features),
    ):
        for k, variable in enumerate(variables):
            lines += [
                "",
                f"[{kind}{k + 1}]",
                f"Name='{names[offset + k]}'",
                f"Range={_vector(variable.range)}",
                f"NumMFs={len(variable.terms)}",
            ]
            term_names = unique_names([_fis_name(t) for t in variable.terms])
            for j, (term_name, term) in enumerate(
                zip(term_names, variable.terms.values(), strict=True)
            ):
                try:
                    mf_type, params = term.to_matlab()
                except ValueError as exc:
                    raise ValueError(
                        f"Term {list(variable.terms)[j]!r} of {variable.name!r}: {exc}"
                    ) from None
                lines.append(f"MF{j + 1}='{term_name}':'{mf_type}',{_vector(params)}")
    lines += ["", "[Rules]"]
    term_index = [
        {name: j + 1 for j, name in enumerate(v.terms)} for v in system.inputs + system.outputs
    ]
    # (1) as MATLAB and Octave write it when every weight is 1; else repr, which reads back exactly
    every_one = all(rule.weight == 1.0 for rule in system.rules)  # exact: the weight 1
    for r, rule in enumerate(system.rules, start=1):
        antecedent = rule.antecedent
        props = [antecedent] if isinstance(antecedent, Proposition) else list(antecedent.operands)
        if not all(isinstance(p, Proposition) for p in props):
            raise ValueError(f"Rule {r} nests 'and' and 'or'; a FIS rule has one connective.")
        connection = 2 if isinstance(antecedent, Connective) and antecedent.operator == "or" else 1
        fields = []
        for role, variables, chosen, offset in (
            ("input", system.inputs, props, 0),
            ("output", system.outputs, list(rule.consequent), system.n_features),
        ):
            by_name = {}
            for p in chosen:
                if p.variable in by_name:
                    raise ValueError(
                        f"Rule {r} uses {role} {p.variable!r} twice; a FIS rule holds one index "
                        f"per {role}."
                    )
                if p.term is None:
                    raise ValueError(f"Rule {r}: a FIS has no 'any' hedge.")
                by_name[p.variable] = p
            indices = []
            for k, variable in enumerate(variables):
                p = by_name.get(variable.name)
                if p is None:
                    indices.append("0")
                    continue
                negated, digits = _hedge_index(p.hedges, role, f"Rule {r}")
                index = f"{term_index[offset + k][p.term]}" + (f".{digits:02d}" if digits else "")
                indices.append(("-" if negated else "") + index)
            fields.append(" ".join(indices))
        weight = "1" if every_one else repr(rule.weight)
        lines.append(f"{fields[0]}, {fields[1]} ({weight}) : {connection}")
    lines += metadata_comment(system, "%")  # after the rules, which end what engines read
    return "\n".join(lines) + "\n"
