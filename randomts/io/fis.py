"""The MATLAB/Octave ``fis`` format (``.fis``): a Sugeno fuzzy inference system.

Written as MATLAB's ``writefis`` lays it out and as GNU Octave's
fuzzy-logic-toolkit ``readfis`` reads it (the ``[System]`` keys in MATLAB's
order)::

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
``repr``. Names keep every character but quotes and whitespace, which become
``_``. The variables' ``Range`` is the rule base's recorded range (the
training data's, else every centre plus and minus three widths): MATLAB warns
about inputs outside it and Octave's ``evalfis`` refuses them, so widen
``input_range`` before saving to evaluate such a file beyond the data there.
The rule base's metadata, if any, follow the rules on one comment line
``% randomts-metadata: {...}`` (JSON), after everything an engine reads.

The reader accepts any FIS of this kind written by other tools: keys in any
order, ``%``/``#`` comments, MFs shared between rules, ``'constant'``
outputs; it rejects, naming the line, anything randomts cannot represent
(other system types, MF types, hedges, NOT, OR, rule weights other than 1, a
rule that skips an input or an output, other AND or aggregation methods).

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
from randomts.fuzzy.system import (
    Connective,
    FuzzySystem,
    InputVariable,
    OutputVariable,
    Proposition,
    Rule,
)
from randomts.fuzzy.terms import from_matlab
from randomts.io._base import RuleBaseFormat, metadata_comment, variable_ranges
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
}
# Norm names of MATLAB and GNU Octave, to randomts's (see randomts.fuzzy.system.NORMS).
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


def _variable_head(kind, index, name, value_range, n_mfs):
    return [
        "",
        f"[{kind}{index + 1}]",
        f"Name='{name}'",
        f"Range={_vector(value_range)}",
        f"NumMFs={n_mfs}",
    ]


class FisFormat(RuleBaseFormat):
    """MATLAB/Octave Sugeno FIS (see the module docstring)."""

    name = "fis"
    extensions = (".fis",)

    def to_string(self, rule_base) -> str:
        """A RuleBase or a FuzzySystem as a FIS file (ValueError for what FIS cannot hold)."""
        if isinstance(rule_base, FuzzySystem):
            return _system_to_fis(rule_base)
        n_rules = rule_base.n_rules
        input_ranges, output_ranges = variable_ranges(rule_base)
        lines = [
            "[System]",
            "Name='randomts'",
            "Type='sugeno'",
            "Version=2.0",
            f"NumInputs={rule_base.n_features}",
            f"NumOutputs={rule_base.n_outputs}",
            f"NumRules={n_rules}",
            "AndMethod='prod'",
            "OrMethod='probor'",
            "ImpMethod='prod'",
            "AggMethod='sum'",
            f"DefuzzMethod='{'wtaver' if rule_base.normalize else 'wtsum'}'",
        ]
        names = unique_names([_fis_name(n) for n in rule_base.input_names])
        for k, name in enumerate(names):
            lines += _variable_head("Input", k, name, input_ranges[k], n_rules)
            lines += [
                f"MF{i + 1}='r{i + 1}':'gaussmf',"
                f"{_vector([rule_base.sigmas[i, k], rule_base.centers[i, k]])}"
                for i in range(n_rules)
            ]
        constant = rule_base.order == 0
        names = unique_names([_fis_name(n) for n in rule_base.output_names])
        for m, name in enumerate(names):
            lines += _variable_head("Output", m, name, output_ranges[m], n_rules)
            for i in range(n_rules):
                if constant:
                    kind, params = "constant", [rule_base.intercept[i, m]]
                else:
                    kind, params = "linear", [*rule_base.coef[i, m], rule_base.intercept[i, m]]
                lines.append(f"MF{i + 1}='r{i + 1}':'{kind}',{_vector(params)}")
        lines += ["", "[Rules]"]
        for i in range(n_rules):
            index = str(i + 1)
            lines.append(
                f"{' '.join([index] * rule_base.n_features)}, "
                f"{' '.join([index] * rule_base.n_outputs)} (1) : 1"
            )
        lines += metadata_comment(rule_base, "%")  # after the rules, which end what engines read
        return "\n".join(lines) + "\n"

    def from_string(self, text):
        """A RuleBase if the FIS has its shape (with its metadata comment), else a FuzzySystem."""
        return self._rule_base_or_system(text, "%")

    def system_from_string(self, text):
        """Read any Sugeno FIS as a FuzzySystem."""
        return _Reader(text).fuzzy_system()


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

    def choice(self, key, allowed, feature):
        value = self.string(self.system, key, "[System]")
        if value not in allowed:
            number, raw, _ = self.system[key]
            raise FormatError(
                f"unsupported {feature} {key}='{value}'; randomts reads "
                f"{' or '.join(repr(a) for a in allowed)}",
                line=number,
                text=raw,
            )
        return value

    # ---------------------------------------------------------- sections
    def variables(self, table, count, kind):
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
            unknown = [
                k
                for k in section
                if k not in ("_line", "Name", "Range", "NumMFs")
                and not re.fullmatch(r"MF[1-9]\d*", k)
            ]
            if unknown:
                number, raw, _ = section[unknown[0]]
                raise FormatError(f"unknown key {unknown[0]} in {where}", line=number, text=raw)
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
            variables.append(
                (name, tuple(bounds), list(zip(term_names, [t for _, t in mfs], strict=False)))
            )
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
            return name, from_matlab(mf_type, params)
        except ValueError:
            raise FormatError(
                f"{mf_type} takes {_INPUT_MFS.get(mf_type, '[params]')}", line=number, text=raw
            ) from None

    def rule_lines(self, n_rules, inputs, outputs):
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
            antecedent = (
                ins[0] if len(ins) == 1 else Connective("and" if connection == "1" else "or", ins)
            )
            rules.append(Rule(antecedent, tuple(outs), weights[0]))
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
            name, (_, terms) = variables[k][0], variables[k][1:]
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

    def fuzzy_system(self):
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
        methods = {}
        for key, feature, default in (
            ("AndMethod", "AND method", "prod"),
            ("OrMethod", "OR method", "probor"),
            ("AggMethod", "aggregation method", "sum"),
        ):
            value = self.string(self.system, key, "[System]") if key in self.system else default
            if value not in _NORM_NAMES:
                number, raw, _ = self.system[key]
                raise FormatError(
                    f"unsupported {feature} {key}='{value}'; randomts reads "
                    + ", ".join(f"'{n}'" for n in _NORM_NAMES),
                    line=number,
                    text=raw,
                )
            methods[key] = _NORM_NAMES[value]
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
        input_names = unique_names([v[0] for v in inputs])
        output_names = unique_names([v[0] for v in outputs])
        inputs = [(n, *v[1:]) for n, v in zip(input_names, inputs, strict=False)]
        outputs = [(n, *v[1:]) for n, v in zip(output_names, outputs, strict=False)]
        rules = self.rule_lines(n_rules, inputs, outputs)
        name = self.string(self.system, "Name", "[System]") if "Name" in self.system else "fis"
        try:
            return FuzzySystem(
                [InputVariable(n, terms, value_range) for n, value_range, terms in inputs],
                [
                    OutputVariable(
                        n,
                        terms,
                        value_range,
                        defuzzifier=defuzzifier,
                        aggregation=methods["AggMethod"],
                    )
                    for n, value_range, terms in outputs
                ],
                rules,
                conjunction=methods["AndMethod"],
                disjunction=methods["OrMethod"],
                name=name.strip() or "fis",
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


def _system_to_fis(system):
    first = system.outputs[0]
    for variable in system.outputs:
        for key in ("defuzzifier", "aggregation"):
            if getattr(variable, key) != getattr(first, key):
                raise ValueError(
                    f"A FIS has one {key} for all outputs; output {variable.name!r} has "
                    f"{getattr(variable, key)!r} and {first.name!r} has {getattr(first, key)!r}."
                )
        if variable.default == variable.default:
            raise ValueError(f"A FIS cannot hold the default value of output {variable.name!r}.")
    for variable in system.inputs + system.outputs:
        if variable.lock_range:
            raise ValueError(f"A FIS cannot hold lock_range of {variable.name!r}.")
        if not all(math.isfinite(v) for v in variable.range):
            raise ValueError(f"A FIS cannot hold the infinite range of {variable.name!r}.")
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
    for kind, variables in (("Input", system.inputs), ("Output", system.outputs)):
        names = unique_names([_fis_name(v.name) for v in variables])
        for k, (name, variable) in enumerate(zip(names, variables, strict=False)):
            lines += _variable_head(kind, k, name, variable.range, len(variable.terms))
            term_names = unique_names([_fis_name(t) for t in variable.terms])
            for j, (term_name, term) in enumerate(
                zip(term_names, variable.terms.values(), strict=False)
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
        lines.append(f"{fields[0]}, {fields[1]} ({rule.weight!r}) : {connection}")
    return "\n".join(lines) + "\n"
