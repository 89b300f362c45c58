"""man/ltlwit.1 is generated from the click tree and must not drift from it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import click
from cli_support import ROOT, subprocess_env

from ltlwit.cli import cli
from ltlwit.cli.manpage import escape, render

PAGE = ROOT / "man" / "ltlwit.1"


def test_committed_page_is_the_generated_one() -> None:
    assert PAGE.read_text() == render(), (
        "man/ltlwit.1 is out of date: run `python -m ltlwit.cli.manpage > man/ltlwit.1`"
    )


def test_every_command_and_option_is_documented() -> None:
    page = render()
    ctx = click.Context(cli, info_name="ltlwit", **cli.context_settings)

    def walk(group: click.Group, path: str) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert f'.SS "{escape(f"{path} {name}")}' in page
            if isinstance(command, click.Group):
                walk(command, f"{path} {name}")
                continue
            for param in command.params:
                if isinstance(param, click.Option):
                    for opt in param.opts:
                        assert escape(opt) in page, (path, name, opt)

    walk(cli, "ltlwit")
    for section in ("NAME", "SYNOPSIS", "COMMANDS", "SPEC FILES", "VACUITY", "EXIT STATUS", "ENVIRONMENT", "EXAMPLES"):
        assert f".SH {section}" in page


def test_escaping() -> None:
    assert escape("a -> b\n.start\\x") == "a \\-> b\n\\&.start\\ex"


def test_the_page_renders_cleanly() -> None:
    known = {".TH", ".SH", ".SS", ".TP", ".PP", ".RS", ".RE", ".nf", ".fi"}
    text = PAGE.read_text()
    assert {line.split(" ")[0] for line in text.splitlines() if line.startswith((".", "'"))} <= known
    groff = shutil.which("groff")
    if groff is not None:  # the full check where groff is installed (it is on the project's machines)
        proc = subprocess.run(
            [groff, "-man", "-Tutf8", "-ww", "-z", str(PAGE)], capture_output=True, text=True, timeout=60
        )
        assert (proc.returncode, proc.stderr) == (0, "")


def test_generator_runs_as_a_module_without_torch() -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ltlwit.cli.manpage"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == PAGE.read_text()
    assert "torch" not in proc.stderr


def test_the_page_is_installed_where_man_finds_it() -> None:
    """`pip install` puts the page in <prefix>/share/man/man1 (setuptools' data-files), where
    man-db looks from <prefix>/bin on PATH: `man ltlwit` works in a venv."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    installed = config["tool"]["setuptools"]["data-files"]["share/man/man1"]
    assert [ROOT / path for path in installed] == [PAGE]
