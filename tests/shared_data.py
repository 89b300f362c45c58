"""The project's shared data (../shared/data beside the checkout, see its README): CI has it, a
fresh clone elsewhere does not. Tests that read it skip, saying which file they wanted; the
small copies the rest of the suite needs live in tests/data."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_file(relative: str) -> Path:
    """../shared/data/RELATIVE, or a skip that names it."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"needs ../shared/data/{relative} (the project's shared data), which is not beside this checkout")
    return path
