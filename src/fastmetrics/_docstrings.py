"""Docstrings of the generated faces: accumulator methods and :mod:`fastmetrics.dask` functions.

A generated face takes its signature from a one-shot function (see :mod:`fastmetrics._table`),
so its docstring is built from that function's too: the numpydoc sections are read from the
one-shot docstring, the parameters the face takes are kept (data described as the face reads
it), and the face's own parts (what it raises, See Also, an example over chunks) are added
from the templates below. Editing a one-shot docstring therefore updates every face of it.

Only the standard library is used here: numpydoc is a documentation tool, not a dependency.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._table import Metric

__all__ = ["Sections", "accumulator_method_doc", "dask_function_doc", "dask_interval_doc",
           "render"]

_HEADER = re.compile(r"^-{3,}\s*$")
_INDENT = "    "


class Sections:
    """A numpydoc docstring split into its preamble and its titled sections.

    Parameters
    ----------
    doc : str or None
        The docstring (None, as under ``python -OO``, gives no sections).
    """

    def __init__(self, doc: str | None):
        self.preamble: list[str] = []
        self.titles: dict[str, list[str]] = {}
        lines = inspect.cleandoc(doc or "").splitlines()
        current = self.preamble
        i = 0
        while i < len(lines):
            line = lines[i]
            if (i + 1 < len(lines) and line.strip() and not line.startswith(" ")
                    and _HEADER.match(lines[i + 1])):
                current = self.titles.setdefault(line.strip(), [])
                i += 2
                continue
            current.append(line)
            i += 1

    def section(self, title: str) -> list[str]:
        """The lines of one section (trailing blank lines dropped), [] when absent."""
        lines = list(self.titles.get(title, []))
        while lines and not lines[-1].strip():
            lines.pop()
        return lines

    def entries(self, title: str) -> list[tuple[str, list[str]]]:
        """The entries of a list section (Parameters, Returns, Raises...): the unindented
        head line (``name : type``) and the indented description lines under it."""
        out: list[tuple[str, list[str]]] = []
        for line in self.section(title):
            if line.strip() and not line.startswith(" "):
                out.append((line.rstrip(), []))
            elif out:
                out[-1][1].append(line.rstrip())
        return [(head, _trim(desc)) for head, desc in out]

    def parameter(self, name: str) -> tuple[str, list[str]] | None:
        """The entry describing parameter ``name`` as ``(type, description)``; an entry
        naming several parameters (``y_true, y_pred : ...``) serves each of them."""
        for head, desc in self.entries("Parameters"):
            names, _, kind = head.partition(" : ")
            if name in [n.strip() for n in names.split(",")]:
                return kind.strip(), desc
        return None

    def summary(self) -> str:
        """The first paragraph of the preamble, on one line."""
        words: list[str] = []
        for line in self.preamble:
            if not line.strip():
                if words:
                    break
                continue
            words.append(line.strip())
        return " ".join(words)


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return [line[len(_INDENT):] if line.startswith(_INDENT) else line.strip() for line in lines]


def render(summary: str, extended: str = "",
           sections: tuple[tuple[str, list[str]], ...] = ()) -> str:
    """A numpydoc docstring from its parts.

    Parameters
    ----------
    summary : str
        The one-line summary.
    extended : str, default=""
        The extended summary (paragraphs separated by blank lines), or "".
    sections : tuple of (str, list of str)
        ``(title, lines)`` in numpydoc's order; a section with no lines is left out.

    Returns
    -------
    str
        The docstring, indented as a function body's (four spaces after the first line).
    """
    parts = [summary]
    if extended:
        parts += ["", *_wrap(extended.splitlines())]
    for title, lines in sections:
        if lines:
            parts += ["", title, "-" * len(title),
                      *(lines if title == "Examples" else _wrap(lines))]
    body = [parts[0]] + [(_INDENT + p) if p.strip() else "" for p in parts[1:]]
    return "\n".join(body) + "\n" + _INDENT


def _wrap(lines: list[str], width: int = 96) -> list[str]:
    """Long prose lines broken at ``width`` (entry heads, which cannot break, are kept)."""
    out: list[str] = []
    for line in lines:
        body = line.lstrip()
        indent = line[:len(line) - len(body)]
        if len(line) <= width or not indent and " : " in line:
            out.append(line)
        else:
            out += textwrap.wrap(body, width, initial_indent=indent, subsequent_indent=indent,
                                 break_long_words=False, break_on_hyphens=False)
    return out


def _entry(head: str, desc: list[str]) -> list[str]:
    return [head] + [(_INDENT + d) if d.strip() else "" for d in desc]


def _default_type(p: inspect.Parameter) -> str:
    d = p.default
    if p.name == "n_threads":
        return "int or None, default=None"
    if d is inspect.Parameter.empty:
        return "object"
    kind = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(d), "object")
    shown = f'"{d}"' if isinstance(d, str) else repr(d)
    return f"{kind}, default={shown}"


def _parameter(doc: Sections, p: inspect.Parameter, where: str,
               kind: Callable[[str], str] = str, more: str = "") -> list[str]:
    """The entry of parameter ``p`` from ``doc``; a parameter the docstring does not
    describe is pointed to the function that does (``where``)."""
    found = doc.parameter(p.name)
    kind_given, desc = found if found is not None else ("", [])
    if p.kind is inspect.Parameter.VAR_KEYWORD:
        head = "**" + p.name
    else:
        head = f"{p.name} : {kind(kind_given or _default_type(p))}"
    desc = (desc or [f"As in :func:`{where}`."]) + ([more] if more else [])
    return _entry(head, desc)


def _sklearn_see_also(doc: Sections) -> list[str]:
    """The scikit-learn entries of a See Also section (kept with their descriptions)."""
    out: list[str] = []
    keep = False
    for line in doc.section("See Also"):
        if line.strip() and not line.startswith(" "):
            keep = line.startswith("sklearn.")
        if keep:
            out.append(line.rstrip())
    return out


def _returns(doc: Sections, where: str, also: str = "") -> list[str]:
    entries = doc.entries("Returns")
    if not entries:
        entries = [("result : object", [f"What :func:`{where}` returns."])]
    out: list[str] = []
    for i, (head, desc) in enumerate(entries):
        if also and i == len(entries) - 1:
            desc = desc + [also]
        out += _entry(head, desc)
    return out


# --------------------------------------------------------------------------- example data

#: family -> (accumulator, its example settings, (first, second) inputs): every row of a
#: family is shown on the same rows, in two chunks (streaming) or chunks of 3 (dask)
FAMILIES: dict[str, tuple[str, str, tuple[list[Any], list[Any]]]] = {
    "confusion": ("ConfusionAccumulator", "",
                  ([0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 0])),
    "regression": ("RegressionAccumulator", "",
                   ([3.0, -0.5, 2.0, 7.0, 4.5, 1.0], [2.5, 0.0, 2.0, 8.0, 4.0, 1.5])),
    "pinball": ("PinballAccumulator", "",
                ([3.0, -0.5, 2.0, 7.0, 4.5, 1.0], [2.5, 0.0, 2.0, 8.0, 4.0, 1.5])),
    "calibration": ("CalibrationAccumulator", "n_bins=5",
                    ([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])),
    "ranking": ("RankingAccumulator", "",
                ([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])),
    "label_ranking": ("LabelRankingAccumulator", "",
                      ([[1, 0, 0], [0, 0, 1], [1, 1, 0], [0, 1, 0]],
                       [[0.75, 0.5, 1.0], [1.0, 0.2, 0.1], [0.6, 0.3, 0.2], [0.1, 0.9, 0.4]])),
    "contingency": ("ContingencyAccumulator", "",
                    ([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2])),
    "proba": ("ProbabilityAccumulator", "labels=[0, 1, 2]",
              ([0, 1, 2, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8],
                              [0.3, 0.3, 0.4]])),
    "hinge": ("HingeAccumulator", "", ([1, 1, 0, 0], [0.5, 2.0, -0.25, 0.3])),
    "tweedie": ("TweedieAccumulator", "", ([2.0, 0.5, 1.0, 4.0], [0.5, 0.5, 2.0, 2.0])),
    "squared_log": ("SquaredLogAccumulator", "", ([3, 5, 2.5, 7], [2.5, 5, 4, 8])),
}

#: row -> (accumulator settings, keyword arguments, how the value is shown, the value).
#: The settings replace the family's; ``{}`` in the shown form is the call. The values are
#: the one-shot function's on the family's rows (the doctests check both faces give them).
EXAMPLES: dict[str, tuple[str | None, str, str, str]] = {
    "confusion_matrix": (None, "", "{}.tolist()", "[[2, 1], [2, 3]]"),
    "multilabel_confusion_matrix": (None, "", "{}.tolist()",
                                    "[[[3, 2], [1, 2]], [[2, 1], [2, 3]]]"),
    "accuracy_score": (None, "", "{}", "0.625"),
    "precision_recall_fscore_support": (None, "", "[v.round(6).tolist() for v in {}]",
        "[[0.5, 0.75], [0.666667, 0.6], [0.571429, 0.666667], [3, 5]]"),
    "fbeta_score": (None, "beta=0.5", "round({}, 6)", "0.714286"),
    "f1_score": (None, "", "round({}, 6)", "0.666667"),
    "precision_score": (None, "", "{}", "0.75"),
    "recall_score": (None, "", "{}", "0.6"),
    "matthews_corrcoef": (None, "", "round({}, 6)", "0.258199"),
    "balanced_accuracy_score": (None, "", "round({}, 6)", "0.633333"),
    "cohen_kappa_score": (None, "", "round({}, 6)", "0.25"),
    "classification_report": (None, "output_dict=True", '{}["accuracy"]', "0.625"),
    "zero_one_loss": (None, "", "{}", "0.375"),
    "hamming_loss": (None, "", "{}", "0.375"),
    "jaccard_score": (None, "", "{}", "0.5"),
    "class_likelihood_ratios": (None, "", "{}", "(1.8, 0.6)"),
    "specificity_score": (None, "", "round({}, 6)", "0.666667"),
    "false_positive_rate": (None, "", "round({}, 6)", "0.333333"),
    "false_negative_rate": (None, "", "{}", "0.4"),
    "oos_precision_recall": (None, "oos_label=0", "{}", "(0.5, 0.6666666666666666)"),
    "score": (None, "", "{}.accuracy", "0.625"),
    "mean_absolute_error": (None, "", "{}", "0.5"),
    "mean_squared_error": (None, "", "round({}, 6)", "0.333333"),
    "root_mean_squared_error": (None, "", "round({}, 6)", "0.57735"),
    "mean_absolute_percentage_error": (None, "", "round({}, 6)", "0.320106"),
    "explained_variance_score": (None, "", "round({}, 6)", "0.948113"),
    "max_error": (None, "", "{}", "1.0"),
    "huber_loss": (None, "", "round({}, 6)", "0.166667"),
    "r2_score": (None, "", "round({}, 6)", "0.943396"),
    "adjusted_r2_score": (None, "n_features=1", "round({}, 6)", "0.929245"),
    "regression_summary": (None, "", "round({}.r2, 6)", "0.943396"),
    "median_absolute_error": ("keep_values=True", "", "{}", "0.5"),
    "mean_pinball_loss": (None, "alpha=0.1", "round({}, 6)", "0.316667"),
    "calibration_summary": (None, "", "{}.ece", "0.14166666666666666"),
    "calibration_bins": (None, "", "{}.counts.tolist()", "[2, 2, 0, 1, 1]"),
    "expected_calibration_error": (None, "", "round({}, 6)", "0.141667"),
    "max_calibration_error": (None, "", "round({}, 6)", "0.2"),
    "calibration_curve": (None, "", "[v.tolist() for v in {}]",
                           "[[0.0, 0.5, 1.0, 1.0], [0.15000000000000002, 0.375, 0.8, 0.9]]"),
    "brier_score_loss": (None, "", "round({}, 6)", "0.11375"),
    "d2_brier_score": (None, "", "round({}, 6)", "0.545"),
    "roc_auc_score": (None, "", "round({}, 6)", "0.888889"),
    "average_precision_score": (None, "", "round({}, 6)", "0.916667"),
    "roc_curve": (None, "", "{}[1].tolist()", "[0.0, 0.3333333333333333, 0.6666666666666666, "
                                             "0.6666666666666666, 1.0, 1.0]"),
    "precision_recall_curve": (None, "", "{}[0].tolist()",
                                "[0.5, 0.6, 0.75, 0.6666666666666666, 1.0, 1.0, 1.0]"),
    "det_curve": (None, "", "{}[1].tolist()", "[0.0, 0.3333333333333333, 0.3333333333333333]"),
    "confusion_matrix_at_thresholds": (None, "", "{}[1].tolist()",
                                        "[0.0, 0.0, 1.0, 1.0, 2.0, 3.0]"),
    "delong_ci": (None, "", "round({}.auc, 6)", "0.888889"),
    "coverage_error": (None, "", "{}", "2.0"),
    "label_ranking_average_precision_score": (None, "", "round({}, 6)", "0.708333"),
    "label_ranking_loss": (None, "", "round({}, 6)", "0.375"),
    "contingency_matrix": (None, "", "{}.tolist()", "[[2, 0, 0], [0, 1, 1], [0, 0, 2]]"),
    "pair_confusion_matrix": (None, "", "{}.tolist()", "[[20, 4], [2, 4]]"),
    "rand_score": (None, "", "round({}, 6)", "0.8"),
    "adjusted_rand_score": (None, "", "round({}, 6)", "0.444444"),
    "mutual_info_score": (None, "", "round({}, 6)", "0.780355"),
    "adjusted_mutual_info_score": (None, "", "round({}, 6)", "0.502361"),
    "normalized_mutual_info_score": (None, "", "round({}, 6)", "0.739667"),
    "homogeneity_completeness_v_measure": (None, "", "tuple(round(v, 6) for v in {})",
                                            "(0.71031, 0.771556, 0.739667)"),
    "homogeneity_score": (None, "", "round({}, 6)", "0.71031"),
    "completeness_score": (None, "", "round({}, 6)", "0.771556"),
    "v_measure_score": (None, "", "round({}, 6)", "0.739667"),
    "fowlkes_mallows_score": (None, "", "round({}, 6)", "0.57735"),
    "log_loss": (None, "", "round({}, 6)", "0.429813"),
    "d2_log_loss_score": (None, "", "round({}, 6)", "0.586607"),
    "top_k_accuracy_score": ("labels=[0, 1, 2], k=2", "", "{}", "1.0"),
    "hinge_loss": (None, "", "round({}, 6)", "0.6375"),
    "mean_tweedie_deviance": (None, "", "round({}, 6)", "1.8125"),
    "mean_poisson_deviance": ("power=1", "", "round({}, 6)", "1.176015"),
    "mean_gamma_deviance": ("power=2", "", "round({}, 6)", "1.056853"),
    "d2_tweedie_score": (None, "", "round({}, 6)", "-0.008696"),
    "mean_squared_log_error": (None, "", "round({}, 6)", "0.03973"),
    "root_mean_squared_log_error": (None, "", "round({}, 6)", "0.199324"),
}


#: family -> what its generated faces add to the one-shot function's description
NOTES = {
    "ranking": "The state is binary (two classes over all the chunks): the one-shot "
               "function's multiclass and multilabel options do not apply.",
}


def _example_parts(
        row: Metric) -> tuple[str, str, str, str, str, tuple[list[Any], list[Any]]] | None:
    """``(accumulator, settings, kwargs, shown, value, data)`` of a row's example."""
    if row.family not in FAMILIES or row.name not in EXAMPLES:
        return None
    cls, settings, data = FAMILIES[row.family]
    own, kwargs, shown, value = EXAMPLES[row.name]
    return cls, settings if own is None else own, kwargs, shown, value, data


def _accumulator_example(row: Metric) -> list[str]:
    parts = _example_parts(row)
    if parts is None:
        return []
    cls, settings, kwargs, shown, value, data = parts
    first, second = data
    half = len(first) // 2
    call = shown.format(f"acc.{row.name}({kwargs})")
    return [f">>> from fastmetrics.streaming import {cls}",
            f">>> acc = {cls}({settings})",
            f">>> acc = acc.update({first[:half]!r}, {second[:half]!r})",
            f">>> acc = acc.update({first[half:]!r}, {second[half:]!r})",
            f">>> {call}",
            value]


def _dask_example(row: Metric) -> list[str]:
    parts = _example_parts(row)
    if parts is None:
        return []
    _, settings, kwargs, shown, value, data = parts
    params = list(row.signature.parameters)
    first, second = params[:2]
    # the accumulator's settings are the function's arguments where it takes them
    given = [kw for kw in (settings, kwargs) if kw]
    args = ", ".join([first, second] + [kw for kw in given if kw.split("=")[0] in params])
    chunks = "(3, -1)" if isinstance(data[0][0], list) else "3"
    chunks2 = "(3, -1)" if isinstance(data[1][0], list) else "3"
    return [">>> import numpy as np",
            ">>> import dask",
            ">>> import dask.array as da",
            ">>> import fastmetrics.dask as fmd",
            f">>> {first} = da.from_array(np.array({data[0]!r}), chunks={chunks})",
            f">>> {second} = da.from_array(np.array({data[1]!r}), chunks={chunks2})",
            '>>> with dask.config.set(scheduler="synchronous"):',
            f"...     result = fmd.{row.name}({args})",
            f">>> {shown.format('result')}",
            value]


# --------------------------------------------------------------------------- accumulator methods


def accumulator_method_doc(row: Metric) -> str:
    """The docstring of the accumulator method of one table row.

    Parameters
    ----------
    row : fastmetrics._table.Metric
        The row: its one-shot function's docstring gives the parameters' descriptions,
        the Returns and Warns sections.

    Returns
    -------
    str
        A numpydoc docstring.
    """
    one = Sections(row.function.__doc__)
    where = f"fastmetrics.{row.name}"
    held = [p for p in row.config if p in row.signature.parameters]
    extended = (
        f"The value :func:`{where}` gives on the concatenated chunks, from the accumulated "
        "state (exactly for counts, to about 1e-12 relative for float sums). The keyword "
        "arguments are the one-shot function's, less the data"
        + (" and " + ", ".join(f"``{p}``" for p in held) + ", which the accumulator holds"
           if held else "")
        + ".")
    if row.family in NOTES:
        extended += " " + NOTES[row.family]
    if row.fixed:
        extended += " The accumulator must be built with " + ", ".join(
            f"``{k}={v!r}``" for k, v in row.fixed) + "."
    params: list[str] = []
    for p in row.metric_parameters():
        params += _parameter(one, p, where)
    raises = _entry("ValueError", [
        "If no sample has been seen yet, or for arguments :func:`"
        f"{where}` refuses" + (" (or an accumulator of another "
                               + ", ".join(k for k, _ in row.fixed) + ")"
                               if row.fixed else "") + "."])
    see = [f"{where} : The same metric in one pass over arrays."]
    if row.dask:
        see.append(f"fastmetrics.dask.{row.name} : The same metric over dask arrays.")
    see += _sklearn_see_also(one)
    return render(
        f"As :func:`{where}` on every sample seen.", extended,
        (("Parameters", params), ("Returns", _returns(one, where)), ("Raises", raises),
         ("Warns", one.section("Warns")), ("See Also", see),
         ("Examples", _accumulator_example(row))))


# --------------------------------------------------------------------------- dask functions

_DATA_KIND = "dask array, dask dataframe column or "
_COMPUTE = _entry("compute : bool, default=True",
                  ["Compute the result now (with the active scheduler). False: return a "
                   ":class:`dask.delayed.Delayed` of it."])
_SPLIT_EVERY = _entry("split_every : int, default=None",
                      ["How many states each merge task combines (an integer >= 2); None "
                       "means 8."])
_GROUPS = _entry("groups : dask array, dask dataframe column or array-like, default=None",
                 ["The group (slice) of each sample: the result is then a dict, group key -> "
                  "the metric on that group's samples (keys in the order first seen), from "
                  "one grouped state per chunk (:class:`fastmetrics.streaming."
                  "GroupedAccumulator`)."])


def _dask_raises(value_error: str) -> list[str]:
    return (_entry("ValueError", [value_error])
            + _entry("TypeError", ["If an input is a dask collection other than an array or "
                                   "a dataframe column."])
            + _entry("ImportError", ["If dask is not installed (the ``dask`` extra)."]))


_SAMPLES = ("If the inputs have different numbers of samples (or a pair of dataframe "
            "partitions differs in length), if ``split_every`` is not an integer >= 2")
_DELAYED = "With ``compute=False``, a :class:`dask.delayed.Delayed` of the result instead."


def _dask_parameters(one: Sections, sig: inspect.Signature, where: str,
                     data: frozenset[str], own: dict[str, list[str]] | None = None,
                     grouped: bool = True) -> list[str]:
    """The entries of a Dask function's parameters: the one-shot function's, with the
    data described as dask inputs, then ``compute`` and ``split_every``; ``own`` gives
    ``name -> entry lines`` of parameters described otherwise here."""
    own = dict(own or {})
    own.setdefault("compute", _COMPUTE)
    own.setdefault("split_every", _SPLIT_EVERY)
    if grouped:  # the metric functions take groups= (the resampling ones do not)
        own.setdefault("groups", _GROUPS)
    params: list[str] = []
    for p in sig.parameters.values():
        if p.name in own:
            params += own.pop(p.name)
        elif p.name in data:
            params += _parameter(one, p, where, kind=lambda t: _DATA_KIND + t)
        elif p.name == "n_threads":
            params += _parameter(one, p, where, more=(
                "Here: threads of the kernel pass on each chunk (``distributed`` workers "
                "run with ``OMP_NUM_THREADS=1`` by default)."))
        else:
            params += _parameter(one, p, where)
    for name in ("compute", "split_every", "groups"):  # not in the signature: added last
        params += own.pop(name, [])
    return params


def dask_function_doc(row: Metric, accumulator: str) -> str:
    """The docstring of the :mod:`fastmetrics.dask` function of one table row.

    Parameters
    ----------
    row : fastmetrics._table.Metric
        The row; its one-shot function's docstring gives the parameters' descriptions,
        the Returns and Warns sections.
    accumulator : str
        The name of the accumulator class the chunks are counted into.

    Returns
    -------
    str
        A numpydoc docstring.
    """
    one = Sections(row.function.__doc__)
    where = f"fastmetrics.{row.name}"
    # the chunked inputs, as fastmetrics.dask routes them: the first two and the weights
    # (and y_pred where it is the deprecated spelling of the second, y_proba)
    first_two = list(row.signature.parameters)[:2]
    data = frozenset([*first_two, "sample_weight"]
                     + (["y_pred"] if first_two[1] == "y_proba" else []))
    extended = (
        f"The same arguments as :func:`{where}` (numpy arrays, dask arrays or dask "
        "dataframe columns) plus ``compute`` and ``split_every``, and the same value "
        "(exactly for counts, to about 1e-12 relative for float sums). Each chunk is "
        f"counted where it lives into a :class:`~fastmetrics.streaming.{accumulator}`; "
        "only these small states travel, merged in a tree, and the metric is taken from "
        "the merged state. Inputs of other chunkings are rechunked to the first's.")
    if row.family in NOTES:
        extended += " " + NOTES[row.family]
    if row.family in ("proba", "hinge") and "labels" in row.signature.parameters:
        extended += (" Without ``labels``, the classes of ``y_true`` are found first, in one "
                     "more pass over it.")
    params = _dask_parameters(one, row.signature, where, data)
    raises = _dask_raises(f"{_SAMPLES}, or for arguments :func:`{where}` refuses.")
    see = [f"{where} : The same metric in one pass over arrays.",
           f"fastmetrics.streaming.{accumulator}.{row.name} : The same metric over chunks "
           "added one by one.",
           "fastmetrics.dask.accumulate : One graph run for several metrics of the same "
           "inputs."]
    return render(
        f":func:`{where}` of dask inputs.", extended,
        (("Parameters", params), ("Returns", _returns(one, where, _DELAYED)),
         ("Raises", raises), ("Warns", one.section("Warns")), ("See Also", see),
         ("Examples", _dask_example(row))))


def dask_interval_doc(local: Callable[..., Any], sig: inspect.Signature, what: str,
                      example: list[str]) -> str:
    """The docstring of :func:`fastmetrics.dask.bootstrap` or ``compare``.

    Parameters
    ----------
    local : callable
        :func:`fastmetrics.bootstrap` or :func:`fastmetrics.compare`.
    sig : inspect.Signature
        The Dask function's signature.
    what : str
        Which metrics it serves, for the extended summary.
    example : list of str
        The doctest lines of its example.

    Returns
    -------
    str
        A numpydoc docstring.
    """
    one = Sections(local.__doc__)
    where = f"fastmetrics.{local.__name__}"
    data = frozenset(p for p in ("y_true", "y_pred", "y_pred_a", "y_pred_b")
                     if p in sig.parameters)
    extended = (
        f"For {what} metrics on unweighted data: the chunks' states are merged in one "
        "graph run and the resamples are drawn from the merged state's cells on the client "
        "(O(cells) each; the data is read once). ``sample_weight`` must be None: weighted "
        "resamples need the rows.")
    raises = _dask_raises(f"{_SAMPLES}, if ``sample_weight`` is given, or if ``metric`` "
                          "is not one of these metrics.")
    see = [f"{where} : The same interval in one pass over arrays.",
           "fastmetrics.dask.accumulate : The merged accumulator of dask inputs."]
    return render(
        f"As :func:`{where}` over dask inputs.", extended,
        (("Parameters", _dask_parameters(one, sig, where, data, {"sample_weight": _entry(
            "sample_weight : None, default=None",
            ["Must be None (``ValueError`` otherwise): weighted resamples need the rows."])},
            grouped=False)),
         ("Returns", _returns(one, where, _DELAYED)), ("Raises", raises),
         ("See Also", see), ("Examples", example)))
