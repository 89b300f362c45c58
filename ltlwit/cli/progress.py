"""Progress on stderr, only when stderr is a terminal, so pipes, logs and CI output stay clean:
bars for the long jobs (`data generate`, `eval`, `train`; a job's summary is printed either
way), and `solve`'s one-line counter when its answers go to a file or a pipe."""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable, Iterator

from ltlwit.cli.environment import Environment

Update = Callable[..., None]


def _noop(*_: Any, **__: Any) -> None:
    return None


@contextlib.contextmanager
def progress_bar(env: Environment, description: str, total: float | None = None, fields: str = "",
                 **initial: Any) -> Iterator[Update]:
    """Yields `update(completed, total=None, **values)`; `fields` is a rich format string over
    `task.fields` shown after the bar (e.g. "loss {task.fields[loss]:.4f}", with `loss=` among
    the `initial` values). A no-op off a TTY.
    Prints to stdout while the bar is live go above it (the training loop prints its log)."""
    if not env.stderr_isatty:
        yield _noop
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    console = Console(file=env.stderr, no_color=not env.stderr_colors)
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]
    if fields:
        columns.append(TextColumn(fields))
    with Progress(*columns, console=console, transient=False, redirect_stdout=True, redirect_stderr=False) as bar:
        task = bar.add_task(description, total=total, **initial)

        def update(completed: float, total: float | None = None, **values: Any) -> None:
            bar.update(task, completed=completed, **({"total": total} if total is not None else {}), **values)

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
