"""Worker processes for one run (`--jobs N`): inputs go out in chunks, answers come back in
input order, streamed.

The main process reads the inputs (in a thread, so that input arriving slowly, from a terminal
or a slow producer, never holds back answers that are ready) and hands chunks of them to idle
workers. Each worker builds one *task* when it starts (a `Pipeline`, whose models then load once
per worker, and whatever the command renders with) and answers chunk after chunk; the main
process gets each chunk's outputs back, and `Pool.imap` yields them in input order as soon as
every earlier chunk is in. At most `WINDOW_ITEMS` inputs (and `WINDOW_BYTES` of their text) are
between reading and being handed on, so memory does not depend on the input's length.

Chunks ramp up 1, 2, 4, ... inputs, then hold about `CHUNK_SECONDS` of a worker's time (from
the time per input measured so far): large enough that sending them costs nothing next to
sub-millisecond formulas, small enough that slow formulas spread over the workers. At the end
of the input the rest is shared out among the workers. With models, chunks hold at least a
model batch. A busy worker gets its next chunk ahead, so that it never waits for the main
process to wake up between two chunks.

Syntax detection (`--syntax auto`) reads an ambiguous line by what the earlier lines of its
file were, and the earlier lines may be in another worker's chunk. So each chunk goes out with
the best-known guess for its files, the worker reports what each line told the guess
(`InputParser.evidence`), and the main process replays that in input order: a chunk that read
an ambiguous line differently from how one process would have is answered again, with the
exact guess, before its outputs are handed on (in practice: at most the first chunk or two of a
file in Polish notation).

Processes: fork where that is safe (Linux, one thread, no model will run), else spawn; the
worker's side is `ltlwit.pipeline.worker`. Workers are stopped and reaped when the run ends,
however it ends (Ctrl-C, a closed stdout, an error). A worker that dies (a crash in native
code, the OOM killer) costs time, not answers: its chunk is handed out again input by input,
to a fresh worker; an input that kills a worker by itself gets an error answer (`Lost`).
"""

from __future__ import annotations

import math
import os
import pickle
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing import connection, get_context
from typing import Any, Callable, Iterable, Iterator

from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parsing import GuessState
from ltlwit.pipeline.worker import Chunk, Done, Lost, RemoteError, Task, WorkerError, serve

__all__ = ["Chunk", "Lost", "Pool", "RemoteError", "Task", "WorkerError", "usable_cores"]

#: Inputs (and bytes of input text) read but not yet handed on, at most.
WINDOW_ITEMS = 4096
WINDOW_BYTES = 64 << 20
#: Inputs the reading thread may hold ready, at most.
READ_AHEAD = 1024
#: Seconds of a worker's time a chunk aims at, and the most inputs in a chunk.
CHUNK_SECONDS = 0.2
CHUNK_MOST = 512
#: A busy worker gets its next chunk ahead of time when it pickles to at most this many bytes.
AHEAD_BYTES = 1 << 16


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _Reader(threading.Thread):
    """Reads `items` ahead into a bounded buffer; writes a byte to `wake` when the buffer stops
    being empty and at the end, so the main loop can wait on it beside the workers."""

    def __init__(self, items: Iterable[InputItem], wake: int) -> None:
        super().__init__(name="ltlwit-reader", daemon=True)
        self.items, self.wake = items, wake
        self.buffer: deque[InputItem] = deque()
        self.bytes = 0
        self.finished = False
        self.stopped = False
        self.error: BaseException | None = None
        self.cond = threading.Condition()

    def run(self) -> None:
        try:
            for item in self.items:
                with self.cond:
                    while not self.stopped and (len(self.buffer) >= READ_AHEAD or self.bytes >= WINDOW_BYTES):
                        self.cond.wait()
                    if self.stopped:
                        return
                    was_empty = not self.buffer
                    self.buffer.append(item)
                    self.bytes += len(item.text)
                if was_empty:
                    self._wake()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            self.error = exc
        finally:
            with self.cond:
                self.finished = True
            self._wake()

    def _wake(self) -> None:
        try:
            os.write(self.wake, b"\0")
        except (BlockingIOError, OSError):
            pass  # full (the main loop will look anyway) or closed (the run is over)

    def take(self, most: int) -> list[InputItem]:
        with self.cond:
            taken = [self.buffer.popleft() for _ in range(min(most, len(self.buffer)))]
            self.bytes -= sum(len(item.text) for item in taken)
            self.cond.notify()
        return taken

    def stop(self) -> None:
        with self.cond:
            self.stopped = True
            self.cond.notify()


@dataclass
class _Worker:
    process: Any
    conn: Any
    #: Chunks sent and not answered yet, in the order the worker answers them.
    chunks: deque[Chunk] = field(default_factory=deque)


@dataclass
class _Slot:
    """A chunk between being read and being handed on: its parts and their answers."""

    parts: list[Chunk]
    done: dict[tuple[int, int], Done] = field(default_factory=dict)
    size: int = 0
    bytes: int = 0


class Pool:
    """`jobs` worker processes, each running `factory(*args)` once (see the module docstring).
    `spawn`: start them fresh rather than forked (models will run: torch and CUDA do not
    survive a fork). `notify(text, exception)` says each distinct notice of the workers once."""

    def __init__(
        self,
        jobs: int,
        factory: Callable[..., Task],
        args: tuple = (),
        *,
        spawn: bool = False,
        notify: Callable[[str, BaseException | None], None] | None = None,
    ) -> None:
        self.jobs = jobs
        self.factory, self.args = factory, args
        self.notify = notify or (lambda text, exc=None: None)
        self.model_failed = False
        self._said: set[str] = set()
        fork = not spawn and sys.platform.startswith("linux") and threading.active_count() == 1
        self._context = get_context("fork" if fork else "spawn")
        self._workers: list[_Worker] = []
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        os.set_blocking(self._wake_r, False)
        try:
            for _ in range(jobs):
                self._workers.append(self._start(self._context))
        except BaseException:
            self.close(now=True)
            raise

    def _start(self, context: Any) -> _Worker:
        ours, theirs = context.Pipe()
        inherited = [w.conn for w in self._workers] if context.get_start_method() == "fork" else []
        process = context.Process(
            target=serve,
            name="ltlwit-worker",
            daemon=True,
            args=(theirs, self.factory, self.args, os.getpid(), inherited),
        )
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, kind: type | None, *_: object) -> None:
        self.close(now=kind is not None)

    def close(self, now: bool = False) -> None:
        """Stop the workers (at once with `now`: the run was interrupted) and reap them."""
        for worker in self._workers:
            if not now and not worker.chunks:
                try:
                    worker.conn.send_bytes(pickle.dumps(None))
                except OSError:
                    pass
        deadline = time.monotonic() + (0 if now else 1.0)
        for worker in self._workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(1.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._workers = []
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1

    # -- the stream ----------------------------------------------------------------------------

    def imap(
        self,
        method: str,
        items: Iterable[InputItem],
        *,
        syntax: bool = False,
        origin: float | None = None,
        least: int = 1,
        context: Any = None,
    ) -> Iterator[Any]:
        """The outputs of `getattr(task, method)(chunk)` for the chunks of `items`, in input order.
        `syntax`: the inputs are text read with `--syntax auto` (see the module docstring);
        `origin`: when the first input's clock starts; `least`: the fewest inputs a chunk
        holds after the ramp (a model batch); `context`: sent along with every chunk."""
        run = _Run(self, method, syntax, origin, least, context)
        reader = _Reader(items, self._wake_w)
        reader.start()
        try:
            yield from run.loop(reader)
        finally:
            reader.stop()


class _Run:
    """One `imap`: the dispatching, waiting and ordering loop."""

    def __init__(self, pool: Pool, method: str, syntax: bool, origin: float | None, least: int, context: Any) -> None:
        self.pool, self.method, self.syntax, self.origin, self.context = pool, method, syntax, origin, context
        self.least = max(1, least)
        self.slots: dict[int, _Slot] = {}
        self.front = 0  # the next chunk to hand on
        self.made = 0  # chunks made so far
        self.urgent: deque[Chunk] = deque()  # parts to hand out before new chunks
        self.window_items = self.window_bytes = 0
        self.per_item: float | None = None  # seconds of a worker per input, smoothed
        #: The guess of each file after the chunks handed on (exact).
        self.states: dict[str, GuessState] = {}

    def loop(self, reader: _Reader) -> Iterator[Any]:
        while True:
            self._dispatch(reader)
            while self.front in self.slots and self._ready(self.slots[self.front]):
                yield from self._hand_on(self.slots.pop(self.front))
                self.front += 1
                self._dispatch(reader)
            self._dispatch(reader)  # a chunk to answer again, queued by _ready
            if reader.error is not None:
                raise reader.error
            busy = [w for w in self.pool._workers if w.chunks]
            with reader.cond:
                drained = reader.finished and not reader.buffer
            if drained and not busy and not self.urgent and not self.slots:
                return
            self._wait(busy)

    # -- handing out ---------------------------------------------------------------------------

    def _dispatch(self, reader: _Reader) -> None:
        """Idle workers first; then each busy one gets its next chunk ahead, when that is small
        enough to wait in the pipe (so the worker need not wait for this process to wake up,
        and this process never blocks on a full pipe while the worker blocks on another)."""
        for ahead in (False, True):
            for worker in self.pool._workers:
                if len(worker.chunks) != ahead:
                    continue
                chunk = self.urgent.popleft() if self.urgent else self._next(reader)
                if chunk is None:
                    return
                self._send(worker, chunk, ahead)

    def _next(self, reader: _Reader) -> Chunk | None:
        if self.window_items >= WINDOW_ITEMS or self.window_bytes >= WINDOW_BYTES:
            return None
        with reader.cond:
            available, finished = len(reader.buffer), reader.finished
        if not available:
            return None
        most = self._size(available, finished)
        items = reader.take(min(most, WINDOW_ITEMS - self.window_items))
        number = self.made
        self.made += 1
        chunk = Chunk(
            (number, 0),
            items,
            self.method,
            first=number == 0,
            origin=self.origin if number == 0 else None,
            context=self.context,
        )
        slot = _Slot([chunk], size=len(items), bytes=sum(len(item.text) for item in items))
        self.slots[number] = slot
        self.window_items += slot.size
        self.window_bytes += slot.bytes
        return chunk

    def _size(self, available: int, finished: bool) -> int:
        ramp = 1 << min(self.made, 20)
        steady = CHUNK_MOST if self.per_item is None else int(CHUNK_SECONDS / max(self.per_item, 1e-6))
        size = min(ramp, max(self.least, min(CHUNK_MOST, steady)))
        if finished:  # the tail: share what is left among the workers
            size = min(size, max(1, math.ceil(available / self.pool.jobs)))
        return max(1, size)

    def _send(self, worker: _Worker, chunk: Chunk, ahead: bool = False) -> None:
        if self.syntax and chunk.states is None:
            chunk.states = {item.file: self.states.get(item.file, (False, False)) for item in chunk.items}
        data = pickle.dumps(chunk, pickle.HIGHEST_PROTOCOL)
        if ahead and len(data) > AHEAD_BYTES:  # for the next worker that is idle instead
            self.urgent.appendleft(chunk)
            return
        try:
            worker.conn.send_bytes(data)
        except OSError:  # the worker is gone; it never got the chunk
            self.urgent.appendleft(chunk)
            self._died(worker)
            return
        worker.chunks.append(chunk)

    # -- waiting and receiving -------------------------------------------------------------------

    def _wait(self, busy: list[_Worker]) -> None:
        ready = connection.wait([w.conn for w in busy] + [self.pool._wake_r])
        for conn in ready:
            if conn == self.pool._wake_r:
                try:
                    os.read(self.pool._wake_r, 1 << 16)
                except BlockingIOError:
                    pass
                continue
            worker = next(w for w in busy if w.conn is conn)
            try:
                done: Done = pickle.loads(worker.conn.recv_bytes())
            except (EOFError, OSError):
                self._died(worker)
                continue
            chunk = worker.chunks.popleft()
            if done.crash is not None:
                raise WorkerError(f"{done.crash.name}: {done.crash}") from done.crash
            assert done.key == chunk.key
            self.slots[chunk.key[0]].done[chunk.key] = done
            if chunk.items and done.seconds > 0:
                now = done.seconds / len(chunk.items)
                self.per_item = now if self.per_item is None else 0.8 * self.per_item + 0.2 * now

    def _died(self, worker: _Worker) -> None:
        """A worker is gone: the chunk it was answering is the suspect, any chunk sent ahead
        goes out again as it is, and a fresh worker takes its place."""
        unanswered = list(worker.chunks)
        worker.chunks.clear()
        worker.process.join(1.0)
        code = worker.process.exitcode
        self._replace(worker)
        if not unanswered:
            return
        chunk = unanswered[0]
        self.urgent.extendleft(reversed(unanswered[1:]))
        if len(chunk.items) > 1:  # find the input that did it: hand the chunk out input by input
            slot = self.slots[chunk.key[0]]
            parts = [
                Chunk((chunk.key[0], i), [item], self.method, first=chunk.first and i == 0, context=self.context)
                for i, item in enumerate(chunk.items)
            ]
            slot.parts = parts
            slot.done.clear()
            self.urgent.extendleft(reversed(parts))
            return
        why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        message = f"internal error (please report it): the worker process answering it ended ({why}; out of memory?)"
        self.slots[chunk.key[0]].done[chunk.key] = Done(chunk.key, Lost(chunk.items[0], message), 0.0)

    def _replace(self, worker: _Worker) -> None:
        """A fresh worker in the place of one that is gone (spawned: this process has threads)."""
        worker.conn.close()
        worker.process.join(0.1)
        index = self.pool._workers.index(worker)
        self.pool._workers[index] = self.pool._start(get_context("spawn"))

    # -- handing on ----------------------------------------------------------------------------

    def _ready(self, slot: _Slot) -> bool:
        if len(slot.done) < len(slot.parts):
            return False
        if not self.syntax:
            return True
        states = self.states
        for part in slot.parts:
            after, wrong = _replay(part.items, slot.done[part.key].evidence, states)
            if wrong:  # an ambiguous line read otherwise than by one process: again, with the exact guesses
                again = Chunk(
                    part.key,
                    part.items,
                    self.method,
                    first=part.first,
                    context=self.context,
                    states={item.file: states.get(item.file, (False, False)) for item in part.items},
                )
                del slot.done[part.key]
                self.urgent.appendleft(again)
                return False
            states = after
        return True

    def _hand_on(self, slot: _Slot) -> Iterator[Any]:
        self.window_items -= slot.size
        self.window_bytes -= slot.bytes
        for part in slot.parts:
            done = slot.done[part.key]
            if self.syntax:
                self.states, _ = _replay(part.items, done.evidence, self.states)
            self.pool.model_failed |= done.model_failed
            for text, exc in done.notices:
                if text not in self.pool._said:
                    self.pool._said.add(text)
                    self.pool.notify(text, exc)
            yield done.outputs


def _replay(
    items: list[InputItem], evidence: dict[int, tuple[str, bool]], states: dict[str, GuessState]
) -> tuple[dict[str, GuessState], bool]:
    """The guesses after `items` from those before them, and whether an ambiguous line among
    them was read otherwise than these guesses say."""
    states = dict(states)
    for i, (kind, reads_polish) in sorted(evidence.items()):
        file = items[i].file
        polish, spot = states.get(file, (False, False))
        if kind == "either":
            if reads_polish != (polish and not spot):
                return states, True
        elif kind == "polish":
            states[file] = (True, spot)
        elif kind == "spot":
            states[file] = (polish, True)
    return states, False
