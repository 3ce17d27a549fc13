"""A world consistent with what one seat sees: the hidden cards dealt again.

Search players (and the tests that prove bots do not peek) need states that look exactly the
same from one seat but differ in what that seat cannot see: the other players' hands and the
order of the stock.  ``determinize(state, seat, rng)`` keeps the seat's own hand and every
public fact (melds, the discard pile, red threes, scores, the phase, hand sizes, the stock's
size) and deals the other hands and the stock again from the cards the seat has not seen.

The invariant, tested: ``player_view(determinize(s, seat, rng), seat) == player_view(s, seat)``,
and the 108 cards are all still there.
"""

from __future__ import annotations

from .cards import NUM_KINDS, Kind
from .rng import SplitMix64
from .state import State

_RED3 = int(Kind.RED_THREE)


def determinize(state: State, seat: int, rng: SplitMix64) -> State:
    """A copy of ``state`` with the cards hidden from ``seat`` dealt again with ``rng``."""
    from .handfoot import HandFootState

    world = state.copy()
    others = [s for s in range(state.players) if s != seat]
    unseen: list[int] = []
    # Cards every player saw go into a hand (``State.known``) stay in that hand; only the
    # rest of each hand is dealt again.
    for other in others:
        known = state.known[other]
        for kind in range(NUM_KINDS):
            unseen.extend([kind] * (world.hands[other][kind] - known[kind]))
    # Hand and Foot: every foot still face down is unseen, the seat's own too (H-DEAL-1).
    feet = world.feet if isinstance(world, HandFootState) else None
    if feet is not None:
        for foot in feet:
            for kind in range(NUM_KINDS):
                unseen.extend([kind] * foot[kind])
    unseen.extend(world.stock)
    # A red three never stays in a hand once its owner has played (C-RED-1): the unseen red
    # threes go back to the stock, and the hands are dealt from the other unseen cards.
    reds = [kind for kind in unseen if kind == _RED3]
    pool = [kind for kind in unseen if kind != _RED3]
    if len(pool) < sum(state.hand_size(other) - sum(state.known[other]) for other in others):
        pool, reds = unseen, []  # a deal before anyone has played: red threes may be in hands
    rng.shuffle(pool)
    at = 0
    for other in others:
        counts = list(state.known[other])
        size = state.hand_size(other) - sum(counts)
        for kind in pool[at : at + size]:
            counts[kind] += 1
        world.hands[other] = counts
        at += size
    if feet is not None:
        # Red threes may lie in a face-down foot (they go down when it is picked up).
        rest = pool[at:] + reds
        rng.shuffle(rest)
        pool, at, reds = rest, 0, []
        for owner, foot in enumerate(feet):
            size = sum(foot)
            counts = [0] * NUM_KINDS
            for kind in pool[at : at + size]:
                counts[kind] += 1
            feet[owner] = counts
            at += size
    stock = pool[at:] + reds
    rng.shuffle(stock)
    world.stock = stock
    return world
