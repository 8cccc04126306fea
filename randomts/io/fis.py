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
``lock_range``) raises a ValueError naming it: save such a system as FLL.

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

from randomts.exceptions import FormatError
from randomts.fuzzy import (
    Connective,
    FuzzyRule,
    FuzzySystem,
    InputVariable,
    OutputVariable,
    Proposition,
)
from randomts.fuzzy.terms import from_fis
from randomts.io._base import (
    RuleBaseFormat,
    as_system,
    metadata_comment,
    read_metadata_comment,
    without_disabled_inputs,
)
from randomts.io._names import unique_names

__all__ = ["FisFormat"]

_SECTION = re.compile(r"^\[(System|Input(\d{1,9})|Output(\d{1,9})|Rules)\]$")
_KEY = re.compile(r"^([A-Za-z]+\d*)\s*=\s*(.*)$")
_STRING = re.compile(r"^'([^']*)'$")
_MF = re.compile(r"^'([^']*)'\s*:\s*'([^']*)'\s*,\s*\[([^\]]*)\]$")
_RULE = re.compile(r"^([^,]*),([^(]*)\(([^)]*)\)\s*:\s*(\S+)$")
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")  # linear time
_INTEGER = re.compile(r"^[-+]?\d{1,18}$")  # larger counts and indices are absurd
# MATLAB's input membership functions and their parameter vectors.
_INPUT_MFS = {
    "trimf": "[a b c] with a <= b <= c",
    "trapmf": "[a b c d] with a <= b <= c <= d",
    "gaussmf": "[sigma center] with sigma > 0",
    "gauss2mf": "[sigma1 center1 sigma2 center2] with sigmas > 0",
    "gbellmf": "[a b c] with a != 0",
    "sigmf": "[a c]",
    "dsigmf": "[a1 c1 a2 c2]",
    "psigmf": "[a1 c1 a2 c2]",
    "smf": "[a b] with a < b",
    "zmf": "[a b] with a < b",
    "pimf": "[a b c d] with a < b <= c < d",
    "rampmf": "[start end] with start != end (fuzzylite's Ramp)",
    "rectmf": "[start end] (fuzzylite's Rectangle)",
    "cosinemf": "[center width] (fuzzylite's Cosine)",
    "concavemf": "[inflection end] (fuzzylite's Concave)",
    "spikemf": "[center width] (fuzzylite's Spike)",
}
# Norm names of MATLAB and GNU Octave, to randomts's (see randomts.fuzzy.norms.NORMS).
_NORM_NAMES = {
    "min": "min",
    "prod": "prod",
    "algebraic_product": "prod",
    "bounded_difference": "bounded_difference",
    "drastic_product": "drastic_product",
    "einstein_product": "einstein_product",
    "hamacher_product": "hamacher_product",
    "nilpotent_minimum": "nilpotent_minimum",
    "max": "max",
    "probor": "probor",
    "algebraic_sum": "probor",
    "bounded_sum": "bounded_sum",
    "drastic_sum": "drastic_sum",
    "einstein_sum": "einstein_sum",
    "hamacher_sum": "hamacher_sum",
    "nilpotent_maximum": "nilpotent_maximum",
    "normalized_sum": "normalized_sum",
    "sum": "sum",
}


def _fis_name(name):
    return re.sub(r"[\s']", "_", name)


def _vector(values):
    return "[" + " ".join(repr(float(v)) for v in values) + "]"


# What the methods of [System] are when the file does not give them (MATLAB's defaults
# for a Sugeno system), and what fuzzylite's empty method ('') becomes.
_DEFAULT_METHODS = {"AndMethod": "prod", "OrMethod": "probor", "AggMethod": "sum"}
_EMPTY_METHODS = {"AndMethod": None, "OrMethod": None, "AggMethod": "sum"}
# The keys of a variable's section besides Name, Range, NumMFs and MF<j>: fuzzylite's.
_VARIABLE_KEYS = {
    "Input": ("Enabled", "LockRange"),
    "Output": ("Enabled", "LockRange", "LockPrevious", "Default"),
}
_NAN = re.compile(r"^[-+]?nan$", re.IGNORECASE)


class FisFormat(RuleBaseFormat):
    """MATLAB/Octave Sugeno FIS (see the module docstring)."""

    name = "fis"
    extensions = (".fis",)

    def to_string(self, rule_base) -> str:
        """A RuleBase or a FuzzySystem as a FIS file (ValueError for what FIS cannot hold).

        A RuleBase is written as its FuzzySystem
        (:meth:`~randomts.FuzzySystem.from_rule_base`).
        """
        return _system_to_fis(as_system(rule_base))

    def from_string(self, text):
        """A RuleBase if the FIS has its shape (with its metadata comment), else a FuzzySystem."""
        return self._rule_base_or_system(text)

    def system_from_string(self, text):
        """Read any Sugeno FIS as a FuzzySystem (its metadata from the metadata comment)."""
        return _Reader(text).fuzzy_system(metadata=read_metadata_comment(text, "%"))


class _Reader:
    def __init__(self, text):
        self.system, self.inputs, self.outputs, self.rules = {}, {}, {}, []
        self.rules_seen = False
        section = None
        for number, raw in enumerate(text.split("\n"), start=1):
            line = raw.strip()
            if not line or line[0] in "%#":
                continue
            match = _SECTION.match(line)
            if match:
                section = self._open(match, number, raw)
                continue
            if section is None:
                raise FormatError(
                    "expected a section such as [System] first", line=number, text=raw
                )
            if section == "rules":
                self.rules.append((number, raw))
                continue
            key = _KEY.match(line)
            if not key:
                raise FormatError("expected 'Key=value'", line=number, text=raw)
            if key.group(1) in section:
                raise FormatError(
                    f"{key.group(1)} is given twice in this section", line=number, text=raw
                )
            section[key.group(1)] = (number, raw, key.group(2).strip())
        if not self.system:
            raise FormatError(
                "no [System] section; is this a FIS file?", line=1, text=text.split("\n")[0]
            )

    def _open(self, match, number, raw):
        name, i, o = match.groups()
        if name == "System":
            if self.system:
                raise FormatError("a second [System] section", line=number, text=raw)
            self.system["_line"] = (number, raw, "")
            return self.system
        if name == "Rules":
            if self.rules_seen:
                raise FormatError("a second [Rules] section", line=number, text=raw)
            self.rules_seen = True
            return "rules"
        table, index = (self.inputs, int(i)) if i is not None else (self.outputs, int(o))
        if index in table:
            raise FormatError(f"a second [{name}] section", line=number, text=raw)
        table[index] = {"_line": (number, raw, "")}
        return table[index]

    # ----------------------------------------------------------- values
    @staticmethod
    def get(section, key, where):
        if key not in section:
            number, raw, _ = section["_line"]
            raise FormatError(f"missing {key}= in {where}", line=number, text=raw)
        return section[key]

    def string(self, section, key, where):
        number, raw, value = self.get(section, key, where)
        match = _STRING.match(value)
        if not match:
            raise FormatError(
                f"{key} must be a quoted string like {key}='...'", line=number, text=raw
            )
        return match.group(1)

    def count(self, section, key, where, least=1):
        number, raw, value = self.get(section, key, where)
        if not _INTEGER.match(value) or int(value) < least:
            kind = "a positive" if least == 1 else "a non-negative"
            raise FormatError(
                f"{key} must be {kind} integer (at most 18 digits)", line=number, text=raw
            )
        return int(value)

    @staticmethod
    def numbers(text, number, raw, what):
        values = []
        for token in text.replace(",", " ").split():
            if not _NUMBER.match(token):
                raise FormatError(f"{what}: {token[:30]!r} is not a number", line=number, text=raw)
            value = float(token)
            if value in (float("inf"), float("-inf")):
                raise FormatError(
                    f"{what}: {token[:30]!r} is not a finite number", line=number, text=raw
                )
            values.append(value)
        return values

    def method(self, key, feature):
        """A [System] method as a randomts norm: MATLAB's default if absent, fuzzylite's '' too."""
        if key not in self.system:
            return _DEFAULT_METHODS[key]
        number, raw, value = self.system[key]
        if value in ("", "''"):  # fuzzylite writes '' where its engine has no such operator
            return _EMPTY_METHODS[key]
        value = self.string(self.system, key, "[System]")
        if value not in _NORM_NAMES:
            raise FormatError(
                f"unsupported {feature} {key}='{value}'; randomts reads "
                + ", ".join(f"'{n}'" for n in _NORM_NAMES)
                + " (or '', fuzzylite's none)",
                line=number,
                text=raw,
            )
        return _NORM_NAMES[value]

    def flag(self, section, key):
        """fuzzylite's ``Key=1`` or ``Key=0`` as a bool (None if absent)."""
        if key not in section:
            return None
        number, raw, value = section[key]
        if not _NUMBER.match(value) or float(value) not in (0.0, 1.0):
            raise FormatError(
                f"{key} must be 1 (true) or 0 (false), as fuzzylite writes it; got {value[:30]!r}",
                line=number,
                text=raw,
            )
        return float(value) == 1.0

    def options(self, section, kind, where):
        """The variable's fuzzylite keys as keyword arguments, and whether it is enabled."""
        enabled = self.flag(section, "Enabled") is not False
        options = {"lock_range": bool(self.flag(section, "LockRange"))}
        if kind == "Output":
            if not enabled:
                number, raw, _ = section["Enabled"]
                raise FormatError(
                    f"unsupported Enabled=0 in {where}: fuzzylite leaves a disabled output's "
                    "value as it was (NaN), which a randomts output cannot be",
                    line=number,
                    text=raw,
                )
            if self.flag(section, "LockPrevious"):
                number, raw, _ = section["LockPrevious"]
                raise FormatError(
                    f"unsupported LockPrevious=1 in {where}: fuzzylite then replaces a NaN output "
                    "by the previous input row's value, and randomts evaluates every row on its own",
                    line=number,
                    text=raw,
                )
            if "Default" in section:
                number, raw, value = section["Default"]
                if _NAN.match(value):
                    options["default"] = math.nan
                elif _NUMBER.match(value) and math.isfinite(float(value)):
                    options["default"] = float(value)
                else:
                    raise FormatError(
                        f"Default must be a finite number or nan; got {value[:30]!r}",
                        line=number,
                        text=raw,
                    )
        return options, enabled

    # ---------------------------------------------------------- sections
    def variables(self, table, count, kind):
        """(name, range, [(term name, term)], options, enabled) of each [Input<k>] or [Output<k>]."""
        extra = sorted(k for k in table if not 1 <= k <= count)
        if extra:
            number, raw, _ = table[extra[0]]["_line"]
            raise FormatError(f"[{kind}{extra[0]}] but Num{kind}s={count}", line=number, text=raw)
        if len(table) != count:
            number, raw, _ = self.system[f"Num{kind}s"]
            missing = next(k for k in range(1, count + 1) if k not in table)
            raise FormatError(
                f"Num{kind}s={count} but no [{kind}{missing}] section", line=number, text=raw
            )
        variables = []
        for index in range(1, count + 1):
            section, where = table[index], f"[{kind}{index}]"
            name = self.string(section, "Name", where)
            number, raw, value = self.get(section, "Range", where)
            bounds = (
                self.numbers(value[1:-1], number, raw, "Range")
                if value.startswith("[") and value.endswith("]")
                else []
            )
            if len(bounds) != 2:
                raise FormatError("Range must be [low high]", line=number, text=raw)
            bounds = sorted(bounds)  # a reversed range was always read; it changes no output
            n_mfs = self.count(section, "NumMFs", where, least=0)  # MATLAB allows none
            known = ("_line", "Name", "Range", "NumMFs", *_VARIABLE_KEYS[kind])
            unknown = [k for k in section if k not in known and not re.fullmatch(r"MF[1-9]\d*", k)]
            if unknown:
                number, raw, _ = section[unknown[0]]
                raise FormatError(
                    f"{unknown[0]}= belongs in [Output<k>] sections (fuzzylite's), not in {where}"
                    if unknown[0] in _VARIABLE_KEYS["Output"]
                    else f"unknown key {unknown[0]} in {where}",
                    line=number,
                    text=raw,
                )
            options, enabled = self.options(section, kind, where)
            found = [k for k in section if k.startswith("MF")]
            if len(found) != n_mfs or any(f"MF{j}" not in section for j in range(1, n_mfs + 1)):
                number, raw, _ = section["NumMFs"]
                raise FormatError(
                    f"NumMFs={n_mfs} but {where} defines {len(found)} MF(s) "
                    f"({', '.join(found[:4])}{', ...' if len(found) > 4 else ''})",
                    line=number,
                    text=raw,
                )
            mfs = [self.mf(section[f"MF{j}"], kind) for j in range(1, n_mfs + 1)]
            term_names = unique_names(
                [term_name or f"mf{j + 1}" for j, (term_name, _) in enumerate(mfs)]
            )
            terms = list(zip(term_names, [t for _, t in mfs], strict=True))
            variables.append([name, tuple(bounds), terms, options, enabled])
        return variables

    def mf(self, entry, kind):
        number, raw, value = entry
        match = _MF.match(value)
        if not match:
            raise FormatError("expected MF<j>='name':'type',[params]", line=number, text=raw)
        name, mf_type = match.group(1), match.group(2)
        params = self.numbers(match.group(3), number, raw, "MF parameters")
        if kind == "Input":
            if mf_type not in _INPUT_MFS:
                raise FormatError(
                    f"unsupported input membership function '{mf_type}'; randomts reads "
                    + ", ".join(f"'{t}'" for t in _INPUT_MFS),
                    line=number,
                    text=raw,
                )
        else:
            if mf_type not in ("linear", "constant"):
                raise FormatError(
                    f"unsupported output membership function '{mf_type}'; a Sugeno output is "
                    "'linear' or 'constant'",
                    line=number,
                    text=raw,
                )
            expected = len(self.inputs) + 1 if mf_type == "linear" else 1
            if len(params) != expected:
                raise FormatError(
                    f"a '{mf_type}' output takes {expected} parameter(s); got {len(params)}",
                    line=number,
                    text=raw,
                )
        try:
            return name, from_fis(mf_type, params)
        except ValueError:
            raise FormatError(
                f"{mf_type} takes {_INPUT_MFS.get(mf_type, '[params]')}", line=number, text=raw
            ) from None

    def rule_lines(self, n_rules, inputs, outputs, connectives):
        """The rules, and the line of each; ``connectives`` maps "1"/"2" to (key, norm or None)."""
        if len(self.rules) != n_rules:
            number, raw, _ = self.system["NumRules"]
            if len(self.rules) > n_rules:
                number, raw = self.rules[n_rules]
            raise FormatError(
                f"NumRules={n_rules} but the [Rules] section holds {len(self.rules)} rule(s)",
                line=number,
                text=raw,
            )
        rules = []
        for number, raw in self.rules:
            match = _RULE.match(raw.strip())
            if not match:
                raise FormatError(
                    "expected a rule 'i_1 ... i_n, o_1 ... o_m (weight) : connection'",
                    line=number,
                    text=raw,
                )
            left, right, weight, connection = (g.strip() for g in match.groups())
            weights = self.numbers(weight, number, raw, "rule weight")
            if len(weights) != 1 or weights[0] < 0:
                raise FormatError("the rule weight must be one number >= 0", line=number, text=raw)
            if connection not in ("1", "2"):
                raise FormatError(
                    "the connection after ':' must be 1 (AND) or 2 (OR)", line=number, text=raw
                )
            ins = self.indices(left, inputs, "input", number, raw)
            outs = self.indices(right, outputs, "output", number, raw)
            if not ins:
                raise FormatError("a rule must use at least one input", line=number, text=raw)
            if not outs:
                raise FormatError("a rule must conclude at least one output", line=number, text=raw)
            key, norm = connectives[connection]
            if len(ins) > 1 and norm is None:
                raise FormatError(
                    f"the rule joins {len(ins)} inputs with connection {connection} "
                    f"({'AND' if connection == '1' else 'OR'}) but {key}='' gives no method",
                    line=number,
                    text=raw,
                )
            antecedent = (
                ins[0] if len(ins) == 1 else Connective("and" if connection == "1" else "or", ins)
            )
            rules.append(FuzzyRule(antecedent, tuple(outs), weights[0]))
        return rules

    def indices(self, text, variables, kind, number, raw):
        """Propositions of MATLAB indices: 0 skips, -j negates, j.h raises to the power h/10."""
        tokens = text.split()
        if len(tokens) != len(variables):
            raise FormatError(
                f"a rule needs {len(variables)} {kind} MF index(es); got {len(tokens)}",
                line=number,
                text=raw,
            )
        propositions = []
        for k, token in enumerate(tokens):
            if not _NUMBER.match(token):
                raise FormatError(
                    f"{kind} MF index {token[:30]!r} is not a number", line=number, text=raw
                )
            value = float(token)
            if not abs(value) < 2**53:  # an index, not a float beyond the integers
                raise FormatError(
                    f"{kind} MF index {token[:30]}... is absurdly large", line=number, text=raw
                )
            negated = value < 0
            value = abs(value)
            index = math.trunc(value)
            if index == 0:
                continue
            name, terms = variables[k][0], variables[k][2]
            if index > len(terms):
                raise FormatError(
                    f"{kind} {k + 1} has {len(terms)} MFs; index {index} is out of range",
                    line=number,
                    text=raw,
                )
            hedge = math.floor(100 * (value - index) + 0.5) / 10  # GNU Octave's reading
            hedges = ["not"] if negated else []
            if hedge:
                hedges.append(hedge if kind == "input" else 1.0 / hedge)
            propositions.append(Proposition(name, terms[index - 1][0], tuple(hedges)))
        return propositions

    def fuzzy_system(self, metadata=None):
        system_type = self.string(self.system, "Type", "[System]")
        if system_type != "sugeno":
            number, raw, _ = self.system["Type"]
            raise FormatError(
                f"unsupported system type Type='{system_type}'; randomts evaluates Sugeno "
                "(Takagi-Sugeno) systems, not Mamdani ones"
                if system_type == "mamdani"
                else f"unsupported system type Type='{system_type}'; randomts reads 'sugeno'",
                line=number,
                text=raw,
            )
        n_inputs = self.count(self.system, "NumInputs", "[System]")
        n_outputs = self.count(self.system, "NumOutputs", "[System]")
        n_rules = self.count(self.system, "NumRules", "[System]")
        conjunction = self.method("AndMethod", "AND method")
        disjunction = self.method("OrMethod", "OR method")
        aggregation = self.method("AggMethod", "aggregation method")
        defuzzifier = self.string(self.system, "DefuzzMethod", "[System]")
        if defuzzifier not in ("wtaver", "wtsum"):
            number, raw, _ = self.system["DefuzzMethod"]
            raise FormatError(
                f"unsupported defuzzification DefuzzMethod='{defuzzifier}'; a Sugeno system "
                "uses 'wtaver' or 'wtsum'",
                line=number,
                text=raw,
            )
        inputs = self.variables(self.inputs, n_inputs, "Input")
        outputs = self.variables(self.outputs, n_outputs, "Output")
        if not self.rules_seen:
            number, raw, _ = self.system["NumRules"]
            raise FormatError("no [Rules] section", line=number, text=raw)
        names = unique_names([v[0] for v in inputs + outputs])  # MATLAB allows y in and out
        for variable, name in zip(inputs + outputs, names, strict=True):
            variable[0] = name
        rules = self.rule_lines(
            n_rules,
            inputs,
            outputs,
            {"1": ("AndMethod", conjunction), "2": ("OrMethod", disjunction)},
        )
        disabled = {v[0] for v in inputs if not v[4]}
        if disabled:
            rules = without_disabled_inputs(rules, disabled)
        name = self.string(self.system, "Name", "[System]") if "Name" in self.system else "fis"
        try:
            return FuzzySystem(
                [
                    InputVariable(n, terms, value_range, **options)
                    for n, value_range, terms, options, _ in inputs
                ],
                [
                    OutputVariable(
                        n,
                        terms,
                        value_range,
                        defuzzifier=defuzzifier,
                        aggregation=aggregation,
                        **options,
                    )
                    for n, value_range, terms, options, _ in outputs
                ],
                rules,
                conjunction=conjunction or _DEFAULT_METHODS["AndMethod"],
                disjunction=disjunction or _DEFAULT_METHODS["OrMethod"],
                name=name.strip() or "fis",
                metadata=metadata,
            )
        except (ValueError, TypeError) as exc:
            number, raw, _ = self.system["_line"]
            raise FormatError(f"not a valid fuzzy system: {exc}", line=number, text=raw) from None


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
