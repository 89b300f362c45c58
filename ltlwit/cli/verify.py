"""`ltlwit verify`: HOLDS, FAILS or UNKNOWN for each FORMULA/WITNESS pair."""

from __future__ import annotations

import itertools
from typing import Any

import click

from ltlwit.cli.environment import Environment
from ltlwit.cli.jobs import VerifyWork, View, jobs_option, own_stdin, run_jobs, shard_of, shard_option
from ltlwit.cli.options import (
    data_options,
    declarations_of,
    emit_all,
    engine_option,
    files_option,
    format_option,
    inputs,
    logic_option,
    max_memory_option,
    quiet_option,
    semantics_of,
    semantics_options,
    syntax_option,
    timeout_option,
    validator_option,
)
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
@click.option(
    "--log",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Runtime verification: check each FORMULA (the arguments; -F FILE: spec files, FRET exports "
    "included) against the finite trace of states in FILE, a CSV file (a header of variable names, a row "
    "per instant) or JSON Lines (an object per instant). Columns nothing declares are Int, Real, Bool or "
    "enumerations of their words, as their values say. A requirement that must hold at every instant "
    "(G(p), a FRET requirement) that fails names the first instant where it does not: FILE:LINE (the "
    "file's line, header included) and the instant (counted from 0).",
)
@timeout_option(
    "Time limit per UNSAT claim, and with --log per requirement (reading the log counts in the first's); "
    "past it the verdict is UNKNOWN. A --validator's second opinion on a witness stops there too, with a "
    "warning (the builtin checker's verdict stands)."
)
@max_memory_option(
    "Memory ceiling of the process in MiB (0: none) while an UNSAT claim is proved or a log is read and "
    "checked; past it the verdict is UNKNOWN, with the reason. A --validator's second opinion stops there "
    "too, with a warning."
)
@validator_option
@quiet_option
@jobs_option
@shard_option
@click.pass_context
def verify(
    ctx: click.Context,
    pair: tuple[str, ...],
    files: tuple[str, ...],
    logic: str,
    syntax: str,
    fmt: str,
    engine: str,
    validators: tuple[str, ...],
    jobs: int,
    shard: tuple[int, int] | None,
    log: str | None,
    timeout: float | None,
    max_memory: int | None,
    **semantics: object,
) -> ExitStatus:
    """Check that WITNESS satisfies FORMULA: an assignment (a1c0, JSON or a cube a & !c) must
    entail a propositional formula; every word of a lasso trace (a; cycle{b}), or with
    --semantics finite of a finite trace (a; b), must satisfy an LTL formula. Prints HOLDS,
    FAILS or UNKNOWN per pair.

    WITNESS may also be what solve prints instead of one: UNSAT (or UNSAT core: ...) holds
    when the engine proves FORMULA unsatisfiable, and fails, naming a witness, when it is
    not; UNKNOWN claims nothing and gets UNKNOWN. Exit status 0 when every pair holds, 1 when
    one fails or is unknown, 2 for a bad input."""
    limits: dict[str, Any] = {
        "timeout": timeout,
        "max_memory": default_max_memory(jobs) if max_memory is None else max_memory,
    }
    if log is not None:
        return _verify_log(ctx, pair, files, log, syntax, fmt, semantics, limits)
    if len(pair) not in (0, 2):
        raise click.UsageError("give FORMULA and WITNESS as two arguments, or pairs with -F FILE", ctx)
    problem = engine_problem(engine)
    if problem:
        raise click.UsageError(problem, ctx)
    options = VerifyOptions(
        logic=logic,
        syntax=syntax,
        engine=engine,
        semantics=semantics_of(ctx, semantics),
        validators=validators,
        declarations=declarations_of(ctx, semantics),
        **limits,  # UNSAT claims' ceiling, per worker as in solve
    )
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
    lost = lambda item, message: Verdict(item=item, status="error", formula=item.text, witness="", message=message)
    return worst(
        status, run_jobs(jobs, VerifyWork, (options, View.of(env, fmt)), items, printer, lost, syntax=syntax)[0]
    )


def _verify_log(
    ctx: click.Context,
    formulas: tuple[str, ...],
    files: tuple[str, ...],
    log: str,
    syntax: str,
    fmt: str,
    options: dict,
    limits: dict,
) -> ExitStatus:
    """`verify --log`: the requirements (arguments, spec files) against one log of states."""
    from ltlwit.pipeline.verify import Requirement, verify_log
    from ltlwit.specs.files import read_specs

    if not formulas and not files:
        raise click.UsageError("give the requirements to check against the log: formulas, or -F SPEC_FILE", ctx)
    semantics = semantics_of(ctx, options)
    if semantics == "infinite" and ctx.get_parameter_source("semantics") == click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("a log is a finite trace: --log needs finite semantics", ctx)
    verify_options = VerifyOptions(
        syntax=syntax, semantics="finite", declarations=declarations_of(ctx, options), **limits
    )

    def requirements():
        for n, text in enumerate(formulas, 1):
            yield Requirement(InputItem(text.strip(), f"<arg {n}>", n, from_argument=True), text.strip())
        for path in files:
            for spec in read_specs(path, Environment.of(ctx).stdin):
                item = InputItem(spec.formula, spec.file, spec.line, error=spec.error)
                yield Requirement(
                    item, spec.formula, spec.name, spec.holds, spec.substitute, spec.declarations, spec.syntax
                )

    printer = verify_printer(fmt, Environment.of(ctx), log=True)
    return emit_all(verify_log(requirements(), log, verify_options), printer.emit)
