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
    Range=[-4.2 3.9]              # covers every centre +- 3 widths and the data
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
``_``. The rule base's metadata, if any, follow the rules on one comment line
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

import re

from ..exceptions import FormatError
from ._base import RuleBaseFormat, metadata_comment, read_metadata_comment, variable_ranges
from ._names import unique_names

__all__ = ["FisFormat"]

_SECTION = re.compile(r"^\[(System|Input(\d{1,9})|Output(\d{1,9})|Rules)\]$")
_KEY = re.compile(r"^([A-Za-z]+\d*)\s*=\s*(.*)$")
_STRING = re.compile(r"^'([^']*)'$")
_MF = re.compile(r"^'([^']*)'\s*:\s*'([^']*)'\s*,\s*\[([^\]]*)\]$")
_RULE = re.compile(r"^([^,]*),([^(]*)\(([^)]*)\)\s*:\s*(\S+)$")
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")  # linear time
_INTEGER = re.compile(r"^[-+]?\d{1,18}$")  # larger counts and indices are absurd


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
        """The rule base as a FIS file."""
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
        """Read a Sugeno FIS with Gaussian inputs and linear or constant outputs."""
        rule_base = _Reader(text).rule_base()
        metadata = read_metadata_comment(text, "%")
        return rule_base if metadata is None else rule_base.replace(metadata=metadata)


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

    def count(self, section, key, where):
        number, raw, value = self.get(section, key, where)
        if not _INTEGER.match(value) or int(value) < 1:
            raise FormatError(
                f"{key} must be a positive integer (at most 18 digits)", line=number, text=raw
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
        names, mfs = [], []
        for index in range(1, count + 1):
            section, where = table[index], f"[{kind}{index}]"
            names.append(self.string(section, "Name", where))
            number, raw, value = self.get(section, "Range", where)
            if (
                not (value.startswith("[") and value.endswith("]"))
                or len(self.numbers(value[1:-1], number, raw, "Range")) != 2
            ):
                raise FormatError("Range must be [low high]", line=number, text=raw)
            n_mfs = self.count(section, "NumMFs", where)
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
            mfs.append([self.mf(section[f"MF{j}"], kind) for j in range(1, n_mfs + 1)])
        return names, mfs

    def mf(self, entry, kind):
        number, raw, value = entry
        match = _MF.match(value)
        if not match:
            raise FormatError("expected MF<j>='name':'type',[params]", line=number, text=raw)
        mf_type, params = match.group(2), self.numbers(match.group(3), number, raw, "MF parameters")
        if kind == "Input":
            if mf_type != "gaussmf":
                raise FormatError(
                    f"unsupported input membership function '{mf_type}'; randomts "
                    "reads 'gaussmf' only",
                    line=number,
                    text=raw,
                )
            if len(params) != 2 or params[0] <= 0:
                raise FormatError(
                    "gaussmf takes [sigma center] with sigma > 0", line=number, text=raw
                )
            return params
        if mf_type not in ("linear", "constant"):
            raise FormatError(
                f"unsupported output membership function '{mf_type}'; randomts reads "
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
        return [0.0] * len(self.inputs) + params if mf_type == "constant" else params

    def rule_lines(self, n_rules, n_inputs, n_outputs, input_mfs, output_mfs):
        if len(self.rules) != n_rules:
            number, raw, _ = self.system["NumRules"]
            if len(self.rules) > n_rules:
                number, raw = self.rules[n_rules]
            raise FormatError(
                f"NumRules={n_rules} but the [Rules] section holds {len(self.rules)} rule(s)",
                line=number,
                text=raw,
            )
        parsed = []
        for number, raw in self.rules:
            match = _RULE.match(raw.strip())
            if not match:
                raise FormatError(
                    "expected a rule 'i_1 ... i_n, o_1 ... o_m (weight) : connection'",
                    line=number,
                    text=raw,
                )
            left, right, weight, connection = (g.strip() for g in match.groups())
            if weight != "1" and self.numbers(weight, number, raw, "rule weight") != [1.0]:
                raise FormatError(
                    f"unsupported rule weight {weight}; randomts reads weight 1 only",
                    line=number,
                    text=raw,
                )
            if connection not in ("1", "2"):
                raise FormatError(
                    "the connection after ':' must be 1 (AND) or 2 (OR)", line=number, text=raw
                )
            if connection == "2" and n_inputs > 1:
                raise FormatError(
                    "unsupported OR rule (connection 2); randomts rules are AND (product)",
                    line=number,
                    text=raw,
                )
            ins = self.indices(left, n_inputs, input_mfs, "input", number, raw)
            outs = self.indices(right, n_outputs, output_mfs, "output", number, raw)
            parsed.append((ins, outs))
        return parsed

    def indices(self, text, count, mfs, kind, number, raw):
        tokens = text.split()
        if len(tokens) != count:
            raise FormatError(
                f"a rule needs {count} {kind} MF index(es); got {len(tokens)}",
                line=number,
                text=raw,
            )
        indices = []
        for k, token in enumerate(tokens):
            if not _INTEGER.match(token):
                if token.lstrip("+-").isdigit():
                    raise FormatError(
                        f"{kind} MF index {token[:30]}... is absurdly large", line=number, text=raw
                    )
                if _NUMBER.match(token):
                    raise FormatError(
                        f"unsupported hedge in {kind} MF index {token}", line=number, text=raw
                    )
                raise FormatError(
                    f"{kind} MF index {token[:30]!r} is not an integer", line=number, text=raw
                )
            value = int(token)
            if value == 0:
                raise FormatError(
                    f"unsupported rule without {kind} {k + 1} (index 0); every randomts "
                    f"rule uses every {kind}",
                    line=number,
                    text=raw,
                )
            if value < 0:
                raise FormatError(
                    f"unsupported NOT ({kind} MF index {value})", line=number, text=raw
                )
            if value > len(mfs[k]):
                raise FormatError(
                    f"{kind} {k + 1} has {len(mfs[k])} MFs; index {value} is out of range",
                    line=number,
                    text=raw,
                )
            indices.append(value - 1)
        return indices

    def rule_base(self):
        from ..rulebase import RuleBase

        self.choice("Type", ("sugeno",), "system type")
        n_inputs = self.count(self.system, "NumInputs", "[System]")
        n_outputs = self.count(self.system, "NumOutputs", "[System]")
        n_rules = self.count(self.system, "NumRules", "[System]")
        if n_inputs > 1:  # with one input there is nothing to join
            self.choice("AndMethod", ("prod",), "AND method")
        self.choice("AggMethod", ("sum",), "aggregation method")
        normalize = self.choice("DefuzzMethod", ("wtsum", "wtaver"), "defuzzification") == "wtaver"
        input_names, input_mfs = self.variables(self.inputs, n_inputs, "Input")
        output_names, output_mfs = self.variables(self.outputs, n_outputs, "Output")
        if not self.rules_seen:
            number, raw, _ = self.system["NumRules"]
            raise FormatError("no [Rules] section", line=number, text=raw)
        rules = self.rule_lines(n_rules, n_inputs, n_outputs, input_mfs, output_mfs)
        centers = [[input_mfs[k][i][1] for k, i in enumerate(ins)] for ins, _ in rules]
        sigmas = [[input_mfs[k][i][0] for k, i in enumerate(ins)] for ins, _ in rules]
        params = [[output_mfs[m][j] for m, j in enumerate(outs)] for _, outs in rules]
        try:
            return RuleBase(
                centers=centers,
                sigmas=sigmas,
                coef=[[p[:-1] for p in rule] for rule in params],
                intercept=[[p[-1] for p in rule] for rule in params],
                normalize=normalize,
                input_names=input_names,
                output_names=output_names,
            )
        except (ValueError, TypeError) as exc:
            number, raw, _ = self.system["_line"]
            raise FormatError(f"not a valid rule base: {exc}", line=number, text=raw) from None
