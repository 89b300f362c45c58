"""Scenarios in spec files (`# expect: allowed|forbidden|implied`): judged against the file's
requirements, checked by brute force on propositional spec sets (verdicts and cores) and on an
LTL spec whose witnesses and counterexamples are checked against every requirement."""

from __future__ import annotations

import itertools

from cli_support import ROOT, json_lines, run
from hypothesis import given, settings
from hypothesis import strategies as st
from prop_reference import evaluate
from strategies import formulas

from ltlwit.logic import ltl
from ltlwit.logic.formula import And, Formula, Not, conjuncts
from ltlwit.logic.syntax import parse_formula, parse_trace

ROWS = [dict(zip("abc", bits)) for bits in itertools.product((False, True), repeat=3)]


def satisfiable(fs: list[Formula]) -> bool:
    return any(all(evaluate(f, row) for f in fs) for row in ROWS)


def _check(tmp_path, text: str, *options: str) -> tuple[int, list[dict]]:
    path = tmp_path / "s.spec"
    path.write_text(text)
    result = run("check", "--format", "json", *options, str(path))
    return result.exit_code, json_lines(result.stdout)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(formulas(aps=("a", "b", "c"), max_leaves=4, temporal=False, constants=False), min_size=1, max_size=3),
    formulas(aps=("a", "b", "c"), max_leaves=4, temporal=False, constants=False),
    st.sampled_from(["allowed", "forbidden", "implied"]),
)
def test_scenario_verdicts_and_cores_match_the_truth_tables(
    tmp_path_factory, requirements: list[Formula], scenario: Formula, expect: str
) -> None:
    tmp_path = tmp_path_factory.mktemp("s")
    lines = [f"r{k}: {f.to_str('spot')}" for k, f in enumerate(requirements)]
    _, records = _check(tmp_path, "\n".join(lines + [f"s: {scenario.to_str('spot')}   # expect: {expect}"]) + "\n")
    record = records[-1]
    asked = Not(scenario) if expect == "implied" else scenario
    joint = satisfiable([*requirements, asked])
    holds = {"allowed": joint, "forbidden": not joint, "implied": not joint}[expect]
    conflict = "contradict each other" in (record["reason"] or "")  # the requirements alone
    assert not conflict or not satisfiable(requirements)
    assert record["status"] == ("pass" if holds and not conflict else "fail"), record
    if joint:  # the assignment that shows it (a partial one: every completion) satisfies all
        shown = parse_formula(record["witness"] or record["counterexample"])
        given = {c.children[0].name if c.op == "!" else c.name: c.op != "!" for c in conjuncts(shown)}
        assert all(all(evaluate(f, {**row, **given}) for f in [*requirements, asked]) for row in ROWS), record
        return
    named = [requirements[int(c["name"][1:])] for c in record["core"] or []]
    core = named if conflict else [*named, asked]  # what is claimed unsatisfiable, each member needed
    assert not satisfiable(core), record
    if record["core_minimal"]:
        for k in range(len(named)):
            assert satisfiable(core[:k] + core[k + 1 :]), record


LIGHTS = """\
# a crossing's traffic lights
mutex:      G !(ns_green & ew_green)
ns_turns:   G F ns_green
ew_turns:   G F ew_green
both_green: F(ns_green & ew_green)        # expect: forbidden
ns_first:   ns_green & X ew_green         # expect: allowed
alternate:  G F(ns_green | ew_green)      # expect: implied
never_ew:   G !ew_green                   # expect: allowed
always_ns:  G ns_green                    # expect: implied
"""


def test_ltl_scenarios_against_the_requirements(tmp_path) -> None:
    status, records = _check(tmp_path, LIGHTS)
    assert status == 1
    by = {r["name"]: r for r in records}
    requirements = [parse_formula(by[n]["formula"]) for n in ("mutex", "ns_turns", "ew_turns")]
    assert [by[n]["status"] for n in ("both_green", "ns_first", "alternate", "never_ew", "always_ns")] == [
        "pass",
        "pass",
        "pass",
        "fail",
        "fail",
    ]
    assert [c["name"] for c in by["both_green"]["core"]] == ["mutex"]
    assert [c["name"] for c in by["never_ew"]["core"]] == ["ew_turns"]
    assert len(by["alternate"]["core"]) == 1 and by["alternate"]["core"][0]["name"] in ("ns_turns", "ew_turns")
    allowed = parse_trace(by["ns_first"]["witness"])
    assert ltl.holds(And(*requirements, parse_formula("ns_green & X ew_green")), allowed)
    violated = parse_trace(by["always_ns"]["counterexample"])
    assert ltl.holds(And(*requirements, Not(parse_formula("G ns_green"))), violated)
    text = run("check", str(tmp_path / "s.spec")).stdout
    assert (
        f"PASS both_green ({tmp_path / 's.spec'}:5): forbidden (ruled out by mutex ({tmp_path / 's.spec'}:2))" in text
    )
    assert "FAIL always_ns" in text and "expected implied, but a trace the requirements allow violates it: " in text


def test_scenarios_stay_out_of_the_conjunction(tmp_path) -> None:
    _, records = _check(tmp_path, "r: G(a -> X b)\ns: F(a & X !b)   # expect: forbidden\n", "--vacuity")
    conjunction, r, s = records
    assert conjunction["specs"] == 1 and conjunction["status"] == "pass"
    assert (r["vacuity"], s["vacuity"], s["status"]) == ("clean", "skipped", "pass")


def test_a_scenario_without_requirements_is_an_error(tmp_path) -> None:
    path = tmp_path / "s.spec"
    path.write_text("s: F a   # expect: allowed\nt: G a & F !a   # expect: unsat\n")
    result = run("check", str(path))
    assert result.exit_code == 2
    assert f"ltlwit: {path}:1: a scenario expected allowed needs requirements" in result.stderr
    assert f"PASS t ({path}:2)" in result.stdout  # the rest is answered


def test_toml_scenarios_and_semantics(tmp_path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        '[[spec]]\nname = "req"\nformula = "G(a -> X b)"\nsemantics = "finite"\n'
        '[[spec]]\nname = "end"\nformula = "F(a & !X true)"\nexpect = "forbidden"\nsemantics = "finite"\n'
        '[[spec]]\nname = "inf"\nformula = "F a"\nexpect = "Allowed"\n'
    )
    by = {r["name"]: r for r in json_lines(run("check", "--format", "json", str(path)).stdout)}
    assert by["end"]["status"] == "pass" and [c["name"] for c in by["end"]["core"]] == ["req"]
    assert by["inf"]["status"] == "error"
    assert (
        by["inf"]["error"]
        == "a scenario under infinite semantics is judged against requirements under finite semantics"
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(formulas(aps=("a", "b", "c"), max_leaves=4, temporal=False, constants=False), min_size=1, max_size=4))
def test_redundancy_matches_the_truth_tables(tmp_path_factory, requirements: list[Formula]) -> None:
    """`--redundancy`: a requirement is redundant exactly when the others imply it, and the
    ones named imply it (each of them needed where the set is proven minimal)."""
    if not satisfiable(requirements):
        return  # the conjunction fails instead (tested with --consistency)
    _, records = _check(
        tmp_path_factory.mktemp("r"),
        "".join(f"r{k}: {f.to_str('spot')}\n" for k, f in enumerate(requirements)),
        "--redundancy",
    )
    conjunction, *specs = records
    assert conjunction["status"] == "pass"
    for k, record in enumerate(specs):
        others = requirements[:k] + requirements[k + 1 :]
        implied = bool(others) and not satisfiable([*others, Not(requirements[k])])
        assert record["redundancy"] == ("redundant" if implied else "needed"), record
        if implied:
            named = [requirements[int(c["name"][1:])] for c in record["implied_by"] or []]
            assert not satisfiable([*named, Not(requirements[k])])
            if record["core_minimal"]:
                for m in range(len(named)):
                    assert satisfiable([*named[:m], *named[m + 1 :], Not(requirements[k])])


def test_redundant_requirements_fail_the_gate(tmp_path) -> None:
    path = tmp_path / "s.spec"
    path.write_text("mutex: G !(g1 & g2)\nstrong: G !g1\nlive: G F r\nnever: F(g1 & g2)   # expect: forbidden\n")
    result = run("check", "--redundancy", str(path))
    assert result.exit_code == 1
    assert f"  REDUNDANT mutex ({path}:1): implied by strong ({path}:2)" in result.stdout.splitlines()
    assert result.stdout.splitlines()[-1].endswith("; redundancy: 1 redundant, 0 undecided")
    assert run("check", str(path)).exit_code == 0
    junit = tmp_path / "r.xml"
    run("check", "--redundancy", "--junit", str(junit), str(path))
    assert junit.read_text().count('type="redundancy"') == 1


VACUOUS = "response: G(req -> F grant){ack}\nquiet: G !req\nalive: G F heartbeat{stale}\n"


def test_acknowledged_findings_pass_and_stale_ones_fail(tmp_path) -> None:
    status, records = _check(
        tmp_path, VACUOUS.format(ack="  # acknowledged: vacuous grant  # REQ-1", stale=""), "--vacuity"
    )
    assert status == 0
    response = records[1]
    assert response["acknowledged"] == ["vacuous grant:1"] and response["findings"][0]["acknowledged"] is True
    status, records = _check(
        tmp_path,
        VACUOUS.format(ack="  # acknowledged: vacuous grant:2", stale="  # acknowledged: vacuous heartbeat"),
        "--vacuity",
    )
    assert status == 1  # grant's first occurrence is not acknowledged, heartbeat's acknowledgment is stale
    assert records[1]["acknowledged"] is None and records[1]["stale"] == ["vacuous grant:2"]
    assert records[3]["stale"] == ["vacuous heartbeat"]
    assert _check(tmp_path, VACUOUS.format(ack="  # acknowledged: vacuous grant", stale=""))[0] == 0  # not judged


def test_a_baseline_acknowledges_what_it_lists(tmp_path) -> None:
    path, baseline = tmp_path / "s.spec", tmp_path / "base.jsonl"
    path.write_text(VACUOUS.format(ack="", stale="") + "strong: G !grant\n")
    assert run("check", "--vacuity", "--redundancy", str(path)).exit_code == 1
    result = run("check", "--vacuity", "--redundancy", "--write-baseline", str(baseline), str(path))
    assert result.exit_code == 0 and f"{baseline}: 3 findings written" in result.stderr
    assert json_lines(baseline.read_text()) == [  # quiet: response and strong leave no req
        {"file": str(path), "spec": "response", "finding": "vacuous grant:1"},
        {"file": str(path), "spec": "response", "finding": "redundant"},
        {"file": str(path), "spec": "quiet", "finding": "redundant"},
    ]
    result = run("check", "--vacuity", "--redundancy", "--baseline", str(baseline), str(path))
    assert result.exit_code == 0 and "; 3 acknowledged, 0 stale acknowledgments" in result.stdout
    path.write_text(VACUOUS.format(ack="", stale="") + "strong: G !grant\nnew: G(ping -> X pong)\nnever: G !ping\n")
    assert run("check", "--vacuity", "--redundancy", "--baseline", str(baseline), str(path)).exit_code == 1
    with baseline.open("a") as out:
        out.write('{"file": "%s", "spec": "gone", "finding": "redundant"}\n' % path)
    result = run("check", "--vacuity", "--redundancy", "--baseline", str(baseline), str(path))
    assert (
        result.exit_code == 2
        and f"ltlwit: {baseline}:4: the acknowledgment names no spec 'gone' of {path}" in result.stderr
    )
    baseline.write_text('{"file": "x", "spec": "y", "finding": "vacuous"}\n')
    result = run("check", "--vacuity", "--baseline", str(baseline), str(path))
    assert result.exit_code == 2 and f"{baseline}:1: malformed acknowledgment 'vacuous'" in result.stderr


def test_malformed_acknowledgments_are_errors(tmp_path) -> None:
    path = tmp_path / "s.spec"
    path.write_text(
        "a: G x   # acknowledged: vacuus x\nb: F x   # expect: unsat  # acknowledged: redundant\n"
        "# acknowledged: redundant\nc: G F y\n"
    )
    result = run("check", str(path))
    assert result.exit_code == 2
    assert f"{path}:1: malformed acknowledgment 'vacuus x'" in result.stderr
    assert f"{path}:2: an acknowledgment on a spec expected unsat" in result.stderr
    assert f"{path}:3: acknowledgment '# acknowledged: redundant' on a line of its own" in result.stderr
    assert f"PASS c ({path}:4)" in result.stdout


def test_where_specs_hold(tmp_path) -> None:
    """`holds always` (a file's line) makes each spec `G(spec)` unless it says `# holds:`;
    `finally` puts it at the last instant of a finite trace."""
    path = tmp_path / "s.spec"
    path.write_text(
        "holds always\ninv: !(a & b)\nstart: a   # holds: initially\nend: b   # holds: finally\n"
        "never: a & b   # expect: forbidden\nlast_a: a   # holds: finally  # expect: forbidden\n"
    )
    by = {r["name"]: r for r in json_lines(run("check", "--format", "json", "--semantics", "finite", str(path)).stdout)}
    assert [by[n]["status"] for n in ("inv", "start", "end", "never", "last_a")] == ["pass"] * 5

    def rows(witness: str) -> list[dict[str, bool]]:  # each instant's values (absent: false)
        return [
            {
                **dict.fromkeys("ab", False),
                **{
                    c.children[0].name if c.op == "!" else c.name: c.op != "!"
                    for c in conjuncts(step)
                    if c.op != "true"
                },
            }
            for step in parse_trace(witness).prefix
        ]

    joint = rows(
        json_lines(run("check", "--format", "json", "--semantics", "finite", "--consistency", str(path)).stdout)[0][
            "witness"
        ]
    )
    assert all(not (row["a"] and row["b"]) for row in joint)  # inv at every instant, not only the first
    assert joint[0]["a"] and joint[-1]["b"]  # start at the first, end at the last
    assert [c["name"] for c in by["last_a"]["core"]] == ["inv", "end"]  # a & b never, and b at the end
    result = run("check", str(path))  # infinite semantics: no last instant
    assert (
        result.exit_code == 2
        and f"{path}:4: a spec that holds finally (at the last instant) needs finite" in result.stderr
    )
    toml = tmp_path / "s.toml"
    toml.write_text('holds = "always"\n[[spec]]\nformula = "a"\n[[spec]]\nformula = "F !a"\nholds = "initially"\n')
    assert run("check", "--consistency", str(toml)).exit_code == 1  # G a & F !a
    toml.write_text('[[spec]]\nformula = "a"\nholds = "sometimes"\n')
    assert (
        "unknown place 'sometimes' for a spec to hold (use initially, always or finally)"
        in run("check", str(toml)).stderr
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(formulas(aps=("a", "b"), max_leaves=3, temporal=False, constants=False), min_size=1, max_size=5))
def test_all_conflicts_match_brute_force_over_subsets(parts: list[Formula]) -> None:
    """MARCO's cores are exactly the minimal unsatisfiable subsets, its correction sets exactly
    the complements of the maximal satisfiable ones, and it says the enumeration is complete."""
    from ltlwit.logic.core import all_conflicts
    from ltlwit.logic.result import Sat, Unsat

    def sat(kept) -> bool:
        return any(all(evaluate(parts[i], {**row, "c": False}) for i in kept) for row in ROWS)

    subsets = [frozenset(c) for k in range(len(parts) + 1) for c in itertools.combinations(range(len(parts)), k)]
    muses = {s for s in subsets if not sat(s) and all(sat(s - {i}) for i in s)}
    mss = {s for s in subsets if sat(s) and all(not sat(s | {i}) for i in set(range(len(parts))) - s)}
    mcses = {frozenset(range(len(parts))) - s for s in mss} if muses else set()

    def decide(f: Formula):
        rows = [r for r in ROWS if evaluate(f, r)]
        return (
            Sat(parse_trace(" & ".join(n if rows[0][n] else f"!{n}" for n in "abc"))) if rows else Unsat("truth table")
        )

    found = all_conflicts(parts, decide)
    assert found.complete
    assert {frozenset(c) for c in found.cores} == muses and len(found.cores) == len(muses)
    assert {frozenset(c) for c in found.corrections} == mcses and len(found.corrections) == len(mcses)


ARBITER_CONFLICTS = """\
quiet1:  G !grant1
busy1:   G F req1
always2: G F grant2
idle2:   G !req2
"""


def test_all_cores_on_the_arbiter_with_two_planted_conflicts(tmp_path) -> None:
    path = tmp_path / "arbiter.spec"
    path.write_text((ROOT / "examples" / "arbiter.spec").read_text() + ARBITER_CONFLICTS)
    result = run("check", "--all-cores", "--timeout", "10", "--format", "json", str(path))
    assert result.exit_code == 1
    conjunction = json_lines(result.stdout)[0]
    names = {frozenset(c["name"] for c in core) for core in conjunction["conflicts"]}
    assert names == {frozenset({"response1", "quiet1", "busy1"}), frozenset({"no_spurious2", "always2", "idle2"})}
    fixes = {frozenset(c["name"] for c in fix) for fix in conjunction["corrections"]}
    assert fixes == {
        frozenset({a, b}) for a in ("response1", "quiet1", "busy1") for b in ("no_spurious2", "always2", "idle2")
    }
    assert conjunction["complete"] is True
    text = run("check", "--all-cores", str(path)).stdout
    assert "  CONFLICT response1" in text and text.count("  FIX remove ") == 9
