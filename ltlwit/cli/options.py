"""What the commands share: option decorators and types, reading inputs, making a `Solver`, and
the one-line messages of the model workflow."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterable, Iterator, Sequence

import click

from ltlwit.cli.choices import DEVICES, DOMAINS, ENGINES, FORMATS, LOGICS, MODELS, SEMANTICS, SYNTAXES, TASKS
from ltlwit.cli.environment import Environment
from ltlwit.cli.output import Printer, stdout_console
from ltlwit.cli.status import ExitStatus, exit_status, worst
from ltlwit.pipeline.answers import Answer
from ltlwit.pipeline.inputs import InputItem, has_inputs, read_inputs
from ltlwit.pipeline.options import SolveOptions

if TYPE_CHECKING:  # loads in `make_solver`: `--help` and `verify` need no solver
    from ltlwit.api import Solver


class Number(click.FloatRange):
    """click's FloatRange without NaN, which compares false with every bound and so passes
    them all (`--timeout nan` would mean no limit at all)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


def model_completer(keywords: Sequence[str] = (), embedding: bool | None = False) -> Callable[..., list[str]]:
    """Shell completion of model names (`keywords`, then the installed models; manifests only,
    no torch): with `embedding` True only embedding models (`expemb-*` architectures), False
    only the others, None all."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
        from ltlwit.neural import registry

        models = registry.list_models()
        if embedding is not None:
            models = [m for m in models if m.arch.startswith("expemb") == embedding]
        names = [*keywords, *(m.name for m in models)]
        head, _, last = incomplete.rpartition(",")  # `--model si,my<TAB>`: the list's last name
        if head:
            names = [name for name in names if name not in ("auto", "both", "none")]  # alone only
        prefix = head + "," if head else ""
        return [prefix + name for name in dict.fromkeys(names) if name.startswith(last)]

    return complete


FILES_HELP = (
    "Read formulas from FILE, one per line ('-': stdin); FILE/COL reads column COL of a CSV "
    "file, FILE/-COL also skips its header line. Repeatable."
)


def files_option(help_text: str, required: bool = False) -> Callable:
    # click.Path without checks: only so that shells complete file names (`-` and FILE/COL pass).
    return click.option(
        "-F",
        "--file",
        "files",
        multiple=True,
        required=required,
        metavar="FILE",
        help=help_text,
        type=click.Path(allow_dash=True),
    )


def index_option(help_text: str) -> Callable:
    """`--index DIR`: a nearest-neighbour index of fingerprints (`ltlwit.specs.index`)."""
    return click.option("--index", "index_path", type=click.Path(file_okay=False), metavar="DIR", help=help_text)


syntax_option = click.option(
    "--syntax",
    type=click.Choice(SYNTAXES),
    default="auto",
    show_default=True,
    help="Syntax of the input formulas (auto detects Spot infix, Polish or LBT).",
)
logic_option = click.option(
    "--logic",
    type=click.Choice(LOGICS),
    default="auto",
    show_default=True,
    help="prop: propositional (witness: partial assignment); ltl: LTL (witness: lasso trace); "
    "auto: prop when the formula has no temporal operator.",
)


def engine_option_for(help_text: str) -> Callable:
    """`--engine auto|builtin|spot`, with what it means to the command."""
    return click.option("--engine", type=click.Choice(ENGINES), default="auto", show_default=True, help=help_text)


engine_option = engine_option_for("LTL engine: auto (= builtin), builtin, or spot where `import spot` works.")


def semantics_options(command: Callable) -> Callable:
    """`--semantics infinite|finite` and its short form `--finite` (see `semantics_of`)."""
    command = click.option("--finite", is_flag=True, help="Short for --semantics finite.")(command)
    return click.option(
        "--semantics",
        type=click.Choice(SEMANTICS),
        default="infinite",
        show_default=True,
        help="infinite: traces go on forever, witnesses are lassos (a; cycle{b}); finite: LTLf, non-empty "
        "finite traces, witnesses without a cycle (a; b), X is the strong next (there is a next instant) "
        "and wX the weak one.",
    )(command)


def semantics_of(ctx: click.Context, options: dict[str, Any]) -> str:
    """The semantics `--semantics` and `--finite` ask for (popped from `options`); both given,
    disagreeing, is a usage error."""
    finite = options.pop("finite", False)
    semantics = options.pop("semantics", "infinite")
    if finite and semantics != "finite":
        from click.core import ParameterSource

        if ctx.get_parameter_source("semantics") == ParameterSource.COMMANDLINE:
            raise click.UsageError(f"--finite contradicts --semantics {semantics}", ctx)
    return "finite" if finite else semantics


def data_options(command: Callable) -> Callable:
    """`--var NAME:SORT` (repeatable) and `--domain Int|Real`: the sorts of data variables
    (see `declarations_of`)."""
    command = click.option(
        "--domain",
        type=click.Choice(DOMAINS, case_sensitive=False),
        metavar="Int|Real",
        help="The sort of data variables nothing else gives one (BLACK's -d): without it such a variable's "
        "sort is inferred where that is unambiguous (a decimal numeral makes it Real), else an error.",
    )(command)
    return click.option(
        "--var",
        "variables",
        multiple=True,
        metavar="NAME:SORT",
        help="Declare a data variable's sort: Int, Real, Bool, or an enumeration {a, b, c} (its values are "
        "constants, mutually exclusive). Repeatable.",
    )(command)


def declarations_of(ctx: click.Context, options: dict[str, Any]) -> Any:
    """The `Declarations` of `--var` and `--domain` (popped from `options`), None when neither
    was given; a bad declaration is a usage error."""
    variables = options.pop("variables", ())
    domain = options.pop("domain", None)
    if not variables and domain is None:
        return None
    from ltlwit.logic.theory.sorts import Declarations, SortError, parse_declaration, parse_sort

    try:
        out = Declarations(domain=parse_sort(domain) if domain else None)
        for text in variables:
            out = out.declare(*parse_declaration(text))
    except SortError as exc:
        raise click.BadParameter(str(exc), ctx, param_hint="'--var'" if variables else "'--domain'") from None
    return out


def _quiet(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    if value:
        Environment.of(ctx).quiet = True


def _validators(ctx: click.Context, _: click.Parameter, value: str) -> tuple[str, ...]:
    from ltlwit.logic.validators import validator_names

    try:
        return validator_names(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx) from None


validator_option = click.option(
    "--validator",
    "validators",
    default="builtin",
    show_default=True,
    metavar="NAME[,NAME...]",
    callback=_validators,
    shell_complete=lambda ctx, param, incomplete: [
        f"{head}{',' if head else ''}{name}"
        for head, _, last in [incomplete.rpartition(",")]
        for name in ("builtin", "aiger", "spot")
        if name.startswith(last)
    ],
    help="Who judges each witness before it is printed: builtin (ltlwit's checker, always), aiger (py-aiger "
    "circuits and a SAT solver, sharing no code with it; pip install 'ltlwit[aiger]'), spot (Spot's automata, "
    "where `import spot` works); several must all agree, and a disagreement is an error naming each verdict.",
)

quiet_option = click.option(
    "-q",
    "--quiet",
    is_flag=True,
    expose_value=False,
    callback=_quiet,
    help="No warnings on stderr (a name read as an operator, `Grant` as `G rant`); errors are still "
    "reported, and JSON and CSV keep the warnings.",
)


def format_choice(help_text: str) -> Callable:
    """`--format text|json`, each command saying what each gives."""
    return click.option(
        "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help=help_text
    )


format_option = format_choice("text: one line per input; json: JSON Lines, one object per input.")
report_format = format_choice("text: tables for people; json: for machines (models list: one object per line).")


threads_option = click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    metavar="N",
    help="CPU threads the models use in each process (each --jobs worker has its own): more can help one "
    "process on an idle machine, and slows everything down on a busy one.",
)


def timeout_option(help_text: str, default: float | None = None) -> Callable:
    return click.option(
        "--timeout",
        type=Number(min=0, min_open=True),
        metavar="SECONDS",
        default=default,
        show_default=default is not None,
        help=help_text,
    )


def max_memory_option(help_text: str) -> Callable:
    return click.option(
        "--max-memory",
        type=click.IntRange(min=0),
        metavar="MIB",
        show_default="half the machine's memory, at most 4096",
        envvar="LTLWIT_MAX_MEMORY",
        show_envvar=True,
        help=help_text,
    )


def solve_options(command: Callable, timeout: float | None = None) -> Callable:
    """The options `solve` and `check` share: how to find a witness (a `Solver`'s options)."""
    options: list[Callable[[Callable], Callable]] = [
        timeout_option(
            "Time limit per formula, from reading it to its answer (parsing, models, engine, checking); past "
            "it the answer is UNKNOWN.",
            timeout,
        ),
        max_memory_option(
            "Memory ceiling of the process in MiB (0: none); a formula the engine cannot decide within it is "
            "answered UNKNOWN, with the reason."
        ),
        engine_option,
        click.option(
            "--model",
            default="auto",
            show_default=True,
            metavar="MODELS",
            envvar="LTLWIT_MODEL",
            show_envvar=True,
            shell_complete=model_completer(MODELS),
            help="Neural models proposing candidates: si (symbol-invariant), dual (dual-part "
            "embeddings), both (union of their candidates, best score first), none (the engine "
            "alone), or model names from `ltlwit models list`, comma-separated (e.g. one made "
            "by `ltlwit train --name NAME`); auto: si where its weights are installed and a "
            "CUDA GPU can run it, else none.",
        ),
        click.option(
            "--top",
            type=click.IntRange(min=1),
            metavar="N",
            help="Candidates taken from each model's beam (default: the beam width).",
        ),
        click.option(
            "--beam",
            type=click.IntRange(min=1),
            metavar="K",
            help="Beam width of the models' search (default: 3, 8 with --no-fallback, or N of --top if larger).",
        ),
        click.option(
            "--device",
            type=click.Choice(DEVICES),
            default="auto",
            show_default=True,
            help="Where the models run (auto: a CUDA GPU if torch sees one).",
        ),
        click.option(
            "--max-len",
            type=click.IntRange(min=1),
            default=160,
            show_default=True,
            metavar="TOKENS",
            help="Longest witness a model may write (longer beams are cut off).",
        ),
        threads_option,
        click.option(
            "--no-fallback",
            "no_fallback",
            is_flag=True,
            help="Do not ask the engine when no model candidate verifies: answer UNKNOWN.",
        ),
        semantics_options,
        click.option(
            "--one-event",
            is_flag=True,
            help="Exactly one activity (AP) at every instant, as process traces are read (Declare); "
            "witnesses are then printed as activity sequences (request; approve; pay).",
        ),
        data_options,
        validator_option,
    ]
    for option in reversed(options):
        command = option(command)
    return command


def make_solver(ctx: click.Context, notify: Callable[..., None], **options: Any) -> Solver:
    """The command's `Solver`; options that cannot work here (a missing model, no GPU for
    `--device cuda`, no Spot for `--engine spot`) are usage errors, said once up front."""
    from ltlwit.api import Solver

    options["fallback"] = not options.pop("no_fallback")
    options["semantics"] = semantics_of(ctx, options)
    options["declarations"] = declarations_of(ctx, options)
    jobs = options.pop("jobs", 1)
    if options.get("max_memory") is None and jobs > 1:
        from ltlwit.pipeline.options import default_max_memory

        options["max_memory"] = default_max_memory(jobs)  # per worker
    try:
        solver = Solver(notify=notify, **options)
    except ValueError as exc:
        raise click.UsageError(str(exc), ctx) from None
    solver.pipeline.count_from(Environment.of(ctx).started)
    return solver


def inputs(
    ctx: click.Context,
    arguments: Iterable[str],
    files: Iterable[str],
    stdin: BinaryIO | None = None,
    options: SolveOptions | None = None,
) -> Iterator[InputItem]:
    """The command's inputs (arguments, -F files, piped stdin, read from `stdin` when given);
    none at all is a usage error. `options`: the run's, under which a spec file is read (its
    specs parsed with their syntax, limits and sorts) and a line too big to parse under
    `--max-memory` is refused as it is read (`ltlwit.pipeline.inputs.refusal`)."""
    env = Environment.of(ctx)
    arguments, files = list(arguments), list(files)
    if not has_inputs(arguments, files, env.stdin_isatty):
        raise click.UsageError("no input: give formulas as arguments, with -F FILE, or on stdin", ctx)
    options = options or SolveOptions(max_memory=0)
    return read_inputs(
        arguments, files, stdin or env.stdin, env.stdin_isatty, lambda path: spec_items(path, options), options.ceiling
    )


def spec_items(path: str, options: SolveOptions) -> Iterator[InputItem] | None:
    """The specs of a spec file (`*.spec`, `*.toml`, a FRET export) as inputs, each named, read
    as `check` reads the file (`ltlwit.specs.reading`: parsed with its syntax, where it holds,
    its constants, the file's one reading of its names, a `one-event` file's activities); None
    for any other file: one formula a line."""
    from ltlwit.pipeline.inputs import SpecItem

    if not path.endswith((".spec", ".toml", ".json")):
        return None
    from ltlwit.specs.files import is_spec_file
    from ltlwit.specs.reading import read_file, spec_inputs

    if not is_spec_file(path):
        return None
    return (
        SpecItem(
            text=p.spec.formula,
            file=p.spec.file,
            line=p.spec.line,
            error=p.problem,
            name=p.spec.name,
            formula=formula,
            semantics=p.spec.semantics,
            declarations=p.spec.declarations,
            warnings=p.warnings,
            parse_error=p.parse_error,
            unknown=p.unknown,
            one_event=p.spec.one_event or options.one_event,
        )
        for p, formula in spec_inputs(read_file(path, options), options.one_event)
    )


def emit_all(answers: Iterable[Answer], emit: Callable[[Any], None]) -> ExitStatus:
    """Print each answer as it comes; the run's exit status."""
    status = ExitStatus.SUCCESS
    for answer in answers:
        emit(answer)
        status = worst(status, exit_status(answer))
    return status


def fail(ctx: click.Context, error: Exception) -> ExitStatus:
    """A one-line `ltlwit: ...` error on stderr and exit status 2."""
    Printer(Environment.of(ctx)).message("", " ".join(str(error).split()) or type(error).__name__)
    return ExitStatus.ERROR


def say(ctx: click.Context, where: str, text: str) -> None:
    Printer(Environment.of(ctx)).message(where, text)


def report_console(env: Environment) -> Any:
    """A rich console for reports on stdout (tables for people; 160 columns off a terminal)."""
    return stdout_console(
        env, no_color=not env.stdout_colors, soft_wrap=False, width=None if env.stdout_isatty else 160
    )


#: Where a model trains or runs, for the commands that use torch directly (`train`, `eval`,
#: `experiment`; `solve`'s is among its model options).
device_option = click.option(
    "--device",
    type=click.Choice(DEVICES),
    default="auto",
    show_default=True,
    help="auto: CUDA when available, else the CPU.",
)
#: A training folder (`train`, `experiment`).
training_data_option = click.option(
    "--data",
    "data_dir",
    type=click.Path(exists=True),
    required=True,
    metavar="DIR|FILE",
    help="Training folder: train.txt[.gz] and val.txt[.gz]; for the embedding models (expemb-e, expemb-a), a "
    "file of `ltlwit data equiv` classes (its train and val splits).",
)

task_option = click.option(
    "--task",
    type=click.Choice(TASKS),
    required=True,
    help="ltl: formulas with lasso-trace witnesses; prop: propositional formulas with partial-assignment witnesses.",
)
