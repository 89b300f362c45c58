"""`ltlwit realize`: verdicts with their strategies on stdout, exit statuses, TLSF files, and bad
input reported without losing the other specifications."""

from __future__ import annotations

from pathlib import Path

from cli_support import json_lines, run

ARBITER = "G(r1 -> F g1) & G(r2 -> F g2) & G!(g1 & g2)"
STARVING = "G(req -> F grant) & G(grant -> !req)"

TLSF = """INFO {
  TITLE:       "arbiter"
  SEMANTICS:   Mealy
  TARGET:      Mealy
}
MAIN {
  INPUTS { r1; r2; }
  OUTPUTS { g1; g2; }
  GUARANTEES {
    G (r1 -> F g1);
    G (r2 -> F g2);
    G !(g1 && g2);
  }
}
"""


def test_text_verdicts_strategies_and_exit_status() -> None:
    result = run("realize", "--inputs", "r1,r2", ARBITER)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"REALIZABLE  {ARBITER}"
    assert lines[1].startswith("  controller (Mealy, ") and "reads r1, r2; writes g1, g2" in lines[1]
    assert any(line.strip().startswith("s0  on ") and "-> s" in line for line in lines)
    assert lines[-1].startswith("  play: ")
    result = run("realize", "--inputs", "req", STARVING)
    assert result.exit_code == 1
    assert result.stdout.startswith(f"UNREALIZABLE  {STARVING}\n  counter-strategy (Moore, ")


def test_json_and_moore() -> None:
    result = run("realize", "--inputs", "a", "--format", "json", "G(b <-> a)", "--moore")
    (row,) = json_lines(result.stdout)
    assert result.exit_code == 1
    assert row["status"] == "unrealizable" and row["kind"] == "moore" and row["verified"]
    assert row["semantics"] == "infinite"
    assert row["controller"] is None and row["counter_strategy"]["player"] == "environment"
    assert row["counter_strategy"]["kind"] == "mealy"  # the environment sees the outputs first
    result = run("realize", "--inputs", "a", "--format", "json", "G(b <-> a)")
    (row,) = json_lines(result.stdout)
    assert result.exit_code == 0 and row["status"] == "realizable" and row["inputs"] == ["a"]
    assert row["outputs"] == ["b"] and row["controller"]["writes"] == ["b"]


def test_dot() -> None:
    result = run("realize", "--inputs", "a", "--format", "dot", "G(a <-> X b)")
    assert result.stdout.startswith("digraph strategy {") and result.stdout.rstrip().endswith("}")
    assert " -> s" in result.stdout


def test_tlsf_file_and_bad_input_keeps_the_rest(tmp_path: Path) -> None:
    good = tmp_path / "arbiter.tlsf"
    good.write_text(TLSF)
    bad = tmp_path / "bad.tlsf"
    bad.write_text(TLSF.replace("G !(g1 && g2);", "G !(g1 && ;"))
    lines = tmp_path / "specs.txt"
    lines.write_text("# one per line\nG(a -> X b)\nG(a ->\n")
    result = run("realize", "-F", str(bad), "-F", str(good), "-F", str(lines), "--inputs", "a", "(")
    assert result.exit_code == 2
    verdicts = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert verdicts == ["REALIZABLE  arbiter.tlsf", "REALIZABLE  G(a -> X b)"]
    assert f"ltlwit: {bad}:12: parse error:" in result.stderr
    assert f"ltlwit: {lines}:3: parse error:" in result.stderr
    assert "ltlwit: <arg 1>: parse error:" in result.stderr


def test_names_and_timeouts() -> None:
    result = run("realize", "--inputs", "a", "--outputs", "b", "G(a -> c)")
    assert result.exit_code == 2 and "c is neither an input nor an output" in result.stderr
    result = run("realize", "--inputs", "r1,r2", "--timeout", "0.0001", ARBITER)
    assert result.exit_code == 1 and result.stdout.startswith("UNKNOWN  ")
    assert "reason: " in result.stdout
    result = run("realize")
    assert result.exit_code == 2 and "give a FORMULA or a FILE" in result.stderr


def test_names_no_requirement_mentions_are_warned_about(tmp_path: Path) -> None:
    """A named input or output that no requirement mentions (a misspelling, a requirement left
    out): a one-line warning each, the verdict as without it."""
    result = run("realize", "--inputs", "r1,r2,r3", "--outputs", "g1,g2,g9", ARBITER, "G(r1 -> F g1)")
    assert result.exit_code == 0 and result.stdout.count("REALIZABLE") == 2
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "ltlwit: warning: input r3 is named, but no requirement mentions it",
        "ltlwit: warning: output g9 is named, but no requirement mentions it",
    ]
    tlsf = tmp_path / "arb.tlsf"
    tlsf.write_text(TLSF.replace("INPUTS { r1; r2; }", "INPUTS { r1; r2; rr; }"))
    spec = tmp_path / "arb.spec"
    spec.write_text("input r1, r2, rx\nG(r1 -> F g1)\nG(r2 -> F g2)\nG!(g1 & g2)\n")
    result = run("realize", "-F", str(tlsf), "-F", str(spec))
    assert result.exit_code == 0, result.stderr
    assert f"ltlwit: {tlsf}: warning: input rr is named, but no requirement mentions it" in result.stderr
    assert f"ltlwit: {spec}: warning: input rx is named, but no requirement mentions it" in result.stderr
    assert run("realize", "-q", "--inputs", "r1,r2,r3", ARBITER).stderr == ""


def test_aiger_circuits_read_back_as_winning_controllers(tmp_path: Path) -> None:
    from ltlwit.logic.ltl.games import verify
    from ltlwit.logic.ltl.games.aiger import from_aiger
    from ltlwit.logic.syntax import parse_formula

    result = run("realize", "--inputs", "r1,r2", "--format", "aiger", ARBITER, STARVING.replace("req", "r1"))
    assert result.exit_code == 1
    text = result.stdout
    assert text.startswith("REALIZABLE\naag ") and text.rstrip().endswith("UNREALIZABLE")
    circuit = text[len("REALIZABLE\n") : text.rindex("UNREALIZABLE")]
    header = circuit.splitlines()[0].split()
    assert header[2] == "2" and header[4] == "2"  # two inputs, two outputs
    assert "i0 r1" in circuit and "o1 g2" in circuit
    machine = from_aiger(circuit)
    assert (machine.reads, machine.writes) == (("r1", "r2"), ("g1", "g2"))
    assert verify(parse_formula(ARBITER), machine) is True
    assert verify(parse_formula("G(r1 -> F g1) & G(r2 -> F g2) & G(g1 -> X g2)"), machine) is False
    result = run("realize", "--inputs", "a", "--finite", "--format", "aiger", "F(b & X b)")
    assert result.stdout.startswith("REALIZABLE\naag ") and "o1 alive" in result.stdout


def test_vcd_of_every_play_and_aiger_of_spec_file_components(tmp_path: Path) -> None:
    result = run("realize", "--inputs", "req", "--format", "vcd", "G(req -> F grant)", STARVING)
    vcd = result.stdout
    assert result.exit_code == 1 and vcd.startswith("$date ltlwit $end")
    assert vcd.count("$scope module ") == 2 and "$scope module unrealizable_" in vcd and "$enddefinitions $end" in vcd
    spec = tmp_path / "a.spec"
    spec.write_text("input r\nresp: G(r -> F g)\n")
    result = run("realize", "-F", str(spec), "--format", "aiger")
    assert result.exit_code == 0 and result.stdout.startswith("REALIZABLE cc0\naag ")
    assert "i0 r" in result.stdout and "o0 g" in result.stdout


def test_a_controller_too_large_to_list_is_shown_as_the_circuit_checked(monkeypatch) -> None:
    """Past the states a table lists, the GR(1) strategy is a circuit: one line in the table,
    the AIGER text itself under --format aiger and in the JSON, the graph under --format dot."""
    from ltlwit.logic.ltl import games
    from ltlwit.logic.ltl.games import gr1, verify
    from ltlwit.logic.ltl.games.aiger import from_aiger
    from ltlwit.logic.syntax import parse_formula

    monkeypatch.setattr(gr1, "MAX_TRANSITIONS", 2)
    monkeypatch.setattr(games, "COUNTING_FIRST", 0.0)
    spec = "(!r) -> ((!g) & ((r -> X g) W !(r -> X r)) & ((G(r -> X r) & G F(!r)) -> G F(g)))"
    result = run("realize", "--inputs", "r", spec)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].startswith("  controller (Mealy circuit: ")
    assert "--format aiger prints it" in result.stdout
    row = json_lines(run("realize", "--inputs", "r", "--format", "json", spec).stdout)[0]
    assert row["status"] == "realizable" and row["controller"]["aiger"].startswith("aag ")
    text = run("realize", "--inputs", "r", "--format", "aiger", spec).stdout
    assert text.startswith("REALIZABLE\naag ")
    machine = from_aiger(text[len("REALIZABLE\n") :])
    assert verify(parse_formula(spec), machine) is True
    assert run("realize", "--inputs", "r", "--format", "dot", spec).stdout.startswith("digraph circuit {")
