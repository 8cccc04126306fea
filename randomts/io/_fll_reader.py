"""The reader of the FLL format: fuzzylite's engine text, read into a FuzzySystem.

Every damaged line is a :class:`~randomts.exceptions.FormatError` naming its
line number and text; the norms and the rule trees are shared with the
writer of :mod:`randomts.io.fll`, where the format is described.
"""

from __future__ import annotations

import json
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
    parse_rule,
)
from randomts.fuzzy.terms import INPUT_TERMS, make_term
from randomts.io._base import (
    without_disabled_inputs,
)
from randomts.io._names import unique_names

__all__ = ["SNORMS", "TNORMS", "FllReader", "antecedent_propositions", "renamed_rule", "uses"]


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")  # \Z: "$" would let a final newline in


_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")  # linear time


_SECTIONS = ("Engine", "InputVariable", "OutputVariable", "RuleBlock")


# fuzzylite's norms, to randomts's names (see randomts.fuzzy.norms.NORMS).
TNORMS = {
    "Minimum": "min",
    "AlgebraicProduct": "prod",
    "BoundedDifference": "bounded_difference",
    "DrasticProduct": "drastic_product",
    "EinsteinProduct": "einstein_product",
    "HamacherProduct": "hamacher_product",
    "NilpotentMinimum": "nilpotent_minimum",
}


SNORMS = {
    "Maximum": "max",
    "AlgebraicSum": "probor",
    "BoundedSum": "bounded_sum",
    "DrasticSum": "drastic_sum",
    "EinsteinSum": "einstein_sum",
    "HamacherSum": "hamacher_sum",
    "NilpotentMaximum": "nilpotent_maximum",
    "NormalizedSum": "normalized_sum",
    "UnboundedSum": "sum",
}


class _Variable:
    def __init__(self, kind, name, line, raw):
        self.kind, self.name, self.line, self.raw = kind, name, line, raw
        self.terms = {}  # name -> (line, raw, type, parameters)
        self.used = set()
        self.description = None
        self.range = None
        self.settings = {}


class FllReader:
    """An FLL text read line by line into a FuzzySystem (:meth:`fuzzy_system`)."""

    def __init__(self, text):
        self.inputs, self.outputs, self.blocks = [], [], []
        self.engine = None
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
            self.engine = value
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
        variable = _Variable(key, value, number, raw)
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
            variable.range = tuple(sorted(float(p) for p in parts))  # reversed: always read
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
            if self.engine == "randomts":
                raise FormatError(
                    f"a second term {name!r} in {variable.name}", line=number, text=raw
                )
            # fuzzylite keeps both and its rules name the last: so do we, renaming the other.
            renamed = unique_names(list(variable.terms) + [name])[-1]
            variable.terms = {
                (renamed if key == name else key): entry for key, entry in variable.terms.items()
            }
        if kind == "Function":
            raise FormatError(
                f"unsupported Function term {name!r} of {variable.name}; randomts does not "
                "evaluate fuzzylite Function terms",
                line=number,
                text=raw,
            )
        for token in params:
            if not _NUMBER.match(token):
                raise FormatError(
                    f"term parameter {token[:30]!r} is not a number", line=number, text=raw
                )
        values = [float(p) for p in params]
        if any(v in (float("inf"), float("-inf")) for v in values):
            raise FormatError("term parameters must be finite", line=number, text=raw)
        if variable.kind == "InputVariable":
            if kind not in INPUT_TERMS:
                raise FormatError(
                    f"unsupported input term type {kind!r}; randomts reads "
                    + ", ".join(INPUT_TERMS),
                    line=number,
                    text=raw,
                )
        elif kind not in ("Constant", "Linear"):
            raise FormatError(
                f"unsupported output term type {kind!r}; a Takagi-Sugeno output has Constant "
                "or Linear terms (Mamdani and Tsukamoto outputs are not supported)",
                line=number,
                text=raw,
            )
        elif kind == "Constant" and len(values) != 1:
            raise FormatError("a Constant takes one value", line=number, text=raw)
        elif kind == "Linear":
            if len(values) not in (len(self.inputs), len(self.inputs) + 1):
                raise FormatError(
                    f"a Linear term takes {len(self.inputs)} coefficients and a constant; "
                    f"got {len(values)} numbers",
                    line=number,
                    text=raw,
                )
            values = values + [0.0] * (len(self.inputs) + 1 - len(values))
        try:
            term = make_term(kind, values)
        except (TypeError, ValueError) as exc:
            raise FormatError(str(exc).rstrip("."), line=number, text=raw) from None
        variable.terms[name] = (number, raw, term)

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
    def norm(settings, key, table, feature):
        """The randomts name of a norm setting, or None if absent or 'none'."""
        if key not in settings:
            return None
        value, number, raw = settings[key]
        if value == "none":
            return None
        if value not in table:
            raise FormatError(
                f"unsupported {feature} {value!r}; randomts reads " + ", ".join(table),
                line=number,
                text=raw,
            )
        return table[value]

    def output_settings(self, variable):
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
                f"unsupported defuzzifier {value!r}; randomts evaluates Takagi-Sugeno outputs "
                "(WeightedSum or WeightedAverage; Mamdani and Tsukamoto are not supported)",
                line=number,
                text=raw,
            )
        options = {"defuzzifier": "wtaver" if parts[0] == "WeightedAverage" else "wtsum"}
        aggregation = self.norm(settings, "aggregation", SNORMS, "aggregation")
        options["aggregation"] = aggregation or "sum"
        if "default" in settings:
            value, number, raw = settings["default"]
            if value != "nan" and not _NUMBER.match(value):
                raise FormatError("default must be a number or nan", line=number, text=raw)
            options["default"] = float(value)
        if settings.get("lock-previous", ("false",))[0] != "false":
            value, number, raw = settings["lock-previous"]
            raise FormatError(
                f"unsupported lock-previous: true on {variable.name} (randomts evaluates every "
                "input row on its own)",
                line=number,
                text=raw,
            )
        return options

    def fuzzy_system(self, metadata=None):
        disabled = []
        for variable in self.inputs + self.outputs:
            if variable.settings.get("enabled", ("true",))[0] != "true":
                value, number, raw = variable.settings["enabled"]
                if variable.kind == "OutputVariable":
                    raise FormatError(
                        f"unsupported disabled output {variable.name}: fuzzylite leaves its value "
                        "as it was (NaN), which a randomts output cannot be",
                        line=number,
                        text=raw,
                    )
                disabled.append(variable)
            if not variable.terms and self.engine == "randomts":
                raise FormatError(f"{variable.name} has no terms", line=variable.line)
        block = self.blocks[0]
        settings = block["settings"]
        if settings.get("enabled", ("true",))[0] != "true":
            value, number, raw = settings["enabled"]
            raise FormatError("unsupported disabled RuleBlock", line=number, text=raw)
        if settings.get("activation", ("General",))[0] not in ("General", "none"):
            value, number, raw = settings["activation"]
            raise FormatError(
                f"unsupported activation {value!r}; randomts reads General", line=number, text=raw
            )
        conjunction = self.norm(settings, "conjunction", TNORMS, "conjunction")
        disjunction = self.norm(settings, "disjunction", SNORMS, "disjunction")
        if not block["rules"]:
            raise FormatError(
                "the RuleBlock has no rules", line=len(self.inputs) + len(self.outputs)
            )
        rules = [self.rule(*entry, conjunction, disjunction) for entry in block["rules"]]
        strict = self.engine == "randomts"  # what randomts writes for a RuleBase
        if strict:
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
        if disabled:
            kept = without_disabled_inputs([rule for rule, _ in rules], {v.name for v in disabled})
            rules = [(rule, number) for rule, (_, number) in zip(kept, rules, strict=True)]
        names, term_names = {}, {}
        for variable in self.inputs + self.outputs:
            names[variable.name], term_names[variable.name] = self.original_names(variable)
        inputs, outputs = [], []
        output_settings = [self.output_settings(variable) for variable in self.outputs]
        try:
            for variable in self.inputs:
                inputs.append(
                    InputVariable(
                        names[variable.name],
                        self.terms(variable, term_names),
                        variable.range if variable.range else (-math.inf, math.inf),
                        lock_range=variable.settings.get("lock-range", ("false",))[0] == "true",
                    )
                )
            for variable, settings in zip(self.outputs, output_settings, strict=True):
                outputs.append(
                    OutputVariable(
                        names[variable.name],
                        self.terms(variable, term_names),
                        variable.range if variable.range else (-math.inf, math.inf),
                        lock_range=variable.settings.get("lock-range", ("false",))[0] == "true",
                        **settings,
                    )
                )
            renamed = [renamed_rule(rule, names, term_names) for rule, _ in rules]
            return FuzzySystem(
                inputs,
                outputs,
                renamed,
                conjunction=conjunction or "prod",
                disjunction=disjunction or "probor",
                name=self.engine or "fuzzylite",
                metadata=metadata,
            )
        except (ValueError, TypeError) as exc:
            raise FormatError(
                f"not a valid fuzzy system: {exc}", line=self.inputs[0].line
            ) from None

    @staticmethod
    def terms(variable, term_names):
        originals = term_names[variable.name]
        return [(originals.get(n, n), entry[2]) for n, entry in variable.terms.items()]

    @staticmethod
    def original_names(variable):
        """The variable's and its terms' names before FLL made them identifiers."""
        name, terms = variable.name, {}
        if variable.description is not None:
            try:
                value = json.loads(variable.description)
            except ValueError:
                return name, terms
            if isinstance(value, dict):
                listed = value.get("terms")
                if isinstance(listed, list) and len(listed) == len(variable.terms):
                    if all(isinstance(t, str) and t.strip() for t in listed):
                        terms = dict(zip(variable.terms, listed, strict=False))
                value = value.get("name")
            if isinstance(value, str) and value.strip():
                name = value
        return name, terms

    def rule(self, number, raw, text, conjunction, disjunction):
        try:
            rule = parse_rule(text)
        except ValueError as exc:
            raise FormatError(f"{exc}", line=number, text=raw) from None
        propositions = antecedent_propositions(rule.antecedent)
        for role, variables, chosen in (
            ("input", self.inputs, propositions),
            ("output", self.outputs, rule.consequent),
        ):
            by_name = {v.name: v for v in variables}
            seen = []
            for proposition in chosen:
                variable = by_name.get(proposition.variable)
                if variable is None:
                    raise FormatError(
                        f"{proposition.variable!r} is not an {role} variable", line=number, text=raw
                    )
                if proposition.term is not None:
                    if proposition.term not in variable.terms:
                        raise FormatError(
                            f"{variable.name} has no term {proposition.term!r}",
                            line=number,
                            text=raw,
                        )
                    variable.used.add(proposition.term)
                seen.append(variable.name)
            if self.engine == "randomts":
                missing = [v.name for v in variables if v.name not in seen]
                if missing or len(set(seen)) != len(seen):
                    raise FormatError(
                        f"unsupported rule without the {role} {missing[0]}; every randomts rule "
                        f"uses every {role}"
                        if missing
                        else f"unsupported rule using an {role} twice in a randomts engine",
                        line=number,
                        text=raw,
                    )
        for operator, norm in (("and", conjunction), ("or", disjunction)):
            if norm is None and uses(rule.antecedent, operator):
                setting = "conjunction" if operator == "and" else "disjunction"
                raise FormatError(
                    f"the rule uses '{operator}' but the RuleBlock has no {setting}",
                    line=number,
                    text=raw,
                )
        return rule, number


def antecedent_propositions(node):
    if isinstance(node, Proposition):
        return [node]
    return [p for operand in node.operands for p in antecedent_propositions(operand)]


def uses(node, operator):
    if isinstance(node, Proposition):
        return False
    return node.operator == operator or any(uses(o, operator) for o in node.operands)


def renamed_rule(rule, names, term_names):
    def proposition(p):
        term = term_names[p.variable].get(p.term, p.term) if p.term is not None else None
        return Proposition(names[p.variable], term, p.hedges)

    def node(n):
        if isinstance(n, Proposition):
            return proposition(n)
        return Connective(n.operator, tuple(node(o) for o in n.operands))

    return FuzzyRule(
        node(rule.antecedent), tuple(proposition(p) for p in rule.consequent), rule.weight
    )
