"""The reader of the FIS format: a FIS file's sections, read into a FuzzySystem.

Every damaged line is a :class:`~randomts.exceptions.FormatError` naming its
line number and text. The format itself is described in
:mod:`randomts.io.fis`.
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
    without_disabled_inputs,
)
from randomts.io._names import unique_names

_SECTION = re.compile(r"^\[(System|Input(\d{1,9})|Output(\d{1,9})|Rules)\]$")

__all__ = ["FisReader"]


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


class FisReader:
    """A FIS file read section by section into a FuzzySystem (:meth:`fuzzy_system`)."""

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
