"""The worker side of `ltlwit.pipeline.parallel`: what travels between the processes (`Chunk`,
`Done`, `Lost`, `RemoteError`) and a worker's loop (`serve`).

A worker builds its task once, then answers chunk after chunk until told to stop or its pipe
closes. It ignores SIGINT (Ctrl-C reaches the whole process group, and the main process ends
the run), dies with the main process (PR_SET_PDEATHSIG on Linux), and writes nothing to
stdout: its output travels back in `Done`. Anything an input's answer holds must pickle;
exceptions are carried as `RemoteError` (type name, message, traceback text).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parsing import GuessState, InputParser


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
    """Consecutive inputs, as a worker gets them."""

    key: tuple[int, int]  # (chunk number, part): a chunk a worker died on is handed out again in parts
    items: list[InputItem]
    method: str
    first: bool = False  # starts at the first input of the stream
    origin: float | None = None  # the first input's clock starts here (`Pipeline.count_from`)
    states: dict[str, GuessState] | None = None  # the syntax guess of each file at the chunk's start
    context: Any = None  # what every input of the run shares (`Pool.imap`'s `context`)


@dataclass
class Done:
    key: tuple[int, int]
    outputs: Any
    seconds: float
    #: Chunk index -> (what the line told its file's guess, whether Polish was read for "either").
    evidence: dict[int, tuple[str, bool]] = field(default_factory=dict)
    notices: list[tuple[str, RemoteError | None]] = field(default_factory=list)
    model_failed: bool = False
    crash: RemoteError | None = None


class Task(Protocol):
    """What a worker runs. Built once per worker by the pool's factory; `getattr(task, method)`
    answers a chunk; `parser` (or None) is the InputParser whose guesses a chunk's `states`
    set; `notices` collects once-per-run messages (text, exception) to be said once."""

    parser: InputParser | None
    notices: list[tuple[str, BaseException | None]]
    model_failed: bool


@dataclass(frozen=True)
class Lost:
    """In place of the outputs of an input that a worker died on, by itself (`message` says
    how); the caller makes its error answer."""

    item: InputItem
    message: str


class WorkerError(Exception):
    """A worker failed outside any one input's answer (a bug); the run ends with it."""


def serve(conn: Any, factory: Callable[..., Task], args: tuple, parent: int, inherited: Sequence[Any]) -> None:
    for other in inherited:  # the other workers' pipe ends, inherited through fork
        other.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent)
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
        done = _answer(task, chunk) if task is not None else Done(chunk.key, None, 0.0, crash=failed)
        try:
            data = pickle.dumps(done, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an output that does not pickle is a bug
            data = pickle.dumps(Done(chunk.key, None, 0.0, crash=RemoteError.of(exc)), pickle.HIGHEST_PROTOCOL)
        conn.send_bytes(data)


def _answer(task: Task, chunk: Chunk) -> Done:
    start = time.perf_counter()
    parser = task.parser
    if parser is not None and chunk.states is not None:
        for file, state in chunk.states.items():
            parser.set_state(file, state)
        parser.evidence = []
    try:
        outputs = getattr(task, chunk.method)(chunk)
    except Exception as exc:  # noqa: BLE001 - a bug outside the per-input handling: end the run
        return Done(chunk.key, None, 0.0, crash=RemoteError.of(exc))
    done = Done(chunk.key, outputs, time.perf_counter() - start, model_failed=task.model_failed)
    if parser is not None and parser.evidence is not None:
        done.evidence = _evidence(chunk.items, parser.evidence)
        parser.evidence = None
    done.notices = [(text, RemoteError.of(exc) if exc is not None else None) for text, exc in task.notices]
    task.notices.clear()
    return done


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
    """SIGTERM this process when the main process dies (Linux), so that no worker outlives a
    killed run; exit now if it is gone already."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(0)
