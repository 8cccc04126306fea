"""Sphinx configuration of the randomts documentation.

Build (warnings are errors, a broken cross-reference is a warning):

    pip install -e '.[docs]'
    sphinx-build -W --keep-going -b html docs docs/_build/html

The ``>>>`` examples of the pages are run by pytest (``--doctest-glob='*.rst'``
in pyproject.toml), those of the docstrings by ``--doctest-modules``.
"""

import os
import re
import sys
from pathlib import Path

import randomts

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

exclude_patterns = ["_build", "conftest.py", "**/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.codeobj.json"]
templates_path = ["_templates"]
root_doc = "index"
default_role = "code"

# A reference to a randomts object that does not exist is a warning, hence an error under -W.
nitpicky = True
# Objects of other projects: resolved by intersphinx when online, but the build must run offline.
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sklearn|skfuzzy|matplotlib|pandas|dask|fuzzylite|tabulate)(\..*)?"),
    (r"py:.*", r"(ndarray|array-like|array_like|Axes|Figure|DataFrame|Series|Generator|RandomState)"),
    (r"py:.*", r"(optional|default|of|shape|or|and|None|int|float|str|bool|dict|list|tuple|callable|path-like|file-like|object)"),
]

autosummary_generate = True
autosummary_imported_members = False
# a module's __all__ decides what its page documents (randomts.io re-exports its private modules' classes)
autosummary_ignore_module_all = False
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections give the types

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# Scripts of examples/ left out of the gallery. sphinx-gallery needs a docstring that opens with
# a reStructuredText title (a line, then a line of "=" as long); these long-running scripts have
# none yet. Add the underline to a script and remove it from this list to put it in the gallery.
_NOT_IN_GALLERY = ("van_der_pol.py", "pruning.py", "solver_accuracy.py")

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["auto_examples"],
    # the examples named plot_*.py run at each build (their printed output and figures go into
    # their pages); any other script in the gallery is shown with its code only
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"(^|[/\\])(__init__\.py|conftest\.py|"
    + "|".join(re.escape(name) for name in _NOT_IN_GALLERY) + ")$",
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
    """Document a class's own members, not those scikit-learn's bases add (get_params, set_*_request)."""
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
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], candidate, node, contnode)


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
    app.connect("missing-reference", _resolve_public_names)
