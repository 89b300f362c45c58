"""Suite-wide test settings.

`ltlwit solve` and `check` default to `--model auto`, which uses the bundled models once their
weights are installed; their witnesses are as valid as the engine's but may differ from the
exact ones the CLI tests expect. So every test runs with `LTLWIT_MODEL=none` (the engine
alone) unless it asks for a model with `--model` or changes the variable itself.

Property tests draw new examples on every run here; CI sets `HYPOTHESIS_PROFILE=ci`, which
derives each test's examples from its name, so that a red CI run fails again the same way on
any machine (and prints the failing example's blob for `@reproduce_failure`).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def _engine_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LTLWIT_MODEL", "none")


@pytest.fixture()
def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """matplotlib cannot be imported, whether or not this machine has it (CI has not)."""
    import builtins

    real_import = builtins.__import__

    def blocked(name: str, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", blocked)
