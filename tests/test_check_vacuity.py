"""`ltlwit check --vacuity`: the documented definition, checked by brute force on propositional
spec sets, plus the LTL cases, joint unsatisfiability and undecided questions."""

from __future__ import annotations

import itertools

from cli_support import json_lines, run, run_process
from hypothesis import given, settings
from hypothesis import strategies as st
from prop_reference import evaluate
from strategies import formulas, traces

from ltlwit.logic.formula import FALSE, TRUE, And, Formula, conjuncts
from ltlwit.logic.polarity import replace_at
from ltlwit.logic.result import Sat, Unknown, Unsat
from ltlwit.logic.syntax import parse_formula
from ltlwit.pipeline.checking import engine_answer
from ltlwit.pipeline.options import SolveOptions
from ltlwit.specs.decider import Decider
from ltlwit.specs.vacuity import check_spec, occurrences

#: Each spec set's questions, by the check's own decision procedure (no witnesses carried over:
#: its cache keys are the questions, which differ per set).
decide = Decider(SolveOptions())


def test_occurrences_and_polarity() -> None:
    f = parse_formula("!(a -> b) & (c <-> d) & G !a")
    assert [(o.ap, o.nth, o.polarity) for o in occurrences(f)] == [
        ("a", 1, 1),
        ("b", 1, -1),
        ("c", 1, 0),
        ("d", 1, 0),
        ("a", 2, -1),
    ]
    assert [o.index for o in occurrences(f)] == [i for i, n in enumerate(f.walk()) if n.op == "ap"]


@settings(max_examples=100, deadline=None)
@given(formulas(max_leaves=8), st.data())
def test_replace_at_replaces_exactly_one_position(f: Formula, data) -> None:
    index = data.draw(st.integers(0, f.size - 1))
    nodes = list(f.walk())
    replaced = replace_at(f, index, parse_formula("zz"))
    expected = nodes[:index] + [parse_formula("zz")] + nodes[index + nodes[index].size :]
    assert [n.op if n.op != "ap" else n.name for n in replaced.walk()] == [
        n.op if n.op != "ap" else n.name for n in expected
    ]


def brute_vacuous(specs: list[Formula], which: int) -> set[tuple[int, bool]]:
    """The definition, literally: occurrence o of specs[which] with the strengthening constant
    v (both for mixed polarity) is vacuous when the conjunction keeps exactly its models."""
    names = sorted({n for s in specs for n in s.aps()})
    rows = [dict(zip(names, bits)) for bits in itertools.product((False, True), repeat=len(names))]

    def models(fs: list[Formula]) -> list[bool]:
        return [all(evaluate(f, row) for f in fs) for row in rows]

    found = set()
    for occ in occurrences(specs[which]):
        for value in (False,) if occ.polarity > 0 else (True,) if occ.polarity < 0 else (True, False):
            changed = list(specs)
            changed[which] = replace_at(specs[which], occ.index, TRUE if value else FALSE)
            if models(changed) == models(specs):
                found.add((occ.index, value))
                break
    return found


@settings(max_examples=120, deadline=None)
@given(st.lists(formulas(aps=("a", "b", "c"), max_leaves=5, temporal=False, constants=False), min_size=1, max_size=3))
def test_propositional_vacuity_matches_the_definition(specs: list[Formula]) -> None:
    if not any(evaluate(And(*specs), dict(zip("abc", bits))) for bits in itertools.product((False, True), repeat=3)):
        return  # jointly unsatisfiable: reported instead of vacuity (tested below)
    for which in range(len(specs)):
        findings = check_spec(specs, which, decide).findings
        assert not any(f.undecided for f in findings)
        assert {(f.occurrence.index, f.value) for f in findings} == brute_vacuous(specs, which)


def test_ltl_trigger_excluded_by_another_spec(tmp_path) -> None:
    path = tmp_path / "s.spec"
    path.write_text("response: G(req -> F grant)\nquiet: G !req\nliveness: G F ack\n")
    result = run("check", "--vacuity", "--format", "json", str(path))
    assert result.exit_code == 1
    conjunction, response, quiet, liveness = json_lines(result.stdout)
    assert (conjunction["kind"], conjunction["status"], conjunction["specs"]) == ("conjunction", "pass", 3)
    assert response["status"] == "pass" and response["vacuity"] == "vacuous"
    (finding,) = response["findings"]
    assert (finding["ap"], finding["occurrence"], finding["replacement"], finding["status"]) == (
        "grant",
        1,
        False,
        "vacuous",
    )
    assert parse_formula(finding["implied"]) is parse_formula("G(req -> F 0)")
    assert (quiet["vacuity"], liveness["vacuity"]) == ("clean", "clean")
    text = run("check", "--vacuity", str(path)).stdout
    assert (
        f"  VACUOUS response ({path}:1): occurrence 1 of 'grant' can be false: the specs imply G(req -> F(0))" in text
    )
    assert text.splitlines()[-1].endswith("; vacuity: 1 vacuous, 0 undecided")


def test_an_occurrence_is_one_as_written_however_often_it_is_spelled_out(tmp_path) -> None:
    """`O[0,3] grant` reads grant at four instants, spelled out as four copies; its author
    wrote one occurrence: one finding, its copies replaced together (FRET's `persisted(100,
    p)` was 101 occurrences, each a question, most left unchecked). Where another spec does
    not exclude the trigger, the occurrence is needed."""
    path = tmp_path / "s.spec"
    path.write_text("resp: G(req -> O[0,3] grant)\nquiet: G !req\n")
    records = json_lines(run("check", "--vacuity", "--format", "json", str(path)).stdout)
    resp = next(r for r in records if r.get("name") == "resp")
    assert [(f["ap"], f["occurrence"], f["status"]) for f in resp["findings"]] == [("grant", 1, "vacuous")]
    implied = parse_formula(resp["findings"][0]["implied"])
    assert "grant" not in implied.aps() and implied is parse_formula("G(req -> O[0,3] false)")
    path.write_text("resp: G(req -> O[0,3] grant)\nsome: F req\n")
    records = json_lines(run("check", "--vacuity", "--format", "json", str(path)).stdout)
    assert next(r for r in records if r.get("name") == "resp")["vacuity"] == "clean"


def test_stacked_bounded_operators_have_one_occurrence_and_an_answer(tmp_path) -> None:
    """`O[<=3]` stacked 14 times reads b at 4^14 places of its tree, over 43 distinct nodes:
    its one written occurrence is checked with the tree's polarities taken node by node (they
    were listed place by place: no answer at all)."""
    path = tmp_path / "s.spec"
    path.write_text("s: " + "O[<=3] " * 14 + "b\nq: G !b\n")
    result = run_process("check", "--vacuity", "--timeout", "20", "--format", "json", str(path))
    records = json_lines(result.stdout.decode())
    assert [r["status"] for r in records if r.get("kind") == "conjunction"] == ["fail"]
    path.write_text("s: " + "O[<=3] " * 14 + "b\nq: F b\n")
    records = json_lines(
        run_process("check", "--vacuity", "--timeout", "20", "--format", "json", str(path)).stdout.decode()
    )
    assert [r.get("vacuity") for r in records if r.get("name") == "s"] == ["clean"]


def test_only_specs_expected_sat_form_the_conjunction(tmp_path) -> None:
    path = tmp_path / "s.spec"
    path.write_text("a: G(x -> X y)\nb: F x & G !y   # expect: unsat\nc: G(x | !x)   # expect: valid\n")
    records = json_lines(run("check", "--vacuity", "--format", "json", str(path)).stdout)
    assert records[0]["specs"] == 1 and [r["vacuity"] for r in records[1:]] == ["clean", "skipped", "skipped"]


def test_jointly_unsatisfiable_specs_fail_without_vacuity_findings(tmp_path) -> None:
    path = tmp_path / "s.spec"
    path.write_text("p: G a\nq: F !a\n")
    result = run("check", "--vacuity", str(path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:2]] == [["PASS", "p"], ["PASS", "q"]]  # each spec's own, first
    assert lines[2].startswith(f"FAIL (all 2 specs of {path} together): jointly unsatisfiable")
    assert "VACUOUS" not in result.stdout
    assert result.stdout.splitlines()[-1].endswith("; 1 file whose specs contradict each other")
    assert run("check", str(path)).exit_code == 0  # each is satisfiable on its own


def test_undecided_questions_are_reported_and_never_clean(tmp_path, monkeypatch) -> None:
    import ltlwit.specs.decider as check_run

    def budget_runs_out(formula, logic, options):
        if formula.op == "&" and formula.children[1].op == "!":  # a vacuity question C & !s[o := v]
            return Unknown("time budget exhausted"), "engine"
        return engine_answer(formula, logic, options)

    monkeypatch.setattr(check_run, "engine_answer", budget_runs_out)
    path = tmp_path / "s.spec"
    path.write_text("r: G(req -> F grant)\n")
    result = run("check", "--vacuity", "--format", "json", str(path))
    _, record = json_lines(result.stdout)
    assert result.exit_code == 1
    assert record["vacuity"] == "undecided"
    assert [(f["ap"], f["status"], f["reason"]) for f in record["findings"]] == [
        ("req", "undecided", "time budget exhausted"),
        ("grant", "undecided", "time budget exhausted"),
    ]


def test_questions_share_the_witnesses_found(monkeypatch) -> None:
    """Most vacuity questions are satisfied by a trace found for an earlier one: the engine is
    asked far fewer times than there are questions, and the findings are the same as when each
    question is solved on its own."""
    import ltlwit.specs.decider as spec_run

    specs = [
        parse_formula(f)
        for f in ["G(r0 -> F g0)", "G(r1 -> F g1)", "G F r0", "G F r1", "G !(g0 & g1)", "G(g0 -> r0)", "G(g1 -> r1)"]
    ]
    calls: list[Formula] = []

    def counted(formula, logic, options, *rest, **named):
        calls.append(formula)
        return engine_answer(formula, logic, options, *rest, **named)

    monkeypatch.setattr(spec_run, "engine_answer", counted)

    def findings() -> list[list[tuple[str, int, bool]]]:
        decide = Decider(SolveOptions())
        return [
            [(f.occurrence.ap, f.occurrence.nth, f.value) for f in check_spec(specs, i, decide).findings]
            for i in range(len(specs))
        ]

    shared = findings()
    asked = len(calls)
    monkeypatch.setattr(spec_run, "SHARED_WITNESSES", 0)
    calls.clear()
    alone = findings()
    assert shared == alone and any(shared)
    assert asked < len(calls) / 2, (asked, len(calls))


@settings(max_examples=40, deadline=None)
@given(st.lists(formulas(aps=("a", "b", "c"), max_leaves=5), min_size=2, max_size=4))
def test_questions_asked_of_subsets_give_the_findings_of_the_whole(specs: list[Formula]) -> None:
    """A question is first asked of the specs near the replaced one, then of more as witnesses
    violate them: the findings are those of asking every question of all specs at once."""
    import ltlwit.specs.vacuity as vacuity

    if not isinstance(Decider(SolveOptions())(And(*specs)), Sat):
        return  # jointly unsatisfiable or undecided: no vacuity questions
    whole = vacuity._conjoined

    def at_once(specs, about, claim, decide, base=None):
        return decide(And(And(*specs), claim))

    def found(conjoined) -> list[set[tuple[int, bool, bool]]]:
        vacuity._conjoined = conjoined
        try:
            return [
                {
                    (f.occurrence.index, f.value, f.undecided)
                    for f in check_spec(specs, i, Decider(SolveOptions())).findings
                }
                for i in range(len(specs))
            ]
        finally:
            vacuity._conjoined = whole

    assert found(whole) == found(at_once)


def test_a_vacuous_trigger_is_proved_without_the_other_clients(monkeypatch) -> None:
    """The 4-client arbiter: each response's request is vacuous (its fairness spec forces it),
    proved on the specs that share its APs, never on the conjunction of all sixteen."""
    import ltlwit.specs.decider as spec_run

    n = 4
    specs = [
        parse_formula(f)
        for f in [" & ".join(f"!(g{i} & g{j})" for i in range(n) for j in range(i + 1, n)).join(("G(", ")"))]
        + [f"G(r{i} -> F g{i})" for i in range(n)]
        + [f"G(g{i} -> r{i})" for i in range(n)]
        + [f"G F r{i}" for i in range(n)]
    ]
    asked: list[Formula] = []

    def recorded(formula, logic, options, *rest, **named):
        asked.append(formula)
        return engine_answer(formula, logic, options, *rest, **named)

    monkeypatch.setattr(spec_run, "engine_answer", recorded)
    decide = Decider(SolveOptions())
    responses = [check_spec(specs, 1 + i, decide).findings for i in range(n)]
    assert [[(f.occurrence.ap, f.undecided) for f in found] for found in responses] == [
        [(f"r{i}", False)] for i in range(n)
    ]
    everything = set(specs)
    proofs = [f for f in asked if isinstance(decide(f), Unsat)]
    assert proofs and all(not everything <= set(conjuncts(f)) for f in proofs)


class _DyingPool:
    """A pool whose worker dies on the second input (`Lost` in place of its outputs), as a worker
    killed by the system would; the others are answered by `answer(item)`."""

    def __init__(self, answer) -> None:
        self.answer = answer

    def imap(self, task, items, **_):
        from ltlwit.pipeline.worker import Lost

        for k, item in enumerate(items):
            yield (
                Lost(item, "the worker process answering it ended (killed by signal 9)")
                if k == 1
                else [self.answer(item)]
            )


def test_a_worker_dying_on_a_spec_costs_that_spec_alone() -> None:
    """`check --jobs`: a worker that dies on one spec's query, or on one requirement's vacuity
    questions, makes that spec's answer an error saying so; the others keep theirs (a `Lost`
    was iterated as a list of answers: TypeError, the whole run an internal error)."""
    from ltlwit.pipeline import Pipeline
    from ltlwit.pipeline.answers import Solution
    from ltlwit.pipeline.inputs import InputItem
    from ltlwit.pipeline.options import SolveOptions
    from ltlwit.specs.decider import Decider
    from ltlwit.specs.files import Spec
    from ltlwit.specs.run import SpecResult, answers
    from ltlwit.specs.together import Requirements, _findings
    from ltlwit.specs.vacuity import Vacuity

    options = SolveOptions(model="none")
    items = [InputItem(text, "f.spec", k + 1) for k, text in enumerate(["F a", "G b", "a U b"])]
    pool = _DyingPool(lambda item: Solution(item=item, status="sat"))
    got = list(answers(Pipeline(options), pool, items))  # type: ignore[arg-type]
    assert [(s.item.line, s.status) for s in got] == [(1, "sat"), (2, "error"), (3, "sat")]
    assert "killed by signal 9" in got[1].message

    specs = [Spec("f.spec", k + 1, f"s{k}", text) for k, text in enumerate(["F a", "G b", "a U b"])]
    formulas = [parse_formula(s.formula) for s in specs]
    results = [SpecResult(item=item, status="pass", spec=spec) for item, spec in zip(items, specs)]
    requirements = Requirements([0, 1, 2], formulas, specs, [None] * 3, options, [])
    _findings(requirements, Decider(options), _DyingPool(lambda item: Vacuity()), "f.spec", results, None)  # type: ignore[arg-type]
    assert [(r.status, r.vacuity.state if r.vacuity else None) for r in results] == [
        ("pass", "clean"),
        ("error", None),
        ("pass", "clean"),
    ]
    assert "killed by signal 9" in results[1].message and "internal error" not in results[1].message


@settings(max_examples=100, deadline=None)
@given(st.lists(formulas(("a", "b"), max_leaves=4), min_size=1, max_size=4), traces(("a", "b")))
def test_an_earlier_witness_answers_a_question_exactly_when_it_satisfies_it(specs: list[Formula], trace) -> None:
    """The decider tries its earlier witnesses on a question conjunct by conjunct (a failing one
    stops at its first failing conjunct): the same verdict as checking the question whole."""
    question = And(*specs)
    mine = Decider(SolveOptions())
    mine._found.append(trace)
    whole = mine.satisfies(question, trace)
    answer = mine(question)
    assert (isinstance(answer, Sat) and answer.witness is trace) == whole
