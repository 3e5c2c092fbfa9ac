"""Plots of fastmetrics' curves and confusion matrices, drawn by scikit-learn's displays.

Each function computes its numbers with fastmetrics (:func:`~fastmetrics.roc_curve`,
:func:`~fastmetrics.precision_recall_curve`, :func:`~fastmetrics.average_precision_score`,
:func:`~fastmetrics.det_curve`, :func:`~fastmetrics.confusion_matrix`), then hands them to
the matching ``sklearn.metrics.*Display`` class, which draws them as its ``from_predictions``
would: the display returned is scikit-learn's own object, with the same arrays, axes and
figure attributes. matplotlib and scikit-learn are imported only when a plot is made (the
``plot`` extra: ``pip install fastmetrics-kernels[plot]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._states import confusion
from ._states import ranking as ranking_state
from ._states.confusion import ConfusionState
from ._states.multilabel import is_multilabel_pair
from .ranking import auc, det_curve, roc_curve

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal
    from ._typing import ArrayLike, Label, Normalize

__all__ = [
    "plot_confusion_matrix",
    "plot_det_curve",
    "plot_precision_recall_curve",
    "plot_roc_curve",
]

PLOT_EXTRA = "`pip install fastmetrics-kernels[plot]` (matplotlib and scikit-learn)"


def _displays(what: str) -> Any:
    """``sklearn.metrics`` with matplotlib checked, or an ImportError naming the extra."""
    missing = []
    for module in ("matplotlib", "sklearn"):
        try:
            __import__(module)
        except ImportError:
            missing.append("scikit-learn" if module == "sklearn" else module)
    if missing:
        raise ImportError(f"{what} needs {' and '.join(missing)}, which is not installed: "
                          f"{PLOT_EXTRA}")
    import sklearn.metrics

    return sklearn.metrics


def _binary_target(y_true: ArrayLike, pos_label: Label | None) -> tuple[Any, Any]:
    """The labels of a curve's ``y_true`` and its positive label, by scikit-learn's rules:
    a target with more than two classes is refused even with ``pos_label``, as the
    displays refuse it."""
    labels = ranking_state.Labels(y_true)
    if labels.more:
        raise ValueError("The target y is not binary. Got multiclass type of target.")
    return labels, ranking_state.curve_pos_label(labels.classes, pos_label)


def plot_roc_curve(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Label | None = None,
                   sample_weight: ArrayLike | None = None, drop_intermediate: bool = True,
                   name: str | None = None, ax: Any = None,
                   curve_kwargs: Mapping[str, Any] | None = None, plot_chance_level: bool = False,
                   chance_level_kw: Mapping[str, Any] | None = None, despine: bool = False,
                   n_threads: int | None = None) -> Any:
    """Plot a ROC curve computed by fastmetrics in scikit-learn's RocCurveDisplay.

    The curve comes from :func:`~fastmetrics.roc_curve` and its area from
    :func:`~fastmetrics.auc` over that curve, as ``RocCurveDisplay.from_predictions``
    computes them; the display is then built from these arrays and plotted.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. Labels other than {0, 1} or {-1, 1} need ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values); finite.
    pos_label : int, float, bool or str, default=None
        The positive class. None means 1, allowed only when ``y_true`` takes values in
        {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the samples. None gives every sample weight 1.
    drop_intermediate : bool, default=True
        Leave out the thresholds whose point lies on the line between its neighbours: the
        drawn curve is the same with fewer points.
    name : str, default=None
        The curve's name in the legend. None means ``"Classifier"``.
    ax : matplotlib Axes, default=None
        The axes to draw on. None makes a new figure and axes.
    curve_kwargs : dict, default=None
        Keyword arguments for matplotlib's ``plot`` of the curve.
    plot_chance_level : bool, default=False
        Whether to draw the diagonal of a random classifier.
    chance_level_kw : dict, default=None
        Keyword arguments for matplotlib's ``plot`` of the chance level.
    despine : bool, default=False
        Whether to remove the top and right spines.
    n_threads : int or None, default=None
        Threads of the sort on large inputs. None uses what OpenMP allows (honouring
        ``OMP_NUM_THREADS``); the result is the same for any value.

    Returns
    -------
    display : sklearn.metrics.RocCurveDisplay
        scikit-learn's display holding ``fpr``, ``tpr``, ``roc_auc``, ``name`` and
        ``pos_label``, with ``ax_``, ``figure_``, ``line_`` set by its ``plot``.

    Raises
    ------
    ImportError
        If matplotlib or scikit-learn is not installed.
    ValueError
        If ``y_true`` has more than two classes, if ``pos_label`` is None and the labels are
        not {0, 1} or {-1, 1}, if the lengths differ, or if a score is not finite.

    Warns
    -----
    UndefinedMetricWarning
        If ``y_true`` has no positive sample or no negative sample (a rate is then 0/0).

    See Also
    --------
    sklearn.metrics.RocCurveDisplay.from_predictions : scikit-learn's one-call plot.
    fastmetrics.roc_curve : The curve's points.
    fastmetrics.roc_auc_score : The area under the curve.
    plot_precision_recall_curve : The precision-recall curve of the same scores.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import fastmetrics as fm
    >>> disp = fm.plot_roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], name="model")
    >>> round(disp.roc_auc, 2)
    0.75
    """
    metrics = _displays("plot_roc_curve")
    _, pos = _binary_target(y_true, pos_label)
    fpr, tpr, _ = roc_curve(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight,
                            drop_intermediate=drop_intermediate, n_threads=n_threads)
    name = "Classifier" if name is None else name
    disp = metrics.RocCurveDisplay(fpr=fpr, tpr=tpr, roc_auc=auc(fpr, tpr), name=name,
                                   pos_label=pos)
    return disp.plot(ax=ax, curve_kwargs=curve_kwargs, plot_chance_level=plot_chance_level,
                     chance_level_kw=chance_level_kw, despine=despine)


def plot_precision_recall_curve(y_true: ArrayLike, y_score: ArrayLike, *,
                                pos_label: Label | None = None,
                                sample_weight: ArrayLike | None = None,
                                drop_intermediate: bool = False, name: str | None = None,
                                ax: Any = None, curve_kwargs: Mapping[str, Any] | None = None,
                                plot_chance_level: bool = False,
                                chance_level_kw: Mapping[str, Any] | None = None,
                                despine: bool = False, n_threads: int | None = None) -> Any:
    """Plot a precision-recall curve computed by fastmetrics in a PrecisionRecallDisplay.

    The curve comes from :func:`~fastmetrics.precision_recall_curve`, the average
    precision from :func:`~fastmetrics.average_precision_score` and the chance level from
    the share of positive samples (unweighted, as scikit-learn counts it).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. Labels other than {0, 1} or {-1, 1} need ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values); finite.
    pos_label : int, float, bool or str, default=None
        The positive class. None means 1, allowed only when ``y_true`` takes values in
        {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the samples. None gives every sample weight 1.
    drop_intermediate : bool, default=False
        Leave out the thresholds that do not change the drawn curve.
    name : str, default=None
        The curve's name in the legend. None means ``"Classifier"``.
    ax : matplotlib Axes, default=None
        The axes to draw on. None makes a new figure and axes.
    curve_kwargs : dict, default=None
        Keyword arguments for matplotlib's ``plot`` of the curve.
    plot_chance_level : bool, default=False
        Whether to draw the horizontal line at the share of positive samples.
    chance_level_kw : dict, default=None
        Keyword arguments for matplotlib's ``plot`` of the chance level.
    despine : bool, default=False
        Whether to remove the top and right spines.
    n_threads : int or None, default=None
        Threads of the sort on large inputs. None uses what OpenMP allows (honouring
        ``OMP_NUM_THREADS``); the result is the same for any value.

    Returns
    -------
    display : sklearn.metrics.PrecisionRecallDisplay
        scikit-learn's display holding ``precision``, ``recall``, ``average_precision``,
        ``prevalence_pos_label``, ``name`` and ``pos_label``, with ``ax_``, ``figure_``
        and ``line_`` set by its ``plot``.

    Raises
    ------
    ImportError
        If matplotlib or scikit-learn is not installed.
    ValueError
        If ``y_true`` has more than two classes, if ``pos_label`` is None and the labels are
        not {0, 1} or {-1, 1}, if the lengths differ, or if a score is not finite.

    Warns
    -----
    UserWarning
        If ``y_true`` has no positive sample (recall is then set to 1), as scikit-learn
        warns.

    See Also
    --------
    sklearn.metrics.PrecisionRecallDisplay.from_predictions : scikit-learn's one-call plot.
    fastmetrics.precision_recall_curve : The curve's points.
    fastmetrics.average_precision_score : The summary number shown in the legend.
    plot_roc_curve : The ROC curve of the same scores.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import fastmetrics as fm
    >>> disp = fm.plot_precision_recall_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> round(disp.average_precision, 4)
    0.8333
    """
    metrics = _displays("plot_precision_recall_curve")
    labels, pos = _binary_target(y_true, pos_label)
    # one sorted state for the curve and its AP, where the two faces would sort the scores
    # twice: their validation (binary_inputs; more than two classes refused above), the same
    # numbers bit for bit
    _, s, w, has_w = ranking_state.binary_inputs(y_true, y_score, sample_weight)
    state = ranking_state.RankingState.from_labels(labels, s, w, has_w, n_threads)
    precision, recall, _ = ranking_state.precision_recall(state, pos, drop_intermediate)
    ap = ranking_state.average_precision(state, pos_label=pos)
    mask = labels.where(pos)
    prevalence = np.count_nonzero(mask) / mask.shape[0]
    name = "Classifier" if name is None else name
    disp = metrics.PrecisionRecallDisplay(precision, recall, average_precision=ap, name=name,
                                          pos_label=pos, prevalence_pos_label=prevalence)
    return disp.plot(ax=ax, name=name, curve_kwargs=curve_kwargs,
                     plot_chance_level=plot_chance_level, chance_level_kw=chance_level_kw,
                     despine=despine)


def plot_det_curve(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Label | None = None,
                   sample_weight: ArrayLike | None = None, drop_intermediate: bool = True,
                   name: str | None = None, ax: Any = None, n_threads: int | None = None,
                   **kwargs: Any) -> Any:
    """Plot a detection error tradeoff curve computed by fastmetrics in a DetCurveDisplay.

    The curve comes from :func:`~fastmetrics.det_curve`; the display draws both error
    rates on normal-deviate scales.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True binary labels. Labels other than {0, 1} or {-1, 1} need ``pos_label``.
    y_score : array-like of shape (n_samples,)
        Scores of the positive class (probabilities or decision values); finite.
    pos_label : int, float, bool or str, default=None
        The positive class. None means 1, allowed only when ``y_true`` takes values in
        {0, 1} or {-1, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the samples. None gives every sample weight 1.
    drop_intermediate : bool, default=True
        Leave out the thresholds that do not change the drawn curve (the default of
        ``DetCurveDisplay.from_predictions``, unlike :func:`~fastmetrics.det_curve`'s).
    name : str, default=None
        The curve's name in the legend. None means ``"Classifier"``.
    ax : matplotlib Axes, default=None
        The axes to draw on. None makes a new figure and axes.
    n_threads : int or None, default=None
        Threads of the sort on large inputs. None uses what OpenMP allows (honouring
        ``OMP_NUM_THREADS``); the result is the same for any value.
    **kwargs : dict
        Keyword arguments for matplotlib's ``plot`` of the curve.

    Returns
    -------
    display : sklearn.metrics.DetCurveDisplay
        scikit-learn's display holding ``fpr``, ``fnr``, ``estimator_name`` and
        ``pos_label``, with ``ax_``, ``figure_`` and ``line_`` set by its ``plot``.

    Raises
    ------
    ImportError
        If matplotlib or scikit-learn is not installed.
    ValueError
        If ``y_true`` has more than two classes, if ``pos_label`` is None and the labels are
        not {0, 1} or {-1, 1}, if the lengths differ, if a score is not finite, or if
        ``y_true`` holds one class only (the curve is then not defined).

    See Also
    --------
    sklearn.metrics.DetCurveDisplay.from_predictions : scikit-learn's one-call plot.
    fastmetrics.det_curve : The curve's points.
    plot_roc_curve : The ROC curve of the same scores.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import fastmetrics as fm
    >>> disp = fm.plot_det_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> disp.fnr.round(3).tolist()  # the display clips the rates to [eps, 1 - eps]
    [0.0, 0.5, 0.5]
    """
    metrics = _displays("plot_det_curve")
    _, pos = _binary_target(y_true, pos_label)
    fpr, fnr, _ = det_curve(y_true, y_score, pos_label=pos_label, sample_weight=sample_weight,
                            drop_intermediate=drop_intermediate, n_threads=n_threads)
    name = "Classifier" if name is None else name
    disp = metrics.DetCurveDisplay(fpr=fpr, fnr=fnr, estimator_name=name, pos_label=pos)
    return disp.plot(ax=ax, name=name, **kwargs)


def plot_confusion_matrix(y_true: ArrayLike, y_pred: ArrayLike, *, labels: ArrayLike | None = None,
                          sample_weight: ArrayLike | None = None,
                          normalize: Normalize | None = None,
                          display_labels: ArrayLike | None = None, include_values: bool = True,
                          xticks_rotation: Literal["vertical", "horizontal"] | float = "horizontal",
                          values_format: str | None = None, cmap: Any = "viridis", ax: Any = None,
                          colorbar: bool = True, im_kw: Mapping[str, Any] | None = None,
                          text_kw: Mapping[str, Any] | None = None,
                          n_threads: int | None = None) -> Any:
    """Plot a confusion matrix counted by fastmetrics in a ConfusionMatrixDisplay.

    One counting pass gives both the matrix (as :func:`~fastmetrics.confusion_matrix`)
    and, when ``labels`` is None, the sorted labels present that name its rows and columns.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_pred : array-like of shape (n_samples,)
        Predicted class labels.
    labels : array-like of shape (n_classes,), default=None
        The labels that index the matrix, in this order. None means the sorted labels
        present in ``y_true`` or ``y_pred``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples. None gives every sample weight 1.
    normalize : {"true", "pred", "all"} or None, default=None
        Divide the counts by the row sums (true labels), the column sums (predicted labels)
        or the total. None keeps the counts.
    display_labels : array-like of shape (n_classes,), default=None
        Tick labels of the axes. None means ``labels``, or the labels present.
    include_values : bool, default=True
        Whether to write the value in each cell.
    xticks_rotation : {"vertical", "horizontal"} or float, default="horizontal"
        Rotation of the x tick labels.
    values_format : str, default=None
        Format of the cell values (None: ``"d"`` for counts, ``".2g"`` otherwise).
    cmap : str or matplotlib Colormap, default="viridis"
        The colormap.
    ax : matplotlib Axes, default=None
        The axes to draw on. None makes a new figure and axes.
    colorbar : bool, default=True
        Whether to add a colour bar.
    im_kw : dict, default=None
        Keyword arguments for matplotlib's ``imshow``.
    text_kw : dict, default=None
        Keyword arguments for matplotlib's ``text`` of the cell values.
    n_threads : int or None, default=None
        Threads for large inputs. None uses what OpenMP allows (honouring
        ``OMP_NUM_THREADS``); the result is the same for any value.

    Returns
    -------
    display : sklearn.metrics.ConfusionMatrixDisplay
        scikit-learn's display holding ``confusion_matrix`` and ``display_labels``, with
        ``im_``, ``text_``, ``ax_`` and ``figure_`` set by its ``plot``.

    Raises
    ------
    ImportError
        If matplotlib or scikit-learn is not installed.
    ValueError
        If the inputs are multilabel indicator matrices, if their lengths differ, if
        ``labels`` holds none of the labels of ``y_true``, or if ``normalize`` is not one
        of the options.

    See Also
    --------
    sklearn.metrics.ConfusionMatrixDisplay.from_predictions : scikit-learn's one-call plot.
    fastmetrics.confusion_matrix : The matrix alone.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import fastmetrics as fm
    >>> disp = fm.plot_confusion_matrix(["cat", "dog", "cat"], ["cat", "cat", "cat"])
    >>> disp.confusion_matrix.tolist(), disp.display_labels.tolist()
    ([[2, 0], [1, 0]], ['cat', 'dog'])
    """
    metrics = _displays("plot_confusion_matrix")
    if is_multilabel_pair(y_true, y_pred):
        raise ValueError("multilabel-indicator is not supported")
    state = ConfusionState.from_arrays(y_true, y_pred, sample_weight, n_threads)
    cm = confusion.matrix(state, labels, normalize)
    if display_labels is None:
        display_labels = state.present_labels if labels is None else labels
    disp = metrics.ConfusionMatrixDisplay(confusion_matrix=cm, display_labels=display_labels)
    return disp.plot(include_values=include_values, cmap=cmap, ax=ax,
                     xticks_rotation=xticks_rotation, values_format=values_format,
                     colorbar=colorbar, im_kw=im_kw, text_kw=text_kw)
