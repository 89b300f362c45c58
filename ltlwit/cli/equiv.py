"""`ltlwit equiv`: formulas equivalent to each FORMULA, written by an ExpEmb-E model and each proved
by the engine (`ltlwit.pipeline.equivalents`)."""

from __future__ import annotations

import json

import click

from ltlwit.cli.environment import Environment
from ltlwit.cli.options import (
    fail,
    format_choice,
    model_completer,
    semantics_of,
    semantics_options,
    syntax_option,
    timeout_option,
)
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus, worst


@click.command()
@click.argument("formulas", nargs=-1, required=True, metavar="FORMULA...")
@click.option(
    "--model",
    default="auto",
    show_default=True,
    metavar="NAME|FILE",
    shell_complete=model_completer(("auto",), embedding=True),
    help="An ExpEmb-E model (`ltlwit train --arch expemb-e`): a registered name or a weights file; auto: the "
    "bundled one of each FORMULA's logic (expemb-ltl; expemb-prop for a formula without temporal operators).",
)
@click.option(
    "--beam",
    type=click.IntRange(1, 200),
    default=10,
    show_default=True,
    metavar="N",
    help="Outputs asked of the model.",
)
@format_choice(
    "text: each FORMULA, then its proved equivalents indented below it, shortest first; json: JSON Lines, one "
    "object per FORMULA (input, equivalents, outputs, malformed, undecided)."
)
@syntax_option
@semantics_options
@timeout_option("Time limit per engine question; an output it does not decide is dropped.", 2.0)
@click.pass_context
def equiv(
    ctx: click.Context,
    formulas: tuple[str, ...],
    model: str,
    beam: int,
    fmt: str,
    syntax: str,
    timeout: float,
    **options: object,
) -> ExitStatus:
    """Formulas equivalent to each FORMULA: the N outputs of an ExpEmb-E model's beam (the fifth
    paper's generation task), each proved equivalent to FORMULA by the engine under its semantics and
    printed in FORMULA's names, shortest first. Outputs that are no formula, FORMULA itself, or that the
    engine does not decide within --timeout are dropped: what is printed is proved.

    Exit status 0 when every FORMULA got an equivalent, 1 when one got none, 2 for errors (a FORMULA
    that does not parse, a model that is not ExpEmb-E: the other formulas are still answered)."""
    from ltlwit.api import parse
    from ltlwit.logic.syntax import print_formula
    from ltlwit.pipeline.equivalents import Rewriter

    env = Environment.of(ctx)
    printer = Printer(env)
    semantics = semantics_of(ctx, dict(options))
    try:
        rewriter = Rewriter(model)
    except ValueError as problem:  # not an ExpEmb-E model, no such model
        return fail(ctx, problem)
    status = ExitStatus.SUCCESS
    for text in formulas:
        try:
            found = rewriter.equivalents(parse(text, syntax), beam, timeout, semantics)
        except ValueError as error:  # a parse error (with its caret), a formula the model cannot read
            printer.unread("input", f"{text}: {error}", error)
            status = ExitStatus.ERROR
            continue
        written = [print_formula(g, "spot") for g in found.formulas]
        if fmt == "json":
            row = {"input": text, "equivalents": written, "outputs": found.outputs}
            printer.data(json.dumps(row | {"malformed": found.malformed, "undecided": found.undecided}))
        else:
            printer.data(text)
            for line in written:
                printer.data(f"  {line}")
        if not written:
            printer.message("input", f"{text}: none of the model's {found.outputs} outputs proved equivalent")
            status = worst(status, ExitStatus.NEGATIVE)
    return status
