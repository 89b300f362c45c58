"""The limits of `--timeout` and `--max-memory` before the engine has a `Limit`: a parse reads
the memory ceiling as it reads the deadline, gives up with the reason, and leaves what it built
to be freed after the answer; the reader refuses a line too big to parse under the ceiling;
the engine's linear passes over a big formula read their limit as they go. No big inputs and no
wall-clock assertions: the memory read is monkeypatched."""

from __future__ import annotations

import gc
import io
import json
import sys
import weakref

import pytest
from cli_support import run

from ltlwit.logic import budget, formula
from ltlwit.logic.budget import Limit, OutOfMemory, OutOfTime, deadline_scope, paced
from ltlwit.logic.ltl import Budget
from ltlwit.logic.syntax import parse_formula
from ltlwit.pipeline.inputs import PARSED_BYTES_PER_BYTE, InputItem, read_stream, refusal
from ltlwit.pipeline.parsing import InputParser

MiB = 1 << 20
TEXT = " & ".join(f"(F p{i} -> G(q{i} U !r{i}))" for i in range(3000))  # 100 KB, 100,000 tokens


@pytest.fixture
def resident(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process's resident memory as the limits read it: `resident[0]` bytes, read at every
    check (`MEMORY_EVERY` 0)."""
    held = [100 * MiB]
    monkeypatch.setattr(budget, "resident_bytes", lambda: held[0])
    monkeypatch.setattr(budget, "MEMORY_EVERY", 0.0)
    return held


@pytest.mark.parametrize("syntax", ["spot", "lbt", "auto"])
def test_a_parse_stops_at_the_memory_ceiling_with_its_reason(resident, syntax: str) -> None:
    text = TEXT if syntax != "lbt" else "& " * 2999 + " ".join(f"F p{i}" for i in range(3000))
    resident[0] = 2 * MiB
    with deadline_scope(None, memory=MiB):
        with pytest.raises(OutOfMemory, match=r"^memory limit of 1 MiB reached while parsing$"):
            parse_formula(text, syntax)
    resident[0] = MiB
    with deadline_scope(None, memory=MiB):  # at the ceiling, not over it
        assert parse_formula(text, syntax) is not None


def test_a_scope_without_a_ceiling_reads_no_ceiling(resident) -> None:
    resident[0] = 1 << 40
    with deadline_scope(None):
        assert parse_formula(TEXT, "spot") is not None


def test_the_parse_deadline_keeps_time_for_the_end_of_the_process(resident, monkeypatch) -> None:
    """A process of 4 GiB takes a second to end: a parse stops `END_SECONDS_PER_GIB` a GiB
    before its deadline, so that a one-formula command has ended by `--timeout`."""
    clock = [1000.0]
    monkeypatch.setattr(budget.time, "perf_counter", lambda: clock[0])
    resident[0] = 4 << 30
    limits = budget._ParseLimits(deadline=1001.5, memory=None)
    assert limits.reached() is None  # 1.5 s left, 1 s kept
    clock[0] = 1000.6
    assert isinstance(limits.reached(), OutOfTime)
    assert limits.reserve == pytest.approx(4 * budget.END_SECONDS_PER_GIB)


def test_the_engine_limit_keeps_time_for_what_the_solve_added_only(resident, monkeypatch) -> None:
    """Freeing and the process's end are reserved for the memory the solve added; what the
    process held before (a test run, an API caller's data) costs its budgets nothing."""
    clock = [1000.0]
    monkeypatch.setattr(budget.time, "perf_counter", lambda: clock[0])
    resident[0] = 4 << 30
    held = Limit(Budget(seconds=1.5, start=1000.0))  # 4 GiB before it, none added
    resident[0] = 0
    grows = Limit(Budget(seconds=1.5, start=1000.0))
    resident[0] = 4 << 30  # the second one's solve added 4 GiB
    clock[0] = 1000.6
    assert held.reached() is None
    assert isinstance(grows.reached(), OutOfTime)


def test_memory_is_read_ten_times_as_often_near_the_ceiling() -> None:
    assert budget._read_interval(0, None) == budget.MEMORY_EVERY
    assert budget._read_interval(700 * MiB, 1024 * MiB) == budget.MEMORY_EVERY
    assert budget._read_interval(800 * MiB, 1024 * MiB) == budget.MEMORY_EVERY / 10


def test_a_parse_given_up_is_freed_after_the_answer_and_the_next_input_parsed(resident) -> None:
    """The input parser raises the limit afresh (no traceback through the parse's frames) and
    keeps the parse's remains (`defer_free`) until the reader reads the next line."""
    parser = InputParser("auto")
    resident[0] = 2 * MiB
    with deadline_scope(None, memory=MiB):
        with pytest.raises(OutOfMemory) as caught:
            parser.parse(InputItem(TEXT, "f", 1))
    tb = caught.value.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert tb.tb_frame.f_code.co_name == "parse"  # raised there afresh, not from the parser's frames
    assert caught.value.__context__.__traceback__ is None
    assert len(budget._deferred) == 1
    remains = weakref.ref(_built_so_far(budget._deferred[0]))
    del caught, tb
    gc.collect()
    assert remains() is not None  # still held: the answer comes first
    resident[0] = MiB // 2
    items = list(read_stream(io.BufferedReader(io.BytesIO(b"a & b\n")), "f"))
    assert remains() is None and budget._deferred == []  # freed as the next line was read
    with deadline_scope(None, memory=MiB):
        assert str(parser.parse(items[0])) == "a & b"


def _built_so_far(traceback):
    """A formula that the stopped parse had built (an operand on its stack, not a name)."""
    while traceback is not None:
        for operand in traceback.tb_frame.f_locals.get("operands", []):
            if operand.op != "ap":
                return operand
        traceback = traceback.tb_next
    raise AssertionError("no operand built")


def test_the_reader_frees_nothing_at_the_end_of_the_input() -> None:
    """After the last line the process ends (`os._exit`): freeing gigabytes first would be
    seconds for nothing."""
    budget.defer_free(keep := object())
    assert list(read_stream(io.BufferedReader(io.BytesIO(b"")), "f")) == []
    assert budget._deferred == [keep]
    budget.free_deferred()
    assert budget._deferred == []


def test_the_time_limit_is_given_up_the_same_way(monkeypatch) -> None:
    parser = InputParser("spot")
    with deadline_scope(budget.time.perf_counter() - 1.0):
        with pytest.raises(OutOfTime, match="while parsing"):
            parser.parse(InputItem(TEXT, "f", 1))
    assert len(budget._deferred) == 1
    budget.free_deferred()


def test_a_line_too_big_to_parse_under_the_ceiling_is_refused_as_it_is_read() -> None:
    memory = MiB
    cap = memory // PARSED_BYTES_PER_BYTE
    data = b"a\n" + b"b & " * (cap // 4 + 1) + b"c\n" + b"d\n"
    got = list(read_stream(io.BufferedReader(io.BytesIO(data), buffer_size=4096), "f", memory=memory))
    assert [(i.text, i.line) for i in got] == [("a", 1), ("", 2), ("d", 3)]
    size = len(data.splitlines()[1])
    assert got[1].error == refusal(size, memory)
    assert got[1].error == (
        f"the formula's {size / 1e6:.0f} MB of text would need {size * PARSED_BYTES_PER_BYTE / (1 << 30):.1f} GiB "
        "or more parsed, over --max-memory 1 MiB; skipped"
    )
    assert refusal(cap, memory) is None and refusal(cap + 1, memory) is not None
    assert refusal(1 << 40, None) is None
    exact = list(read_stream(io.BufferedReader(io.BytesIO(b"x" * cap + b"\n")), "f", memory=memory))
    assert [(i.text, i.error) for i in exact] == [("x" * cap, None)]


def test_a_line_over_the_line_limit_says_so_rather(monkeypatch) -> None:
    monkeypatch.setenv("LTLWIT_MAX_LINE_MIB", "0.0625")
    data = b"y" * (1 << 17) + b"\nz\n"
    got = list(read_stream(io.BufferedReader(io.BytesIO(data)), "f", memory=MiB))
    assert got[0].error.startswith("line longer than 0.0625 MiB") and got[1].text == "z"


def test_the_reader_records_when_a_line_began() -> None:
    got = list(read_stream(io.BufferedReader(io.BytesIO(b"a\n\nb\n")), "f"))
    assert all(isinstance(i.began, float) for i in got)
    assert got[0].began <= got[1].began
    assert InputItem("a", "f", 1, began=1.0) == InputItem("a", "f", 1)  # not part of the item's value


def test_solve_refuses_a_line_too_big_for_max_memory_and_answers_the_others(tmp_path) -> None:
    path = tmp_path / "big.txt"
    big = b" & ".join(b"G(p%d -> F q%d)" % (i, i) for i in range(2000))  # 33 KB: 1.3 MB parsed at 40 a byte
    path.write_bytes(b"a\n" + big + b"\nb\n")
    result = run("solve", "--model", "none", "--max-memory", "1", "-F", str(path))
    assert result.exit_code == 2
    assert result.stdout == "a\nERROR\nb\n"
    lines = [line for line in result.stderr.splitlines() if line.startswith("ltlwit:")]
    assert lines == [
        f"ltlwit: {path}:2: the formula's 0 MB of text would need 0.0 GiB or more parsed, over --max-memory 1 MiB; "
        "skipped"
    ]


def test_paced_checks_every_so_often() -> None:
    calls = []
    assert list(paced(range(10), lambda: calls.append(1), every=4)) == list(range(10))
    assert len(calls) == 3  # before items 0, 4 and 8
    items = [1, 2]
    assert paced(items, None) is items


def test_the_steps_passes_over_conjuncts_read_the_limit() -> None:
    """`step`'s passes over a big formula's conjuncts and obligations (memo reads, half a second
    on a multi-MB specification) read the limit: a spent one stops the first of them."""
    from ltlwit.logic.ltl.encoding.rewrite import simplify
    from ltlwit.logic.ltl.encoding.xnf import Xnf, step

    f = simplify(parse_formula(" & ".join(f"G(p{i} -> F q{i})" for i in range(50))))
    template = Xnf()
    template.encode_closure(f)
    calls = []

    class Spent(Limit):
        def check_time(self) -> None:
            calls.append(1)
            raise OutOfMemory("memory limit of 1 MiB reached")

    with pytest.raises(OutOfMemory):
        step(f, template, limit=Spent(None))
    assert calls == [1]


def test_objects_built_in_bulk_are_frozen_out_of_the_collectors_sight(monkeypatch) -> None:
    """A paused collector's next run would walk every object built meanwhile (seconds after a
    multi-megabyte parse): past `FREEZE_AFTER` they are frozen instead."""
    monkeypatch.setattr(formula, "FREEZE_AFTER", 1000)
    gc.collect()
    before = gc.get_freeze_count()
    try:
        with formula.collector_paused():
            built = [[i] for i in range(5000)]
        frozen = gc.get_freeze_count()
        assert frozen >= before + 5000
        with formula.collector_paused():
            few = [[i] for i in range(10)]
        assert gc.get_freeze_count() == frozen and few  # a small block freezes nothing
    finally:
        gc.unfreeze()
    del built


def test_solve_answers_unknown_when_parsing_reaches_the_ceiling_and_goes_on(resident, monkeypatch) -> None:
    """With the memory over the ceiling while an input is parsed (and only then), that input
    is UNKNOWN with the reason, and the next one is answered."""
    from ltlwit.api import Solver

    parse = InputParser.parse

    def heavy(self, item, polish_hint=False):
        resident[0] = (2 if len(item.text) > 1000 else 0) * MiB
        return parse(self, item, polish_hint)

    monkeypatch.setattr(InputParser, "parse", heavy)
    resident[0] = 0
    answers = list(Solver(model="none", max_memory=1).solve_many([TEXT, "a U b"]))
    assert [(a.status, a.message) for a in answers] == [
        ("unknown", "memory limit of 1 MiB reached while parsing"),
        ("sat", None),
    ]


def test_the_clock_starts_at_the_lines_first_byte() -> None:
    """A line whose reading began long ago (a slow producer, a huge line) has spent that time
    of its --timeout already: it is answered UNKNOWN, its time counted from its first byte;
    the same line read now is answered."""
    import time

    from ltlwit.pipeline.options import SolveOptions
    from ltlwit.pipeline.run import Pipeline

    pipeline = Pipeline(SolveOptions(model="none", timeout=5.0))
    late = InputItem("G(a -> F b) & G F c", "-", 1, began=time.perf_counter() - 10.0)
    fresh = InputItem("G(a -> F b) & G F c & G !d", "-", 2, began=time.perf_counter())
    first, second = pipeline.run([late, fresh])
    assert first.status == "unknown" and "time budget exhausted" in first.message
    assert first.time_ms >= 10_000
    assert second.status == "sat" and second.time_ms < 5_000


@pytest.mark.parametrize("command", ["check", "solve"])
def test_a_spec_files_parse_reads_the_limits_and_the_other_specs_are_answered(monkeypatch, tmp_path, command) -> None:
    """A spec file's formulas are parsed under --max-memory (and --timeout) as formula lines are,
    by `check` and by `solve -F`: the big spec answers UNKNOWN with the reason, and the file's
    other specs are answered (a malformed one: its parse error at its line; a small one: sat).
    The memory read says 2 MiB while a text of 100 KB is being parsed, 0.5 MiB otherwise."""

    def resident() -> int:
        frame = sys._getframe(1)
        while frame is not None:
            text = frame.f_locals.get("text")
            if isinstance(text, str) and len(text) > 10_000:
                return 2 * MiB
            frame = frame.f_back
        return MiB // 2

    monkeypatch.setattr(budget, "resident_bytes", resident)
    monkeypatch.setattr(budget, "MEMORY_EVERY", 0.0)
    path = tmp_path / "big.spec"
    path.write_text(f"big: {TEXT}\nbroken: G (a &\nsmall: G(a -> F b)\n")
    args = ["--format", "json", "--max-memory", "1"]
    if command == "check":
        result = run("check", *args, str(path))
    else:
        result = run("solve", "--model", "none", *args, "-F", str(path))
    big, broken, small = [json.loads(line) for line in result.stdout.splitlines()]
    assert big["status"] == "unknown", big
    assert "memory limit of 1 MiB reached while parsing" in json.dumps(big)
    assert broken["status"] == "error" and broken["line"] == 2, broken
    assert small["status"] in ("pass", "sat"), small
    assert result.exit_code == 2


def test_weak_nexts_are_rewritten_within_the_deadline() -> None:
    """Under infinite semantics every node above a weak next is rebuilt (`finite.strong`): in
    15,660 stacked `O[<=3]` over `wX p`, 94,000 nodes, 1.5 s outside any deadline (the fuzzer's
    2.7 s under --timeout 2). The rewrite reads the solve's deadline; a formula without a weak
    next is not rebuilt at all."""
    from ltlwit.logic import ltl
    from ltlwit.logic.ltl.finite import strong

    deep = parse_formula("O[<=3] " * 2000 + "wX p")
    result = ltl.solve(deep, Budget(seconds=0))
    assert result.reason == "time budget exhausted while rewriting weak nexts"
    plain = parse_formula("O[<=3] " * 2000 + "X p")
    assert strong(plain) is plain and strong(parse_formula("G(a & wX b)")) is parse_formula("G(a & X b)")
