"""Sphinx configuration of the randomts documentation.

Build (warnings are errors, a broken cross-reference is a warning):

    pip install -e '.[docs]'
    sphinx-build -W --keep-going -b html docs docs/_build/html

The ``>>>`` examples of the pages are run by pytest (``--doctest-glob='*.rst'``
in pyproject.toml), those of the docstrings by ``--doctest-modules``.
"""

import ast
import os
import re
import sys
from pathlib import Path

from threadpoolctl import threadpool_limits

import randomts

# The gallery's examples run in this process on small matrices: one BLAS thread is faster there,
# and it keeps OpenBLAS's threads from spinning against each other on a busy machine.
threadpool_limits(1)

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS))  # for the local extension below, if any

project = "randomts"
author = "randomts developers"
copyright = "randomts developers, BSD-3-Clause"
release = randomts.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
]

exclude_patterns = [
    "_build",
    "conftest.py",
    "**/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.codeobj.json",
]
templates_path = ["_templates"]
root_doc = "index"
default_role = "code"

# A reference to a randomts object that does not exist is a warning, hence an error under -W.
nitpicky = True
# Objects of other projects (numpy.memmap, sklearn.base.BaseEstimator, ...) would be resolved by
# intersphinx, which needs the network; the build runs offline, so only they are let through.
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(numpy|scipy|sklearn|skfuzzy|matplotlib|pandas|dask|distributed|fuzzylite|tabulate)\..*",
    ),
]

autosummary_generate = True
autosummary_imported_members = False
# a module's __all__ decides what its page documents (randomts.io re-exports classes of its
# private modules)
autosummary_ignore_module_all = False
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections give the types

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

EXAMPLES = DOCS.parent / "examples"
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}$")


def _is_gallery_script(path):
    """A sphinx-gallery script: its docstring opens with a title line and its underline."""
    lines = (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").splitlines()
    return len(lines) > 1 and bool(_UNDERLINE.match(lines[1].strip()))


def _write_longer_scripts_page(scripts):
    """``longer_examples.rst``: each script that is not in the gallery, its docstring and its code.

    These are the scripts of examples/ whose docstring opens with a plain sentence rather than
    a title: the longer runs (minutes), described here and not executed at build time.
    """
    out = [
        ".. _longer_examples:",
        "",
        "Longer example scripts",
        "======================",
        "",
        "Scripts of the project's ``examples/`` folder that run for minutes, too long for each",
        "documentation build: their description and code are below; run one with",
        "``python examples/<name>.py`` from the repository. (Shorter scripts, with their",
        "output and figures, are in the :ref:`gallery`.)",
        "",
    ]
    if not scripts:
        out += ["Every script of ``examples/`` is in the gallery.", ""]
    for path in scripts:
        module = ast.parse(path.read_text(encoding="utf-8"))
        summary, _, rest = (ast.get_docstring(module) or path.name).partition("\n")
        title = f"``{path.name}``: {summary.strip()}"
        body_start = module.body[1].lineno if len(module.body) > 1 else 1
        out += [
            title,
            "-" * len(title),
            "",
            rest.strip(),
            "",
            f".. literalinclude:: ../examples/{path.name}",
            "   :language: python",
            f"   :lines: {body_start}-",
            "",
        ]
    target = DOCS / "longer_examples.rst"
    text = "\n".join(out)
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


# The gallery runs the scripts that follow sphinx-gallery's format; the others get a page of
# their own, written when the build starts (see setup below).
_LONGER = [path for path in sorted(EXAMPLES.glob("*.py")) if not _is_gallery_script(path)]

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    # the examples named plot_*.py run at each build (their printed output and figures go into
    # their pages); any other script in the gallery is shown with its code only
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"(^|[/\\])("
    + "|".join(
        re.escape(name) for name in ["__init__.py", "conftest.py", *(p.name for p in _LONGER)]
    )
    + ")$",
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "capture_repr": (),
    "show_memory": False,
    "plot_gallery": "True",
    "write_computation_times": False,
}
os.environ.setdefault("MPLBACKEND", "Agg")

# matplotlib's ``.. plot::`` directive (the pictures of the user guide)
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"figure.figsize": (6.4, 4.2)}

html_theme = "furo"
html_title = f"randomts {release}"
html_static_path = []
html_show_sourcelink = False
pygments_style = "sphinx"


def _defined_in_randomts(obj):
    target = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    return (getattr(target, "__module__", None) or "").startswith("randomts")


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Document a class's own members, not those its scikit-learn bases add (set_*_request)."""
    if what == "class" and not name.startswith("__") and callable(getattr(obj, "__get__", None)):
        if not _defined_in_randomts(obj):
            return True
    return None


def _resolve_public_names(app, env, node, contnode):
    """Resolve a name relative to the package, or through a private module.

    Docstrings say :class:`RuleBase` (or ``RuleBase.predict``) inside modules that
    import it; the object is documented as ``randomts.RuleBase``. A type annotation
    names ``randomts.io._base.RuleBaseFormat``; it is documented as
    ``randomts.io.RuleBaseFormat``. A target that names no documented object stays a
    warning.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    if target.startswith("randomts."):
        # randomts.io._base.RuleBaseFormat is documented where it is exported: randomts.io
        candidate = ".".join(part for part in target.split(".") if not part.startswith("_"))
    else:
        candidate = f"randomts.{target}"
    domain = env.get_domain("py")
    if candidate == target or candidate not in domain.objects:
        return None
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], candidate, node, contnode
    )


def setup(app):
    app.connect("builder-inited", lambda app: _write_longer_scripts_page(_LONGER))
    app.connect("autodoc-skip-member", _skip_foreign_members)
    app.connect("missing-reference", _resolve_public_names)
