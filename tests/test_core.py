"""Unsat cores (`ltlwit solve --core`, `ltlwit.logic.core`): planted conflicts hidden among
many satisfiable requirements are found exactly; every core reported on random formulas is
re-checked independently (the members unsatisfiable together, each one's witness satisfying
all the others and violating it); a satisfiable answer has no core; the budget ends the
extraction with an unsatisfiable, not-proven-minimal core. The fine core (`--fine-core`) weakens
exactly the subformulas that do not matter, stays unsatisfiable and follows from the core, and
each occurrence it keeps is shown needed by a witness."""

from __future__ import annotations

import random

import pytest
from cli_support import json_lines, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import formulas

import ltlwit
from ltlwit.logic.core import fine_core, top_conjuncts, unsat_core
from ltlwit.logic.formula import And, Formula, Not
from ltlwit.logic.ltl import holds, solve
from ltlwit.logic.polarity import polarities, replace_at, weakening
from ltlwit.logic.result import Unknown, Unsat
from ltlwit.logic.syntax import parse_formula

REQUIREMENTS = [f"G(req{i} -> F grant{i})" for i in range(12)] + [f"G(grant{i} -> !grant{i + 1})" for i in range(11)]


def decide(f: Formula):
    return solve(f)


def planted(conflict: list[str], seed: int) -> tuple[list[str], list[int]]:
    """The requirements with the conflicting ones inserted at random places; their positions."""
    rng = random.Random(seed)
    parts = list(REQUIREMENTS)
    for c in conflict:
        parts.insert(rng.randrange(len(parts) + 1), c)
    return parts, sorted(parts.index(c) for c in conflict)


def test_a_planted_conflict_is_found_exactly() -> None:
    for seed, conflict in enumerate(
        [
            ["G !grant3", "F req3"],
            ["G(x -> X y)", "F(x & X !y)"],
            ["F G busy", "G F !busy"],
            ["G(a -> X !a)", "G(a -> X a)", "F a"],
        ]
    ):
        parts, where = planted(conflict, seed)
        if conflict[0] == "G !grant3":
            where = sorted(where + [parts.index("G(req3 -> F grant3)")])  # the response it starves
        core = unsat_core([parse_formula(p) for p in parts], decide)
        assert list(core.members) == where, (conflict, [parts[i] for i in core.members])
        assert core.minimal


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(formulas(("a", "b"), max_leaves=5), min_size=2, max_size=6))
def test_every_core_is_unsatisfiable_and_each_member_needed(parts: list[Formula]) -> None:
    whole = And(*parts)
    if not isinstance(solve(whole), Unsat):
        return
    core = unsat_core(parts, decide)
    assert isinstance(solve(And(*core.formulas)), Unsat)
    assert core.minimal
    for member, witness in zip(core.members, core.witnesses):
        others = [parts[i] for i in core.members if i != member]
        assert all(holds(o, witness) for o in others)
        assert not holds(parts[member], witness)


def test_the_budget_leaves_an_unsatisfiable_core_not_proven_minimal() -> None:
    parts = [parse_formula(p) for p in ["G !g", "F g", "F h", "G(h -> X h)"]]
    answers = iter([Unsat("x"), Unknown("time"), Unknown("time"), Unknown("time"), Unknown("time")])
    core = unsat_core(parts, lambda f: next(answers))
    assert list(core.members) == [2, 3] and not core.minimal  # only the first, proven, drop happened
    calls = []
    stopped = unsat_core(parts, lambda f: calls.append(f) or solve(f), expired=lambda: len(calls) >= 1)
    assert len(calls) == 1 and not stopped.minimal


def test_top_conjuncts_flatten_the_conjunction() -> None:
    f = parse_formula("(a & (b & G c)) & F d")
    assert [str(p) for p in top_conjuncts(f)] == ["a", "b", "Gc", "Fd"]
    assert top_conjuncts(parse_formula("a | b")) == (parse_formula("a | b"),)


def test_cli_core_in_every_format() -> None:
    spec = "G(req -> F grant) & G !grant & F req & G(a -> b)"
    out = run("solve", "--core", spec, "F a", "a & b & !a")
    assert out.stdout.splitlines() == [
        "UNSAT core: G(req -> F grant) & G !grant & F req",
        "cycle{a}",
        "UNSAT core: a & !a",
    ]  # as written in the input
    [unsat, sat] = json_lines(run("solve", "--core", "--format", "json", spec, "F a").stdout)
    assert [m["conjunct"] for m in unsat["core"]] == [1, 2, 3] and unsat["core_minimal"] is True
    assert [spec[c - 1 : d] for c, d in (m["columns"] for m in unsat["core"])] == [
        "G(req -> F grant)",
        "G !grant",
        "F req",
    ]
    for member in unsat["core"]:  # each witness satisfies the other members, and violates its own
        others = [m["formula"] for m in unsat["core"] if m is not member]
        assert ltlwit.verify(" & ".join(f"({o})" for o in others), member["witness"])
        assert not ltlwit.verify(member["formula"], member["witness"])
    assert (sat["status"], sat["core"], sat["core_minimal"]) == ("sat", None, None)
    plain = json_lines(run("solve", "--format", "json", spec).stdout)[0]
    assert plain["core"] is None  # no --core: no extraction
    csv_row = run("solve", "--core", "--format", "csv", spec).stdout.splitlines()[1]
    assert "G(req -> F grant) & G !grant & F req,true" in csv_row
    polish = json_lines(
        run("solve", "--core", "--format", "json", "--syntax", "polish-spaced", "& & F a G ! a b").stdout
    )[0]
    assert [(m["formula"], m["columns"]) for m in polish["core"]] == [("Fa", None), ("G!a", None)]


def test_conjunct_spans_follow_the_flattening() -> None:
    from ltlwit.logic.syntax.infix import conjunct_spans

    for text, parts in [
        ("(a & (b & G c)) & F d", ["a", "b", "G c", "F d"]),
        ("a | b", ["a | b"]),
        ("!a & X(b & c) & 1 & (d | e)", ["!a", "X(b & c)", "(d | e)"]),
        ("a * b & c U d", ["a", "b", "c U d"]),
        ("a & a", ["a", "a"]),
    ]:
        formula, spans = conjunct_spans(text)
        assert formula is parse_formula(text, "spot") and [text[s:e] for s, e in spans] == parts
        assert len(parts) == len(top_conjuncts(parse_formula(text)))


def test_core_under_finite_semantics_and_in_the_api() -> None:
    answer = ltlwit.solve("G(a -> X a) & a & G(b -> F c)", semantics="finite", core=True, model="none")
    assert answer.status == "unsat" and [str(f) for f in answer.core.formulas] == ["G(a -> Xa)", "a"]
    assert all(w.finite for w in answer.core.witnesses)
    assert ltlwit.solve("G a & F !a", model="none").core is None


def test_check_names_the_conflicting_specs(tmp_path) -> None:
    lines = [f"r{i}: G(req{i} -> F grant{i})" for i in range(8)]
    lines[2:2] = ["quiet: G !grant5"]
    lines[6:6] = ["busy: F req5", "broken: G(a U"]
    spec = tmp_path / "reqs.spec"
    spec.write_text("\n".join(lines) + "\n")
    out = run("check", "--consistency", "--format", "json", "--junit", str(tmp_path / "j.xml"), str(spec))
    assert out.exit_code == 2  # the unreadable spec; the others still checked
    conjunction = json_lines(out.stdout)[0]
    assert conjunction["status"] == "fail" and conjunction["conflict_minimal"] is True
    assert [(c["name"], c["line"]) for c in conjunction["conflict"]] == [("quiet", 3), ("busy", 7), ("r5", 9)]
    assert conjunction["reason"].endswith(f"left out: broken ({spec}:8, unreadable)")
    assert "these conflict: quiet" in (tmp_path / "j.xml").read_text()
    assert all(r["vacuity"] is None for r in json_lines(out.stdout)[1:])  # --consistency alone: no vacuity
    fine = tmp_path / "fine.spec"
    fine.write_text("\n".join(line for line in lines if not line.startswith(("quiet", "broken"))) + "\n")
    assert run("check", "--consistency", str(fine)).exit_code == 0
    report = ltlwit.check(["a: G !g", "b: F g", "c: G F h"], consistency=True, model="none")
    assert not report.passed and [s.name for s in report.results[0].conflict] == ["a", "b"]


def weakened_by(member: Formula, position: int) -> Formula:
    """`member` with its occurrence at `position` weakened as the fine core would."""
    return replace_at(member, position, weakening(polarities(member)[position]))


def check_fine(core) -> None:
    """The fine core is unsatisfiable, each fine member follows from its member, and each kept
    occurrence's witness satisfies the fine conjunction with that occurrence weakened too."""
    fine = list(core.fine)
    assert isinstance(solve(And(*fine)), Unsat)
    for member, weak in zip(core.formulas, fine):
        assert isinstance(solve(And(member, Not(weak))), Unsat)
    for (k, position), witness in core.fine_witnesses:
        assert witness is not None
        again = fine[:k] + [weakened_by(fine[k], position)] + fine[k + 1 :]
        assert holds(And(*again), witness)


def test_a_fine_core_weakens_exactly_what_does_not_matter() -> None:
    for text, expected in [
        ("G(req -> (F grant & X ack)) & G req & G !grant", ["G(req -> Fgrant & 1)", "Greq", "G!grant"]),
        ("G((a | c) -> F b) & G a & G !b & G d", ["G(a | 0 -> Fb)", "Ga", "G!b"]),
        ("F(x & X y & z) & G !y", ["F(1 & Xy & 1)", "G!y"]),
        ("G(a <-> X b) & G a & G !b", ["G(a <-> Xb)", "Ga", "G!b"]),
    ]:
        core = fine_core(unsat_core(top_conjuncts(parse_formula(text)), decide), decide)
        assert [str(f) for f in core.fine] == expected, text
        assert core.minimal
        check_fine(core)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(formulas(("a", "b"), max_leaves=5), min_size=2, max_size=5))
def test_every_fine_core_is_unsatisfiable_and_each_kept_occurrence_needed(parts: list[Formula]) -> None:
    if not isinstance(solve(And(*parts)), Unsat):
        return
    core = fine_core(unsat_core(parts, decide), decide)
    assert core.minimal
    check_fine(core)


def test_the_budget_stops_a_fine_core_unproven_but_unsatisfiable() -> None:
    core = unsat_core([parse_formula(p) for p in ["G(a -> (F b & X c))", "G a", "G !b"]], decide)
    calls = []
    stopped = fine_core(core, lambda f: calls.append(f) or solve(f), expired=lambda: len(calls) >= 2)
    assert len(calls) == 2 and not stopped.fine_complete and not stopped.minimal
    assert isinstance(solve(And(*stopped.fine)), Unsat)


def test_cli_fine_core() -> None:
    spec = "G(req -> (F grant & X ack)) & G req & G(a <-> X b) & G !grant"
    assert run("solve", "--fine-core", spec).stdout == "UNSAT core: G(req -> Fgrant & 1) & Greq & G!grant\n"
    [answer] = json_lines(run("solve", "--fine-core", "--format", "json", spec).stdout)
    assert [(m["formula"], m["fine"]) for m in answer["core"]] == [
        ("G(req -> (F grant & X ack))", "G(req -> Fgrant & 1)"),
        ("G req", "Greq"),
        ("G !grant", "G!grant"),
    ]
    assert answer["core_minimal"] is True
    assert all(
        m["fine"] is None for m in json_lines(run("solve", "--core", "--format", "json", spec).stdout)[0]["core"]
    )
    assert [str(f) for f in ltlwit.solve(spec, core="fine", model="none").core.fine] == [
        "G(req -> Fgrant & 1)",
        "Greq",
        "G!grant",
    ]
    with pytest.raises(ValueError, match="core must be"):
        ltlwit.solve(spec, core="finest")


def test_core_members_are_the_conjuncts_as_written() -> None:
    """Whatever the engine rewrites (a bounded G spelled out, a `true` conjunct dropped), the
    core names the user's conjuncts: their text, their columns, their numbers."""
    records = json_lines(
        run("solve", "--model", "none", "--core", "--format", "json", "G[0..2] c & X !c & d", "a & true & Y b").stdout
    )
    first, second = (r["core"] for r in records)
    assert [(m["conjunct"], m["formula"], m["columns"]) for m in first] == [
        (1, "G[0..2] c", [1, 9]),
        (2, "X !c", [13, 16]),
    ]
    assert [(m["conjunct"], m["formula"], m["columns"]) for m in second] == [(3, "Y b", [12, 14])]
    assert run("solve", "--model", "none", "--core", "G[0..2] c & X !c & d").stdout == "UNSAT core: G[0..2] c & X !c\n"
