"""Witnesses as waveforms: `solve --format vcd` read back by an independent VCD parser
(vcdvcd) to the witness's values at every instant, lassos unrolled with the loop marked."""

from __future__ import annotations

import signal
from fractions import Fraction

import pytest
from cli_support import run

from ltlwit.logic.syntax import parse_trace
from ltlwit.logic.waveform import instants, svg, values, vcd

_SIGPIPE = signal.getsignal(signal.SIGPIPE)
vcdvcd = pytest.importorskip("vcdvcd")
# vcdvcd, a command-line tool too, makes SIGPIPE kill the process on import: the rest of the
# test session (a pool writing to a worker it just lost) must keep Python's own handling
signal.signal(signal.SIGPIPE, _SIGPIPE)


def _read(text: str, tmp_path) -> dict[str, list[tuple[int, str]]]:
    path = tmp_path / "w.vcd"
    path.write_text(text)
    parsed = vcdvcd.VCDVCD(str(path))
    return {name: parsed[name].tv for name in parsed.references_to_ids}


def test_vcd_gives_every_value_at_every_instant(tmp_path) -> None:
    trace = parse_trace("a & !b & x = 3; !a & x = -2; cycle{a & b & x = 5; !b & x = 7}")
    text = vcd([("w", trace)], passes=2)
    signals = _read(text, tmp_path)
    steps, starts = instants(trace, 2)
    assert len(steps) == 6

    def at(name: str, t: int) -> str:
        return [v for time, v in signals[name] if time <= t][-1]

    for t, step in enumerate(steps):
        want = values(step)
        for name in ("a", "b"):  # free where the step leaves it free
            assert at(f"w.{name}", t) == ("x" if name not in want else "1" if want[name] else "0")
        assert int(at("w.x[63:0]", t) if "w.x[63:0]" in signals else at("w.x", t), 2) % (1 << 64) == want["x"] % (
            1 << 64
        )
        assert at("w.loop", t) == ("1" if starts[t] else "0")
    assert [t for t, s in enumerate(starts) if s] == [2, 4]


def test_solve_format_vcd_has_a_scope_per_witness(tmp_path) -> None:
    result = run("solve", "--model", "none", "--format", "vcd", "G(req -> X grant) & F req", "a & !a", "F a")
    assert result.exit_code == 1  # one UNSAT
    assert "$comment <arg 2>: UNSAT $end" in result.stdout
    signals = _read(result.stdout, tmp_path)
    assert {"_arg_1_.req", "_arg_1_.grant", "_arg_1_.loop", "_arg_3_.a"} <= set(signals)
    witness = parse_trace(run("solve", "--model", "none", "G(req -> X grant) & F req").stdout.strip())
    steps, _ = instants(witness)
    req = dict(signals["_arg_1_.req"])
    assert [req.get(t) for t in range(len(steps)) if t in req][0] == (
        "1" if values(steps[0]).get("req") else "0" if "req" in values(steps[0]) else "x"
    )
    assert run("solve", "--format", "vcd", "--jobs", "2", "F a").exit_code == 2


def test_svg_timing_diagram_draws_each_signal_and_the_loop() -> None:
    picture = svg(parse_trace("a; cycle{!a & b & x = 1/2}"), passes=2)
    assert picture.startswith("<svg") and picture.endswith("</svg>")
    assert picture.count(">loop</text>") == 2 and ">a</text>" in picture and ">0.5</text>" in picture
    assert values(parse_trace("x = 1/2").prefix[0]) == {"x": Fraction(1, 2)}
