"""`ltlwit check`: spec files as a CI gate, run through `Solver.check`; plain lines for CI
logs (one per spec, `PASS|FAIL|UNKNOWN|ERROR NAME (FILE:LINE): details`, vacuity findings
indented below their spec, a summary line last), JSON Lines, and a JUnit XML report."""

from __future__ import annotations

import contextlib
import functools
import json
from collections import Counter
from typing import Callable

import click

from ltlwit.cli.environment import Environment, OutputClosed, OutputFailed
from ltlwit.cli.jobs import jobs_option
from ltlwit.cli.options import Number, format_choice, make_solver, quiet_option, solve_options, syntax_option
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus, exit_status, worst
from ltlwit.cli.witness_table import witness_table
from ltlwit.pipeline.answers import plural
from ltlwit.specs.report import (
    finding_text,
    junit_xml,
    record,
    redundancy_text,
    similar_text,
    unchecked_text,
    witness_text,
)
from ltlwit.specs.run import ConjunctionResult, Decided, RealizabilityResult, SpecResult

_COLORS = {
    "PASS": "green",
    "FAIL": "red",
    "UNKNOWN": "yellow",
    "ERROR": "red",
    "VACUOUS": "red",
    "UNDECIDED": "yellow",
    "REDUNDANT": "red",
    "ACKNOWLEDGED": "green",
    "STALE": "red",
    "SIMILAR": "blue",
}


#: What a pair of requirements `--similar` relates is, for the summary line ("implied": one implies the other).
_PAIRS = {
    "equivalent": "equivalent",
    "stronger": "implied",
    "weaker": "implied",
    "overlapping": "overlapping",
    "disjoint": "contradictory",
    "undecided": "undecided",
}
_PAIR_KINDS = tuple(dict.fromkeys(_PAIRS.values()))


@click.command()
@click.argument("spec_files", nargs=-1, required=True, metavar="SPEC...")
@syntax_option
@format_choice("text: a line per spec and a summary; json: JSON Lines, one object per spec.")
@click.option(
    "--junit",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Also write a JUnit XML report to FILE (a test case per spec).",
)
@click.option(
    "--vacuity",
    is_flag=True,
    help="Also check that the specs of each file are jointly satisfiable and flag AP occurrences "
    "they do not need (replaceable by the constant that strengthens their spec without changing "
    "what the specs allow together).",
)
@click.option(
    "--consistency",
    is_flag=True,
    help="Only check that the specs of each file are jointly satisfiable; when they are not, name a "
    "minimal set of specs that conflict (--vacuity does this too).",
)
@click.option(
    "--redundancy",
    is_flag=True,
    help="Also name each requirement (spec expected sat) that the others of its file imply, with a "
    "minimal set of them that does (checks that they are jointly satisfiable first).",
)
@click.option(
    "--similar",
    type=click.IntRange(min=1),
    metavar="K",
    help="Also name each requirement's K nearest requirements of its file by semantic fingerprint, each with "
    "its relation decided by the engine (as `ltlwit similar`): equivalent, implied by, implies, overlaps, "
    "contradicts, or undecided. Reported only: no relation fails the check (--redundancy does).",
)
@click.option(
    "--realizability",
    is_flag=True,
    help="Also check that each file's requirements can be implemented whatever the environment does on its "
    "inputs (a spec file's 'input NAME, NAME' lines; a FRET export's Input variables, as FRET asks it, per "
    "connected component), as `ltlwit realize` decides it, with every minimal conflict of an unrealizable "
    "component; an unrealizable or undecided component fails the check.",
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Also write a self-contained HTML report to FILE: each spec with its vacuous occurrences "
    "highlighted, its witness or counterexample as a timing diagram.",
)
@click.option(
    "--all-cores",
    is_flag=True,
    help="When a file's specs conflict, name every minimal conflicting set and every minimal correction "
    "set (specs whose removal restores consistency), within --timeout, and say whether that is all "
    "(implies --consistency).",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Acknowledged findings (JSON Lines, written by --write-baseline): those pass; new ones, and "
    "acknowledgments that match no finding, still fail.",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write the findings that the spec files do not acknowledge to FILE, for --baseline; they do "
    "not fail this run.",
)
@click.option(
    "--fire/--no-fire",
    default=None,
    help="Witnesses in which each requirement's trigger fires (G(t -> ...): t at some instant; a FRET "
    "requirement's mode and condition), where the requirement allows it, else saying that it cannot "
    "fire. Default: for FRET exports.",
)
@click.option(
    "--budget",
    type=Number(min=0, min_open=True),
    metavar="SECONDS",
    help="Seconds for the whole run: each question gets what is left of it when its --timeout would end "
    "later, and those asked once it is spent are UNKNOWN (undecided); a file's joint verdict is asked "
    "before its vacuity and redundancy questions.",
)
@functools.partial(solve_options, timeout=30.0)
@quiet_option
@jobs_option
@click.pass_context
def check(
    ctx: click.Context,
    spec_files: tuple[str, ...],
    syntax: str,
    fmt: str,
    junit: str | None,
    vacuity: bool,
    consistency: bool,
    redundancy: bool,
    realizability: bool,
    similar: int | None,
    html: str | None,
    all_cores: bool,
    baseline_file: str | None,
    write_baseline: str | None,
    fire: bool | None,
    budget: float | None,
    jobs: int,
    **options: object,
) -> ExitStatus:
    """Check specification files, for CI: each SPEC file ('-': stdin) holds one formula per line, optionally
    `name: formula` and a trailing `# expect: unsat` or `# expect: valid` (default: sat, a
    requirement), or a scenario judged against the file's requirements together: `# expect:
    allowed` (possible with them), `forbidden` (ruled out by them: the requirements that do are
    named) or `implied` (every trace they allow satisfies it); or is a TOML file of [[spec]] tables
    (name, formula, expect), or a FRET requirements export (*.json: each requirement a spec named
    by its reqid, holding at every instant of finite traces).

    Exit status 0 only if every expectation holds (and, with --vacuity, --consistency or
    --redundancy, every file's specs are jointly satisfiable, with --vacuity no occurrence is
    vacuous or undecided, and with --redundancy no requirement is redundant or undecided, unless
    the finding is acknowledged: `# acknowledged: vacuous AP[:N]` or `# acknowledged: redundant`
    after the spec, or in the --baseline file); 1 otherwise; 2 for errors."""
    env = Environment.of(ctx)
    printer = check_printer(fmt, env)
    baseline = []
    if baseline_file:
        from ltlwit.specs.baseline import read_baseline

        try:
            baseline = read_baseline(baseline_file)
        except ValueError as exc:
            printer.notice(str(exc))
            return ExitStatus.ERROR
    solver = make_solver(ctx, printer.notice, syntax=syntax, jobs=jobs, **options)
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

    # A status line while answers are long in coming; none while specs are typed at a terminal, nor
    # with --jobs (the engine works in worker processes).
    live = jobs == 1 and not (env.stdin_isatty and "-" in spec_files)
    checking = solver.check(
        spec_files,
        vacuity,
        env.stdin,
        jobs=jobs,
        consistency=consistency,
        redundancy=redundancy,
        realizability=realizability,
        similar=similar or 0,
        baseline=baseline,
        all_cores=all_cores,
        fire=fire,
        budget=budget,
        progress=fmt == "text",
    )
    with (
        printer.status_line(solver.options.timeout) if live else contextlib.nullcontext(),
        contextlib.closing(checking) as checked,
    ):
        for result in checked:
            if isinstance(result, Decided):  # a spec's own verdict, its file's joint checks to come
                if not stopped:
                    show(functools.partial(printer.emit_early, result.result))
                continue
            results.append(result)
            status = worst(status, exit_status(result))
            if isinstance(result, SpecResult) and result.findings_failed and not write_baseline:
                status = worst(status, ExitStatus.NEGATIVE)
            if not stopped:
                show(functools.partial(printer.emit, result))
            elif result.status == "error":
                printer.problem(result)  # stderr still works
    if not stopped:
        show(printer.summary)
    if write_baseline:
        from ltlwit.specs.baseline import write_baseline as write

        try:
            written = write(write_baseline, (r for r in results if isinstance(r, SpecResult)))
            printer.notice(f"{write_baseline}: {plural(written, 'finding')} written")
        except OSError as exc:
            printer.message(write_baseline, f"cannot write the baseline: {exc.strerror or exc}")
            status = ExitStatus.ERROR
    if html:
        from ltlwit.cli.html_report import HtmlReport

        report = HtmlReport("ltlwit check")
        for result in results:
            report.spec(result)
        try:
            report.write(html)
        except OSError as exc:
            printer.message(html, f"cannot write the HTML report: {exc.strerror or exc}")
            status = ExitStatus.ERROR
    if junit:
        try:
            with open(junit, "wb") as out:
                out.write(junit_xml(results))
        except OSError as exc:
            printer.message(junit, f"cannot write the JUnit report: {exc.strerror or exc}")
            status = ExitStatus.ERROR
    if stopped:
        raise stopped[0]
    return worst(status, ExitStatus.ERROR if solver.model_failed else ExitStatus.SUCCESS)


class CheckPrinter(Printer):
    def __init__(self, env: Environment) -> None:
        super().__init__(env)
        self.counts: Counter[str] = Counter()
        self._together: set[tuple[str, str]] = set()  # (file, status): files counted, not projects
        #: The pairs of requirements `--similar` related, and what each is (`_PAIRS`).
        self._pairs: dict[frozenset[str | None], str] = {}
        #: The specs whose own verdict was printed early (`emit_early`), with the status shown.
        self._shown: dict[tuple[str, int, str | None], str] = {}

    def emit_early(self, result: SpecResult) -> None:
        """A spec's own verdict, printed as soon as it is decided; what the file's joint checks
        add comes with `emit`."""
        self._shown[_key(result.spec)] = result.status
        with self.answering(result):
            self.warn(result)
            if result.status == "error":
                self.problem(result)
            self.render(result)

    def emit(self, result: SpecResult | ConjunctionResult | RealizabilityResult) -> None:
        if isinstance(result, RealizabilityResult):
            self.counts["realizability:" + result.status] += 1
        elif isinstance(result, SpecResult):
            self.counts[result.status] += 1
            self.counts["vacuity:" + (result.vacuity.state if result.vacuity is not None else "")] += 1
            self.counts["redundancy:" + (result.redundancy.state if result.redundancy is not None else "")] += 1
            for n in result.similar or ():  # each pair once, whichever of the two it is listed under
                self._pairs[frozenset((result.spec.where, n.entry.where))] = _PAIRS[n.related.relation.value]
            self.counts["acknowledged"] += len(result.acknowledgments.covered)
            self.counts["stale"] += len(result.acknowledgments.stale)
            if self._shown.get(_key(result.spec)) == result.status:
                with self.answering(result):
                    self.render_findings(result)
                return
        elif (result.item.file, result.status) not in self._together:
            self._together.add((result.item.file, result.status))
            self.counts["together:" + result.status] += 1
        with self.answering(result):
            self.warn(result)
            if result.status == "error":
                self.problem(result)
            self.render(result)

    def render(self, result: SpecResult | ConjunctionResult | RealizabilityResult) -> None:
        raise NotImplementedError

    def render_findings(self, result: SpecResult) -> None:
        """What the joint checks found about a spec whose verdict was printed already."""
        return None

    def summary(self) -> None:
        return None


class CheckText(CheckPrinter):
    def render(self, result: SpecResult | ConjunctionResult | RealizabilityResult) -> None:
        word = result.status.upper()
        if isinstance(result, RealizabilityResult):
            self._realizability(word, result)
            return
        if isinstance(result, ConjunctionResult):
            of = f"{result.item.file}, project {result.group}," if result.group else result.item.file
            label = f"(all {plural(result.count, 'spec')} of {of} together)"
            table: list[str] = []
            if result.status == "pass":
                shown, table = _shown(None, result.witness)
                detail = (
                    "jointly satisfiable, witness " + (shown or "?") + (f"; {result.message}" if result.message else "")
                )
            else:
                detail = (result.error_text if result.status == "error" else result.message) or ""
            self.data(f"{self._status_word(word, _COLORS[word])} {label}: {detail}")
            for line in table:
                self.data(line)
            for specs in result.conflicts:
                self.data(f"  {self._status_word('CONFLICT', 'red')} {_names(specs)}")
            for specs in result.corrections:
                self.data(f"  {self._status_word('FIX', 'yellow')} remove {_names(specs)}")
            return
        spec = result.spec
        detail, table = self._detail(result)
        self.data(f"{self._status_word(word, _COLORS[word])} {spec.cited}: {detail}")
        for line in table:
            self.data(line)
        self._findings(result, "")

    def render_findings(self, result: SpecResult) -> None:
        self._findings(result, f"{result.spec.cited}: ")

    def _findings(self, result: SpecResult, whose: str) -> None:
        """Its findings, each on a line of its own, under its spec's line (`whose` empty) or
        under its file's joint line, naming the spec."""
        vacuity, redundancy = result.vacuity, result.redundancy
        if vacuity is not None:
            for f in vacuity.findings:
                tag = "UNDECIDED" if f.undecided else "VACUOUS"
                self._finding(tag, whose + finding_text(f), result.is_acknowledged(f.key))
            if vacuity.unchecked:
                self._finding("UNDECIDED", whose + unchecked_text(vacuity), False)
        if redundancy is not None and redundancy.key is not None:
            tag = "REDUNDANT" if redundancy.state == "redundant" else "UNDECIDED"
            self._finding(tag, whose + redundancy_text(redundancy), result.is_acknowledged(redundancy.key))
        for n in result.similar or ():
            self._finding("SIMILAR", whose + similar_text(n), False)
        for ack in result.acknowledgments.stale:
            self.data(
                f"  {self._status_word('STALE', _COLORS['STALE'])} {whose}acknowledgment {ack!r}: no such finding"
            )

    def _finding(self, tag: str, text: str, acknowledged: bool) -> None:
        if acknowledged:
            text = f"({tag.lower()}) {text}"
            tag = "ACKNOWLEDGED"
        self.data(f"  {self._status_word(tag, _COLORS[tag])} {text}")

    def _detail(self, r: SpecResult) -> tuple[str, list[str]]:
        """The result line's details, and the lines of a witness shown below it as a table."""
        if r.status == "error":
            return r.error_text or "error", []
        if r.status == "unknown":
            return f"expected {r.spec.expect}, no answer: {r.message}", []
        if r.verdict == "valid":
            return "valid", []
        if r.counterexample is not None:
            shown, table = _shown(r.spec, r.counterexample)
            return f"{r.message}: {shown}", table
        shown, table = _shown(r.spec, r.witness)
        text = f"{r.verdict}, witness {shown}" if r.witness is not None else str(r.verdict)
        if r.status == "fail":
            return f"{r.message}; {text}", table
        return (f"{text} ({r.message})" if r.message else text), table

    def _realizability(self, word: str, result: RealizabilityResult) -> None:
        """A component's realizability: its verdict and requirements, then what makes it
        unrealizable (each minimal conflict, each minimal correction) and a play."""
        what = {"PASS": "realizable", "FAIL": "unrealizable", "UNKNOWN": "realizability unknown"}.get(
            word, "realizability"
        )
        where = f"{result.component} of {result.item.file}" if result.component else result.item.file
        detail = (result.error_text if result.status == "error" else result.message) or ""
        said = "; ".join(x for x in (", ".join(result.requirements), detail) if x)
        self.data(f"{self._status_word(word, _COLORS[word])} {what} ({where}): {said}")
        for names_ in result.conflicts:
            self.data(f"  {self._status_word('CONFLICT', 'red')} {', '.join(names_)}")
        for names_ in result.corrections:
            self.data(f"  {self._status_word('FIX', 'yellow')} remove {', '.join(names_)}")
        if result.status == "fail" and not result.complete:
            self.data("  (not every conflict: --timeout ran out)")
        play = getattr(result.verdict, "play", None)
        if result.status == "fail" and play is not None:
            from ltlwit.specs.realizability import shown

            self.data(f"  play: {shown(play, result.names)}")

    def summary(self) -> None:
        c = self.counts
        total = sum(c[s] for s in ("pass", "fail", "unknown", "error"))
        line = (
            f"{plural(total, 'spec')}: {c['pass']} passed, {c['fail']} failed, {c['unknown']} unknown, "
            f"{plural(c['error'], 'error')}"
        )
        if c["vacuity:clean"] + c["vacuity:vacuous"] + c["vacuity:undecided"]:
            line += f"; vacuity: {c['vacuity:vacuous']} vacuous, {c['vacuity:undecided']} undecided"
        if c["redundancy:needed"] + c["redundancy:redundant"] + c["redundancy:undecided"]:
            line += f"; redundancy: {c['redundancy:redundant']} redundant, {c['redundancy:undecided']} undecided"
        if self._pairs:
            kinds = Counter(self._pairs.values())
            line += f"; {plural(len(self._pairs), 'near pair')}: " + ", ".join(f"{kinds[k]} {k}" for k in _PAIR_KINDS)
        if c["acknowledged"] + c["stale"]:
            line += f"; {c['acknowledged']} acknowledged, {plural(c['stale'], 'stale acknowledgment')}"
        if c["together:fail"]:  # specs that pass one by one can still contradict each other
            line += f"; {plural(c['together:fail'], 'file')} whose specs contradict each other"
        if c["together:unknown"] + c["together:error"]:
            line += f"; {plural(c['together:unknown'] + c['together:error'], 'file')} not known to hold together"
        if any(c["realizability:" + s] for s in ("pass", "fail", "unknown", "error")):
            line += (
                f"; realizability: {c['realizability:pass']} realizable, {c['realizability:fail']} unrealizable, "
                f"{c['realizability:unknown'] + c['realizability:error']} undecided"
            )
        self.data(line)


class CheckJson(CheckPrinter):
    def render(self, result: SpecResult | ConjunctionResult | RealizabilityResult) -> None:
        self.data(json.dumps(record(result), ensure_ascii=False))


def _shown(spec, witness) -> tuple[str | None, list[str]]:
    """A witness as the text lines show it: an activity sequence in a `one-event` file, a
    table below the line where its values are too many for one (`witness_table`), else its
    text."""
    if spec is not None and spec.one_event and witness is not None:
        from ltlwit.logic.declare import activities_text

        return activities_text(witness), []
    table = witness_table(witness)
    return ("below", table) if table is not None else (witness_text(witness), [])


def _key(spec) -> tuple[str, int, str | None]:
    return spec.file, spec.line, spec.name


def _names(specs) -> str:
    return ", ".join(s.cited for s in specs)


def check_printer(fmt: str, env: Environment) -> CheckPrinter:
    return CheckJson(env) if fmt == "json" else CheckText(env)
