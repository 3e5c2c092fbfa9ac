"""Sphinx configuration of fastmetrics' documentation.

Build (from the repository root, with fastmetrics installed or its kernels built in place)::

    python -m pip install ".[docs]"
    python -m sphinx -W --keep-going -n -b html docs docs/_build/html
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # reference.py, beside this file

import fastmetrics  # noqa: E402
import reference  # noqa: E402

project = "fastmetrics"
author = "fastmetrics developers"
copyright = "fastmetrics developers"
release = fastmetrics.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_templates"]
templates_path = ["_templates"]
root_doc = "index"
html_theme = "alabaster"
html_title = f"fastmetrics {release}"
html_static_path: list[str] = []

# every cross-reference must resolve (sphinx-build -n)
nitpicky = True

# -- autodoc / autosummary --
autosummary_generate = True
autosummary_imported_members = True
# types are written in the docstrings' Parameters/Returns sections (numpydoc); the
# annotations in the rendered signatures would repeat them and name private aliases
autodoc_typehints = "none"
autodoc_default_options = {"member-order": "bysource"}
add_module_names = False

# -- numpydoc --
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = False
# the checks every public callable passes (RT01 skips classes and methods returning None)
numpydoc_validation_checks = {"GL08", "PR01", "PR02", "RT01", "SA01", "EX01"}
numpydoc_validation_exclude = {
    # constants, properties and data attributes: the checks are about callables (parameters,
    # returns, examples); the list is computed from the reference (reference.py)
    *(rf"^{re.escape(name)}$" for name in reference.not_callable_names()),
    # scikit-learn's own class, re-exported so that warning filters written for scikit-learn
    # apply to fastmetrics: its docstring is scikit-learn's, not ours to change
    r"^fastmetrics\.exceptions\.UndefinedMetricWarning$",
}

# names outside the three offline inventories (dask's documentation is not among them)
nitpick_ignore = [("py:class", "dask.delayed.Delayed"), ("py:class", "dask.array.Array")]
nitpick_ignore_regex: list[tuple[str, str]] = []


# -- intersphinx --
# docs.python.org, numpy.org and scikit-learn.org cannot be reached from the machines that
# build these docs (development or CI), so intersphinx cannot download their objects.inv.
# docs/make_inventories.py writes equivalent inventories offline (names from the installed
# packages, addresses from each site's URL pattern, Sphinx's own inventory writer); the files
# are committed and read here as (site, local inventory). Links point at the real sites.
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", str(HERE / "_inventories" / "python.inv")),
    "numpy": ("https://numpy.org/doc/stable", str(HERE / "_inventories" / "numpy.inv")),
    "sklearn": ("https://scikit-learn.org/stable", str(HERE / "_inventories" / "sklearn.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy", str(HERE / "_inventories" / "scipy.inv")),
    "statsmodels": ("https://www.statsmodels.org/stable",
                    str(HERE / "_inventories" / "statsmodels.inv")),
}
intersphinx_timeout = 1

# -- MyST (the guide pages include README.md sections) --
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# a guide page is a README section, whose headings start at H2 (the README's H1 is the
# project's name); MyST would warn that the page's headings do not start at H1
suppress_warnings = ["myst.header"]


def _check_reference(app) -> None:
    """Fail the build when the API reference misses a public name (or lists a non-public one)."""
    from sphinx.util import logging

    logger = logging.getLogger("fastmetrics.reference")
    for problem in reference.problems():
        logger.warning(problem)


def _constant_docstring(app, what, name, obj, options, lines) -> None:
    """A constant documented under a module that re-exports it (``fastmetrics.METRIC_KEYS``)
    has no docstring there, and autodoc falls back to its type's (``tuple``'s): use the
    docstring written where it is defined, or none."""
    if what != "data" or not lines or obj is None:
        return
    if "\n".join(lines).strip() != inspect.cleandoc(type(obj).__doc__ or ""):
        return
    short = name.rpartition(".")[2]
    lines[:] = []
    for modname, module in list(sys.modules.items()):
        if modname.startswith("fastmetrics") and getattr(module, short, None) is obj:
            try:
                docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
            except PycodeError:  # compiled modules have no source to read
                continue
            if ("", short) in docs:
                lines[:] = list(docs[("", short)])
                return


def setup(app) -> None:
    app.connect("builder-inited", _check_reference)
    # before numpydoc's handler (priority 500), which formats the lines
    app.connect("autodoc-process-docstring", _constant_docstring, priority=400)
