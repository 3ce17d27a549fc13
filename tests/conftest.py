"""Shared test settings: hypothesis profiles.

``ci`` (the default) has no deadline, because a shared 2-core machine makes timings noisy,
and a moderate number of examples so the whole engine suite stays fast.  ``thorough`` is
for a long local run: ``HYPOTHESIS_PROFILE=thorough pytest tests/test_engine_properties.py``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    deadline=None,
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Saved games and the leaderboard go to the per-user data folder (canasta_teach.userdata):
# tests, the servers they start and those servers' kernels use a fresh one, never the home's.
if not os.environ.get("CANASTA_DATA_DIR"):
    import tempfile

    os.environ["CANASTA_DATA_DIR"] = tempfile.mkdtemp(prefix="canasta-test-data-")
