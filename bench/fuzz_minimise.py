"""Minimising bench/fuzz.py's findings: the smallest case found that still shows the class.

Passes, each keeping a change only when the finding is still there (`still`: the same class with
the same signature), on a case already cut to the input the run pointed at (bench/fuzz.py's
`focus`): the option groups, one at a time;
a repeated piece's count cut (`x + x + ... x` of 20,000 terms down to the fewest that still
time out), then delta debugging (Zeller's ddmin) over each file's lines, tokens and, what is left
being short, bytes; the same for formula arguments, stdin, and an API call's text and keywords.
Every test is a run, so each finding gets `seconds` at most and keeps the best case found.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Callable, Sequence, TypeVar

from fuzz_cases import Case
from fuzz_run import RUN

T = TypeVar("T")


class Budget:
    def __init__(self, seconds: float) -> None:
        self.ends = time.monotonic() + seconds

    @property
    def spent(self) -> bool:
        return time.monotonic() > self.ends


def ddmin(items: Sequence[T], test: Callable[[list[T]], bool], budget: Budget) -> list[T]:
    """A 1-minimal sublist of `items` for which `test` holds (it holds for `items`), or the
    smallest found before the budget ran out."""
    items = list(items)
    n = 2
    while len(items) >= 2 and not budget.spent:
        size = -(-len(items) // n)
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        for i, chunk in enumerate(chunks):
            if len(chunks) > 2 and test(chunk):
                items, n = chunk, 2
                break
            rest = [x for j, c in enumerate(chunks) if j != i for x in c]
            if test(rest):
                items, n = rest, max(n - 1, 2)
                break
            if budget.spent:
                return items
        else:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    return items


def shrink_runs(data: bytes, test: Callable[[bytes], bool], budget: Budget) -> bytes:
    """`data` with each long run of a repeated piece cut to the fewest repetitions (a binary
    search: more repetitions are assumed to keep the finding) that keep `test` true."""
    start = 0
    while not budget.spent:
        m = RUN.search(data, start)
        if m is None:
            return data
        piece, count = m.group(1), len(m.group(0)) // len(m.group(1))
        low, high = 1, count  # high keeps the finding
        while low < high and not budget.spent:
            mid = (low + high) // 2
            if test(data[: m.start()] + piece * mid + data[m.end() :]):
                high = mid
            else:
                low = mid + 1
        data = data[: m.start()] + piece * high + data[m.end() :]
        start = m.start() + len(piece) * high
    return data


#: Tokens for ddmin between lines and bytes: names and numbers, spaces, single symbols.
_TOKEN = re.compile(rb"\w+|\s+|[^\w\s]", re.S)


def shrink_bytes(data: bytes, test: Callable[[bytes], bool], budget: Budget) -> bytes:
    """Runs shrunk, then ddmin over lines, tokens and (what is left is short) bytes."""
    data = shrink_runs(data, test, budget)
    if b"\n" in data.rstrip(b"\n"):
        lines = data.split(b"\n")
        data = b"\n".join(ddmin(lines, lambda ls: test(b"\n".join(ls)), budget))
    if len(data) <= 1 << 16:
        data = b"".join(ddmin(_TOKEN.findall(data), lambda ts: test(b"".join(ts)), budget))
    if len(data) <= 512:
        data = bytes(ddmin(list(data), lambda bs: test(bytes(bs)), budget))
    return data


def minimise(case: Case, still: Callable[[Case], bool], seconds: float) -> Case:
    """The smallest case found within `seconds` for which `still` holds (it holds for `case`)."""
    budget = Budget(seconds)
    seen: dict[tuple, bool] = {}

    def test(candidate: Case) -> bool:
        key = (
            tuple(map(tuple, candidate.groups)),
            tuple(sorted(candidate.files.items())),
            candidate.stdin,
            repr(candidate.calls),
        )
        if key not in seen:
            seen[key] = not budget.spent and still(candidate)
        return seen[key]

    if case.kind == "api":
        return _minimise_api(case, test, budget)
    # option groups
    i = 0
    while i < len(case.groups) and not budget.spent:
        if i not in case.fixed:
            fewer = [g for j, g in enumerate(case.groups) if j != i]
            fixed = frozenset(j - (j > i) for j in case.fixed)
            candidate = replace(case, groups=fewer, fixed=fixed, files=_used_files(case.files, fewer))
            if test(candidate):
                case = candidate
                continue
        i += 1
    for name in sorted(case.files, key=lambda n: -len(case.files[n])):
        case = replace(
            case,
            files={
                **case.files,
                name: shrink_bytes(
                    case.files[name], lambda d: test(replace(case, files={**case.files, name: d})), budget
                ),
            },
        )
    if case.stdin:
        case = replace(case, stdin=shrink_bytes(case.stdin, lambda d: test(replace(case, stdin=d)), budget))
    for g, group in enumerate(case.groups):  # formula arguments
        if g in case.fixed or len(group) != 1 or group[0].startswith(("-", "{")):
            continue

        def with_arg(d: bytes, g: int = g) -> Case:
            groups = [list(x) for x in case.groups]
            groups[g] = [d.decode("utf-8", "surrogateescape")]
            return replace(case, groups=groups)

        data = shrink_bytes(
            group[0].encode("utf-8", "surrogateescape"), lambda d: bool(d) and test(with_arg(d)), budget
        )
        case = with_arg(data)
    return case


def _used_files(files: dict[str, bytes], groups: list[list[str]]) -> dict[str, bytes]:
    words = {w for g in groups for w in g}
    return {n: d for n, d in files.items() if "{" + n + "}" in words}


def _minimise_api(case: Case, test: Callable[[Case], bool], budget: Budget) -> Case:
    calls = ddmin(case.calls, lambda cs: test(replace(case, calls=cs)), budget)
    case = replace(case, calls=calls, inputs=len(calls))
    if len(calls) != 1:
        return case
    call = calls[0]
    for key in sorted(call.get("kwargs", {})):
        if key in ("timeout", "model"):
            continue
        kwargs = {k: v for k, v in call["kwargs"].items() if k != key}
        if test(replace(case, calls=[{**call, "kwargs": kwargs}])):
            call = {**call, "kwargs": kwargs}
    if call["args"] and isinstance(call["args"][0], str):

        def with_text(d: bytes) -> Case:
            return replace(case, calls=[{**call, "args": [d.decode("utf-8", "replace"), *call["args"][1:]]}])

        text = shrink_bytes(call["args"][0].encode(), lambda d: test(with_text(d)), budget)
        call = {**call, "args": [text.decode("utf-8", "replace"), *call["args"][1:]]}
    return replace(case, calls=[call])
