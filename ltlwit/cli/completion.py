"""`ltlwit completion SHELL`: click's completion script for bash, zsh or fish."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

from ltlwit.cli.choices import SHELLS
from ltlwit.cli.environment import Environment
from ltlwit.cli.group import cli
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> ExitStatus:
    """Print the tab-completion script for SHELL. Load it with `source <(ltlwit completion bash)`
    (zsh: the same with zsh; fish: `ltlwit completion fish | source`), or install the files in
    completions/ where your shell looks for them."""
    Printer(Environment.of(ctx)).data(completion_script(shell).rstrip("\n"))
    return ExitStatus.SUCCESS


def completion_script(shell: str) -> str:
    """click's completion script for `ltlwit` (without click's bash version probe, so the
    output depends on nothing but the shell's name)."""
    made = get_completion_class(shell)
    if made is None:  # click's shells are the command's choices
        raise ValueError(f"no completion for the shell {shell!r}")
    comp = made(cli, {}, "ltlwit", "_LTLWIT_COMPLETE")
    return comp.source_template % comp.source_vars()
