"""`ltlwit experiment`: the papers' tables (`ltlwit.eval.experiment`): train and evaluate every
architecture x seed, print mean ± std per architecture as Markdown (or JSON)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import click

from ltlwit.cli.choices import ARCHS, PRESETS
from ltlwit.cli.environment import Environment
from ltlwit.cli.options import device_option, fail, report_format, say, task_option, training_data_option
from ltlwit.cli.status import ExitStatus


def _archs(ctx: click.Context, _: click.Parameter, value: str) -> tuple[str, ...]:
    items = tuple(a.strip() for a in value.split(","))
    unknown = [a for a in items if a not in ARCHS]
    if unknown:
        raise click.BadParameter(f"unknown architecture {unknown[0]!r} (known: {', '.join(ARCHS)})", ctx)
    return items


def _seeds(ctx: click.Context, _: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        return tuple(int(s) for s in value.split(","))
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected comma-separated integers, e.g. 0,1,2", ctx) from None


@click.command()
@task_option
@training_data_option
@click.option(
    "--test",
    "test_file",
    type=click.Path(exists=True, dir_okay=False),
    required=True,
    metavar="FILE",
    help="Test split: correct, top-N, exact and the papers' alpha-covariance are measured on it.",
)
@click.option(
    "--grid",
    "grid_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="FILE",
    help="A grid (e.g. ltl-grid-val.jsonl, 10 APs): accuracy overall and on inputs with more APs than "
    "the test split has.",
)
@click.option(
    "--arch",
    "archs",
    default=",".join(ARCHS),
    show_default=True,
    metavar="ARCH[,ARCH...]",
    callback=_archs,
    shell_complete=lambda ctx, param, incomplete: [
        f"{head}{',' if head else ''}{a}"
        for head, _, last in [incomplete.rpartition(",")]
        for a in ARCHS
        if a.startswith(last)
    ],
    help="Architectures, one table row each (those of `train --arch`).",
)
@click.option(
    "--seeds",
    default="0,1,2",
    show_default=True,
    metavar="N[,N...]",
    callback=_seeds,
    help="Training seeds per architecture: the table gives mean ± std over them.",
)
@click.option(
    "--preset",
    type=click.Choice(PRESETS),
    default="paper",
    show_default=True,
    help="Model size: the papers' (a GPU), CPU-sized, or tiny (minutes on a CPU).",
)
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=None,
    help="Training steps per model [default: the preset's, as for train].",
)
@click.option("--batch-size", type=click.IntRange(min=1), default=None, help="Training batch [default: the preset's].")
@device_option
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Test on the first N samples only."
)
@click.option(
    "--grid-limit", type=click.IntRange(min=1), default=None, metavar="N", help="Use the grid's first N rows only."
)
@click.option("--beam", type=click.IntRange(min=1), default=3, show_default=True, help="Beam size (top-N: N = beam).")
@click.option(
    "--alpha-samples",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Test formulas for the papers' alpha-covariance (renamings into the whole AP pool); 0 skips it.",
)
@click.option(
    "--alpha-variants",
    type=click.IntRange(min=2),
    default=120,
    show_default=True,
    help="Renamings per formula: all when there are at most this many, else this many random ones.",
)
@click.option(
    "--max-len", type=click.IntRange(min=1), default=160, show_default=True, help="Longest model output, in tokens."
)
@click.option(
    "--prefix",
    default="exp",
    show_default=True,
    help="Models are registered as PREFIX-TASK-ARCH-PRESET-sSEED; one already registered is reused.",
)
@click.option(
    "--json",
    "json_file",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Also write the JSON (plan, every run, the summary) to FILE.",
)
@report_format
@click.pass_context
def experiment(
    ctx: click.Context,
    task: str,
    data_dir: str,
    test_file: str,
    grid_file: str | None,
    archs: tuple[str, ...],
    seeds: tuple[int, ...],
    preset: str,
    steps: int | None,
    batch_size: int | None,
    device: str,
    limit: int | None,
    grid_limit: int | None,
    beam: int,
    alpha_samples: int,
    alpha_variants: int,
    max_len: int,
    prefix: str,
    json_file: str | None,
    fmt: str,
) -> ExitStatus:
    """Reproduce the papers' tables: train every architecture with every seed (registered as
    user models; a model already there is reused, so a killed run resumes), evaluate each on the
    test split and the grid, and print one row per architecture, mean ± std over the seeds:
    Markdown (text) or JSON. Training messages go to stderr."""
    from ltlwit.eval.experiment import Plan, markdown, run_experiment, summarise, to_json

    env = Environment.of(ctx)
    try:
        plan = Plan(
            task=task,
            data=data_dir,
            test=test_file,
            grid=grid_file,
            archs=archs,
            seeds=seeds,
            preset=preset,
            steps=steps,
            batch_size=batch_size or 0,
            device=device,
            limit=limit,
            grid_limit=grid_limit,
            beam=beam,
            alpha_samples=alpha_samples,
            alpha_variants=alpha_variants,
            max_len=max_len,
            prefix=prefix,
        )
    except ValueError as e:
        raise click.UsageError(str(e), ctx) from None

    def note(text: str) -> None:
        say(ctx, "", text)

    try:
        with contextlib.redirect_stdout(env.stderr):  # the training loop's lines are messages
            runs = run_experiment(plan, note)
    except (ValueError, OSError) as e:
        return fail(ctx, e)
    rows = summarise(runs)
    data: dict[str, Any] = to_json(plan, runs, rows)
    if json_file:
        with open(json_file, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, indent=1) + "\n")
    env.stdout.write(json.dumps(data) + "\n" if fmt == "json" else markdown(plan, rows))
    return ExitStatus.SUCCESS
