"""Pickles made by fastmetrics 0.1.0 name ``fastmetrics._state.ConfusionState``: this name
keeps them loading (the accumulators that hold one check it on load)."""

from ._states.confusion import ConfusionState

__all__ = ["ConfusionState"]
