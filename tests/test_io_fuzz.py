"""Damaged files: every one is a FormatError, or a model that predicts finite numbers.

The cases below are kinds of damage that are easy to let through (another
exception, or a model that predicts inf or NaN inside its declared ranges);
the fuzz test then mutates the committed files and fresh exports of rule
bases, estimators and general systems, seeded and bounded.
"""

import os
import random
import re
import warnings

import numpy as np
import pytest
from fuzzy_helpers import random_system
from io_helpers import random_model

import randomts
from randomts import FormatError, RandomTSClassifier, RandomTSRegressor
from randomts.exceptions import NoRuleFiredWarning, UndefinedDegreeWarning
from randomts.io import FORMATS, dumps, loads

DATA = os.path.join(os.path.dirname(__file__), "data")


def fitted(classifier=False):
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(120, 2))
    y = np.sin(X[:, 0]) * X[:, 1]
    if classifier:
        return RandomTSClassifier(n_rules=5, random_state=0, structure="random").fit(X, y > 0)
    return RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(X, y)


def system_text(fmt, seed=0, flavour="fll"):
    return FORMATS[fmt].to_string(random_system(seed, flavour=flavour))


def refused(text, fmt, *, system=False, line=None, match=None):
    with pytest.raises(FormatError, match=match) as caught:
        loads(text, fmt, system=system)
    if line is not None:
        assert caught.value.line == line
    return caught.value


def line_of(text, fragment):
    return next(k for k, raw in enumerate(text.split("\n"), 1) if fragment in raw)


# ------------------------------------------------------------ estimator records
def test_a_record_of_attributes_that_is_not_an_object():
    text = dumps(fitted(), "json")
    damaged = re.sub(r'"attributes": \{[^}]*\}', '"attributes": [1.0]', text, count=1)
    assert damaged != text
    refused(damaged, "json", match="'attributes' must be an object")


def test_classes_beyond_their_dtype():
    text = dumps(fitted(classifier=True), "json")
    record = re.search(r'"classes": \{\s*"array": \[([^\]]*)\],\s*"dtype": "([^"]*)"', text)
    assert record is not None
    damaged = text.replace(record.group(0), '"classes": {"array": [1e308, 0], "dtype": "<i8"')
    refused(damaged, "json", match="classifier")


@pytest.mark.parametrize("key", ['"input_scale"', '"input_mean"'])
def test_an_integer_of_hundreds_of_digits_in_the_scaling(key):
    text = dumps(fitted(), "json")
    start = text.index(key)
    number = re.compile(r"-?\d+\.\d+(e-?\d+)?").search(text, start)
    damaged = text[: number.start()] + "9" * 400 + text[number.end() :]
    model = loads(damaged, "json")  # an unusable scaling is not recorded; the rules predict
    assert model._scaling is None
    assert np.all(np.isfinite(model.predict(np.zeros((3, 2)))))


def test_an_integer_of_hundreds_of_digits_in_a_range_or_a_term():
    text = system_text("json")
    for pattern in (r'"range": \[(-?[\d.e+-]+)', r'"parameters": \[(-?[\d.e+-]+)'):
        match = re.search(pattern, text)
        damaged = text[: match.start(1)] + "9" * 400 + text[match.end(1) :]
        refused(damaged, "json", line=line_of(text, match.group(0)), match="finite|low <= high")


@pytest.mark.parametrize("params", ['"n_rules": [5]', '"n_rules": "many"', '"alpha": -1.0'])
def test_recorded_parameters_of_the_wrong_type(params):
    text = dumps(fitted(), "json")
    start = text.index('"params": {')  # the estimator's parameters, in the metadata
    key = params.split(":")[0]
    damaged = text[:start] + re.sub(key + r": [^,\n]*", params, text[start:], count=1)
    assert damaged != text
    refused(damaged, "json", match="estimator_state")


# ------------------------------------------------------------------- rule text
def test_a_fis_rule_index_beyond_the_floats():
    text = dumps(random_model(0, n_features=2, n_outputs=1), "fis")
    rule = text.split("[Rules]\n")[1].split("\n")[0]
    damaged = text.replace(rule, "1e999" + rule[1:], 1)
    refused(damaged, "fis", line=line_of(damaged, "1e999"), match="absurdly large")


@pytest.mark.parametrize("fmt", ["fll", "json", "text"])
def test_rules_nested_hundreds_of_parentheses_deep(fmt):
    text = system_text(fmt)
    match = re.search(r"(?i)\bif (.*?) then", text)
    deep = "(" * 300 + match.group(1) + ")" * 300
    damaged = text[: match.start(1)] + deep + text[match.end(1) :]
    refused(damaged, fmt, system=True, match="nests parentheses more than")


def test_a_rule_nested_a_few_levels_deep_still_reads():
    text = system_text("fll")
    match = re.search(r"\bif (.*?) then", text)
    nested = text[: match.start(1)] + "((" + match.group(1) + "))" + text[match.end(1) :]
    original, read = loads(text, "fll", system=True), loads(nested, "fll", system=True)
    X = np.array([[float(np.mean(v.range)) for v in original.inputs]])
    np.testing.assert_array_equal(read.predict(X), original.predict(X))


@pytest.mark.parametrize("number", ["1e999", "-1e999", "9" * 400])
def test_a_text_system_output_term_beyond_the_floats(number):
    text = system_text("text")
    match = re.search(r"^  (\S+) = (-?[\d.e+-]+)", text, flags=re.M)
    damaged = text[: match.start(2)] + number + text[match.end(2) :]
    refused(damaged, "text", line=line_of(text, match.group(0)), match="finite")


# ----------------------------------------------------------- non-finite output
@pytest.mark.parametrize("fmt", ["fis", "fll", "json", "text"])
def test_a_wide_gaussian_loads_and_predicts_finite_numbers(fmt):
    rule_base = random_model(3, n_features=2, n_outputs=1)
    wide = rule_base.replace(sigmas=np.where(np.arange(2) == 0, 1e200, rule_base.sigmas))
    system = loads(dumps(wide, fmt), fmt, system=True)
    X = np.random.default_rng(0).uniform(-3, 3, size=(50, 2))
    assert np.all(np.isfinite(system.predict(X)))


@pytest.mark.parametrize("fmt", ["fis", "fll", "json", "text"])
def test_a_subnormal_width_is_refused_on_its_line(fmt):
    rule_base = random_model(3, n_features=2, n_outputs=1)
    text = dumps(rule_base, fmt)
    width = repr(float(rule_base.sigmas[1, 0]))
    damaged = text.replace(width, "5e-324", 1)
    error = refused(damaged, fmt, match="normal float|sigma > 0")
    # on the width's line, or (JSON) on the line of "sigmas", naming the entry
    assert "5e-324" in damaged.split("\n")[error.line - 1] or "sigmas[1, 0]" in str(error)


@pytest.mark.parametrize("fmt", ["fis", "fll", "json", "text"])
@pytest.mark.parametrize("where", ["intercept", "coef"])
def test_consequents_near_the_largest_float_are_refused_on_their_line(fmt, where):
    rule_base = random_model(4, n_features=2, n_outputs=1)
    value = float(rule_base.intercept[2, 0] if where == "intercept" else rule_base.coef[2, 0, 1])
    text = dumps(rule_base, fmt)
    written = repr(abs(value))  # the text format writes "- 2.5*x1"
    assert written in text
    damaged = text.replace(written, "1.5e308", 1)
    error = refused(damaged, fmt, match="cannot be evaluated as a finite number")
    assert "1.5e308" in damaged.split("\n")[error.line - 1]


def test_terms_near_the_largest_float_in_a_general_system_are_refused():
    text = system_text("fll", seed=2)
    match = re.search(r"term: \S+ Constant (-?[\d.e+-]+)", text)
    damaged = text[: match.start(1)] + "1e308" + text[match.end(1) :]
    error = refused(damaged, "fll", system=True, match="cannot be evaluated")
    assert error.line == line_of(text, match.group(0))


def test_large_but_finite_consequents_still_load():
    rule_base = random_model(4, n_features=2, n_outputs=1)
    big = rule_base.replace(intercept=rule_base.intercept * 1e250)
    back = loads(dumps(big, "json"), "json")
    X = np.random.default_rng(0).uniform(-1, 1, size=(20, 2))
    assert np.all(np.isfinite(back.predict(X)))


# ------------------------------------------------------------------------ fuzz
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_REPLACEMENTS = ["1e999", "-1e999", "nan", "inf", "5e-324", "1e308", "-1e308", "1e154", "1e200"]
_REPLACEMENTS += ["9" * 400, "0", "-0.0", "1e-300", "2.5", "-7", "3"]
_VALUES = ["[1.0]", '"x"', "{}", "true", "null", "9" * 400, "[5]", "-1"]


def _mutate(text, rng):
    kind = rng.choice(["flip", "number", "number", "line", "truncate", "nest", "value"])
    lines = text.split("\n")
    numbers = list(_NUMBER.finditer(text))
    if kind == "flip":
        i = rng.randrange(len(text))
        return text[:i] + rng.choice("(),:;[]{}=\"'#%-+.e0 \n") + text[i + 1 :]
    if kind == "line":
        i = rng.randrange(len(lines))
        if rng.random() < 0.5:
            lines.insert(i, lines[i])
        else:
            del lines[i]
        return "\n".join(lines)
    if kind == "truncate":
        return text[: rng.randrange(len(text))]
    if kind == "nest":
        match = re.search(r"(?i)\bif (.*?) then", text)
        if match:
            n = rng.choice([2, 70, 500])
            return (
                text[: match.start(1)] + "(" * n + match.group(1) + ")" * n + text[match.end(1) :]
            )
    if kind == "value":
        values = list(re.finditer(r'": ([^,\n\]}{\[]+)', text))
        if values:
            m = rng.choice(values)
            return text[: m.start(1)] + rng.choice(_VALUES) + text[m.end(1) :]
    m = rng.choice(numbers)
    return text[: m.start()] + rng.choice(_REPLACEMENTS) + text[m.end() :]


def _corpus():
    items = []
    for name in sorted(os.listdir(DATA)):
        fmt = {".txt": "text", ".json": "json", ".fis": "fis", ".fll": "fll"}.get(
            os.path.splitext(name)[1]
        )
        if fmt is not None:
            with open(os.path.join(DATA, name), encoding="utf-8") as stream:
                items.append((fmt, stream.read()))
    models = [random_model(1, normalize=True), fitted(), fitted(classifier=True)]
    items += [(fmt, dumps(model, fmt)) for model in models for fmt in FORMATS]
    items += [
        (fmt, system_text(fmt, seed, "fis")) for seed in (0, 1) for fmt in FORMATS if fmt != "fll"
    ]
    items += [(fmt, system_text(fmt, 0, "fll")) for fmt in ("fll", "json", "text")]
    return items


def _inside(model, n_rows=40, seed=0):
    """Rows inside the model's declared input ranges (the finite part of them)."""
    if isinstance(model, randomts.FuzzySystem):
        ranges = np.array([v.range for v in model.inputs], dtype=float)
    else:
        rule_base = getattr(model, "rule_base_", model)
        ranges = rule_base.input_range
        if ranges is None:
            ranges = np.stack([rule_base.centers.min(0), rule_base.centers.max(0)], axis=1)
    ranges = np.sort(np.clip(np.nan_to_num(np.asarray(ranges, dtype=float)), -1e300, 1e300), 1)
    u = np.random.default_rng(seed).uniform(size=(n_rows, len(ranges)))
    return np.vstack([ranges[:, 0] + u * (ranges[:, 1] / 2 - ranges[:, 0] / 2) * 2, ranges.T])


@pytest.mark.parametrize("seed", range(4))
def test_damaged_files_are_format_errors_or_finite_models(seed):
    corpus, rng, escaped = _corpus(), random.Random(seed), []
    for _ in range(600):
        fmt, text = corpus[rng.randrange(len(corpus))]
        damaged = _mutate(text, rng)
        for system in (False, True):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = loads(damaged, fmt, system=system)
            except FormatError:
                continue
            except Exception as error:  # noqa: BLE001 - the finding is any other exception
                escaped.append((fmt, system, f"{type(error).__name__}: {error}", damaged))
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                outputs = np.asarray(model.predict(_inside(model)), dtype=float)
            # NaN is the documented answer where no rule fires, or where a hedge is undefined
            explained = {NoRuleFiredWarning, UndefinedDegreeWarning}
            if not np.all(np.isfinite(outputs)) and not any(
                issubclass(w.category, tuple(explained)) for w in caught
            ):
                escaped.append((fmt, system, "non-finite output", damaged))
    assert not escaped, escaped[:3]
