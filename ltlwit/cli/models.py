"""`ltlwit models list|show|path`: the bundled models and the user's (`ltlwit.neural.registry`)."""

from __future__ import annotations

import json
from typing import Any, Callable

import click
from rich.table import Table

from ltlwit.cli.environment import Environment
from ltlwit.cli.options import fail, model_completer, report_console, report_format
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus
from ltlwit.neural.registry import list_models, resolve


@click.group()
def models() -> None:
    """Trained models: bundled with ltlwit, and your own from `ltlwit train` (stored in the user
    data dir; $LTLWIT_HOME overrides)."""


@models.command("list")
@report_format
@click.pass_context
def models_list(ctx: click.Context, fmt: str) -> ExitStatus:
    """Bundled and user models: name, source, task, architecture, size, training steps."""
    env = Environment.of(ctx)
    rows = [m.summary() for m in list_models()]
    if fmt == "json":
        for row in rows:
            env.stdout.write(json.dumps(row) + "\n")
        return ExitStatus.SUCCESS
    table = Table("name", "source", "task", "arch", "parameters", "steps", "device")
    for r in rows:
        table.add_row(r["name"], r["source"], r["task"], r["arch"], f"{r['parameters']:,}" if r["parameters"] else "",
                      str(r["steps"] or ""), str(r["device"] or ""))
    report_console(env).print(table if rows else "no models (train one with `ltlwit train`)")
    return ExitStatus.SUCCESS


@models.command("show")
@click.argument("name", shell_complete=model_completer())
@click.pass_context
def models_show(ctx: click.Context, name: str) -> ExitStatus:
    """The manifest of model NAME (architecture, training data and commands, versions) as JSON."""
    return _print_model(ctx, name, lambda info: json.dumps({"source": info.source, **info.manifest}, indent=1))


@models.command("path")
@click.argument("name", shell_complete=model_completer())
@click.pass_context
def models_path(ctx: click.Context, name: str) -> ExitStatus:
    """The weights file of model NAME (its manifest is beside it, .json)."""
    return _print_model(ctx, name, lambda info: info.weights_path)


def _print_model(ctx: click.Context, name: str, render: Callable[[Any], str]) -> ExitStatus:
    """`render(info)` of the model NAME on stdout, or a one-line error if there is none."""
    try:
        info = resolve(name)
    except ValueError as e:
        return fail(ctx, e)
    Printer(Environment.of(ctx)).data(render(info))
    return ExitStatus.SUCCESS

