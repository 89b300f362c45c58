"""The `ltlwit` command: click commands only — options in, answers out, no algorithms.

Exit statuses (see `ltlwit.status`): 0 every input answered positively, 1 some input has no
witness or some witness fails, 2 any error (usage, unreadable file, a line that does not
parse; the other inputs are still processed), 130 Ctrl-C, 141 stdout closed early.
Nothing here imports torch or the solvers at import time: `ltlwit --help` stays instant.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable, Iterable

import click

from ltlwit import __version__
from ltlwit.convert import OUTPUT_SYNTAXES
from ltlwit.cli_workflow import COMMANDS as WORKFLOW_COMMANDS
from ltlwit.cli_workflow import Number, model_completer
from ltlwit.env import Environment, OutputClosed, OutputFailed
from ltlwit.output import FORMATS, SOLVE_FORMATS
from ltlwit.solve import DEVICES, ENGINES, LOGICS, MODELS, SYNTAXES, WITNESS_SYNTAXES
from ltlwit.status import ExitStatus, worst


class LtlwitGroup(click.Group):
    """Maps every way a run can end onto `ExitStatus`, in and out of click's standalone mode."""

    def main(  # type: ignore[override]
        self,
        args: list[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        try:
            rv = super().main(args, prog_name or "ltlwit", complete_var, standalone_mode=False, **extra)
            code = int(rv) if rv is not None else ExitStatus.SUCCESS
        except click.ClickException as exc:  # usage errors and click's other errors alike
            exc.show()
            code = ExitStatus.ERROR
        except (click.Abort, KeyboardInterrupt):
            code = ExitStatus.INTERRUPTED
        except (OutputClosed, BrokenPipeError):  # the latter from writers outside output.Printer (rich)
            _silence_stdout()
            code = ExitStatus.BROKEN_PIPE
        except OutputFailed as exc:
            _silence_stdout()
            click.echo(f"ltlwit: {exc}", err=True)
            code = ExitStatus.ERROR
        except OSError as exc:  # the system failed us elsewhere (e.g. rich writing to a full disk)
            _silence_stdout()
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"ltlwit: {where}{exc.strerror or exc}", err=True)
            code = ExitStatus.ERROR
        except SystemExit as exc:
            if os.environ.get(complete_var or "_LTLWIT_COMPLETE"):
                # Shell completion (`ltlwit completion SHELL`) answers and exits by itself.
                code = exc.code if isinstance(exc.code, int) else ExitStatus.SUCCESS
            else:
                # Outside standalone mode click exits by itself only when its own output (help,
                # version) hit EPIPE; our commands never call sys.exit.
                _silence_stdout()
                code = ExitStatus.BROKEN_PIPE
        if standalone_mode:
            sys.exit(code)
        return code


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot raise EPIPE again
    (Python would print "Exception ignored ... BrokenPipeError" at shutdown)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file descriptor (tests)
        pass


def _inputs(ctx: click.Context, arguments: Iterable[str], files: Iterable[str]) -> Iterable[Any]:
    from ltlwit.inputs import has_inputs, read_inputs

    env = Environment.of(ctx)
    arguments, files = list(arguments), list(files)
    if not has_inputs(arguments, files, env.stdin_isatty):
        raise click.UsageError("no input: give formulas as arguments, with -F FILE, or on stdin", ctx)
    return read_inputs(arguments, files, env.stdin, env.stdin_isatty)


def _check_engine(ctx: click.Context, engine: str) -> None:
    from ltlwit.solve import engine_problem

    problem = engine_problem(engine)
    if problem:
        raise click.UsageError(problem, ctx)


def _run(answers: Iterable[Any], emit: Callable[[Any], None]) -> ExitStatus:
    status = ExitStatus.SUCCESS
    for answer in answers:
        emit(answer)
        status = worst(status, answer.exit_status)
    return status


def _files_option(help_text: str) -> Callable:
    # click.Path without checks: only so that shells complete file names (`-` and FILE/COL pass).
    return click.option("-F", "--file", "files", multiple=True, metavar="FILE", help=help_text,
                        type=click.Path(allow_dash=True))


_syntax_option = click.option(
    "--syntax", type=click.Choice(SYNTAXES), default="auto", show_default=True,
    help="Syntax of the input formulas (auto detects Spot infix, Polish or LBT).",
)
_logic_option = click.option(
    "--logic", type=click.Choice(LOGICS), default="auto", show_default=True,
    help="prop: propositional (witness: partial assignment); ltl: LTL (witness: lasso trace); "
    "auto: prop when the formula has no temporal operator.",
)
_engine_option = click.option(
    "--engine", type=click.Choice(ENGINES), default="auto", show_default=True,
    help="LTL engine: auto (= builtin), builtin, or spot where `import spot` works.",
)
_format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
    help="text: one line per input; json: JSON Lines, one object per input.",
)


@click.group("ltlwit", cls=LtlwitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="ltlwit", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Satisfying traces (witnesses) for LTL and propositional formulas.

    Formulas in Spot's infix syntax, DeepLTL's Polish notation or LBT, from arguments, files
    (-F FILE, '-' for stdin) or piped stdin; one formula per line, blank lines and '#'
    comments skipped. Exit status: 0 all answered positively, 1 some unsat/unknown or failing
    witness, 2 some error (the other inputs are still processed).
    """
    if not isinstance(ctx.obj, Environment):
        ctx.obj = Environment.from_system()


_FILES_HELP = ("Read formulas from FILE, one per line ('-': stdin); FILE/COL reads column COL of a CSV "
               "file, FILE/-COL also skips its header line. Repeatable.")


def _solve_options(command: Callable, timeout: float | None = None) -> Callable:
    """The options `solve` and `check` share: how to find a witness."""
    options = [
        click.option("--timeout", type=Number(min=0, min_open=True), metavar="SECONDS",
                     default=timeout, show_default=timeout is not None,
                     help="Time limit of the engine per formula; past it the answer is UNKNOWN."),
        _engine_option,
        click.option("--model", default="auto", show_default=True, metavar="MODELS",
                     envvar="LTLWIT_MODEL", show_envvar=True, shell_complete=model_completer(MODELS),
                     help="Neural models proposing candidates: si (symbol-invariant), dual (dual-part "
                     "embeddings), both (union of their candidates, best score first), none (the engine "
                     "alone), or model names from `ltlwit models list`, comma-separated (e.g. one made "
                     "by `ltlwit train --name NAME`); auto: si where its weights are installed and a "
                     "CUDA GPU can run it, else none."),
        click.option("--top", type=click.IntRange(min=1), metavar="N",
                     help="Candidates taken from each model's beam (default: the beam width)."),
        click.option("--beam", type=click.IntRange(min=1), metavar="K",
                     help="Beam width of the models' search (default: 3, or N of --top if larger)."),
        click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
                     help="Where the models run (auto: a CUDA GPU if torch sees one)."),
        click.option("--max-len", type=click.IntRange(min=1), default=160, show_default=True, metavar="TOKENS",
                     help="Longest witness a model may write (longer beams are cut off)."),
        click.option("--no-fallback", "no_fallback", is_flag=True,
                     help="Do not ask the engine when no model candidate verifies: answer UNKNOWN."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@cli.command()
@click.argument("formulas", nargs=-1, metavar="[FORMULA]...")
@_files_option(_FILES_HELP)
@_logic_option
@_syntax_option
@click.option("--format", "fmt", type=click.Choice(SOLVE_FORMATS), default="auto", show_default=True,
              help="table: a table (formula, status, witness, source, ms); text: one line per answer; "
              "json: JSON Lines; csv: a header row, then one row per answer; auto: table on a terminal, "
              "text elsewhere.")
@click.option("--syntax-out", type=click.Choice(WITNESS_SYNTAXES), default="spot", show_default=True,
              help="Syntax of printed witnesses (lbt: LBT steps in Spot's word layout).")
@_solve_options
@click.option("--all", "all_witnesses", is_flag=True,
              help="Print up to N (--top) distinct verified witnesses per formula, one line each.")
@click.option("--batch-size", type=click.IntRange(min=1), default=128, show_default=True, metavar="N",
              help="Most formulas per model batch (1: answer each line as soon as it is read).")
@click.pass_context
def solve(ctx: click.Context, formulas: tuple[str, ...], files: tuple[str, ...], logic: str, syntax: str,
          fmt: str, syntax_out: str, timeout: float | None, engine: str, model: str, top: int | None,
          beam: int | None, device: str, max_len: int, no_fallback: bool, all_witnesses: bool,
          batch_size: int) -> ExitStatus:
    """Find a witness for each FORMULA: a partial assignment (propositional) or a lasso trace
    (LTL), or UNSAT / UNKNOWN.

    Model candidates are checked before anything is printed; when none verifies, the engine
    answers. The source of each answer is shown in the table, JSON and CSV formats."""
    from ltlwit.output import solve_printer
    from ltlwit.solve import SolveOptions

    env = Environment.of(ctx)
    options = _build_options(ctx, SolveOptions, logic=logic, syntax=syntax, timeout=timeout, engine=engine,
                             model=model, top=top, beam=beam, device=device, max_len=max_len, fallback=not no_fallback,
                             all=all_witnesses, batch_size=1 if env.stdin_isatty and "-" in files else batch_size)
    pipeline = _pipeline(ctx, options)
    printer = solve_printer(fmt, env, syntax_out)
    pipeline.notify = printer.notice
    try:
        status = _run(pipeline.run(_inputs(ctx, formulas, files)), printer.emit)
    finally:
        printer.finish()
    return worst(status, pipeline.exit_status)


@cli.command()
@click.argument("spec_files", nargs=-1, required=True, metavar="SPEC...")
@_syntax_option
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: a line per spec and a summary; json: JSON Lines, one object per spec.")
@click.option("--junit", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write a JUnit XML report to FILE (a test case per spec).")
@click.option("--vacuity", is_flag=True,
              help="Also check that the specs of each file are jointly satisfiable and flag AP occurrences "
              "they do not need (replaceable by the constant that strengthens their spec without changing "
              "what the specs allow together).")
@functools.partial(_solve_options, timeout=30.0)
@click.pass_context
def check(ctx: click.Context, spec_files: tuple[str, ...], syntax: str, fmt: str, junit: str | None, vacuity: bool,
          timeout: float | None, engine: str, model: str, top: int | None, beam: int | None, device: str,
          max_len: int, no_fallback: bool) -> ExitStatus:
    """Check specification files, for CI: each SPEC file ('-': stdin) holds one formula per line, optionally
    `name: formula` and a trailing `# expect: unsat` or `# expect: valid` (default: sat), or is
    a TOML file of [[spec]] tables (name, formula, expect).

    Exit status 0 only if every expectation holds (and, with --vacuity, every file's specs are
    jointly satisfiable and no occurrence is vacuous or undecided); 1 otherwise; 2 for errors."""
    from ltlwit.solve import SolveOptions
    from ltlwit.specs.report import check_printer, junit_xml
    from ltlwit.specs.run import CheckOptions, check_files

    solve_options = _build_options(ctx, SolveOptions, syntax=syntax, timeout=timeout, engine=engine, model=model,
                                   top=top, beam=beam, device=device, max_len=max_len, fallback=not no_fallback)
    pipeline = _pipeline(ctx, solve_options)
    env = Environment.of(ctx)
    printer = check_printer(fmt, env)
    pipeline.notify = printer.notice
    results = []
    status = ExitStatus.SUCCESS
    stopped: list[Exception] = []  # stdout's reader went away or writing failed: JUnit still written

    def show(write: Callable[[], None]) -> None:
        try:
            write()
        except (OutputClosed, OutputFailed) as exc:
            if not junit:
                raise
            stopped.append(exc)

    for result in check_files(spec_files, CheckOptions(solve_options, vacuity), pipeline, env.stdin):
        results.append(result)
        status = worst(status, result.exit_status)
        if getattr(result, "vacuity_failed", False):
            status = worst(status, ExitStatus.NEGATIVE)
        if not stopped:
            show(lambda: printer.emit(result))
        elif result.status == "error":
            printer.problem(result)  # stderr still works
    if not stopped:
        show(printer.summary)
    if junit:
        try:
            with open(junit, "wb") as out:
                out.write(junit_xml(results))
        except OSError as exc:
            printer.message(junit, f"cannot write the JUnit report: {exc.strerror or exc}")
            status = ExitStatus.ERROR
    if stopped:
        raise stopped[0]
    return worst(status, pipeline.exit_status)


@cli.command()
@click.argument("shell", type=click.Choice(("bash", "zsh", "fish")))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> ExitStatus:
    """Print the tab-completion script for SHELL. Load it with `source <(ltlwit completion bash)`
    (zsh: the same with zsh; fish: `ltlwit completion fish | source`), or install the files in
    completions/ where your shell looks for them."""
    from ltlwit.output import Printer

    Printer(Environment.of(ctx)).data(completion_script(shell).rstrip("\n"))
    return ExitStatus.SUCCESS


def completion_script(shell: str) -> str:
    """click's completion script for `ltlwit` (without click's bash version probe, so the
    output depends on nothing but the shell's name)."""
    from click.shell_completion import get_completion_class

    comp = get_completion_class(shell)(cli, {}, "ltlwit", "_LTLWIT_COMPLETE")  # type: ignore[misc]
    return comp.source_template % comp.source_vars()


def _build_options(ctx: click.Context, cls: Callable, **values: Any) -> Any:
    _check_engine(ctx, values["engine"])
    try:
        return cls(**values)
    except ValueError as exc:
        raise click.UsageError(str(exc), ctx) from None


def _pipeline(ctx: click.Context, options: Any) -> Any:
    """The pipeline for `options`; a requested model that is not installed is a usage error."""
    from ltlwit.pipeline import Pipeline
    from ltlwit.pipeline.models import ModelProblem, check_device

    try:
        pipeline = Pipeline(options)
        if pipeline.uses_models:
            check_device(options.device)
    except ModelProblem as exc:
        raise click.UsageError(str(exc), ctx) from None
    return pipeline


@cli.command()
@click.argument("formulas", nargs=-1, metavar="[FORMULA]...")
@_files_option("Read formulas from FILE, one per line ('-': stdin). Repeatable.")
@click.option("--to", "to", type=click.Choice(OUTPUT_SYNTAXES), default="spot", show_default=True,
              help="Output syntax.")
@_syntax_option
@click.pass_context
def fmt(ctx: click.Context, formulas: tuple[str, ...], files: tuple[str, ...], to: str, syntax: str) -> ExitStatus:
    """Print each FORMULA in another syntax, one line per input."""
    from ltlwit.convert import convert_one
    from ltlwit.solve import InputParser
    from ltlwit.output import FmtText

    printer = FmtText(Environment.of(ctx))
    items = _inputs(ctx, formulas, files)
    parser = InputParser(syntax)
    return _run((convert_one(item, parser, to) for item in items), printer.emit)


@cli.command()
@click.argument("pair", nargs=-1, metavar="[FORMULA WITNESS]")
@_files_option("Read FORMULA<TAB>WITNESS lines from FILE ('-': stdin). Repeatable.")
@_logic_option
@_syntax_option
@_format_option
@_engine_option
@click.pass_context
def verify(ctx: click.Context, pair: tuple[str, ...], files: tuple[str, ...], logic: str, syntax: str,
           fmt: str, engine: str) -> ExitStatus:
    """Check that WITNESS satisfies FORMULA: an assignment (a1c0, JSON or a cube a & !c) must
    entail a propositional formula; every word of a lasso trace (a; cycle{b}) must satisfy an
    LTL formula. Prints HOLDS, FAILS or UNKNOWN per pair."""
    from ltlwit.inputs import InputItem
    from ltlwit.output import verify_printer
    from ltlwit.verify import VerifyOptions, verify_lines, verify_one

    if len(pair) not in (0, 2):
        raise click.UsageError("give FORMULA and WITNESS as two arguments, or pairs with -F FILE", ctx)
    _check_engine(ctx, engine)
    options = VerifyOptions(logic=logic, syntax=syntax, engine=engine)

    def verdicts() -> Iterable[Any]:
        if pair:
            formula, witness = (text.strip() for text in pair)
            yield verify_one(InputItem(formula, "<arg 1>", 1, from_argument=True), formula, witness, options)
        if files or not pair:
            yield from verify_lines(_inputs(ctx, (), files), options)

    printer = verify_printer(fmt, Environment.of(ctx))
    return _run(verdicts(), printer.emit)


# The model workflow (data generate|stats, train, eval, models) lives in its own module.
for _command in WORKFLOW_COMMANDS:
    cli.add_command(_command)


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="ltlwit")
