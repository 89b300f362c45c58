"""`ltlwit check` as a function: spec files in, one result per spec (and per file's conjunction
with --vacuity) out.

Each spec is answered by the solving pipeline (model candidates validated, engine fallback):
`sat` passes with a verified witness, `unsat` passes when the engine proves it (a model never
claims unsatisfiability), `valid` passes when the negation is unsatisfiable and fails with a
verified counterexample otherwise. UNKNOWN (the budget ran out) never passes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import BinaryIO, ClassVar, Iterable, Iterator

from ltlwit.inputs import InputItem
from ltlwit.logic.formula import And, Formula, Not
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.pipeline import Pipeline
from ltlwit.pipeline.checking import engine_answer
from ltlwit.solve import Answer, Outcome, SolveOptions, internal_error, parse
from ltlwit.specs.files import Spec, read_specs
from ltlwit.specs.vacuity import Finding, check_spec


@dataclass(frozen=True, kw_only=True)
class SpecResult(Answer):
    """status: pass | fail | unknown | error. `verdict`: what the formula is (sat, unsat,
    valid, invalid, unknown); `witness` satisfies it, `counterexample` satisfies its negation."""

    POSITIVE: ClassVar[str] = "pass"

    spec: Spec
    verdict: str | None = None
    witness: object = None
    counterexample: object = None
    source: str | None = None
    #: With --vacuity: "clean", "vacuous", "undecided", or "skipped" (not among the conjuncts).
    vacuity: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def vacuity_failed(self) -> bool:
        return self.vacuity in ("vacuous", "undecided")


@dataclass(frozen=True, kw_only=True)
class ConjunctionResult(Answer):
    """With --vacuity: whether the satisfiable-expected specs of a file hold together."""

    POSITIVE: ClassVar[str] = "pass"

    count: int
    witness: object = None


@dataclass(frozen=True)
class CheckOptions:
    solve: SolveOptions
    vacuity: bool = False


def check_files(paths: Iterable[str], options: CheckOptions, pipeline: Pipeline,
                stdin: BinaryIO | None = None) -> Iterator[SpecResult | ConjunctionResult]:
    """Results file by file, specs in file order; a file's conjunction result (with
    --vacuity) comes before its specs, whose vacuity it decides. The path `-` reads `stdin`."""
    for path in paths:
        yield from _check_file(path, options, pipeline, stdin)


def _check_file(path: str, options: CheckOptions, pipeline: Pipeline,
                stdin: BinaryIO | None) -> Iterator[SpecResult | ConjunctionResult]:
    from ltlwit.logic.syntax import print_formula

    specs = list(read_specs(path, stdin))
    parsed: list[tuple[Spec, Formula | None, SpecResult | None]] = []
    for spec in specs:
        item = InputItem(spec.formula, spec.file, spec.line)
        if spec.error is not None:
            parsed.append((spec, None, SpecResult(item=item, spec=spec, status="error", message=spec.error)))
            continue
        try:
            parsed.append((spec, parse(spec.formula, options.solve.syntax), None))
        except ValueError as exc:
            parsed.append((spec, None, SpecResult(item=item, spec=spec, status="error", message="parse error",
                                                  parse_error=exc)))
    queries = [InputItem(print_formula(Not(f) if s.expect == "valid" else f, "spot"), s.file, s.line)
               for s, f, done in parsed if done is None]
    outcomes = iter(pipeline.run(queries))
    results = [done if done is not None else _judge(spec, next(outcomes)) for spec, _, done in parsed]
    if options.vacuity:
        conjuncts = [(i, f) for i, (spec, f, done) in enumerate(parsed) if done is None and spec.expect == "sat"]
        conjunction, results = _vacuity(path, conjuncts, results, options.solve)
        if conjunction is not None:
            yield conjunction
    yield from results


def _judge(spec: Spec, outcome: Outcome) -> SpecResult:
    common = dict(item=outcome.item, spec=spec, time_ms=outcome.time_ms, source=outcome.source,
                  logic=outcome.logic)
    if outcome.status == "error":
        return SpecResult(status="error", message=outcome.message, parse_error=outcome.parse_error, **common)
    if outcome.status == "unknown":
        return SpecResult(status="unknown", verdict="unknown", message=outcome.message or "no answer", **common)
    if spec.expect == "valid":
        if outcome.status == "unsat":
            return SpecResult(status="pass", verdict="valid", **common)
        return SpecResult(status="fail", verdict="invalid", counterexample=outcome.witness,
                          message="expected valid, but a trace violates it", **common)
    if outcome.status == spec.expect:
        return SpecResult(status="pass", verdict=outcome.status, witness=outcome.witness, **common)
    message = ("expected unsat, but it is satisfiable" if outcome.status == "sat"
               else "expected sat, but it is unsatisfiable")
    return SpecResult(status="fail", verdict=outcome.status, witness=outcome.witness, message=message, **common)


def _vacuity(path: str, conjuncts: list[tuple[int, Formula]], results: list[SpecResult],
             options: SolveOptions) -> tuple[ConjunctionResult | None, list[SpecResult]]:
    from dataclasses import replace

    indices = {i for i, _ in conjuncts}
    results = [r if i in indices or r.status == "error" else replace(r, vacuity="skipped")
               for i, r in enumerate(results)]
    if not conjuncts:
        return None, results
    decide = _memo(options)
    formulas = [f for _, f in conjuncts]
    start = time.perf_counter()
    item = InputItem(f"the {len(formulas)} specs expected satisfiable", path, 0)
    try:
        verdict = decide(And(*formulas))
    except ValueError as exc:
        return ConjunctionResult(item=item, status="error", count=len(formulas), message=str(exc)), results
    elapsed = round((time.perf_counter() - start) * 1000.0, 3)
    if isinstance(verdict, Unsat):
        return ConjunctionResult(item=item, status="fail", count=len(formulas), time_ms=elapsed,
                                 message="jointly unsatisfiable: no trace satisfies all of them"), results
    if isinstance(verdict, Unknown):
        return ConjunctionResult(item=item, status="unknown", count=len(formulas), time_ms=elapsed,
                                 message=verdict.reason or "no answer within the budget"), results
    conjunction = ConjunctionResult(item=item, status="pass", count=len(formulas), time_ms=elapsed,
                                    witness=verdict.witness if isinstance(verdict, Sat) else None)
    for position, (i, _) in enumerate(conjuncts):
        try:
            findings = check_spec(formulas, position, decide)
        except Exception as exc:  # noqa: BLE001 - one spec's bug must not cost the report
            results[i] = replace(results[i], status="error", message=internal_error(exc))
            continue
        state = ("vacuous" if any(not f.undecided for f in findings)
                 else "undecided" if findings else "clean")
        results[i] = replace(results[i], vacuity=state, findings=findings)
    return conjunction, results


def _memo(options: SolveOptions):  # -> Callable[[Formula], Result]
    """Satisfiability by the engine with the run's budget, each question asked once."""
    cache: dict[Formula, Result] = {}

    def decide(formula: Formula) -> Result:
        if formula not in cache:
            logic = "ltl" if formula.temporal else "prop"
            cache[formula] = engine_answer(formula, logic, options)[0]
        return cache[formula]

    return decide
