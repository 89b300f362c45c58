"""Worker processes for one run (`--jobs N`): inputs go out in chunks, answers come back in
input order, streamed.

The main process reads the inputs (in a thread, so that input arriving slowly, from a terminal
or a slow producer, never holds back answers that are ready) and hands chunks of them to idle
workers. Each worker builds one *task* when it starts (a `Pipeline`, whose models then load once
per worker, and whatever the command renders with) and answers chunk after chunk, one output
per input; the outputs come back as they are finished (`ltlwit.pipeline.worker`), and
`Pool.imap` yields them in input order as soon as every earlier input's are in (a slow formula
holds back the answers after it, not those before it in its chunk). At most `WINDOW_ITEMS` inputs (and `WINDOW_BYTES` of their text) are between reading and being
handed on, so memory does not depend on the input's length.

Chunks ramp up 1, 2, 4, ... inputs, then hold about `CHUNK_SECONDS` of a worker's time (from
the time per input measured so far): large enough that sending them costs nothing next to
sub-millisecond formulas, small enough that slow formulas spread over the workers. At the end
of the input the rest is shared out among the workers. With models, chunks hold at least a
model batch. A busy worker gets its next chunk ahead, so that it never waits for the main
process to wake up between two chunks.

Time budgets (`timeout`, `--timeout`): an input's clock starts when the main process takes it
from the reading thread for a worker (`Chunk.read`), not when a worker begins it, so the time
it waits behind other inputs counts, in its budget and its reported time. So that the wait
stays a small part of the budget, a run with a timeout sends no chunk ahead, sizes chunks to
about `QUEUE_SHARE` of the timeout (one input until the time per input is known), and has a
worker hand back the inputs of its chunk that it has not begun once no answer came for that
long (a slow formula): they go to the next idle worker, and their clocks start again when
they are handed out again, as they would start in one process reading them only then (with
both workers on ten-second formulas, schuppan's phltl_2_1 had waited its budget away).

Syntax detection (`--syntax auto`) reads an ambiguous line by what the earlier lines of its
file were, and the earlier lines may be in another worker's chunk. So each chunk goes out with
the best-known guess for its files, the worker reports what each line told the guess
(`InputParser.evidence`), and the main process replays that in input order: a chunk that read
an ambiguous line differently from how one process would have is answered again, with the
exact guess, before its outputs are handed on (in practice: at most the first chunk or two of a
file in Polish notation).

Interrupts (`signals`): SIGINT, and SIGTERM too where asked, end a run with the answers already
finished: the main process stops handing out inputs, asks each worker to send what it has
finished and exit (SIGTERM to the worker), waits for that (`DRAIN_SECONDS` at most), hands on
the outputs in input order up to the first input without an answer, and raises
KeyboardInterrupt (SIGINT) or `Terminated` (SIGTERM). A second signal ends it at once.

Processes: fork where that is safe (Linux, one thread, no model will run), else spawn; the
worker's side is `ltlwit.pipeline.worker`. Workers are stopped and reaped when the run ends,
however it ends (Ctrl-C, a closed stdout, an error). A worker that dies (a crash in native
code, the OOM killer) costs time, not answers: the answers it had sent are kept, and the rest
of its chunk is handed out again input by input, to a fresh worker; an input that kills a
worker by itself gets an error answer (`Lost`).
"""

from __future__ import annotations

import math
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import connection, get_context
from typing import Any, Callable, Generator, Iterable, Iterator

from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parsing import GuessState
from ltlwit.pipeline.worker import Chunk, Done, Lost, RemoteError, Task, WorkerError, serve

__all__ = ["Chunk", "Lost", "Pool", "RemoteError", "Task", "Terminated", "WorkerError", "usable_cores"]

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
#: With a timeout: the share of it that an input may wait in a worker's chunk, about.
QUEUE_SHARE = 0.05
#: Seconds an interrupted run waits for the workers to send the answers they have finished.
DRAIN_SECONDS = 2.0


class Terminated(KeyboardInterrupt):
    """SIGTERM ended the run (`Pool.imap` with `signals`), after the answers finished before it
    were handed on."""


def _message(worker: Any) -> Done | None:
    """A worker's next message; None when its pipe is closed (the worker is gone)."""
    try:
        return pickle.loads(worker.conn.recv_bytes())
    except (EOFError, OSError):
        return None


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
class _Part:
    """A chunk, or a part of one, and what came back for it so far."""

    chunk: Chunk
    outputs: list[Any] = field(default_factory=list)  # one per input, in order
    evidence: dict[int, tuple[str, bool]] = field(default_factory=dict)
    notices: list[tuple[str, RemoteError | None]] = field(default_factory=list)
    model_failed: bool = False
    final: bool = False  # every input of `chunk` answered
    handed: int = 0  # outputs handed on
    lost: Lost | None = None  # in place of the outputs: its only input killed a worker


@dataclass
class _Slot:
    """A chunk between being read and being handed on: its parts, in input order."""

    parts: list[_Part]
    size: int = 0
    bytes: int = 0

    def part(self, key: tuple[int, int]) -> _Part:
        return next(part for part in self.parts if part.chunk.key == key)


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
        self.notify: Callable[[str, BaseException | None], None] = notify or (lambda text, exc: None)
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
            if now:  # nothing more is read: a worker sending to us gets EPIPE rather than waiting
                worker.conn.close()
            elif not worker.chunks:
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
        timeout: float | None = None,
        signals: bool = False,
    ) -> Generator[list[Any] | Lost, None, None]:
        """The outputs of `getattr(task, method)(chunk)` for the chunks of `items`, in input order:
        a list per chunk (or part of one), or a `Lost` in place of an input that killed a worker.
        `syntax`: the inputs are text read with `--syntax auto` (see the module docstring);
        `origin`: when the first input's clock starts (a `time.perf_counter()` reading); `least`:
        the fewest inputs a chunk holds after the ramp (a model batch); `context`: sent along with
        every chunk; `timeout`: the seconds each input may take from being read, which the
        chunks are sized for; `signals`: SIGINT and SIGTERM end the run with the answers
        finished (from the main thread; see the module docstring)."""
        run = _Run(self, method, syntax, origin, least, context, timeout)
        reader = _Reader(items, self._wake_w)
        reader.start()
        try:
            with _catching(run, self._wake_w, signals):
                yield from run.loop(reader)
                if run.signalled is not None:  # it came as the last answers were handed on
                    raise Terminated() if run.signalled == signal.SIGTERM else KeyboardInterrupt()
        finally:
            reader.stop()
            run.settle()


@contextmanager
def _catching(run: "_Run", wake: int, signals: bool) -> Iterator[None]:
    """SIGINT and SIGTERM noted for `run` (and its loop woken) while it lasts, where they have
    their default handling and this is the main thread; a second one raises at once."""
    if not signals or threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        if run.signalled is not None:
            raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
        run.signalled = signum
        try:
            os.write(wake, b"\0")
        except OSError:
            pass

    previous = {}
    for number, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
        if signal.getsignal(number) is default:  # not one ignored (a background job) or handled by the caller
            previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


class _Run:
    """One `imap`: the dispatching, waiting and ordering loop."""

    def __init__(
        self,
        pool: Pool,
        method: str,
        syntax: bool,
        origin: float | None,
        least: int,
        context: Any,
        timeout: float | None,
    ) -> None:
        self.pool, self.method, self.syntax, self.origin, self.context = pool, method, syntax, origin, context
        self.least = max(1, least)
        #: With a timeout: the seconds of work a chunk holds, and that a worker goes without an
        #: answer before it hands back the inputs it has not begun.
        self.queue = None if timeout is None else min(CHUNK_SECONDS, QUEUE_SHARE * timeout)
        self.slots: dict[int, _Slot] = {}
        self.front = 0  # the next chunk to hand on
        self.made = 0  # chunks made so far
        self.urgent: deque[Chunk] = deque()  # parts to hand out before new chunks
        #: Parts a worker handed back unbegun (by id): handed out afresh, their clocks start
        #: again then, as an input not yet read would start its clock in one process.
        self.returned: set[int] = set()
        self.window_items = self.window_bytes = 0
        self.per_item: float | None = None  # seconds of a worker per input, smoothed
        #: The guess of each file after the chunks handed on (exact).
        self.states: dict[str, GuessState] = {}
        self.signalled: int | None = None  # the signal that interrupted the run

    def loop(self, reader: _Reader) -> Iterator[list[Any] | Lost]:
        while True:
            if self.signalled is not None:
                yield from self._interrupted(reader)
            self._dispatch(reader)
            yield from self._hand_on()
            self._dispatch(reader)  # into the window's room, and a part to answer again
            if reader.error is not None:
                raise reader.error
            busy = [w for w in self.pool._workers if w.chunks]
            with reader.cond:
                drained = reader.finished and not reader.buffer
            if drained and not busy and not self.urgent and not self.slots:
                return
            if self.signalled is None:
                self._wait(busy)

    def settle(self) -> None:
        """No worker carries a chunk of this run into the pool's next one (whose slots do not
        know it), where the consumer stopped reading once it had the answers it wanted: a
        worker that has answered all its inputs sends its last message at once and is waited
        for; one still answering is stopped and replaced. Not after a signal: the pool closes."""
        if self.signalled is not None:
            return
        for worker in list(self.pool._workers):
            while worker.chunks:
                chunk = worker.chunks[0]
                slot = self.slots.get(chunk.key[0])
                part = slot.part(chunk.key) if slot is not None else None
                done = None
                if len(worker.chunks) == 1 and part is not None and len(part.outputs) >= len(part.chunk.items):
                    done = _message(worker)
                if done is None or done.crash is not None or done.key != chunk.key:
                    worker.chunks.clear()
                    worker.process.kill()
                    self._replace(worker)
                    break
                self._receive(worker, done)

    # -- handing out ---------------------------------------------------------------------------

    def _dispatch(self, reader: _Reader) -> None:
        """Idle workers first; then each busy one gets its next chunk ahead, when that is small
        enough to wait in the pipe (so the worker need not wait for this process to wake up,
        and this process never blocks on a full pipe while the worker blocks on another); not
        with a timeout, where the chunk's clocks would run meanwhile."""
        if self.signalled is not None:
            return
        for ahead in (False, True) if self.queue is None else (False,):
            for worker in self.pool._workers:
                if len(worker.chunks) != ahead:
                    continue
                chunk = self.urgent.popleft() if self.urgent else self._next(reader)
                if chunk is None:
                    return
                if id(chunk) in self.returned and chunk.read is not None:
                    self.returned.discard(id(chunk))
                    chunk.read[:] = [time.monotonic()] * len(chunk.items)
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
        now = time.monotonic()
        read = [now] * len(items)
        number = self.made
        self.made += 1
        if number == 0 and self.origin is not None:  # the process's start-up counts for the first input
            read[0] = min(now, now - (time.perf_counter() - self.origin))
        chunk = Chunk(
            (number, 0),
            items,
            self.method,
            first=number == 0,
            origin=self.origin if number == 0 else None,
            context=self.context,
            read=read,
            give_back=self.queue,
        )
        slot = _Slot([_Part(chunk)], size=len(items), bytes=sum(len(item.text) for item in items))
        self.slots[number] = slot
        self.window_items += slot.size
        self.window_bytes += slot.bytes
        return chunk

    def _size(self, available: int, finished: bool) -> int:
        ramp = 1 << min(self.made, 20)
        if self.per_item is None:  # with a timeout, an input may be as slow as the timeout
            steady = CHUNK_MOST if self.queue is None else 1
        else:
            steady = int((CHUNK_SECONDS if self.queue is None else self.queue) / max(self.per_item, 1e-6))
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
            done = _message(worker)
            if done is None:
                self._died(worker)
                continue
            if done.crash is not None:
                raise WorkerError(f"{done.crash.name}: {done.crash}") from done.crash
            self._receive(worker, done)

    def _receive(self, worker: _Worker, done: Done) -> None:
        """Take in a message of `worker` about the chunk it is answering."""
        chunk = worker.chunks[0]
        assert done.key == chunk.key
        slot = self.slots[chunk.key[0]]
        part = slot.part(chunk.key)
        part.outputs.extend(done.outputs)
        if done.evidence:
            part.evidence = done.evidence
        part.notices.extend(done.notices)
        part.model_failed |= done.model_failed
        if done.back is not None:  # the inputs it had not begun, for another worker
            rest = self._split(slot, part, done.back)
            self.returned.add(id(rest.chunk))
            self.urgent.appendleft(rest.chunk)
        if done.final:
            worker.chunks.popleft()
            part.final = True
            if chunk.items and done.seconds > 0:
                now = done.seconds / len(chunk.items)
                self.per_item = now if self.per_item is None else 0.8 * self.per_item + 0.2 * now

    def _split(self, slot: _Slot, part: _Part, at: int) -> _Part:
        """The inputs of `part` from index `at` on, as a new part after it (whose chunk goes out
        on its own); `part` keeps those before."""
        chunk = part.chunk
        assert 0 < at < len(chunk.items)
        rest = Chunk(
            (chunk.key[0], chunk.key[1] + at),
            chunk.items[at:],
            self.method,
            context=self.context,
            read=chunk.read[at:] if chunk.read is not None else None,
            give_back=chunk.give_back,
        )
        del chunk.items[at:]
        if chunk.read is not None:
            del chunk.read[at:]
        del part.outputs[at:]
        after = _Part(rest)
        slot.parts.insert(slot.parts.index(part) + 1, after)
        return after

    def _died(self, worker: _Worker) -> None:
        """A worker is gone: the chunk it was answering is the suspect (but for the answers it
        sent), any chunk sent ahead goes out again as it is, and a fresh worker takes its place."""
        unanswered = list(worker.chunks)
        worker.chunks.clear()
        worker.process.join(1.0)
        code = worker.process.exitcode
        self._replace(worker)
        if not unanswered or self.signalled is not None:
            return
        chunk = unanswered[0]
        self.urgent.extendleft(reversed(unanswered[1:]))
        slot = self.slots[chunk.key[0]]
        part = slot.part(chunk.key)
        alone = len(chunk.items) == 1
        if part.outputs:  # those answers stand; the suspects are the inputs after them
            part.final = True
            if len(part.outputs) == len(chunk.items):
                return
            part = self._split(slot, part, len(part.outputs))
            chunk = part.chunk
        if not alone:  # find the input that did it: hand the rest out input by input
            parts = [part]
            while len(part.chunk.items) > 1:
                part = self._split(slot, part, 1)
                parts.append(part)
            self.urgent.extendleft(reversed([each.chunk for each in parts]))
            return
        why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        message = f"internal error (please report it): the worker process answering it ended ({why}; out of memory?)"
        part.lost = Lost(chunk.items[0], message)
        part.final = True

    def _replace(self, worker: _Worker) -> None:
        """A fresh worker in the place of one that is gone (spawned: this process has threads)."""
        worker.conn.close()
        worker.process.join(0.1)
        index = self.pool._workers.index(worker)
        self.pool._workers[index] = self.pool._start(get_context("spawn"))

    # -- handing on ----------------------------------------------------------------------------

    def _hand_on(self, interrupted: bool = False) -> Iterator[list[Any] | Lost]:
        """Hand on the outputs that are in, in input order, up to the first input without one
        (or, with `--syntax auto`, one whose ambiguous line was read otherwise than one process
        would have: once its part is answered, the inputs from there on are answered again with
        the exact guesses; not when `interrupted`)."""
        while self.front in self.slots:
            slot = self.slots[self.front]
            for part in slot.parts:
                items = part.chunk.items
                if part.handed >= len(items):
                    continue
                if part.lost is not None:
                    self._say(part)
                    part.handed = 1
                    yield part.lost
                    continue
                count, wrong = len(part.outputs), None
                if self.syntax:
                    self.states, wrong = _replay(items, part.evidence, self.states, part.handed, count)
                    count = count if wrong is None else wrong
                if count > part.handed:
                    self._say(part)
                    handed, part.handed = part.handed, count
                    yield part.outputs[handed:count]
                if part.handed < len(items):
                    if wrong is not None and part.final and not interrupted:  # again, with the exact guesses
                        self._again(slot, part)
                    return
            if not interrupted and not all(part.final for part in slot.parts):  # its last messages are to come
                return
            del self.slots[self.front]
            self.front += 1
            self.window_items -= slot.size
            self.window_bytes -= slot.bytes

    def _again(self, slot: _Slot, part: _Part) -> None:
        """Answer the inputs of `part` not handed on again, with the guesses one process would
        have had."""
        if part.handed:
            part = self._split(slot, part, part.handed)
        else:
            old = part.chunk
            part.chunk = Chunk(
                old.key,
                old.items,
                self.method,
                first=old.first,
                context=self.context,
                read=old.read,
                give_back=old.give_back,
            )
            part.outputs, part.evidence, part.final = [], {}, False
        chunk = part.chunk
        chunk.states = {item.file: self.states.get(item.file, (False, False)) for item in chunk.items}
        self.urgent.appendleft(chunk)

    def _say(self, part: _Part) -> None:
        self.pool.model_failed |= part.model_failed
        for text, exc in part.notices:
            if text not in self.pool._said:
                self.pool._said.add(text)
                self.pool.notify(text, exc)
        part.notices = []

    # -- an interrupted run ----------------------------------------------------------------------

    def _interrupted(self, reader: _Reader) -> Iterator[list[Any] | Lost]:
        """Collect what the workers have finished, hand on the answers in input order up to the
        first input without one, and raise."""
        reader.stop()
        workers = list(self.pool._workers)
        for worker in workers:
            if worker.process.is_alive():
                worker.process.terminate()  # it sends what it has finished and exits
        deadline = time.monotonic() + DRAIN_SECONDS
        talking = list(workers)
        while talking and time.monotonic() < deadline:
            for conn in connection.wait([w.conn for w in talking], max(0.0, deadline - time.monotonic())):
                worker = next(w for w in talking if w.conn is conn)
                done = _message(worker)
                if done is None:
                    talking.remove(worker)
                    continue
                if done.crash is None and worker.chunks and done.key == worker.chunks[0].key:
                    self._receive(worker, done)
        for worker in talking:
            worker.process.kill()
        yield from self._hand_on(interrupted=True)
        raise Terminated() if self.signalled == signal.SIGTERM else KeyboardInterrupt()


def _replay(
    items: list[InputItem],
    evidence: dict[int, tuple[str, bool]],
    states: dict[str, GuessState],
    begin: int,
    end: int,
) -> tuple[dict[str, GuessState], int | None]:
    """The guesses after `items[begin:end]` from those before them, and the index of the first
    ambiguous line among them read otherwise than these guesses say (None: none was; the
    guesses returned are then those before it)."""
    if begin >= end:
        return states, None
    states = dict(states)
    for i, (kind, reads_polish) in sorted(evidence.items()):
        if i < begin:
            continue
        if i >= end:
            break
        file = items[i].file
        polish, spot = states.get(file, (False, False))
        if kind == "either":
            if reads_polish != (polish and not spot):
                return states, i
        elif kind == "polish":
            states[file] = (True, spot)
        elif kind == "spot":
            states[file] = (polish, True)
    return states, None
