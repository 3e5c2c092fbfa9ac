"""What the API reference must list, and what it does list.

The public names are every name in ``fastmetrics.__all__`` and in the ``__all__`` of every
public module of the package (no leading underscore, found by walking the package, so a new
module is covered without editing this file). An object exported under several names
(``f1_score`` from ``fastmetrics`` and ``fastmetrics.classification``) is listed once, under
any of them (the reference uses the shortest). ``conf.py`` fails the build (a warning under
``-W``) when the ``autosummary`` lists of ``docs/api/*.rst`` miss a public object, list one
twice or name something that is not public; ``tests/test_docs.py`` runs the same comparison
without Sphinx.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

API_DIR = Path(__file__).resolve().parent / "api"

_CURRENTMODULE = re.compile(r"^\.\. (?:currentmodule|module):: (\S+)")
_AUTOSUMMARY = re.compile(r"^\.\. autosummary::")


def public_modules() -> list[str]:
    """``fastmetrics`` and its modules and subpackages whose names have no underscore.

    A subpackage's public surface is its own ``__all__`` (``fastmetrics.cli``); the modules
    inside it are how it is built, not separate public modules.
    """
    import fastmetrics

    names = ["fastmetrics"]
    for info in pkgutil.iter_modules(fastmetrics.__path__, "fastmetrics."):
        if not info.name.rpartition(".")[2].startswith("_"):
            names.append(info.name)
    return names


def public_objects() -> tuple[dict[int, list[str]], list[str]]:
    """Map ``id(object) -> its public names``; and the public modules without ``__all__``."""
    objects: dict[int, list[str]] = {}
    no_all = []
    for modname in public_modules():
        module = importlib.import_module(modname)
        names = getattr(module, "__all__", None)
        if names is None:
            no_all.append(modname)
            continue
        for name in names:
            objects.setdefault(id(getattr(module, name)), []).append(f"{modname}.{name}")
    return objects, no_all


def documented_names(api_dir: Path = API_DIR) -> list[str]:
    """The full names in the ``autosummary`` directives of ``api_dir/*.rst``."""
    names = []
    for path in sorted(api_dir.glob("*.rst")):
        module = None
        inside = False
        for line in path.read_text().splitlines():
            if m := _CURRENTMODULE.match(line):
                module, inside = m.group(1), False
            elif _AUTOSUMMARY.match(line):
                inside = True
            elif inside:
                entry = line.strip()
                if not entry or entry.startswith(":"):
                    continue
                if not line.startswith("   "):
                    inside = False
                    continue
                names.append(entry if module is None else f"{module}.{entry}")
    return names


def _resolve(fullname: str) -> object:
    modname, _, attr = fullname.rpartition(".")
    return getattr(importlib.import_module(modname), attr)


def problems(api_dir: Path = API_DIR) -> list[str]:
    """Everything wrong with the reference's coverage, one sentence each (empty when fine)."""
    objects, no_all = public_objects()
    out = [f"public module {m} has no __all__: the reference cannot tell what it exports"
           for m in no_all]
    seen: set[int] = set()
    for name in documented_names(api_dir):
        try:
            obj = _resolve(name)
        except (ImportError, AttributeError):
            out.append(f"the API reference lists {name}, which does not exist")
            continue
        if id(obj) not in objects:
            out.append(f"the API reference lists {name}, which no public __all__ exports")
        elif id(obj) in seen:
            out.append(f"the API reference lists {name} twice (under another name too)")
        seen.add(id(obj))
    for key, names in objects.items():
        if key not in seen:
            out.append(f"missing from the API reference (docs/api/*.rst): {min(names, key=len)}")
    return out


def not_callable_names(api_dir: Path = API_DIR) -> list[str]:
    """The documented names that are not callables: constants, and the properties and data
    attributes of documented classes. numpydoc's checks (parameters, returns, examples) are
    about callables; these are left out of its validation (``conf.py``)."""
    out = []
    for name in documented_names(api_dir):
        try:
            obj = _resolve(name)
        except (ImportError, AttributeError):
            continue
        if not callable(obj):
            out.append(name)
        elif isinstance(obj, type):
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and not callable(value) and not isinstance(
                        value, (classmethod, staticmethod)):
                    out.append(f"{name}.{attr}")
    return out


def names_from_modules(modules: set[str], api_dir: Path = API_DIR) -> list[str]:
    """Regular expressions matching the documented objects defined in ``modules`` (by their
    ``__module__``), and their members, under the names the reference gives them."""
    out = []
    for name in documented_names(api_dir):
        try:
            obj = _resolve(name)
        except (ImportError, AttributeError):
            continue
        if getattr(obj, "__module__", None) in modules or name.rpartition(".")[0] in modules:
            out.append(rf"^{re.escape(name)}(\.|$)")
    return out
