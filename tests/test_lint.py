"""The code passes ruff's lint rules and its formatter as pyproject.toml configures them (the
test command is the one CI runs, so the check is here, where both see it)."""

from __future__ import annotations

import subprocess
import sys

from cli_support import ROOT


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_lint_passes() -> None:
    result = _ruff("check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_applied() -> None:
    result = _ruff("format", "--check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr
