"""Shared fixtures: where the private real data lives (``../shared/real``), skipping cleanly without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL = Path(os.environ.get("RTLAB_REAL_DATA", ROOT.parent / "shared" / "real"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def real() -> Path:
    """The real-data folder; tests that use it skip with a reason when it is absent."""
    if not REAL.is_dir():
        pytest.skip(f"real data not present at {REAL} (set RTLAB_REAL_DATA to point at shared/real)")
    return REAL


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES
