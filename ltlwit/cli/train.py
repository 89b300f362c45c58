"""`ltlwit train`: the training loop (`ltlwit.train.run`) under a model name, with a progress
bar on a terminal; the finished model is registered for `solve` and `eval`."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import click

from ltlwit.cli.choices import ARCHS, PRESETS
from ltlwit.cli.environment import Environment
from ltlwit.cli.options import Number, device_option, fail, say, task_option, training_data_option
from ltlwit.cli.progress import progress_bar
from ltlwit.cli.status import ExitStatus
from ltlwit.train.run import default_steps, model_name, rank
from ltlwit.train.run import train as run_training
from ltlwit.train.settings import Settings as D


@click.command()
@task_option
@click.option(
    "--arch",
    type=click.Choice(ARCHS),
    required=True,
    help="si: symbol-invariant transformer; dual: dual-part embeddings; the papers' baselines: full "
    "(a learned embedding per AP, 10 APs), renaming (the same, trained with alpha-renaming into its 10 "
    "APs), lexinv (every AP's embedding random per sequence); formula embeddings (`ltlwit embed`): expemb-e "
    "(a GRU encoder-decoder that writes an equivalent formula), expemb-a (the same, writing its input), expemb-i "
    "(expemb-e with interchangeable AP tokens: each AP's embedding partly random per pair).",
)
@click.option(
    "--preset",
    type=click.Choice(PRESETS),
    default=D.preset,
    show_default=True,
    help="Model size: the papers' (for a GPU), CPU-sized, or a test toy.",
)
@training_data_option
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=None,
    help="Training steps [default: paper 52000 ltl / 50000 prop, small 20000, tiny 200].",
)
@device_option
@click.option("--resume", is_flag=True, help="Continue from the model's last checkpoint.")
@click.option("--name", default=None, help="Model name to register [default: ARCH-TASK-PRESET].")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Train into DIR (checkpoints, model.pt and model.json, log.jsonl) instead of the model's checkpoint "
    "folder, and register nothing: for scripts and clusters (use the weights as --model DIR/model.pt).",
)
@click.option("--batch-size", type=click.IntRange(min=1), default=None, help="Per process [default: the preset's].")
@click.option("--seed", type=int, default=D.seed, show_default=True, help="Seed of initialisation and batch order.")
@click.option(
    "--time-limit",
    type=Number(min=0),
    default=D.time_limit,
    metavar="SECONDS",
    help="Stop so that the run, data loading and its final checkpoint and weights included, ends before "
    "SECONDS (continue with --resume). The loop stops early by its estimate of that end (3x the last "
    "checkpoint's write, the calibration of a dual or lexinv model, 2 s), which it prints.",
)
@click.option(
    "--stop-at",
    type=click.IntRange(min=0),
    default=D.stop_at,
    metavar="STEP",
    help="Checkpoint and stop at STEP (continue with --resume).",
)
@click.option(
    "--log-every",
    type=click.IntRange(min=1),
    default=D.log_every,
    show_default=True,
    metavar="N",
    help="Log loss and speed every N steps.",
)
@click.option(
    "--val-every",
    type=click.IntRange(min=0),
    default=D.val_every,
    show_default=True,
    metavar="N",
    help="Validate (loss, greedy outputs checked by the engine) every N steps; 0: at the end only.",
)
@click.option(
    "--ckpt-every",
    type=click.IntRange(min=0),
    default=D.ckpt_every,
    show_default=True,
    metavar="N",
    help="Checkpoint every N steps (and always at the end).",
)
@click.option(
    "--lr",
    type=Number(min=0),
    default=D.lr,
    show_default=True,
    metavar="LR",
    help="Peak learning rate (AdamW): reached after the warm-up, then a cosine decay.",
)
@click.option(
    "--warmup",
    type=click.IntRange(min=0),
    default=None,
    metavar="STEPS",
    help="Linear warm-up steps [default: min(1000, steps/10)].",
)
@click.option(
    "--min-lr-ratio",
    type=Number(min=0),
    default=D.min_lr_ratio,
    show_default=True,
    metavar="R",
    help="The cosine decays to R x --lr at the last step (0: to zero, as the papers).",
)
@click.option(
    "--init-from",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="WEIGHTS",
    help="Without a checkpoint, start from these fp16 weights (a model's .pt, `ltlwit models path NAME`) "
    "at their step, with a fresh optimiser: 100 warm-up steps, then the cosine from --lr over the steps "
    "left.",
)
@click.option(
    "--emb-dropout",
    type=Number(min=0, max=1),
    default=None,
    metavar="P",
    help="Dropout on the embeddings of a new or continued model [default: its config's; presets 0.1].",
)
@click.option(
    "--contrastive",
    type=Number(min=0),
    default=None,
    metavar="W",
    help="Embedding models: add W x a contrastive term (a pair's two embeddings nearest each other "
    "among the batch's; none of the papers has it) to a new model's loss [default: its config's; "
    "presets 0, the paper's loss].",
)
@click.option(
    "--hidden",
    type=click.IntRange(min=1),
    default=None,
    metavar="H",
    help="Embedding models: the paper's H, the GRUs' width, of a new model [default: the preset's: paper "
    "1024 (ExpEmb-A 128), small 256 (128), tiny 32].",
)
@click.option(
    "--cross-rope/--no-cross-rope",
    default=None,
    help="RoPE in cross-attention [default: the config's; presets on, the bundled weights off].",
)
@click.option(
    "--rename-aps",
    type=click.IntRange(min=0),
    default=D.rename_aps,
    metavar="POOL",
    help="Augmentation: rename each training sample's APs by a fresh random bijection of POOL slots "
    "(e.g. 5), so that the model sees every AP name in every role [default: off].",
)
@click.option(
    "--extra-train",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    metavar="FILE",
    help="Another training file appended to DIR/train (repeatable), e.g. 0/1-AP samples.",
)
@click.option(
    "--static-shapes",
    type=click.IntRange(min=0),
    default=D.static_shapes,
    metavar="STEP",
    help="Pad batch widths to multiples of STEP (e.g. 16): a few shapes, for --cuda-graphs.",
)
@click.option("--cuda-graphs", is_flag=True, help="Replay each static shape's training step from a CUDA graph.")
@click.option(
    "--checkpoint-part-mb",
    type=Number(min=0),
    default=D.checkpoint_part_mb,
    metavar="MIB",
    help="Write checkpoints as parts of at most MIB MiB [default: one file].",
)
@click.option(
    "--fit-steps-to-time",
    is_flag=True,
    help="With --time-limit: measure the step time (steps 30-130) and end the schedule (--steps) where "
    "the time ends, so the cosine completes.",
)
@click.option("--compile", "compile_", is_flag=True, help="torch.compile the model (minutes per batch shape).")
@click.option(
    "--max-tokens",
    type=click.IntRange(min=0),
    default=D.max_tokens,
    metavar="N",
    help="Split batches above N padded tokens (x APs for si): bounds GPU memory [default: no bound].",
)
@click.option(
    "--val-samples",
    type=click.IntRange(min=1),
    default=D.val_samples,
    show_default=True,
    metavar="N",
    help="Validation samples for the loss and token accuracy.",
)
@click.option(
    "--greedy-samples",
    type=click.IntRange(min=1),
    default=D.greedy_samples,
    show_default=True,
    metavar="N",
    help="Validation samples decoded greedily and checked by the engine.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=D.workers,
    metavar="N",
    help="Processes parsing the data [default: the cores, at most 8].",
)
@click.option(
    "--cache",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Folder for the tokenised data caches [default: $LTLWIT_CACHE, else the checkpoint folder].",
)
@click.pass_context
def train(
    ctx: click.Context,
    task: str,
    arch: str,
    preset: str,
    data_dir: str,
    steps: int | None,
    device: str,
    resume: bool,
    name: str | None,
    out: str | None,
    batch_size: int | None,
    seed: int,
    time_limit: float,
    stop_at: int,
    log_every: int,
    val_every: int,
    ckpt_every: int,
    lr: float,
    warmup: int | None,
    min_lr_ratio: float,
    init_from: str | None,
    emb_dropout: float | None,
    contrastive: float | None,
    hidden: int | None,
    cross_rope: bool | None,
    rename_aps: int,
    extra_train: tuple[str, ...],
    static_shapes: int,
    cuda_graphs: bool,
    checkpoint_part_mb: float,
    fit_steps_to_time: bool,
    compile_: bool,
    max_tokens: int,
    val_samples: int,
    greedy_samples: int,
    workers: int,
    cache: str | None,
) -> ExitStatus:
    """Train a model on DIR and register it under NAME for `solve` and `eval`. Checkpoints go
    to the user data dir ($LTLWIT_HOME overrides), or to --out. Several processes or GPUs: run
    it under `torchrun --nproc_per_node N -m ltlwit train ...`."""
    env = Environment.of(ctx)
    name = model_name(task, arch, preset, name)
    lead = rank() == 0
    total = steps or default_steps(task, preset)
    bar = (
        progress_bar(
            env,
            f"training {name}",
            total=total,
            fields="loss {task.fields[loss]:.4f}  {task.fields[rate]:.1f} steps/s",
            loss=float("nan"),
            rate=0.0,
        )
        if lead
        else contextlib.nullcontext(None)
    )
    try:
        with bar as update, contextlib.redirect_stdout(env.stderr if not env.stderr_isatty else sys.stdout):

            def on_log(record: dict[str, Any]) -> None:
                if update is not None and "loss" in record:
                    update(record["step"], loss=record["loss"], rate=record["steps_per_s"])

            unset = {
                "warmup": warmup,
                "init_from": init_from,
                "emb_dropout": emb_dropout,
                "contrastive": contrastive,
                "hidden": hidden,
                "cache": cache,
            }
            result = run_training(
                name,
                on_log,
                out,
                task=task,
                arch=arch,
                preset=preset,
                data=data_dir,
                steps=total,
                device=device,
                resume=resume,
                batch_size=batch_size or 0,
                seed=seed,
                time_limit=time_limit,
                stop_at=stop_at,
                log_every=log_every,
                val_every=val_every,
                ckpt_every=ckpt_every,
                lr=lr,
                min_lr_ratio=min_lr_ratio,
                cross_rope=cross_rope,
                rename_aps=rename_aps,
                extra_train=extra_train,
                static_shapes=static_shapes,
                cuda_graphs=cuda_graphs,
                checkpoint_part_mb=checkpoint_part_mb,
                fit_steps_to_time=fit_steps_to_time,
                compile=compile_,
                max_tokens=max_tokens,
                val_samples=val_samples,
                greedy_samples=greedy_samples,
                workers=workers,
                **{k: v for k, v in unset.items() if v is not None},
            )
    except (ValueError, OSError) as e:
        return fail(ctx, e)
    embeds = arch.startswith("expemb-")  # writes formulas: an embedding, not witnesses
    if result.registered is not None:
        use = (
            f"`ltlwit embed --model {result.name}`"
            if embeds
            else f"`ltlwit solve --model {result.name}` or `ltlwit eval --model {result.name} --data FILE`"
        )
        say(ctx, "", f"model {result.name!r} registered ({result.registered.weights_path}); use it with {use}")
        env.stdout.write(result.name + "\n")
    elif lead and result.stopped == "done":
        weights = result.out / "model.pt"
        say(ctx, "", f"weights in {weights}; use them with `ltlwit {'embed' if embeds else 'solve'} --model {weights}`")
        env.stdout.write(f"{weights}\n")
    elif lead:
        say(
            ctx,
            "",
            f"stopped at step {result.step} ({result.stopped}); checkpoint in {result.out}; continue with --resume",
        )
    return ExitStatus.SUCCESS
