"""`ltlwit verify`: HOLDS, FAILS or UNKNOWN for each FORMULA/WITNESS pair."""

from __future__ import annotations

from typing import Iterator

import click

from ltlwit.cli.environment import Environment
from ltlwit.cli.options import emit_all, engine_option, files_option, format_option, inputs, logic_option, \
    syntax_option
from ltlwit.cli.output import verify_printer
from ltlwit.cli.status import ExitStatus
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.options import engine_problem
from ltlwit.pipeline.verify import Verdict, VerifyOptions, verify_lines, verify_one


@click.command()
@click.argument("pair", nargs=-1, metavar="[FORMULA WITNESS]")
@files_option("Read FORMULA<TAB>WITNESS lines from FILE ('-': stdin). Repeatable.")
@logic_option
@syntax_option
@format_option
@engine_option
@click.pass_context
def verify(ctx: click.Context, pair: tuple[str, ...], files: tuple[str, ...], logic: str, syntax: str,
           fmt: str, engine: str) -> ExitStatus:
    """Check that WITNESS satisfies FORMULA: an assignment (a1c0, JSON or a cube a & !c) must
    entail a propositional formula; every word of a lasso trace (a; cycle{b}) must satisfy an
    LTL formula. Prints HOLDS, FAILS or UNKNOWN per pair."""
    if len(pair) not in (0, 2):
        raise click.UsageError("give FORMULA and WITNESS as two arguments, or pairs with -F FILE", ctx)
    problem = engine_problem(engine)
    if problem:
        raise click.UsageError(problem, ctx)
    options = VerifyOptions(logic=logic, syntax=syntax, engine=engine)

    def verdicts() -> Iterator[Verdict]:
        if pair:
            formula, witness = (text.strip() for text in pair)
            yield verify_one(InputItem(formula, "<arg 1>", 1, from_argument=True), formula, witness, options)
        if files or not pair:
            yield from verify_lines(inputs(ctx, (), files), options)

    return emit_all(verdicts(), verify_printer(fmt, Environment.of(ctx)).emit)
