"""Rendering answers: data on stdout (one line per input, flushed at once so pipelines stream),
messages on stderr (`ltlwit: FILE:LINE: ...`, with Spot's caret rendering for parse errors).

Formats: `text` — the witness in Spot syntax, `UNSAT`, `UNKNOWN` (solve), `HOLDS`, `FAILS`,
`UNKNOWN` (verify); `json` — JSON Lines with a fixed set of keys (absent values are null), so
`jq` filters never meet a missing key. A printer is chosen per command and format; new formats
(a table on a terminal, CSV) are new printer classes.
"""

from __future__ import annotations

import json
from typing import TextIO

import click

from ltlwit.convert import Converted
from ltlwit.env import Environment, OutputClosed
from ltlwit.logic.assignment import Assignment
from ltlwit.solve import Answer, Outcome
from ltlwit.verify import Verdict

FORMATS = ("text", "json")


class Printer:
    def __init__(self, env: Environment) -> None:
        self.env = env

    def _write(self, stream: TextIO, text: str) -> None:
        try:
            stream.write(text + "\n")
            stream.flush()
        except BrokenPipeError as exc:
            raise OutputClosed() from exc

    def data(self, line: str) -> None:
        self._write(self.env.stdout, line)

    def message(self, where: str, text: str, details: str | None = None) -> None:
        """`ltlwit: WHERE: TEXT` on stderr, then optional multi-line details as they are."""
        prefix = f"ltlwit: {where}: " if where else "ltlwit: "
        if self.env.stderr_colors:
            prefix = click.style(prefix, bold=True)
        self._write(self.env.stderr, prefix + text + (f"\n{details}" if details else ""))

    def problem(self, answer: Answer) -> None:
        """Report an "error" answer on stderr; parse errors get the caret rendering."""
        if answer.parse_error is not None:
            render = getattr(answer.parse_error, "render", None)
            if render is not None:
                self.message(answer.item.where, f"{answer.message}:", render())
                return
        self.message(answer.item.where, answer.error_text or "error")

    def _status_word(self, word: str, color: str) -> str:
        return click.style(word, fg=color, bold=True) if self.env.stdout_colors else word


class SolveText(Printer):
    def emit(self, outcome: Outcome) -> None:
        if outcome.status == "sat":
            self.data(witness_text(outcome))
        elif outcome.status == "unsat":
            self.data(self._status_word("UNSAT", "red"))
        elif outcome.status == "unknown":
            self.data(self._status_word("UNKNOWN", "yellow"))
            if outcome.message:
                self.message(outcome.item.where, f"unknown: {outcome.message}")
        else:
            self.problem(outcome)


class SolveJson(Printer):
    def emit(self, outcome: Outcome) -> None:
        witness = outcome.witness
        record = {
            "input": outcome.item.text,
            "file": outcome.item.file,
            "line": outcome.item.line or None,
            "logic": outcome.logic,
            "status": outcome.status,
            "witness": witness_text(outcome) if witness is not None else None,
            "assignment": witness.as_dict() if isinstance(witness, Assignment) else None,
            "source": outcome.source,
            "time_ms": outcome.time_ms,
            "reason": outcome.message if outcome.status == "unknown" else None,
            "error": outcome.error_text,
        }
        self.data(json.dumps(record, ensure_ascii=False))
        if outcome.status == "error":
            self.problem(outcome)


class VerifyText(Printer):
    WORDS = {"holds": ("HOLDS", "green"), "fails": ("FAILS", "red"), "unknown": ("UNKNOWN", "yellow")}

    def emit(self, verdict: Verdict) -> None:
        if verdict.status == "error":
            self.problem(verdict)
            return
        self.data(self._status_word(*self.WORDS[verdict.status]))
        if verdict.status == "unknown" and verdict.message:
            self.message(verdict.item.where, f"unknown: {verdict.message}")


class VerifyJson(Printer):
    def emit(self, verdict: Verdict) -> None:
        record = {
            "formula": verdict.formula,
            "witness": verdict.witness,
            "holds": verdict.holds,
            "status": verdict.status,
            "logic": verdict.logic,
            "file": verdict.item.file,
            "line": verdict.item.line or None,
            "time_ms": verdict.time_ms,
            "reason": verdict.message if verdict.status == "unknown" else None,
            "error": verdict.error_text,
        }
        self.data(json.dumps(record, ensure_ascii=False))
        if verdict.status == "error":
            self.problem(verdict)


def witness_text(outcome: Outcome) -> str:
    """The witness in Spot syntax: a cube for an assignment (`1` when empty), a lasso word."""
    return outcome.witness.to_str("spot") if outcome.witness is not None else ""


def solve_printer(fmt: str, env: Environment) -> SolveText | SolveJson:
    return SolveJson(env) if fmt == "json" else SolveText(env)


def verify_printer(fmt: str, env: Environment) -> VerifyText | VerifyJson:
    return VerifyJson(env) if fmt == "json" else VerifyText(env)


class FmtText(Printer):
    def emit(self, converted: Converted) -> None:
        if converted.status == "ok":
            self.data(converted.text or "")
        else:
            self.problem(converted)
