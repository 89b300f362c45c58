"""Progress on stderr, only when stderr is a terminal, so pipes, logs and CI output stay clean:
bars for the long jobs (`data generate`, `eval`, `train`; a job's summary is printed either
way), `solve`'s one-line counter when its answers go to a file or a pipe, and the status line
of a `solve` or `check` whose answer is long in coming (so that it does not look hung)."""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from typing import Any, Callable, Iterable, Iterator

from ltlwit.cli.environment import Environment
from ltlwit.logic import stage
from ltlwit.pipeline.answers import plural
from ltlwit.pipeline.inputs import InputItem

Update = Callable[..., None]


def _noop(*_: Any, **__: Any) -> None:
    return None


@contextlib.contextmanager
def progress_bar(
    env: Environment, description: str, total: float | None = None, fields: str = "", **initial: Any
) -> Iterator[Update]:
    """Yields `update(completed, total=None, **values)`; `fields` is a rich format string over
    `task.fields` shown after the bar (e.g. "loss {task.fields[loss]:.4f}", with `loss=` among
    the `initial` values). A no-op off a TTY.
    Prints to stdout while the bar is live go above it (the training loop prints its log)."""
    if not env.stderr_isatty:
        yield _noop
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(file=env.stderr, no_color=not env.stderr_colors)
    columns = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    ]
    if fields:
        columns.append(TextColumn(fields))
    with Progress(*columns, console=console, transient=False, redirect_stdout=True, redirect_stderr=False) as bar:
        task = bar.add_task(description, total=total, **initial)

        def update(completed: float, total: float | None = None, **values: Any) -> None:
            if total is not None:
                bar.update(task, total=total)
            bar.update(task, completed=completed, **values)

        yield update


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
            _put(
                self.env,
                f"\r\x1b[Kltlwit: {total} answered ({c['sat']} sat, {c['unsat']} unsat, "
                f"{c['unknown']} unknown, {plural(c['error'], 'error')}), {rate:.0f}/s",
            )
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            _put(self.env, "\r\x1b[K")
            self.shown = False


class StatusLine:
    """`ltlwit: FILE:LINE: 12.5 s, search round 4; no time limit (--timeout SECONDS)` on stderr,
    once no answer has come for `env.status_after` seconds: a long solve (the engine can take
    minutes) then shows that it works, on which input, at which stage (`ltlwit.logic.stage`),
    and how to bound it, or how much of its `--timeout` is left. A daemon thread redraws it in
    place twice a second (as often as the threshold, if shorter); the printer wipes it and
    holds it off (`quiet`) while it writes, and says when an answer comes (`answered`), which
    restarts the clock.

    The input worked on is the first one read (`track`) and not yet answered: the pipeline
    answers in input order, and during the engine's work on one input every input before it
    has been answered (during a model batch, its first input is shown). Untracked (`check`,
    whose spec files the pipeline reads itself), the line says how long no answer has come.
    Nothing is drawn while the pipeline waits for input (a person typing formulas)."""

    INTERVAL = 0.5

    def __init__(self, env: Environment, timeout: float | None) -> None:
        self.env = env
        self.timeout = timeout
        #: Serialises the line with every other write to the terminal (reentrant: a printer
        #: holds it across an answer, whose writes take it again).
        self.lock = threading.RLock()
        self.pending: collections.deque[InputItem] = collections.deque()  # read, not yet answered
        self.tracked = False
        self.reading = False
        self.since = env.started  # the first input's clock starts with the run, as `--timeout`'s does
        self.shown = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._redraw, name="ltlwit-status-line", daemon=True)

    @contextlib.contextmanager
    def running(self) -> Iterator["StatusLine"]:
        """Redrawn while the block runs; wiped at its end, however it ends (Ctrl-C included)."""
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join(timeout=2 * self.INTERVAL)
            with self.lock:
                self._erase()

    def track(self, items: Iterable[InputItem]) -> Iterator[InputItem]:
        """`items`, noting each as it is read: the line names the input being worked on. The
        time spent waiting for an input that would be the first unanswered one (typed at a
        terminal, piped by a slow producer) is not counted as work on it."""
        self.tracked = True
        stream = iter(items)
        while True:
            began = time.perf_counter()
            self.reading = True
            try:
                item = next(stream, None)
            finally:
                self.reading = False
            if item is None:
                return
            with self.lock:
                if not self.pending:
                    self.since += time.perf_counter() - began
                self.pending.append(item)
            yield item

    def answered(self, item: InputItem | None) -> None:
        """An answer (for `item`, None: not known) is being printed: its input is done, and the
        next one's clock starts now."""
        with self.lock:
            self._erase()
            if self.pending and self.pending[0] is item:
                self.pending.popleft()
            self.since = time.perf_counter()

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """The block writes to the terminal: the line is wiped first and not drawn meanwhile."""
        with self.lock:
            self._erase()
            yield

    def draw(self) -> None:
        """Draw the line now if it is due (the thread calls this twice a second)."""
        with self.lock:
            now = time.perf_counter()
            if self.reading or (self.tracked and not self.pending) or now - self.since < self.env.status_after:
                return
            _put(self.env, "\r\x1b[K" + self.text(now, _columns(self.env) - 1))
            self.shown = True

    def text(self, now: float, width: int) -> str:
        """The line as it reads at `now` (a `time.perf_counter()` reading), in `width` characters
        at most: a long input name loses its start first (its line number is at its end)."""
        elapsed = now - self.since
        doing = stage.describe()
        doing = f", {doing}" if doing else ""
        if self.timeout is None:
            bound = "no time limit (--timeout SECONDS)"
        elif self.tracked:
            bound = f"{max(self.timeout - elapsed, 0.0):.0f} s left (--timeout {self.timeout:g})"
        else:  # each formula (a spec, a vacuity question) has its own clock
            bound = f"--timeout {self.timeout:g} per formula"
        if not self.tracked:
            return f"ltlwit: no answer for {_duration(elapsed)}{doing}; {bound}"[:width]
        where = self.pending[0].where
        rest = f": {_duration(elapsed)}{doing}; {bound}"
        room = width - len("ltlwit: ") - len(rest)
        keep = max(room - 3, 16)  # a name cut shorter says too little: the line's end goes instead
        if len(where) > keep + 3:
            where = "..." + where[-keep:]  # ASCII: a terminal in the C locale takes it too
        return f"ltlwit: {where}{rest}"[:width]

    def _redraw(self) -> None:
        # A threshold under the interval (the tests') is kept too: the line is not drawn late.
        interval = min(self.INTERVAL, max(self.env.status_after, 0.05))
        while not self._stop.wait(interval):
            self.draw()

    def _erase(self) -> None:
        if self.shown:
            _put(self.env, "\r\x1b[K")
            self.shown = False


def _duration(seconds: float) -> str:
    """`12.5 s`; past a minute `2 min 05 s`. Rounded, both ways: a difference of two clock
    readings that should be 125 s comes out 124.99999999999 as often as not."""
    if seconds < 59.95:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def _columns(env: Environment) -> int:
    """The terminal's width (80 where it does not say: a pseudo-terminal nobody sized says 0), so
    the line never wraps: a wrapped line is not redrawn in place."""
    try:
        columns = os.get_terminal_size(env.stderr.fileno()).columns
    except (AttributeError, OSError, ValueError):  # no file descriptor (a test's stream), or closed
        columns = 0
    return columns if columns > 0 else 80


def _put(env: Environment, text: str) -> None:
    try:
        env.stderr.write(text)
        env.stderr.flush()
    except (OSError, ValueError):
        pass  # a progress line is never worth an error
