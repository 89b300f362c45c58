"""Rendering answers: data on stdout (one line per answer, flushed at once so pipelines stream),
messages on stderr (`ltlwit: FILE:LINE: ...`, with Spot's caret rendering for parse errors).

`solve` formats: `table` — a rich table (formula, status, witness, source, ms) streamed row by
row, the default on a terminal; `text` — the witness (`--syntax-out`), `UNSAT`, `UNKNOWN` or
`ERROR` (the message on stderr), one line per input, the default off a terminal; `json` — JSON
Lines with a fixed set of keys (absent values are null), so `jq` filters never meet a missing
key; `csv` — the same fields with a header row. `verify`: `text` (HOLDS/FAILS/UNKNOWN/ERROR)
and `json`; `fmt`: text, ERROR where an input does not parse. When stderr is a terminal and
stdout is not (`ltlwit solve -F big.txt > out.txt`), a one-line progress counter is kept on stderr
(`ltlwit.cli.progress`), and when stderr is a terminal an answer long in coming gets a live status
line there (`Printer.status_line`), wiped before anything else is written. With `--traceback`
(or LTLWIT_TRACEBACK=1) an internal error's message is followed by its traceback.
"""

from __future__ import annotations

import contextlib
import io
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TextIO

import click

from ltlwit.cli.environment import Environment, OutputClosed, OutputFailed
from ltlwit.logic.assignment import Assignment
from ltlwit.pipeline.answers import Answer, Solution, core_parts, core_text
from ltlwit.pipeline.inputs import InputItem

# What only some runs need loads when they need it (a cold `ltlwit solve` pays for every
# module it imports): the progress and status lines with a terminal on stderr, rich, json and
# csv with their formats, tracebacks with --traceback, and the answers of `verify` and `fmt`
# with those commands.
if TYPE_CHECKING:
    from ltlwit.cli.progress import ProgressLine, StatusLine
    from ltlwit.pipeline.convert import Conversion
    from ltlwit.pipeline.verify import Verdict

#: The keys of a `solve --format json` record, in order (also the CSV columns, less assignment).
SOLVE_KEYS = (
    "input",
    "file",
    "line",
    "name",
    "logic",
    "status",
    "witness",
    "witness_polish",
    "assignment",
    "source",
    "rank",
    "candidates_tried",
    "models_skipped",
    "semantics",
    "verified",
    "core",
    "core_minimal",
    "time_ms",
    "reason",
    "error",
    "warnings",
)


@contextlib.contextmanager
def writing() -> Iterator[None]:
    """Output errors as the CLI reports them: a reader gone away is `OutputClosed` (exit 141),
    any other write error `OutputFailed` (one line, exit 2)."""
    try:
        yield
    except BrokenPipeError as exc:
        raise OutputClosed() from exc
    except OSError as exc:
        raise OutputFailed(f"cannot write the output: {exc.strerror or exc}") from exc


def stdout_console(env: Environment, **options: Any) -> Any:
    """A rich Console writing to our stdout. Rich handles a broken pipe itself (exit 1, and a
    crash when the shell closed stdout); ours ends the run as every other output does."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            raise OutputClosed()

    return _Console(file=env.stdout, **options)


class Printer:
    #: A header (CSV's, the table's) is to be written before the next answer; `--jobs` clears
    #: it once a worker's printer wrote one (`ltlwit.cli.jobs.run_jobs`).
    header_due = False

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.progress: ProgressLine | None = None
        self.status: StatusLine | None = None  # while one is kept (`status_line`)
        self._warned: set[tuple[str, str]] = set()  # (input, warning) said so far (`warn`)

    @contextlib.contextmanager
    def status_line(self, timeout: float | None) -> Iterator[Callable[[Iterable[InputItem]], Iterable[InputItem]]]:
        """While the block runs, a live status line on stderr when it is a terminal, for answers
        long in coming (`StatusLine`; `timeout`: the run's `--timeout`). Yields what the inputs
        are to pass through, so that the line can name the one being worked on."""
        if not self.env.stderr_isatty:
            yield lambda items: items
            return
        from ltlwit.cli.progress import StatusLine

        self.status = StatusLine(self.env, timeout)
        try:
            with self.status.running():
                yield self.status.track
        finally:
            self.status = None

    @contextlib.contextmanager
    def answering(self, answer: Answer) -> Iterator[None]:
        """The block prints `answer`: kept clear of the status line, whose clock restarts."""
        with self._screen():
            if self.status is not None:
                self.status.answered(answer.item)
            yield

    @contextlib.contextmanager
    def _screen(self) -> Iterator[None]:
        """The block writes to stdout or stderr: the status line is wiped first and not drawn
        meanwhile (both streams may be the same terminal)."""
        if self.status is None:
            yield
        else:
            with self.status.quiet():
                yield

    def _write(self, stream: TextIO, text: str) -> None:
        with self._screen(), writing():
            stream.write(text + "\n")
            stream.flush()

    def data(self, line: str) -> None:
        self._write(self.env.stdout, line)

    def message(self, where: str, text: str, details: str | None = None) -> None:
        """`ltlwit: WHERE: TEXT` on stderr, then optional multi-line details as they are."""
        prefix = f"ltlwit: {where}: " if where else "ltlwit: "
        if self.env.stderr_colors:
            prefix = click.style(prefix, bold=True)
        with self._screen():
            if self.progress is not None:
                self.progress.clear()
            self._write(self.env.stderr, prefix + text + (f"\n{details}" if details else ""))

    def notice(self, text: str, exception: BaseException | None = None) -> None:
        """A once-per-run message that belongs to no input (a model that failed to load)."""
        self.message("", text, self._traceback(exception))

    def warn(self, answer: Answer) -> None:
        """An answer's warnings (`Answer.warnings`) on stderr under its input's location, each
        once per input (an input with several answers, `--all`, says it once), as JSON has
        them per input; under `--jobs` the same, whichever worker answered."""
        for text in answer.warnings:
            if (answer.item.where, text) not in self._warned and not self.env.quiet:
                self._warned.add((answer.item.where, text))
                self.message(answer.item.where, f"warning: {text}")

    def problem(self, answer: Answer) -> None:
        """Report an "error" answer on stderr; parse errors get the caret rendering, internal
        errors their traceback when asked for."""
        if answer.parse_error is not None:
            render = getattr(answer.parse_error, "render", None)
            if render is not None:
                self.message(answer.item.where, f"{answer.message}:", render())
                return
        self.message(answer.item.where, answer.error_text or "error", self._traceback(answer.exception))

    def unread(self, where: str, message: str, parse_error: ValueError | None) -> None:
        """An input that could not be read, on stderr: a parse error with its caret rendering,
        anything else as its message."""
        render = getattr(parse_error, "render", None)
        self.message(where, "parse error:" if render else message, render() if render else None)

    def failed(self, answer: Answer) -> None:
        """The text formats' report of an input that failed: an `ERROR` line on stdout, so that
        the output stays one line per input (`paste in.txt <(ltlwit solve -F in.txt)` pairs
        each formula with its own answer), and the message on stderr. A file that could not be
        read at all (line 0) holds no input, so it gets no line."""
        if answer.item.line:
            self.data(self._status_word("ERROR", "red"))
        self.problem(answer)

    def _traceback(self, exception: BaseException | None) -> str | None:
        if exception is None or not self.env.traceback:
            return None
        carried = getattr(exception, "traceback_text", None)  # from a worker process (`--jobs`)
        if isinstance(carried, str):
            return carried
        import traceback

        return "".join(traceback.format_exception(exception)).rstrip("\n")

    def replay(self, events: Iterable[tuple[int, str]]) -> None:
        """Output a worker process rendered (`ltlwit.cli.jobs`): text for stdout (1) and stderr
        (2), in the order it was written, the progress line wiped before stderr text as
        `message` does and ticked where each answer ended (0, its status)."""
        for number, text in events:
            if number == 0:
                if self.progress is not None:
                    self.progress.tick(text)
                continue
            if number == 2 and self.progress is not None:
                self.progress.clear()
            stream = self.env.stdout if number == 1 else self.env.stderr
            with writing():
                stream.write(text)
                stream.flush()

    def _status_word(self, word: str, color: str) -> str:
        return click.style(word, fg=color, bold=True) if self.env.stdout_colors else word

    def finish(self) -> None:
        if self.progress is not None:
            self.progress.clear()


# -- solve printers ----------------------------------------------------------------------------


def solve_record(solution: Solution, syntax: str = "spot") -> dict[str, Any]:
    """The JSON Lines record of one solution; every key of SOLVE_KEYS, always."""
    witness = solution.witness
    return {
        "input": solution.item.text,
        "file": solution.item.file,
        "line": solution.item.line or None,
        "name": getattr(solution.item, "name", None),
        "logic": solution.logic,
        "status": solution.status,
        "witness": witness.to_str(syntax) if witness is not None else None,
        "witness_polish": witness.to_str("polish") if witness is not None and not _has_data(witness) else None,
        "assignment": witness.as_dict() if isinstance(witness, Assignment) else None,
        "source": solution.source,
        "rank": solution.rank,
        "candidates_tried": solution.candidates_tried,
        "models_skipped": solution.models_skipped,
        "semantics": solution.semantics,
        "verified": solution.verified,
        "core": _core_record(solution, syntax),
        "core_minimal": solution.core.minimal if solution.core is not None else None,
        "time_ms": solution.time_ms,
        "reason": solution.message if solution.status == "unknown" else None,
        "error": solution.error_text,
        "warnings": list(solution.warnings),
    }


def _has_data(witness: Any) -> bool:
    return not isinstance(witness, Assignment) and witness.data


def _core_record(solution: Solution, syntax: str) -> list[dict[str, Any]] | None:
    """The core's members: their 1-based position among the formula's top-level conjuncts, the
    conjunct (as written, where the input is infix text), its columns in the input (1-based,
    first and last; null when not known), the witness of the other members that shows it
    needed (null if not shown), and with --fine-core the conjunct with the subformulas that do
    not matter weakened to constants (else null)."""
    from ltlwit.logic.syntax import print_answer

    core = solution.core
    if core is None:
        return None
    return [
        {
            "conjunct": i + 1,
            "formula": text,
            "columns": [core.spans[i][0] + 1, core.spans[i][1]] if core.spans is not None else None,
            "witness": w.to_str(syntax) if w is not None else None,
            "fine": print_answer(core.fine[k], syntax) if core.fine is not None else None,
        }
        for k, (i, text, w) in enumerate(zip(core.members, core_parts(solution, syntax), core.witnesses))
    ]


class SolvePrinter(Printer):
    #: Witnesses as activity sequences (plain lines, `--one-event`).
    activities = False

    def __init__(self, env: Environment, syntax: str = "spot") -> None:
        super().__init__(env)
        self.syntax = syntax

    def emit(self, solution: Solution) -> None:
        with self.answering(solution):
            self.warn(solution)
            self.render(solution)
            if self.progress is not None:
                self.progress.tick(solution.status)

    def render(self, solution: Solution) -> None:
        raise NotImplementedError


class SolveText(SolvePrinter):
    def render(self, solution: Solution) -> None:
        if solution.status == "sat" and (self.activities or getattr(solution.item, "one_event", False)):
            from ltlwit.logic.declare import activities_text

            self._named(solution, activities_text(solution.witness))
        elif solution.status == "sat":
            self._named(solution, solution.to_str(self.syntax))
        elif solution.status == "unsat":
            core = f" core: {core_text(solution, self.syntax)}" if solution.core is not None else ""
            self._named(solution, self._status_word("UNSAT", "red") + core)
        elif solution.status == "unknown":
            self._named(solution, self._status_word("UNKNOWN", "yellow"))
            if solution.message:
                self.message(solution.item.where, f"unknown: {solution.message}")
        else:
            self.failed(solution)

    def _named(self, solution: Solution, text: str) -> None:
        """An answer, after its spec's name where a spec file gives one (`r1: cycle{p}`, as
        check names it), so that the answers of a spec file can be told apart."""
        name = getattr(solution.item, "name", None)
        self.data(f"{name}: {text}" if name else text)


class SolveJson(SolvePrinter):
    def render(self, solution: Solution) -> None:
        import json

        self.data(json.dumps(solve_record(solution, self.syntax), ensure_ascii=False))
        if solution.status == "error":
            self.problem(solution)


class SolveVcd(SolvePrinter):
    """One Value Change Dump of every witness (a scope per input, `ltlwit.logic.waveform`),
    written when the run ends: VCD declares every signal before any value. Inputs without a
    trace witness are named in `$comment`s (and, unknown or wrong, on stderr as ever)."""

    def __init__(self, env: Environment, syntax: str = "spot") -> None:
        super().__init__(env, syntax)
        self.scopes: list[tuple[str, Any]] = []
        self.comments: list[str] = []

    def render(self, solution: Solution) -> None:
        from ltlwit.logic.trace import Trace

        label = getattr(solution.item, "name", None) or solution.item.where
        if isinstance(solution.witness, Trace):
            scope = f"{label}#{len(self.scopes) + 1}" if any(s == label for s, _ in self.scopes) else label
            self.scopes.append((scope, solution.witness))
        else:
            shown = solution.witness.to_str(self.syntax) if solution.witness is not None else solution.status.upper()
            self.comments.append(f"{label}: {shown}")
            if solution.status == "error":
                self.problem(solution)
            elif solution.status == "unknown" and solution.message:
                self.message(solution.item.where, f"unknown: {solution.message}")

    def finish(self) -> None:
        from ltlwit.logic.waveform import vcd

        super().finish()
        self.data(vcd(self.scopes, comments=self.comments).rstrip("\n"))


class SolveCsv(SolvePrinter):
    COLUMNS = tuple(k for k in SOLVE_KEYS if k != "assignment")

    def __init__(self, env: Environment, syntax: str = "spot") -> None:
        super().__init__(env, syntax)
        self.header_due = True

    def _row(self, values: list[Any]) -> str:
        import csv

        buf = io.StringIO()  # the row's own terminator, so that a field holding a bare CR is quoted
        csv.writer(buf, lineterminator="\r\n").writerow(values)
        return buf.getvalue().removesuffix("\r\n")

    def render(self, solution: Solution) -> None:
        if self.header_due:
            self.data(self._row(list(self.COLUMNS)))
            self.header_due = False
        record = solve_record(solution, self.syntax)
        if solution.core is not None:  # one cell: the conflicting conjuncts as one formula
            record["core"] = core_text(solution, self.syntax)
        self.data(self._row([_csv_value(record[k]) for k in self.COLUMNS]))
        if solution.status == "error":
            self.problem(solution)


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):  # the warnings, one cell
        return " | ".join(value)
    return value


#: Lines of the terminal table a formula and a witness take at most (the rest elided in the
#: middle, the full text in JSON and CSV): a 100 KB formula took 6,053 lines.
FORMULA_LINES = 3
WITNESS_LINES = 12


def elided(text: str, limit: int) -> str:
    """`text` cut in the middle to about `limit` characters, saying how much is left out: the
    start and the end (a lasso's loop) stay."""
    if len(text) <= limit:
        return text
    keep = max(limit - 24, 8)
    head, tail = keep * 2 // 3, keep - keep * 2 // 3
    return f"{text[:head]} … ({len(text) - head - tail:,} more characters) … {text[len(text) - tail :]}"


class SolveTable(SolvePrinter):
    """A rich table streamed row by row (one single-row table each, fixed column widths, the
    header once), so a terminal shows answers as they come and memory stays constant."""

    STYLES = {"sat": "green", "unsat": "red", "unknown": "yellow", "error": "red"}

    def __init__(self, env: Environment, syntax: str = "spot") -> None:
        super().__init__(env, syntax)
        # NO_COLOR: no escape codes at all (not even bold), like the plain printers.
        self.console = stdout_console(
            env,
            force_terminal=True,
            highlight=False,
            emoji=False,
            markup=False,
            color_system="standard" if env.stdout_colors else None,
        )
        free = max(self.console.width - 7 - 11 - 9 - 8, 20)  # status, source, ms, padding
        self.widths = (max(free * 2 // 5, 8), 7, max(free - free * 2 // 5, 12), 11, 9)
        self.header_due = True

    def render(self, solution: Solution) -> None:
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, show_header=self.header_due, pad_edge=False, header_style="bold", show_edge=False)
        for name, width in zip(("formula", "status", "witness", "source", "ms"), self.widths):
            table.add_column(name, width=width, overflow="fold", justify="right" if name == "ms" else "left")
        self.header_due = False
        below = None
        if solution.status == "error":
            detail = solution.error_text or ""
        elif solution.status == "unknown":
            detail = solution.message or ""
        else:
            from ltlwit.cli.witness_table import witness_table

            below = witness_table(solution.witness)
            detail = "below" if below is not None else solution.to_str(self.syntax)
        status = Text(solution.status.upper(), style=self.STYLES.get(solution.status, ""))
        formula = elided(solution.item.text, self.widths[0] * FORMULA_LINES)
        table.add_row(
            Text(formula),
            status,
            Text(elided(detail, self.widths[2] * WITNESS_LINES)),
            Text(solution.source or ""),
            f"{solution.time_ms:.1f}",
        )
        with writing():
            self.console.print(table)
            if below is not None:  # a witness with too many values for its cell: a table of its own
                self.env.stdout.write("".join(line + "\n" for line in below))
            self.env.stdout.flush()
        if solution.status == "error":
            self.problem(solution)


def solve_printer(fmt: str, env: Environment, syntax: str = "spot", activities: bool = False) -> SolvePrinter:
    """The printer for `--format` (auto: a table on a terminal, plain lines elsewhere), with a
    progress counter on stderr when only stderr is a terminal; `activities`: plain lines give a
    witness of one activity per instant as the activity sequence (`--one-event`)."""
    if fmt == "auto":
        fmt = "table" if env.stdout_isatty else "text"
    printer: SolvePrinter = {"table": SolveTable, "json": SolveJson, "csv": SolveCsv, "vcd": SolveVcd}.get(
        fmt, SolveText
    )(env, syntax)
    printer.activities = activities
    if env.stderr_isatty and not env.stdout_isatty:
        from ltlwit.cli.progress import ProgressLine

        printer.progress = ProgressLine(env)
    return printer


# -- verify and fmt ----------------------------------------------------------------------------


class LogProblems(Printer):
    """`verify --log`: each problem with the log once in the run, however many requirements
    it keeps from being judged (their lines say ERROR; JSON records carry it each)."""

    def __init__(self, env: Environment) -> None:
        super().__init__(env)
        self._told: set[str] = set()

    def log_problems(self, verdict: Verdict) -> bool:
        """Tell the verdict's log problems not told yet; False when it has none."""
        for text in verdict.log_problems:
            if text not in self._told:
                self._told.add(text)
                self.message("", text)
        return bool(verdict.log_problems)


class VerifyText(LogProblems):
    WORDS = {"holds": ("HOLDS", "green"), "fails": ("FAILS", "red"), "unknown": ("UNKNOWN", "yellow")}

    def __init__(self, env: Environment, log: bool = False) -> None:
        super().__init__(env)
        self.log = log  # `verify --log`: a line per requirement, named, with where it fails

    def emit(self, verdict: Verdict) -> None:
        self.warn(verdict)
        if verdict.status == "error":
            if self.log:  # the labelled line stands for the input; the message on stderr
                self.data(f"{self._status_word('ERROR', 'red')} {self._label(verdict)}")
                if not self.log_problems(verdict):
                    self.problem(verdict)
            else:
                self.failed(verdict)
            return
        word = self._status_word(*self.WORDS[verdict.status])
        if self.log:
            self.data(f"{word} {self._label(verdict)}" + (f": {verdict.message}" if verdict.message else ""))
            return
        self.data(word)
        if verdict.message:  # why it is unknown; for an UNSAT claim that fails, its counterexample
            self.message(verdict.item.where, f"{verdict.status}: {verdict.message}")

    @staticmethod
    def _label(verdict: Verdict) -> str:
        where = verdict.item.where
        return (
            f"{verdict.name} ({where})"
            if verdict.name
            else where
            if not verdict.item.from_argument
            else verdict.formula
        )


class VerifyJson(LogProblems):
    def emit(self, verdict: Verdict) -> None:
        self.warn(verdict)
        record = {
            "formula": verdict.formula,
            "witness": verdict.witness,
            "holds": verdict.holds,
            "status": verdict.status,
            "logic": verdict.logic,
            "file": verdict.item.file,
            "line": verdict.item.line or None,
            "time_ms": verdict.time_ms,
            "reason": verdict.message if verdict.status != "error" else None,
            "counterexample": verdict.counterexample.to_str() if verdict.counterexample is not None else None,
            "error": verdict.error_text,
            "name": verdict.name,
            "violated_at": verdict.violated_at,
            "violated_line": verdict.violated_line,
        }
        import json

        self.data(json.dumps(record, ensure_ascii=False))
        if verdict.status == "error":
            if not self.log_problems(verdict):
                self.problem(verdict)


def verify_printer(fmt: str, env: Environment, log: bool = False) -> VerifyText | VerifyJson:
    return VerifyJson(env) if fmt == "json" else VerifyText(env, log)


class FmtText(Printer):
    def emit(self, converted: Conversion) -> None:
        if converted.status == "ok":
            self.data(converted.text or "")
        else:
            self.failed(converted)
