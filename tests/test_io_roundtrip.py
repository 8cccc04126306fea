"""save/load: every format round-trips; committed files are exported again byte for byte."""

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from io_helpers import random_model, relative_error

import randomts
from randomts import FormatError, RandomTSRegressor
from randomts.io import FORMATS, dumps, format_for, loads

DATA = os.path.join(os.path.dirname(__file__), "data")
FORMAT_NAMES = ["text", "json", "fis", "fll"]


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("order", [0, 1])
def test_save_load_round_trip(tmp_path, fmt, seed, normalize, order):
    rule_base = random_model(seed, normalize=normalize, order=order)
    path = tmp_path / f"model{FORMATS[fmt].extensions[0]}"
    randomts.save(rule_base, path)
    back = randomts.load(path)
    X = np.random.default_rng(seed).normal(size=(200, 3))
    assert back.normalize == normalize and back.n_outputs == 2 and len(back) == 6
    if fmt in ("text", "json"):
        assert back == rule_base  # all arrays equal, bit for bit
        assert np.array_equal(back.predict(X), rule_base.predict(X))
    else:
        # The numbers are written with repr, so the arrays are equal too; names may be sanitised.
        for name in ("centers", "sigmas", "coef", "intercept"):
            assert np.array_equal(getattr(back, name), getattr(rule_base, name))
        assert relative_error(back.predict(X), rule_base, X) <= 1e-12


def test_names_survive_or_are_sanitised_as_documented(tmp_path):
    rule_base = random_model(0)
    names = {}
    for fmt in FORMAT_NAMES:
        path = tmp_path / f"m.{fmt}"
        randomts.save(rule_base, path, format=fmt)
        names[fmt] = randomts.load(path, format=fmt).input_names
    assert names["text"] == names["json"] == names["fll"] == ("x1(k)", "temp (C)", "a#b")
    assert names["fis"] == ("x1(k)", "temp_(C)", "a#b")  # quotes and whitespace become _


def test_json_keeps_metadata_and_the_estimators_provenance(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(80, 2))
    model = RandomTSRegressor(n_rules=7, standardize=True, random_state=42, structure="random").fit(
        X, X[:, 0] * X[:, 1]
    )
    randomts.save(model, tmp_path / "m.json")
    back = randomts.load(tmp_path / "m.json").rule_base_  # saved from an estimator: one is loaded
    assert back == model.rule_base_
    assert back.metadata.items() >= model.rule_base_.metadata.items()
    assert back.metadata["params"]["random_state"] == 42 and "input_mean" in back.metadata
    assert np.array_equal(back.predict(X)[:, 0], model.predict(X))
    randomts.save(model.rule_base_, tmp_path / "rb.json")  # saved from a rule base: one is loaded
    assert randomts.load(tmp_path / "rb.json").metadata == model.rule_base_.metadata


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_committed_files_are_exported_again_byte_for_byte(fmt):
    path = os.path.join(DATA, f"model.{'txt' if fmt == 'text' else fmt}")
    with open(path, encoding="utf-8") as stream:
        committed = stream.read()
    assert dumps(randomts.load(path), fmt) == committed


def test_committed_files_describe_one_model():
    models = [
        randomts.load(os.path.join(DATA, f"model.{ext}")) for ext in ("txt", "json", "fis", "fll")
    ]
    for model in models[1:]:
        for name in ("centers", "sigmas", "coef", "intercept"):
            assert np.array_equal(getattr(model, name), getattr(models[0], name))
    assert models[1].metadata == {"made_by": "tests/data/make_data.py", "seed": 7}


def test_files_written_by_octave_and_fuzzylite_are_read(tmp_path):
    reference = randomts.load(os.path.join(DATA, "model.json"))
    X = np.random.default_rng(0).normal(size=(100, 2))
    octave = randomts.load(os.path.join(DATA, "octave_writefis.fis"))  # 15 significant digits
    assert relative_error(octave.predict(X), reference, X) < 1e-13
    lite = randomts.load(os.path.join(DATA, "fuzzylite_export.fll"))  # fuzzylite's 3 decimals
    assert lite.input_names == reference.input_names
    np.testing.assert_allclose(lite.centers, reference.centers, atol=5e-4)
    np.testing.assert_allclose(lite.coef, reference.coef, atol=5e-4)


def test_dumps_and_loads_are_the_string_forms():
    rule_base = random_model(1)
    for fmt in FORMAT_NAMES:
        assert loads(dumps(rule_base, fmt), fmt).centers.tolist() == rule_base.centers.tolist()
    with pytest.raises(TypeError, match="text must be a str"):
        loads(b"{}", "json")


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    path = tmp_path / "model.json"
    randomts.save(random_model(0), path)
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        randomts.save(random_model(1), path)
    monkeypatch.undo()
    assert path.read_bytes() == before  # the old file is intact
    assert sorted(os.listdir(tmp_path)) == ["model.json"]  # and no temporary file is left


def test_save_keeps_an_existing_files_permissions(tmp_path):
    path = tmp_path / "model.txt"
    randomts.save(random_model(0), path)
    os.chmod(path, 0o640)
    randomts.save(random_model(1), path)
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_save_and_load_reject_what_they_cannot_handle(tmp_path):
    rule_base = random_model(0)
    with pytest.raises(
        ValueError, match=r"Cannot tell the format of '.*model.bin' from its extension"
    ):
        randomts.save(rule_base, tmp_path / "model.bin")
    with pytest.raises(
        ValueError,
        match=r"The 'format' parameter must be one of \['fis', 'fll', 'json', "
        r"'text'\]. Got 'xml' instead.",
    ):
        randomts.load(tmp_path / "model.txt", format="xml")
    with pytest.raises(
        TypeError,
        match="save expects a fitted RandomTSRegressor; this one is not fitted: call fit first.",
    ):
        randomts.save(RandomTSRegressor(structure="random"), tmp_path / "m.json")
    with pytest.raises(TypeError, match="got dict"):
        randomts.save({}, tmp_path / "m.json")
    with pytest.raises(ValueError, match="metadata cannot be saved as JSON"):
        randomts.save(rule_base.replace(metadata={"f": object()}), tmp_path / "m.json")
    with pytest.raises(FileNotFoundError):
        randomts.load(tmp_path / "missing.json")
    assert format_for("A.TXT").name == "text" and issubclass(FormatError, ValueError)


def _declared(text, prefix, closing=""):
    """The ranges a FIS (``Range=[``) or FLL (``  range:``) text declares, in order."""
    return [
        [float(v) for v in line[len(prefix) : len(line) - len(closing)].split()]
        for line in text.splitlines()
        if line.startswith(prefix)
    ]


@pytest.mark.parametrize("fmt", ["fis", "fll", "json", "text"])
def test_recorded_ranges_are_written_as_given_and_read_back_bit_for_bit(tmp_path, fmt):
    rule_base = random_model(2).replace(
        input_range=[[-50.0, 1.0], [0.0, 60.0], [-1.0 / 3.0, 1.0]], output_range=[[0.1, 0.7]] * 2
    )
    if fmt == "fis":
        assert _declared(dumps(rule_base, "fis"), "Range=[", "]") == [
            *rule_base.input_range.tolist(),
            *rule_base.output_range.tolist(),
        ]
    if fmt == "fll":
        assert _declared(dumps(rule_base, "fll"), "  range:") == [
            *rule_base.input_range.tolist(),
            *rule_base.output_range.tolist(),
        ]
    path = tmp_path / f"m{FORMATS[fmt].extensions[0]}"
    randomts.save(rule_base, path)
    back = randomts.load(path)  # FIS sanitises names: compare the numbers
    assert back.replace(input_names=None, output_names=None) == rule_base.replace(
        input_names=None, output_names=None
    )
    assert np.array_equal(back.input_range, rule_base.input_range)
    assert np.array_equal(back.output_range, rule_base.output_range)


def test_without_recorded_ranges_fis_and_fll_cover_every_rule():
    rule_base = random_model(2)
    assert rule_base.input_range is None and rule_base.output_range is None
    lows = rule_base.centers - 3 * rule_base.sigmas
    highs = rule_base.centers + 3 * rule_base.sigmas
    expected = np.column_stack([lows.min(axis=0), highs.max(axis=0)]).tolist()
    assert _declared(dumps(rule_base, "fis"), "Range=[", "]")[:3] == expected
    assert _declared(dumps(rule_base, "fll"), "  range:")[:3] == expected
    back = loads(dumps(rule_base, "fis"), "fis")
    assert back.input_range.tolist() == expected  # a file's declared ranges are kept


def test_json_written_before_with_ranges_in_metadata_still_loads_them():
    text = dumps(random_model(1).replace(input_range=[[0.0, 1.0]] * 3), "json")
    assert '"input_range": [' in text  # in the metadata object, where files always held it
    back = loads(text, "json")
    assert back.input_range.tolist() == [[0.0, 1.0]] * 3 and "input_range" not in back.metadata


def test_save_into_a_missing_folder_or_onto_a_folder_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="the folder .*nowhere' does not exist"):
        randomts.save(random_model(0), tmp_path / "nowhere" / "m.json")
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(IsADirectoryError, match="it is a directory"):
        randomts.save(random_model(0), tmp_path / "dir.json")


_NAME = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=8).filter(
    str.strip
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_NAME, min_size=3, max_size=3, unique=True))
def test_any_input_names_survive_text_json_and_fll_and_fis_keeps_them_usable(names):
    rule_base = random_model(0, n_rules=2).replace(input_names=names)
    for fmt in ("text", "json", "fll"):
        assert loads(dumps(rule_base, fmt), fmt).input_names == tuple(names)
    back = loads(dumps(rule_base, "fis"), "fis")
    assert np.array_equal(back.centers, rule_base.centers) and len(set(back.input_names)) == 3


@pytest.mark.parametrize("fmt", ["text", "json", "fll"])
def test_a_name_ending_in_a_newline_is_quoted_not_written_bare(fmt):
    """Found by hypothesis: ``$`` in a regex also matches before a final newline."""
    rule_base = random_model(0, n_rules=2).replace(input_names=["0", "00", "A\n"])
    assert loads(dumps(rule_base, fmt), fmt).input_names == ("0", "00", "A\n")


def test_a_constant_variable_gets_a_range_of_positive_length():
    rule_base = random_model(3, n_features=3, n_outputs=2).replace(
        input_range=[[2.0, 2.0], [0.0, 1.0], [-1.0, 1.0]], output_range=[[5.0, 5.0], [0.0, 1.0]]
    )
    declared = _declared(dumps(rule_base, "fis"), "Range=[", "]")
    lows = rule_base.centers[:, 0] - 3 * rule_base.sigmas[:, 0]
    highs = rule_base.centers[:, 0] + 3 * rule_base.sigmas[:, 0]
    assert declared[0] == [min(2.0, lows.min()), max(2.0, highs.max())]
    assert declared[1:3] == [[0.0, 1.0], [-1.0, 1.0]]
    assert declared[3:] == [[4.0, 6.0], [0.0, 1.0]]


# ------------------------------------------------- one writer per engine format


@pytest.mark.parametrize("fmt", ["fis", "fll"])
@pytest.mark.parametrize(
    "n_features, n_outputs, normalize, order",
    [(1, 1, False, 0), (2, 2, True, 1), (3, 2, False, 1), (3, 1, True, 0)],
)
def test_a_rule_base_is_written_as_its_fuzzy_system(fmt, n_features, n_outputs, normalize, order):
    """FIS and FLL have one writer, for FuzzySystem; a RuleBase goes through from_rule_base."""
    rule_base = random_model(
        n_features, n_features=n_features, n_outputs=n_outputs, normalize=normalize, order=order
    ).replace(input_names=["x1(k)", "x_2", "x3"][:n_features])  # names FIS keeps as they are
    assert rule_base.metadata  # the comment line is written from the system's metadata
    text = dumps(rule_base, fmt)
    assert text == dumps(randomts.FuzzySystem.from_rule_base(rule_base), fmt)
    assert "randomts-metadata: " in text.splitlines()[-1]
    back = loads(text, fmt)
    assert back == rule_base and back.metadata == rule_base.metadata


@pytest.mark.parametrize("fmt", ["fis", "fll"])
def test_a_systems_metadata_is_written_and_read_back(fmt):
    rule_base = random_model(0).replace(input_names=["a", "b", "c"])
    system = randomts.FuzzySystem.from_rule_base(rule_base).replace(
        name="general", metadata={"source": "test", "seed": 0}
    )
    back = loads(dumps(system, fmt), fmt, system=True)
    assert back == system and back.metadata == {"source": "test", "seed": 0}


@pytest.mark.parametrize("fmt", ["fis", "fll"])
def test_an_output_named_like_an_input_gets_a_suffix_in_the_file(fmt):
    """A RuleBase allows an input and an output of one name; a FuzzySystem does not."""
    rule_base = random_model(1, n_features=2, n_outputs=1).replace(
        input_names=["y", "u"], output_names=["y"]
    )
    back = loads(dumps(rule_base, fmt), fmt)
    assert back.input_names == ("y", "u") and back.output_names == ("y_2",)
    X = np.random.default_rng(1).normal(size=(50, 2))
    assert relative_error(back.predict(X), rule_base, X) <= 1e-12


def test_fis_rule_weights_are_written_as_matlab_does_when_all_are_one():
    rule_base = random_model(2, n_features=2, n_outputs=1).replace(input_names=["a", "b"])
    rules = [line for line in dumps(rule_base, "fis").splitlines() if line.endswith(" : 1")]
    assert rules and all(" (1) : " in line for line in rules)
    system = randomts.FuzzySystem.from_rule_base(rule_base)
    first = system.rules[0]
    weighted = system.replace(
        rules=[type(first)(first.antecedent, first.consequent, 0.1), *system.rules[1:]]
    )
    text = dumps(weighted, "fis")
    assert " (0.1) : 1" in text and " (1.0) : 1" in text  # repr: 0.1 reads back exactly
    assert loads(text, "fis", system=True) == weighted


def test_fll_writes_a_disjunction_no_rule_uses_as_none_only_when_it_reads_back():
    system = randomts.FuzzySystem.from_rule_base(random_model(3)).replace(name="general")
    assert "  disjunction: none" in dumps(system, "fll")  # probor: what "none" reads as
    changed = system.replace(disjunction="max")
    text = dumps(changed, "fll")
    assert "  disjunction: Maximum" in text
    assert loads(text, "fll", system=True) == changed
