"""The process environment the CLI talks to, as one replaceable object (httpie's pattern).

Commands never consult `sys.stdin`, `os.isatty` or `os.environ` directly: they ask the
`Environment`, so a test can pretend stdin is a terminal or that NO_COLOR is set without
touching the real process. `traceback` (LTLWIT_TRACEBACK=1, or `ltlwit --traceback`) shows an
internal error's traceback after its one-line message.
"""

from __future__ import annotations

import errno
import io
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Mapping, TextIO, cast


class OutputClosed(Exception):
    """The reader of our output went away (EPIPE, `| head -1`). Not an OSError on purpose:
    click would turn an EPIPE OSError into its own exit status."""


class OutputFailed(Exception):
    """Writing our output failed for another reason than a closed pipe (a full disk, an I/O
    error): one line on stderr and exit status 2, not a traceback."""


class _Closed(io.TextIOBase):
    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EBADF, "standard output is closed")


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]  # any object: those without one are caught
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _seconds(text: str | None, default: float) -> float:
    """A duration from the environment; `default` when unset or not a number of seconds (a
    status line is not worth refusing to run over)."""
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if 0 <= value < math.inf else default


@dataclass
class Environment:
    stdin: BinaryIO
    stdout: TextIO
    stderr: TextIO
    stdin_isatty: bool
    stdout_isatty: bool
    stderr_isatty: bool
    #: Colour is allowed at all (the NO_COLOR convention: any non-empty value turns it off).
    color_allowed: bool = True
    #: Internal errors come with their traceback (for bug reports).
    traceback: bool = False
    #: No warnings on stderr (`--quiet`); errors are still reported, JSON keeps them.
    quiet: bool = False
    #: Seconds without an answer after which a solve on a terminal shows its live status line
    #: (`ltlwit.cli.progress.StatusLine`); LTLWIT_STATUS_AFTER sets it (the tests shorten it).
    status_after: float = 2.0
    #: When this run began (`time.perf_counter()`): the first input's `--timeout` clock starts
    #: here. The console script passes the process's start (start-up counts); a run invoked
    #: in a long-lived process (a test runner, an application calling the group) its own.
    started: float = field(default_factory=time.perf_counter)
    #: What a command built that the process ends without freeing: the console script exits
    #: with `os._exit` while its environment still holds these (a solver remembers the formulas
    #: it answered, and freeing a multi-megabyte one object by object takes seconds, 2.5 a GiB,
    #: after the last answer); in a long-lived process they go with the environment.
    kept: list[object] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_system(cls, environ: Mapping[str, str] | None = None, started: float | None = None) -> "Environment":
        """The real streams, read at call time (so click's test runner's replacements apply)."""
        environ = os.environ if environ is None else environ
        # A stream closed by the shell (`<&-`, `>&-`) is None in Python: no input, output that
        # ends the run like a closed pipe, messages dropped (the exit status still speaks).
        stdin_text = sys.stdin
        stdin = getattr(stdin_text, "buffer", stdin_text) if stdin_text is not None else io.BytesIO()
        return cls(
            stdin=stdin,  # type: ignore[arg-type]  # sys.stdin's buffer, or sys.stdin itself where it has none
            stdout=sys.stdout if sys.stdout is not None else cast(TextIO, _Closed()),
            stderr=sys.stderr if sys.stderr is not None else open(os.devnull, "w"),  # noqa: SIM115
            stdin_isatty=_isatty(stdin_text),
            stdout_isatty=_isatty(sys.stdout),
            stderr_isatty=_isatty(sys.stderr),
            color_allowed=not environ.get("NO_COLOR"),
            traceback=environ.get("LTLWIT_TRACEBACK", "") not in ("", "0"),
            status_after=_seconds(environ.get("LTLWIT_STATUS_AFTER"), cls.status_after),
            started=time.perf_counter() if started is None else started,
        )

    @classmethod
    def of(cls, ctx: Any) -> "Environment":
        """The environment of a click command: set once on the root context by the `ltlwit`
        group, or injected there by a test."""
        return ctx.find_root().obj

    @property
    def stdout_colors(self) -> bool:
        return self.color_allowed and self.stdout_isatty

    @property
    def stderr_colors(self) -> bool:
        return self.color_allowed and self.stderr_isatty
