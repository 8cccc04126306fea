"""Habits that keep the suite passing on any CPU and BLAS build.

Computed floating-point values differ in their last bits between machines (other
SIMD kernels, other BLAS blocking, other thread counts), so the tests compare them
with tolerances derived from the computation. An exact comparison is allowed only
where the value is exact by construction (a grid value chosen from a given list, a
saved value read back, the same code on the same inputs), and the line says so
with an ``# exact:`` comment.
"""

import ast
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

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


def exact_float_comparisons(source):
    """Line numbers of ``assert`` comparisons by ``==``/``!=`` of a computed float, unmarked."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assert):
            continue
        for compare in ast.walk(node.test):
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
