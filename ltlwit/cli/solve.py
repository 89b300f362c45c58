"""`ltlwit solve`: a verified witness for each formula, or UNSAT / UNKNOWN, streamed in input
order through one `ltlwit.Solver`."""

from __future__ import annotations

import click

from ltlwit.cli.choices import OUTPUT_SYNTAXES, SOLVE_FORMATS
from ltlwit.cli.environment import Environment
from ltlwit.cli.jobs import SolveWork, View, jobs_option, own_stdin, run_jobs, shard_of, shard_option
from ltlwit.cli.options import (
    FILES_HELP,
    emit_all,
    files_option,
    inputs,
    logic_option,
    make_solver,
    quiet_option,
    solve_options,
    syntax_option,
)
from ltlwit.cli.output import solve_printer
from ltlwit.cli.status import ExitStatus, worst
from ltlwit.pipeline.answers import Solution


@click.command()
@click.argument("formulas", nargs=-1, metavar="[FORMULA]...")
@files_option(FILES_HELP)
@logic_option
@syntax_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(SOLVE_FORMATS),
    default="auto",
    show_default=True,
    help="table: a table (formula, status, witness, source, ms); text: one line per answer; "
    "json: JSON Lines; csv: a header row, then one row per answer; auto: table on a terminal, "
    "text elsewhere.",
)
@click.option(
    "--syntax-out",
    type=click.Choice(OUTPUT_SYNTAXES),
    default="spot",
    show_default=True,
    help="Syntax of printed witnesses (polish: DeepLTL's; lbt: LBT steps in Spot's word layout).",
)
@solve_options
@click.option(
    "--core",
    is_flag=True,
    help="For an UNSAT formula, also name the conflicting top-level conjuncts: a minimal unsatisfiable "
    "subset, each member shown needed by a verified witness of the others (JSON: core, core_minimal), "
    "within the same --timeout.",
)
@click.option(
    "--fine-core",
    is_flag=True,
    help="--core, and within the conflicting conjuncts the subformulas that matter: each one that does "
    "not is weakened to 1 or 0, as many as keep the core unsatisfiable (JSON: fine, per member).",
)
@click.option(
    "--all",
    "all_witnesses",
    is_flag=True,
    help="Print up to N (--top) distinct verified witnesses per formula, one line each: the models' "
    "candidates, then the engine's, each differing from those before in a word.",
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Also write a self-contained HTML report to FILE: each formula with its core highlighted, its "
    "witness as text and as a timing diagram.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=128,
    show_default=True,
    metavar="N",
    help="Most formulas per model batch (1: answer each line as soon as it is read).",
)
@quiet_option
@jobs_option
@shard_option
@click.pass_context
def solve(
    ctx: click.Context,
    formulas: tuple[str, ...],
    files: tuple[str, ...],
    logic: str,
    syntax: str,
    fmt: str,
    syntax_out: str,
    core: bool,
    fine_core: bool,
    all_witnesses: bool,
    html: str | None,
    batch_size: int,
    jobs: int,
    shard: tuple[int, int] | None,
    **options: object,
) -> ExitStatus:
    """Find a witness for each FORMULA: a partial assignment (propositional) or a lasso trace
    (LTL), or UNSAT / UNKNOWN.

    Model candidates are checked before anything is printed; when none verifies, the engine
    answers. The source of each answer is shown in the table, JSON and CSV formats."""
    env = Environment.of(ctx)
    if fmt == "vcd" and jobs > 1 or html and jobs > 1:
        raise click.UsageError(
            f"{'--html' if html else '--format vcd'} writes one document for the whole run: use --jobs 1", ctx
        )
    printer = solve_printer(fmt, env, syntax_out, bool(options.get("one_event")))
    interactive = env.stdin_isatty and "-" in files  # answer each line as it is typed
    solver = make_solver(
        ctx,
        printer.notice,
        logic=logic,
        syntax=syntax,
        all=all_witnesses,
        core="fine" if fine_core else core,
        batch_size=1 if interactive else batch_size,
        jobs=jobs,
        **options,
    )
    env.kept.append(solver)  # its remembered formulas are not freed one by one at the end
    try:
        if jobs == 1:  # (with --jobs the engine works in worker processes: no status line)
            items = shard_of(inputs(ctx, formulas, files, options=solver.options), shard)
            report = None
            if html:
                from ltlwit.cli.html_report import HtmlReport

                report = HtmlReport("ltlwit solve")

            def emit(solution: Solution) -> None:
                if report is not None:
                    report.solution(solution)
                printer.emit(solution)

            with printer.status_line(solver.options.timeout) as track:
                status = emit_all(solver.run(track(items)), emit)
            if report is not None and html is not None:  # (a report is made for --html alone)
                try:
                    report.write(html)
                except OSError as exc:
                    printer.message(html, f"cannot write the HTML report: {exc.strerror or exc}")
                    status = worst(status, ExitStatus.ERROR)
            model_failed = solver.model_failed
        else:
            items = shard_of(inputs(ctx, formulas, files, own_stdin(env.stdin), solver.options), shard)
            uses_models = solver.pipeline.uses_models
            status, model_failed = run_jobs(
                jobs,
                SolveWork,
                (solver.options, View.of(env, fmt, syntax_out, bool(options.get("one_event")))),
                items,
                printer,
                lambda item, message: Solution(item=item, status="error", message=message),
                syntax=syntax,
                spawn=uses_models,
                origin=env.started,
                least=solver.options.batch_size if uses_models else 1,
            )
    finally:
        printer.finish()
    return worst(status, ExitStatus.ERROR if model_failed else ExitStatus.SUCCESS)
