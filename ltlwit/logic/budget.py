"""What one `solve` may spend: wall-clock seconds, automaton states, resident memory.

A `Budget` is the request; a `Limit` is the running account that the engine's loops read:
`tick()` once per explored state, `spend(units)` in loops that explore none, `check_time()` in
long computations. The deadline and the memory ceiling are *hard* limits (`HardLimit`): they
always propagate up to `solve`, which answers Unknown with the reason. The state budget is
soft: a bounded proof that runs out of states is merely "not proven".

C code does not read the clock: a `Watchdog` thread trips the limit when the deadline passes
or memory goes over the ceiling, and interrupts whatever it was given (a SAT solver), so a
single long SAT call stops too.

Only complete results may be cached by code that can be interrupted: a hard limit leaves every
cache as if the interrupted computation had not started.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Callable, ContextManager, Iterable, Iterator, TypeVar

#: Work units (term pairs, BFS states, ...) between two clock reads in the long loops.
CHECK_EVERY = 256
#: Seconds between two reads of the resident memory (a /proc read costs ~10 µs)...
MEMORY_EVERY = 0.05
#: ...and a tenth of that once the process holds this share of the ceiling: a multi-GB
#: structure grows by 100s of MB a second, which would pass the ceiling between two reads.
CLOSE_SHARE = 0.75
#: Seconds that freeing one GiB of search structures takes (measured on the 2-core development
#: machine: ~1.2 s with the other core idle, ~2.3 s with it busy): a solve stops that much
#: before its deadline per GiB it has grown, so that its answer still comes by the deadline
#: once its structures are freed.
FREE_SECONDS_PER_GIB = 2.5
#: Seconds that ending the process takes per GiB it holds (the system unmapping its pages:
#: 0.1 s on the idle development machine, 0.25 s with both cores busy): a deadline is kept that
#: much before too, so that a one-formula command has ended, not only answered, by `--timeout`.
END_SECONDS_PER_GIB = 0.25

T = TypeVar("T")


@dataclass(frozen=True)
class Budget:
    """Limits for one `solve`: wall-clock seconds counted from `start` (a `time.perf_counter()`
    reading, default: when the solve begins, so a caller can count parsing in), automaton
    states explored, and resident memory of the whole process in bytes."""

    seconds: float | None = None
    states: int | None = None
    memory: int | None = None
    start: float | None = None


class OutOfBudget(Exception):
    """The search ran past its budget; the caller answers Unknown."""


class HardLimit(OutOfBudget):
    """The deadline or the memory ceiling. Unlike a bounded proof's state budget (which only
    means "not proven"), this always propagates up to `solve`, which answers Unknown."""


class OutOfTime(HardLimit):
    """The wall-clock deadline passed."""


class OutOfMemory(HardLimit):
    """The process's resident memory went over the ceiling."""


def resident_bytes() -> int:
    """The process's resident memory now (Linux: /proc/self/statm), else its peak so far."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


class Limit:
    """A running budget (see the module docstring). Sub-limits (`with_states`, `sub`) share the
    deadline, the memory ceiling and whatever a watchdog tripped."""

    def __init__(self, budget: Budget | None) -> None:
        seconds = budget.seconds if budget is not None else None
        start = budget.start if budget is not None and budget.start is not None else time.perf_counter()
        self.deadline = start + seconds if seconds is not None else None
        self.states = budget.states if budget is not None else None
        self.memory = budget.memory if budget is not None else None
        self.count = 0
        self.work = 0
        self._root: Limit | None = None  # the limit a sub-limit shares hard limits with
        self._tripped: HardLimit | None = None
        self._next_memory_read = 0.0
        self._start_memory = resident_bytes() if self.deadline is not None else 0
        self._reserve = 0.0  # seconds kept for freeing what the solve has built

    def with_states(self, states: int | None) -> "Limit":
        """A fresh state budget sharing this one's hard limits (a bounded proof inside a solve)."""
        sub = Limit(Budget(states=states))
        sub.deadline = self.deadline
        sub.memory = self.memory
        sub._root = self._root or self
        sub._start_memory = self._start_memory
        return sub

    def sub(self, seconds: float) -> "Limit":
        """A budget of at most `seconds` inside this one (an optional stage: running out of it
        is not running out of the solve's time)."""
        sub = self.with_states(None)
        if seconds != float("inf"):
            end = time.perf_counter() + seconds
            if sub.deadline is None or end < sub.deadline:
                sub.deadline = end
        return sub

    def remaining(self) -> float:
        """Seconds to the deadline (infinity without one)."""
        if self.deadline is None:
            return float("inf")
        return max(0.0, self.deadline - time.perf_counter())

    def left(self) -> Budget:
        """What is left of this budget as a fresh one (its seconds from now, its memory), for a
        stage that counts its own (a check of a strategy, another game, a program it runs)."""
        seconds = self.remaining()
        return Budget(seconds=None if seconds == float("inf") else seconds, memory=self.memory)

    def tick(self) -> None:
        self.count += 1
        if self.states is not None and self.count > self.states:
            raise OutOfBudget(f"state budget of {self.states} exhausted")
        if (self.deadline is not None or self.memory is not None) and (self.count & 63) == 0:
            self.check_time()

    def spend(self, units: int) -> None:
        """Count work that explores no state; the clock is read every `CHECK_EVERY` units."""
        self.work += units
        if self.work >= CHECK_EVERY:
            self.work = 0
            self.check_time()

    def check_time(self) -> None:
        """Raise the hard limit that is reached, if any (the memory is read every
        `MEMORY_EVERY` seconds at most)."""
        tripped = (self._root or self)._tripped
        if tripped is not None:  # a fresh exception: the stored one would keep every traceback
            raise type(tripped)(*tripped.args)
        reached = self.reached()
        if reached is not None:
            try:
                raise reached
            finally:
                reached = None  # no cycle through this frame: the traceback's frames go when it does

    def reached(self) -> HardLimit | None:
        """The hard limit reached now, without raising it. The deadline counts the time that
        freeing the solve's structures will take (`FREE_SECONDS_PER_GIB`), and the end of the
        process (`END_SECONDS_PER_GIB`), for the memory the solve added."""
        now = time.perf_counter()
        if (self.memory is not None or self.deadline is not None) and now >= self._next_memory_read:
            used = resident_bytes()
            self._next_memory_read = now + _read_interval(used, self.memory)
            if self.memory is not None and used > self.memory:
                return OutOfMemory(f"memory limit of {self.memory >> 20} MiB reached")
            # what the solve added (not what the process held before it: a 4 GiB test process
            # or API caller had lost a second of every 3-second budget to its own memory)
            grown = max(0, used - self._start_memory)
            self._reserve = (FREE_SECONDS_PER_GIB + END_SECONDS_PER_GIB) * grown / (1 << 30)
        if self.deadline is not None and now > self.deadline - self._reserve:
            return OutOfTime("time budget exhausted")
        return None

    def trip(self, reason: HardLimit) -> None:
        (self._root or self)._tripped = reason


def _read_interval(used: int, memory: int | None) -> float:
    """Seconds to the next read of memory, `used` bytes being held now (`CLOSE_SHARE`)."""
    return MEMORY_EVERY if memory is None or used < CLOSE_SHARE * memory else MEMORY_EVERY / 10


class _ParseLimits:
    """A `deadline_scope`'s limits, read by `check_deadline`. Memory is first read
    `MEMORY_EVERY` seconds into the scope, not on entry (a parse of a short formula takes
    20 µs, a read 10 µs)."""

    __slots__ = ("deadline", "memory", "next_read", "reserve", "doing")

    def __init__(self, deadline: float | None, memory: int | None, doing: str = "parsing") -> None:
        self.deadline = deadline
        self.memory = memory
        self.doing = doing
        self.next_read = time.perf_counter() + MEMORY_EVERY
        self.reserve = 0.0  # seconds kept for the end of the process (`END_SECONDS_PER_GIB`)

    def reached(self) -> HardLimit | None:
        now = time.perf_counter()
        if now >= self.next_read:
            used = resident_bytes()
            self.next_read = now + _read_interval(used, self.memory)
            if self.memory is not None and used > self.memory:
                return OutOfMemory(f"memory limit of {self.memory >> 20} MiB reached while {self.doing}")
            self.reserve = END_SECONDS_PER_GIB * used / (1 << 30)
        if self.deadline is not None and now > self.deadline - self.reserve:
            return OutOfTime(f"time budget exhausted while {self.doing}")
        return None


_scope = threading.local()


@contextmanager
def deadline_scope(deadline: float | None, memory: int | None = None, doing: str = "parsing") -> Iterator[None]:
    """A deadline (a `time.perf_counter()` reading; None: none) and a memory ceiling (bytes of
    the process's resident memory; None: none) for the loops that run before a solve has a
    `Limit` to read, or with no solve at all: the parsers, given a multi-megabyte input under
    `--timeout` and `--max-memory`, and the reading and checking of a log (`verify --log`,
    over its every instant), call `check_deadline` and give up with `OutOfTime` or
    `OutOfMemory` (their reason ending in `doing`) instead of answering seconds late or growing
    past the ceiling. The deadline keeps a
    reserve for the end of the process (`END_SECONDS_PER_GIB`) but none for freeing (unlike
    `Limit.reached`): whoever stops a parse hands what it built to `defer_free`, to be freed
    after the answer. Per thread, as a parse runs in the thread that reads its input. `doing`:
    what the limit's message says was stopped (sort inference, a constraint the input adds)."""
    free_deferred()  # what no input reader freed before this input's clock started
    outer = getattr(_scope, "limits", None)
    _scope.limits = _ParseLimits(deadline, memory, doing) if deadline is not None or memory is not None else None
    try:
        yield
    finally:
        _scope.limits = outer


def before_the_search(budget: Budget | None, doing: str) -> ContextManager[None]:
    """`budget`'s deadline and memory ceiling (a `deadline_scope`, which `check_deadline`
    reads) for work before a search has its `Limit`: `doing` names it in the message."""
    if budget is None or budget.seconds is None and budget.memory is None:
        return nullcontext()
    start = budget.start if budget.start is not None else time.perf_counter()
    deadline = start + budget.seconds if budget.seconds is not None else None
    return deadline_scope(deadline, budget.memory, doing)


def check_deadline() -> None:
    """Raise `OutOfTime` or `OutOfMemory` when the enclosing `deadline_scope`'s deadline has
    passed (less the reserve for the end of the process) or its memory ceiling is reached."""
    limits = getattr(_scope, "limits", None)
    if limits is not None:
        reached = limits.reached()
        if reached is not None:
            try:
                raise reached
            finally:
                reached = None  # as in `Limit.check_time`: no cycle holds the parse's frames


def scope_limit() -> Limit | None:
    """The enclosing `deadline_scope`'s deadline and memory ceiling as a `Limit`, for a C call
    made under the scope (a SAT solver) that only a `Watchdog` can stop; None outside one."""
    limits = getattr(_scope, "limits", None)
    if limits is None:
        return None
    seconds = None if limits.deadline is None else max(0.0, limits.deadline - limits.reserve - time.perf_counter())
    return Limit(Budget(seconds=seconds, memory=limits.memory))


_deferred: list[object] = []


def defer_free(remains: object) -> None:
    """Keep `remains` (the traceback of a parse given up at a hard limit, and through its frames
    the gigabytes it built) until `free_deferred`: freeing a multi-megabyte formula's nodes one
    by one takes seconds (`FREE_SECONDS_PER_GIB`, more on a busy machine), which would come
    between the deadline and the answer. What an earlier call kept is freed first: one at a
    time is held."""
    free_deferred()
    _deferred.append(remains)


def free_deferred() -> None:
    """Free what `defer_free` kept: the input reader calls it before it reads the next line,
    after the answer and before that line's clock starts; the next `deadline_scope` does
    where no reader did (`ltlwit.solve` called again, a worker process given the next input)."""
    if _deferred:
        _deferred.clear()


def paced(items: Iterable[T], check: Callable[[], None] | None, every: int = 4096) -> Iterable[T]:
    """`items`, with `check()` (a limit's `check_time`) before every `every`-th (a power of
    two), for the linear passes over a multi-megabyte formula's 100,000s of conjuncts that
    would otherwise go a second without reading the clock or the memory; `items` itself
    when `check` is None."""
    if check is None:
        return items
    return _paced(items, check, every - 1)


def _paced(items: Iterable[T], check: Callable[[], None], mask: int) -> Iterator[T]:
    for i, item in enumerate(items):
        if not i & mask:
            check()
        yield item


class Watchdog:
    """A thread that trips `limit` when a hard limit is reached and then calls `interrupt`
    (see the module docstring). A context manager; no thread without a hard limit."""

    POLL = 0.02

    def __init__(self, limit: Limit, interrupt: Callable[[], None]) -> None:
        self.limit = limit
        self.interrupt = interrupt
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Watchdog":
        if self.limit.deadline is not None or self.limit.memory is not None:
            self._thread = threading.Thread(target=self._watch, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        watched = self.limit.with_states(None)  # its own memory-read schedule
        while not self._stop.wait(self.POLL):
            reason = watched.reached()
            if reason is not None:
                self.limit.trip(reason)
                self.interrupt()
                return
