"""What the engine is doing right now, for whoever watches a long solve (the CLI's status line
on a terminal), without the engine knowing who watches: the logic layer imports no CLI.

The engine says `enter("search round 3")` as it passes from one stage to the next; a task
made of several solves (an unsat core) wraps them in `within("unsat core")`. A watcher in
another thread reads `describe()`. One state per process is enough: a process runs one solve
at a time (worker processes have their own). `enter` is one global store, cheap enough for
loops, and a reader thread always sees a whole name: rebinding a global to a str is atomic in
CPython.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

_now = ""
_task = ""


def enter(name: str) -> None:
    """The engine (or the pipeline around it) passes into stage `name`."""
    global _now
    _now = name


@contextlib.contextmanager
def within(task: str) -> Iterator[None]:
    """The stages entered in the block serve `task`: `describe` says "unsat core: search round 2"."""
    global _task
    outer = _task
    _task = task
    try:
        yield
    finally:
        _task = outer


def describe() -> str:
    """The current stage, after the task it serves; "" before any stage was entered."""
    task, now = _task, _now
    return f"{task}: {now}" if task and now else task or now
