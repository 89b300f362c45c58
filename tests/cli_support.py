"""Helpers for the CLI tests: run `ltlwit` in-process (click's CliRunner, or a hand-made
Environment when a test needs to pretend a stream is a terminal) or as a real subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result

from ltlwit.cli import cli
from ltlwit.cli.environment import Environment

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, input: str | bytes | None = None) -> Result:
    """`ltlwit ARGS...` through CliRunner: stdin is a pipe (not a TTY), stdout/stderr apart."""
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def run_env(
    *args: str,
    stdin: bytes = b"",
    stdin_isatty: bool = False,
    stdout_isatty: bool = False,
    color_allowed: bool = True,
) -> tuple[int, str, str]:
    """`ltlwit ARGS...` with an injected Environment; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    env = Environment(
        stdin=io.BytesIO(stdin),
        stdout=out,
        stderr=err,
        stdin_isatty=stdin_isatty,
        stdout_isatty=stdout_isatty,
        stderr_isatty=False,
        color_allowed=color_allowed,
    )
    code = cli.main(list(args), standalone_mode=False, obj=env)
    return code, out.getvalue(), err.getvalue()


def subprocess_env() -> dict[str, str]:
    """The environment for `python -m ltlwit` from a checkout, installed or not."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("NO_COLOR", None)
    return env


def ltlwit_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ltlwit", *args]


def run_process(*args: str, input: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        ltlwit_command(*args), input=input, capture_output=True, env=subprocess_env(), timeout=timeout, cwd=ROOT
    )
