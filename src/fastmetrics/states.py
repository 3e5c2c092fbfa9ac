"""The state types: the small summaries one kernel pass leaves, from which every metric of a
family is derived and which merge into the summary of both inputs.

Each accumulator of :mod:`fastmetrics.streaming` holds one (``acc.state``), and every state
exports to plain arrays and back, checked on load::

    d = acc.state.to_dict()                      # numpy arrays and plain scalars
    np.savez("state.npz", **d)                   # or json.dumps(state.to_dict(as_lists=True))
    state = load_state(np.load("state.npz", allow_pickle=False))

Only the array form is safe to load from an untrusted source: unpickling runs whatever the
pickle names. Pickles of states and accumulators go through the same checked loader.
"""

from ._states.base import State, StateError, load_state
from ._states.bins import CalibrationState
from ._states.confusion import ConfusionState
from ._states.contingency import ContingencyState
from ._states.grouped import GroupedConfusionState
from ._states.groups import GroupedState
from ._states.hinge import HingeState
from ._states.labelrank import LabelRankingState
from ._states.multilabel import MultilabelState
from ._states.paired import PairedConfusionState
from ._states.pinball import PinballState
from ._states.proba import ProbabilityState
from ._states.ranking import RankingState
from ._states.sketch import ExactQuantileState, SketchState
from ._states.sums import RegressionState
from ._states.deviance import SquaredLogState, TweedieState

__all__ = [
    "CalibrationState",
    "ConfusionState",
    "ContingencyState",
    "ExactQuantileState",
    "GroupedConfusionState",
    "GroupedState",
    "HingeState",
    "LabelRankingState",
    "MultilabelState",
    "PairedConfusionState",
    "PinballState",
    "ProbabilityState",
    "RankingState",
    "RegressionState",
    "SketchState",
    "SquaredLogState",
    "State",
    "StateError",
    "TweedieState",
    "load_state",
]
