"""Shared test settings: hypothesis profiles, and ``redis_url`` (a throwaway redis-server for
the room store tests, started once a session).

``ci`` (the default) has no deadline, because a shared 2-core machine makes timings noisy,
and a moderate number of examples so the whole engine suite stays fast.  ``thorough`` is
for a long local run: ``HYPOTHESIS_PROFILE=thorough pytest tests/test_engine_properties.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from canasta_teach.rooms.localredis import redis_available, redis_server

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


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    if not redis_available():
        message = (
            "redis-server is missing: run `make redis` (as root: apt-get install redis-server)"
        )
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    with redis_server() as url:
        yield url
