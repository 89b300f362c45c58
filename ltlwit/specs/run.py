"""`ltlwit check` as a function: spec files in, one result per spec (and per file's conjunction
with --vacuity, --consistency, --redundancy) out.

A file is checked in stages: read (`specs.reading`: parsed, its names read once for all its
questions, a `one-event` file's activities), each spec's own verdict (`_verdicts`), then the
questions about its specs together (`specs.together`: scenarios, the conjunction and its
conflicts, vacuity, redundancy), then the acknowledgments of findings (`_acknowledged`).

Each spec is answered by the solving pipeline (model candidates validated, engine fallback):
`sat` passes with a verified witness, `unsat` passes when the engine proves it (a model never
claims unsatisfiability), `valid` passes when the negation is unsatisfiable and fails with a
verified counterexample otherwise. UNKNOWN (the budget ran out) never passes. A requirement
whose shape has a trigger (`G(req -> ...)`, a FRET requirement's condition) gets, with
`CheckOptions.fire`, a witness in which the trigger fires, where the requirement allows one
(`logic.triggers`); where it does not, its result says that its trigger can never fire.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, BinaryIO, ClassVar, Iterable, Iterator, Sequence

from ltlwit.logic.formula import And, Formula, Not
from ltlwit.logic.polarity import Parts
from ltlwit.logic.result import Sat, Unsat
from ltlwit.logic.witness import Witness
from ltlwit.pipeline import Pipeline
from ltlwit.pipeline.answers import Answer, Solution
from ltlwit.pipeline.inputs import STDIN_NAME, InputItem, SpecItem
from ltlwit.pipeline.options import SolveOptions
from ltlwit.specs.baseline import Entry, same_file
from ltlwit.specs.decider import Decider
from ltlwit.specs.files import SCENARIOS, Spec, acknowledges
from ltlwit.specs.reading import ParsedSpec, activities, read_file
from ltlwit.specs.similar import Neighbour
from ltlwit.specs.vacuity import Vacuity, check_spec

if TYPE_CHECKING:
    from ltlwit.logic.ltl.games import Verdict
    from ltlwit.pipeline.parallel import Chunk, Pool, RemoteError
    from ltlwit.pipeline.parsing import InputParser


@dataclass(frozen=True)
class Firing:
    """A requirement's witness asked to make its trigger fire (`CheckOptions.fire`): about the
    witness, which shows the trigger firing (`fires` True), or is one of a requirement that no
    trace fires (False: the trigger is vacuous by itself); None: the question was not decided
    (the spec's own answer is an error, or ran out)."""

    trigger: Formula
    fires: bool | None


@dataclass(frozen=True)
class ScenarioCore:
    """The requirements that rule a scenario out (`forbidden`, or an `allowed` one that fails)
    or imply it (`implied`), or that contradict each other, which does both; `minimal`: whether
    no smaller set of them does, proven within the budget."""

    requirements: tuple[Spec, ...]
    minimal: bool


#: The acknowledgment that covers a requirement's redundancy, by its state.
_REDUNDANCY_KEYS = {"redundant": "redundant", "undecided": "undecided redundancy"}


@dataclass(frozen=True)
class Redundancy:
    """With --redundancy, a requirement judged against the others: `state` "redundant" (they
    imply it: `implied_by`, a set of them that does, `minimal` where no smaller one does;
    empty: it is valid), "needed" or "undecided"."""

    state: str
    implied_by: tuple[Spec, ...] = ()
    minimal: bool | None = None
    #: Why it is undecided (the engine's reason: time, memory).
    reason: str | None = None

    @property
    def key(self) -> str | None:
        """The finding as an acknowledgment names it; None where it is no finding (needed)."""
        return _REDUNDANCY_KEYS.get(self.state)


@dataclass(frozen=True)
class Acknowledgments:
    """What a spec's acknowledgments (next to it or in the baseline: `acknowledge`) did: the
    keys of the findings they cover, which then do not fail the check, and those of them that
    cover none of a check that ran (`stale`), which do."""

    covered: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class SpecResult(Answer):
    """status: pass | fail | unknown | error. `verdict`: what the formula is (sat, unsat,
    valid, invalid, unknown; a scenario's: allowed, forbidden, implied, not implied); `witness`
    satisfies it, `counterexample` satisfies its negation. What each check that ran found of it
    travels in a record of its own, None where that check was not asked or is not about it, so
    that a reader tells a check that found nothing from one that did not run."""

    POSITIVE: ClassVar[str] = "pass"

    spec: Spec
    verdict: str | None = None
    witness: Witness | None = None
    #: A requirement with a trigger, with `CheckOptions.fire`: whether its witness fires it.
    firing: Firing | None = None
    counterexample: Witness | None = None
    source: str | None = None
    #: A scenario's, where requirements rule it out or imply it (None where it decides itself:
    #: unsatisfiable or valid whatever they say).
    core: ScenarioCore | None = None
    #: With --vacuity: a requirement's findings, or `skipped` (not among the requirements).
    vacuity: Vacuity | None = None
    #: With --redundancy, a requirement's (among those judged together).
    redundancy: Redundancy | None = None
    #: With --similar K, a requirement's K nearest requirements, each one's relation to it decided.
    similar: tuple[Neighbour, ...] | None = None
    acknowledgments: Acknowledgments = Acknowledgments()

    def is_acknowledged(self, key: str) -> bool:
        """Whether its finding `key` (`Finding.key`, `Redundancy.key`) is acknowledged."""
        return key in self.acknowledgments.covered

    @property
    def finding_keys(self) -> list[str]:
        """Its findings as acknowledgments name them (`specs.files.acknowledgment`)."""
        keys = [f.key for f in self.vacuity.findings] if self.vacuity is not None else []
        if self.redundancy is not None and self.redundancy.key is not None:
            keys.append(self.redundancy.key)
        return keys

    @property
    def vacuity_failed(self) -> bool:
        if self.vacuity is None:
            return False
        return any(not self.is_acknowledged(f.key) for f in self.vacuity.findings) or self.vacuity.unchecked > 0

    @property
    def redundancy_failed(self) -> bool:
        key = self.redundancy.key if self.redundancy is not None else None
        return key is not None and not self.is_acknowledged(key)

    @property
    def findings_failed(self) -> bool:
        """A finding not acknowledged, or an acknowledgment that matches none."""
        return self.vacuity_failed or self.redundancy_failed or bool(self.acknowledgments.stale)


@dataclass(frozen=True, kw_only=True)
class ConjunctionResult(Answer):
    """With --vacuity: whether the satisfiable-expected specs of a file hold together."""

    POSITIVE: ClassVar[str] = "pass"

    count: int
    witness: Witness | None = None
    #: When the specs contradict each other: a minimal set of them that does (`logic.core`),
    #: and whether its minimality was proven within the budget.
    conflict: tuple[Spec, ...] = ()
    conflict_minimal: bool | None = None
    #: With --all-cores: every minimal conflicting set and every minimal correction set (specs
    #: whose removal restores consistency), and whether the enumeration finished (None: not run).
    conflicts: tuple[tuple[Spec, ...], ...] = ()
    corrections: tuple[tuple[Spec, ...], ...] = ()
    complete: bool | None = None
    #: The set of the file's specs it is about (a FRET export's project), None: all of them.
    group: str | None = None


@dataclass(frozen=True)
class RealizabilityResult(Answer):
    """With --realizability: one connected component of a file's requirements (a FRET export's
    as FRET reads it, `specs.realizability`), `status` pass (realizable), fail (unrealizable) or
    unknown; the verdict with its verified strategy and play, and for an unrealizable one its
    minimal conflicts and corrections (names), complete or not."""

    POSITIVE: ClassVar[str] = "pass"

    component: str = ""
    requirements: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    verdict: Verdict | None = None
    conflicts: tuple[tuple[str, ...], ...] = ()
    corrections: tuple[tuple[str, ...], ...] = ()
    complete: bool | None = None
    #: the names the requirements use (a play is shown over them, without monitors)
    names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Decided:
    """A spec's own verdict, as soon as it is decided (`CheckOptions.progress`): what a person
    watching a long check wants to see first. Its complete `SpecResult` (with what the file's
    joint checks found) comes later, in file order."""

    result: SpecResult


CheckResult = SpecResult | ConjunctionResult | RealizabilityResult


@dataclass(frozen=True)
class CheckOptions:
    solve: SolveOptions
    vacuity: bool = False
    #: Only the joint satisfiability of each file's specs (with the conflicting ones named),
    #: not the vacuity of each occurrence; `vacuity` implies it.
    consistency: bool = False
    #: Each requirement the others imply named, with a set of them that does; implies
    #: `consistency` (when the requirements conflict, each is implied by the others).
    redundancy: bool = False
    #: Findings acknowledged apart from the spec files (`specs.baseline`).
    baseline: tuple[Entry, ...] = ()
    #: When the specs conflict: every minimal conflicting set and minimal correction set.
    all_cores: bool = False
    #: Witnesses in which each requirement's trigger fires (module docstring); None: for the
    #: requirements that ask for it (`Spec.fire`: FRET's).
    fire: bool | None = None
    #: Also yield a `Decided` for each spec as soon as its own verdict is decided.
    progress: bool = False
    #: Each requirement's that many nearest requirements (`specs.similar`), their relations
    #: decided; 0: not asked.
    similar: int = 0
    #: Whether each file's requirements can be implemented whatever its inputs do, per
    #: component (`specs.realizability`), with every minimal conflict of an unrealizable one.
    realizability: bool = False

    @property
    def together(self) -> bool:
        return self.vacuity or self.consistency or self.redundancy or self.all_cores


def check_files(
    paths: Iterable[str],
    options: CheckOptions,
    pipeline: Pipeline,
    stdin: BinaryIO | None = None,
    stdin_name: str = STDIN_NAME,
    pool: Pool | None = None,
) -> Iterator[CheckResult | Decided]:
    """Results file by file, specs in file order; a file's conjunction result comes before its
    specs, whose vacuity and redundancy it decides. The path `-` reads `stdin`, named
    `stdin_name` in the results. `pool`: worker processes running `CheckWork` answer the specs
    and their vacuity questions (`check --jobs`). The run's `--budget` is `options.solve.until`
    (and the pipeline's)."""
    for path in paths:
        yield from _check_file(path, options, pipeline, stdin, stdin_name, pool)


class CheckWork:
    """A worker process's part of `check --jobs` (`ltlwit.pipeline.parallel`): the specs'
    questions, answered by its own pipeline (models load once per worker), and the vacuity
    checks of single specs."""

    parser: InputParser | None = None  # no syntax guesses to share: the main process reads the spec files

    def __init__(self, options: SolveOptions) -> None:
        self.options = options
        self.notices: list[tuple[str, BaseException | None]] = []
        self.pipeline = Pipeline(options, notify=lambda text, exc=None: self.notices.append((text, exc)))

    @property
    def model_failed(self) -> bool:
        return self.pipeline.model_failed

    def answers(self, chunk: Chunk) -> list[Solution]:
        from ltlwit.pipeline.parallel import RemoteError

        if chunk.origin is not None:
            self.pipeline.count_from(chunk.origin)
        return [
            s if s.exception is None else replace(s, exception=RemoteError.of(s.exception))
            for s in self.pipeline.run(chunk.items, ramp=False)
        ]

    def findings(self, chunk: Chunk) -> list[Vacuity | RemoteError]:
        """`chunk.context`: the file's requirements, their parts, the options their questions
        are asked with and a witness of them all; each item's `line`: which requirement."""
        from ltlwit.pipeline.parallel import RemoteError

        formulas, parts, options, base = chunk.context
        decide = Decider(options)
        out: list[Vacuity | RemoteError] = []
        for item in chunk.items:
            try:
                out.append(vacuity_of(formulas, item.line, decide, parts[item.line], base))
            except Exception as exc:  # noqa: BLE001 - see specs.together.findings
                out.append(RemoteError.of(exc))
        return out


def vacuity_of(
    formulas: list[Formula], which: int, decide: Decider, parts: Parts | None = None, base: Witness | None = None
) -> Vacuity:
    """One requirement's vacuity, its occurrences and questions within its own `--timeout`
    (`base`: a witness of all of `formulas`)."""
    deadline = decide.options.deadline(time.perf_counter())
    return check_spec(formulas, which, decide.bounded(deadline), parts, deadline, base)


def answers(pipeline: Pipeline, pool: Pool | None, queries: list[SpecItem]) -> Iterator[Solution]:
    """The pipeline's answers to `queries`, in their order (by the workers with `pool`)."""
    if pool is None:
        yield from pipeline.run(queries)
        return
    least = pipeline.options.batch_size if pipeline.uses_models else 1
    from ltlwit.pipeline.worker import Lost

    for solutions in pool.imap("answers", queries, origin=pipeline.take_origin(), least=least):
        if isinstance(solutions, Lost):  # a worker died on this query by itself: its answer alone is lost
            yield Solution(item=solutions.item, status="error", message=solutions.message)
        else:
            yield from solutions


def _check_file(
    path: str, options: CheckOptions, pipeline: Pipeline, stdin: BinaryIO | None, stdin_name: str, pool: Pool | None
) -> Iterator[CheckResult | Decided]:
    from ltlwit.specs.together import judge_together

    where = stdin_name if path == "-" else path
    parsed = read_file(path, options.solve, stdin, stdin_name)
    events = activities(parsed, options.solve.one_event)
    solve = replace(options.solve, assume=events) if events is not None else options.solve
    results: list[SpecResult] = []
    for result in _verdicts(parsed, events, pipeline, pool, options, solve):
        results.append(result)
        if options.progress and result.spec.expect not in SCENARIOS:
            yield Decided(result)
    if options.together or options.similar or any(p.formula is not None and p.spec.expect in SCENARIOS for p in parsed):
        results = yield from judge_together(where, parsed, results, options, solve, pool)
    yield from _acknowledged(results, options.baseline, [p.spec for p in parsed], where)
    if options.realizability:
        yield from _realizability(path, where, parsed, options)


def _realizability(
    path: str, where: str, parsed: list[ParsedSpec], options: CheckOptions
) -> Iterator[RealizabilityResult]:
    """Each component's realizability (`specs.realizability`): a FRET export's read as FRET
    reads it, a spec file's with its `input` lines; an error where the file says no inputs
    (every proposition the system's would only ask whether the specs are satisfiable)."""
    from ltlwit.logic.ltl.games import Realizable, Unrealizable
    from ltlwit.specs.realizability import from_export, from_specs, realize_all

    item = InputItem("", where, 0)
    started = time.perf_counter()
    try:
        if path.endswith(".json"):  # (`check` read it as an export: its specs are FRET's requirements)
            export = from_export(parsed)
        elif not any(p.spec.inputs for p in parsed):
            raise ValueError(
                "realizability needs the environment's propositions: a line 'input NAME, NAME' (TOML: inputs)"
            )
        else:
            export = from_specs(parsed, ())
        report = realize_all(export, options.solve.timeout, True, options.solve.ceiling)
    except (OSError, ValueError) as exc:
        yield RealizabilityResult(item=item, status="error", message=str(exc))
        return
    for c in report.components:
        verdict = c.verdict
        status = (
            "pass" if isinstance(verdict, Realizable) else "fail" if isinstance(verdict, Unrealizable) else "unknown"
        )
        yield RealizabilityResult(
            item=item,
            status=status,
            message=getattr(verdict, "reason", None),
            time_ms=1000 * (time.perf_counter() - started),
            component=c.name,
            requirements=c.requirements,
            outputs=c.outputs,
            verdict=verdict,
            conflicts=c.conflicts,
            corrections=c.corrections,
            complete=c.complete if status == "fail" else None,
            names=report.names,
        )
        started = time.perf_counter()


def _verdicts(
    parsed: list[ParsedSpec],
    events: Formula | None,
    pipeline: Pipeline,
    pool: Pool | None,
    options: CheckOptions,
    solve: SolveOptions,
) -> Iterator[SpecResult]:
    """Each spec's own verdict, in file order, as the pipeline decides them; a scenario's
    comes later (`specs.together`): here it is UNKNOWN."""
    fired: dict[int, Formula] = {}  # the specs asked with their trigger firing: the trigger's condition
    queries = []
    for i, p in enumerate(parsed):
        if p.formula is None or p.spec.expect in SCENARIOS:
            continue
        query = Not(p.formula) if p.spec.expect == "valid" else p.formula
        fire = p.trigger if p.spec.expect == "sat" and _fires(options, p) else None
        if fire is not None:
            fired[i] = fire
            query = And(query, fire)
        queries.append(_query(p, And(query, events) if events is not None else query))
    solutions = answers(pipeline, pool, queries)
    for i, p in enumerate(parsed):
        item = InputItem(p.spec.formula, p.spec.file, p.spec.line)
        if p.formula is None:
            yield _unread(p, item)
        elif p.spec.expect in SCENARIOS:
            yield SpecResult(item=item, spec=p.spec, status="unknown", warnings=p.warnings)
        elif i in fired:
            yield _fired(p, next(solutions), fired[i], events, solve)
        else:
            yield _judge(p.spec, next(solutions), p.warnings)


def _fires(options: CheckOptions, p: ParsedSpec) -> bool:
    return options.fire if options.fire is not None else p.spec.fire


def _query(p: ParsedSpec, formula: Formula) -> SpecItem:
    """The question asked about a spec, named by its text (a formula printed again may be
    far longer: FRET's nested bounded past, spelled out, doubles at each level)."""
    return SpecItem(
        text=p.spec.formula,
        file=p.spec.file,
        line=p.spec.line,
        name=p.spec.name,
        formula=formula,
        semantics=p.spec.semantics,
        declarations=p.spec.declarations,
    )


def _unread(p: ParsedSpec, item: InputItem) -> SpecResult:
    if p.unknown is not None:
        return SpecResult(item=item, spec=p.spec, status="unknown", message=p.unknown)
    if p.parse_error is not None:
        return SpecResult(item=item, spec=p.spec, status="error", message="parse error", parse_error=p.parse_error)
    return SpecResult(item=item, spec=p.spec, status="error", message=p.problem)


def _fired(p: ParsedSpec, solution: Solution, fire: Formula, events: Formula | None, solve: SolveOptions) -> SpecResult:
    """A requirement asked with its trigger firing: passed with that witness, else asked
    alone (by the engine), saying whether its trigger can fire at all."""

    def judged(answer: Solution, fires: bool | None) -> SpecResult:
        return replace(_judge(p.spec, answer, p.warnings), firing=Firing(fire, fires))

    if solution.status == "sat":
        return judged(solution, True)
    if solution.status == "error":
        return judged(solution, None)
    start = time.perf_counter()
    decide = Decider(replace(solve, semantics=p.spec.semantics or solve.semantics, declarations=p.spec.declarations))
    assert p.formula is not None  # it was asked about, so it was read
    try:
        alone = decide(p.formula)
    except ValueError as exc:
        return replace(judged(solution, None), status="error", message=str(exc))
    solved = Solution(
        item=solution.item,
        status="sat" if isinstance(alone, Sat) else "unsat" if isinstance(alone, Unsat) else "unknown",
        witness=alone.witness if isinstance(alone, Sat) else None,
        message=getattr(alone, "reason", None),
        source="engine",
        logic=solution.logic,
        time_ms=solution.time_ms + round((time.perf_counter() - start) * 1000.0, 3),
    )
    if solution.status != "unsat" or not isinstance(alone, Sat):
        return judged(solved, None)
    return replace(judged(solved, False), message=f"its trigger never fires: no trace of it has {fire.to_str('spot')}")


def _judge(spec: Spec, solution: Solution, warnings: tuple[str, ...]) -> SpecResult:
    result = functools.partial(
        SpecResult,
        item=solution.item,
        spec=spec,
        time_ms=solution.time_ms,
        source=solution.source,
        logic=solution.logic,
        warnings=warnings,
    )
    if solution.status == "error":
        return result(
            status="error",
            message=solution.message,
            parse_error=solution.parse_error,
            exception=solution.exception,
        )
    if solution.status == "unknown":
        return result(status="unknown", verdict="unknown", message=solution.message or "no answer")
    if spec.expect == "valid":
        if solution.status == "unsat":
            return result(status="pass", verdict="valid")
        return result(
            status="fail",
            verdict="invalid",
            counterexample=solution.witness,
            message="expected valid, but a trace violates it",
        )
    if solution.status == spec.expect:
        return result(status="pass", verdict=solution.status, witness=solution.witness)
    message = (
        "expected unsat, but it is satisfiable" if solution.status == "sat" else "expected sat, but it is unsatisfiable"
    )
    return result(status="fail", verdict=solution.status, witness=solution.witness, message=message)


def _acknowledged(
    results: list[SpecResult], baseline: Sequence[Entry], specs: list[Spec], where: str
) -> Iterator[SpecResult]:
    """The results with their findings acknowledged (next to each spec, or in the baseline),
    then an error for each baseline entry about this file that names none of its specs."""
    mine = [e for e in baseline if same_file(e.file, where)]
    used: set[Entry] = set()
    for r in results:
        entries = [e for e in mine if e.of(r.spec)]
        used.update(entries)
        yield acknowledge(r, [*r.spec.acknowledged, *(e.finding for e in entries)])
    for e in mine:
        if e not in used:
            spec = Spec(e.source, e.line, error=f"the acknowledgment names no spec {e.spec!r} of {where}")
            yield SpecResult(item=InputItem("", e.source, e.line), spec=spec, status="error", message=spec.error)


def acknowledge(result: SpecResult, acks: Sequence[str]) -> SpecResult:
    """`result` with the findings `acks` cover acknowledged, and those of them that cover none
    of a check that ran (vacuity: the spec was among the conjuncts; redundancy) stale."""
    if not acks:
        return result
    keys = result.finding_keys
    judged = {
        "vacuous": result.vacuity is not None and not result.vacuity.skipped,
        "redundant": result.redundancy is not None,
    }
    covered = tuple(k for k in keys if any(acknowledges(a, k) for a in acks))
    stale = tuple(
        a
        for a in dict.fromkeys(acks)
        if not any(acknowledges(a, k) for k in keys)
        and judged["redundant" if a in ("redundant", "undecided redundancy") else "vacuous"]
    )
    return replace(result, acknowledgments=Acknowledgments(covered, stale))
