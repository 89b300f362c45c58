"""`ltlwit similar`: each spec's (or query's) nearest specs, each pair's relation decided by the
engine; text lines or JSON Lines (`ltlwit.specs.similar`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from ltlwit.cli.environment import Environment
from ltlwit.cli.options import (
    fail,
    files_option,
    format_choice,
    index_option,
    semantics_of,
    semantics_options,
    syntax_option,
    timeout_option,
)
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus, worst
from ltlwit.logic.relations import Relation

if TYPE_CHECKING:
    from ltlwit.specs.similar import Similar


@click.command()
@click.argument("queries", nargs=-1, metavar="[QUERY]...")
@files_option(
    "A spec file ('-': stdin), read as `check` reads it. Repeatable: the specs of all of them are compared "
    "(with --index: each is looked up in the index)."
)
@index_option(
    "Look each QUERY and each spec of the files up in the index at DIR (`ltlwit embed --index DIR`: a "
    "library of formulas too large to compare in one run) instead of comparing the files' specs.",
)
@click.option(
    "--top", type=click.IntRange(min=1), default=5, show_default=True, metavar="K", help="Nearest specs per query."
)
@format_choice("text: each query, then its nearest indented below it; json: JSON Lines, one object per query.")
@syntax_option
@semantics_options
@timeout_option("Time limit per engine question deciding a relation; past it the relation is undecided.", 10.0)
@click.pass_context
def similar(
    ctx: click.Context,
    queries: tuple[str, ...],
    files: tuple[str, ...],
    index_path: str | None,
    top: int,
    fmt: str,
    syntax: str,
    timeout: float | None,
    **options: object,
) -> ExitStatus:
    """For each QUERY (each spec of the files against the others when no QUERY is given), the K specs
    of the files nearest to it by cosine similarity of semantic fingerprints (truth values on a fixed
    set of traces: equivalent formulas get equal ones), and how each relates to it, decided by the
    engine: equivalent, stronger (it implies the query), weaker (the query implies it), overlapping,
    disjoint (jointly unsatisfiable), or undecided with the reason when --timeout stops it.

    With --index DIR, the nearest come from a library indexed beforehand (`ltlwit embed -F FILE --index
    DIR`), for each QUERY and each spec of the files: the same ranking, the relations decided the same way.

    Exit status 0 when every relation is decided, 1 when one is undecided, 2 for errors (a spec or
    query that does not parse: the others are still compared)."""
    from ltlwit.api import Solver
    from ltlwit.specs.similar import similar_files, similar_in_index

    if not files and index_path is None:
        raise click.UsageError("give the specs to compare (-F FILE) or an index to look them up in (--index DIR)")
    if index_path is not None and not files and not queries:
        raise click.UsageError("nothing to look up in the index: give a QUERY or -F FILE")
    env = Environment.of(ctx)
    printer = Printer(env)
    solve = Solver(model="none", syntax=syntax, timeout=timeout, semantics=semantics_of(ctx, dict(options))).options
    status = ExitStatus.SUCCESS
    if index_path is None:
        answers = similar_files(files, queries, solve, top, env.stdin)
    else:
        try:
            answers = similar_in_index(index_path, files, queries, solve, top, env.stdin)
        except ValueError as problem:  # no index there, another version, no faiss
            return fail(ctx, problem)
    for answer in answers:
        if answer.error is not None:
            status = worst(status, ExitStatus.ERROR)
            printer.unread(answer.entry.where or "query", answer.error, answer.parse_error)
        elif any(n.related.relation is Relation.UNDECIDED for n in answer.neighbours):
            status = worst(status, ExitStatus.NEGATIVE)
        printer.data(json.dumps(_record(answer)) if fmt == "json" else _text(answer))
    return status


def _text(answer: Similar) -> str:
    head = f"{answer.entry.label}: {answer.entry.text}" if answer.entry.where else answer.entry.text
    if answer.error is not None:
        return f"ERROR {head}"
    if answer.note is not None:
        return f"{head}\n  ({answer.note})"
    lines = [head]
    for n in answer.neighbours:
        reason = f" ({n.related.reason})" if n.related.reason else ""
        lines.append(f"  {n.similarity:5.2f}  {n.related.relation.value:<11}  {n.entry.label}: {n.entry.text}{reason}")
    return "\n".join(lines)


def _record(answer: Similar) -> dict[str, Any]:
    entry = answer.entry
    return {
        "input": entry.text,
        "name": entry.name,
        "where": entry.where,
        "neighbours": [
            {
                "input": n.entry.text,
                "name": n.entry.name,
                "where": n.entry.where,
                "similarity": round(n.similarity, 4),
                "relation": n.related.relation.value,
                "reason": n.related.reason,
            }
            for n in answer.neighbours
        ],
        "note": answer.note,
        "error": answer.error,
    }
