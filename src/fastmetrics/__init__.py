"""fastmetrics: scikit-learn-compatible evaluation metrics from nogil compiled kernels.

Each public function validates its input, runs one kernel pass that fills a small *state*
(counts, bin sums, sorted summaries) and derives its metrics from that state. States of two
chunks merge by addition, which is what streaming, threads and clusters build on.

"""

try:
    from . import _confusion  # noqa: F401  (fail early, with a clear message)
except ImportError as exc:  # pragma: no cover - only on a broken install
    raise ImportError(
        "fastmetrics' compiled kernels could not be imported. If you are running from a "
        "source checkout, build them first: `pip install .` (or "
        "`python setup.py build_ext --inplace`)."
    ) from exc

from ._threads import openmp_enabled
# -- classification / report card (issue 2) --

# -- percentiles / timing (issue 3) --

# -- calibration / regression (issue 4) --

# -- ranking (issue 5) --
from .ranking import (
    average_precision_score,
    mean_reciprocal_rank,
    ndcg_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)

# -- LM / groups / robustness (issue 8) --

__version__ = "0.1.0"

__all__ = [
    "openmp_enabled",
    # -- classification / report card (issue 2) --
    # -- percentiles / timing (issue 3) --
    # -- calibration / regression (issue 4) --
    # -- ranking (issue 5) --
    "roc_auc_score",
    "average_precision_score",
    "roc_curve",
    "precision_recall_curve",
    "ndcg_score",
    "mean_reciprocal_rank",
    # -- LM / groups / robustness (issue 8) --
]
