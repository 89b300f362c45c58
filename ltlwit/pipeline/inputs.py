"""Where formulas come from: command-line arguments, `-F FILE` (repeatable, `-` = stdin), or
stdin when it is piped and nothing else is given — Spot's conventions, including
`-F FILE/COL`: column COL (1-based) of a CSV file, `FILE/-COL` to skip its header line
(when FILE/COL is not itself an existing file).

Everything is streamed (one line in memory at a time), and every item carries its origin so a
message can say `FILE:LINE`. A file that cannot be read, a binary file, a line that is not
UTF-8 or is absurdly long: each becomes an *error item* in the stream rather than an exception,
so the caller reports it, sets exit status 2, and goes on with the other inputs.
"""

from __future__ import annotations

import io
import os
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterable, Iterator

if TYPE_CHECKING:
    from ltlwit.logic.formula import Formula
    from ltlwit.logic.theory.sorts import Declarations

#: Lines longer than this many MiB are refused, by default: industrial specifications reach a
#: few megabytes on one line, and a line of hundreds of megabytes is more likely junk than a
#: formula (reading it would look like a hang). `LTLWIT_MAX_LINE_MIB` moves the limit.
MAX_LINE_MIB = 16
MAX_LINE_ENV = "LTLWIT_MAX_LINE_MIB"


def max_line_bytes() -> int:
    """The line limit in bytes: `LTLWIT_MAX_LINE_MIB` (a positive number) or `MAX_LINE_MIB`."""
    try:
        mib = float(os.environ.get(MAX_LINE_ENV, MAX_LINE_MIB))
    except ValueError:
        mib = MAX_LINE_MIB
    return int(mib * (1 << 20)) if mib > 0 else MAX_LINE_MIB << 20


#: Bytes of memory that parsing a formula takes per byte of its text, at least: 38-40 for BLACK's
#: tdllite specifications (whose conjuncts share much), 75-95 for random clauses over 20,000
#: APs (`bench/huge_line.py`). A line that would need more than the memory ceiling at this
#: rate is refused as it is read (`read_inputs(memory=)`), rather than parsed until the ceiling
#: stops it, a minute later for 50 MB.
PARSED_BYTES_PER_BYTE = 40


def refusal(size: int, memory: int | None) -> str | None:
    """Why a formula of `size` bytes of text is not read under a ceiling of `memory` bytes (the
    `--max-memory` message), or None when it may fit."""
    if memory is None or size * PARSED_BYTES_PER_BYTE <= memory:
        return None
    return (
        f"the formula's {size / 1e6:.0f} MB of text would need {size * PARSED_BYTES_PER_BYTE / (1 << 30):.1f} GiB "
        f"or more parsed, over --max-memory {memory >> 20} MiB; skipped"
    )


def _too_long(limit: int) -> str:
    return (
        f"line longer than {limit / (1 << 20):g} MiB; skipped (set {MAX_LINE_ENV} to a larger number of MiB to read it)"
    )


_SKIP_CHUNK = 64 * 1024
_BINARY_SNIFF = 8192

STDIN_NAME = "<stdin>"
_CSV_SPEC = re.compile(r"^(?P<path>.+)/(?P<column>-?[1-9][0-9]*)$")
_ZERO_COLUMN = re.compile(r"^(?P<path>.+)/-?0+$")


@dataclass(frozen=True)
class InputItem:
    """One input: `text` (stripped of surrounding whitespace) and where it came from.

    `file` is a path, `<stdin>` or `<arg N>` for the N-th command-line formula; `line` is
    1-based, 0 when the item stands for a whole file that could not be read. `error` is set
    when the item could not be read at all; then `text` is empty.
    """

    text: str
    file: str
    line: int
    error: str | None = None
    from_argument: bool = False
    #: When the reader had the line's first byte (a `time.perf_counter()` reading; None for
    #: arguments and items made elsewhere): a `--timeout` clock that starts then counts the
    #: reading of a multi-megabyte line, and not the wait for a pipe's next line.
    began: float | None = field(default=None, compare=False)

    @property
    def where(self) -> str:
        """`FILE:LINE` for file lines, `FILE` for whole-file problems, `<arg N>` for arguments."""
        if self.from_argument or self.line == 0:
            return self.file
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, kw_only=True)
class FormulaItem(InputItem):
    """An input that is a formula already (`ltlwit.solve(formula)`): nothing to parse.
    `semantics`: its own (a spec's), instead of the run's; `declarations`: its own sorts (a
    spec file's), with the run's."""

    formula: Formula
    semantics: str | None = None
    #: Its data's declared sorts (a spec file's table), added to the run's.
    declarations: Declarations | None = None


@dataclass(frozen=True, kw_only=True)
class SpecItem(InputItem):
    """A question about a spec of a spec file (`solve -F FILE.spec`, and `check`'s own), read as
    its file reads it (`ltlwit.specs.reading`): `formula` parsed already, where it holds, with
    its constants and its file's activities, `declarations` the file's one reading of its
    names; or why it has none: `error`, `parse_error` (with its caret), `unknown` (its parse
    ran out of time or memory). `name` names it in the answers."""

    name: str | None = None
    formula: Formula | None = None
    semantics: str | None = None
    declarations: Declarations | None = None
    warnings: tuple[str, ...] = ()
    parse_error: ValueError | None = field(default=None, compare=False)
    unknown: str | None = None
    #: Its file reads traces as one activity per instant (`one-event`): its witnesses are
    #: activity sequences.
    one_event: bool = False


def read_inputs(
    arguments: Iterable[str],
    files: Iterable[str],
    stdin: BinaryIO,
    stdin_isatty: bool,
    specs: Callable[[str], Iterator[InputItem] | None] = lambda path: None,
    memory: int | None = None,
) -> Iterator[InputItem]:
    """Arguments first, then each `-F` file in order; stdin alone when neither is given and
    stdin is not a terminal. The caller decides what "no input at all" means (a usage error).
    `specs(path)`: a file's inputs where it is a spec file (the layer above reads those), else
    None. `memory`: the memory ceiling in bytes (`--max-memory`), under which a line too big to
    parse is an error item (`refusal`) and is not held."""
    arguments, files = list(arguments), list(files)
    for number, text in enumerate(arguments, 1):
        problem = refusal(len(text), memory)
        if problem is not None:
            yield InputItem("", f"<arg {number}>", 1, error=problem, from_argument=True)
            continue
        yield InputItem(text.strip(), f"<arg {number}>", 1, from_argument=True)
    for path in files:
        own = specs(path)
        yield from own if own is not None else read_source(path, stdin, memory)
    if not arguments and not files and not stdin_isatty:
        yield from read_stream(stdin, STDIN_NAME, memory=memory)


def csv_spec(path: str) -> tuple[str, int, bool] | None:
    """`FILE/COL` -> (FILE, COL, skip the header?) for `FILE/2` and `FILE/-2`; None for a plain
    file (or for a name of that shape that exists as a file: the file wins, as in Spot)."""
    match = _CSV_SPEC.match(path)
    if match is None or os.path.exists(path):
        return None
    column = int(match["column"])
    return match["path"], abs(column), column < 0


def read_source(path: str, stdin: BinaryIO, memory: int | None = None) -> Iterator[InputItem]:
    """The items of one `-F` argument: `-` (stdin), a file, or a CSV column of either."""
    spec = csv_spec(path)
    zero = _ZERO_COLUMN.match(path)
    if spec is None and zero and not os.path.exists(path) and (zero["path"] == "-" or os.path.isfile(zero["path"])):
        yield InputItem("", path, 0, error="CSV columns count from 1 (FILE/1 is the first, FILE/-1 skips a header)")
        return
    target, column, skip_header = spec if spec is not None else (path, 0, False)
    if target == "-":
        yield from read_stream(stdin, STDIN_NAME, column, skip_header, memory)
    else:
        yield from read_file(target, column, skip_header, memory)


def has_inputs(arguments: Iterable[str], files: Iterable[str], stdin_isatty: bool) -> bool:
    """Whether `read_inputs` has anywhere to read from (else: tell the user how to give input)."""
    return bool(list(arguments) or list(files) or not stdin_isatty)


def read_file(path: str, column: int = 0, skip_header: bool = False, memory: int | None = None) -> Iterator[InputItem]:
    yield from _from_file(path, lambda stream: read_stream(stream, path, column, skip_header, memory))


def read_lines(path: str, stdin: BinaryIO | None = None, stdin_name: str = STDIN_NAME) -> Iterator[InputItem]:
    """Every line of a file (`-`: `stdin`, named `stdin_name`), blank lines and comments
    included (for readers to whom comments mean something, such as spec files' expectations),
    with the same safety net as inputs."""
    if path == "-" and stdin is not None:
        yield from _lines(stdin, stdin_name)
        return
    yield from _from_file(path, lambda stream: _lines(stream, path))


def _from_file(path: str, read: Callable[[BinaryIO], Iterator[InputItem]]) -> Iterator[InputItem]:
    try:
        # a buffer that holds the whole sniff (`_looks_binary`): open's default is the file
        # system's block, 4,096 bytes here, and a NUL byte past it was found a line later
        stream = open(path, "rb", buffering=max(_BINARY_SNIFF, io.DEFAULT_BUFFER_SIZE))  # noqa: SIM115 - closed below
    except OSError as exc:
        yield InputItem("", path, 0, error=f"cannot open: {_os_reason(exc)}")
        return
    with stream:
        yield from read(stream)


def read_stream(
    stream: BinaryIO, name: str, column: int = 0, skip_header: bool = False, memory: int | None = None
) -> Iterator[InputItem]:
    """Items for the non-blank, non-comment lines of a byte stream, one line in memory; with
    `column`, the formula is that (1-based) CSV field of each line (`skip_header`: not line 1);
    `memory`: as `read_inputs`'s."""
    for item in _lines(stream, name, memory):
        if item.error is not None:
            yield item
            continue
        text = item.text
        if column:
            if skip_header and item.line == 1:
                continue
            text, problem = _csv_field(text, column)
            if problem:
                yield InputItem("", name, item.line, error=problem)
                continue
        if text and not comment_line(text):
            yield InputItem(text, name, item.line, began=item.began)


def comment_line(text: str) -> bool:
    """Whether a (stripped) line is a comment: `#`, or nuXmv's `--` (not Spot's arrow `-->`)."""
    return text.startswith("#") or text.startswith("--") and not text.startswith("-->")


def _csv_field(line: str, column: int) -> tuple[str, str | None]:
    if not line or line.startswith("#"):
        return "", None
    import csv  # (FILE/COL inputs only)

    try:
        fields = next(csv.reader([line], strict=True))
    except csv.Error as exc:
        return "", f"bad CSV line: {exc}"
    if column > len(fields):
        return "", f"no column {column} (the line has {len(fields)})"
    return fields[column - 1].strip(), None


def _lines(stream: BinaryIO, name: str, memory: int | None = None) -> Iterator[InputItem]:
    """Every line as an item (stripped text, or an error), blank lines and comments included.
    Only what the line limit and `memory` (`refusal`) allow of a line is read into memory."""
    if _looks_binary(stream):
        yield InputItem("", name, 0, error="binary data (NUL bytes), not a formula file; skipped")
        return
    from ltlwit.logic.budget import free_deferred

    number = 0
    limit = max_line_bytes()
    cap = limit if memory is None else min(limit, memory // PARSED_BYTES_PER_BYTE)
    peek = getattr(stream, "peek", None)
    while True:
        number += 1
        try:
            # a pipe's next line may be long in coming: its clock starts with its first byte
            if peek is not None and not peek(1):
                return  # (at the end, what a parse given up left is never freed: the process ends)
            free_deferred()  # what a parse given up left, now that it is answered (`defer_free`)
            began = time.perf_counter()
            raw = _as_bytes(stream.readline(cap + 1))
        except OSError as exc:
            yield InputItem("", name, number, error=f"read error: {_os_reason(exc)}")
            return
        if not raw:
            return
        if len(raw) > cap and not raw.endswith(b"\n"):
            size, ended = _skip_rest_of_line(stream)
            size += len(raw)
            yield InputItem("", name, number, error=_too_long(limit) if size > limit else refusal(size, memory))
            if not ended:
                return
            continue
        if b"\0" in raw:
            yield InputItem("", name, number, error="binary data (NUL byte); rest of the input skipped")
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield InputItem("", name, number, error=f"not UTF-8 text (byte {exc.start + 1} of the line)")
            continue
        if number == 1:
            text = text.removeprefix("\ufeff")  # a UTF-8 byte-order mark
        yield InputItem(text.strip(), name, number, began=began)


def _looks_binary(stream: BinaryIO) -> bool:
    """NUL bytes near the start, as grep and git decide it: in a file's first `_BINARY_SNIFF`
    bytes, in what a pipe's first read holds; buffered streams only (peek)."""
    peek = getattr(stream, "peek", None)
    if peek is None:
        return False
    try:
        return b"\0" in _as_bytes(peek(_BINARY_SNIFF))[:_BINARY_SNIFF]
    except OSError:
        return False  # the read below reports it


def _skip_rest_of_line(stream: BinaryIO) -> tuple[int, bool]:
    """Consume up to and including the next newline: (the bytes before it, whether there was
    one: False at end of input)."""
    size = 0
    while True:
        chunk = _as_bytes(stream.readline(_SKIP_CHUNK))
        if not chunk:
            return size, False
        if chunk.endswith(b"\n"):
            return size + len(chunk.rstrip(b"\r\n")), True
        size += len(chunk)


def _as_bytes(chunk: bytes | str) -> bytes:
    # A text stream stands in for stdin in some embeddings (and tests); treat it as UTF-8.
    return chunk.encode("utf-8", "surrogateescape") if isinstance(chunk, str) else chunk


def _os_reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__
