"""Acknowledged findings kept apart from the spec files: a baseline (`check --baseline FILE`,
written by `--write-baseline FILE`, as linters keep theirs), so that a CI gate fails only on new
findings. JSON Lines, one acknowledged finding a line:

    {"file": "specs/arbiter.spec", "spec": "response", "finding": "vacuous grant:1"}

`spec` is the spec's name, or its formula where it has none; `finding` is written as in a spec
file's `# acknowledged:` comment (`specs.files.acknowledgment`). An entry whose file is checked
but holds no such spec is an error at its line; entries for files not checked are kept for
their runs."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from ltlwit.specs.files import Spec, acknowledges, acknowledgment

if TYPE_CHECKING:
    from ltlwit.specs.run import SpecResult


@dataclass(frozen=True)
class Entry:
    """One acknowledged finding of a baseline, and where it is written."""

    file: str
    spec: str
    finding: str
    source: str
    line: int

    def of(self, spec: Spec) -> bool:
        return same_file(self.file, spec.file) and self.spec == spec_id(spec)


def spec_id(spec: Spec) -> str:
    return spec.name or spec.formula


def read_baseline(path: str) -> list[Entry]:
    """The entries of a baseline file; ValueError naming `path:line` for an unreadable one."""
    try:
        with open(path, encoding="utf-8") as stream:
            lines = stream.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the baseline: {getattr(exc, 'strerror', None) or exc}") from None
    entries = []
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
            if (
                not isinstance(raw, dict)
                or set(raw) != {"file", "spec", "finding"}
                or not all(isinstance(v, str) for v in raw.values())
            ):
                raise ValueError('expected {"file": ..., "spec": ..., "finding": ...}')
            entries.append(Entry(raw["file"], raw["spec"], acknowledgment(raw["finding"]), path, number))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
    return entries


def write_baseline(path: str, results: Iterable[SpecResult]) -> int:
    """Every finding of `results` that its spec file does not acknowledge, as a baseline;
    how many."""
    rows = []
    for r in results:
        for key in r.finding_keys:
            if not any(acknowledges(a, key) for a in r.spec.acknowledged):
                rows.append({"file": r.spec.file, "spec": spec_id(r.spec), "finding": key})
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return len(rows)


def same_file(a: str, b: str) -> bool:
    return os.path.normpath(a) == os.path.normpath(b)
