"""Vacuity of a set of specifications: AP occurrences that the specs, taken together, do not need.

Definition (what `ltlwit check --vacuity` checks). Let S be the specs of one file that are
expected to be satisfiable, and C their conjunction. For a spec s in S and one occurrence o of
an atomic proposition in s, let s[o := v] be s with that occurrence (only) replaced by the
constant v. The occurrence is *vacuous* when for some v

    C  is equivalent to  C with s replaced by s[o := v]

i.e. the traces the specs allow together are exactly the same whether that occurrence is there
or is the constant v. Which v: the one that makes s stronger — `false` for an occurrence of
positive polarity (under an even number of negations, counting the left of `->`), `true` for
negative polarity; for an occurrence under `<->` or `xor` (both polarities) both constants are
tried. For positive/negative polarity s[o := v] implies s, so the test is one implication,
C -> s[o := v], checked as "C & !s[o := v] is unsatisfiable"; for mixed polarity the converse
(rest & s[o := v] -> s) is checked too.

Example: with `response: G(req -> F grant)` and `quiet: G !req`, the occurrence of `grant` is
vacuous: the specs imply `G(req -> F false)` — no request ever comes, so whatever `response`
says about grants never matters. `req` is not: `G(1 -> F grant)` does not follow.

This is Beer et al.'s vacuity (replace a subformula by the constant that strengthens it),
asked about the specs themselves instead of about a system model: it flags a requirement whose
trigger other requirements exclude, a disjunct that can never be needed, an AP that is forced
anyway. Every question goes to the engine with the run's time budget; a question it cannot
answer in time makes the occurrence *undecided*, reported as such and never as clean. When C
itself is unsatisfiable every occurrence would be vacuous, so that is reported instead.

A question conjoins every spec, but its answer seldom needs all of them: it is first asked of
the specs that share an AP with the one whose occurrence is replaced, and when that is
satisfiable, of those plus the specs its witness violates, and so on (`_conjoined`). An
unsatisfiable subset proves the question unsatisfiable; a witness that satisfies every spec
answers it. On the N-client arbiter each response's request is vacuous (the fairness spec
`G F req_i` already forces it), and its proof needs the mutex, that response, its fairness and
its no-spurious-grant spec, not the other N - 1 clients.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ltlwit.logic.formula import FALSE, TRUE, And, Formula, Not
from ltlwit.logic.polarity import polarities, replace_at
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.logic.witness import is_witness

#: A decision procedure (satisfiability with a budget); the check memoises it per run.
Decide = Callable[[Formula], Result]


@dataclass(frozen=True)
class Occurrence:
    index: int  # position in Polish (pre)order, 0-based
    ap: str
    nth: int  # 1-based among the occurrences of the same AP in the spec
    polarity: int  # +1 positive, -1 negative, 0 both (under <-> or xor)


@dataclass(frozen=True)
class Finding:
    """An occurrence that is vacuous (`undecided`: the engine ran out of budget on it)."""

    occurrence: Occurrence
    value: bool  # the constant it can be replaced by
    replaced: Formula  # the spec with the occurrence replaced
    undecided: bool = False
    reason: str | None = None

    @property
    def key(self) -> str:
        """The finding as an acknowledgment names it (`specs.files.acknowledgment`)."""
        return f"{'undecided' if self.undecided else 'vacuous'} {self.occurrence.ap}:{self.occurrence.nth}"


def occurrences(formula: Formula) -> list[Occurrence]:
    """The AP occurrences of a formula, in Polish order, with their polarity."""
    out: list[Occurrence] = []
    counts: dict[str, int] = {}
    for index, (node, polarity) in enumerate(zip(formula.walk(), polarities(formula))):
        if node.op == "ap":
            counts[node.name] = counts.get(node.name, 0) + 1  # type: ignore[index]
            out.append(Occurrence(index, node.name, counts[node.name], polarity))  # type: ignore[arg-type]
    return out


def check_spec(specs: list[Formula], which: int, decide: Decide) -> list[Finding]:
    """Vacuous and undecided occurrences of `specs[which]` within the conjunction of `specs`
    (which must be satisfiable)."""
    spec = specs[which]
    rest = [s for i, s in enumerate(specs) if i != which]
    findings = []
    for occ in occurrences(spec):
        values = (False,) if occ.polarity > 0 else (True,) if occ.polarity < 0 else (True, False)
        for value in values:
            replaced = replace_at(spec, occ.index, TRUE if value else FALSE)
            questions = [(specs, which, Not(replaced))]
            if occ.polarity == 0:
                questions.append((rest + [replaced], len(rest), Not(spec)))
            verdict = _all_unsat(questions, decide)
            if verdict is True:
                findings.append(Finding(occ, value, replaced))
                break
            if isinstance(verdict, str):
                findings.append(Finding(occ, value, replaced, undecided=True, reason=verdict))
    return _drop_undecided_beside_vacuous(findings)


#: A question: specs, the one of them its claim is about, and the claim conjoined with them.
Question = tuple[list[Formula], int, Formula]


def _all_unsat(questions: list[Question], decide: Decide) -> bool | str:
    """True: every question is unsatisfiable; False: one is satisfiable; a reason: undecided."""
    reason = None
    for q in questions:
        result = _conjoined(*q, decide)
        if isinstance(result, Unknown):
            reason = result.reason or "no answer within the budget"
        elif not isinstance(result, Unsat):
            return False
    return True if reason is None else reason


def _conjoined(specs: list[Formula], about: int, claim: Formula, decide: Decide) -> Result:
    """Satisfiability of `claim` and every spec, asked of growing subsets of the specs (module
    docstring): first those sharing an AP with `specs[about]`, then each time also those that
    the subset's witness violates. Unsat of a subset is unsat of all; a witness of a subset
    that satisfies every spec is a witness of all; a subset left undecided leaves the whole
    question to `decide`."""
    names = set(specs[about].aps()) | set(claim.aps())
    chosen = {i for i, s in enumerate(specs) if i == about or names & set(s.aps())}
    while len(chosen) < len(specs):
        result = decide(And(*(specs[i] for i in sorted(chosen)), claim))
        if isinstance(result, Unsat):
            return result
        if not isinstance(result, Sat):
            break
        violated = {
            i for i, s in enumerate(specs) if i not in chosen and not is_witness(s, result.witness, semantics=None)
        }
        if not violated:
            return result
        chosen |= violated
    return decide(And(And(*specs), claim))


def _drop_undecided_beside_vacuous(findings: list[Finding]) -> list[Finding]:
    """An occurrence found vacuous with one constant needs no 'undecided' for the other."""
    vacuous = {f.occurrence for f in findings if not f.undecided}
    return [f for f in findings if not f.undecided or f.occurrence not in vacuous]
