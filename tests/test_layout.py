"""The package's layout: a private name never crosses a subpackage.

The layers themselves (which subpackage may import which) are import-linter
contracts in ``pyproject.toml``, checked by ``lint-imports``. This test adds
what import-linter does not see: names. A subpackage of randomts (``core``,
``fuzzy``, ``text``, ``fitting``, ``estimators``, ``io``, ``dynamics``,
``paper``, ``cli``) or top-level module imports from another one only
public names of public modules; the top-level helpers ``randomts._validation``,
``randomts._threads`` and ``randomts._version`` are shared by every layer.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "randomts"
SHARED = {"_validation", "_threads", "_version"}


def _unit(parts):
    """The subpackage (or top-level module) a dotted module path ``randomts.a.b`` belongs to."""
    return parts[1] if len(parts) > 1 else ""


def _imports(text):
    """``(line, target module parts, names)`` of every ``randomts`` import in ``text``."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                yield node.lineno, None, ()
            elif node.module and node.module.split(".")[0] == "randomts":
                yield node.lineno, node.module.split("."), tuple(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "randomts":
                    yield node.lineno, alias.name.split("."), ()


def _problems(name, text):
    """What is wrong with the imports of the module file ``name`` (``randomts/a/b.py``)."""
    own_unit = _unit(Path(name).with_suffix("").parts)
    for line, target, names in _imports(text):
        where = f"{name}:{line}"
        if target is None:
            yield f"{where}: a relative import (imports inside the package are absolute)"
            continue
        unit = _unit(target)
        if unit == own_unit or unit in SHARED:
            continue
        private_modules = [p for p in target[1:] if p.startswith("_")]
        if private_modules:
            yield f"{where}: imports the private module {'.'.join(target)}"
        if len(target) == 1:  # from randomts import x: x is a subpackage or a public name
            names = tuple(n for n in names if n not in SHARED)
        private = [n for n in names if n.startswith("_") and n != "__version__"]
        if private:
            yield f"{where}: imports the private name(s) {private} from {'.'.join(target)}"


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_private_name_crosses_a_subpackage(path):
    name = path.relative_to(PACKAGE.parent).as_posix()
    assert list(_problems(name, path.read_text())) == []


def test_the_check_sees_a_private_name_and_a_private_module():
    text = (
        "from randomts.core.membership import _log_strengths_block\n"
        "from randomts.io._base import atomic_write\n"
        "from randomts.fuzzy.rules import parse_rule\n"
        "from randomts._validation import check_int\n"
        "from . import rules\n"
    )
    found = list(_problems("randomts/fuzzy/example.py", text))
    assert len(found) == 3
    assert "_log_strengths_block" in found[0]
    assert "private module randomts.io._base" in found[1]
    assert "relative import" in found[2]
