"""`--version`, `--help`, and the promise that neither (nor a model-less solve) imports torch."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cli_support import ROOT, run, run_process, subprocess_env

from ltlwit import __version__


def test_version() -> None:
    for flag in ("--version", "-V"):
        result = run(flag)
        assert (result.exit_code, result.stdout) == (0, f"ltlwit {__version__}\n")


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["solve", "--help"], ["fmt", "--help"], ["verify", "--help"]])
def test_help_exits_0_and_lists_the_options(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 0
    assert "Usage: ltlwit" in result.stdout


def test_solve_help_shows_every_choice() -> None:
    text = run("solve", "--help").stdout
    for word in (
        "auto|ltl|prop",
        "auto|spot|polish|polish-spaced|lbt",
        "text|json",
        "auto|builtin|spot",
        "--timeout",
        "--model",
    ):
        assert word in text


def _imported_modules(*args: str) -> str:
    """`python -X importtime -m ltlwit ARGS`: its import log (stderr), one module per line."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ltlwit", *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return proc.stderr


@pytest.mark.parametrize("args", [["--help"], ["solve", "--help"], ["check", "--help"], ["completion", "bash"]])
def test_help_does_not_import_torch(args: list[str]) -> None:
    log = _imported_modules(*args)
    assert "| ltlwit.cli" in log  # the log is real: it does list our own modules
    assert "torch" not in log
    assert "ltlwit.logic.syntax" not in log and "ltlwit.train" not in log  # nor our heavier layers


def test_each_command_module_loads_only_when_its_command_runs() -> None:
    from ltlwit.cli.group import COMMANDS

    commands = {module for module, _, _ in COMMANDS.values()}

    def loaded(*args: str) -> set[str]:
        """The modules of a process that ran `ltlwit ARGS` (importtime logs no importlib)."""
        code = (
            f"import sys; from ltlwit.cli import cli; cli.main({list(args)!r}, standalone_mode=False); "
            "print(*sys.modules, file=sys.stderr)"
        )
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env(), cwd=ROOT, timeout=120
        )
        assert proc.returncode == 0 and "Usage: ltlwit" in proc.stdout, proc.stderr[-2000:]
        return set(proc.stderr.split())

    assert not loaded("--help") & (commands | {"ltlwit.api"})
    assert loaded("verify", "--help") & commands == {"ltlwit.cli.verify"}


@pytest.mark.parametrize("model", ["none", "auto"])
def test_solving_without_a_model_does_not_import_torch(model: str) -> None:
    """`auto` too, here: this machine has no GPU (see tests/test_pipeline_cli.py for the rest)."""
    log = _imported_modules("solve", "--model", model, "a & b", "G F a")
    assert "| ltlwit.logic.ltl" in log and "ltlwit.pipeline.run" in log
    assert "torch" not in log


def test_python_dash_m_runs_the_same_cli() -> None:
    proc = run_process("solve", "a & !a")
    assert (proc.returncode, proc.stdout) == (1, b"UNSAT\n")


def test_option_choices_match_the_layers_they_name() -> None:
    """`ltlwit.cli.choices` writes out the lists whose owners are too heavy to load for a
    `--help` (the LTL engine, torch's model configs, the generator); they must not drift. The
    others it takes from their owners, so the syntax layer's dispatch agrees with them."""
    from ltlwit.cli import choices
    from ltlwit.logic import ltl, syntax
    from ltlwit.neural import config
    from ltlwit.train import generate

    assert choices.ENGINES == ltl.ENGINES
    assert choices.ARCHS == tuple(config.ARCHS)
    assert choices.PRESETS == config.PRESETS and choices.TASKS == config.TASKS
    assert choices.ALPHABETS == tuple(generate.PRIORITIES)
    assert set(choices.SYNTAXES) == set(syntax._PARSERS)
    assert set(choices.FMT_SYNTAXES) == set(syntax._PRINTERS) and set(choices.OUTPUT_SYNTAXES) < set(syntax._PRINTERS)


def test_only_the_choices_module_spells_out_choice_lists() -> None:
    """No command keeps a copy of a choice list: each `click.Choice` of the CLI is one of the
    lists of `ltlwit.cli.choices`."""
    import click

    from ltlwit.cli import choices, cli

    lists = {tuple(getattr(choices, name)) for name in choices.__all__}

    def walk(group: click.Group, ctx: click.Context) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            for param in command.params:
                if isinstance(param.type, click.Choice):
                    assert tuple(param.type.choices) in lists, (name, param.name, param.type.choices)
            if isinstance(command, click.Group):
                walk(command, click.Context(command, parent=ctx, info_name=name))

    walk(cli, click.Context(cli, info_name="ltlwit"))
