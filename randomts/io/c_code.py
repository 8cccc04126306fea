"""Export a model as dependency-free C99: a predict function on one row, and a program around it.

:func:`to_c` writes one C file that needs only the C standard library
(``<math.h>``, ``<stdio.h>``, ``<stdlib.h>``, ``<string.h>``). It holds the
rule base's arrays, every number written with ``repr`` (the shortest text
that reads back as the same double), and a function::

    int randomts_predict(const double x[RANDOMTS_N_FEATURES], double y[RANDOMTS_N_OUTPUTS]);

that computes what :func:`randomts.core.inference.predict` computes, in the
same way: the log of each rule's firing strength as a sum over the inputs of
``((x_k - c_ik) * (1 / sigma_ik))^2``, times ``-1/2``; then the weighted sum of
``exp`` of it, or the weighted average with the largest log strength
subtracted first (and, where every strength underflows, the nearest rule's
output, as randomts does); the consequents combined as ``sum_i w_i b_i + sum_k
x_k sum_i w_i a_ik``. Only the order of the sums over rules differs from
NumPy's, so outputs agree to a few units in the last place of the sum of the
absolute terms. A classifier's file also has ``randomts_predict_class``.

Compiled with ``-DRANDOMTS_MAIN`` it is a program that reads comma-separated
rows of inputs on stdin and prints one line of outputs per row; the file's
header comment documents both. Nothing of it depends on Python or randomts.

Examples
--------
>>> from randomts import RuleBase
>>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
>>> code = to_c(rb)
>>> print(code[code.index("\\nint randomts_predict(") + 1 :].split("\\n")[0])
int randomts_predict(const double *x, double *y)
"""

from __future__ import annotations

import re
import textwrap

import numpy as np

from randomts.io._deployment import deployed

__all__ = ["to_c"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def to_c(model, *, prefix="randomts") -> str:
    """C99 source that predicts as ``model`` does, without Python.

    Parameters
    ----------
    model : RuleBase, FuzzySystem, fitted estimator or fitted Pipeline
        What :func:`randomts.save` accepts: a rule base, a fitted
        :class:`~randomts.RandomTSRegressor`, :class:`~randomts.RandomTSClassifier`
        (its ``decision_function`` and predicted class) or
        :class:`~randomts.NARXRegressor` (its one-step-ahead map from the
        regressors), a pipeline of scalers ending with one (folded into the
        rules), or a :class:`~randomts.FuzzySystem` of a rule base's shape.
    prefix : str, default="randomts"
        Prefix of every name the file defines (``<prefix>_predict``,
        ``<PREFIX>_N_FEATURES``, ...), so that several models link into one
        program. A C identifier.

    Returns
    -------
    str
        The C file. Its header comment documents the functions (inputs,
        outputs, return codes) and the program of ``-DRANDOMTS_MAIN``.

    Raises
    ------
    TypeError
        If ``model`` is none of these, or not fitted.
    ValueError
        If ``prefix`` is not a C identifier, or a FuzzySystem is not of a
        rule base's shape (the message says what differs).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.linspace(0, 1, 50).reshape(-1, 1)
    >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit(X, X[:, 0] ** 2)
    >>> code = to_c(model, prefix="square")
    >>> "int square_predict(const double *x, double *y)" in code
    True
    >>> to_c(model, prefix="2x")
    Traceback (most recent call last):
    ...
    ValueError: The 'prefix' parameter of to_c must be a C identifier (a letter or _, then letters, digits or _). Got '2x' instead.
    """
    if not isinstance(prefix, str) or not _IDENTIFIER.match(prefix):
        raise ValueError(
            "The 'prefix' parameter of to_c must be a C identifier (a letter or _, then "
            f"letters, digits or _). Got {prefix!r} instead."
        )
    model = deployed(model, "C")
    return _Writer(model, prefix).source()


# ----------------------------------------------------------------- text of C
def _number(value) -> str:
    """A double as C text that reads back as the same double (``repr``: shortest round trip)."""
    return repr(float(value))


def _string(text) -> str:
    """``text`` as a C string literal: printable ASCII as is, every other byte in octal.

    ``?`` is escaped too, so that no trigraph forms.
    """
    out = []
    for byte in str(text).encode("utf-8"):
        char = chr(byte)
        if char in '"\\?':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _comment(text) -> str:
    """``text`` safe inside a ``/* */`` comment: printable ASCII, no ``*/``, no trigraph."""
    safe = "".join(c if 32 <= ord(c) < 127 else "?" for c in str(text))
    return safe.replace("*/", "* /").replace("??", "? ?")


def _wrap(text, first="", rest=None) -> list:
    """``text`` as lines of a comment, at most 88 columns."""
    rest = first if rest is None else rest
    return textwrap.wrap(
        text, 85, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    )


def _csv_field(text) -> str:
    """``text`` as one field of a CSV line (quoted when it holds a comma, quote or space)."""
    text = str(text)
    if any(c in text for c in ',"\r\n') or text != text.strip():
        return '"' + text.replace('"', '""') + '"'
    return text


def _rows(values) -> str:
    """A C initializer of a nested array, one rule per line."""

    def nested(value):
        if np.ndim(value) == 0:
            return _number(value)
        return "{" + ", ".join(nested(v) for v in value) + "}"

    return "{\n" + ",\n".join("    " + nested(row) for row in values) + "\n}"


class _Writer:
    """The C file of one :class:`~randomts.io._deployment.Deployed` model."""

    def __init__(self, model, prefix):
        self.model, self.rb = model, model.rule_base
        self.p, self.u = prefix, prefix.upper()
        for name in ("centers", "sigmas", "coef", "intercept"):
            if not np.all(np.isfinite(getattr(self.rb, name))):
                raise ValueError(
                    f"The rule base's {name} are not all finite; it cannot be exported."
                )
        self.linear = bool(np.any(self.rb.coef))  # as randomts.core.inference decides

    def source(self) -> str:
        parts = [
            self._header(),
            self._arrays(),
            self._strength(),
            self._predict(),
            self._classify() if self.model.kind == "classifier" else "",
            self._main(),
        ]
        return "\n".join(part for part in parts if part)

    # ------------------------------------------------------------- header
    def _header(self) -> str:
        rb, p, u = self.rb, self.p, self.u
        mode = "weighted average" if rb.normalize else "weighted sum"
        consequent = "linear (b + a . x)" if self.linear else "constant"
        inputs = ", ".join(_comment(n) for n in rb.input_names)
        outputs = ", ".join(_comment(n) for n in rb.output_names)
        classifier = self.model.kind == "classifier"
        lines = [
            _comment(self.model.describe()),
            "",
            *_wrap(
                "Dependency-free C99 (the C standard library only). Each rule has a Gaussian "
                "set exp(-(x_k - c_ik)^2 / (2 sigma_ik^2)) on every input, joined by the "
                f"product; the output is the {mode} of the rules' {consequent} consequents, "
                "computed as randomts computes it (the log-domain product; for the weighted "
                "average, the largest log strength subtracted first, and the nearest rule's "
                "output where every strength underflows). It equals randomts's predict up to "
                "the order of the sums over rules."
                + (
                    " The range is locked: every input is held in its range (the training "
                    "data's) before the rules are evaluated, and every output in its range after."
                    if rb.lock_range
                    else ""
                )
            ),
            "",
            f"int {p}_predict(const double *x, double *y);",
            *_wrap(
                f"x: the {u}_N_FEATURES = {rb.n_features} inputs, in the data's own units, in "
                f"this order: {inputs}",
                "    ",
                "       ",
            ),
            *_wrap(
                f"y: receives the {u}_N_OUTPUTS = {rb.n_outputs} outputs, in this order: {outputs}",
                "    ",
                "       ",
            ),
            *_wrap(
                "Returns 0, or 1 (y untouched) when an input is NaN or infinite. Re-entrant; "
                "no memory is allocated.",
                "    ",
            ),
        ]
        if classifier:
            labels = ", ".join(_comment(c) for c in self.model.labels)
            first, second = (_comment(c) for c in self.model.labels[:2])
            rule = (
                f"{second} when the score is > 0, else {first}"
                if len(self.model.labels) == 2
                else "the class of the highest score (the first on ties)"
            )
            lines += [
                "",
                f"int {p}_predict_class(const double *x);",
                *_wrap(
                    f"The index in {p}_classes[{u}_N_CLASSES] of the predicted class: {rule}; "
                    f"-1 when an input is NaN or infinite. The classes: {labels}.",
                    "    ",
                ),
            ]
        printed = "the outputs" + (", then the predicted class" if classifier else "")
        lines += [
            "",
            "Program: cc -std=c99 -O2 -DRANDOMTS_MAIN model.c -o model -lm",
            *_wrap(
                "./model < rows.csv reads rows of comma-separated inputs on stdin (a first "
                "line that names the inputs is skipped, and so are blank lines) and prints "
                f"one line per row: {printed}, separated by commas, numbers with 17 "
                "significant digits. A line with the wrong number of fields or a field that "
                "is not a finite number stops it with a message naming the line on stderr "
                "and exit status 1.",
                "    ",
            ),
        ]
        body = "\n".join((" * " + line).rstrip() for line in lines)
        sums = f" * (1 + {u}_N_FEATURES)" if self.linear else ""
        return (
            f"/* {body[3:]}\n */\n"
            "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
            f"#define {u}_N_FEATURES {rb.n_features}\n"
            f"#define {u}_N_OUTPUTS {rb.n_outputs}\n"
            f"#define {u}_N_RULES {rb.n_rules}\n"
            + (f"#define {u}_N_CLASSES {len(self.model.labels)}\n" if classifier else "")
            + "/* sums of the rules' weighted constants, then of their slopes of each input */\n"
            + f"#define {u}_N_SUMS ({u}_N_OUTPUTS{sums})\n"
        )

    def _arrays(self) -> str:
        rb, p, u = self.rb, self.p, self.u
        text = [
            "/* rule i: the centre c_ik and width sigma_ik of its set on input k */",
            f"static const double {p}_centers[{u}_N_RULES][{u}_N_FEATURES] = {_rows(rb.centers)};",
            f"static const double {p}_sigmas[{u}_N_RULES][{u}_N_FEATURES] = {_rows(rb.sigmas)};",
            "/* rule i's consequent for output o: intercept[i][o] + sum_k coef[i][o][k] x_k */",
            f"static const double {p}_intercept[{u}_N_RULES][{u}_N_OUTPUTS] = "
            f"{_rows(rb.intercept)};",
        ]
        if self.linear:
            text.append(
                f"static const double {p}_coef[{u}_N_RULES][{u}_N_OUTPUTS][{u}_N_FEATURES] = "
                f"{_rows(rb.coef)};"
            )
        if rb.lock_range:
            text += [
                "/* the locked ranges: [low, high] of every input, then of every output */",
                f"static const double {p}_input_range[{u}_N_FEATURES][2] = "
                f"{_rows(rb.input_range)};",
                f"static const double {p}_output_range[{u}_N_OUTPUTS][2] = "
                f"{_rows(rb.output_range)};",
            ]
        return "\n".join(text) + "\n"

    def _strength(self) -> str:
        p, u = self.p, self.u
        text = f"""\
/* log of rule i's firing strength: -1/2 sum_k ((x_k - c_ik) * (1 / sigma_ik))^2 */
static double {p}_log_strength(const double *x, int i)
{{
    double sum = 0.0;
    int k;
    for (k = 0; k < {u}_N_FEATURES; ++k) {{
        double d = (x[k] - {p}_centers[i][k]) * (1.0 / {p}_sigmas[i][k]);
        sum += d * d;
    }}
    return -0.5 * sum;
}}

/* sums[o] += w intercept[i][o]; sums[(1 + k) N_OUTPUTS + o] += w coef[i][o][k] */
static void {p}_add_rule(double w, int i, double *sums)
{{
    int o;
    for (o = 0; o < {u}_N_OUTPUTS; ++o) {{
        sums[o] += w * {p}_intercept[i][o];
"""
        if self.linear:
            text += f"""\
        {{
            int k;
            for (k = 0; k < {u}_N_FEATURES; ++k)
                sums[(1 + k) * {u}_N_OUTPUTS + o] += w * {p}_coef[i][o][k];
        }}
"""
        text += "    }\n}\n"
        if self.rb.normalize:
            text += f"""
/* log of the scaled distance from x to rule i's centre, without overflow (for the limit
   of the weighted average far from every rule) */
static double {p}_log_distance(const double *x, int i)
{{
    double largest = 0.0, sum = 0.0;
    int k;
    for (k = 0; k < {u}_N_FEATURES; ++k) {{
        double a = fabs((x[k] - {p}_centers[i][k]) / {p}_sigmas[i][k]);
        if (a > largest)
            largest = a;
    }}
    for (k = 0; k < {u}_N_FEATURES; ++k) {{
        double r = fabs((x[k] - {p}_centers[i][k]) / {p}_sigmas[i][k]) / largest;
        sum += r * r;
    }}
    return log(largest) + 0.5 * log(sum);
}}
"""
        return text

    def _predict(self) -> str:
        p, u = self.p, self.u
        if self.rb.normalize:
            weights = f"""\
    for (i = 0; i < {u}_N_RULES; ++i) {{
        double l = {p}_log_strength(x, i);
        if (l > top)
            top = l;
    }}
    if (top > -HUGE_VAL) {{ /* w_i / sum w = exp(l_i - top) / sum exp(l - top) */
        double total = 0.0;
        for (i = 0; i < {u}_N_RULES; ++i)
            total += exp({p}_log_strength(x, i) - top);
        for (i = 0; i < {u}_N_RULES; ++i) {{
            double w = exp({p}_log_strength(x, i) - top) / total;
            if (w != 0.0)
                {p}_add_rule(w, i, sums);
        }}
    }} else {{ /* every strength underflows: the nearest rules' output (ties share it) */
        double nearest = HUGE_VAL;
        int count = 0;
        for (i = 0; i < {u}_N_RULES; ++i) {{
            double d = {p}_log_distance(x, i);
            if (d < nearest)
                nearest = d;
        }}
        for (i = 0; i < {u}_N_RULES; ++i)
            count += {p}_log_distance(x, i) == nearest;
        for (i = 0; i < {u}_N_RULES; ++i)
            if ({p}_log_distance(x, i) == nearest)
                {p}_add_rule(1.0 / count, i, sums);
    }}
"""
            declare = "    double top = -HUGE_VAL;\n"
        else:
            weights = f"""\
    for (i = 0; i < {u}_N_RULES; ++i) {{
        double w = exp({p}_log_strength(x, i));
        if (w != 0.0) /* a rule that does not fire adds nothing */
            {p}_add_rule(w, i, sums);
    }}
"""
            declare = ""
        combine = f"""\
    for (o = 0; o < {u}_N_OUTPUTS; ++o) {{
        double total = sums[o];
"""
        if self.linear:
            combine += f"""\
        for (k = 0; k < {u}_N_FEATURES; ++k)
            total += x[k] * sums[(1 + k) * {u}_N_OUTPUTS + o];
"""
        if self.rb.lock_range:
            combine += f"""\
        if (total < {p}_output_range[o][0])
            total = {p}_output_range[o][0];
        if (total > {p}_output_range[o][1])
            total = {p}_output_range[o][1];
"""
        combine += "        y[o] = total;\n    }\n"
        hold = ""
        if self.rb.lock_range:
            declare += f"    double held[{u}_N_FEATURES];\n"
            hold = f"""\
    for (k = 0; k < {u}_N_FEATURES; ++k) /* each input held in its range */
        held[k] = x[k] < {p}_input_range[k][0]
            ? {p}_input_range[k][0]
            : (x[k] > {p}_input_range[k][1] ? {p}_input_range[k][1] : x[k]);
    x = held;
"""
        return f"""\
int {p}_predict(const double *x, double *y)
{{
    double sums[{u}_N_SUMS];
    int i, k, o;
{declare}    for (k = 0; k < {u}_N_FEATURES; ++k)
        if (!isfinite(x[k]))
            return 1;
{hold}    for (i = 0; i < {u}_N_SUMS; ++i)
        sums[i] = 0.0;
{weights}{combine}    return 0;
}}
"""

    def _classify(self) -> str:
        p, u = self.p, self.u
        labels = ", ".join(_string(label) for label in self.model.labels)
        if len(self.model.labels) == 2:
            choice = "    return y[0] > 0.0 ? 1 : 0;\n"
        else:
            choice = f"""\
    int o, best = 0;
    for (o = 1; o < {u}_N_OUTPUTS; ++o)
        if (y[o] > y[best])
            best = o;
    return best;
"""
        return f"""\
const char *const {p}_classes[{u}_N_CLASSES] = {{{labels}}};

/* the index of the class that the scores y predict */
static int {p}_class_of(const double *y)
{{
{choice}}}

int {p}_predict_class(const double *x)
{{
    double y[{u}_N_OUTPUTS];
    if ({p}_predict(x, y) != 0)
        return -1;
    return {p}_class_of(y);
}}
"""

    def _main(self) -> str:
        p, u = self.p, self.u
        names = ", ".join(_string(name) for name in self.rb.input_names)
        if self.model.kind == "classifier":
            printed = ", ".join(_string(_csv_field(label)) for label in self.model.labels)
            extra = f"""\
static const char *const {p}_printed_classes[{u}_N_CLASSES] = {{{printed}}};
"""
            print_class = f'        printf(",%s", {p}_printed_classes[{p}_class_of(y)]);\n'
        else:
            extra, print_class = "", ""
        return f"""\
#ifdef RANDOMTS_MAIN
static const char *const {p}_input_names[{u}_N_FEATURES] = {{{names}}};
{extra}
/* the next line of stdin into *line (grown as needed), without its line end; 0 at the end */
static int {p}_read_line(char **line, size_t *size)
{{
    size_t length = 0;
    for (;;) {{
        if (length + 1 >= *size) {{
            size_t larger = *size < 256 ? 256 : 2 * *size;
            char *grown = (char *)realloc(*line, larger);
            if (grown == NULL) {{
                fprintf(stderr, "out of memory reading a line of %lu characters\\n",
                        (unsigned long)length);
                exit(1);
            }}
            *line = grown;
            *size = larger;
        }}
        if (fgets(*line + length, (int)(*size - length), stdin) == NULL)
            break;
        length += strlen(*line + length);
        if (length > 0 && (*line)[length - 1] == '\\n')
            break;
    }}
    if (length == 0 && (feof(stdin) || ferror(stdin)))
        return 0;
    while (length > 0 && ((*line)[length - 1] == '\\n' || (*line)[length - 1] == '\\r'))
        (*line)[--length] = '\\0';
    return 1;
}}

/* s without the blanks around it, in place */
static char *{p}_trim(char *s)
{{
    size_t n;
    while (*s == ' ' || *s == '\\t')
        ++s;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\\t'))
        s[--n] = '\\0';
    return s;
}}

/* whether the field s is name, between blanks and perhaps double quotes */
static int {p}_is_name(const char *s, const char *name)
{{
    size_t n = strlen(name);
    int quoted;
    while (*s == ' ' || *s == '\\t')
        ++s;
    quoted = *s == '"';
    s += quoted;
    if (strncmp(s, name, n) != 0)
        return 0;
    s += n;
    if (quoted && *s++ != '"')
        return 0;
    while (*s == ' ' || *s == '\\t')
        ++s;
    return *s == '\\0';
}}

/* the fields of line, cut in place at the commas; their number */
static int {p}_split(char *line, char **fields, int most)
{{
    int n = 0;
    for (;;) {{
        char *comma = strchr(line, ',');
        if (n < most)
            fields[n] = line;
        ++n;
        if (comma == NULL)
            return n;
        *comma = '\\0';
        line = comma + 1;
    }}
}}

int main(int argc, char **argv)
{{
    const char *program = argc > 0 ? argv[0] : "model";
    char *line = NULL, *fields[{u}_N_FEATURES];
    size_t size = 0;
    long number = 0;
    double x[{u}_N_FEATURES], y[{u}_N_OUTPUTS];
    int k, n, o;
    while ({p}_read_line(&line, &size)) {{
        char *text = line;
        ++number;
        if (number == 1 && strncmp(text, "\\357\\273\\277", 3) == 0)
            text += 3; /* a UTF-8 byte order mark */
        if (*{p}_trim(text) == '\\0')
            continue; /* a blank line */
        n = {p}_split(text, fields, {u}_N_FEATURES);
        if (n != {u}_N_FEATURES) {{
            fprintf(stderr, "%s: line %ld: %d comma-separated fields; expected %d, the inputs",
                    program, number, n, {u}_N_FEATURES);
            for (k = 0; k < {u}_N_FEATURES; ++k)
                fprintf(stderr, "%s%s", k ? ", " : " ", {p}_input_names[k]);
            fprintf(stderr, "\\n");
            free(line);
            return 1;
        }}
        if (number == 1) {{ /* a header naming the inputs? */
            for (k = 0; k < {u}_N_FEATURES; ++k)
                if (!{p}_is_name(fields[k], {p}_input_names[k]))
                    break;
            if (k == {u}_N_FEATURES)
                continue;
        }}
        for (k = 0; k < {u}_N_FEATURES; ++k) {{
            char *field = {p}_trim(fields[k]), *end;
            x[k] = strtod(field, &end);
            if (*field == '\\0' || *end != '\\0') {{
                fprintf(stderr, "%s: line %ld: input %d (%s) is not a number: '%s'\\n", program,
                        number, k + 1, {p}_input_names[k], field);
                free(line);
                return 1;
            }}
            if (!isfinite(x[k])) {{
                fprintf(stderr, "%s: line %ld: input %d (%s) is '%s', not a finite number\\n",
                        program, number, k + 1, {p}_input_names[k], field);
                free(line);
                return 1;
            }}
        }}
        {p}_predict(x, y);
        for (o = 0; o < {u}_N_OUTPUTS; ++o)
            printf("%s%.17g", o ? "," : "", y[o]);
{print_class}        printf("\\n");
    }}
    free(line);
    if (ferror(stdin)) {{
        fprintf(stderr, "%s: cannot read stdin after line %ld\\n", program, number);
        return 1;
    }}
    if (fflush(stdout) != 0 || ferror(stdout)) {{
        fprintf(stderr, "%s: cannot write the outputs\\n", program);
        return 1;
    }}
    return 0;
}}
#endif /* RANDOMTS_MAIN */
"""
