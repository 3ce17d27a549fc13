"""The table's "Go out" button plans with ``canasta_teach.engine.goingout`` (the computer
players use the same planner); this module keeps the widgets' old import path."""

from __future__ import annotations

from canasta_teach.engine.goingout import (
    MAX_PLANS,
    GoingOut,
    can_go_out,
    plan_for_selection,
    plan_going_out,
)

__all__ = ["MAX_PLANS", "GoingOut", "can_go_out", "plan_for_selection", "plan_going_out"]
