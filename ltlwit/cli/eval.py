"""`ltlwit eval`: a model's accuracy on a data set (`ltlwit.eval.run`): correct, top-N, exact,
invalid, an accuracy grid, alpha-covariance."""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any, TextIO

import click

from ltlwit.cli.environment import Environment
from ltlwit.cli.options import (
    device_option,
    fail,
    model_completer,
    report_console,
    report_format,
    say,
    threads_option,
    validator_option,
)
from ltlwit.cli.progress import progress_bar
from ltlwit.cli.status import ExitStatus
from ltlwit.eval.metrics import SampleHook
from ltlwit.eval.plots import require_matplotlib
from ltlwit.eval.report import prediction_record, render, to_json, write_grid_csv
from ltlwit.eval.run import EvalOptions, EvalResult, prepare


@click.command("eval")
@click.option(
    "--model",
    required=True,
    metavar="NAME",
    shell_complete=model_completer(),
    help="A model from `ltlwit models list`, or a .pt file.",
)
@click.option(
    "--data",
    "data_file",
    type=click.Path(exists=True, dir_okay=False),
    required=True,
    metavar="FILE",
    help="Two-line data file (.gz ok) or a JSON Lines grid (formula, witness).",
)
@click.option("--beam", type=click.IntRange(min=1), default=3, show_default=True, help="Beam size.")
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Top-N accuracy: one of the N best candidates verifies [default: the beam size].",
)
@report_format
@click.option(
    "--grid-csv",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Write the accuracy grid (AP count x size) as CSV.",
)
@click.option(
    "--predictions",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Write one JSON line per sample: formula, label, the candidates (in the formula's AP names) "
    "with their verdicts, correct, rank, exact.",
)
@click.option(
    "--plots",
    "plots_dir",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Write DIR/grid.png (accuracy heatmap, values in the cells) and DIR/alpha.png (alpha-covariance "
    "by AP count); needs matplotlib (the plots extra).",
)
@click.option(
    "--size-bucket", type=click.IntRange(min=1), default=5, show_default=True, help="Width of the grid's size columns."
)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Evaluate the first N samples only.")
@click.option(
    "--alpha-samples",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Formulas with renamable APs (a seeded random subset) for alpha-covariance; 0 skips it "
    "[default: 1000; with --limit L, L/20].",
)
@click.option(
    "--alpha-variants",
    type=click.IntRange(min=2),
    default=24,
    show_default=True,
    help="Renamed copies per formula: all of them when there are at most this many, else this many random ones.",
)
@click.option(
    "--alpha-pool",
    type=click.IntRange(min=0),
    default=0,
    metavar="V",
    help="Rename into V AP slots (the paper's 5 for LTL35) [default: permute the formula's own APs].",
)
@click.option(
    "--paper-alpha-samples",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Formulas for alpha-covariance the papers' way: renamed into the whole AP pool (every renaming "
    "up to --paper-alpha-variants); the papers use 1000; 0 skips it [default: 200; with --limit L, L/50].",
)
@click.option(
    "--paper-alpha-pool",
    type=click.IntRange(min=0),
    default=0,
    metavar="V",
    help="AP pool of the papers' alpha-covariance [default: the data's largest AP count].",
)
@click.option(
    "--paper-alpha-variants",
    type=click.IntRange(min=2),
    default=None,
    metavar="N",
    help="Renamings per formula for the papers' alpha-covariance: all when there are at most this many, "
    "else this many random ones [default: 120; with --limit, 24].",
)
@device_option
@click.option(
    "--batch-size", type=click.IntRange(min=1), default=128, show_default=True, help="Formulas per beam-search batch."
)
@click.option(
    "--max-len", type=click.IntRange(min=1), default=160, show_default=True, help="Longest model output, in tokens."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the alpha-covariance draws.")
@threads_option
@validator_option
@click.pass_context
def eval_(
    ctx: click.Context,
    model: str,
    data_file: str,
    beam: int,
    top: int | None,
    fmt: str,
    grid_csv: str | None,
    predictions: str | None,
    plots_dir: str | None,
    size_bucket: int,
    limit: int | None,
    alpha_samples: int | None,
    alpha_variants: int,
    alpha_pool: int,
    paper_alpha_samples: int | None,
    paper_alpha_pool: int,
    paper_alpha_variants: int | None,
    device: str,
    batch_size: int,
    max_len: int,
    seed: int,
    threads: int,
    validators: tuple[str, ...],
) -> ExitStatus:
    """Accuracy of a model on a data set: correct (best candidate verified by the engine), top-N,
    exact match, invalid outputs, an accuracy grid by AP count and size, and alpha-covariance.
    Alpha-covariance decodes many renamed copies of each formula: its defaults shrink with
    --limit, and the work is announced on stderr before it starts."""
    env = Environment.of(ctx)
    try:
        options = EvalOptions(
            model=model,
            data=data_file,
            beam=beam,
            top=top,
            limit=limit,
            alpha_samples=alpha_samples,
            alpha_variants=alpha_variants,
            alpha_pool=alpha_pool,
            paper_alpha_samples=paper_alpha_samples,
            paper_alpha_pool=paper_alpha_pool,
            paper_alpha_variants=paper_alpha_variants,
            size_bucket=size_bucket,
            batch_size=batch_size,
            device=device,
            seed=seed,
            max_len=max_len,
            threads=threads,
            validators=validators,
        )
    except ValueError as e:
        raise click.UsageError(str(e), ctx) from None
    try:
        if plots_dir:
            require_matplotlib()
        evaluation = prepare(options)
        say(ctx, "", evaluation.plan.describe())
        with contextlib.ExitStack() as stack:
            record = _json_lines(stack.enter_context(open(predictions, "w", encoding="utf-8"))) if predictions else None
            update = stack.enter_context(
                progress_bar(env, "evaluating", total=evaluation.plan.inputs, fields="{task.fields[phase]}", phase="")
            )
            result = evaluation.run(lambda phase, done, total: update(done, total=total, phase=phase), record)
        if predictions:
            say(ctx, predictions, f"{result.accuracy.samples} predictions written")
        if grid_csv:
            write_grid_csv(result.accuracy, grid_csv)
            say(ctx, grid_csv, "grid written")
        if plots_dir:
            title = f"{model} on {os.path.basename(data_file)}"
            say(ctx, plots_dir, "written: " + ", ".join(_plots(result, plots_dir, title)))
    except (ValueError, OSError, EOFError) as e:
        return fail(ctx, e)
    if fmt == "json":
        env.stdout.write(json.dumps(to_json(result.accuracy, result.alpha, result.meta, result.paper_alpha)) + "\n")
    else:
        render(report_console(env), result.accuracy, result.alpha, result.meta, result.paper_alpha)
    return ExitStatus.SUCCESS


def _json_lines(out: TextIO) -> SampleHook:
    """`--predictions`: each judged sample as one JSON line, written as it comes."""

    def write(*sample: Any) -> None:
        out.write(json.dumps(prediction_record(*sample)) + "\n")

    return write


def _plots(result: EvalResult, folder: str, title: str) -> list[str]:
    """The pictures of `--plots DIR`: the heatmap, and alpha-covariance where it was measured."""
    from ltlwit.eval.plots import alpha_by_aps, grid_heatmap

    os.makedirs(folder, exist_ok=True)
    grid = os.path.join(folder, "grid.png")
    grid_heatmap(result.accuracy, grid, f"{title}: top-1 accuracy (%)")
    written = [grid]
    measures = [
        (label, cov)
        for label, cov in (
            ("own APs permuted", result.alpha),
            (f"into {result.paper_alpha.pool if result.paper_alpha else 0} AP slots (papers' way)", result.paper_alpha),
        )
        if cov is not None and cov.samples
    ]
    if measures:
        alpha = os.path.join(folder, "alpha.png")
        alpha_by_aps(measures, alpha, f"{title}: alpha-covariance")
        written.append(alpha)
    return written
