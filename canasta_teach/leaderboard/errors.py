"""The leaderboard's one exception (its own module: ``names`` raises it too)."""

from __future__ import annotations

from typing import Any


class LeaderboardError(Exception):
    """A result refused or a leaderboard out of reach: ``code`` and the facts (``params``)."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params: dict[str, Any] = params
        details = ", ".join(f"{key}={value!r}" for key, value in params.items())
        super().__init__(f"{code} ({details})" if details else code)

    @property
    def key(self) -> str:
        """The message key the UI translates (domain ``ui``)."""
        return f"leaderboard.error.{self.code}"
