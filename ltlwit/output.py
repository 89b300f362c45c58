"""Rendering answers: data on stdout (one line per answer, flushed at once so pipelines stream),
messages on stderr (`ltlwit: FILE:LINE: ...`, with Spot's caret rendering for parse errors).

`solve` formats: `table` — a rich table (formula, status, witness, source, ms) streamed row by
row, the default on a terminal; `text` — the witness (`--syntax-out`), `UNSAT` or `UNKNOWN`,
the default off a terminal; `json` — JSON Lines with a fixed set of keys (absent values are
null), so `jq` filters never meet a missing key; `csv` — the same fields with a header row.
`verify`: `text` (HOLDS/FAILS/UNKNOWN) and `json`. When stderr is a terminal and stdout is not
(`ltlwit solve -F big.txt > out.txt`), a one-line progress counter is kept on stderr.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import time
from typing import Any, Iterator, TextIO

import click

from ltlwit.convert import Converted
from ltlwit.env import Environment, OutputClosed, OutputFailed
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.trace import Trace
from ltlwit.solve import Answer, Outcome
from ltlwit.verify import Verdict

#: `verify --format` (and the formats every command shares).
FORMATS = ("text", "json")
#: `solve --format`; auto: table on a terminal, text elsewhere.
SOLVE_FORMATS = ("auto", "table", "text", "json", "csv")
#: The keys of a `solve --format json` record, in order (also the CSV columns, less assignment).
SOLVE_KEYS = ("input", "file", "line", "logic", "status", "witness", "witness_polish", "assignment", "source",
              "rank", "candidates_tried", "verified", "time_ms", "reason", "error")


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
    def __init__(self, env: Environment) -> None:
        self.env = env
        self.progress: ProgressLine | None = None

    def _write(self, stream: TextIO, text: str) -> None:
        with writing():
            stream.write(text + "\n")
            stream.flush()

    def data(self, line: str) -> None:
        self._write(self.env.stdout, line)

    def message(self, where: str, text: str, details: str | None = None) -> None:
        """`ltlwit: WHERE: TEXT` on stderr, then optional multi-line details as they are."""
        if self.progress is not None:
            self.progress.clear()
        prefix = f"ltlwit: {where}: " if where else "ltlwit: "
        if self.env.stderr_colors:
            prefix = click.style(prefix, bold=True)
        self._write(self.env.stderr, prefix + text + (f"\n{details}" if details else ""))

    def notice(self, text: str) -> None:
        """A once-per-run message that belongs to no input (a model that failed to load)."""
        self.message("", text)

    def problem(self, answer: Answer) -> None:
        """Report an "error" answer on stderr; parse errors get the caret rendering."""
        if answer.parse_error is not None:
            render = getattr(answer.parse_error, "render", None)
            if render is not None:
                self.message(answer.item.where, f"{answer.message}:", render())
                return
        self.message(answer.item.where, answer.error_text or "error")

    def _status_word(self, word: str, color: str) -> str:
        return click.style(word, fg=color, bold=True) if self.env.stdout_colors else word

    def finish(self) -> None:
        if self.progress is not None:
            self.progress.clear()


# -- witnesses ---------------------------------------------------------------------------------


def render_witness(witness: Trace | Assignment, syntax: str = "spot") -> str:
    """A witness in `spot` (`a & !b; cycle{c}`, a cube `a & !c`), `polish` (DeepLTL's
    `&a!b;{c}` — steps in spaced Polish when an AP name has several letters — or `a1c0`) or
    `lbt` (LBT prefix steps inside Spot's word layout; an assignment as an LBT cube)."""
    from ltlwit.logic.formula import And, Not, ap
    from ltlwit.logic.syntax import print_assignment, print_formula
    from ltlwit.logic.syntax.words import print_trace_polish, print_trace_spot

    if isinstance(witness, Assignment):
        if syntax == "lbt":
            return print_formula(And(*(ap(n) if v else Not(ap(n)) for n, v in witness.values)), "lbt")
        return print_assignment(witness, syntax)
    if syntax == "spot":
        return print_trace_spot(witness, lambda f: print_formula(f, "spot"))
    if syntax == "lbt":
        return print_trace_spot(witness, lambda f: print_formula(f, "lbt"))
    try:
        return print_trace_polish(witness, lambda f: print_formula(f, "polish"))
    except ValueError:  # multi-letter AP names: network Polish cannot spell them
        return print_trace_polish(witness, lambda f: print_formula(f, "polish-spaced"))


def witness_text(outcome: Outcome, syntax: str = "spot") -> str:
    return render_witness(outcome.witness, syntax) if outcome.witness is not None else ""


def solve_record(outcome: Outcome, syntax: str = "spot") -> dict[str, Any]:
    """The JSON Lines record of one outcome; every key of SOLVE_KEYS, always."""
    witness = outcome.witness
    return {
        "input": outcome.item.text,
        "file": outcome.item.file,
        "line": outcome.item.line or None,
        "logic": outcome.logic,
        "status": outcome.status,
        "witness": witness_text(outcome, syntax) if witness is not None else None,
        "witness_polish": render_witness(witness, "polish") if witness is not None else None,
        "assignment": witness.as_dict() if isinstance(witness, Assignment) else None,
        "source": outcome.source,
        "rank": outcome.rank,
        "candidates_tried": outcome.candidates_tried,
        "verified": outcome.verified,
        "time_ms": outcome.time_ms,
        "reason": outcome.message if outcome.status == "unknown" else None,
        "error": outcome.error_text,
    }


# -- solve printers ----------------------------------------------------------------------------


class SolvePrinter(Printer):
    def __init__(self, env: Environment, syntax: str = "spot") -> None:
        super().__init__(env)
        self.syntax = syntax

    def emit(self, outcome: Outcome) -> None:
        self.render(outcome)
        if self.progress is not None:
            self.progress.tick(outcome.status)

    def render(self, outcome: Outcome) -> None:
        raise NotImplementedError


class SolveText(SolvePrinter):
    def render(self, outcome: Outcome) -> None:
        if outcome.status == "sat":
            self.data(witness_text(outcome, self.syntax))
        elif outcome.status == "unsat":
            self.data(self._status_word("UNSAT", "red"))
        elif outcome.status == "unknown":
            self.data(self._status_word("UNKNOWN", "yellow"))
            if outcome.message:
                self.message(outcome.item.where, f"unknown: {outcome.message}")
        else:
            self.problem(outcome)


class SolveJson(SolvePrinter):
    def render(self, outcome: Outcome) -> None:
        self.data(json.dumps(solve_record(outcome, self.syntax), ensure_ascii=False))
        if outcome.status == "error":
            self.problem(outcome)


class SolveCsv(SolvePrinter):
    COLUMNS = tuple(k for k in SOLVE_KEYS if k != "assignment")

    def __init__(self, env: Environment, syntax: str = "spot") -> None:
        super().__init__(env, syntax)
        self._header = False

    def _row(self, values: list[Any]) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow(values)
        return buf.getvalue()

    def render(self, outcome: Outcome) -> None:
        if not self._header:
            self.data(self._row(list(self.COLUMNS)))
            self._header = True
        record = solve_record(outcome, self.syntax)
        self.data(self._row([_csv_value(record[k]) for k in self.COLUMNS]))
        if outcome.status == "error":
            self.problem(outcome)


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


class SolveTable(SolvePrinter):
    """A rich table streamed row by row (one single-row table each, fixed column widths, the
    header once), so a terminal shows answers as they come and memory stays constant."""

    STYLES = {"sat": "green", "unsat": "red", "unknown": "yellow", "error": "red"}

    def __init__(self, env: Environment, syntax: str = "spot") -> None:
        super().__init__(env, syntax)
        # NO_COLOR: no escape codes at all (not even bold), like the plain printers.
        self.console = stdout_console(env, force_terminal=True, highlight=False, emoji=False, markup=False,
                                      color_system="standard" if env.stdout_colors else None)
        free = max(self.console.width - 7 - 11 - 9 - 8, 20)  # status, source, ms, padding
        self.widths = (max(free * 2 // 5, 8), 7, max(free - free * 2 // 5, 12), 11, 9)
        self._header = True

    def render(self, outcome: Outcome) -> None:
        from rich.table import Table
        from rich.text import Text

        table = Table(box=None, show_header=self._header, pad_edge=False, header_style="bold", show_edge=False)
        for name, width in zip(("formula", "status", "witness", "source", "ms"), self.widths):
            table.add_column(name, width=width, overflow="fold", justify="right" if name == "ms" else "left")
        self._header = False
        if outcome.status == "error":
            detail = outcome.error_text or ""
        elif outcome.status == "unknown":
            detail = outcome.message or ""
        else:
            detail = witness_text(outcome, self.syntax)
        status = Text(outcome.status.upper(), style=self.STYLES.get(outcome.status, ""))
        table.add_row(Text(outcome.item.text), status, Text(detail), Text(outcome.source or ""),
                      f"{outcome.time_ms:.1f}")
        with writing():
            self.console.print(table)
            self.env.stdout.flush()
        if outcome.status == "error":
            self.problem(outcome)


def solve_printer(fmt: str, env: Environment, syntax: str = "spot") -> SolvePrinter:
    """The printer for `--format` (auto: a table on a terminal, plain lines elsewhere), with a
    progress counter on stderr when only stderr is a terminal."""
    if fmt == "auto":
        fmt = "table" if env.stdout_isatty else "text"
    printer: SolvePrinter = {"table": SolveTable, "json": SolveJson, "csv": SolveCsv}.get(fmt, SolveText)(env, syntax)
    if env.stderr_isatty and not env.stdout_isatty:
        printer.progress = ProgressLine(env)
    return printer


class ProgressLine:
    """`ltlwit: 1234 answered (1200 sat, 30 unsat, 4 unknown, 0 errors), 456/s` on stderr,
    redrawn in place at most five times a second and wiped before any message and at the end."""

    INTERVAL = 0.2

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.counts = {"sat": 0, "unsat": 0, "unknown": 0, "error": 0}
        self.start = time.monotonic()
        self.shown = False
        self.last = 0.0

    def tick(self, status: str) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1
        now = time.monotonic()
        if now - self.last >= self.INTERVAL:
            self.last = now
            total = sum(self.counts.values())
            rate = total / max(now - self.start, 1e-9)
            c = self.counts
            self._put(f"\r\x1b[Kltlwit: {total} answered ({c['sat']} sat, {c['unsat']} unsat, "
                      f"{c['unknown']} unknown, {c['error']} errors), {rate:.0f}/s")
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            self._put("\r\x1b[K")
            self.shown = False

    def _put(self, text: str) -> None:
        try:
            self.env.stderr.write(text)
            self.env.stderr.flush()
        except (OSError, ValueError):
            pass  # a progress line is never worth an error


# -- verify and fmt ----------------------------------------------------------------------------


class VerifyText(Printer):
    WORDS = {"holds": ("HOLDS", "green"), "fails": ("FAILS", "red"), "unknown": ("UNKNOWN", "yellow")}

    def emit(self, verdict: Verdict) -> None:
        if verdict.status == "error":
            self.problem(verdict)
            return
        self.data(self._status_word(*self.WORDS[verdict.status]))
        if verdict.status == "unknown" and verdict.message:
            self.message(verdict.item.where, f"unknown: {verdict.message}")


class VerifyJson(Printer):
    def emit(self, verdict: Verdict) -> None:
        record = {
            "formula": verdict.formula,
            "witness": verdict.witness,
            "holds": verdict.holds,
            "status": verdict.status,
            "logic": verdict.logic,
            "file": verdict.item.file,
            "line": verdict.item.line or None,
            "time_ms": verdict.time_ms,
            "reason": verdict.message if verdict.status == "unknown" else None,
            "error": verdict.error_text,
        }
        self.data(json.dumps(record, ensure_ascii=False))
        if verdict.status == "error":
            self.problem(verdict)


def verify_printer(fmt: str, env: Environment) -> VerifyText | VerifyJson:
    return VerifyJson(env) if fmt == "json" else VerifyText(env)


class FmtText(Printer):
    def emit(self, converted: Converted) -> None:
        if converted.status == "ok":
            self.data(converted.text or "")
        else:
            self.problem(converted)
