"""`ltlwit verify`: HOLDS, FAILS or UNKNOWN for each FORMULA/WITNESS pair."""

from __future__ import annotations

import itertools

import click

from ltlwit.cli.environment import Environment
from ltlwit.cli.jobs import VerifyWork, View, jobs_option, own_stdin, run_jobs, shard_of, shard_option
from ltlwit.cli.options import data_options, declarations_of, emit_all, engine_option, files_option, \
    format_option, inputs, logic_option, quiet_option, semantics_of, semantics_options, syntax_option, \
    validator_option
from ltlwit.cli.output import verify_printer
from ltlwit.cli.status import ExitStatus, worst
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.options import default_max_memory, engine_problem
from ltlwit.pipeline.verify import Verdict, VerifyOptions, verify_lines, verify_one


@click.command()
@click.argument("pair", nargs=-1, metavar="[FORMULA WITNESS]")
@files_option("Read FORMULA<TAB>WITNESS lines from FILE ('-': stdin). Repeatable.")
@logic_option
@syntax_option
@format_option
@engine_option
@semantics_options
@data_options
@validator_option
@quiet_option
@jobs_option
@shard_option
@click.pass_context
def verify(ctx: click.Context, pair: tuple[str, ...], files: tuple[str, ...], logic: str, syntax: str,
           fmt: str, engine: str, validators: tuple[str, ...], jobs: int, shard: tuple[int, int] | None,
           **semantics: object) -> ExitStatus:
    """Check that WITNESS satisfies FORMULA: an assignment (a1c0, JSON or a cube a & !c) must
    entail a propositional formula; every word of a lasso trace (a; cycle{b}), or with
    --semantics finite of a finite trace (a; b), must satisfy an LTL formula. Prints HOLDS,
    FAILS or UNKNOWN per pair.

    WITNESS may also be what solve prints instead of one: UNSAT (or UNSAT core: ...) holds
    when the engine proves FORMULA unsatisfiable, and fails, naming a witness, when it is
    not; UNKNOWN claims nothing and gets UNKNOWN. Exit status 0 when every pair holds, 1 when
    one fails or is unknown, 2 for a bad input."""
    if len(pair) not in (0, 2):
        raise click.UsageError("give FORMULA and WITNESS as two arguments, or pairs with -F FILE", ctx)
    problem = engine_problem(engine)
    if problem:
        raise click.UsageError(problem, ctx)
    options = VerifyOptions(logic=logic, syntax=syntax, engine=engine, semantics=semantics_of(ctx, semantics),
                            validators=validators, declarations=declarations_of(ctx, semantics),
                            max_memory=default_max_memory(jobs))  # UNSAT claims' ceiling, per worker as in solve
    env = Environment.of(ctx)
    printer = verify_printer(fmt, env)
    # The pair given as arguments is the first input (position 0 for --shard), the lines follow.
    argument = InputItem(pair[0].strip(), "<arg 1>", 1, from_argument=True) if pair else None
    lines = inputs(ctx, (), files, own_stdin(env.stdin) if jobs > 1 else None) if files or not pair else iter(())
    items = shard_of(itertools.chain([argument] if argument else [], lines), shard)
    status = ExitStatus.SUCCESS
    head = next(items, None)
    if head is not None and head is argument:
        status = emit_all([verify_one(argument, pair[0].strip(), pair[1].strip(), options)], printer.emit)
    elif head is not None:
        items = itertools.chain([head], items)
    if jobs == 1:
        return worst(status, emit_all(verify_lines(items, options), printer.emit))
    lost = (lambda item, message: Verdict(item=item, status="error", formula=item.text, witness="", message=message))
    return worst(status, run_jobs(jobs, VerifyWork, (options, View.of(env, fmt)), items, printer, lost,
                                  syntax=syntax)[0])
