"""The package's layout: no private name crosses a subpackage, no private attribute a module.

The layers themselves (which subpackage may import which) are import-linter
contracts in ``pyproject.toml``, checked by ``lint-imports``. This test adds
what import-linter does not see:

- names: a subpackage of randomts (``core``, ``fuzzy``, ``text``,
  ``fitting``, ``analysis``, ``estimators``, ``io``, ``dynamics``,
  ``paper``, ``cli``) or top-level module imports from another one only
  public names of public modules; the top-level helpers
  ``randomts._validation``, ``randomts._threads`` and ``randomts._version``
  are shared by every layer;
- attributes: a private attribute (``obj._name``, or ``getattr(obj,
  "_name")``) of another object than ``self`` or ``cls`` is read or written
  only in the module whose classes own it (set it on ``self`` or define
  it), so that an object's state is kept by its own class;
- size: no module holds more than 600 lines outside its docstrings (blank
  lines and comments count): a module past that is two modules.
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
# the public methods of a namedtuple, which begin with an underscore not to clash with fields
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}
MAX_LINES = 600


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _owned(tree):
    """Private attribute names the classes of a module own: set on self or cls, or defined."""
    owned = set()
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                owned.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id in ("self", "cls"):
                    owned.add(node.attr)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                owned.update(t.id for t in targets if isinstance(t, ast.Name))
    return {name for name in owned if _is_private(name)}


def _own_object(node):
    return (isinstance(node, ast.Name) and node.id in ("self", "cls")) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def _attribute_problems(name, text):
    """Private attributes of other objects that the module ``name`` reads or writes."""
    tree = ast.parse(text)
    owned = _owned(tree) | NAMEDTUPLE_API
    for node in ast.walk(tree):
        target = attribute = None
        if isinstance(node, ast.Attribute):
            target, attribute = node.value, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            target, attribute = node.args[0], node.args[1].value
        if attribute is None or not _is_private(attribute) or _own_object(target):
            continue
        if attribute not in owned:
            yield f"{name}:{node.lineno}: {ast.unparse(node)} reads another object's private state"


def _docstring_lines(tree):
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def _lines_of_code(text):
    """Lines outside the docstrings, blank lines and comments included."""
    return len(text.splitlines()) - len(_docstring_lines(ast.parse(text)))


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


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_private_attribute_crosses_a_module(path):
    name = path.relative_to(PACKAGE.parent).as_posix()
    assert list(_attribute_problems(name, path.read_text())) == []


def test_the_check_sees_private_attributes_of_other_objects():
    text = (
        "class Model:\n"
        "    def fit(self):\n"
        "        self._stream = None\n"
        "        other = Model()\n"
        "        other._stream = 1  # owned by this module's class\n"
        "        return self._stream\n"
        "def use(model, rules, rows):\n"
        "    model._scaling = None\n"
        "    getattr(model, '_conformity', None)\n"
        "    rows._replace(a=1)  # a namedtuple's method\n"
        "    return rules.__len__() + len(rules._centers)\n"
    )
    found = list(_attribute_problems("randomts/example.py", text))
    assert len(found) == 3
    assert "model._scaling" in found[0] and "_conformity" in found[1] and "_centers" in found[2]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_module_is_longer_than_600_lines(path):
    assert _lines_of_code(path.read_text()) <= MAX_LINES


def test_the_size_counts_code_comments_and_blank_lines_but_no_docstring():
    text = '"""Module.\n\nMore.\n"""\n\n# a comment\ndef f():\n    """Doc."""\n\n    return 1\n'
    assert _lines_of_code(text) == 10 - 4 - 1  # the module docstring and the function's
