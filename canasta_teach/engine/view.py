"""What one seat may see: the per-player view (no hidden card reaches it).

The view is plain JSON-ready data; the widgets draw it and bots may read it.
"""

from __future__ import annotations

from typing import Any

from .cards import TOKENS, kinds_of

# Re-exported: the widgets have imported the names from here (they live in ``seats``).
from .seats import seat_names as seat_names
from .seats import team_names as team_names
from .state import MeldGroup, State


def meld_view(group: MeldGroup) -> dict[str, Any]:
    kind = "natural" if group.is_natural else "mixed"
    return {
        "rank": TOKENS[group.rank],
        "cards": [TOKENS[k] for k in group.cards()],
        "size": group.size,
        "wilds": group.wilds,
        "canasta": kind if group.is_canasta else None,
        "value": group.value,
    }


def player_view(state: State, seat: int) -> dict[str, Any]:
    """Everything ``seat`` may see, and nothing more.

    Own hand (cards), every team's melds and red threes, the pile's top card, size and
    whether it is frozen, counts of the other hands and of the stock, scores, whose turn and
    which phase, the first-meld minimums.  Cards set aside for a first meld lie on the table
    and are shown to all.
    """
    n = state.players
    names = seat_names(n)
    teams = team_names(n)
    top = state.pile_top
    me_team = seat % 2
    frozen = state.frozen_by(me_team)
    return {
        "rules": state.rules.name,
        "players": n,
        "seat": names[seat],
        "team": teams[me_team],
        "hand": [TOKENS[k] for k in kinds_of(state.hands[seat])],
        "hand_counts": {names[s]: state.hand_size(s) for s in range(n)},
        "stock": len(state.stock),
        "pile": {
            "top": TOKENS[top] if top is not None else None,
            "size": len(state.pile),
            "frozen": frozen,
            "frozen_for_all": state.pile_freezers > 0,
            "stop": top is not None and int(top) == 3,
        },
        "teams": [
            {
                "name": teams[t],
                "melds": [meld_view(g) for _, g in sorted(state.melds[t].items(), reverse=True)],
                "red_threes": state.red_threes[t],
                "score": state.scores[t],
                "down": state.down[t],
                "minimum": state.minimum(t),
                "canastas": state.canastas(t),
            }
            for t in (0, 1)
        ],
        "staged": [meld_view(g) for _, g in sorted(state.staged.items(), reverse=True)],
        "turn": names[state.current],
        "to_move": names[state.to_move],
        "phase": state.phase.value,
        "asked": state.asked.value,
        "ended": None
        if state.end is None
        else {"how": state.end.how, "seat": names[state.end.seat]},
        "hand_number": state.hand_number,
        "canastas_to_go_out": state.rules.canastas_to_go_out,
        # The public record: cards every player saw go into a hand (picked up with the pile,
        # or set aside and taken back) and still there as far as anyone can tell, and the
        # kinds each seat has thrown away this hand.
        "known": {
            names[s]: [TOKENS[k] for k in kinds_of(list(state.known[s]))]
            for s in range(n)
            if any(state.known[s])
        },
        "thrown": {
            names[s]: [TOKENS[k] for k in range(len(TOKENS)) if state.thrown[s] >> k & 1]
            for s in range(n)
            if state.thrown[s]
        },
        **state.variant_view(seat),
    }
