"""Streaming at scale and bad input of every kind, through the real command: one answer per
input line, in order, whatever else is wrong with the input (memory is measured in
bench/pipeline.py, not here)."""

from __future__ import annotations

import random

import pytest
from cli_support import run, run_process

FORMULAS = {"a": "a", "b & !c": "b & !c", "X d": "cycle{d}", "G F x & G !x": "UNSAT", "a U b": "cycle{b}"}


@pytest.mark.slow
def test_a_100000_line_file_gives_exactly_one_answer_per_line_in_order(tmp_path) -> None:
    rng = random.Random(0)
    lines = [rng.choice(sorted(FORMULAS)) for _ in range(100_000)]
    path = tmp_path / "big.txt"
    path.write_text("\n".join(lines) + "\n")
    proc = run_process("solve", "--model", "none", "-F", str(path), timeout=300)
    assert proc.returncode == 1 and proc.stderr == b""  # some UNSAT answers, nothing else to say
    out = proc.stdout.decode().splitlines()
    assert len(out) == 100_000
    assert out == [FORMULAS[f] for f in lines]


def test_every_kind_of_bad_input_is_reported_and_the_rest_answered(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LTLWIT_MAX_LINE_MIB", "0.5")
    long_line = tmp_path / "long.txt"
    long_line.write_bytes(b"F a\n" + b"a & " * (1 << 18) + b"b\nG b\n")  # a 1 MiB line between two good ones
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 64)
    latin = tmp_path / "latin1.txt"
    latin.write_bytes(b"\xe9\nX c\n")
    result = run(
        "solve",
        "--model",
        "none",
        "-F",
        str(long_line),
        "-F",
        str(junk),
        "-F",
        str(tmp_path),
        "-F",
        "/proc/self/mem",
        "-F",
        str(latin),
        "-F",
        str(tmp_path / "missing.txt"),
        "a U",
    )
    assert result.exit_code == 2
    # an ERROR line for each bad input, none for the files that hold no input at all
    assert result.stdout.splitlines() == ["ERROR", "cycle{a}", "ERROR", "cycle{b}", "ERROR", "ERROR", "cycle{c}"]
    messages = [line for line in result.stderr.splitlines() if line.startswith("ltlwit: ")]
    assert messages == [
        "ltlwit: <arg 1>: parse error:",
        f"ltlwit: {long_line}:2: line longer than 0.5 MiB; skipped (set LTLWIT_MAX_LINE_MIB to a larger "
        "number of MiB to read it)",
        f"ltlwit: {junk}: binary data (NUL bytes), not a formula file; skipped",
        f"ltlwit: {tmp_path}: cannot open: Is a directory",
        "ltlwit: /proc/self/mem:1: read error: Input/output error",
        f"ltlwit: {latin}:1: not UTF-8 text (byte 1 of the line)",
        f"ltlwit: {tmp_path / 'missing.txt'}: cannot open: No such file or directory",
    ]
