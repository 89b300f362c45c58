"""The model workflow's click commands: `data generate|stats`, `train`, `eval`, `models
list|show|path`. Registered on the `ltlwit` group by `ltlwit.cli`; like it, options in and
answers out, the work in `ltlwit.train`, `ltlwit.eval` and `ltlwit.registry`, imported inside
the commands so that `ltlwit --help` and completion never import torch.

Data on stdout, messages on stderr (`ltlwit: ...`), progress bars only on a terminal; exit
status 0 success, 1 `data generate` stopped short of its count, 2 an error.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Sequence

import click

from ltlwit.env import Environment
from ltlwit.output import FORMATS
from ltlwit.solve import DEVICES
from ltlwit.status import ExitStatus

TASKS = ("ltl", "prop")
#: `train.generate.MAX_NORMAL_SIZE`, copied so that `--help` need not load the generator (a
#: test checks the copy).
MAX_SIZE = 400


class Number(click.FloatRange):
    """click's FloatRange without NaN, which compares false with every bound and so passes
    them all (`--timeout nan` would mean no limit at all)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


def model_completer(keywords: Sequence[str] = ()) -> Callable[..., list[str]]:
    """Shell completion of model names (`keywords`, then the installed models; manifests only,
    no torch)."""
    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
        from ltlwit import registry

        names = [*keywords, *(m.name for m in registry.list_models())]
        head, _, last = incomplete.rpartition(",")  # `--model si,my<TAB>`: the list's last name
        if head:
            names = [name for name in names if name not in ("auto", "both", "none")]  # alone only
        prefix = head + "," if head else ""
        return [prefix + name for name in dict.fromkeys(names) if name.startswith(last)]
    return complete


def _fail(ctx: click.Context, error: Exception) -> ExitStatus:
    """A one-line `ltlwit: ...` error on stderr and exit status 2."""
    from ltlwit.output import Printer

    Printer(Environment.of(ctx)).message("", " ".join(str(error).split()) or type(error).__name__)
    return ExitStatus.ERROR


def _say(ctx: click.Context, where: str, text: str) -> None:
    from ltlwit.output import Printer

    Printer(Environment.of(ctx)).message(where, text)


def _console(env: Environment) -> Any:
    from ltlwit.output import stdout_console

    return stdout_console(env, no_color=not env.stdout_colors, soft_wrap=False,
                          width=None if env.stdout_isatty else 160)


_report_format = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
    help="text: tables for people; json: for machines (models list: one object per line).",
)
_task_option = click.option("--task", type=click.Choice(TASKS), required=True,
                            help="ltl: formulas with lasso-trace witnesses; prop: propositional formulas with "
                            "partial-assignment witnesses.")


@click.group()
def data() -> None:
    """Make and inspect data sets in DeepLTL's two-line format (a formula line in Polish
    notation, then its witness line; `.gz` files are compressed)."""


@data.command("generate")
@_task_option
@click.option("--aps", type=click.IntRange(1, 26), required=True, metavar="N", help="Number of APs (a, b, ...).")
@click.option("--max-size", type=click.IntRange(1, MAX_SIZE), required=True, metavar="S",
              help="Largest formula size (Polish tokens); sizes 1..S.")
@click.option("-n", "--count", type=click.IntRange(min=1), required=True, metavar="COUNT",
              help="Samples the file should hold (a re-run on the same file continues up to COUNT).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, metavar="FILE[.gz]",
              help="Output file; appended to if it exists.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same data).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes [default: all cores].")
@click.option("--alphabet", type=click.Choice(("ltl35", "ltl", "prop")), default=None,
              help="Operator priorities: ltl35 (1 0 ! X U &, LTLRandom35's; default for ltl), ltl (every LTL "
              "operator), prop (! & | weight 2, <-> xor 1 0 weight 1; the prop default).")
@click.option("--uniform-from", type=click.IntRange(min=1), default=None, metavar="SIZE",
              help="Sizes from SIZE on come out uniform (DeepLTL's gate) [default: 10 ltl, 12 prop].")
@click.option("--alpha", type=Number(0, 1, max_open=True), default=0.112, show_default=True,
              help="Share of the samples left to the sizes below --uniform-from.")
@click.option("--timeout", type=Number(min=0, min_open=True), default=2.0, show_default=True,
              metavar="SECONDS", help="Engine time per LTL formula; formulas past it are skipped.")
@click.pass_context
def data_generate(ctx: click.Context, task: str, aps: int, max_size: int, count: int, output: str, seed: int,
                  jobs: int | None, alphabet: str | None, uniform_from: int | None, alpha: float,
                  timeout: float) -> ExitStatus:
    """Random formulas labelled by ltlwit's own engine (LTL: satisfiable formulas and a verified
    lasso trace; prop: a minimal partial assignment, no unsatisfiable formulas or tautologies)."""
    from ltlwit.progress import progress_bar
    from ltlwit.train.label import GenerateConfig, generate_dataset

    env = Environment.of(ctx)
    try:
        config = GenerateConfig(task=task, n_aps=aps, max_size=max_size, count=count, seed=seed,
                                alphabet=alphabet, uniform_from=uniform_from, alpha=alpha, seconds=timeout,
                                jobs=jobs or os.cpu_count() or 1)
        with progress_bar(env, "generating", total=count) as update:
            report = generate_dataset(output, config, progress=lambda p: update(p.total))
    except (ValueError, OSError) as e:
        return _fail(ctx, e)
    _say(ctx, output, f"{report.total} samples ({report.added} new, {report.existing} already there); "
         f"{report.labelled} formulas labelled ({report.rejected} rejected, {report.duplicates} duplicates) "
         f"in {report.seconds:.1f}s with {config.jobs} job{'s' * (config.jobs > 1)}")
    if not report.complete:
        _say(ctx, output, f"only {report.total} of {count} samples: the size gate or the number of distinct "
             "formulas allows no more (raise --max-size or --aps, or lower --uniform-from)")
        return ExitStatus.NEGATIVE
    return ExitStatus.SUCCESS


@data.command("stats")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@_report_format
@click.pass_context
def data_stats(ctx: click.Context, file: str, fmt: str) -> ExitStatus:
    """Counts per AP number and formula size of a two-line FILE (or a JSON Lines grid)."""
    import json

    from ltlwit.train.stats import dataset_stats, render_stats

    env = Environment.of(ctx)
    try:
        stats = dataset_stats(file)
    except (ValueError, OSError, EOFError) as e:
        return _fail(ctx, e)
    if fmt == "json":
        env.stdout.write(json.dumps(stats.to_json()) + "\n")
    else:
        render_stats(_console(env), stats)
    return ExitStatus.SUCCESS


@click.command()
@_task_option
@click.option("--arch", type=click.Choice(("si", "dual")), required=True,
              help="si: symbol-invariant transformer; dual: dual-part embeddings.")
@click.option("--preset", type=click.Choice(("paper", "small", "tiny")), default="small", show_default=True,
              help="Model size: the papers' (for a GPU), CPU-sized, or a test toy.")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False), required=True, metavar="DIR",
              help="Folder with train.txt[.gz] and val.txt[.gz].")
@click.option("--steps", type=click.IntRange(min=1), default=None,
              help="Training steps [default: paper 52000 ltl / 50000 prop, small 20000, tiny 200].")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="auto: CUDA when available, else the CPU.")
@click.option("--resume", is_flag=True, help="Continue from the model's last checkpoint.")
@click.option("--name", default=None, help="Model name to register [default: ARCH-TASK-PRESET].")
@click.option("--batch-size", type=click.IntRange(min=1), default=None, help="Per process [default: the preset's].")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of initialisation and batch order.")
@click.option("--time-limit", type=Number(min=0), default=0.0, metavar="SECONDS",
              help="Checkpoint and stop before SECONDS have passed (continue with --resume).")
@click.option("--stop-at", type=click.IntRange(min=0), default=0, metavar="STEP",
              help="Checkpoint and stop at STEP (continue with --resume).")
@click.option("--log-every", type=click.IntRange(min=1), default=50, show_default=True, metavar="N",
              help="Log loss and speed every N steps.")
@click.option("--val-every", type=click.IntRange(min=0), default=1000, show_default=True, metavar="N",
              help="Validate (loss, greedy outputs checked by the engine) every N steps; 0: at the end only.")
@click.option("--ckpt-every", type=click.IntRange(min=0), default=1000, show_default=True, metavar="N",
              help="Checkpoint every N steps (and always at the end).")
@click.option("--rename-aps", type=click.IntRange(min=0), default=0, metavar="POOL",
              help="Augmentation: rename each sample's APs by a random bijection of POOL slots.")
@click.pass_context
def train(ctx: click.Context, task: str, arch: str, preset: str, data_dir: str, steps: int | None, device: str,
          resume: bool, name: str | None, batch_size: int | None, seed: int, time_limit: float, stop_at: int,
          log_every: int, val_every: int, ckpt_every: int, rename_aps: int) -> ExitStatus:
    """Train a model on DIR and register it under NAME for `solve` and `eval`. Checkpoints go
    to the user data dir ($LTLWIT_HOME overrides). Several processes or GPUs: run it under
    `torchrun --nproc_per_node N -m ltlwit train ...`."""
    import contextlib

    from ltlwit.progress import progress_bar
    from ltlwit.train.run import default_steps, model_name, rank
    from ltlwit.train.run import train as run_training

    env = Environment.of(ctx)
    name = model_name(task, arch, preset, name)
    lead = rank() == 0
    total = steps or default_steps(task, preset)
    bar = progress_bar(env, f"training {name}", total=total,
                       fields="loss {task.fields[loss]:.4f}  {task.fields[rate]:.1f} steps/s",
                       loss=float("nan"), rate=0.0) if lead else contextlib.nullcontext(None)
    try:
        with bar as update, contextlib.redirect_stdout(env.stderr if not env.stderr_isatty else sys.stdout):
            def on_log(record: dict[str, Any]) -> None:
                if update is not None and "loss" in record:
                    update(record["step"], loss=record["loss"], rate=record["steps_per_s"])

            result = run_training(name, on_log, task=task, arch=arch, preset=preset, data=data_dir, steps=total,
                                  device=device, resume=resume, batch_size=batch_size or 0, seed=seed,
                                  time_limit=time_limit, stop_at=stop_at, log_every=log_every,
                                  val_every=val_every, ckpt_every=ckpt_every, rename_aps=rename_aps)
    except (ValueError, OSError) as e:
        return _fail(ctx, e)
    if result.registered is not None:
        _say(ctx, "", f"model {result.name!r} registered ({result.registered.weights_path}); "
             f"use it with `ltlwit solve --model {result.name}` or `ltlwit eval --model {result.name} --data FILE`")
        env.stdout.write(result.name + "\n")
    elif lead:
        _say(ctx, "", f"stopped at step {result.step} ({result.stopped}); checkpoint in {result.out}; "
             "continue with --resume")
    return ExitStatus.SUCCESS


@click.command("eval")
@click.option("--model", required=True, metavar="NAME", shell_complete=model_completer(),
              help="A model from `ltlwit models list`, or a .pt file.")
@click.option("--data", "data_file", type=click.Path(exists=True, dir_okay=False), required=True, metavar="FILE",
              help="Two-line data file (.gz ok) or a JSON Lines grid (formula, witness).")
@click.option("--beam", type=click.IntRange(min=1), default=3, show_default=True, help="Beam size.")
@click.option("--top", type=click.IntRange(min=1), default=None, metavar="N",
              help="Top-N accuracy: one of the N best candidates verifies [default: the beam size].")
@_report_format
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
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="auto: CUDA when available, else the CPU.")
@click.option("--batch-size", type=click.IntRange(min=1), default=128, show_default=True,
              help="Formulas per beam-search batch.")
@click.option("--max-len", type=click.IntRange(min=1), default=160, show_default=True,
              help="Longest model output, in tokens.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the alpha-covariance draws.")
@click.pass_context
def eval_(ctx: click.Context, model: str, data_file: str, beam: int, top: int | None, fmt: str,
          grid_csv: str | None, size_bucket: int, limit: int | None, alpha_samples: int, alpha_variants: int,
          alpha_pool: int, device: str, batch_size: int, max_len: int, seed: int) -> ExitStatus:
    """Accuracy of a model on a data set: correct (best candidate verified by the engine), top-N,
    exact match, invalid outputs, an accuracy grid by AP count and size, and alpha-covariance."""
    import json

    from ltlwit.eval.report import render, to_json, write_grid_csv, write_grid_png
    from ltlwit.eval.run import EvalOptions, run_eval
    from ltlwit.progress import progress_bar

    env = Environment.of(ctx)
    try:
        options = EvalOptions(model=model, data=data_file, beam=beam, top=top, limit=limit,
                              alpha_samples=alpha_samples, alpha_variants=alpha_variants, alpha_pool=alpha_pool,
                              size_bucket=size_bucket, batch_size=batch_size, device=device, seed=seed,
                              max_len=max_len)
    except ValueError as e:
        raise click.UsageError(str(e), ctx) from None
    try:
        with progress_bar(env, "evaluating", fields="{task.fields[phase]}", phase="") as update:
            result = run_eval(options, progress=lambda phase, done, total: update(done, total=total, phase=phase))
        if grid_csv:
            write_grid_csv(result.accuracy, grid_csv)
            png = os.path.splitext(grid_csv)[0] + ".png"
            wrote = write_grid_png(result.accuracy, png, f"{model} on {os.path.basename(data_file)}")
            _say(ctx, grid_csv, "grid written" + (f" (and {png})" if wrote else " (no PNG: matplotlib not installed)"))
    except (ValueError, OSError, EOFError) as e:
        return _fail(ctx, e)
    if fmt == "json":
        env.stdout.write(json.dumps(to_json(result.accuracy, result.alpha, result.meta)) + "\n")
    else:
        render(_console(env), result.accuracy, result.alpha, result.meta)
    return ExitStatus.SUCCESS


@click.group()
def models() -> None:
    """Trained models: bundled with ltlwit, and your own from `ltlwit train` (stored in the user
    data dir; $LTLWIT_HOME overrides)."""


@models.command("list")
@_report_format
@click.pass_context
def models_list(ctx: click.Context, fmt: str) -> ExitStatus:
    """Bundled and user models: name, source, task, architecture, size, training steps."""
    import json

    from ltlwit.registry import list_models

    env = Environment.of(ctx)
    rows = [m.summary() for m in list_models()]
    if fmt == "json":
        for row in rows:
            env.stdout.write(json.dumps(row) + "\n")
        return ExitStatus.SUCCESS
    from rich.table import Table

    table = Table("name", "source", "task", "arch", "parameters", "steps", "device")
    for r in rows:
        table.add_row(r["name"], r["source"], r["task"], r["arch"], f"{r['parameters']:,}" if r["parameters"] else "",
                      str(r["steps"] or ""), str(r["device"] or ""))
    _console(env).print(table if rows else "no models (train one with `ltlwit train`)")
    return ExitStatus.SUCCESS


@models.command("show")
@click.argument("name", shell_complete=model_completer())
@click.pass_context
def models_show(ctx: click.Context, name: str) -> ExitStatus:
    """The manifest of model NAME (architecture, training data and commands, versions) as JSON."""
    import json

    return _print_model(ctx, name, lambda info: json.dumps({"source": info.source, **info.manifest}, indent=1))


@models.command("path")
@click.argument("name", shell_complete=model_completer())
@click.pass_context
def models_path(ctx: click.Context, name: str) -> ExitStatus:
    """The weights file of model NAME (its manifest is beside it, .json)."""
    return _print_model(ctx, name, lambda info: info.weights_path)


def _print_model(ctx: click.Context, name: str, render: Callable[[Any], str]) -> ExitStatus:
    """`render(info)` of the model NAME on stdout, or a one-line error if there is none."""
    from ltlwit.output import Printer
    from ltlwit.registry import resolve

    try:
        info = resolve(name)
    except ValueError as e:
        return _fail(ctx, e)
    Printer(Environment.of(ctx)).data(render(info))
    return ExitStatus.SUCCESS


#: What `ltlwit.cli` adds to the `ltlwit` group.
COMMANDS = (data, train, eval_, models)
