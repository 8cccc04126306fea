"""The fuzzylite ``fll`` format (``.fll``): a Takagi-Sugeno engine in the FuzzyLite Language.

Written as pyfuzzylite's ``FllImporter`` reads it::

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

One Gaussian term per rule on every input and one ``Linear`` term per rule
on every output (also for constant consequents). fuzzylite's ``WeightedSum``
is ``sum_i w_i z_i`` and ``WeightedAverage`` is ``sum_i w_i z_i / sum_i w_i``
(with ``w`` the product of the memberships); both return NaN where every
``w_i`` is 0, where randomts returns 0 (sum) or the nearest rule (average).

Names must be identifiers in FLL: other characters become ``_`` (and a name
that is an FLL keyword gets a trailing ``_``); the original name is kept in
the variable's ``description`` as a JSON string (with ``#`` written
``\\u0023``, since ``#`` starts a comment), from which the reader restores it.
Numbers are written with ``repr``. The rule base's metadata, if any, follow
the rules on one comment line ``# randomts-metadata: {...}`` (JSON).

The reader accepts engines written by other tools when randomts can
represent them (Gaussian inputs of height 1, ``Linear`` or ``Constant``
outputs, one rule block with ``AlgebraicProduct`` conjunction and ``General``
activation, every rule using every input and output once); it rejects
anything else naming the line. Every term must be used by some rule: an
unused term means a truncated file.

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

from ..exceptions import FormatError
from ._base import RuleBaseFormat, metadata_comment, read_metadata_comment, variable_ranges
from ._names import unique_names

__all__ = ["FllFormat"]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")  # \Z: "$" would let a final newline in
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
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")  # linear time
_SECTIONS = ("Engine", "InputVariable", "OutputVariable", "RuleBlock")


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
        """The rule base as FLL text."""
        input_ranges, output_ranges = variable_ranges(rule_base)
        inputs = unique_names([_identifier(n) for n in rule_base.input_names])
        outputs = unique_names([_identifier(n) for n in rule_base.output_names])
        defuzzifier = "WeightedAverage" if rule_base.normalize else "WeightedSum"
        lines = ["Engine: randomts"]
        for k, (name, original) in enumerate(zip(inputs, rule_base.input_names, strict=True)):
            lines += _variable_head("InputVariable", name, original, input_ranges[k])
            lines += [
                f"  term: r{i + 1} Gaussian {_numbers([c, s])}"
                for i, (c, s) in enumerate(
                    zip(rule_base.centers[:, k], rule_base.sigmas[:, k], strict=True)
                )
            ]
        for m, (name, original) in enumerate(zip(outputs, rule_base.output_names, strict=True)):
            lines += _variable_head("OutputVariable", name, original, output_ranges[m]) + [
                "  aggregation: none",
                f"  defuzzifier: {defuzzifier} TakagiSugeno",
                "  default: nan",
                "  lock-previous: false",
            ]
            lines += [
                f"  term: r{i + 1} Linear "
                f"{_numbers([*rule_base.coef[i, m], rule_base.intercept[i, m]])}"
                for i in range(rule_base.n_rules)
            ]
        lines += [
            "RuleBlock: rules",
            "  enabled: true",
            "  conjunction: AlgebraicProduct",
            "  disjunction: none",
            "  implication: none",
            "  activation: General",
        ]
        for i in range(rule_base.n_rules):
            antecedent = " and ".join(f"{name} is r{i + 1}" for name in inputs)
            consequent = " and ".join(f"{name} is r{i + 1}" for name in outputs)
            lines.append(f"  rule: if {antecedent} then {consequent}")
        lines += metadata_comment(rule_base, "#")  # a comment to fuzzylite
        return "\n".join(lines) + "\n"

    def from_string(self, text):
        """Read a Takagi-Sugeno engine with Gaussian inputs and linear or constant outputs."""
        rule_base = _Reader(text).rule_base()
        metadata = read_metadata_comment(text, "#")
        return rule_base if metadata is None else rule_base.replace(metadata=metadata)


def _variable_head(kind, name, original, value_range):
    """``kind: name``, the original name if it changed, and the settings of every variable."""
    head = [f"{kind}: {name}"]
    if name != original:
        head.append(
            "  description: " + json.dumps(original, ensure_ascii=False).replace("#", "\\u0023")
        )
    return head + ["  enabled: true", f"  range: {_numbers(value_range)}", "  lock-range: false"]


class _Variable:
    def __init__(self, kind, name, line):
        self.kind, self.name, self.line = kind, name, line
        self.terms = {}  # name -> (line, raw, parameters)
        self.used = set()
        self.description = None
        self.settings = {}


class _Reader:
    def __init__(self, text):
        self.inputs, self.outputs, self.blocks = [], [], []
        current = None
        for number, raw in enumerate(text.split("\n"), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            key, sep, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if not sep:
                raise FormatError("expected 'key: value'", line=number, text=raw)
            if key in _SECTIONS:
                current = self._open(key, value, number, raw)
            elif current is None:
                raise FormatError("expected 'Engine:' or a variable first", line=number, text=raw)
            else:
                current(key, value, number, raw)
        if not self.inputs or not self.outputs or not self.blocks:
            missing = [
                what
                for what, found in (
                    ("InputVariable", self.inputs),
                    ("OutputVariable", self.outputs),
                    ("RuleBlock", self.blocks),
                )
                if not found
            ]
            lines = text.split("\n")
            raise FormatError(
                f"no {missing[0]}; the engine is incomplete or not FLL",
                line=len(lines),
                text=lines[-1],
            )

    def _open(self, key, value, number, raw):
        if key == "Engine":
            return self._engine
        if key == "RuleBlock":
            if self.blocks:
                raise FormatError(
                    "unsupported second RuleBlock; randomts reads one", line=number, text=raw
                )
            self.blocks.append({"rules": [], "settings": {}})
            return self._block
        if not _IDENTIFIER.match(value):
            raise FormatError(
                f"a {key} needs a name made of letters, digits and _", line=number, text=raw
            )
        if key == "InputVariable" and self.outputs:
            raise FormatError(
                "unsupported InputVariable after an OutputVariable; randomts reads inputs first",
                line=number,
                text=raw,
            )
        variable = _Variable(key, value, number)
        table = self.inputs if key == "InputVariable" else self.outputs
        if any(v.name == value for v in self.inputs + self.outputs):
            raise FormatError(f"a second variable named {value!r}", line=number, text=raw)
        table.append(variable)
        self.variable = variable
        return self._variable

    def _engine(self, key, value, number, raw):
        if key != "description":
            raise FormatError(f"unknown Engine key {key!r}", line=number, text=raw)

    def _variable(self, key, value, number, raw):
        variable = self.variable
        if key == "term":
            self._term(variable, value, number, raw)
        elif key == "description":
            variable.description = value
        elif key in ("enabled", "lock-range", "lock-previous"):
            if value not in ("true", "false"):
                raise FormatError(f"{key} must be true or false", line=number, text=raw)
            variable.settings[key] = (value, number, raw)
        elif key == "range":
            parts = value.split()
            if len(parts) != 2 or not all(_NUMBER.match(p) or p in ("-inf", "inf") for p in parts):
                raise FormatError("range must be two numbers", line=number, text=raw)
        elif key in ("aggregation", "defuzzifier", "default") and variable.kind == "OutputVariable":
            variable.settings[key] = (value, number, raw)
        else:
            raise FormatError(f"unknown {variable.kind} key {key!r}", line=number, text=raw)

    def _term(self, variable, value, number, raw):
        parts = value.split()
        if len(parts) < 2:
            raise FormatError("expected 'term: name Type parameters'", line=number, text=raw)
        name, kind, params = parts[0], parts[1], parts[2:]
        if name in variable.terms:
            raise FormatError(f"a second term {name!r} in {variable.name}", line=number, text=raw)
        for token in params:
            if not _NUMBER.match(token):
                raise FormatError(
                    f"term parameter {token[:30]!r} is not a number", line=number, text=raw
                )
        values = [float(p) for p in params]
        if any(v in (float("inf"), float("-inf")) for v in values):
            raise FormatError("term parameters must be finite", line=number, text=raw)
        if variable.kind == "InputVariable":
            if kind != "Gaussian":
                raise FormatError(
                    f"unsupported input term type {kind!r}; randomts reads Gaussian only",
                    line=number,
                    text=raw,
                )
            if (
                len(values) not in (2, 3)
                or values[1] <= 0
                or (len(values) == 3 and values[2] != 1.0)
            ):
                raise FormatError(
                    "a Gaussian takes 'mean sd' with sd > 0 (and height 1 if given)",
                    line=number,
                    text=raw,
                )
        elif kind == "Constant":
            if len(values) != 1:
                raise FormatError("a Constant takes one value", line=number, text=raw)
            values = [0.0] * len(self.inputs) + values
        elif kind == "Linear":
            if len(values) not in (len(self.inputs), len(self.inputs) + 1):
                raise FormatError(
                    f"a Linear term takes {len(self.inputs)} coefficients and a constant; "
                    f"got {len(values)} numbers",
                    line=number,
                    text=raw,
                )
            values = values + [0.0] * (len(self.inputs) + 1 - len(values))
        else:
            raise FormatError(
                f"unsupported output term type {kind!r}; randomts reads Linear or Constant",
                line=number,
                text=raw,
            )
        variable.terms[name] = (number, raw, values)

    def _block(self, key, value, number, raw):
        block = self.blocks[-1]
        if key == "rule":
            block["rules"].append((number, raw, value))
        elif key in (
            "enabled",
            "conjunction",
            "disjunction",
            "implication",
            "activation",
            "description",
        ):
            block["settings"][key] = (value, number, raw)
        else:
            raise FormatError(f"unknown RuleBlock key {key!r}", line=number, text=raw)

    # ------------------------------------------------------------- checks
    @staticmethod
    def setting(settings, key, allowed, feature):
        if key not in settings:
            return
        value, number, raw = settings[key]
        if (value.split() or ["none"])[0] not in allowed:
            raise FormatError(
                f"unsupported {feature} {value!r}; randomts reads {' or '.join(allowed)}",
                line=number,
                text=raw,
            )

    def mode(self):
        modes = set()
        for variable in self.outputs:
            settings = variable.settings
            if "defuzzifier" not in settings:
                raise FormatError(f"output {variable.name} has no defuzzifier", line=variable.line)
            value, number, raw = settings["defuzzifier"]
            parts = value.split() or ["none"]
            if parts[0] not in ("WeightedSum", "WeightedAverage") or parts[1:] not in (
                [],
                ["TakagiSugeno"],
                ["Automatic"],
            ):
                raise FormatError(
                    f"unsupported defuzzifier {value!r}; randomts reads WeightedSum or "
                    "WeightedAverage (TakagiSugeno)",
                    line=number,
                    text=raw,
                )
            modes.add(parts[0])
            self.setting(settings, "aggregation", ("none", "UnboundedSum"), "aggregation")
        if len(modes) > 1:
            raise FormatError(
                "unsupported mix of WeightedSum and WeightedAverage outputs",
                line=self.outputs[-1].line,
            )
        return modes.pop() == "WeightedAverage"

    def rule_base(self):
        from ..rulebase import RuleBase

        for variable in self.inputs + self.outputs:
            for key in ("enabled",):
                if variable.settings.get(key, ("true",))[0] != "true":
                    value, number, raw = variable.settings[key]
                    raise FormatError(
                        f"unsupported disabled variable {variable.name}", line=number, text=raw
                    )
            if variable.settings.get("lock-range", ("false",))[0] != "false":
                value, number, raw = variable.settings["lock-range"]
                raise FormatError(
                    f"unsupported lock-range: true on {variable.name} (randomts does not "
                    "clip values to ranges)",
                    line=number,
                    text=raw,
                )
            if not variable.terms:
                raise FormatError(f"{variable.name} has no terms", line=variable.line)
        normalize = self.mode()
        block = self.blocks[0]
        settings = block["settings"]
        if settings.get("enabled", ("true",))[0] != "true":
            value, number, raw = settings["enabled"]
            raise FormatError("unsupported disabled RuleBlock", line=number, text=raw)
        if len(self.inputs) > 1:
            self.setting(settings, "conjunction", ("AlgebraicProduct",), "conjunction")
        self.setting(settings, "activation", ("General", "none"), "activation")
        if not block["rules"]:
            raise FormatError(
                "the RuleBlock has no rules", line=len(self.inputs) + len(self.outputs)
            )
        rules = [self.rule(*entry) for entry in block["rules"]]
        for variable in self.inputs + self.outputs:
            unused = [n for n in variable.terms if n not in variable.used]
            if unused:
                number, raw, _ = variable.terms[unused[0]]
                raise FormatError(
                    f"term {unused[0]!r} of {variable.name} is used by no rule (is the file "
                    "truncated?)",
                    line=number,
                    text=raw,
                )
        names = {}
        for role, variables in (("input_names", self.inputs), ("output_names", self.outputs)):
            names[role] = [self.original_name(v) for v in variables]
        try:
            return RuleBase(
                centers=[
                    [v.terms[t][2][0] for v, t in zip(self.inputs, ins, strict=True)]
                    for ins, _ in rules
                ],
                sigmas=[
                    [v.terms[t][2][1] for v, t in zip(self.inputs, ins, strict=True)]
                    for ins, _ in rules
                ],
                coef=[
                    [v.terms[t][2][:-1] for v, t in zip(self.outputs, outs, strict=True)]
                    for _, outs in rules
                ],
                intercept=[
                    [v.terms[t][2][-1] for v, t in zip(self.outputs, outs, strict=True)]
                    for _, outs in rules
                ],
                normalize=normalize,
                **names,
            )
        except (ValueError, TypeError) as exc:
            raise FormatError(f"not a valid rule base: {exc}", line=self.inputs[0].line) from None

    @staticmethod
    def original_name(variable):
        if variable.description is not None:
            try:
                name = json.loads(variable.description)
            except ValueError:
                return variable.name
            if isinstance(name, str) and name.strip():
                return name
        return variable.name

    def rule(self, number, raw, text):
        words = text.split()
        if not words or words[0] != "if" or words.count("then") != 1:
            raise FormatError("expected 'if ... then ...'", line=number, text=raw)
        for word, feature in (
            ("or", "OR"),
            ("not", "NOT"),
            ("with", "rule weight"),
            ("(", "parentheses"),
        ):
            if word in words or (word == "(" and "(" in text):
                raise FormatError(f"unsupported {feature} in a rule", line=number, text=raw)
        split = words.index("then")
        ins = self.propositions(words[1:split], self.inputs, number, raw, "input")
        outs = self.propositions(words[split + 1 :], self.outputs, number, raw, "output")
        return ins, outs

    def propositions(self, words, variables, number, raw, role):
        chosen = {}
        clauses, clause = [], []
        for word in words + ["and"]:
            if word == "and":
                clauses.append(clause)
                clause = []
            else:
                clause.append(word)
        for clause in clauses:
            if len(clause) != 3 or clause[1] != "is":
                what = "hedge" if len(clause) > 3 and clause[1] == "is" else "'variable is term'"
                raise FormatError(
                    f"unsupported {what}" if what == "hedge" else f"expected {what}",
                    line=number,
                    text=raw,
                )
            name, _, term = clause
            variable = next((v for v in variables if v.name == name), None)
            if variable is None:
                raise FormatError(f"{name!r} is not an {role} variable", line=number, text=raw)
            if name in chosen:
                raise FormatError(f"{name!r} appears twice in one rule", line=number, text=raw)
            if term not in variable.terms:
                raise FormatError(f"{name} has no term {term!r}", line=number, text=raw)
            chosen[name] = term
            variable.used.add(term)
        missing = [v.name for v in variables if v.name not in chosen]
        if missing:
            raise FormatError(
                f"unsupported rule without the {role} {missing[0]}; every randomts rule "
                f"uses every {role}",
                line=number,
                text=raw,
            )
        return [chosen[v.name] for v in variables]
