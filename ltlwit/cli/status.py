"""Exit statuses of the `ltlwit` command, one scheme for every subcommand.

Scripts and CI jobs branch on these, so they are part of the interface: 0 means every input was
answered positively, 1 means some input has no witness (or some witness does not hold), 2 means
something was wrong with the invocation or an input, which outranks a negative answer.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ltlwit.pipeline.answers import Answer


class ExitStatus(IntEnum):
    SUCCESS = 0
    #: Some input is unsat or unknown (solve), or some witness does not hold (verify).
    NEGATIVE = 1
    #: A bad option, an unreadable file, a line that does not parse, an internal error.
    ERROR = 2
    #: Ctrl-C: 128 + SIGINT, as shells report it.
    INTERRUPTED = 130
    #: The reader of stdout went away (`| head -1`): 128 + SIGPIPE, as shells report it.
    BROKEN_PIPE = 141
    #: SIGTERM ended a `--jobs` run: 128 + SIGTERM, as shells report it.
    TERMINATED = 143


def worst(current: ExitStatus, new: ExitStatus) -> ExitStatus:
    """Combine per-input statuses of one run: an error beats a negative answer beats success."""
    return max(current, new)


def exit_status(answer: Answer) -> ExitStatus:
    """An answer's part of the exit status: SUCCESS for its command's positive status (sat,
    holds, pass, ok), ERROR for an error, NEGATIVE for anything else."""
    if answer.positive:
        return ExitStatus.SUCCESS
    return ExitStatus.ERROR if answer.status == "error" else ExitStatus.NEGATIVE
