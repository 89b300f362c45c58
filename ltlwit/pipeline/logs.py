"""Logs of states for runtime verification (`ltlwit verify --log`): a CSV file (a header of
variable names, one row per instant) or JSON Lines (one object per instant), read into columns
of raw values with the file's line of each instant, typed later against the sorts the
requirements read them in (`ltlwit.pipeline.log_sorts`).

Lines are the file's physical lines, 1-based, header included: `\\r`, `\\n` and `\\r\\n` each
end one (universal newlines, as the csv module reads a file opened with `newline=''`), and a
quoted CSV field with line breaks in it spans as many. An instant is a row's index among the
log's states, from 0. A problem with the file's rows (a row with too few or too many cells, a
line that is not JSON) is kept once in `Log.problems`: it leaves the instants ambiguous, so no
requirement is judged on the log, and every one reports it. Reading runs under the caller's
`deadline_scope` (`--timeout`, `--max-memory`): a log of gigabytes stops where the limit
comes, not once it is all read.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from typing import Iterator, TextIO

from ltlwit.logic.budget import HardLimit, check_deadline
from ltlwit.logic.syntax.infix_lex import numeral_too_long
from ltlwit.pipeline.inputs import max_line_bytes

#: Rows whose problems are told one by one; past them, how many more and the last one's line.
MAX_PROBLEMS = 10
#: Lines read between two reads of the clock and the memory.
_CHECK_EVERY = 256
#: What `surrogateescape` makes of bytes that are not UTF-8.
UNDECODABLE = re.compile("[\udc80-\udcff]")


class LogError(ValueError):
    """A log that cannot be read at all: the file, its header."""


@dataclass
class Log:
    """A log's states: each column's raw values by instant (None: the state gives none), and
    the line each instant's row begins on."""

    path: str
    columns: dict[str, list[object]]
    lines: list[int]
    #: the rows that are no rows, each once (`path:LINE: why`)
    problems: list[str] = field(default_factory=list)
    #: True for JSON Lines (no header: a variable is a key some state gives)
    json: bool = False
    #: the CSV header's line (blank lines may come before it)
    header: int = 1
    #: what `ltlwit.pipeline.log_sorts` found out about a column (in a sort), for the next
    #: requirement that reads it: by (what, column, sort)
    typed: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.lines)

    def where(self, instant: int) -> str:
        """`path:LINE` of an instant's row."""
        return f"{self.path}:{self.lines[instant]}"


def listed(names: list[str], most: int = 8) -> str:
    """Names for a message, the first `most` of them."""
    return ", ".join(names[:most]) + (", ..." if len(names) > most else "")


def read_log(path: str) -> Log:
    """The log at `path`: JSON Lines when its name ends in .jsonl/.ndjson or its first
    non-blank character is `{`, else CSV. LogError when it cannot be read at all."""
    try:
        with open(path, "rb") as raw:
            head = raw.read(8192)
    except OSError as exc:
        raise LogError(f"{path}: cannot open: {exc.strerror or type(exc).__name__}") from None
    try:
        if b"\0" in head:
            raise LogError(f"{path}: binary data (NUL bytes), not a CSV or JSON Lines log")
        problems = _Problems(path)
        # a spreadsheet's byte-order mark goes; bytes that are not UTF-8 stay, as surrogates, for
        # the cell that has them to say so (`UNDECODABLE`)
        with open(path, encoding="utf-8-sig", errors="surrogateescape", newline="") as stream:
            lines = _Lines(stream, problems)
            try:
                if path.endswith((".jsonl", ".ndjson")) or head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{"):
                    log = _json_lines(path, lines, problems)
                else:
                    log = _csv(path, lines, problems)
            except HardLimit as exc:  # how far it got
                exc.args = (f"{exc} ({path}, read up to line {lines.number})",)
                raise
    except OSError as exc:
        raise LogError(f"{path}: cannot read: {exc.strerror or type(exc).__name__}") from None
    if not log.lines and not log.problems:
        raise LogError(f"{path}: no states" + ("" if log.json else " (no row after the header)"))
    return log


class _Problems:
    """A log's row problems: the first `MAX_PROBLEMS` told, the others counted."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.told: list[str] = []
        self.more = 0
        self.last = 0

    def add(self, line: int, text: str) -> None:
        if len(self.told) < MAX_PROBLEMS:
            self.told.append(f"{self.path}:{line}: {text}")
        else:
            self.more += 1
            self.last = line

    def all(self) -> list[str]:
        if not self.more:
            return self.told
        rows = "row" if self.more == 1 else "rows"
        return [*self.told, f"{self.path}:{self.last}: and {self.more} more {rows} with problems, the last here"]


class _Lines:
    """The file's lines, their newlines kept, under the deadline (`number`: the last one's);
    a line longer than the line limit (`LTLWIT_MAX_LINE_MIB`) is read in pieces, a problem,
    and given as an empty one."""

    def __init__(self, stream: TextIO, problems: _Problems) -> None:
        self.stream = stream
        self.problems = problems
        self.number = 0

    def __iter__(self) -> Iterator[str]:
        limit = max_line_bytes()
        while True:
            if not self.number % _CHECK_EVERY:
                check_deadline()
            line = self.stream.readline(limit)
            if not line:
                return
            self.number += 1
            if len(line) == limit and not line.endswith(("\n", "\r")):
                while len(line) == limit and not line.endswith(("\n", "\r")):
                    check_deadline()
                    line = self.stream.readline(limit)
                self.problems.add(self.number, f"line longer than {limit / (1 << 20):g} MiB (LTLWIT_MAX_LINE_MIB)")
                line = "\n"
            yield line


def _csv(path: str, lines: _Lines, problems: _Problems) -> Log:
    reader = csv.reader(iter(lines))
    header: list[str] | None = None
    start = 0
    try:
        while header is None:
            start = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                raise LogError(f"{path}: empty: a CSV log needs a header of variable names")
            if any(cell.strip() for cell in row):
                header = row
    except csv.Error as exc:
        raise LogError(f"{path}:{reader.line_num}: not CSV: {exc}") from None
    names = [h.strip() for h in header]
    if any(UNDECODABLE.search(n) for n in names):
        raise LogError(f"{path}:{start}: a column's name is not UTF-8 text")
    twice = next((n for i, n in enumerate(names) if n and n in names[:i]), None)
    if twice is not None:
        raise LogError(f"{path}:{start}: the header names {twice} twice")
    columns: dict[str, list[object]] = {n: [] for n in names if n}
    kept = [(k, columns[n]) for k, n in enumerate(names) if n]
    numbers: list[int] = []
    while True:
        begins = reader.line_num + 1
        try:
            row = next(reader, None)
        except csv.Error as exc:  # (the reader goes on after it: the line is one problem)
            problems.add(reader.line_num, f"not CSV: {exc}")
            continue
        if row is None:
            break
        if not any(cell.strip() for cell in row):
            continue  # a blank line, or a spreadsheet's row of empty cells: no instant
        if len(row) != len(names):
            count = "1 value" if len(row) == 1 else f"{len(row)} values"
            problems.add(begins, f"{count} for {len(names)} columns ({listed([n or repr(n) for n in names])})")
            continue
        for k, cells in kept:
            cells.append(row[k])
        numbers.append(begins)
    return Log(path, columns, numbers, problems.all(), header=start)


class _TooLong(ValueError):
    pass


def _json_integer(text: str) -> int:
    """A JSON integer, under the length a formula's numeral has (Python converts at most 4,300
    digits and says so in its own terms)."""
    why = numeral_too_long(text)
    if why is not None:
        raise _TooLong(why)
    return int(text)


def _json_lines(path: str, lines: _Lines, problems: _Problems) -> Log:
    columns: dict[str, list[object]] = {}
    numbers: list[int] = []
    for line in lines:
        if not line.strip():
            continue
        if UNDECODABLE.search(line):
            problems.add(lines.number, "not UTF-8 text")
            continue
        try:
            state = json.loads(line, parse_int=_json_integer)
        except _TooLong as exc:
            problems.add(lines.number, str(exc))
            continue
        except ValueError as exc:
            problems.add(lines.number, f"not JSON: {exc}")
            continue
        if not isinstance(state, dict):
            problems.add(lines.number, "a state is a JSON object of variables' values")
            continue
        for name, value in state.items():
            cells = columns.get(name)
            if cells is None:
                cells = columns[name] = [None] * len(numbers)
            cells.append(value)
        numbers.append(lines.number)
        if len(state) < len(columns):  # the variables this state gives no value
            for cells in columns.values():
                if len(cells) < len(numbers):
                    cells.append(None)
    return Log(path, columns, numbers, problems.all(), json=True)
