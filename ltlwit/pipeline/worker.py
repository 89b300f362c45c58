"""The worker side of `ltlwit.pipeline.parallel`: what travels between the processes (`Chunk`,
`Done`, `Lost`, `RemoteError`) and a worker's loop (`serve`).

A worker builds its task once, then answers chunk after chunk until told to stop or its pipe
closes. Its answers travel back as they are finished, not a chunk at a time: sub-millisecond
ones together, at most `FLUSH_SECONDS` after the first of them was finished, a slower one at
once. A thread of the worker (its *courier*) sends what the answering thread has finished while
that thread is busy with a long answer, and, when the chunk asks it to (`Chunk.give_back`,
under `--timeout`), hands the inputs not begun yet back to the main process once no answer came
for that long, so that they do not wait behind a slow formula while their clocks run.

Signals: a worker ignores SIGINT (Ctrl-C reaches the whole process group, and the main process
ends the run); SIGTERM (the main process's way to end a run that was interrupted) makes it send
every answer it has finished and exit; it is killed when the main process dies
(PR_SET_PDEATHSIG on Linux). It writes nothing to stdout: its output travels back in `Done`.
Anything an input's answer holds must pickle; exceptions are carried as `RemoteError` (type
name, message, traceback text).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Protocol, Sequence

from ltlwit.logic.budget import free_deferred
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parsing import GuessState, InputParser

#: Seconds a worker may hold a finished answer before sending it (with the answers finished
#: after it, so that sub-millisecond answers do not travel one message each).
FLUSH_SECONDS = 0.05
#: How often the courier thread looks at the answer in progress.
TICK_SECONDS = 0.02


class RemoteError(Exception):
    """An exception raised in a worker, carried back as its type name, message and traceback
    text (exceptions and their tracebacks do not survive pickling in general)."""

    def __init__(self, name: str, message: str, traceback_text: str) -> None:
        super().__init__(message)
        self.name, self.traceback_text = name, traceback_text

    @classmethod
    def of(cls, exc: BaseException) -> "RemoteError":
        if isinstance(exc, RemoteError):
            return exc
        return cls(type(exc).__name__, str(exc), "".join(traceback.format_exception(exc)).rstrip("\n"))

    def __reduce__(self) -> tuple:
        return (RemoteError, (self.name, str(self), self.traceback_text))


@dataclass
class Chunk:
    """Consecutive inputs, as a worker gets them. The task answering it gets `items` as an
    iterable to take the inputs from one at a time (the courier may stop it early) and must
    return (or yield) one output per input, in order."""

    #: (chunk number, index of its first input in the chunk): parts of a chunk (the inputs a
    #: worker handed back, or those of a chunk a worker died on) go out under their own keys
    key: tuple[int, int]
    items: list[InputItem]
    method: str
    first: bool = False  # starts at the first input of the stream
    origin: float | None = None  # the first input's clock starts here (`Pipeline.count_from`)
    states: dict[str, GuessState] | None = None  # the syntax guess of each file at the chunk's start
    context: Any = None  # what every input of the run shares (`Pool.imap`'s `context`)
    #: When the main process read each input (`time.monotonic()`, the same clock in every
    #: process of the machine), its clock's start.
    read: list[float] | None = None
    #: Hand the inputs not begun back after this many seconds without an answer (None: never).
    give_back: float | None = None
    #: In the worker: `read` as this process's `time.perf_counter()` readings, by `id(item)`.
    clocks: dict[int, float] | None = None

    def read_at(self, item: InputItem) -> float | None:
        """When `item` was read, as a `time.perf_counter()` reading of this process (None: not
        known), for `Pipeline.run`'s `read`."""
        return self.clocks.get(id(item)) if self.clocks is not None else None


@dataclass
class Done:
    """Outputs of a chunk, continuing where the previous message about it stopped. `final`: the
    last message about the chunk; `back`: its inputs from this index on were not begun and go
    back to the main process (the chunk holds the inputs before it from now on)."""

    key: tuple[int, int]
    outputs: Any
    seconds: float = 0.0  # the worker's time on the chunk (with `final`)
    #: Chunk index -> (what the line told its file's guess, whether Polish was read for "either"),
    #: for the inputs answered so far.
    evidence: dict[int, tuple[str, bool]] = field(default_factory=dict)
    notices: list[tuple[str, RemoteError | None]] = field(default_factory=list)
    model_failed: bool = False
    crash: RemoteError | None = None
    final: bool = True
    back: int | None = None


class Task(Protocol):
    """What a worker runs. Built once per worker by the pool's factory; `getattr(task, method)`
    answers a chunk (one output per input); `parser` (or None) is the InputParser whose guesses a
    chunk's `states` set; `notices` collects once-per-run messages (text, exception) to be said
    once; `model_failed`, read after each chunk, whether a model failed in this worker."""

    parser: InputParser | None
    notices: list[tuple[str, BaseException | None]]

    @property
    def model_failed(self) -> bool: ...


@dataclass(frozen=True)
class Lost:
    """In place of the outputs of an input that a worker died on, by itself (`message` says
    how); the caller makes its error answer."""

    item: InputItem
    message: str


class WorkerError(Exception):
    """A worker failed outside any one input's answer (a bug); the run ends with it."""


class _Courier(threading.Thread):
    """The sending side of a worker: every message goes through it, under its lock (which also
    guards the state of the chunk in progress). The answering thread hands it each output;
    the courier's own thread sends what waits while that thread is busy, hands inputs back
    (`Chunk.give_back`) and, once SIGTERM came, sends what is finished and ends the process."""

    def __init__(self, conn: Any) -> None:
        super().__init__(name="ltlwit-courier", daemon=True)
        self.conn = conn
        self.lock = threading.Lock()
        self.stopping = False
        self.task: Task | None = None
        self.chunk: Chunk | None = None
        self.items: list[InputItem] = []
        self.outputs: list[Any] = []  # finished, not sent yet
        self.begun = 0  # inputs the task has taken
        self.end = 0  # inputs the worker answers (those from here on were handed back)
        self.sent = 0.0  # when the last message went (or the chunk came)
        self.progress = 0.0  # when the last answer was finished (or the chunk came)

    def stop(self, signum: int, frame: Any) -> None:
        """The SIGTERM handler: the courier's thread does the rest (a handler must not take the
        lock that the thread it interrupted may hold)."""
        self.stopping = True

    # -- in the answering thread -----------------------------------------------------------

    def begin(self, task: Task | None, chunk: Chunk) -> None:
        with self.lock:
            self.task, self.chunk, self.items, self.outputs = task, chunk, list(chunk.items), []
            self.begun, self.end = 0, len(self.items)
            self.sent = self.progress = time.monotonic()

    def feed(self) -> Iterator[InputItem]:
        """The chunk's inputs, for the task, until one that was handed back."""
        for i, item in enumerate(self.items):
            with self.lock:
                if i >= self.end:
                    return
                self.begun = i + 1
            yield item

    def answered(self, output: Any) -> None:
        with self.lock:
            self.outputs.append(output)
            self.progress = time.monotonic()
            if self.progress - self.sent >= FLUSH_SECONDS:
                self._send(final=False)

    def finish(self, seconds: float = 0.0, crash: RemoteError | None = None) -> None:
        with self.lock:
            try:
                self._send(final=True, seconds=seconds, crash=crash)
            finally:
                self.chunk, self.task = None, None

    # -- in the courier's thread -----------------------------------------------------------

    def run(self) -> None:
        try:
            while True:
                time.sleep(TICK_SECONDS)
                with self.lock:
                    if self.stopping:
                        if self.chunk is not None and self.outputs:
                            self._send(final=False)
                        break
                    if self.chunk is None:
                        continue
                    now = time.monotonic()
                    if self.outputs and now - self.sent >= FLUSH_SECONDS:
                        self._send(final=False)
                    wait = self.chunk.give_back
                    if wait is not None and 0 < self.begun < self.end and now - self.progress >= wait:
                        self.end = self.begun
                        self._send(final=False, back=self.begun)
        except (OSError, EOFError):  # the main process is gone
            pass
        except BaseException:  # noqa: BLE001 - a bug here must not leave the worker half alive
            traceback.print_exc()
        finally:
            os._exit(0)

    # -- under the lock ----------------------------------------------------------------------

    def _send(
        self, final: bool, back: int | None = None, seconds: float = 0.0, crash: RemoteError | None = None
    ) -> None:
        chunk, task = self.chunk, self.task
        assert chunk is not None
        done = Done(chunk.key, self.outputs, seconds, final=final, back=back, crash=crash)
        self.outputs = []
        if task is not None:
            parser = task.parser
            if parser is not None and parser.evidence is not None:
                done.evidence = _evidence(self.items, list(parser.evidence))
            taken = len(task.notices)
            done.notices = [
                (text, RemoteError.of(exc) if exc is not None else None) for text, exc in task.notices[:taken]
            ]
            del task.notices[:taken]
            done.model_failed = task.model_failed
        try:
            data = pickle.dumps(done, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an output that does not pickle is a bug
            data = pickle.dumps(Done(chunk.key, [], crash=RemoteError.of(exc)), pickle.HIGHEST_PROTOCOL)
        self.conn.send_bytes(data)
        self.sent = time.monotonic()


def serve(conn: Any, factory: Callable[..., Task], args: tuple, parent: int, inherited: Sequence[Any]) -> None:
    for other in inherited:  # the other workers' pipe ends, inherited through fork
        other.close()
    courier = _Courier(conn)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, courier.stop)
    _die_with(parent)
    courier.start()
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - data goes through the main process only
    task: Task | None = None
    failed: RemoteError | None = None
    try:
        task = factory(*args)
    except Exception as exc:  # noqa: BLE001 - said by the main process, with the first chunk
        failed = RemoteError.of(exc)
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):
            return
        chunk: Chunk | None = pickle.loads(message)
        if chunk is None:
            return
        try:
            if task is None:
                courier.begin(None, chunk)
                courier.finish(crash=failed)
            else:
                _answer(task, chunk, courier)
        except (EOFError, OSError):  # the main process is gone
            return


def _answer(task: Task, chunk: Chunk, courier: _Courier) -> None:
    start = time.perf_counter()
    parser = task.parser
    if parser is not None and chunk.states is not None:
        for file, state in chunk.states.items():
            parser.set_state(file, state)
        parser.evidence = []
    courier.begin(task, chunk)
    clocks = None
    if chunk.read is not None:
        offset = time.perf_counter() - time.monotonic()
        clocks = {id(item): read + offset for item, read in zip(chunk.items, chunk.read)}
    given = replace(chunk, items=courier.feed(), clocks=clocks)  # type: ignore[arg-type]  # a task's: an iterator
    try:
        for output in getattr(task, chunk.method)(given):
            courier.answered(output)
            free_deferred()  # a parse given up (`defer_free`): freed once its answer is on its way
    except Exception as exc:  # noqa: BLE001 - a bug outside the per-input handling: end the run
        courier.finish(crash=RemoteError.of(exc))
    else:
        courier.finish(seconds=time.perf_counter() - start)
    finally:
        if parser is not None:
            parser.evidence = None


def _evidence(items: list[InputItem], found: list[tuple[InputItem, str, bool]]) -> dict[int, tuple[str, bool]]:
    """What the main process needs to replay the guesses: every "either" line, and the first
    line of each file that was Polish-only or Spot-only (the later ones change nothing)."""
    position = {id(item): i for i, item in enumerate(items)}
    seen: set[tuple[str, str]] = set()
    out: dict[int, tuple[str, bool]] = {}
    for item, kind, reads_polish in found:
        i = position.get(id(item))
        if i is None or (kind != "either" and (item.file, kind) in seen):
            continue
        seen.add((item.file, kind))
        out[i] = (kind, reads_polish)
    return out


def _die_with(parent: int) -> None:
    """Kill this process when the main process dies (Linux), so that no worker outlives a
    killed run; exit now if it is gone already."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(0)
