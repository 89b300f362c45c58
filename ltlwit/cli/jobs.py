"""`--jobs N` and `--shard K/N` for `solve` and `verify`: the work of one run shared among worker
processes on this machine, or the inputs of a run split among machines.

With `--jobs`, each worker keeps a `SolveWork` or `VerifyWork` for its whole life (a `Pipeline`,
so models load once per worker, and the command's printer) and *renders* its answers: each
input's come back as the text the printer wrote, stdout and stderr in the order written, with
each answer's status. The main process only reads, hands out, writes that text and keeps the
progress line and the exit status, so it stays light next to sub-millisecond formulas, and the
output is the one printer's output byte for byte. `ltlwit.pipeline.parallel` does the rest
(chunks, input order, the syntax guess, signals, workers that die).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterable, Iterator, Protocol, TextIO, TypeVar, cast

import click

from ltlwit.cli.environment import Environment
from ltlwit.cli.output import solve_printer, verify_printer
from ltlwit.cli.status import ExitStatus, exit_status, worst
from ltlwit.pipeline.answers import Answer, Notify
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.options import SolveOptions

if TYPE_CHECKING:  # `verify`'s: loads with that command
    from ltlwit.pipeline.verify import VerifyOptions

#: One piece of rendered output: (1 for stdout, 2 for stderr, the text as written), or (0, its
#: status) where an answer's output ends, so the main process ticks the progress line exactly
#: where one process would (between one answer's messages and the next one's).
Event = tuple[int, str]


class Jobs(click.ParamType):
    """A number of worker processes, or `auto`: the cores this process may use."""

    name = "jobs"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif str(value).strip().lower() == "auto":
            from ltlwit.pipeline.parallel import usable_cores

            return usable_cores()
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is neither a number of processes nor 'auto'", param, ctx)
        if number < 1:
            self.fail(f"{value!r}: at least 1 process", param, ctx)
        return number


class Shard(click.ParamType):
    """`K/N`: the inputs at positions K, K+N, K+2N, ... (counted from 0 over all inputs)."""

    name = "shard"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[int, int]:
        if isinstance(value, tuple):
            return value
        k, slash, n = str(value).strip().partition("/")
        try:
            shard, count = int(k), int(n)
        except ValueError:
            shard = count = -1
        if not slash or count < 1 or not 0 <= shard < count:
            self.fail(f"{value!r}: give K/N with 0 <= K < N (e.g. 0/4 ... 3/4)", param, ctx)
        return shard, count


def jobs_of(help_text: str) -> Callable:
    """`-j/--jobs N|auto` with a command's own help (`jobs_option`: the answering commands')."""
    return click.option("-j", "--jobs", type=Jobs(), default=1, show_default=True, metavar="N|auto", help=help_text)


jobs_option = jobs_of(
    "Worker processes sharing the inputs (auto: one per usable core); answers still come in input order, streamed."
)
shard_option = click.option(
    "--shard",
    type=Shard(),
    metavar="K/N",
    help="Only the inputs at positions K, K+N, K+2N, ... (from 0, over all inputs): one of N runs that "
    "together answer every input once.",
)


def shard_of(items: Iterable[InputItem], which: tuple[int, int] | None) -> Iterator[InputItem]:
    """The items of shard K/N (all of them without one)."""
    if which is None:
        yield from items
        return
    k, n = which
    yield from itertools.islice(items, k, None, n)


def own_stdin(stream: BinaryIO) -> BinaryIO:
    """stdin for a reading thread: a stream of its own over a duplicate of the descriptor, so
    that a thread still blocked reading it when the run ends (Ctrl-C, `| head`) holds no lock
    that the interpreter's shutdown needs (sys.stdin's)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream (tests, embeddings)
        return stream
    return open(os.dup(fd), "rb", closefd=True)  # noqa: SIM115 - lives as long as the reading does


# -- in the workers ---------------------------------------------------------------------------


class _Recorder(io.TextIOBase):
    """A stream that keeps what is written, as events shared with its sibling stream."""

    def __init__(self, events: list[Event], number: int) -> None:
        self.events, self.number = events, number

    def write(self, text: str) -> int:
        if self.events and self.events[-1][0] == self.number:
            self.events[-1] = (self.number, self.events[-1][1] + text)
        else:
            self.events.append((self.number, text))
        return len(text)

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False


@dataclass(frozen=True)
class View:
    """What the workers' printers need to know about the real streams."""

    fmt: str
    syntax_out: str
    stdout_isatty: bool
    stderr_isatty: bool
    color_allowed: bool
    traceback: bool
    quiet: bool
    activities: bool = False

    @classmethod
    def of(cls, env: Environment, fmt: str, syntax_out: str = "spot", activities: bool = False) -> "View":
        return cls(
            fmt,
            syntax_out,
            env.stdout_isatty,
            env.stderr_isatty,
            env.color_allowed,
            env.traceback,
            env.quiet,
            activities,
        )

    def recording(self, events: list[Event]) -> Environment:
        return Environment(
            stdin=io.BytesIO(),
            # cast: a TextIOBase is a text stream, but typeshed's io.TextIOBase does not declare typing.TextIO
            stdout=cast(TextIO, _Recorder(events, 1)),
            stderr=cast(TextIO, _Recorder(events, 2)),
            stdin_isatty=False,
            stdout_isatty=self.stdout_isatty,
            stderr_isatty=self.stderr_isatty,
            color_allowed=self.color_allowed,
            traceback=self.traceback,
            quiet=self.quiet,
        )


@dataclass(frozen=True)
class Rendered:
    """An input's answers as the printer wrote them."""

    status: int  # the worst exit status among them
    events: tuple[Event, ...]


class _Work:
    parser: Any = None

    @property
    def model_failed(self) -> bool:
        """Whether a model failed in this worker (only solve's pipeline runs models)."""
        return False

    @staticmethod
    def timeout_of(*args: Any) -> float | None:
        """The seconds each input may take, from being read (`--timeout`), given the work's
        arguments."""
        return None

    def __init__(self, view: View) -> None:
        self.notices: list[tuple[str, BaseException | None]] = []
        self.events: list[Event] = []
        self.env = view.recording(self.events)

    def _notice(self, text: str, exc: BaseException | None = None) -> None:
        self.notices.append((text, exc))

    def _render(self, printer: Any, answers: Iterable[Answer]) -> Rendered:
        """The answers to one input as the printer writes them."""
        status = ExitStatus.SUCCESS
        for answer in answers:
            printer.emit(answer)
            self.events.append((0, answer.status))
            status = worst(status, exit_status(answer))
        rendered = Rendered(int(status), tuple(self.events))
        self.events.clear()
        return rendered


class SolveWork(_Work):
    def __init__(self, options: SolveOptions, view: View) -> None:
        from ltlwit.pipeline import Pipeline

        super().__init__(view)
        self.pipeline = Pipeline(options, notify=self._notice)
        self.parser = self.pipeline.parser
        self.printer = solve_printer(view.fmt, self.env, view.syntax_out, view.activities)
        self.printer.progress = None

    @property
    def model_failed(self) -> bool:
        return self.pipeline.model_failed

    @staticmethod
    def timeout_of(options: SolveOptions, *_: Any) -> float | None:
        return options.timeout

    def answers(self, chunk: Any) -> Iterator[Rendered]:
        """Each input's answers, rendered, as it is answered; its clock started when the main
        process read it (`Chunk.read_at`)."""
        self.printer.header_due = chunk.first
        for solutions in self.pipeline.answers(chunk.items, ramp=False, read=chunk.read_at):
            yield self._render(self.printer, solutions)


class VerifyWork(_Work):
    def __init__(self, options: VerifyOptions, view: View) -> None:
        from ltlwit.pipeline.parsing import InputParser

        super().__init__(view)
        self.options = options
        self.parser = InputParser(options.syntax)
        self.printer = verify_printer(view.fmt, self.env)

    def answers(self, chunk: Any) -> Iterator[Rendered]:
        from ltlwit.pipeline.verify import verify_lines

        for verdict in verify_lines(chunk.items, self.options, self.parser):
            yield self._render(self.printer, [verdict])


# -- in the main process ----------------------------------------------------------------------

_AnswerIn = TypeVar("_AnswerIn", bound=Answer, contravariant=True)
_AnswerT = TypeVar("_AnswerT", bound=Answer)


class AnswerPrinter(Protocol[_AnswerIn]):
    """What `run_jobs` asks of the command's printer (`SolvePrinter`, `VerifyText`,
    `VerifyJson`): write a lost input's answer, replay what the workers rendered (and know
    that a header came with it), say notices."""

    header_due: bool

    def emit(self, answer: _AnswerIn, /) -> None: ...

    def replay(self, events: Iterable[Event]) -> None: ...

    def notice(self, text: str, exception: BaseException | None = None) -> None: ...


def run_jobs(
    jobs: int,
    work: type[_Work],
    args: tuple,
    items: Iterable[InputItem],
    printer: AnswerPrinter[_AnswerT],
    lost: Callable[[InputItem, str], _AnswerT],
    *,
    syntax: str,
    spawn: bool = False,
    origin: float | None = None,
    least: int = 1,
    notify: Notify | None = None,
) -> tuple[ExitStatus, bool]:
    """Answer `items` with `jobs` workers running `work(*args)`; print what they rendered through
    `printer` in input order. (The run's exit status, whether a model failed.)

    Ctrl-C (SIGINT) and SIGTERM end the run with every answer finished before them printed, in
    input order up to the first input without one (`Pool.imap`'s `signals`): then
    KeyboardInterrupt propagates (status 130), and SIGTERM gives status `ExitStatus.TERMINATED`."""
    from ltlwit.pipeline.parallel import Lost, Pool, Terminated

    status = ExitStatus.SUCCESS
    try:
        with (
            Pool(jobs, work, args, spawn=spawn, notify=notify or printer.notice) as pool,
            contextlib.closing(
                pool.imap(
                    "answers",
                    items,
                    syntax=syntax == "auto",
                    origin=origin,
                    least=least,
                    timeout=work.timeout_of(*args),
                    signals=True,
                )
            ) as stream,
        ):
            for outputs in stream:
                for rendered in [outputs] if isinstance(outputs, Lost) else outputs:
                    if isinstance(rendered, Lost):  # a worker died on this input by itself
                        answer = lost(rendered.item, rendered.message)
                        printer.emit(answer)
                        status = worst(status, exit_status(answer))
                        continue
                    printer.replay(rendered.events)
                    printer.header_due = False
                    status = worst(status, ExitStatus(rendered.status))
            return status, pool.model_failed
    except Terminated:
        return ExitStatus.TERMINATED, False
