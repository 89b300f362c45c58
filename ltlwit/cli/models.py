"""`ltlwit models list|show|path|plot`: the bundled models and the user's (`ltlwit.neural.registry`),
and the training curves of the user's."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

import click
from rich.table import Table

from ltlwit.cli.environment import Environment
from ltlwit.cli.options import fail, model_completer, report_console, report_format, say
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus
from ltlwit.neural.registry import checkpoints_dir, list_models, resolve
from ltlwit.pipeline.models import family_models


@click.group()
def models() -> None:
    """Trained models: bundled with ltlwit, and your own from `ltlwit train` (stored in the user
    data dir; $LTLWIT_HOME overrides)."""


@models.command("list")
@report_format
@click.pass_context
def models_list(ctx: click.Context, fmt: str) -> ExitStatus:
    """Bundled and user models: name, source, task, architecture, size, training steps; a table
    on a terminal, tab-separated lines (a header first) in a pipe or file."""
    env = Environment.of(ctx)
    rows = [m.summary() for m in list_models()]
    if fmt == "json":
        for summary in rows:
            env.stdout.write(json.dumps(summary) + "\n")
        return ExitStatus.SUCCESS
    # `device` is where the model was trained, not where it runs (`--device` of solve and eval).
    header = ("name", "source", "task", "arch", "parameters", "steps", "trained on")
    cells = [
        (r["name"], r["source"], r["task"], r["arch"], r["parameters"] or "", r["steps"] or "", r["device"] or "")
        for r in rows
    ]
    if not rows:
        report_console(env).print("no models (train one with `ltlwit train`)")
    elif env.stdout_isatty:
        table = Table(*header)
        for row in cells:
            table.add_row(*(f"{c:,}" if isinstance(c, int) else str(c) for c in row))
        report_console(env).print(table)
    else:  # a pipe or a file: tab-separated lines, for cut, awk and sort
        for row in (header, *cells):
            env.stdout.write("\t".join(map(str, row)) + "\n")
    return ExitStatus.SUCCESS


@models.command("show")
@click.argument("name", shell_complete=model_completer(embedding=None))
@click.pass_context
def models_show(ctx: click.Context, name: str) -> ExitStatus:
    """The manifest of model NAME (architecture, training data and commands, versions) as JSON;
    for a family (si, dual, both, as --model takes them), each of its models' in turn."""
    return _print_model(ctx, name, lambda info: json.dumps({"source": info.source, **info.manifest}, indent=1))


@models.command("path")
@click.argument("name", shell_complete=model_completer(embedding=None))
@click.pass_context
def models_path(ctx: click.Context, name: str) -> ExitStatus:
    """The weights file of model NAME (its manifest is beside it, .json); for a family (si,
    dual, both), one line per model."""
    return _print_model(ctx, name, lambda info: info.weights_path)


@models.command("plot")
@click.argument("name", metavar="NAME|LOG")
@click.argument("output", type=click.Path(dir_okay=False), metavar="FILE.png")
@click.pass_context
def models_plot(ctx: click.Context, name: str, output: str) -> ExitStatus:
    """Training curves as a PNG: loss, learning rate and validation scores against the step, from
    the log of `ltlwit train --name NAME` (its checkpoint folder's log.jsonl; a run still going
    or stopped is plotted as far as it got), or from a log.jsonl file or run folder given as a
    path. Needs matplotlib (the plots extra)."""
    from ltlwit.eval.plots import read_log, require_matplotlib, training_curves

    try:
        log = _training_log(name)
        require_matplotlib()
        training_curves(read_log(log), output, f"{name}: training")
    except (ValueError, OSError) as e:
        return fail(ctx, e)
    say(ctx, output, f"training curves of {log} written")
    return ExitStatus.SUCCESS


def _training_log(name: str) -> Path:
    """The log.jsonl that NAME stands for: a file, a run folder, or a user model's checkpoints."""
    given = Path(name)
    for path in (given, given / "log.jsonl"):
        if path.is_file():
            return path
    if os.sep in name or name.endswith(".jsonl"):
        raise ValueError(f"{name}: no such training log (a log.jsonl, or a folder holding one)")
    log = checkpoints_dir() / name / "log.jsonl"
    if not log.is_file():
        raise ValueError(
            f"no training log for {name!r} ({log}): only models trained here with `ltlwit train --name NAME` have one"
        )
    return log


def _print_model(ctx: click.Context, name: str, render: Callable[[Any], str]) -> ExitStatus:
    """`render(info)` on stdout of the model NAME, or of each model of the family NAME (`si`:
    si-ltl, si-prop, the models `--model si` uses); a one-line error for each that is missing."""
    status = ExitStatus.SUCCESS
    for each in family_models(name) or (name,):
        try:
            info = resolve(each)
        except ValueError as e:
            status = fail(ctx, e)
            continue
        Printer(Environment.of(ctx)).data(render(info))
    return status
