"""Where the repository's own folders are: the lessons, the Voilà template and the assets.

Kept apart from ``app`` (which serves them) so that the widgets, which read the fonts and the
lessons too, need not import the app: the layers run engine -> ... -> widgets -> app.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
LESSONS_DIR = REPO_ROOT / "lessons"
TEMPLATE_NAME = "canasta"
TEMPLATE_SOURCE = REPO_ROOT / "share" / "jupyter" / "voila" / "templates" / TEMPLATE_NAME
ASSETS_DIR = REPO_ROOT / "assets"

__all__ = ["ASSETS_DIR", "LESSONS_DIR", "REPO_ROOT", "TEMPLATE_NAME", "TEMPLATE_SOURCE"]
