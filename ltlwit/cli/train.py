"""`ltlwit train`: the training loop (`ltlwit.train.run`) under a model name, with a progress
bar on a terminal; the finished model is registered for `solve` and `eval`."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import click

from ltlwit.cli.choices import ARCHS, DEVICES, PRESETS
from ltlwit.cli.environment import Environment
from ltlwit.cli.options import Number, fail, say, task_option
from ltlwit.cli.progress import progress_bar
from ltlwit.cli.status import ExitStatus
from ltlwit.train.run import default_steps, model_name, rank
from ltlwit.train.run import train as run_training


@click.command()
@task_option
@click.option("--arch", type=click.Choice(ARCHS), required=True,
              help="si: symbol-invariant transformer; dual: dual-part embeddings; the papers' baselines: full "
              "(a learned embedding per AP, 10 APs), renaming (the same, trained with alpha-renaming into its 10 "
              "APs), lexinv (every AP's embedding random per sequence).")
@click.option("--preset", type=click.Choice(PRESETS), default="small", show_default=True,
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
@click.option("--extra-train", multiple=True, type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="Another training file appended to DIR/train (repeatable), e.g. 0/1-AP samples.")
@click.option("--static-shapes", type=click.IntRange(min=0), default=0, metavar="STEP",
              help="Pad batch widths to multiples of STEP (e.g. 16): a few shapes, for --cuda-graphs.")
@click.option("--cuda-graphs", is_flag=True, help="Replay each static shape's training step from a CUDA graph.")
@click.option("--checkpoint-part-mb", type=Number(min=0), default=0.0, metavar="MIB",
              help="Write checkpoints as parts of at most MIB MiB [default: one file].")
@click.pass_context
def train(ctx: click.Context, task: str, arch: str, preset: str, data_dir: str, steps: int | None, device: str,
          resume: bool, name: str | None, batch_size: int | None, seed: int, time_limit: float, stop_at: int,
          log_every: int, val_every: int, ckpt_every: int, rename_aps: int, extra_train: tuple[str, ...],
          static_shapes: int, cuda_graphs: bool, checkpoint_part_mb: float) -> ExitStatus:
    """Train a model on DIR and register it under NAME for `solve` and `eval`. Checkpoints go
    to the user data dir ($LTLWIT_HOME overrides). Several processes or GPUs: run it under
    `torchrun --nproc_per_node N -m ltlwit train ...`."""
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
                                  val_every=val_every, ckpt_every=ckpt_every, rename_aps=rename_aps,
                                  extra_train=extra_train, static_shapes=static_shapes, cuda_graphs=cuda_graphs,
                                  checkpoint_part_mb=checkpoint_part_mb)
    except (ValueError, OSError) as e:
        return fail(ctx, e)
    if result.registered is not None:
        say(ctx, "", f"model {result.name!r} registered ({result.registered.weights_path}); "
             f"use it with `ltlwit solve --model {result.name}` or `ltlwit eval --model {result.name} --data FILE`")
        env.stdout.write(result.name + "\n")
    elif lead:
        say(ctx, "", f"stopped at step {result.step} ({result.stopped}); checkpoint in {result.out}; "
             "continue with --resume")
    return ExitStatus.SUCCESS
