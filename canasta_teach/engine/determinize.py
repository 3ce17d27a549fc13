"""A world consistent with what one seat sees: the hidden cards dealt again.

Kept for its callers: the state does it (``State.determinize``, extended by each variant for
the cards it keeps face down, as OpenSpiel's ``resample_from_infostate``).
"""

from __future__ import annotations

from .rng import SplitMix64
from .state import State


def determinize(state: State, seat: int, rng: SplitMix64) -> State:
    """A copy of ``state`` with the cards hidden from ``seat`` dealt again with ``rng``."""
    return state.determinize(seat, rng)
