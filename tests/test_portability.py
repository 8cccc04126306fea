"""Habits that keep the suite passing on any CPU and BLAS build.

Computed floating-point values differ in their last bits between machines (other
SIMD kernels, other BLAS blocking, other thread counts), so the tests compare them
with tolerances derived from the computation. An exact comparison is allowed only
where the value is exact by construction (a grid value chosen from a given list, a
saved value read back, the same code on the same inputs), and the line says so
with an ``# exact:`` comment.
"""

import ast
import doctest
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
ROOT = TESTS.parent

# names of values that are computed floats wherever they appear in the tests
_FLOAT_NAME = re.compile(
    r"(^|_)(alpha|alphas|score|scores|mse|rmse|error|errors|loss|coef|coefficients|"
    r"intercept|residual|residuals|rmse|prediction|predictions|mean|std|variance)_?$"
)
_MARK = "# exact:"


def _name_of(node):
    """The last name of an operand: ``model.alpha_`` -> ``alpha_``, ``f(x).score(X)`` -> ``score``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _is_float_operand(node):
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float) and not node.value.is_integer()
    if isinstance(node, ast.UnaryOp):
        return _is_float_operand(node.operand)
    name = _name_of(node)
    return name is not None and bool(_FLOAT_NAME.search(name))


def exact_float_comparisons(source, *, statements=(ast.Assert,)):
    """Line numbers of comparisons by ``==``/``!=`` of a computed float, unmarked.

    In the tests, ``assert`` statements; in doctest examples (``statements``
    including ``ast.Expr``), also the expressions whose printed value the
    example checks.
    """
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, statements):
            continue
        for compare in ast.walk(node.test if isinstance(node, ast.Assert) else node.value):
            if not isinstance(compare, ast.Compare):
                continue
            operands = [compare.left, *compare.comparators]
            for op, left, right in zip(compare.ops, operands[:-1], operands[1:], strict=True):
                if not isinstance(op, (ast.Eq, ast.NotEq)):
                    continue
                if not (_is_float_operand(left) or _is_float_operand(right)):
                    continue
                if any(
                    isinstance(side, ast.Call) and _name_of(side) == "approx"
                    for side in (left, right)
                ):
                    continue
                span = lines[node.lineno - 2 : node.end_lineno]
                if not any(_MARK in line for line in span):
                    found.append(node.lineno)
    return sorted(set(found))


@pytest.mark.parametrize(
    "source, expected",
    [
        ("assert model.alpha_ == other.alpha_\n", [1]),
        ("assert m.score(X, y) != 0.5\n", [1]),
        ("assert value == 0.25\n", [1]),
        ("assert model.alpha_ == pytest.approx(other.alpha_)\n", []),
        ("# exact: both read the same grid value\nassert model.alpha_ == grid[2]\n", []),
        ("assert model.alpha_ == 2.0  # exact: an integer-valued grid point\n", []),
        ("assert len(rules) == 3\n", []),
        ("assert model.n_rules == 5\n", []),
    ],
)
def test_the_lint_finds_exact_float_comparisons(source, expected):
    assert exact_float_comparisons(source) == expected


def doctest_exact_float_comparisons(text):
    """Line numbers (1-based, in ``text``) of doctest examples that compare computed floats."""
    found = []
    for example in doctest.DocTestParser().get_examples(text):
        try:
            lines = exact_float_comparisons(example.source, statements=(ast.Assert, ast.Expr))
        except SyntaxError:  # a continuation the parser does not join; not a comparison
            continue
        found += [example.lineno + line for line in lines]
    return found


def test_the_doctest_lint_finds_exact_float_comparisons():
    text = ">>> a = 1\n>>> model.alpha_ == other.alpha_\nTrue\n>>> bool(x.alpha_ == 1.5)  # exact: given\n"
    assert doctest_exact_float_comparisons(text) == [2]


def test_no_doctest_compares_computed_floats_exactly():
    files = sorted((ROOT / "randomts").rglob("*.py")) + sorted((ROOT / "docs").rglob("*.rst"))
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in files
        for line in doctest_exact_float_comparisons(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, (
        "doctest examples that compare computed floats exactly (print them rounded, compare "
        f"with numpy.isclose, or mark '{_MARK} why'): {offenders}"
    )


def test_no_test_compares_computed_floats_exactly():
    offenders = [
        f"{path.name}:{line}"
        for path in sorted(TESTS.glob("*.py"))
        for line in exact_float_comparisons(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, (
        "exact comparisons of computed floats (use pytest.approx or numpy.testing with a "
        f"tolerance derived from the computation, or mark '{_MARK} why'): {offenders}"
    )
