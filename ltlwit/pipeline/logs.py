"""Logs of states for runtime verification (`ltlwit verify --log`): a CSV file (a header of
variable names, one row per instant) or JSON Lines (one object per instant); rows as mappings
from names to their raw values, typed later against the formula's sorts
(`ltlwit.logic.theory.evaluate.state_trace`)."""

from __future__ import annotations

import csv
import io
import json


class LogError(ValueError):
    """A log that cannot be read: the file, a row that is no row (with its line)."""


def read_log(path: str) -> list[dict[str, object]]:
    """The log's rows, in order: JSON Lines when the file's first non-blank character is `{`
    (or its name ends in .jsonl/.ndjson), else CSV."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as stream:  # a spreadsheet's byte-order mark
            text = stream.read()
    except OSError as exc:
        raise LogError(f"{path}: cannot open: {exc.strerror or type(exc).__name__}") from None
    except UnicodeDecodeError:
        raise LogError(f"{path}: not UTF-8 text") from None
    if path.endswith((".jsonl", ".ndjson")) or text.lstrip().startswith("{"):
        return _json_lines(path, text)
    return _csv(path, text)


def _json_lines(path: str, text: str) -> list[dict[str, object]]:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise LogError(f"{path}:{number}: not JSON: {exc}") from None
        if not isinstance(row, dict):
            raise LogError(f"{path}:{number}: a state is a JSON object of variables' values")
        rows.append(row)
    return rows


def _csv(path: str, text: str) -> list[dict[str, object]]:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise LogError(f"{path}: a CSV log needs a header of variable names")
    names = [h.strip() for h in header]
    if len(set(names)) != len(names):
        raise LogError(f"{path}:1: a variable is named twice in the header")
    rows = []
    for number, row in enumerate(reader, 2):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) != len(names):
            raise LogError(f"{path}:{number}: {len(row)} values for {len(names)} columns")
        rows.append(dict(zip(names, row)))
    return rows
