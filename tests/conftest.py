"""Suite-wide test settings.

`ltlwit solve` and `check` default to `--model auto`, which uses the bundled models once their
weights are installed; their witnesses are as valid as the engine's but may differ from the
exact ones the CLI tests expect. So every test runs with `LTLWIT_MODEL=none` (the engine
alone) unless it asks for a model with `--model` or changes the variable itself.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _engine_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTLWIT_MODEL", "none")
