"""`check --redundancy` on temporal requirement sets: the verdicts are those of the whole
question (the others and the requirement's negation, asked at once), and the few specs that
the fingerprints point to (`subsets.covering`, `subsets.few`) are a proven reason."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import formulas

import ltlwit
from ltlwit.logic.fingerprint import Fingerprints
from ltlwit.logic.formula import And, Formula, Not
from ltlwit.logic.result import Sat, Unsat
from ltlwit.logic.syntax import parse_formula
from ltlwit.pipeline.options import SolveOptions
from ltlwit.specs.decider import Decider
from ltlwit.specs.run import SpecResult
from ltlwit.specs.subsets import covering, few


def _decide(formula: Formula) -> Sat | Unsat:
    result = Decider(SolveOptions())(formula)
    assert isinstance(result, (Sat, Unsat)), result
    return result


class _Counted:
    """A decider that counts the engine questions it is asked."""

    def __init__(self) -> None:
        self.decider = Decider(SolveOptions())
        self.asked: list[Formula] = []

    def __call__(self, formula: Formula):
        self.asked.append(formula)
        return self.decider(formula)

    def satisfies(self, formula, witness) -> bool:
        return self.decider.satisfies(formula, witness)

    def on_lassos(self):
        return self.decider.on_lassos()


def _question(texts: list[str], claimed: str) -> tuple[list[Formula], Formula, list[int], int, list[int]]:
    """The specs, the claim (the claimed spec's negation), their fingerprints, and the specs
    nearest first."""
    specs = [parse_formula(t, "spot") for t in texts]
    prints = Fingerprints("infinite", 256)
    mine = prints.of(parse_formula(claimed, "spot"))
    theirs = [prints.of(s) for s in specs]
    nearest = sorted(range(len(specs)), key=lambda j: (theirs[j] ^ mine).bit_count())
    return specs, Not(parse_formula(claimed, "spot")), theirs, ~mine & ((1 << 256) - 1), nearest


DISTRACTORS = ["G(a -> X c)", "G !(d & e)", "F e -> (!d U e)", "G(c -> F d)", "G(b -> (c U e))", "G(e -> X X a)"]


def test_a_restatement_is_found_in_one_question() -> None:
    specs, claim, prints, claimed, nearest = _question([*DISTRACTORS, "G(!a | F b)"], "G(a -> F b)")
    decide = _Counted()
    found = covering(specs, claim, prints, claimed, nearest, decide, rounds=3)
    assert found == [len(DISTRACTORS)] and len(decide.asked) == 1


def test_a_chain_is_found_among_specs_sharing_its_names() -> None:
    """`G(a -> c)` follows from `G(a -> b)` and `G(b -> c)`, not from either alone, while
    specs over its names that do not imply it stand nearer."""
    texts = [*DISTRACTORS, "G(a -> b)", "G(c -> X a)", "G(b -> c)", "G(a -> F c)"]
    specs, claim, prints, claimed, nearest = _question(texts, "G(a -> c)")
    found = covering(specs, claim, prints, claimed, nearest, _Counted(), rounds=3)
    assert found is not None and isinstance(_decide(And(*(specs[j] for j in found), claim)), Unsat)
    assert {texts[j] for j in found} >= {"G(a -> b)", "G(b -> c)"}


def test_a_spec_the_traces_cannot_tell_apart_is_asked_and_passed_over() -> None:
    """A spec with the claimed one's fingerprint that does not imply it (it differs from it on
    a lasso with a cycle of five, longer than the set's) is chosen first; the engine's witness
    against it is a trace the set lacked, covered next by a spec that does imply it."""
    odd = "X X X X X X X X c & !X X X X X X X X X c & !X X X X X X X X X X c & !X X X X X X X X X X X c"
    odd += " & !X X X X X X X X X X X X c"
    texts = [*DISTRACTORS, f"G(a -> F b) | ({odd})", "G(a -> b)"]
    specs, claim, prints, claimed, nearest = _question(texts, "G(a -> F b)")
    assert prints[len(DISTRACTORS)] == ~claimed & ((1 << 256) - 1)  # the same fingerprint
    decide = _Counted()
    found = covering(specs, claim, prints, claimed, nearest, decide, rounds=3)
    assert found is not None and len(decide.asked) == 2
    assert texts[found[-1]] == "G(a -> b)" and isinstance(_decide(And(*(specs[j] for j in found), claim)), Unsat)


def test_no_question_where_a_trace_of_the_set_holds_every_spec() -> None:
    """`G(a -> F b)` is not implied: some trace of the fingerprints' set satisfies every
    other spec and violates it, so nothing is asked."""
    specs, claim, prints, claimed, nearest = _question(["F c", "F(a & b)", "G(c -> X a)"], "G(a -> F b)")
    decide = _Counted()
    assert covering(specs, claim, prints, claimed, nearest, decide, rounds=3) is None
    assert decide.asked == []


def test_few_puts_the_specs_that_imply_it_first() -> None:
    """Among forty specs that together imply `G(a -> c)`, a prefix of a few of them does, asked
    in a few questions (not the forty's halving)."""
    texts = [f"G(x{k} -> X x{k + 1})" for k in range(36)] + ["G(a -> b)", "G(b -> c)", "G(c -> d)", "G(x0 -> a)"]
    specs, claim, prints, claimed, _ = _question(texts, "G(a -> c)")
    decide = _Counted()
    among = list(range(len(specs)))
    assert isinstance(_decide(And(*specs, claim)), Unsat)
    prefix = few(specs, claim, prints, claimed, among, decide)
    assert len(prefix) <= 4 and len(decide.asked) <= 3
    assert isinstance(_decide(And(*(specs[j] for j in prefix), claim)), Unsat)


@settings(max_examples=40, deadline=None)
@given(st.lists(formulas(aps=("a", "b", "c"), max_leaves=4, constants=False), min_size=2, max_size=5))
def test_redundancy_is_that_of_the_whole_question(requirements: list[Formula]) -> None:
    """Each temporal requirement is redundant exactly when the others, asked at once, imply it;
    those named imply it, and each of them is needed where the set is proven minimal."""
    if not isinstance(_decide(And(*requirements)), Sat):
        return  # the conjunction fails instead
    report = ltlwit.check(
        [f"r{k}: {f.to_str('spot')}" for k, f in enumerate(requirements)], redundancy=True, model="none"
    )
    specs = [r for r in report if isinstance(r, SpecResult)]
    assert len(specs) == len(requirements)
    for k, result in enumerate(specs):
        others = requirements[:k] + requirements[k + 1 :]
        implied = isinstance(_decide(And(And(*others), Not(requirements[k]))), Unsat)
        assert result.redundancy is not None
        assert result.redundancy.state == ("redundant" if implied else "needed"), (k, result.redundancy)
        if implied:
            named = [requirements[int(s.name[1:])] for s in result.redundancy.implied_by]
            assert isinstance(_decide(And(*named, Not(requirements[k]))), Unsat)
            if result.redundancy.minimal:
                for m in range(len(named)):
                    assert isinstance(_decide(And(*named[:m], *named[m + 1 :], Not(requirements[k]))), Sat)
