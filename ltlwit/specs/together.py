"""The questions about a spec file's specs together: scenarios, the conjunction (its conflicts),
vacuity and redundancy (`ltlwit check`'s stages after each spec's own verdict).

Scenarios (`allowed`, `forbidden`, `implied`) are judged against the requirements of their file
(its specs expected `sat`; a FRET export's: those of the scenario's project), all together:
`allowed` passes with a witness of the requirements and the scenario, `forbidden` when no trace
satisfies both (the requirements that rule it out named: a core), `implied` when no trace of
the requirements violates the property (the requirements that imply it named); otherwise each
fails with the trace that shows it. A requirement set that conflicts alone makes every scenario
forbidden and every property implied: that fails too, naming the conflict.

The requirements of a set are those that read and whose names mean one thing in all of them
(each set's names are read once, `specs.reading`: only a FRET export's components may read a
name otherwise); the others are named as left out. Every question goes to one `Decider` per set
(witnesses shared), asked in order of weight: the conjunction first, then each requirement's
vacuity and redundancy, each within its own `--timeout` and the run's `--budget`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Generator, Iterator, Sequence

from ltlwit.logic import stage
from ltlwit.logic.core import Core, all_conflicts, unsat_core
from ltlwit.logic.formula import And, Formula, Not
from ltlwit.logic.polarity import Parts
from ltlwit.logic.result import Sat, Unknown, Unsat
from ltlwit.logic.witness import Witness
from ltlwit.pipeline.answers import internal_error, plural
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.options import SolveOptions
from ltlwit.specs.decider import Decider
from ltlwit.specs.files import SCENARIOS, Spec
from ltlwit.specs.reading import ParsedSpec, written_parts
from ltlwit.specs.run import CheckOptions, ConjunctionResult, Redundancy, ScenarioCore, SpecResult, vacuity_of
from ltlwit.specs.subsets import conjoined, covering, few, jointly, names
from ltlwit.specs.vacuity import Vacuity

if TYPE_CHECKING:
    from ltlwit.pipeline.parallel import Pool

#: Questions a requirement's redundancy asks of a few of the others before asking of them all.
FIRST_ROUNDS = 3
#: Traces the requirements' fingerprints are taken on (`logic.fingerprint`), to choose those few.
FINGERPRINT_TRACES = 256


@dataclass(frozen=True)
class Requirements:
    """A set's requirements that go together: their places in the file, the options their
    questions are asked with (their declarations merged), and those left out with the reason."""

    at: list[int]
    formulas: list[Formula]
    specs: list[Spec]
    parts: list[Parts | None]
    solve: SolveOptions
    left_out: list[tuple[Spec, str]]

    @property
    def apart(self) -> str:
        return "; left out: " + ", ".join(_left_out(self.left_out)) if self.left_out else ""


def judge_together(
    where: str,
    parsed: list[ParsedSpec],
    results: list[SpecResult],
    options: CheckOptions,
    solve: SolveOptions,
    pool: Pool | None,
) -> Generator[ConjunctionResult, None, list[SpecResult]]:
    """Each set's (a FRET export's projects; else the file's) scenarios judged, and with
    `options.together` its conjunction, vacuity and redundancy: yields each set's conjunction
    result as soon as it is decided, and returns `results` completed."""
    results = list(results)
    semantics = _one_semantics(where, parsed, results, options, solve)
    if isinstance(semantics, ConjunctionResult) or semantics is None:
        if semantics is not None:
            yield semantics
        return results
    solve = replace(solve, semantics=semantics)
    for group in dict.fromkeys(p.spec.group for p in parsed):
        scope = [i for i, p in enumerate(parsed) if p.spec.group == group]
        requirements = _requirements(parsed, scope, solve)
        decide = Decider(requirements.solve)
        for i in scope:
            p = parsed[i]
            if p.formula is not None and p.spec.expect in SCENARIOS and results[i].status == "unknown":
                results[i] = _scenario(results[i], p.spec, p.formula, requirements, decide)
        if options.similar:
            _similar(requirements, options.similar, results)
        if not options.together:
            continue
        if options.vacuity:
            for i in scope:
                if i not in requirements.at and results[i].status != "error":
                    results[i] = replace(results[i], vacuity=Vacuity(skipped=True))
        if not requirements.formulas:
            continue
        conjunction = _conjunction(where, requirements, decide, options.all_cores)
        yield replace(conjunction, group=group)
        if conjunction.status != "pass":
            continue
        if options.vacuity:
            _findings(requirements, decide, pool, where, results, conjunction.witness)
        if options.redundancy:
            _redundancy(requirements, decide, results, conjunction.witness)
    return results


def _one_semantics(
    where: str, parsed: list[ParsedSpec], results: list[SpecResult], options: CheckOptions, solve: SolveOptions
) -> str | ConjunctionResult | None:
    """The semantics the file's joint questions are asked under, its requirements'; where
    they mix finite and infinite, the scenarios are errors and so is the conjunction (returned,
    with `together`; else None). A scenario under the other semantics is an error."""
    requirements = [p for p in parsed if p.formula is not None and p.spec.expect == "sat"]
    kinds = {p.spec.semantics or solve.semantics for p in requirements}
    scenarios = [i for i, p in enumerate(parsed) if p.formula is not None and p.spec.expect in SCENARIOS]
    if len(kinds) > 1:
        for i in scenarios:
            results[i] = replace(
                results[i],
                status="error",
                message="a scenario is judged against the requirements, and these mix finite and infinite semantics",
            )
        if not options.together:
            return None
        return ConjunctionResult(
            item=InputItem(f"the {plural(len(requirements), 'spec')} expected satisfiable", where, 0),
            status="error",
            count=len(requirements),
            message="vacuity needs the specs of a file under one semantics; these mix finite and infinite",
        )
    semantics = kinds.pop() if kinds else solve.semantics
    for i in scenarios:
        own = parsed[i].spec.semantics or solve.semantics
        if own != semantics:
            results[i] = replace(
                results[i],
                status="error",
                message=f"a scenario under {own} semantics is judged against requirements under {semantics} semantics",
            )
    return semantics


def _requirements(parsed: list[ParsedSpec], scope: list[int], solve: SolveOptions) -> Requirements:
    """The requirements of `scope` that go together (module docstring), in file order: each
    whose declarations clash with those kept before it is left out, with the reason."""
    from ltlwit.logic.theory.reading import merged, typed_together
    from ltlwit.logic.theory.sorts import SortError

    declared = solve.declarations
    kept: list[int] = []
    formulas: dict[int, Formula] = {}  # the kept ones', by place
    left_out = [
        (parsed[i].spec, "unreadable") for i in scope if parsed[i].formula is None and parsed[i].spec.expect == "sat"
    ]
    for i in scope:
        p = parsed[i]
        if p.formula is None or p.spec.expect != "sat":
            continue
        try:
            declared = merged(declared, p.spec.declarations)
        except SortError as exc:
            left_out.append((p.spec, str(exc) + _read_first_by(exc.name, [parsed[j].spec for j in kept])))
            continue
        kept.append(i)
        formulas[i] = p.formula
    if len({parsed[i].spec.component for i in kept}) > 1:  # read apart: their names may still clash
        together, apart = typed_together([formulas[i] for i in kept], declared)
        left_out += [(parsed[kept[k]].spec, why) for k, why in apart]
        kept = [kept[k] for k in together]
    return Requirements(
        kept,
        [formulas[i] for i in kept],
        [parsed[i].spec for i in kept],
        [parsed[i].parts for i in kept],
        replace(solve, declarations=declared),
        left_out,
    )


def _read_first_by(name: str | None, kept: list[Spec]) -> str:
    """Which requirement kept before reads `name` the other way (the first of its component),
    for the reason a requirement is left out: the clash is between the two."""
    for spec in kept:
        own = spec.declarations
        if own is not None and (name in own.variables or any(f == name for (f, _), _ in own.functions)):
            where = f", component {spec.component}," if spec.component else ""
            return f" ({spec.name or spec.where}{where} reads it the first way)"
    return ""


def _scenario(
    result: SpecResult, spec: Spec, formula: Formula, requirements: Requirements, decide: Decider
) -> SpecResult:
    """One scenario (`spec`, read as `formula`) judged against the requirements (module docstring)."""
    problem = _unjudged(spec, formula, requirements)
    if problem is not None:
        return replace(result, status="error", message=problem)
    start = time.perf_counter()
    asked = Not(formula) if spec.expect == "implied" else formula
    with stage.within(f"scenario {spec.label}"):
        try:
            verdict = decide(And(*requirements.formulas, asked))
        except ValueError as exc:
            return replace(result, status="error", message=str(exc))
        apart = requirements.apart

        def done(**kw) -> SpecResult:
            return replace(result, time_ms=_ms(start), source="engine", **kw)

        if isinstance(verdict, Unknown):
            return done(status="unknown", verdict="unknown", message=(verdict.reason or "no answer") + apart)
        if isinstance(verdict, Sat):
            return _scenario_allowed(spec, verdict, apart, done)
        core = unsat_core([*requirements.formulas, asked], decide, decide.expiry(start))
    return _scenario_ruled_out(spec, core, requirements, done)


def _unjudged(spec: Spec, formula: Formula, requirements: Requirements) -> str | None:
    """Why a scenario cannot be judged against the requirements, or None: there are none, or
    its names do not mean what they do in theirs (it was read apart from them: in another
    FRET component)."""
    if not requirements.formulas:
        return (
            f"a scenario expected {spec.expect} needs requirements (specs expected sat) "
            "to be judged against; this file has none"
        )
    if spec.declarations != requirements.solve.declarations:  # read apart from them
        from ltlwit.logic.theory.reading import clash

        problem = clash(And(*requirements.formulas, formula), requirements.solve.declarations)
        if problem is not None:
            return f"with the requirements: {problem}"
    return None


def _scenario_allowed(spec: Spec, verdict: Sat, apart: str, done: Callable[..., SpecResult]) -> SpecResult:
    """A scenario some trace of the requirements satisfies (`allowed`), or whose property one
    violates (`implied`)."""
    if spec.expect == "allowed":
        return done(status="pass", verdict="allowed", witness=verdict.witness, message=apart[2:] or None)
    if spec.expect == "forbidden":
        return done(
            status="fail",
            verdict="allowed",
            witness=verdict.witness,
            message="expected forbidden, but the requirements allow it" + apart,
        )
    return done(
        status="fail",
        verdict="not implied",
        counterexample=verdict.witness,
        message="expected implied, but a trace the requirements allow violates it" + apart,
    )


def _scenario_ruled_out(
    spec: Spec, core: Core, requirements: Requirements, done: Callable[..., SpecResult]
) -> SpecResult:
    """A scenario no trace of the requirements satisfies (`forbidden`), or whose property none
    violates (`implied`), with the requirements that do it (`core`: of them and the question,
    last): a core without the question says they conflict alone, one without requirements that
    the question is unsatisfiable whatever they say."""
    named = tuple(requirements.specs[m] for m in core.members if m < len(requirements.formulas))
    names_ = ", ".join(s.cited for s in named)
    proven = "" if core.minimal else " (not proven minimal)"
    apart = requirements.apart
    if len(requirements.formulas) not in core.members:
        return done(
            status="fail",
            verdict="implied" if spec.expect == "implied" else "forbidden",
            core=ScenarioCore(named, core.minimal),
            message=f"the requirements contradict each other ({names_}{proven}): every scenario is "
            "forbidden and every property implied" + apart,
        )
    if not named:  # the question alone is unsatisfiable: whatever the requirements
        alone = "valid: every trace satisfies it" if spec.expect == "implied" else "no trace satisfies it"
        return done(
            status="fail" if spec.expect == "allowed" else "pass",
            verdict="implied" if spec.expect == "implied" else "forbidden",
            message=f"{alone}, whatever the requirements" + apart,
        )
    if spec.expect == "allowed":
        return done(
            status="fail",
            verdict="forbidden",
            core=ScenarioCore(named, core.minimal),
            message=f"expected allowed, but the requirements rule it out: {names_}{proven}" + apart,
        )
    word = "ruled out by" if spec.expect == "forbidden" else "implied by"
    return done(
        status="pass",
        verdict=spec.expect,
        core=ScenarioCore(named, core.minimal),
        message=f"{word} {names_}{proven}" + apart,
    )


def _conjunction(where: str, requirements: Requirements, decide: Decider, every: bool) -> ConjunctionResult:
    """Whether the requirements hold together; when they do not, a minimal set of them that
    conflicts (with `every`, all of them and every minimal correction set)."""
    formulas = requirements.formulas
    item = InputItem(f"the {plural(len(formulas), 'spec')} expected satisfiable", where, 0)
    start = time.perf_counter()
    with stage.within(f"the {plural(len(formulas), 'requirement')} together"):
        try:
            verdict, used = jointly(formulas, decide)
        except ValueError as exc:
            return ConjunctionResult(item=item, status="error", count=len(formulas), message=str(exc))
        if isinstance(verdict, Unknown):
            message = (verdict.reason or "no answer within the budget") + requirements.apart
            return ConjunctionResult(
                item=item, status="unknown", count=len(formulas), time_ms=_ms(start), message=message
            )
        if isinstance(verdict, Sat):
            return ConjunctionResult(
                item=item,
                status="pass",
                count=len(formulas),
                time_ms=_ms(start),
                witness=verdict.witness,
                message=requirements.apart[2:] or None,
            )
        expired = decide.expiry(start)
        failed = _conflict(item, requirements, used, decide, expired)
        if every:  # within what is left of the budget
            failed = _every_conflict(failed, requirements, decide, expired)
    return replace(failed, time_ms=_ms(start))


def _conflict(
    item: InputItem, requirements: Requirements, used: list[int], decide: Decider, expired: Callable[[], bool]
) -> ConjunctionResult:
    """The requirements that conflict, as a failed conjunction: a core sought among `used`
    (`jointly`'s group of them without a model), which holds one, not among all of them."""
    core = unsat_core([requirements.formulas[i] for i in used], decide, expired)
    conflict = tuple(requirements.specs[used[m]] for m in core.members)
    named = ", ".join(spec.cited + (f' "{spec.note}"' if spec.note else "") for spec in conflict)
    proven = ("" if core.minimal else " (not proven minimal)") + requirements.apart
    return ConjunctionResult(
        item=item,
        status="fail",
        count=len(requirements.formulas),
        message=f"jointly unsatisfiable: no trace satisfies all of them; these conflict: {named}{proven}",
        conflict=conflict,
        conflict_minimal=core.minimal,
    )


def _every_conflict(
    failed: ConjunctionResult, requirements: Requirements, decide: Decider, expired: Callable[[], bool]
) -> ConjunctionResult:
    """A failed conjunction with every minimal conflicting set and correction set found before
    `expired` (`--all-cores`): the smallest corrections first, the least to give up."""
    found = all_conflicts(requirements.formulas, decide, expired)
    specs = requirements.specs
    return replace(
        failed,
        conflicts=tuple(tuple(specs[m] for m in c) for c in found.cores),
        corrections=tuple(sorted((tuple(specs[m] for m in c) for c in found.corrections), key=len)),
        complete=found.complete,
        message=f"{failed.message}; {plural(len(found.cores), 'conflicting set')}, "
        f"{plural(len(found.corrections), 'correction set')}" + ("" if found.complete else " found so far"),
    )


def _findings(
    requirements: Requirements,
    decide: Decider,
    pool: Pool | None,
    where: str,
    results: list[SpecResult],
    base: Witness | None,
) -> None:
    """Each requirement's vacuity, into `results` (`base`: a witness of them all)."""
    for i, found in zip(requirements.at, _vacuities(requirements, decide, pool, where, base)):
        if isinstance(found, WorkerDied):
            results[i] = replace(results[i], status="error", message=str(found))
            continue
        if isinstance(found, Exception):
            results[i] = replace(results[i], status="error", message=internal_error(found), exception=found)
            continue
        results[i] = replace(results[i], vacuity=found)


class WorkerDied(Exception):
    """The worker asking a requirement's vacuity questions died on them (`Lost`: killed by the
    system, out of memory); the requirement's answer says so, the others keep theirs."""


def _vacuities(
    requirements: Requirements, decide: Decider, pool: Pool | None, where: str, base: Witness | None
) -> Iterator[Vacuity | Exception]:
    """Each requirement's vacuity (or the exception checking it raised), by the workers with
    `pool`: its occurrences those of its template's parts (a FRET requirement's), else those
    written (`written_parts`)."""
    formulas = requirements.formulas
    parts = [
        made if made is not None else written_parts(spec, spec.syntax or requirements.solve.syntax, formula)
        for made, spec, formula in zip(requirements.parts, requirements.specs, formulas)
    ]
    if pool is not None:
        which = [InputItem("", where, k) for k in range(len(formulas))]
        from ltlwit.pipeline.worker import Lost

        for found in pool.imap("findings", which, context=(formulas, parts, decide.options, base)):
            if isinstance(found, Lost):  # a worker died on this requirement's questions by itself
                yield WorkerDied(found.message)
            else:
                yield from found
        return
    for k, spec in enumerate(requirements.specs):
        with stage.within(f"vacuity of {spec.label} ({k + 1} of {len(formulas)})"):
            try:
                yield vacuity_of(formulas, k, decide, parts[k], base)
            except Exception as exc:  # noqa: BLE001 - one spec's bug must not cost the report
                yield exc


def _redundancy(requirements: Requirements, decide: Decider, results: list[SpecResult], base: Witness | None) -> None:
    """Each requirement of a consistent set judged against the others, into `results`:
    redundant when they imply it (no trace of theirs violates it), with a set of them that does
    (a core of the others and its negation).

    Asked in two steps. First of a few of the others (`subsets.covering`, at most
    `FIRST_ROUNDS` small questions): those its fingerprint neighbours and the traces that tell
    them apart point to, a restatement or a stronger version of it proven so in one question.
    Then, where those do not settle it, of all the others (`subsets.conjoined`: those sharing
    its names first), and the core sought among the first few of those that decided it
    (`subsets.few`) rather than among hundreds."""
    formulas = requirements.formulas
    prints = _fingerprints(formulas, requirements.solve.semantics)
    for k, (i, formula) in enumerate(zip(requirements.at, formulas)):
        others = formulas[:k] + formulas[k + 1 :]
        specs = requirements.specs[:k] + requirements.specs[k + 1 :]
        if not others:
            results[i] = replace(results[i], redundancy=Redundancy("needed"))
            continue
        start = time.perf_counter()
        with stage.within(f"redundancy of {requirements.specs[k].label} ({k + 1} of {len(formulas)})"):
            bounded = decide.bounded(decide.options.deadline(start))
            found = None
            if prints is not None:
                theirs = prints[:k] + prints[k + 1 :]
                fails = ~prints[k] & ((1 << FINGERPRINT_TRACES) - 1)
                nearest = sorted(range(len(others)), key=lambda j: (theirs[j] ^ prints[k]).bit_count())
                found = covering(others, Not(formula), theirs, fails, nearest, bounded, FIRST_ROUNDS)
            if found is None:
                try:
                    verdict, used = conjoined(others, names(formula), Not(formula), bounded, base=base)
                except ValueError:
                    verdict, used = Unknown("the engine cannot decide it"), []
                if isinstance(verdict, Sat):
                    results[i] = replace(results[i], redundancy=Redundancy("needed"))
                    continue
                if not isinstance(verdict, Unsat):
                    why = verdict.reason if isinstance(verdict, Unknown) else None
                    results[i] = replace(results[i], redundancy=Redundancy("undecided", reason=why or None))
                    continue
                found = used
                if prints is not None:
                    among = set(used)
                    found = few(others, Not(formula), theirs, fails, [j for j in nearest if j in among], bounded)
            core = unsat_core([*(others[j] for j in found), Not(formula)], bounded, decide.expiry(start))
        implied_by = tuple(specs[found[m]] for m in core.members if m < len(found))
        results[i] = replace(results[i], redundancy=Redundancy("redundant", implied_by, core.minimal))


def _fingerprints(formulas: list[Formula], semantics: str) -> list[int] | None:
    """The formulas' fingerprints on `FINGERPRINT_TRACES` traces, where they prove something:
    not over data (a skeleton's fingerprint ranks but proves nothing)."""
    if any(f.data for f in formulas):
        return None
    from ltlwit.logic.fingerprint import Fingerprints

    return list(Fingerprints(semantics, FINGERPRINT_TRACES).many(formulas))


def _similar(requirements: Requirements, top: int, results: list[SpecResult]) -> None:
    """Each requirement's `top` nearest among the others, by fingerprint, each one's relation to
    it decided (`specs.similar`), into `results`."""
    from ltlwit.specs.similar import Compared, similar

    solve = requirements.solve
    pool = [
        Compared(spec.formula, formula, solve.semantics, solve.declarations, spec.name, f"{spec.file}:{spec.line}")
        for spec, formula in zip(requirements.specs, requirements.formulas)
    ]
    with stage.within(f"the nearest of {plural(len(pool), 'requirement')}"):
        for i, answer in zip(requirements.at, similar(pool, None, solve, top)):
            results[i] = replace(results[i], similar=answer.neighbours)


def _left_out(specs: Sequence[tuple[Spec, str]]) -> list[str]:
    return [f"{s.name} ({s.where}, {why})" if s.name else f"{s.where} ({why})" for s, why in specs]


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)
