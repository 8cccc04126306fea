"""The ``json`` format (``.json``): every array at full precision, versioned.

Schema, version 1 (one JSON object; every key is required, no other is
allowed)::

    {
      "format": "randomts-rulebase",   # identifies the file
      "version": 1,                    # this schema
      "n_rules": H, "n_features": n, "n_outputs": m,
      "normalize": false,              # false: weighted sum, true: weighted average
      "input_names": [n strings],
      "output_names": [m strings],
      "centers": [H lists of n numbers],          # c_ik
      "sigmas": [H lists of n numbers > 0],       # sigma_ik
      "coef": [H lists of m lists of n numbers],  # A_i
      "intercept": [H lists of m numbers],        # b_i
      "metadata": {...}                # how it was made: library version,
                                       # estimator params (seed, distributions,
                                       # standardisation), input_mean/input_scale,
                                       # and the recorded input_range/output_range
                                       # ([low, high] per variable), when known,
                                       # and "lock_range": true when inference
                                       # holds the variables in those ranges
    }

Numbers are written with ``repr`` (shortest round-trip form), so a loaded
rule base predicts bit for bit as the saved one. ``NaN`` and ``Infinity`` are
rejected. Each rule's row is on its own line.

Examples
--------
>>> from randomts import RuleBase
>>> rb = RuleBase.random(n_features=2, n_rules=2, random_state=0)
>>> fmt = JsonFormat()
>>> fmt.from_string(fmt.to_string(rb)) == rb
True
"""

from __future__ import annotations

import json
import numbers
import re

from randomts.exceptions import FormatError
from randomts.fuzzy.rulebase import LOCK_KEY
from randomts.io._base import RuleBaseFormat, parse_json

__all__ = ["JsonFormat", "FORMAT_ID", "SYSTEM_FORMAT_ID", "VERSION"]

FORMAT_ID = "randomts-rulebase"
SYSTEM_FORMAT_ID = "randomts-fuzzy-system"
VERSION = 1
_KEYS = (
    "format",
    "version",
    "n_rules",
    "n_features",
    "n_outputs",
    "normalize",
    "input_names",
    "output_names",
    "centers",
    "sigmas",
    "coef",
    "intercept",
    "metadata",
)


def _dump(value) -> str:
    return json.dumps(value, allow_nan=False, ensure_ascii=False)


def _rows(name, rows) -> str:
    body = ",\n".join(f"    {_dump(row)}" for row in rows)
    return f'  "{name}": [\n{body}\n  ]'


def _with_ranges(rule_base):
    """The metadata, with the recorded ranges (as lists) where files have always kept them."""
    metadata = rule_base.metadata
    for key in ("input_range", "output_range"):
        if getattr(rule_base, key) is not None:
            metadata[key] = getattr(rule_base, key).tolist()
    if rule_base.lock_range:
        metadata[LOCK_KEY] = True
    return metadata


class JsonFormat(RuleBaseFormat):
    """A documented, versioned JSON object (see the module docstring)."""

    name = "json"
    extensions = (".json",)

    def to_string(self, rule_base) -> str:
        """The rule base (or FuzzySystem) as JSON text, one rule per line in each array."""
        from randomts.fuzzy.system import FuzzySystem

        if isinstance(rule_base, FuzzySystem):
            return _system_to_json(rule_base)
        try:
            metadata = json.dumps(
                _with_ranges(rule_base),
                allow_nan=False,
                ensure_ascii=False,
                indent=2,
                sort_keys=True,
            )
        except (TypeError, ValueError) as exc:
            raise ValueError(f"The rule base's metadata cannot be saved as JSON: {exc}") from None
        head = {
            "format": FORMAT_ID,
            "version": VERSION,
            "n_rules": rule_base.n_rules,
            "n_features": rule_base.n_features,
            "n_outputs": rule_base.n_outputs,
            "normalize": rule_base.normalize,
            "input_names": list(rule_base.input_names),
            "output_names": list(rule_base.output_names),
        }
        parts = [f"  {_dump(key)}: {_dump(value)}" for key, value in head.items()]
        parts += [
            _rows("centers", rule_base.centers.tolist()),
            _rows("sigmas", rule_base.sigmas.tolist()),
            _rows("coef", rule_base.coef.tolist()),
            _rows("intercept", rule_base.intercept.tolist()),
            '  "metadata": ' + metadata.replace("\n", "\n  "),
        ]
        return "{\n" + ",\n".join(parts) + "\n}\n"

    def from_string(self, text):
        """Rebuild the rule base; any defect raises FormatError with a line number."""
        from randomts.fuzzy.rulebase import RuleBase

        document = _parse(text)
        if isinstance(document, dict) and document.get("format") == SYSTEM_FORMAT_ID:
            return _system_from_json(text, document)
        document = _decode(text, document)
        check = _Checker(text, document)
        check.equal("format", FORMAT_ID)
        version = check.integer("version")
        if version != VERSION:
            check.fail("version", f"version {version} is not one this randomts reads ({VERSION})")
        n_rules, n_features, n_outputs = (
            check.integer(k) for k in ("n_rules", "n_features", "n_outputs")
        )
        normalize = document["normalize"]
        if not isinstance(normalize, bool):
            check.fail("normalize", "'normalize' must be true or false")
        arrays = {
            "centers": check.array("centers", (n_rules, n_features)),
            "sigmas": check.array("sigmas", (n_rules, n_features)),
            "coef": check.array("coef", (n_rules, n_outputs, n_features)),
            "intercept": check.array("intercept", (n_rules, n_outputs)),
        }
        names = {
            k: check.names(k, count)
            for k, count in (("input_names", n_features), ("output_names", n_outputs))
        }
        if not isinstance(document["metadata"], dict):
            check.fail("metadata", "'metadata' must be an object")
        try:
            metadata = dict(document["metadata"])
            lock_range = metadata.pop(LOCK_KEY, False)
            return RuleBase(
                **arrays, **names, normalize=normalize, metadata=metadata, lock_range=lock_range
            )
        except (ValueError, TypeError) as exc:
            key = next(
                (k for k in ("sigmas", "input_names", "output_names") if k in str(exc)),
                "metadata" if "lock_range" in str(exc) else "format",
            )
            check.fail(key, f"not a valid rule base: {exc}")


def _parse(text):
    try:
        document = parse_json(text)
    except json.JSONDecodeError as exc:
        lines = text.split("\n")
        raise FormatError(
            f"invalid JSON: {exc.msg} (column {exc.colno})",
            line=exc.lineno,
            text=lines[exc.lineno - 1] if exc.lineno <= len(lines) else "",
        ) from None
    except ValueError as exc:  # NaN/Infinity, or an integer with too many digits
        match = re.search(r"NaN|-?Infinity|\d{1000,}", text)
        line = text.count("\n", 0, match.start()) + 1 if match else 1
        raise FormatError(
            f"invalid JSON: {str(exc)[:120]}", line=line, text=text.split("\n")[line - 1]
        ) from None
    except RecursionError:
        raise FormatError("invalid JSON: nested too deeply", line=1) from None
    return document


def _decode(text, document):
    if not isinstance(document, dict):
        raise FormatError(
            "expected a JSON object {...} at the top", line=1, text=text.split("\n")[0]
        )
    missing = [k for k in _KEYS if k not in document]
    if missing:
        raise FormatError(
            f"missing key(s) {missing} of a randomts rule base", line=1, text=text.split("\n")[0]
        )
    unknown = sorted(set(document) - set(_KEYS))
    if unknown:
        index = max(text.find(json.dumps(unknown[0])), 0)
        line = text.count("\n", 0, index) + 1
        raise FormatError(
            f"unknown key(s) {unknown} in a version {VERSION} rule base",
            line=line,
            text=text.split("\n")[line - 1],
        )
    return document


class _Checker:
    """Checks the keys of a decoded document, reporting the line where each key is written."""

    def __init__(self, text, document):
        self.text, self.document = text, document
        self.lines = text.split("\n")

    def fail(self, key, problem):
        match = re.search(rf'^[ \t]*"{re.escape(key)}"[ \t]*:', self.text, flags=re.MULTILINE)
        line = self.text.count("\n", 0, match.start()) + 1 if match else 1
        raise FormatError(problem, line=line, text=self.lines[line - 1])

    def equal(self, key, expected):
        if self.document[key] != expected:
            self.fail(key, f"{key!r} must be {expected!r}")

    def integer(self, key):
        value = self.document[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.fail(key, f"{key!r} must be a positive integer")
        return value

    def array(self, key, shape):
        value = self.document[key]
        self._check(key, value, shape, [])
        return value

    def _check(self, key, value, shape, path):
        where = key + "".join(f"[{i}]" for i in path)
        if not shape:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                self.fail(key, f"{where} must be a number; got {value!r}")
            try:
                finite = abs(float(value)) != float("inf")
            except OverflowError:
                finite = False
            if not finite:
                self.fail(key, f"{where} must be a finite number; got {str(value)[:30]}")
            return
        if not isinstance(value, list) or len(value) != shape[0]:
            size = len(value) if isinstance(value, list) else type(value).__name__
            self.fail(
                key, f"{where} must be a list of {shape[0]} items (shape {shape}); got {size}"
            )
        for i, item in enumerate(value):
            self._check(key, item, shape[1:], path + [i])

    def names(self, key, count):
        value = self.document[key]
        if (
            not isinstance(value, list)
            or len(value) != count
            or not all(isinstance(n, str) and n.strip() for n in value)
        ):
            self.fail(key, f"{key!r} must be a list of {count} non-empty strings")
        if len(set(value)) != len(value):
            self.fail(key, f"{key!r} must hold distinct names")
        return value


# ------------------------------------------------------------ fuzzy systems
_SYSTEM_KEYS = (
    "format",
    "version",
    "name",
    "conjunction",
    "disjunction",
    "inputs",
    "outputs",
    "rules",
    "metadata",
)


def _bound(value):
    return None if abs(value) == float("inf") else value


def _terms(variable):
    return [
        {"name": name, "type": type(term).__name__, "parameters": list(term.parameters)}
        for name, term in variable.terms.items()
    ]


def _system_to_json(system):
    try:
        metadata = json.dumps(
            system.metadata, allow_nan=False, ensure_ascii=False, indent=2, sort_keys=True
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The system's metadata cannot be saved as JSON: {exc}") from None
    parts = [
        f"  {_dump(key)}: {_dump(value)}"
        for key, value in (
            ("format", SYSTEM_FORMAT_ID),
            ("version", VERSION),
            ("name", system.name),
            ("conjunction", system.conjunction),
            ("disjunction", system.disjunction),
        )
    ]
    for key, variables in (("inputs", system.inputs), ("outputs", system.outputs)):
        items = []
        for variable in variables:
            item = {
                "name": variable.name,
                "range": [_bound(v) for v in variable.range],
                "lock_range": variable.lock_range,
            }
            if key == "outputs":
                item["defuzzifier"] = variable.defuzzifier
                item["aggregation"] = variable.aggregation
                item["default"] = None if variable.default != variable.default else variable.default
            item["terms"] = _terms(variable)
            items.append(item)
        parts.append(_rows(key, items))
    parts.append(_rows("rules", [rule.to_text() for rule in system.rules]))
    parts.append('  "metadata": ' + metadata.replace("\n", "\n  "))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _system_from_json(text, document):
    from randomts.fuzzy import FuzzySystem, InputVariable, OutputVariable, parse_rule
    from randomts.fuzzy.terms import make_term

    check = _Checker(text, document)
    missing = [k for k in _SYSTEM_KEYS if k not in document]
    if missing:
        check.fail("format", f"missing key(s) {missing} of a randomts fuzzy system")
    unknown = sorted(set(document) - set(_SYSTEM_KEYS))
    if unknown:
        check.fail(unknown[0], f"unknown key(s) {unknown} in a version {VERSION} fuzzy system")
    version = check.integer("version")
    if version != VERSION:
        check.fail("version", f"version {version} is not one this randomts reads ({VERSION})")
    if not isinstance(document["metadata"], dict):
        check.fail("metadata", "'metadata' must be an object")

    def where(key, index, what):
        """The line of item ``index`` of list ``key`` (its name), for messages."""
        item = document[key][index] if isinstance(document[key], list) else None
        name = item.get("name") if isinstance(item, dict) else None
        position = text.find(json.dumps(name, ensure_ascii=False)) if isinstance(name, str) else -1
        if position < 0:
            check.fail(key, what)
        line = text.count("\n", 0, position) + 1
        raise FormatError(what, line=line, text=check.lines[line - 1])

    variables = {}
    for key, cls in (("inputs", InputVariable), ("outputs", OutputVariable)):
        items = document[key]
        if not isinstance(items, list) or not items:
            check.fail(key, f"{key!r} must be a non-empty list of variables")
        built = []
        for index, item in enumerate(items):
            try:
                if not isinstance(item, dict):
                    raise TypeError(f"{key}[{index}] must be an object")
                extra = sorted(
                    set(item)
                    - {
                        "name",
                        "range",
                        "lock_range",
                        "terms",
                        "defuzzifier",
                        "aggregation",
                        "default",
                    }
                )
                if extra:
                    raise ValueError(f"unknown key(s) {extra} in {key}[{index}]")
                low, high = item["range"]
                low = float("-inf") if low is None else low
                high = float("inf") if high is None else high
                terms = []
                for term in item["terms"]:
                    if set(term) != {"name", "type", "parameters"}:
                        raise ValueError("a term needs exactly 'name', 'type' and 'parameters'")
                    parameters = term["parameters"]
                    if not isinstance(parameters, list) or any(
                        isinstance(v, bool) or not isinstance(v, numbers.Real) for v in parameters
                    ):
                        raise TypeError(f"the parameters of term {term['name']!r} must be numbers")
                    terms.append((term["name"], make_term(term["type"], parameters)))
                options = {}
                if cls is OutputVariable:
                    options = {k: item[k] for k in ("defuzzifier", "aggregation")}
                    options["default"] = (
                        float("nan") if item["default"] is None else item["default"]
                    )
                built.append(
                    cls(item["name"], terms, (low, high), lock_range=item["lock_range"], **options)
                )
            except (KeyError, TypeError, ValueError) as exc:
                problem = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
                where(key, index, f"{key}[{index}]: {problem.rstrip('.')}")
        variables[key] = built
    rules = document["rules"]
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
        check.fail("rules", "'rules' must be a non-empty list of rule strings")
    parsed = []
    for index, rule in enumerate(rules):
        try:
            parsed.append(parse_rule(rule))
        except ValueError as exc:
            position = text.find(json.dumps(rule, ensure_ascii=False))
            line = text.count("\n", 0, max(position, 0)) + 1
            raise FormatError(
                f"rules[{index}]: {exc}", line=line, text=check.lines[line - 1]
            ) from None
    for key in ("name", "conjunction", "disjunction"):
        if not isinstance(document[key], str):
            check.fail(key, f"{key!r} must be a string")
    try:
        return FuzzySystem(
            variables["inputs"],
            variables["outputs"],
            parsed,
            conjunction=document["conjunction"],
            disjunction=document["disjunction"],
            name=document["name"],
            metadata=document["metadata"],
        )
    except (TypeError, ValueError) as exc:
        message = str(exc)
        match = re.match(r"^Rule (\d+): ", message)
        if match:
            rule = rules[int(match.group(1)) - 1]
            position = text.find(json.dumps(rule, ensure_ascii=False))
            line = text.count("\n", 0, max(position, 0)) + 1
            raise FormatError(message.rstrip("."), line=line, text=check.lines[line - 1]) from None
        key = next(
            (k for k in ("conjunction", "disjunction", "name") if repr(document[k]) in message),
            "format",
        )
        check.fail(key, f"not a valid fuzzy system: {message}")
