"""bench/fuzz.py: the same inputs for the same seed, its classes on runs made by hand, its count
of answers against ltlwit's own reader, its minimiser, its watchdog; and a seeded run of 3,000
inputs of every kind against this checkout, which must find no traceback, internal error, hang,
bad exit status or lost answer (slow answers are left to `python bench/fuzz.py`: timing)."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest
from cli_support import run

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name: str):
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # (its dataclasses look their module up there)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


fuzz = _load("fuzz")
fc, fr, fm = fuzz.fc, sys.modules["fuzz_run"], sys.modules["fuzz_minimise"]

#: The seeded run: the batched kinds (a process per 400 lines, per 150 API calls) carry it; a
#: few dozen processes of each other kind.
SEEDED = [
    "--seed",
    "1",
    "--count",
    "3000",
    "--repeat",
    "500",
    "--api-batch",
    "150",
    "--no-signals",
    "--hang-after",
    "60",
]
SEEDED_MIX = "lines=2400,api=558,cli=16,spec=12,log=10,fret=4"


def _cases(args, seed: int) -> list:
    plan = fuzz.plan(args.count, fuzz.parse_mix(args.mix), args.batch, args.api_batch)
    return [fuzz.make_case(seed, i, kind, n, args) for i, (kind, n) in enumerate(plan)]


def test_the_same_seed_and_count_give_the_same_inputs():
    args = fuzz.parser().parse_args(["--count", "1000", "--batch", "100", "--api-batch", "50"])
    first = _cases(args, 5)
    assert first == _cases(args, 5)
    assert first != _cases(args, 6)
    assert sum(c.inputs for c in first) == 1000
    assert {c.kind for c in first} == set(fuzz.KINDS)


def _case(body: bytes, *options: str, command: str = "solve") -> object:
    groups = [[command], ["--timeout", "2"], *[[o] for o in options], ["-F", "{batch.txt}"]]
    return fc.Case(0, "lines", groups, {"batch.txt": body}, 1, 2.0, frozenset({0, 1}))


def _run(stdout: bytes, rc: int = 0, stderr: bytes = b"", times=None, wall=None, **kw) -> object:
    lines = stdout.splitlines(keepends=True)
    times = times or [0.5 + i * 0.01 for i in range(len(lines))]
    return fr.Run(rc, stdout, stderr, list(zip(times, lines)), wall or (times[-1] if times else 0.5) + 0.1, **kw)


SETTINGS = fr.Settings(["ltlwit"], {}, ["python"], hang_after=30.0, slow_margin=1.0)


def test_runs_are_classified_by_their_most_severe_class():
    batch = _case(b"a\n\n# comment\nb\xff\nc\n")  # three inputs: the blank and comment lines get none
    assert fr.classify(batch, _run(b"a\nERROR\nc\n", 2), SETTINGS).cls == "clean error"
    assert fr.classify(batch, _run(b"a\nERROR\nc\n", 1), SETTINGS).cls == "answered"
    lost = fr.classify(batch, _run(b"a\nc\n", 2), SETTINGS)
    assert lost.cls == "lost answers" and "2 answers printed for 3 inputs" in lost.detail
    late = fr.classify(batch, _run(b"a\nERROR\nc\n", times=[0.4, 3.6, 3.7]), SETTINGS)
    assert late.cls == "slow" and late.hint == [3]  # the second answer is line 4's
    assert fr.classify(batch, _run(b"a\n", killed=True, rc=-9), SETTINGS).cls == "hang"
    assert fr.classify(batch, _run(b"a\nERROR\nc\n", 3), SETTINGS).cls == "bad exit status"
    assert fr.classify(batch, _run(b"", -15, signalled="TERM"), SETTINGS).cls == "answered"
    internal = b"ltlwit: batch.txt:4: internal error (please report it): KeyError: 'x'\n"
    verdict = fr.classify(batch, _run(b"a\nERROR\nc\n", 2, internal), SETTINGS)
    assert verdict.cls == "internal error" and verdict.flags["internal error"] == "solve: KeyError: '…'"
    assert verdict.hint == [3]
    trace = b'Traceback (most recent call last):\n  File "/x/ltlwit/cli/group.py", line 3, in main\nKeyboardInterrupt\n'
    verdict = fr.classify(batch, _run(b"a\n", 2, trace), SETTINGS)
    assert verdict.flags["traceback"] == "solve: KeyboardInterrupt at cli/group.py:main"


def test_check_answers_are_counted_against_its_summary():
    case = fc.Case(0, "spec", [["check"], ["--timeout", "2"], ["{s.spec}"]], {"s.spec": b"a\n"}, 1, 2.0)
    whole = b"PASS (all 2 specs of s.spec together): jointly satisfiable\nPASS a (s.spec:1): sat\nERROR s.spec:2: x\n"
    assert fr.classify(case, _run(whole + b"2 specs: 1 passed, 0 failed, 0 unknown, 1 error\n", 2), SETTINGS).cls == (
        "clean error"
    )
    assert fr.classify(case, _run(whole + b"3 specs: 1 passed, 0 failed, 0 unknown, 1 error\n", 2), SETTINGS).cls == (
        "lost answers"
    )


def test_the_count_of_inputs_is_ltlwits_own(tmp_path):
    """The fuzzer's model of the line reader (blank lines, comments, a byte-order mark, invalid
    UTF-8, bare CR, NUL) against what `ltlwit fmt` prints: one line per input."""
    for body in (
        b"\xef\xbb\xbfa\n\n  # note\nb\xffc\n\x0b\nX a\rb\n\x1c\nd",
        b"a\r\nb\r\n\r\n" + b"c\n" * 5000 + b"d\0e\nf\n",  # a NUL past the first 8 KiB ends the file
        b"a\n\0b\n",
    ):
        path = tmp_path / "in.txt"
        path.write_bytes(body)
        printed = run("fmt", "-F", str(path)).stdout.count("\n")
        assert printed == sum(fr.reader_items(body)), body
        assert len(fr.answering_lines(body)) == printed


def test_the_minimiser_keeps_the_one_line_and_the_bytes_that_fail():
    lines = [b"a & b"] * 200 + [b"x + " * 300 + b"(BOOM + x) > 0"] + [b"c"] * 199
    case = _case(b"\n".join(lines) + b"\n", "--finite")
    runs = Counter()

    def still(c) -> bool:
        runs["n"] += 1
        return b"BOOM" in c.files.get("batch.txt", b"") and ["-F", "{batch.txt}"] in c.groups

    small = fm.minimise(case, still, seconds=60)
    assert small.files == {"batch.txt": b"BOOM"}
    assert small.groups == [["solve"], ["--timeout", "2"], ["-F", "{batch.txt}"]]  # --finite dropped, --timeout kept
    assert runs["n"] < 400


def test_a_repeated_piece_is_cut_to_the_fewest_repetitions_that_keep_the_finding():
    data = b"G(" + b"x + " * 5000 + b"x > 0)"
    budget = fm.Budget(60)
    assert fm.shrink_runs(data, lambda d: d.count(b"x + ") >= 37, budget) == b"G(" + b"x + " * 37 + b"x > 0)"


def test_a_process_that_stops_answering_is_killed_and_its_lines_are_timed(tmp_path):
    script = "import sys, time\nprint('first', flush=True)\ntime.sleep(60)\n"
    ran = fr.execute([sys.executable, "-c", script], str(tmp_path), {}, None, stall=1.0, sig=None)
    assert ran.killed and [line for _, line in ran.lines] == [b"first\n"]
    assert ran.lines[0][0] < ran.wall


@pytest.mark.slow
def test_a_seeded_run_of_every_kind_finds_nothing_wrong():
    """3,000 inputs (seed 1): formula lines in batches of 400, 558 API calls, and spec files,
    FRET exports, logs and option combinations, each in a process of its own (tens of seconds on
    this 2-core machine, hence slow: CI runs it). A finding's message gives the command that
    prints its case's reproducer."""
    args = fuzz.parser().parse_args([*SEEDED, "--mix", SEEDED_MIX])
    settings = fr.settings(sys.executable, fuzz.ROOT, None, args.max_memory, args.hang_after, args.slow_margin)
    findings, stats = fuzz.campaign(args, settings, log=lambda message: None)
    assert sum(stats["inputs"].values()) == 3000 and set(stats["inputs"]) == set(fuzz.KINDS)
    wrong = [f for f in findings if f.cls != "slow"]
    show = f"python bench/fuzz.py {' '.join(SEEDED)} --mix {SEEDED_MIX} --show"
    if wrong:
        pytest.fail("\n".join(f"{f.cls}: {f.signature} x{f.occurrences}: {show} {f.case.index}" for f in wrong))
