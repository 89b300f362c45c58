"""`ltlwit eval`: a model's accuracy on a data set (`ltlwit.eval.run`): correct, top-N, exact,
invalid, an accuracy grid, alpha-covariance."""

from __future__ import annotations

import json
import os

import click

from ltlwit.cli.choices import DEVICES
from ltlwit.cli.environment import Environment
from ltlwit.cli.options import fail, model_completer, report_console, report_format, say, validator_option
from ltlwit.cli.progress import progress_bar
from ltlwit.cli.status import ExitStatus
from ltlwit.eval.report import render, to_json, write_grid_csv, write_grid_png
from ltlwit.eval.run import EvalOptions, run_eval


@click.command("eval")
@click.option("--model", required=True, metavar="NAME", shell_complete=model_completer(),
              help="A model from `ltlwit models list`, or a .pt file.")
@click.option("--data", "data_file", type=click.Path(exists=True, dir_okay=False), required=True, metavar="FILE",
              help="Two-line data file (.gz ok) or a JSON Lines grid (formula, witness).")
@click.option("--beam", type=click.IntRange(min=1), default=3, show_default=True, help="Beam size.")
@click.option("--top", type=click.IntRange(min=1), default=None, metavar="N",
              help="Top-N accuracy: one of the N best candidates verifies [default: the beam size].")
@report_format
@click.option("--grid-csv", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the accuracy grid (AP count x size) as CSV, and FILE.png beside it when matplotlib "
              "is installed.")
@click.option("--size-bucket", type=click.IntRange(min=1), default=5, show_default=True,
              help="Width of the grid's size columns.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Evaluate the first N samples only.")
@click.option("--alpha-samples", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Formulas with renamable APs (a seeded random subset) for alpha-covariance; 0 skips it.")
@click.option("--alpha-variants", type=click.IntRange(min=2), default=24, show_default=True,
              help="Renamed copies per formula: all of them when there are at most this many, else this many "
              "random ones.")
@click.option("--alpha-pool", type=click.IntRange(min=0), default=0, metavar="V",
              help="Rename into V AP slots (the paper's 5 for LTL35) [default: permute the formula's own APs].")
@click.option("--paper-alpha-samples", type=click.IntRange(min=0), default=200, show_default=True,
              help="Formulas for alpha-covariance the papers' way: renamed into the whole AP pool (every renaming "
              "up to --paper-alpha-variants); the papers use 1000; 0 skips it.")
@click.option("--paper-alpha-pool", type=click.IntRange(min=0), default=0, metavar="V",
              help="AP pool of the papers' alpha-covariance [default: the data's largest AP count].")
@click.option("--paper-alpha-variants", type=click.IntRange(min=2), default=120, show_default=True,
              help="Renamings per formula for the papers' alpha-covariance: all when there are at most this many, "
              "else this many random ones.")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="auto: CUDA when available, else the CPU.")
@click.option("--batch-size", type=click.IntRange(min=1), default=128, show_default=True,
              help="Formulas per beam-search batch.")
@click.option("--max-len", type=click.IntRange(min=1), default=160, show_default=True,
              help="Longest model output, in tokens.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the alpha-covariance draws.")
@validator_option
@click.pass_context
def eval_(ctx: click.Context, model: str, data_file: str, beam: int, top: int | None, fmt: str,
          grid_csv: str | None, size_bucket: int, limit: int | None, alpha_samples: int, alpha_variants: int,
          alpha_pool: int, paper_alpha_samples: int, paper_alpha_pool: int, paper_alpha_variants: int, device: str,
          batch_size: int, max_len: int, seed: int, validators: tuple[str, ...]) -> ExitStatus:
    """Accuracy of a model on a data set: correct (best candidate verified by the engine), top-N,
    exact match, invalid outputs, an accuracy grid by AP count and size, and alpha-covariance."""
    env = Environment.of(ctx)
    try:
        options = EvalOptions(model=model, data=data_file, beam=beam, top=top, limit=limit,
                              alpha_samples=alpha_samples, alpha_variants=alpha_variants, alpha_pool=alpha_pool,
                              paper_alpha_samples=paper_alpha_samples, paper_alpha_pool=paper_alpha_pool,
                              paper_alpha_variants=paper_alpha_variants,
                              size_bucket=size_bucket, batch_size=batch_size, device=device, seed=seed,
                              max_len=max_len, validators=validators)
    except ValueError as e:
        raise click.UsageError(str(e), ctx) from None
    try:
        with progress_bar(env, "evaluating", fields="{task.fields[phase]}", phase="") as update:
            result = run_eval(options, progress=lambda phase, done, total: update(done, total=total, phase=phase))
        if grid_csv:
            write_grid_csv(result.accuracy, grid_csv)
            png = os.path.splitext(grid_csv)[0] + ".png"
            wrote = write_grid_png(result.accuracy, png, f"{model} on {os.path.basename(data_file)}")
            say(ctx, grid_csv, "grid written" + (f" (and {png})" if wrote else " (no PNG: matplotlib not installed)"))
    except (ValueError, OSError, EOFError) as e:
        return fail(ctx, e)
    if fmt == "json":
        env.stdout.write(json.dumps(to_json(result.accuracy, result.alpha, result.meta, result.paper_alpha)) + "\n")
    else:
        render(report_console(env), result.accuracy, result.alpha, result.meta, result.paper_alpha)
    return ExitStatus.SUCCESS
