"""`ltlwit check` as a function: spec files in, one result per spec (and per file's conjunction
with --vacuity) out.

Each spec is answered by the solving pipeline (model candidates validated, engine fallback):
`sat` passes with a verified witness, `unsat` passes when the engine proves it (a model never
claims unsatisfiability), `valid` passes when the negation is unsatisfiable and fails with a
verified counterexample otherwise. UNKNOWN (the budget ran out) never passes.

Scenarios (`allowed`, `forbidden`, `implied`) are judged against the requirements of their file
(its specs expected `sat`; a FRET export's: those of the scenario's project), all together:
`allowed` passes with a witness of the requirements and the scenario, `forbidden` when no trace
satisfies both (the requirements that rule it out named: a core), `implied` when no trace of
the requirements violates the property (the requirements that imply it named); otherwise each
fails with the trace that shows it. A requirement set that conflicts alone makes every scenario
forbidden and every property implied: that fails too, naming the conflict.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, BinaryIO, Callable, ClassVar, Iterable, Iterator, Sequence

from ltlwit.logic.budget import HardLimit, deadline_scope
from ltlwit.logic.core import all_conflicts, unsat_core
from ltlwit.logic.formula import And, Formula, Not
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.logic.theory.sorts import Declarations, SortError, boolean_comparisons, resolve
from ltlwit.logic.witness import Witness, is_witness, logic_of
from ltlwit.pipeline import Pipeline
from ltlwit.pipeline.answers import Answer, Solution, internal_error, plural
from ltlwit.pipeline.checking import engine_answer
from ltlwit.pipeline.inputs import STDIN_NAME, FormulaItem, InputItem
from ltlwit.pipeline.options import SolveOptions
from ltlwit.pipeline.parsing import name_warnings, parse
from ltlwit.pipeline.verify import as_checked
from ltlwit.specs.baseline import Entry, same_file
from ltlwit.specs.files import SCENARIOS, Spec, acknowledges, read_specs
from ltlwit.specs.vacuity import Decide, Finding, check_spec

if TYPE_CHECKING:
    from ltlwit.pipeline.parallel import Chunk, Pool, RemoteError


@dataclass(frozen=True, kw_only=True)
class SpecResult(Answer):
    """status: pass | fail | unknown | error. `verdict`: what the formula is (sat, unsat,
    valid, invalid, unknown); `witness` satisfies it, `counterexample` satisfies its negation."""

    POSITIVE: ClassVar[str] = "pass"

    spec: Spec
    verdict: str | None = None
    witness: Witness | None = None
    counterexample: Witness | None = None
    source: str | None = None
    #: With --vacuity: "clean", "vacuous", "undecided", or "skipped" (not among the conjuncts).
    vacuity: str | None = None
    findings: list[Finding] = field(default_factory=list)
    #: A scenario's: the requirements that rule it out (`forbidden`), or imply it (`implied`).
    core: tuple[Spec, ...] = ()
    core_minimal: bool | None = None
    #: With --redundancy: "redundant" (the other requirements imply it: `implied_by`, a minimal
    #: set of them where `core_minimal`), "needed", "undecided", or None (not a requirement).
    redundancy: str | None = None
    implied_by: tuple[Spec, ...] = ()
    #: The findings acknowledged (next to the spec or in the baseline: `acknowledge`), and the
    #: acknowledgments that match no finding of a check that ran.
    acknowledged: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()

    @property
    def finding_keys(self) -> list[str]:
        """Its findings as acknowledgments name them (`specs.files.acknowledgment`)."""
        keys = [f.key for f in self.findings]
        if self.redundancy in ("redundant", "undecided"):
            keys.append("redundant" if self.redundancy == "redundant" else "undecided redundancy")
        return keys

    @property
    def vacuity_failed(self) -> bool:
        return any(f.key not in self.acknowledged for f in self.findings)

    @property
    def redundancy_failed(self) -> bool:
        return self.redundancy in ("redundant", "undecided") and self.finding_keys[-1] not in self.acknowledged

    @property
    def findings_failed(self) -> bool:
        """A finding not acknowledged, or an acknowledgment that matches none."""
        return self.vacuity_failed or self.redundancy_failed or bool(self.stale)


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
) -> Iterator[SpecResult | ConjunctionResult]:
    """Results file by file, specs in file order; a file's conjunction result (with
    --vacuity) comes before its specs, whose vacuity it decides. The path `-` reads `stdin`,
    named `stdin_name` in the results. `pool`: worker processes running `CheckWork` answer
    the specs and their vacuity questions (`check --jobs`)."""
    for path in paths:
        yield from _check_file(path, options, pipeline, stdin, stdin_name, pool)


class CheckWork:
    """A worker process's part of `check --jobs` (`ltlwit.pipeline.parallel`): the specs'
    questions, answered by its own pipeline (models load once per worker), and the vacuity
    checks of single specs."""

    parser = None

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

    def findings(self, chunk: Chunk) -> list[list[Finding] | RemoteError]:
        """`chunk.context`: the file's specs expected satisfiable and their semantics; each
        item's `line`: which spec."""
        from ltlwit.pipeline.parallel import RemoteError

        formulas, semantics, assume = chunk.context
        decide = _memo(replace(self.options, semantics=semantics, assume=assume))
        out: list[list[Finding] | RemoteError] = []
        for item in chunk.items:
            try:
                out.append(check_spec(formulas, item.line, decide))
            except Exception as exc:  # noqa: BLE001 - see _vacuity
                out.append(RemoteError.of(exc))
        return out


def _answers(pipeline: Pipeline, pool: Pool | None, queries: list[FormulaItem]) -> Iterator[Solution]:
    if pool is None:
        yield from pipeline.run(queries)
        return
    least = pipeline.options.batch_size if pipeline.uses_models else 1
    for solutions in pool.imap("answers", queries, origin=pipeline.take_origin(), least=least):
        yield from solutions


def _findings(
    formulas: list[Formula], decide: Decide, pool: Pool | None, path: str, semantics: str
) -> Iterator[list[Finding] | Exception]:
    """The vacuity findings of each spec among `formulas` (or the exception checking it raised)."""
    if pool is not None:
        which = [InputItem("", path, position) for position in range(len(formulas))]
        for found in pool.imap("findings", which, context=(formulas, semantics, decide.assume)):
            yield from found
        return
    for position in range(len(formulas)):
        try:
            yield check_spec(formulas, position, decide)
        except Exception as exc:  # noqa: BLE001 - one spec's bug must not cost the report
            yield exc


def _check_file(
    path: str, options: CheckOptions, pipeline: Pipeline, stdin: BinaryIO | None, stdin_name: str, pool: Pool | None
) -> Iterator[SpecResult | ConjunctionResult]:
    specs = list(read_specs(path, stdin, stdin_name))
    parsed: list[tuple[Spec, Formula | None, SpecResult | None]] = []
    warnings: list[tuple[str, ...]] = []  # each parsed spec's (the pipeline sees formulas, not their text)
    for spec in specs:
        item = InputItem(spec.formula, spec.file, spec.line)
        if spec.error is None and spec.holds == "finally" and (spec.semantics or options.solve.semantics) != "finite":
            spec = replace(
                spec,
                error="a spec that holds finally (at the last instant) needs finite semantics "
                '(--semantics finite, or semantics = "finite" in TOML)',
            )
        if spec.error is not None:
            parsed.append((spec, None, SpecResult(item=item, spec=spec, status="error", message=spec.error)))
            continue
        # a spec's parse has --timeout and --max-memory of its own: its solve comes later, with
        # the file's other specs, each on a clock of its own
        try:
            with deadline_scope(options.solve.deadline(time.perf_counter()), options.solve.ceiling):
                formula = _as_checked(spec, parse(spec.formula, spec.syntax or options.solve.syntax))
        except ValueError as exc:
            parsed.append(
                (spec, None, SpecResult(item=item, spec=spec, status="error", message="parse error", parse_error=exc))
            )
            continue
        except HardLimit as exc:  # a multi-megabyte spec whose reading took all of --timeout or --max-memory
            parsed.append((spec, None, SpecResult(item=item, spec=spec, status="unknown", message=str(exc))))
            continue
        problem = _sorts_problem(formula, spec, options.solve)
        if problem is not None:
            parsed.append((spec, None, SpecResult(item=item, spec=spec, status="error", message=problem)))
            continue
        parsed.append((spec, formula, None))
        warnings.append(spec.warnings + name_warnings(spec.formula, formula, spec.syntax or options.solve.syntax))
    events = _one_event(parsed)
    if events is not None:
        options = replace(options, solve=replace(options.solve, assume=events))
    queries = []  # a spec expected valid is asked about its negation; scenarios come below
    for spec, formula, done in parsed:
        if done is None and formula is not None and spec.expect not in SCENARIOS:
            query = Not(formula) if spec.expect == "valid" else formula
            query = And(query, events) if events is not None else query
            queries.append(
                FormulaItem(
                    query.to_str("spot"),
                    spec.file,
                    spec.line,
                    formula=query,
                    semantics=spec.semantics,
                    declarations=spec.declarations,
                )
            )
    solutions = _answers(pipeline, pool, queries)
    told = iter(warnings)
    results = [
        done
        if done is not None
        else _judge(spec, next(solutions), next(told))
        if spec.expect not in SCENARIOS
        else SpecResult(
            item=InputItem(spec.formula, spec.file, spec.line), spec=spec, status="unknown", warnings=next(told)
        )
        for spec, _, done in parsed
    ]
    scenarios = [i for i, (spec, _, done) in enumerate(parsed) if done is None and spec.expect in SCENARIOS]
    where = stdin_name if path == "-" else path
    if options.together or scenarios:
        conjuncts = [(i, f) for i, (spec, f, done) in enumerate(parsed) if done is None and spec.expect == "sat"]
        kinds = {parsed[i][0].semantics or options.solve.semantics for i, _ in conjuncts}
        if len(kinds) > 1:
            for i in scenarios:
                results[i] = replace(
                    results[i],
                    status="error",
                    message="a scenario is judged against the "
                    "requirements, and these mix finite and infinite semantics",
                )
            if options.together:
                yield ConjunctionResult(
                    item=InputItem(f"the {plural(len(conjuncts), 'spec')} expected satisfiable", where, 0),
                    status="error",
                    count=len(conjuncts),
                    message="vacuity needs the specs of a file under one semantics; these mix finite and infinite",
                )
            yield from results
            return
        solve = replace(options.solve, semantics=kinds.pop()) if kinds else options.solve
        for i in list(scenarios):
            own = parsed[i][0].semantics or options.solve.semantics
            if own != solve.semantics:
                results[i] = replace(
                    results[i],
                    status="error",
                    message=f"a scenario under {own} semantics "
                    f"is judged against requirements under {solve.semantics} semantics",
                )
                scenarios.remove(i)
        conjunctions = []
        for group in dict.fromkeys(spec.group for spec, _, _ in parsed):  # a FRET export's projects
            scope = {i for i, (spec, _, _) in enumerate(parsed) if spec.group == group}
            mine = [(i, f) for i, f in conjuncts if i in scope]
            results = _scenarios([i for i in scenarios if i in scope], mine, parsed, scope, results, solve)
            if options.together:
                conjunction, results = _together(
                    where, mine, parsed, scope, results, solve, pool, options.vacuity, options.all_cores
                )
                if conjunction is not None:
                    conjunctions.append(replace(conjunction, group=group))
                    if options.redundancy and conjunction.status == "pass":
                        results = _redundancy(mine, parsed, scope, results, solve)
        yield from conjunctions
    yield from _acknowledged(results, options.baseline, [spec for spec, _, _ in parsed], where)


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
        "vacuous": result.vacuity in ("clean", "vacuous", "undecided"),
        "redundant": result.redundancy is not None,
    }
    covered = tuple(k for k in keys if any(acknowledges(a, k) for a in acks))
    stale = tuple(
        a
        for a in dict.fromkeys(acks)
        if not any(acknowledges(a, k) for k in keys)
        and judged["redundant" if a in ("redundant", "undecided redundancy") else "vacuous"]
    )
    return replace(result, acknowledged=covered, stale=stale)


def _together(
    where: str,
    conjuncts: list[tuple[int, Formula]],
    parsed: list,
    scope: set[int],
    results: list[SpecResult],
    solve: SolveOptions,
    pool: Pool | None,
    findings: bool,
    every: bool = False,
) -> tuple[ConjunctionResult | None, list[SpecResult]]:
    """Whether a set of specs (`scope`: their places in `parsed`) holds together: the
    conjunction of those expected satisfiable that read and whose names mean one thing in all
    of them, the others named as left out."""
    try:
        solve, conjuncts, left_out = _requirements(conjuncts, parsed, scope, solve)
    except SortError as exc:
        return ConjunctionResult(
            item=InputItem(f"the {plural(len(conjuncts), 'spec')} expected satisfiable", where, 0),
            status="error",
            count=len(conjuncts),
            message=str(exc),
        ), results
    return _vacuity(
        where, conjuncts, results, solve, pool, findings=findings, left_out=left_out, scope=scope, every=every
    )


def _requirements(
    conjuncts: list[tuple[int, Formula]], parsed: list, scope: set[int], solve: SolveOptions
) -> tuple[SolveOptions, list[tuple[int, Formula]], list[tuple[Spec, str]]]:
    """The requirements of `scope` that go together (`_together`), the options they are solved
    with, and those left out with the reason; SortError where their declarations clash."""
    solve = _declared_together(solve, [parsed[i][0] for i, _ in conjuncts])
    left_out = [
        (spec, "unreadable")
        for i, (spec, f, _) in enumerate(parsed)
        if f is None and i in scope and spec.expect == "sat"
    ]
    clashing = {
        i: problem
        for i, f in conjuncts
        if (problem := _sorts_problem(f, parsed[i][0], solve, together=True)) is not None
    }
    left_out += [(parsed[i][0], problem) for i, problem in clashing.items()]
    conjuncts = [(i, f) for i, f in conjuncts if i not in clashing]
    conjuncts, apart = _typed_together(conjuncts, solve)
    left_out += [(parsed[i][0], problem) for i, problem in apart]
    return solve, conjuncts, left_out


def _redundancy(
    conjuncts: list[tuple[int, Formula]], parsed: list, scope: set[int], results: list[SpecResult], solve: SolveOptions
) -> list[SpecResult]:
    """Each requirement of a consistent set judged against the others: redundant when they imply
    it (no trace of theirs violates it), with a set of them that does (a core of the others and
    its negation)."""
    solve, conjuncts, _ = _requirements(conjuncts, parsed, scope, solve)
    decide = _memo(solve)
    results = list(results)
    formulas = [f for _, f in conjuncts]
    for k, (i, formula) in enumerate(conjuncts):
        others = formulas[:k] + formulas[k + 1 :]
        specs = [parsed[j][0] for j, _ in conjuncts[:k] + conjuncts[k + 1 :]]
        if not others:
            results[i] = replace(results[i], redundancy="needed")
            continue
        start = time.perf_counter()
        try:
            verdict = decide(And(*others, Not(formula)))
        except ValueError:
            verdict = Unknown("the engine cannot decide it")
        if isinstance(verdict, Sat):
            results[i] = replace(results[i], redundancy="needed")
        elif isinstance(verdict, Unknown):
            results[i] = replace(results[i], redundancy="undecided")
        else:
            core = unsat_core([*others, Not(formula)], decide, _expiry(solve.deadline(start)))
            results[i] = replace(
                results[i],
                redundancy="redundant",
                core_minimal=core.minimal,
                implied_by=tuple(specs[m] for m in core.members if m < len(others)),
            )
    return results


def _scenarios(
    which: list[int],
    conjuncts: list[tuple[int, Formula]],
    parsed: list,
    scope: set[int],
    results: list[SpecResult],
    solve: SolveOptions,
) -> list[SpecResult]:
    """The scenarios at `which` (places in `parsed`) judged against the requirements
    `conjuncts` (module docstring)."""
    if not which:
        return results
    results = list(results)
    try:
        solve, conjuncts, left_out = _requirements(conjuncts, parsed, scope, solve)
    except SortError as exc:
        for i in which:
            results[i] = replace(results[i], status="error", message=f"the requirements' declarations clash: {exc}")
        return results
    requirements = [f for _, f in conjuncts]
    specs = [parsed[i][0] for i, _ in conjuncts]
    decide = _memo(solve)
    for i in which:
        spec, formula, _ = parsed[i]
        if not requirements:
            results[i] = replace(
                results[i],
                status="error",
                message=f"a scenario expected {spec.expect} needs requirements (specs expected sat) "
                "to be judged against; this file has none",
            )
            continue
        try:
            declared = _declared_together(solve, [spec])
            problem = _clash(And(*requirements, formula), declared.declarations)
        except SortError as exc:
            problem = str(exc)
        if problem is not None:
            results[i] = replace(results[i], status="error", message=f"with the requirements: {problem}")
            continue
        same = declared.declarations == solve.declarations  # a file's specs share its declarations
        results[i] = _scenario(
            results[i], spec, formula, requirements, specs, left_out, decide if same else _memo(declared), declared
        )
    return results


def _scenario(
    result: SpecResult,
    spec: Spec,
    formula: Formula,
    requirements: list[Formula],
    specs: list[Spec],
    left_out: list[tuple[Spec, str]],
    decide,
    solve: SolveOptions,
) -> SpecResult:
    """One scenario judged (`_scenarios`)."""
    start = time.perf_counter()
    asked = Not(formula) if spec.expect == "implied" else formula
    try:
        verdict = decide(And(*requirements, asked))
    except ValueError as exc:
        return replace(result, status="error", message=str(exc))
    apart = "; left out of the requirements: " + ", ".join(_left_out(left_out)) if left_out else ""

    def done(**kw) -> SpecResult:
        return replace(result, time_ms=round((time.perf_counter() - start) * 1000.0, 3), source="engine", **kw)

    if isinstance(verdict, Unknown):
        return done(status="unknown", verdict="unknown", message=(verdict.reason or "no answer") + apart)
    if isinstance(verdict, Sat):
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
    core = unsat_core([*requirements, asked], decide, _expiry(solve.deadline(start)))
    named = tuple(specs[m] for m in core.members if m < len(requirements))
    names = ", ".join(s.cited for s in named)
    proven = "" if core.minimal else " (not proven minimal)"
    if len(requirements) not in core.members:
        return done(
            status="fail",
            verdict="implied" if spec.expect == "implied" else "forbidden",
            core=named,
            core_minimal=core.minimal,
            message=f"the requirements contradict each other ({names}{proven}): every scenario is "
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
            core=named,
            core_minimal=core.minimal,
            message=f"expected allowed, but the requirements rule it out: {names}{proven}" + apart,
        )
    word = "ruled out by" if spec.expect == "forbidden" else "implied by"
    return done(
        status="pass",
        verdict=spec.expect,
        core=named,
        core_minimal=core.minimal,
        message=f"{word} {names}{proven}" + apart,
    )


def _expiry(deadline: float | None) -> Callable[[], bool]:
    """Whether a question's `--timeout` (its `deadline`) is spent (a core's or an
    enumeration's stop)."""
    return lambda: deadline is not None and time.perf_counter() >= deadline


def _left_out(specs: Sequence[tuple[Spec, str]]) -> list[str]:
    return [f"{s.name} ({s.where}, {why})" if s.name else f"{s.where} ({why})" for s, why in specs]


def _declared_together(solve: SolveOptions, specs: list[Spec]) -> SolveOptions:
    """The options the specs' conjunction is solved with: every spec's declarations and the
    run's; SortError where two give one name different sorts (a FRET export's components may:
    their requirements do not go together)."""
    declared = solve.declarations
    for spec in specs:
        if spec.declarations is not None:
            try:
                declared = declared.merged(spec.declarations) if declared else spec.declarations
            except SortError as exc:
                raise SortError(f"{spec.label}: {exc}", exc.name) from None
    return replace(solve, declarations=declared)


def _typed_together(
    conjuncts: list[tuple[int, Formula]], solve: SolveOptions
) -> tuple[list[tuple[int, Formula]], list[tuple[int, str]]]:
    """The conjuncts whose names take one meaning together (each alone may: `yout` a variable
    in one requirement and a function in another, where nothing declares it), and the others
    with the reason: all of them where they do, else, in file order, each one that does not
    with those kept before it is left out."""
    declared = solve.declarations
    if _clash(And(*(f for _, f in conjuncts)), declared) is None:
        return conjuncts, []
    kept: list[tuple[int, Formula]] = []
    apart: list[tuple[int, str]] = []
    for i, f in conjuncts:
        why = _clash(And(*(g for _, g in kept), f), declared)
        if why is None:
            kept.append((i, f))
        else:
            apart.append((i, why))
    return kept, apart


def _as_checked(spec: Spec, formula: Formula) -> Formula:
    return as_checked(formula, spec.holds, spec.substitute)


def _one_event(parsed: list) -> Formula | None:
    """For a `one-event` file: its activities (every AP of its specs) one at a time at every
    instant (`logic.declare.one_event`), which every question is asked with."""
    if not any(spec.one_event for spec, _, _ in parsed):
        return None
    from ltlwit.logic.declare import one_event

    return one_event(sorted({n for _, f, _ in parsed if f is not None for n in f.aps()}), True)


def _sorts_problem(formula: Formula, spec: Spec, options: SolveOptions, together: bool = False) -> str | None:
    """Why a formula over data cannot be solved as declared (a sort clash, an unknown sort),
    found before it is asked, so that the file's conjunction leaves it out; `together`: as the
    conjunction declares its names (`options`' declarations are all the specs')."""
    if not formula.data:
        return None
    try:
        declared = (
            options.declarations
            if together
            else options.declarations.merged(spec.declarations)
            if options.declarations
            else spec.declarations
        )
    except SortError as exc:
        return str(exc)
    return _clash(formula, declared)


def _clash(formula: Formula, declared: Declarations | None) -> str | None:
    """Why the names of a formula cannot take one sort each as declared, or None."""
    if not formula.data:
        return None
    try:
        resolve(boolean_comparisons(formula, declared), declared)
    except SortError as exc:
        return str(exc)
    return None


def _judge(spec: Spec, solution: Solution, warnings: tuple[str, ...]) -> SpecResult:
    common = dict(
        item=solution.item,
        spec=spec,
        time_ms=solution.time_ms,
        source=solution.source,
        logic=solution.logic,
        warnings=warnings,
    )
    if solution.status == "error":
        return SpecResult(
            status="error",
            message=solution.message,
            parse_error=solution.parse_error,
            exception=solution.exception,
            **common,
        )
    if solution.status == "unknown":
        return SpecResult(status="unknown", verdict="unknown", message=solution.message or "no answer", **common)
    if spec.expect == "valid":
        if solution.status == "unsat":
            return SpecResult(status="pass", verdict="valid", **common)
        return SpecResult(
            status="fail",
            verdict="invalid",
            counterexample=solution.witness,
            message="expected valid, but a trace violates it",
            **common,
        )
    if solution.status == spec.expect:
        return SpecResult(status="pass", verdict=solution.status, witness=solution.witness, **common)
    message = (
        "expected unsat, but it is satisfiable" if solution.status == "sat" else "expected sat, but it is unsatisfiable"
    )
    return SpecResult(status="fail", verdict=solution.status, witness=solution.witness, message=message, **common)


def _vacuity(
    path: str,
    conjuncts: list[tuple[int, Formula]],
    results: list[SpecResult],
    options: SolveOptions,
    pool: Pool | None = None,
    findings: bool = True,
    left_out: Sequence[tuple[Spec, str]] = (),
    scope: set[int] | None = None,
    every: bool = False,
) -> tuple[ConjunctionResult | None, list[SpecResult]]:
    indices = {i for i, _ in conjuncts}
    if findings:
        results = [
            r
            if i in indices or r.status == "error" or (scope is not None and i not in scope)
            else replace(r, vacuity="skipped")
            for i, r in enumerate(results)
        ]
    if not conjuncts:
        return None, results
    decide = _memo(options)
    formulas = [f for _, f in conjuncts]
    start = time.perf_counter()
    item = InputItem(f"the {plural(len(formulas), 'spec')} expected satisfiable", path, 0)
    try:
        verdict = decide(And(*formulas))
    except ValueError as exc:
        return ConjunctionResult(item=item, status="error", count=len(formulas), message=str(exc)), results
    elapsed = round((time.perf_counter() - start) * 1000.0, 3)
    if isinstance(verdict, Unsat):
        expired = _expiry(options.deadline(start))
        core = unsat_core(formulas, decide, expired)
        conflict = tuple(results[conjuncts[m][0]].spec for m in core.members)
        names = ", ".join(spec.cited + (f' "{spec.note}"' if spec.note else "") for spec in conflict)
        proven = "" if core.minimal else " (not proven minimal)"
        if left_out:
            proven += "; left out: " + ", ".join(_left_out(left_out))
        more: dict = {}
        if every:  # within what is left of the budget
            found = all_conflicts(formulas, decide, expired)
            specs = [results[i].spec for i, _ in conjuncts]
            more = dict(
                conflicts=tuple(tuple(specs[m] for m in c) for c in found.cores),
                corrections=tuple(sorted((tuple(specs[m] for m in c) for c in found.corrections), key=len)),
                complete=found.complete,
            )
            proven += (
                f"; {plural(len(found.cores), 'conflicting set')}, "
                f"{plural(len(found.corrections), 'correction set')}" + ("" if found.complete else " found so far")
            )
        elapsed = round((time.perf_counter() - start) * 1000.0, 3)
        return ConjunctionResult(
            item=item,
            status="fail",
            count=len(formulas),
            time_ms=elapsed,
            message=f"jointly unsatisfiable: no trace satisfies all of them; these conflict: {names}{proven}",
            conflict=conflict,
            conflict_minimal=core.minimal,
            **more,
        ), results
    if isinstance(verdict, Unknown):
        return ConjunctionResult(
            item=item,
            status="unknown",
            count=len(formulas),
            time_ms=elapsed,
            message=verdict.reason or "no answer within the budget",
        ), results
    conjunction = ConjunctionResult(
        item=item,
        status="pass",
        count=len(formulas),
        time_ms=elapsed,
        witness=verdict.witness if isinstance(verdict, Sat) else None,
        message="left out: " + ", ".join(_left_out(left_out)) if left_out else None,
    )
    if not findings:
        return conjunction, results
    for (i, _), findings in zip(conjuncts, _findings(formulas, decide, pool, path, options.semantics)):
        if isinstance(findings, Exception):
            results[i] = replace(results[i], status="error", message=internal_error(findings), exception=findings)
            continue
        state = "vacuous" if any(not f.undecided for f in findings) else "undecided" if findings else "clean"
        results[i] = replace(results[i], vacuity=state, findings=findings)
    return conjunction, results


#: Witnesses a file's questions keep for the next ones (the latest first).
SHARED_WITNESSES = 32


def _memo(options: SolveOptions):  # -> Callable[[Formula], Result]
    """Satisfiability by the engine with the run's budget, each question asked once, and
    answered by a witness found for an earlier question where one satisfies it (checked, in
    milliseconds, against the question as asked). A file's vacuity questions all conjoin the
    same specs (C & !s[o := v], one per occurrence), so most of them are satisfied by a trace
    found for another: on the 8-client arbiter, one solve per question took 29 s."""
    cache: dict[Formula, Result] = {}
    found: list[Witness] = []

    def decide(formula: Formula) -> Result:
        if options.assume is not None:
            formula = And(formula, options.assume)
        if formula not in cache:
            known = next((w for w in found if is_witness(formula, w, semantics=options.semantics)), None)
            if known is not None:
                cache[formula] = Sat(known)
            else:
                result = engine_answer(formula, logic_of(formula), options)[0]
                if isinstance(result, Sat):
                    found.insert(0, result.witness)
                    del found[SHARED_WITNESSES:]
                cache[formula] = result
        return cache[formula]

    decide.assume = options.assume  # type: ignore[attr-defined]
    return decide
