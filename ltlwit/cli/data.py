"""`ltlwit data generate|stats|equiv`: data sets in DeepLTL's two-line format, made and labelled
by ltlwit's own engine (`ltlwit.train.label`), and their statistics; equivalence classes for the
embeddings (`ltlwit.train.equiv`)."""

from __future__ import annotations

import json
import os

import click

from ltlwit.cli.choices import ALPHABETS, EQUIV_LOGICS, EQUIV_SOURCES
from ltlwit.cli.environment import Environment
from ltlwit.cli.options import Number, fail, report_console, report_format, say, task_option
from ltlwit.cli.progress import progress_bar
from ltlwit.cli.status import ExitStatus
from ltlwit.train.generate import MAX_NORMAL_SIZE
from ltlwit.train.label import GenerateConfig, generate_dataset
from ltlwit.train.stats import comparison_rows, dataset_stats, render_comparison, render_stats, size_histogram


@click.group()
def data() -> None:
    """Make and inspect data sets in DeepLTL's two-line format (a formula line in Polish
    notation, then its witness line; `.gz` files are compressed)."""


@data.command("generate")
@task_option
@click.option(
    "--aps",
    type=click.IntRange(0, 26),
    required=True,
    metavar="N",
    help="Number of APs (a, b, ...); 0: formulas over the constants only.",
)
@click.option(
    "--max-size",
    type=click.IntRange(1, MAX_NORMAL_SIZE),
    required=True,
    metavar="S",
    help="Largest formula size (Polish tokens); sizes 1..S.",
)
@click.option(
    "-n",
    "--count",
    type=click.IntRange(min=1),
    required=True,
    metavar="COUNT",
    help="Samples the file should hold (a re-run on the same file continues up to COUNT).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    required=True,
    metavar="FILE[.gz]",
    help="Output file; appended to if it exists.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same data).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes [default: all cores].")
@click.option(
    "--alphabet",
    type=click.Choice(ALPHABETS),
    default=None,
    help="Operator priorities: ltl35 (1 0 ! X U &, LTLRandom35's), ltl (every LTL operator), prop (! & | "
    "weight 2, <-> xor 1 0 weight 1); ltl35-matched and prop-matched (the defaults): the same operators, "
    "priorities fitted so that the output's operator mix is ltl35's / prop35's.",
)
@click.option(
    "--uniform-from",
    type=click.IntRange(min=1),
    default=None,
    metavar="SIZE",
    help="Sizes from SIZE on come out uniform, sharing out what exhausted sizes leave [default: 1, every "
    "size; DeepLTL used 10 for LTL and 12 for prop, with --alpha 0.112].",
)
@click.option(
    "--alpha",
    type=Number(0, 1, max_open=True),
    default=0.0,
    show_default=True,
    help="Share of the samples left to the sizes below --uniform-from.",
)
@click.option(
    "--timeout",
    type=Number(min=0, min_open=True),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="Engine time per LTL formula; formulas past it are skipped.",
)
@click.option(
    "--exclude",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    metavar="FILE",
    help="Never generate a formula of FILE (two-line; repeatable), e.g. the validation and test splits.",
)
@click.option(
    "--size-shares",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="FILE",
    help="Give each size the share it has in FILE (two-line, e.g. ../shared/data/ltl35/test.txt.gz), as "
    "far as distinct formulas exist; replaces --uniform-from and --alpha.",
)
@click.pass_context
def data_generate(
    ctx: click.Context,
    task: str,
    aps: int,
    max_size: int,
    count: int,
    output: str,
    seed: int,
    jobs: int | None,
    alphabet: str | None,
    uniform_from: int | None,
    alpha: float,
    timeout: float,
    exclude: tuple[str, ...],
    size_shares: str | None,
) -> ExitStatus:
    """Random formulas labelled by ltlwit's own engine (LTL: satisfiable formulas and a verified
    lasso trace; prop: a minimal partial assignment, no unsatisfiable formulas or tautologies)."""
    env = Environment.of(ctx)
    try:
        shares = dict(size_histogram(size_shares)) if size_shares else None
        config = GenerateConfig(
            task=task,
            n_aps=aps,
            max_size=max_size,
            count=count,
            seed=seed,
            size_shares=shares,
            alphabet=alphabet,
            uniform_from=uniform_from,
            alpha=alpha,
            seconds=timeout,
            jobs=jobs or os.cpu_count() or 1,
            exclude=exclude,
        )
        with progress_bar(env, "generating", total=count) as update:
            report = generate_dataset(output, config, progress=lambda p: update(p.total))
    except (ValueError, OSError) as e:
        return fail(ctx, e)
    say(
        ctx,
        output,
        f"{report.total} samples ({report.added} new, {report.existing} already there); "
        f"{report.labelled} formulas labelled ({report.rejected} rejected, {report.duplicates} duplicates) "
        f"in {report.seconds:.1f}s with {config.jobs} job{'s' * (config.jobs > 1)}",
    )
    if not report.complete:
        say(
            ctx,
            output,
            f"only {report.total} of {count} samples: the size gate or the number of distinct "
            "formulas allows no more (raise --max-size or --aps, or lower --uniform-from)",
        )
        return ExitStatus.NEGATIVE
    return ExitStatus.SUCCESS


@data.command("stats")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@report_format
@click.option(
    "--compare",
    "reference",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    metavar="REF",
    help="Show FILE beside REF: AP counts, sizes, operator shares, constants, label lengths.",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, metavar="N", help="Read the first N samples of each file only."
)
@click.pass_context
def data_stats(ctx: click.Context, file: str, fmt: str, reference: str | None, limit: int | None) -> ExitStatus:
    """Counts per AP number and formula size of a two-line FILE (or a JSON Lines grid); with
    --compare, FILE and REF side by side."""
    env = Environment.of(ctx)
    try:
        stats = dataset_stats(file, limit)
        ref = dataset_stats(reference, limit) if reference else None
    except (ValueError, OSError, EOFError) as e:
        return fail(ctx, e)
    if fmt == "json":
        if ref is None:
            env.stdout.write(json.dumps(stats.to_json()) + "\n")
        else:
            rows = [
                {"measure": m, "reference": r, "file": f, "difference": d} for m, r, f, d in comparison_rows(ref, stats)
            ]
            env.stdout.write(json.dumps({"reference": ref.to_json(), "file": stats.to_json(), "rows": rows}) + "\n")
    elif ref is None:
        render_stats(report_console(env), stats)
    else:
        render_comparison(report_console(env), ref, stats)
    return ExitStatus.SUCCESS


@data.command("equiv")
@click.option(
    "--logic",
    type=click.Choice(EQUIV_LOGICS),
    default="ltl",
    show_default=True,
    help="prop: propositional formulas; ltl: LTL on infinite traces; ltlf: LTL on finite traces (each class's "
    "equivalence decided under that semantics).",
)
@click.option("--aps", type=click.IntRange(1, 26), default=3, show_default=True, metavar="N", help="APs (a, b, ...).")
@click.option(
    "--max-size",
    type=click.IntRange(3, MAX_NORMAL_SIZE),
    default=10,
    show_default=True,
    metavar="S",
    help="Largest size of a class's first formula (Polish tokens); its other members are at most twice that.",
)
@click.option("-n", "--classes", type=click.IntRange(min=1), required=True, metavar="COUNT", help="Classes to make.")
@click.option(
    "--members", type=click.IntRange(min=2), default=8, show_default=True, metavar="M", help="Most formulas per class."
)
@click.option(
    "--source",
    type=click.Choice(EQUIV_SOURCES),
    default="identities",
    show_default=True,
    help="identities: a random formula and formulas rewritten from it by identities; random: random formulas "
    "grouped by the engine's decision (members with no rewriting in common; the classes are found in the order "
    "drawn, mostly small).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    required=True,
    metavar="FILE[.gz]",
    help="JSON Lines file, written anew.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (same seed, same classes).")
@click.option(
    "--timeout",
    type=Number(min=0, min_open=True),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="Engine time per equivalence question; a member it does not prove equivalent is left out.",
)
@click.pass_context
def data_equiv(
    ctx: click.Context,
    logic: str,
    aps: int,
    max_size: int,
    classes: int,
    members: int,
    source: str,
    output: str,
    seed: int,
    timeout: float,
) -> ExitStatus:
    """Equivalence classes of formulas, for the embeddings of the fifth paper: each class a random
    formula and formulas made from it by identities applied at random positions (De Morgan, the
    temporal dualities, absorption, expansion laws, distribution...), or with --source random
    random formulas the engine groups; every member proved equivalent to the first by the
    engine; no two classes equivalent; classes split whole into train, val and test (test
    classes are never seen in training). JSON Lines, a class a line."""
    from ltlwit.train.equiv import EquivConfig, write_classes

    env = Environment.of(ctx)
    config = EquivConfig(
        logic=logic,
        n_aps=aps,
        max_size=max_size,
        classes=classes,
        members=members,
        seed=seed,
        seconds=timeout,
        source=source,
    )
    try:
        with progress_bar(env, "classes", total=classes) as update:
            stats = write_classes(output, config, update)
    except (ValueError, OSError) as e:
        return fail(ctx, e)
    for s in stats:
        say(
            ctx,
            output,
            f"{s.split}: {s.classes} classes, {s.formulas} formulas, length mean {s.mean_length}, max {s.max_length}",
        )
    return ExitStatus.SUCCESS
