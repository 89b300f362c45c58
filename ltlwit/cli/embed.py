"""`ltlwit embed`: one vector per formula, JSON Lines or CSV (`ltlwit.specs.similar.embed`)."""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Iterator

import click

from ltlwit.cli.choices import VECTOR_FORMATS
from ltlwit.cli.environment import Environment
from ltlwit.cli.jobs import jobs_of
from ltlwit.cli.options import (
    fail,
    files_option,
    index_option,
    model_completer,
    say,
    semantics_of,
    semantics_options,
    syntax_option,
)
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus

if TYPE_CHECKING:
    from ltlwit.specs.similar import Compared


@click.command()
@click.argument("formulas", nargs=-1, metavar="[FORMULA]...")
@files_option("A spec file ('-': stdin), read as `check` reads it: a vector per spec, with its name. Repeatable.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(VECTOR_FORMATS),
    default="json",
    show_default=True,
    help="json: JSON Lines (input, name, where, embedding: the model or fingerprint, vector); csv: a row per "
    "formula, the vector's entries after input, name and where.",
)
@click.option(
    "--size",
    type=click.IntRange(min=1, max=65536),
    default=256,
    show_default=True,
    metavar="N",
    help="With --fingerprint: the vector's length, the number of traces.",
)
@click.option(
    "--model",
    default=None,
    metavar="NAME|FILE",
    shell_complete=model_completer(embedding=True),
    help="The trained embedding model (bundled: expemb-ltl, expemb-prop; or `ltlwit train --arch expemb-e`): each "
    "vector its encoder's last state (APs renamed a, b, ... by first appearance over all the inputs). By default "
    "the bundled one of the inputs' logic (expemb-prop where none is temporal).",
)
@click.option(
    "--fingerprint",
    is_flag=True,
    help="The semantic fingerprint instead of a learned embedding: the truth values (+1, -1) on --size fixed "
    "traces, equal for equivalent formulas (what `similar` ranks by). Also without PyTorch or where the learned "
    "models cannot read an input (past operators, data, --finite), said on stderr.",
)
@index_option(
    "Add the fingerprints to the nearest-neighbour index at DIR (made where there is none; faiss: `pip "
    "install 'ltlwit[index]'`) instead of printing them, for `ltlwit similar --index DIR`.",
)
@jobs_of("With --index: processes computing the fingerprints (auto: one per usable core), in input order.")
@syntax_option
@semantics_options
@click.pass_context
def embed(
    ctx: click.Context,
    formulas: tuple[str, ...],
    files: tuple[str, ...],
    fmt: str,
    size: int,
    model: str | None,
    fingerprint: bool,
    index_path: str | None,
    jobs: int,
    syntax: str,
    **options: object,
) -> ExitStatus:
    """Print a vector for each FORMULA and each spec of the files: by default the bundled learned
    embedding's (the fifth paper's ExpEmb-E, trained to rewrite formulas into equivalent ones: the encoder's
    last state; close for formulas it learned to rewrite into each other, a guess `similar` never takes for a
    claim). With --fingerprint, or without PyTorch or where the learned models cannot read an input (past
    operators, data, finite traces: said on stderr), the semantic fingerprint: the formula's truth values
    (+1, -1) on a fixed set of traces (lassos; finite traces with --finite), the same in every run, equal
    for equivalent formulas; what `ltlwit similar` ranks by (a formula over data gets its skeleton's). With --index DIR,
    the fingerprints go into a nearest-neighbour index for `ltlwit similar --index DIR` (a library of
    formulas over propositions; adding to an index needs its semantics and --size).

    Exit status 0, or 2 when a formula or spec does not parse (the others are still printed)."""
    from ltlwit.api import Solver
    from ltlwit.specs.similar import Embedded, Similar, embedded, entries

    env = Environment.of(ctx)
    printer = Printer(env)
    solve = Solver(model="none", syntax=syntax, semantics=semantics_of(ctx, dict(options))).options
    status = ExitStatus.SUCCESS

    def read_all() -> Iterator[Compared]:
        nonlocal status
        for item in entries(files, formulas, solve, env.stdin):
            if isinstance(item, Similar):
                status = ExitStatus.ERROR
                printer.unread(item.entry.where or "input", str(item.error), item.parse_error)
            else:
                yield item

    if model is not None and fingerprint:
        raise click.UsageError("--model and --fingerprint give different vectors: one of them", ctx)
    if index_path is not None:
        if model is not None:
            raise click.UsageError("--index holds fingerprints; --model's vectors cannot go into one", ctx)
        return _indexed(ctx, printer, index_path, read_all(), solve.semantics, size, jobs) or status
    read = list(read_all())
    try:
        done_all, why = embedded(read, model, fingerprint, size)
    except ValueError as problem:  # no embedding model, too many APs
        return fail(ctx, problem)
    if why is not None:
        say(ctx, "", f"the fingerprint for every input: {why}")
    width = next((len(d.vector) for d in done_all if isinstance(d, Embedded)), 0)
    if fmt == "csv":
        printer.data(_row(["input", "name", "where", *(f"v{k}" for k in range(width))]))
    for done in done_all:
        if isinstance(done, Similar):
            status = ExitStatus.ERROR
            printer.unread(done.entry.where or "input", str(done.error), None)
            continue
        e = done.entry
        if fmt == "csv":
            printer.data(_row([e.text, e.name or "", e.where or "", *map(str, done.vector)]))
        else:
            record = {"input": e.text, "name": e.name, "where": e.where, "embedding": done.embedding}
            printer.data(json.dumps({**record, "vector": list(done.vector)}))
    return status


def _indexed(
    ctx: click.Context, printer: Printer, path: str, read: Iterator[Compared], semantics: str, size: int, jobs: int
) -> ExitStatus | None:
    """Add the fingerprints of `read` to the index at `path` as they come (those that cannot go
    into one said) and say how many it holds; an error's status, None where every one went in."""
    from ltlwit.specs.index import add, refused

    left_out = 0

    def kept() -> Iterator[Compared]:
        nonlocal left_out
        for entry in read:
            why = refused(entry)
            if why is None:
                yield entry
            else:
                left_out += 1
                printer.message(entry.where or "input", why)

    try:
        added, count = add(path, kept(), semantics, size, jobs=jobs)
    except ValueError as problem:  # another semantics or size, no faiss
        return fail(ctx, problem)
    say(ctx, path, f"{added} added, {count} in the index")
    return ExitStatus.ERROR if left_out else None


def _row(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(cells)
    return out.getvalue()
