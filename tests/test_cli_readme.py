"""README.md stays true: exactly two Quick-start commands, the test one identical to what CI
runs, and every `$ ltlwit ...` example prints what the README shows."""

from __future__ import annotations

import re
import shlex

import pytest
from cli_support import ROOT, run

README = (ROOT / "README.md").read_text()


def quick_start() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)


def test_quick_start_is_exactly_two_one_line_commands() -> None:
    commands = quick_start()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    install, tests = commands
    assert "pip install ." in install and re.search(r"&& ltlwit solve \"[^\"]+\"$", install)
    assert tests.endswith("pip install -e '.[test]' && pytest -q")


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == quick_start()[1]


def test_ci_also_runs_the_slow_tests_on_every_core() -> None:
    """The README's command leaves out the tests marked slow (pyproject's addopts); CI adds
    them back through PYTEST_ADDOPTS, which pytest reads after addopts, with a worker per core
    (pytest-xdist, which the test extra installs), listing the slowest; property tests' examples
    are fixed there (the Hypothesis profile tests/conftest.py registers)."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "export PYTEST_ADDOPTS=\"-m 'slow or not slow' -n auto --dist loadfile --durations=30\"" in ci
    assert "export HYPOTHESIS_PROFILE=ci" in ci
    assert "pytest-xdist" in (ROOT / "pyproject.toml").read_text()


def test_quick_start_solve_prints_a_witness() -> None:
    formula = re.search(r'ltlwit solve "([^"]+)"$', quick_start()[0]).group(1)
    result = run("solve", "--format", "json", formula)
    assert result.exit_code == 0
    assert '"status": "sat"' in result.stdout


def examples() -> list[tuple[str, str]]:
    """(`ltlwit ...` command line, expected stdout) from the README's console blocks, for the
    examples that need no file."""
    found = []
    for block in re.findall(r"```console\n(.*?)\n```", README, flags=re.S):
        parts = re.split(r"^\$ ", block, flags=re.M)[1:]
        for part in parts:
            command, _, output = part.partition("\n")
            if "-F" not in shlex.split(command):
                found.append((command, output))
    return found


@pytest.mark.parametrize("command, expected", examples())
def test_readme_examples(command: str, expected: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "ltlwit"
    result = run(*argv[1:])
    assert result.stdout.rstrip("\n") == expected.rstrip("\n")


def test_examples_were_found() -> None:
    assert len(examples()) >= 4
