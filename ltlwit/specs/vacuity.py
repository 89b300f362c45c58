"""Vacuity of a set of specifications: occurrences that the specs, taken together, do not need.

Definition (what `ltlwit check --vacuity` checks). Let S be the specs of one file that are
expected to be satisfiable, and C their conjunction. For a spec s in S and one occurrence o of
an atomic proposition or of a comparison over data (`speed > 50.0`) in s, let s[o := v] be s
with that occurrence (only) replaced by the constant v. Occurrences are those written: a
bounded operator reads its operand at several instants and is spelled out with a copy for each
(`O[0,3] p`, FRET's `persisted(100, p)`), but its author wrote one occurrence, replaced in
every copy. The occurrence is *vacuous* when for some v

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

A spec made of parts by a template (`polarity.Parts`: a FRET requirement, FRET's template
filled with the condition, response, stop condition and mode its author wrote) has the parts'
occurrences as candidates, each replaced in every copy of its part; its polarity is the part's
(mixed where the template copies the part with both, as FRET's `H(!cond) | (... cond ...)`
does). The occurrences the template adds (FRET's `H(!trigger)`) are FRET's, not the author's,
and are never reported.

A spec's occurrences and questions share its `--timeout`: those not reached within it are
counted as unchecked (`Vacuity.unchecked`), not left to run on.

This is Beer et al.'s vacuity (replace a subformula by the constant that strengthens it),
asked about the specs themselves instead of about a system model: it flags a requirement whose
trigger other requirements exclude, a disjunct that can never be needed, an AP that is forced
anyway. Every question goes to the engine with the run's time budget; a question it cannot
answer in time makes the occurrence *undecided*, reported as such and never as clean. When C
itself is unsatisfiable every occurrence would be vacuous, so that is reported instead.

A question conjoins every spec, but its answer seldom needs all of them: it is first asked of
the specs that share an AP with the one whose occurrence is replaced, and when that is
satisfiable, of those plus the specs its witness violates, and so on (`subsets.conjoined`). An
unsatisfiable subset proves the question unsatisfiable; a witness that satisfies every spec
answers it. On the N-client arbiter each response's request is vacuous (the fairness spec
`G F req_i` already forces it), and its proof needs the mutex, that response, its fairness and
its no-spurious-grant spec, not the other N - 1 clients.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ltlwit.logic.formula import ATOM, FALSE, TRUE, Formula, Not, ap, rebuilt, transform
from ltlwit.logic.polarity import Parts, polarities, replace_at
from ltlwit.logic.result import Result, Unknown, Unsat
from ltlwit.logic.witness import Witness
from ltlwit.specs.subsets import Decide, conjoined, names


@dataclass(frozen=True)
class Occurrence:
    index: int  # position in Polish (pre)order of its part (or of the spec), 0-based
    ap: str  # the proposition, or the comparison as printed (`speed > 50.0`)
    nth: int  # 1-based among the occurrences of the same AP (comparison) in the spec
    polarity: int  # +1 positive, -1 negative, 0 both (under <-> or xor)
    #: The part of the spec it is in (`Parts`: a FRET requirement's condition, response...),
    #: and what that part is; None where the spec is one part.
    part: int | None = None
    in_part: str | None = None


@dataclass(frozen=True)
class Finding:
    """An occurrence that is vacuous (`undecided`: the engine ran out of budget on it)."""

    occurrence: Occurrence
    value: bool  # the constant it can be replaced by
    replaced: Formula  # the spec with the occurrence replaced (its part, where it has parts)
    undecided: bool = False
    reason: str | None = None

    @property
    def key(self) -> str:
        """The finding as an acknowledgment names it (`specs.files.acknowledgment`)."""
        from ltlwit.specs.files import finding_subject

        return f"{'undecided' if self.undecided else 'vacuous'} {finding_subject(self.occurrence.ap)}:{self.occurrence.nth}"


@dataclass(frozen=True)
class Vacuity:
    """A spec's findings, and how many of its occurrences were not checked: its `--timeout`
    ran out before their questions were asked; `skipped`: none were asked, the spec not being
    among the requirements judged together (`specs.together`)."""

    findings: list[Finding] = field(default_factory=list)
    unchecked: int = 0
    skipped: bool = False

    @property
    def state(self) -> str:
        """What a reader of --vacuity's results counts: vacuous (an occurrence is), undecided
        (none is known to be, not all were decided), clean, or skipped."""
        if self.skipped:
            return "skipped"
        if any(not f.undecided for f in self.findings):
            return "vacuous"
        return "undecided" if self.unchecked or any(f.undecided for f in self.findings) else "clean"


def occurrences(formula: Formula, part: int | None = None, polarity: int = 1) -> list[Occurrence]:
    """The occurrences of propositions and comparisons in a formula, in Polish order, with
    their polarity (times `polarity`, the polarity of the part they are in; 0 stays 0)."""
    out: list[Occurrence] = []
    counts: dict[str, int] = {}
    for index, (node, own) in enumerate(zip(formula.walk(), polarities(formula))):
        if node.op in ("ap", ATOM):
            name = node.name or str(node.term)  # an AP's name, an atom's Term as written
            counts[name] = counts.get(name, 0) + 1
            out.append(Occurrence(index, name, counts[name], own * polarity, part))
    return out


def check_spec(
    specs: list[Formula],
    which: int,
    decide: Decide,
    parts: Parts | None = None,
    deadline: float | None = None,
    base: Witness | None = None,
) -> Vacuity:
    """Vacuous and undecided occurrences of `specs[which]` within the conjunction of `specs`
    (which must be satisfiable): those of its `parts` where it is made of parts (each replaced
    in every copy of its part), else every occurrence. Past `deadline` (a
    `time.perf_counter()` reading: the spec's `--timeout`, which its enumeration and questions
    share) the occurrences left are counted, not checked. `base`: a witness of all the specs
    (`subsets.completed` completes the witnesses of subsets with it)."""
    spec = specs[which]
    rest = [s for i, s in enumerate(specs) if i != which]
    if parts is not None and not _made_of(parts, spec, decide):
        parts = None
    candidates = _candidates(spec, parts)
    findings: list[Finding] = []
    for done, occ in enumerate(candidates):
        if deadline is not None and time.perf_counter() >= deadline:
            return Vacuity(_drop_undecided_beside_vacuous(findings), len(candidates) - done)
        values = (False,) if occ.polarity > 0 else (True,) if occ.polarity < 0 else (True, False)
        for value in values:
            replaced, shown = _replaced(spec, parts, occ, TRUE if value else FALSE)
            questions = [(specs, which, Not(replaced))]
            if occ.polarity == 0:
                questions.append((rest + [replaced], len(rest), Not(spec)))
            verdict = _all_unsat(questions, decide, base)
            if verdict is True:
                findings.append(Finding(occ, value, shown))
                break
            if isinstance(verdict, str):
                findings.append(Finding(occ, value, shown, undecided=True, reason=verdict))
    return Vacuity(_drop_undecided_beside_vacuous(findings))


def _made_of(parts: Parts, spec: Formula, decide: Decide) -> bool:
    """Whether the template filled with its parts is the spec: the same formula, or one the
    engine proves equivalent with every comparison read as a proposition of its own (FRET's
    `ptExpanded` is its template filled and then simplified: `!!Y 1 & Y a` is `Y a` there)."""
    made = parts.formula()
    if made is spec:
        return True
    table: dict[object, Formula] = {}

    def opaque(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.op == ATOM:
            return table.setdefault(node.term, ap(f"__atom_{len(table)}"))
        return rebuilt(node, kids)

    question = Not(Formula("<->", (transform(made, opaque), transform(spec, opaque))))
    return isinstance(decide(question), Unsat)


def _candidates(spec: Formula, parts: Parts | None) -> list[Occurrence]:
    if parts is None:
        return occurrences(spec)
    out: list[Occurrence] = []
    counts: dict[str, int] = {}
    for k, part in enumerate(parts.parts):
        for occ in occurrences(part, k, parts.polarity(k)):
            counts[occ.ap] = counts.get(occ.ap, 0) + 1
            label = parts.labels[k] if k < len(parts.labels) else None
            out.append(Occurrence(occ.index, occ.ap, counts[occ.ap], occ.polarity, k, label))
    return out


def _replaced(spec: Formula, parts: Parts | None, occ: Occurrence, value: Formula) -> tuple[Formula, Formula]:
    """The spec with `occ` replaced by `value`, and what a finding shows of it: the spec, or
    the part the occurrence is in."""
    if parts is None or occ.part is None:
        replaced = replace_at(spec, occ.index, value)
        return replaced, replaced
    filled = list(parts.parts)
    filled[occ.part] = replace_at(parts.parts[occ.part], occ.index, value)
    return parts.formula(filled), parts.piece(occ.part, filled)


#: A question: specs, the one of them its claim is about, and the claim conjoined with them.
Question = tuple[list[Formula], int, Formula]


def _all_unsat(questions: list[Question], decide: Decide, base: Witness | None) -> bool | str:
    """True: every question is unsatisfiable; False: one is satisfiable; a reason: undecided."""
    reason = None
    for q in questions:
        result = _conjoined(*q, decide, base=base)
        if isinstance(result, Unknown):
            reason = result.reason or "no answer within the budget"
        elif not isinstance(result, Unsat):
            return False
    return True if reason is None else reason


def _conjoined(specs: list[Formula], about: int, claim: Formula, decide: Decide, base: Witness | None = None) -> Result:
    """`subsets.conjoined`, starting from the specs that share a name with `specs[about]` or `claim`."""
    return conjoined(specs, names(specs[about]) | names(claim), claim, decide, frozenset({about}), base)[0]


def _drop_undecided_beside_vacuous(findings: list[Finding]) -> list[Finding]:
    """An occurrence found vacuous with one constant needs no 'undecided' for the other."""
    vacuous = {f.occurrence for f in findings if not f.undecided}
    return [f for f in findings if not f.undecided or f.occurrence not in vacuous]
