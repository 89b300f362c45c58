"""Data files as streams of samples, without torch: DeepLTL two-line files and JSON Lines grids.

Two-line files (`formula` line, then `label` line; `.gz` transparently) are what `data
generate` writes and `train` reads. This module streams them for training, `data stats`,
`eval` and the generator's resume (which must also survive a file cut short by a killed run);
it imports only the standard library, so the training loop may use it on a bare GPU image.

Appending to a `.gz` file adds a gzip member per write; concatenated members are one valid
gzip stream, so every completed append leaves a readable file.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence


@dataclass(frozen=True)
class RawSample:
    """One sample as text: `formula_syntax`/`label_syntax` say how to parse it."""

    formula: str
    label: str | None
    line: int  # 1-based line of the formula in the file
    formula_syntax: str = "polish"
    label_syntax: str = "polish"


#: What each task's model is trained for, as messages say it.
TASK_FORMULAS = {"ltl": "LTL formulas", "prop": "propositional formulas"}


def other_task(raw: RawSample, task: str) -> str | None:
    """What a sample that does not parse as `task` is when it parses as the other task (an LTL
    set given to a propositional model shows up first as a label's syntax error); None when it
    is just broken."""
    from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace

    try:
        formula = parse_formula(raw.formula, raw.formula_syntax)
        if raw.label is not None:
            (parse_assignment if task == "ltl" else parse_trace)(raw.label, raw.label_syntax)
        elif task == "ltl" or not formula.temporal:
            return None
    except ValueError:
        return None
    return (
        "a propositional sample (its label is an assignment)"
        if task == "ltl"
        else "an LTL sample (its label is a trace)"
    )


def _opener(path: str | os.PathLike):
    return gzip.open if str(path).endswith(".gz") else open


def is_jsonl(path: str | os.PathLike) -> bool:
    name = str(path)
    return name.endswith(".jsonl") or name.endswith(".jsonl.gz")


def iter_pairs(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """(formula, label) of a two-line file in order; ValueError on a trailing odd line."""
    with _opener(path)(path, "rt", encoding="utf-8") as fh:
        pending: str | None = None
        line = 0
        for line, text in enumerate(fh, 1):  # noqa: B007 - the last line number is said after the loop
            text = text.strip()
            if pending is None:
                if text:
                    pending = text
                continue
            yield pending, text
            pending = None
        if pending is not None:
            raise ValueError(f"{path}:{line}: formula without a label line (odd number of lines)")


def read_samples(path: str | os.PathLike) -> Iterator[RawSample]:
    """Samples of a two-line file or of a JSON Lines grid (`formula` in Polish, `witness` in
    Spot's word syntax or null, as `ltl-grid-val.jsonl`); rows with `"sat": false` are skipped
    (there is nothing to predict)."""
    if is_jsonl(path):
        with _opener(path)(path, "rt", encoding="utf-8") as fh:
            for line, text in enumerate(fh, 1):
                if not text.strip():
                    continue
                try:
                    row = json.loads(text)
                    formula = row["formula"]
                except (ValueError, KeyError, TypeError):
                    raise ValueError(f"{path}:{line}: expected a JSON object with a 'formula' field") from None
                if row.get("sat") is False:
                    continue
                label = row.get("witness") or row.get("assignment") or None
                yield RawSample(formula, label, line, "polish", "spot")
        return
    for i, (formula, label) in enumerate(iter_pairs(path)):
        yield RawSample(formula, label, 2 * i + 1)


def recover_pairs(path: str | os.PathLike) -> list[tuple[str, str]]:
    """The complete pairs of a file a killed writer may have cut short; a damaged tail (partial
    line, odd line, truncated gzip member) is dropped and the file rewritten without it, so
    appending can go on. A missing file has no pairs."""
    path = Path(path)
    if not path.exists():
        return []
    lines: list[str] = []
    damaged = False
    try:
        with _opener(path)(path, "rt", encoding="utf-8", newline="") as fh:
            for text in fh:
                if not text.endswith("\n"):
                    damaged = True
                    break
                lines.append(text.strip())
    except (EOFError, OSError, zlib.error, UnicodeDecodeError):
        damaged = True
    while lines and not lines[-1]:
        lines.pop()
    if any(not t for t in lines):
        raise ValueError(f"{path}: blank line inside the data; not a file written by `data generate`")
    if len(lines) % 2:
        damaged = True
        lines.pop()
    pairs = list(zip(lines[0::2], lines[1::2]))
    if damaged:
        write_pairs(path, pairs)
    return pairs


def _encode(pairs: Iterable[tuple[str, str]]) -> bytes:
    return "".join(f"{f}\n{label}\n" for f, label in pairs).encode("utf-8")


def append_pairs(path: str | os.PathLike, pairs: Sequence[tuple[str, str]]) -> None:
    """Append samples and flush them to disk (one gzip member per call for `.gz`)."""
    if not pairs:
        return
    data = _encode(pairs)
    if str(path).endswith(".gz"):
        data = gzip.compress(data, compresslevel=6, mtime=0)
    with open(path, "ab") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def write_pairs(path: str | os.PathLike, pairs: Iterable[tuple[str, str]]) -> None:
    """Replace the file atomically (write a sibling, then rename)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    data = _encode(pairs)
    tmp.write_bytes(gzip.compress(data, compresslevel=6, mtime=0) if path.name.endswith(".gz") else data)
    os.replace(tmp, path)
