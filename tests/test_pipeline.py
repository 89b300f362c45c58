"""The pipeline with hand-made candidate sources: what a model proposes is only ever a
suggestion. Lying sources prove that nothing unverified is printed; honest ones that the
winning candidate is renamed back, ranked, attributed and counted correctly."""

from __future__ import annotations

import random
from typing import Callable, Sequence

from ltl_reference import random_completions, satisfies
from prop_reference import brute_entails, brute_minimal

from ltlwit.cli.status import ExitStatus, exit_status
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula, Not, ap
from ltlwit.logic.ltl import solve as engine_solve
from ltlwit.logic.result import Sat
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Invalid
from ltlwit.pipeline import Pipeline
from ltlwit.pipeline.answers import Solution
from ltlwit.pipeline.coreform import CORE_OPS
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.options import SolveOptions
from ltlwit.pipeline.sources import Proposal

Propose = Callable[[Formula], list[object]]


class Fake:
    """A candidate source from a function formula -> predictions (scores descending)."""

    def __init__(
        self,
        propose: Propose,
        label: str = "model:si",
        task: str = "ltl",
        max_aps: int | None = None,
        scores: Sequence[float] | None = None,
    ) -> None:
        self.fn, self.label, self.task, self.max_aps, self.scores = propose, label, task, max_aps, scores
        self.calls: list[list[Formula]] = []

    def propose(self, formulas: Sequence[Formula]) -> list[list[Proposal]]:
        self.calls.append(list(formulas))
        out = []
        for f in formulas:
            preds = self.fn(f)
            scores = self.scores or [-0.1 * (i + 1) for i in range(len(preds))]
            out.append([Proposal(p, s, self.label) for p, s in zip(preds, scores)])  # type: ignore[arg-type]
        return out


def run(texts: Sequence[str], *sources: Fake, **options: object) -> list[Solution]:
    by_task: dict[str, list[Fake]] = {}
    for s in sources:
        by_task.setdefault(s.task, []).append(s)
    items = [InputItem(t, f"<arg {i}>", 1, from_argument=True) for i, t in enumerate(texts, 1)]
    return list(Pipeline(SolveOptions(**options), sources=by_task).run(items))  # type: ignore[arg-type]


def refuting_trace(f: Formula) -> Trace | None:
    """A trace on which f fails for every word: the engine's witness of !f (None if f is valid)."""
    result = engine_solve(Not(f))
    return result.witness if isinstance(result, Sat) else None  # type: ignore[return-value]


def lies(f: Formula) -> list[object]:
    """Every way to be wrong: a refuting trace, junk, a made-up AP, the wrong kind of witness."""
    out: list[object] = [Invalid(("junk",)), Trace((), (ap("p99"),)), Assignment.of({"a": True})]
    wrong = refuting_trace(f)
    return ([wrong] if wrong is not None else []) + out


def holds_by_reference(formula: Formula, trace: Trace, seed: int = 0) -> bool:
    """The independent textbook evaluator on random concrete words of the trace."""
    names = list(dict.fromkeys(formula.aps() + trace.aps()))
    return all(satisfies(formula, p, c) for p, c in random_completions(trace, names, random.Random(seed)))


LTL_INPUTS = [
    "G(req -> F grant) & F req",
    "a U (b & X !a)",
    "GFa & FG!a",
    "F(x & X !x) & G y",
    "(p R q) & F !q",
    "G(a -> X b) & F a & G !b",
    "a W b & !a & !b",
    "X X X c",
]


def test_a_lying_model_never_gets_a_witness_printed() -> None:
    liar = Fake(lies)
    outcomes = run(LTL_INPUTS, liar)
    assert len(liar.calls) > 0 and [o.item.text for o in outcomes] == LTL_INPUTS
    for o in outcomes:
        formula = parse_formula(o.item.text)
        if o.status == "sat":
            assert (o.source, o.verified, o.rank) == ("engine", True, None)
            assert holds_by_reference(formula, o.witness)  # type: ignore[arg-type]
        assert o.candidates_tried == len(lies(liar_input(liar, o)))
    assert [o.status for o in outcomes].count("unsat") == 3  # GFa & FG!a, G(a -> Xb) & Fa & G!b, a W b & !a & !b


def liar_input(liar: Fake, outcome: Solution) -> Formula:
    """The slotted formula the liar was shown for an outcome's input (inputs are in order)."""
    seen = [f for call in liar.calls for f in call]
    return seen[LTL_INPUTS.index(outcome.item.text)]


def test_the_lying_model_through_the_cli_prints_only_checked_witnesses(monkeypatch) -> None:
    """The whole command, printer included, with the registry's model replaced by the liar."""
    from cli_support import json_lines
    from cli_support import run as cli_run

    from ltlwit.pipeline import run as pipeline_run
    from ltlwit.pipeline.models import Selection

    monkeypatch.setattr(pipeline_run, "select", lambda options: Selection({"ltl": ("si-ltl",), "prop": ()}))
    monkeypatch.setattr(pipeline_run, "load", lambda name, device, threads: (None, {"task": "ltl"}))
    monkeypatch.setattr(pipeline_run, "NeuralSource", lambda *args: Fake(lies))
    monkeypatch.setattr("ltlwit.pipeline.models.check_device", lambda device: None)
    result = cli_run("solve", "--format", "json", "--model", "si", *LTL_INPUTS)
    records = json_lines(result.stdout)
    assert len(records) == len(LTL_INPUTS)
    for record in records:
        assert record["source"] in ("engine", None) and record["candidates_tried"] >= 3
        if record["status"] == "sat":
            assert record["verified"] is True
            assert holds_by_reference(parse_formula(record["input"]), parse_trace(record["witness"]))


def test_the_first_verified_candidate_wins_renamed_back() -> None:
    def honest_third(f: Formula) -> list[object]:
        witness = engine_solve(f).witness  # type: ignore[union-attr]
        return [refuting_trace(f), Invalid(()), witness]

    source = Fake(honest_third)
    (o,) = run(["G(req -> F grant) & F req & G !idle"], source)
    (seen,) = source.calls[0]
    assert seen.aps() == ("a", "b", "c")  # canonical slots, first appearance in Polish order
    assert all(n.op == "ap" or n.op in CORE_OPS["ltl"] for n in seen.walk())
    assert (o.status, o.source, o.rank, o.candidates_tried, o.verified) == ("sat", "model:si", 3, 3, True)
    assert set(o.witness.aps()) <= {"req", "grant", "idle"}  # type: ignore[union-attr]
    assert holds_by_reference(parse_formula(o.item.text), o.witness)  # type: ignore[arg-type]


def test_both_models_are_merged_by_score() -> None:
    good = lambda f: [engine_solve(f).witness]  # noqa: E731
    si = Fake(good, "model:si", scores=[-0.5])
    dual = Fake(good, "model:dual", scores=[-0.2])
    (o,) = run(["F a & G b"], si, dual)
    assert (o.source, o.rank, o.candidates_tried) == ("model:dual", 1, 1)  # the same witness is tried once
    si_better = Fake(lambda f: [refuting_trace(f)], "model:si", scores=[-0.1])
    (o,) = run(["F a & G b"], si_better, Fake(good, "model:dual", scores=[-0.2]))
    assert (o.source, o.rank, o.candidates_tried) == ("model:dual", 2, 2)


def test_all_reports_distinct_verified_witnesses() -> None:
    a = ap("a")
    cands = [Trace((), (a,)), Trace((), (Not(a),)), Trace((a,), (Formula("1"),)), Trace((), (a,))]
    outcomes = run(["F go"], Fake(lambda f: cands), all=True, top=3, fallback=False)
    assert [(str(o.witness), o.rank, o.source) for o in outcomes] == [
        ("cycle{go}", 1, "model:si"),
        ("go; cycle{1}", 3, "model:si"),
    ]
    with_engine = run(["F go"], Fake(lambda f: cands), all=True, top=3)
    witnesses = [o.witness for o in with_engine]
    assert 2 <= len(witnesses) <= 3 and len(set(witnesses)) == len(witnesses)
    assert all(o.verified and holds_by_reference(parse_formula("F go"), o.witness) for o in with_engine)


def test_no_fallback_answers_unknown_with_the_reason() -> None:
    (o,) = run(["F a"], Fake(lies), fallback=False)
    assert (o.status, o.witness, o.source) == ("unknown", None, None)
    assert o.message == "none of the 4 model candidates verified (--no-fallback)"
    (o,) = run(["F a & F b & F c"], Fake(lies, max_aps=2), fallback=False)
    assert o.message == "the models skipped the formula: more APs (3) than the models tell apart (--no-fallback)"
    (o,) = run(["a & b"], Fake(lies), fallback=False)
    assert o.message == "no prop model is in use (--no-fallback)" and exit_status(o) == ExitStatus.NEGATIVE


def test_dual_ap_limit_and_huge_formulas_skip_the_model() -> None:
    source = Fake(lies, max_aps=2)
    outcomes = run(["F a & F b", "F a & F b & F c"], source)
    assert [f.aps() for call in source.calls for f in call] == [("a", "b")]
    assert [(o.status, o.source, o.candidates_tried) for o in outcomes] == [("sat", "engine", 4), ("sat", "engine", 0)]
    unlimited = Fake(lies)
    big = " & ".join(f"F p{i % 3}" for i in range(40))  # core form far over MAX_MODEL_INPUT tokens
    (o,) = run([big], unlimited)
    assert unlimited.calls == [] and (o.status, o.source) == ("sat", "engine")


def test_a_crashing_model_costs_nothing_but_speed() -> None:
    def boom(f: Formula) -> list[object]:
        raise RuntimeError("CUDA out of memory\nsecond line")

    notices: list[tuple[str, BaseException | None]] = []
    source = Fake(boom)
    pipeline = Pipeline(SolveOptions(), sources={"ltl": [source]}, notify=lambda text, exc: notices.append((text, exc)))
    items = [InputItem(t, "f", i) for i, t in enumerate(["F a", "G b", "a U b", "X c"] * 3, 1)]
    outcomes = list(pipeline.run(items))
    assert [o.status for o in outcomes] == ["sat"] * 12 and {o.source for o in outcomes} == {"engine"}
    assert len(source.calls) == 1 and len(notices) == 1  # dropped after its first failure
    assert "model:si failed (RuntimeError: CUDA out of memory second line)" in notices[0][0]
    assert isinstance(notices[0][1], RuntimeError)  # for --traceback
    assert pipeline.model_failed


def test_a_propositional_model_answer_is_checked_and_made_minimal() -> None:
    def full_model(f: Formula) -> list[object]:
        names = f.aps()
        for bits in range(1 << len(names)):
            a = Assignment.of({n: bool(bits >> i & 1) for i, n in enumerate(names)})
            if brute_entails(a, f):
                return [Assignment.of({"a": True, "p77": False}), a]
        return []

    source = Fake(full_model, task="prop")
    texts = ["(x | y) & (y | z)", "(u <-> v) xor w", "q & !q", "r -> r"]
    outcomes = run(texts, source)
    for o in outcomes:
        formula = parse_formula(o.item.text)
        if o.status == "sat":
            assert o.source == "model:si" and o.rank == 2 and o.verified
            assert brute_entails(o.witness, formula) and brute_minimal(o.witness, formula)  # type: ignore[arg-type]
    assert outcomes[2].status == "unsat" and outcomes[2].source == "sat-solver"


def test_outputs_stay_in_input_order_while_batches_ramp_up() -> None:
    source = Fake(lambda f: [])
    texts = [f"F a{i} U b" if i % 3 else "a & !a" for i in range(300)]
    outcomes = run(texts, source, batch_size=64)
    assert [o.item.text for o in outcomes] == texts
    assert sum(len(c) for c in source.calls) == 200  # the LTL inputs; the others are propositional
    ltl_only = Fake(lambda f: [])
    run([f"F a{i}" for i in range(300)], ltl_only, batch_size=64)
    assert [len(c) for c in ltl_only.calls] == [1, 4, 16, 64, 64, 64, 64, 23]


def test_without_a_model_each_input_is_answered_before_the_next_is_read() -> None:
    read = []

    def items():
        for i in range(5):
            read.append(i)
            yield InputItem(f"F a{i}", "f", i + 1)

    stream = Pipeline(SolveOptions(model="none")).run(items())
    next(stream)
    assert read == [0]
