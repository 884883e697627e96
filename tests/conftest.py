"""Shared fixtures: locating ../shared (real treebanks and reference outputs).

Tests that need ../shared skip with a visible reason when it is absent; they
never copy its data into the project.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SAMPLE_DATA = ROOT / "sample_data"


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, skipping the calling test if it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not found: ../shared is not beside the clone")
    return path


@pytest.fixture
def shared() -> Path:
    return shared_path()
