"""Progress bars for the long jobs (`data generate`, `eval`, `train`): rich, on stderr, and only
when stderr is a terminal, so pipes, logs and CI output stay clean (a job's summary is printed
either way)."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from ltlwit.env import Environment

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
