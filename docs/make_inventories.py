"""Write the intersphinx inventories of Python, numpy and scikit-learn into ``docs/_inventories``.

Sphinx's intersphinx downloads ``objects.inv`` from each project's site, but the machines the
documentation is built on (development and CI) cannot reach docs.python.org, numpy.org or
scikit-learn.org. This script builds equivalent inventories offline: the names come from the
installed packages by introspection, the addresses from each site's documented URL pattern,
and the file is written by Sphinx's own inventory writer (``InventoryFile.dump``), so
intersphinx reads it exactly as it reads a downloaded one. The generated files are small and
committed; ``conf.py`` points ``intersphinx_mapping`` at them. Re-run after upgrading numpy or
scikit-learn::

    python docs/make_inventories.py
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import pkgutil
import types
from pathlib import Path
from typing import Iterable, NamedTuple

from sphinx.util.inventory import InventoryFile

HERE = Path(__file__).resolve().parent / "_inventories"


class Entry(NamedTuple):
    """One inventory line: ``name`` of ``role`` (function, class...) at page ``docname#anchor``."""

    name: str
    role: str
    docname: str
    anchor: str


class _Domain:
    """The part of Sphinx's Python domain that ``InventoryFile.dump`` reads."""

    name = "py"

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = sorted(set(entries))

    def get_objects(self):  # (fullname, dispname, type, docname, anchor, priority)
        for e in self.entries:
            yield e.name, e.name, e.role, e.docname, e.anchor, 1


class _Domains:
    def __init__(self, domain: _Domain) -> None:
        self.domain = domain

    def sorted(self):
        return [self.domain]


class _Env:
    def __init__(self, project: str, version: str, entries: Iterable[Entry]) -> None:
        self.config = types.SimpleNamespace(project=project, version=version)
        self.domains = _Domains(_Domain(entries))


class _Builder:
    """HTML pages: a docname ``a/b`` is the page ``a/b.html`` of the site."""

    @staticmethod
    def get_target_uri(docname: str) -> str:
        return docname + ".html"


def write(filename: str, project: str, version: str, entries: Iterable[Entry]) -> int:
    env = _Env(project, version, entries)
    InventoryFile.dump(HERE / filename, env, _Builder())  # type: ignore[arg-type]
    return len(env.domains.domain.entries)


def _role(obj: object) -> str | None:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return None


# -- Python: builtins by introspection, plus the few standard-library names we mention --
_STDLIB = {
    "pathlib.Path": ("class", "library/pathlib"),
    "os.PathLike": ("class", "library/os"),
    "collections.abc.Callable": ("class", "library/collections.abc"),
    "collections.abc.Iterable": ("class", "library/collections.abc"),
    "collections.abc.Iterator": ("class", "library/collections.abc"),
    "collections.abc.Mapping": ("class", "library/collections.abc"),
    "collections.abc.Sequence": ("class", "library/collections.abc"),
    "typing.Any": ("data", "library/typing"),
    "typing.Literal": ("data", "library/typing"),
    "typing.NamedTuple": ("class", "library/typing"),
    "dataclasses.dataclass": ("function", "library/dataclasses"),
    "json.dumps": ("function", "library/json"),
    "pickle.dumps": ("function", "library/pickle"),
    "warnings.warn": ("function", "library/warnings"),
    "time.perf_counter_ns": ("function", "library/time"),
}


def python_entries() -> list[Entry]:
    out = []
    for name, obj in vars(builtins).items():
        if name.startswith("_"):
            continue
        if name in {"None", "True", "False", "NotImplemented", "Ellipsis"}:
            out.append(Entry(name, "data", "library/constants", name))
            continue
        role = _role(obj)
        if role == "exception":
            out.append(Entry(name, role, "library/exceptions", name))
        elif role is not None:
            out.append(Entry(name, role, "library/functions", name))
    out += [Entry(n, r, page, n) for n, (r, page) in _STDLIB.items()]
    return out


# -- numpy: the top-level namespace, numpy.random's generator, numpy.typing --
def numpy_entries() -> list[Entry]:
    import numpy as np

    out = [Entry("numpy", "module", "reference/index", "module-numpy")]
    for name in sorted(set(dir(np))):
        if name.startswith("_"):
            continue
        obj = getattr(np, name)
        if isinstance(obj, types.ModuleType):
            continue
        full = f"numpy.{name}"
        if inspect.isclass(obj) and issubclass(obj, np.generic):
            # scalar types are documented on one page, anchored by name
            out.append(Entry(full, "class", "reference/arrays.scalars", full))
            continue
        role = _role(obj)
        if role is not None:
            out.append(Entry(full, role, f"reference/generated/{full}", full))
    for name in ("linalg.norm", "linalg.inv", "linalg.solve"):
        full = f"numpy.{name}"
        out.append(Entry(full, "function", f"reference/generated/{full}", full))
    for name, role in (("default_rng", "function"), ("Generator", "class")):
        full = f"numpy.random.{name}"
        out.append(Entry(full, role, "reference/random/generator", full))
    for name in ("ArrayLike", "DTypeLike", "NDArray"):
        full = f"numpy.typing.{name}"
        out.append(Entry(full, "data", "reference/typing", full))
    return out


# -- scikit-learn: every public module's __all__ (its API reference lists exactly these) --
def sklearn_entries() -> list[Entry]:
    import sklearn

    out = []
    modules = ["sklearn"] + [
        f"sklearn.{m.name}"
        for m in pkgutil.iter_modules(sklearn.__path__)
        if not m.name.startswith("_") and m.name not in {"tests", "externals", "experimental"}
    ] + ["sklearn.metrics.cluster", "sklearn.utils.extmath"]  # documented sub-modules we cite
    for modname in modules:
        try:
            mod = importlib.import_module(modname)
        except ImportError:  # an optional dependency missing: its names are not referenced
            continue
        out.append(Entry(modname, "module", f"api/{modname}", f"module-{modname}"))
        # modules without __all__ (sklearn.calibration): the public names defined there
        public = getattr(mod, "__all__", None) or [
            n for n, v in vars(mod).items()
            if not n.startswith("_") and getattr(v, "__module__", None) == modname]
        for name in public:
            try:
                obj = getattr(mod, name)
            except (AttributeError, ImportError):  # experimental names need an opt-in import
                continue
            role = _role(obj)
            if role is None or isinstance(obj, types.ModuleType):
                continue
            full = f"{modname}.{name}"
            page = f"modules/generated/{full}"
            out.append(Entry(full, role, page, full))
            if role == "class":
                for attr, value in vars(obj).items():
                    # classmethods (the displays' from_predictions) are not callable objects
                    if not attr.startswith("_") and (
                            callable(value) or isinstance(value, (classmethod, staticmethod))):
                        out.append(Entry(f"{full}.{attr}", "method", page, f"{full}.{attr}"))
    return out


# -- SciPy and statsmodels: only the functions our docstrings cite (their full inventories are
# not needed, and neither package is a dependency of the docs build) --
_SCIPY = {"scipy.stats.bootstrap": "reference/generated/scipy.stats.bootstrap"}
_STATSMODELS = {"statsmodels.stats.contingency_tables.mcnemar":
                "generated/statsmodels.stats.contingency_tables.mcnemar"}


def main() -> None:
    import numpy
    import sklearn

    HERE.mkdir(exist_ok=True)
    counts = {
        "python.inv": write("python.inv", "Python", "3", python_entries()),
        "numpy.inv": write("numpy.inv", "NumPy", numpy.__version__, numpy_entries()),
        "sklearn.inv": write("sklearn.inv", "scikit-learn", sklearn.__version__,
                             sklearn_entries()),
        "scipy.inv": write("scipy.inv", "SciPy", "stable",
                           [Entry(n, "function", p, n) for n, p in _SCIPY.items()]),
        "statsmodels.inv": write("statsmodels.inv", "statsmodels", "stable",
                                 [Entry(n, "function", p, n) for n, p in _STATSMODELS.items()]),
    }
    for name, n in counts.items():
        print(f"{HERE / name}: {n} names, {(HERE / name).stat().st_size} bytes")


if __name__ == "__main__":
    main()
