"""`realize --engine spot`: Spot's ltlsynt asked, its answer held to the engine's check. Spot
cannot be installed here, so `fake_ltlsynt.py` stands in for it (its command line, output and exit
status), answering with the games' own verdicts, or lying, hanging, failing, as FAKE_LTLSYNT says."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest
from cli_support import json_lines, run
from fake_ltlsynt import _scattered

import ltlwit
from ltlwit.logic.budget import OutOfBudget
from ltlwit.logic.ltl import games
from ltlwit.logic.ltl.games import Realizable, Unrealizable, gr1, verify
from ltlwit.logic.ltl.games import ltlsynt as backend
from ltlwit.logic.ltl.games.aiger import Circuit, from_aiger, renamed, to_aiger
from ltlwit.logic.ltl.games.machine import Machine
from ltlwit.logic.result import Unknown

ARBITER = "G(r1 -> F g1) & G(r2 -> F g2) & G!(g1 & g2)"
STARVING = "G(req -> F grant) & G(grant -> !req)"
HERE = Path(__file__).resolve().parent


@pytest.fixture
def ltlsynt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`ltlsynt` on PATH, the stand-in; returns the file its runs' arguments are logged in."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "ltlsynt"
    program.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(HERE)!r})\n"
        "import fake_ltlsynt\nsys.exit(fake_ltlsynt.main(sys.argv[1:]))\n"
    )
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    log = tmp_path / "runs.jsonl"
    monkeypatch.setenv("FAKE_LTLSYNT_LOG", str(log))
    return log


def _asked(log: Path) -> list[dict]:
    """Each run's arguments (`argv`) and the formula it was asked (`formula`)."""
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_a_controller_from_ltlsynt_is_checked_and_shown_under_the_names_written(ltlsynt: Path) -> None:
    formula = "G(Req_1 -> F grant) & G(other -> X grant)"
    verdict = ltlwit.realize(formula, ["Req_1", "other"], engine="spot")
    assert isinstance(verdict, Realizable)
    (run,) = _asked(ltlsynt)
    assert "--ins=i0,i1" in run["argv"] and "--outs=o0" in run["argv"] and "--aiger" in run["argv"]
    assert ltlwit.parse(run["formula"], "spot") == ltlwit.parse("G(i0 -> F o0) & G(i1 -> X o0)")  # slots, not names
    controller = verdict.controller
    assert isinstance(controller, Machine)
    assert controller.reads == ("Req_1", "other") and controller.writes == ("grant",)
    assert verify(ltlwit.parse(formula), controller) is True  # checked again, apart from the answer


def test_a_controller_only_the_product_proves_is_proved(ltlsynt: Path) -> None:
    """φ's GR(1) reading is stricter than φ: x = a until a first fails, then x false, satisfies φ
    (a broken assumption excuses the system from then on) but not the reading, where the move that
    breaks the assumption must still keep the system's step. Not a refutation: the product proves it."""
    formula = ltlwit.parse("G(a) -> (x & G(X x <-> a))")
    verdict = ltlwit.realize(formula, ["a"], engine="spot")
    assert isinstance(verdict, Realizable) and isinstance(verdict.controller, Machine)
    assert verify(formula, verdict.controller, method="gr1") is False  # the reading refuses it
    assert verify(formula, verdict.controller) is True


def test_moore_asks_for_the_inputs_one_instant_late(ltlsynt: Path) -> None:
    """Under Moore semantics ltlsynt is asked φ[i -> X i] (Mealy), and its controller, fed the
    inputs one instant late, is the Moore controller checked on φ."""
    verdict = ltlwit.realize("G(req -> X grant) & G(!req -> X !grant)", ["req"], moore=True, engine="spot")
    assert isinstance(verdict, Realizable) and isinstance(verdict.controller, Machine)
    assert verdict.controller.moore
    (run,) = _asked(ltlsynt)
    assert ltlwit.parse(run["formula"], "spot") == ltlwit.parse("G(X i0 -> X o0) & G(!X i0 -> X !o0)")
    verdict = ltlwit.realize("G(req <-> grant)", ["req"], moore=True, engine="spot")  # Mealy's, not Moore's
    assert isinstance(verdict, Unrealizable) and verify(ltlwit.parse("G(req <-> grant)"), verdict.counter_strategy)


def test_a_circuit_as_spot_writes_it_reads_back(ltlsynt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LTLSYNT", "shuffled")
    verdict = ltlwit.realize(ARBITER + " & G(r3 -> g3 | X g3)", ["r1", "r2", "r3"], engine="spot")
    assert isinstance(verdict, Realizable)
    assert verdict.controller.reads == ("r1", "r2", "r3") and verdict.controller.writes == ("g1", "g2", "g3")


def test_a_controller_that_fails_the_check_is_never_an_answer(ltlsynt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LTLSYNT", "liar")
    for formula, inputs in (("G(req -> grant)", ["req"]), (STARVING, ["req"])):
        verdict = ltlwit.realize(formula, inputs, engine="spot")
        assert isinstance(verdict, Unknown) and "refutes its controller" in verdict.reason


def test_unrealizable_needs_the_engines_counter_strategy(ltlsynt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    verdict = ltlwit.realize(STARVING, ["req"], engine="spot")
    assert isinstance(verdict, Unrealizable)
    assert verify(ltlwit.parse(STARVING), verdict.counter_strategy) is True
    monkeypatch.setenv("FAKE_LTLSYNT", "unreal")  # a wrong UNREALIZABLE: the games' controller stands
    verdict = ltlwit.realize("G(req -> F grant)", ["req"], engine="spot")
    assert isinstance(verdict, Realizable)
    # a claim the games do not settle stays a claim
    monkeypatch.setattr(games, "realize", lambda *args, **kwargs: Unknown("time budget exhausted"))
    verdict = backend.realize(ltlwit.parse(ARBITER), ("r1", "r2"), ("g1", "g2"), False, None, "infinite")
    assert verdict == Unknown(
        "ltlsynt answers UNREALIZABLE; the engine verified no counter-strategy: time budget exhausted"
    )


@pytest.mark.parametrize(
    ("mode", "said"), [("hang", "no answer within the budget"), ("error", "exit status 2: ltlsynt: syntax error")]
)
def test_no_answer_from_ltlsynt_is_unknown(
    ltlsynt: Path, monkeypatch: pytest.MonkeyPatch, mode: str, said: str
) -> None:
    monkeypatch.setenv("FAKE_LTLSYNT", mode)
    verdict = ltlwit.realize("G(req -> F grant)", ["req"], engine="spot", timeout=1)
    assert isinstance(verdict, Unknown) and said in verdict.reason


def test_an_ltlsynt_that_cannot_start_is_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = tmp_path / "ltlsynt"
    program.write_text("#!/nonexistent/interpreter\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    verdict = ltlwit.realize("G(req -> F grant)", ["req"], engine="spot")
    assert isinstance(verdict, Unknown) and verdict.reason.startswith("ltlsynt could not be run: ")


def test_ltlsynt_is_held_to_the_memory_ceiling(ltlsynt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LTLSYNT", "memory")
    verdict = ltlwit.realize("G(req -> F grant)", ["req"], engine="spot", max_memory=3000)
    assert isinstance(verdict, Unknown) and f"limited to {3000 << 20} bytes" in verdict.reason


@pytest.mark.parametrize(
    ("formula", "options", "said"),
    [
        ("G(grant -> O req)", {}, "past operators"),
        ("F(req & grant)", {"semantics": "finite"}, "finite semantics"),
    ],
)
def test_what_ltlsynt_does_not_read_is_not_sent(ltlsynt: Path, formula: str, options: dict, said: str) -> None:
    verdict = ltlwit.realize(formula, ["req"], engine="spot", **options)
    assert isinstance(verdict, Unknown) and said in verdict.reason and "--engine builtin" in verdict.reason
    assert not ltlsynt.exists()


def test_without_ltlsynt_the_engine_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ValueError, match="ltlsynt on PATH"):
        ltlwit.realize("G(req -> F grant)", ["req"], engine="spot")
    result = run("realize", "--engine", "spot", "--inputs", "req", "G(req -> F grant)")
    assert result.exit_code == 2 and "--engine spot needs Spot's ltlsynt on PATH" in result.stderr
    assert result.stdout == ""


def test_the_command_line(ltlsynt: Path, tmp_path: Path) -> None:
    spec = tmp_path / "arbiter.tlsf"
    spec.write_text(
        'INFO { TITLE: "a" SEMANTICS: Mealy TARGET: Mealy }\n'
        "MAIN { INPUTS { r1; r2; } OUTPUTS { g1; g2; } GUARANTEES { G (r1 -> F g1); G (r2 -> F g2); G !(g1 && g2); } }\n"
    )
    export = tmp_path / "reqs.json"
    export.write_text("[]")
    result = run("realize", "--engine", "spot", "--format", "aiger", "-F", str(spec), "-F", str(export))
    assert result.exit_code == 2  # the export is refused, the TLSF answered
    assert "reqs.json: --engine spot answers formulas and TLSF files" in result.stderr
    word, circuit = result.stdout.split("\n", 1)
    assert word == "REALIZABLE"
    assert verify(ltlwit.parse(ARBITER), from_aiger(circuit)) is True
    result = run("realize", "--engine", "spot", "--format", "json", "--inputs", "req", STARVING)
    (row,) = json_lines(result.stdout)
    assert result.exit_code == 1 and row["status"] == "unrealizable" and row["engine"] == "spot"
    assert row["verified"] and row["counter_strategy"]["player"] == "environment"


def test_a_circuit_too_wide_to_list_is_neither_listed_past_the_budget_nor_trusted(
    ltlsynt: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve outputs copying twelve inputs: 4,096 transitions in one state, past what is listed
    (`MAX_TRANSITIONS`), so the circuit is checked as a circuit (φ has GR(1) shape), and proved."""
    monkeypatch.setattr(gr1, "MAX_TRANSITIONS", 1_000)
    formula = " & ".join(f"G(a{k} <-> b{k})" for k in range(12))
    verdict = ltlwit.realize(formula, [f"a{k}" for k in range(12)], engine="spot")
    assert isinstance(verdict, Realizable) and isinstance(verdict.controller, Circuit)
    with pytest.raises(OutOfBudget, match="more than 1000 transitions"):
        from_aiger(verdict.controller.aiger, transitions=1_000)
    assert isinstance(from_aiger(verdict.controller.aiger, transitions=5_000), Machine)


def test_renamed_keeps_the_circuit_it_renames() -> None:
    """A circuit renamed into other orders computes what it did: the two run side by side."""
    verdict = ltlwit.realize(ARBITER, ["r1", "r2"], timeout=30)
    assert isinstance(verdict, Realizable) and isinstance(verdict.controller, Machine)
    machine = verdict.controller
    text = to_aiger(machine)
    names = {"r1": "x", "r2": "y", "g1": "u", "g2": "v"}
    ahead = Circuit(machine.reads, machine.writes, text)
    for written in (text, _scattered(text)):  # as this module writes it, and as Spot may
        back = Circuit(("y", "x"), ("v", "u"), renamed(written, ["y", "x"], ["v", "u"], names))
        rng = random.Random(7)
        state_a, state_b = (False,) * ahead.latches, (False,) * back.latches
        for _ in range(200):
            r1, r2 = rng.random() < 0.5, rng.random() < 0.5
            (g1, g2), state_a = ahead.step(state_a, (r1, r2))
            (v, u), state_b = back.step(state_b, (r2, r1))
            assert (g1, g2) == (u, v)
    kept = Circuit(("y", "x"), ("v", "u", "w"), renamed(text, ["y", "x"], ["v", "u", "w"], names))
    assert kept.step((False,) * kept.latches, (True, True))[0][2] is False  # an output it lacks: false
    for broken, said in (
        ("aag 3 1 0 1 1\n2\n6\n6 2 4\ni0 r1\no0 g1\n", "literal 4 is not defined"),
        ("aag 4 1 0 1 2\n2\n6\n6 2 8\n8 6 2\ni0 r1\no0 g1\n", "cycle"),
        ("aag 2 1 1 1 0\n2\n4 2 1\n4\ni0 r1\no0 g1\n", "reset to 0"),
        ("aag 2 1 0 1 1\n2\n2\n2 2 2\ni0 r1\no0 g1\n", "defined twice"),
    ):
        with pytest.raises(ValueError, match=said):
            renamed(broken, ["x"], ["u"], {"r1": "x", "g1": "u"})
    with pytest.raises(ValueError, match="input 0 is named no input"):
        renamed(text, ["y"], ["v", "u"], {"r1": "z", "r2": "y", "g1": "u", "g2": "v"})
    for table, said in (
        ("i0 r1\no0 g1\no1 g1\n", "two of its outputs have one name"),
        ("i0 r1\no0 g1\nc\no1 g2\n", "output 1 is named no output"),  # a comment is no symbol
        ("o0 g1\no1 g2\n", "input 0 is named no input"),
    ):
        circuit = "aag 2 1 0 2 1\n2\n4\n3\n4 2 2\n" + table
        with pytest.raises(ValueError, match=said):
            renamed(circuit, ["x"], ["u", "v"], {"r1": "x", "g1": "u", "g2": "v"})
    both = "aag 2 1 0 2 1\n2\n4\n3\n4 2 2\ni0 r1\no0 g1\no1 g2\nc\no0 g2\n"
    assert renamed(both, ["x"], ["u", "v"], {"r1": "x", "g1": "u", "g2": "v"}).splitlines()[2:4] == ["4", "3"]
