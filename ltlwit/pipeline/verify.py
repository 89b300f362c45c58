"""Checking given witnesses against formulas: `ltlwit verify`, and `ltlwit.verify` on text.

A propositional witness is a partial assignment (`a1c0`, a JSON object, or a cube: Spot's
`a & !c` or LBT's `& "a" ! "c"`) and holds when it entails the formula; an LTL witness is a
symbolic lasso trace (steps in Spot, Polish or LBT syntax) and holds when every word it stands
for satisfies the formula. Reading is `ltlwit.logic.witness.parse_witness`, judging is its
`holds`: the seam `solve` and `eval` use too. Every problem with an input becomes an "error"
verdict instead of an exception.

So that solve's output pasted beside its inputs verifies line by line, solve's answers that
are no witness are claims too: `UNSAT` (also `UNSAT core: ...`, as `--core` prints it) holds
when the engine proves the formula unsatisfiable again and fails when it finds a witness, the
counterexample to the claim; `UNKNOWN` claims nothing, so its verdict is "unknown".
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Iterator, Literal

from ltlwit.logic.budget import Budget, HardLimit, Limit, deadline_scope, defer_free
from ltlwit.logic.formula import FALSE, And, Formula
from ltlwit.logic.result import Sat, Unknown
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Witness, holds, logic_of, parse_witness
from ltlwit.pipeline.answers import Answer, internal_error
from ltlwit.pipeline.checking import engine_answer
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.options import SolveOptions, default_max_memory
from ltlwit.pipeline.parsing import InputParser, given_up, name_warnings, parse

if TYPE_CHECKING:  # the theory layer loads with the first formula over data, logs with --log
    from ltlwit.logic.theory.sorts import Declarations
    from ltlwit.pipeline.logs import Log

VerdictStatus = Literal["holds", "fails", "unknown", "error"]


@dataclass(frozen=True)
class VerifyOptions:
    logic: str = "auto"
    syntax: str = "auto"
    engine: str = "auto"
    #: "infinite" (lassos) or "finite" (finite traces); a trace of the other kind is an error.
    semantics: str = "infinite"
    #: MiB the process may hold while the engine proves an `UNSAT` claim, the other validators
    #: judge a witness or a log is checked (as solve's `max_memory`; 0: no ceiling).
    max_memory: int = field(default_factory=default_max_memory)
    #: Seconds for an `UNSAT` claim's proof, for the other validators' second opinion on a
    #: witness, and for each requirement checked against a log (`verify_log`: reading the log
    #: counts in the first's); None: no limit.
    timeout: float | None = None
    #: Who judges a witness (`ltlwit.logic.validators`): the first decides, the others must agree.
    validators: tuple[str, ...] = ("builtin",)
    #: The sorts of data variables (`--var`, `--domain`), for formulas over data.
    declarations: Declarations | None = None

    def limits(self) -> SolveOptions:
        """`timeout` and `max_memory` as a solve's, whose `deadline` and `ceiling` the checks
        that are no solve (a second opinion, a log) read too."""
        return SolveOptions(timeout=self.timeout, max_memory=self.max_memory, model="none")


@dataclass(frozen=True, kw_only=True)
class Verdict(Answer):
    """`verify`'s answer for one FORMULA/WITNESS pair, both kept as the user wrote them."""

    POSITIVE: ClassVar[str] = "holds"

    status: VerdictStatus
    formula: str
    witness: str
    #: For an `UNSAT` claim that fails: the witness the engine found.
    counterexample: Witness | None = None
    #: Checking a log (`verify_log`), for a requirement that must hold at every instant: the
    #: first instant (0-based) where it does not, and the log's line that instant is on.
    violated_at: int | None = None
    violated_line: int | None = None
    #: Checking a log: the problems with it that keep this requirement from being judged
    #: (`path:LINE: why`); every requirement reading the same bad part has the same, so that
    #: they are told once.
    log_problems: tuple[str, ...] = ()
    #: Checking a log: the requirement's name (a spec file's), if it has one.
    name: str | None = None

    @property
    def holds(self) -> bool | None:
        return {"holds": True, "fails": False}.get(self.status)


#: solve's answer that there is no witness: `UNSAT`, with `--core` `UNSAT core: ...`.
UNSAT_CLAIM = re.compile(r"UNSAT(?: core: .*)?\Z", re.S)
#: Why an `UNKNOWN` claim gets no verdict (the verdict's reason, `ltlwit.verify`'s error).
NOTHING_TO_CHECK = "UNKNOWN claims no answer (solve found neither a witness nor a proof): nothing to check"


def claim_of(witness_text: str) -> str | None:
    """ "unsat" or "unknown" where `witness_text` is one of solve's answers that are no
    witness, else None. They never mean an assignment: the printers quote a name `UNSAT`."""
    if UNSAT_CLAIM.match(witness_text):
        return "unsat"
    return "unknown" if witness_text == "UNKNOWN" else None


def judge_unsat(
    formula: Formula, logic: str, options: VerifyOptions
) -> tuple[VerdictStatus, Witness | None, str | None]:
    """The claim that `formula` has no witness, judged the only way it can be: the engine
    decides the formula again (with `options`' engine, semantics and memory ceiling).
    ("holds", None, None) when it proves it unsatisfiable; ("fails", the witness it found, why)
    when it finds one; ("unknown", None, why) when it cannot decide."""
    solving = SolveOptions(
        logic=logic,
        engine=options.engine,
        semantics=options.semantics,
        max_memory=options.max_memory,
        timeout=options.timeout,
        model="none",
        declarations=options.declarations,
    )
    result, _ = engine_answer(formula, logic, solving)
    if isinstance(result, Sat):
        shown = result.witness.to_str("spot")
        return "fails", result.witness, f"{shown} satisfies the formula: it is not unsatisfiable"
    if isinstance(result, Unknown):
        return "unknown", None, f"the UNSAT claim is undecided: {result.reason or 'the engine has no answer'}"
    return "holds", None, None


def verify_lines(
    items: Iterable[InputItem], options: VerifyOptions, parser: InputParser | None = None
) -> Iterator[Verdict]:
    """Verdicts for `FORMULA<TAB>WITNESS` lines, lazily and in order; the formulas of one file
    share syntax auto-detection (`parser`'s guesses), as `solve -F` does (a DeepLTL file's `Uab`
    is `a U b`)."""
    parser = parser or InputParser(options.syntax)
    for item in items:
        if item.error is not None:
            yield verify_one(item, item.text, "", options)
            continue
        parts = [part.strip() for part in item.text.split("\t")]
        if len(parts) != 2 or not all(parts):
            yield verify_one(replace(item, error="expected FORMULA<TAB>WITNESS"), item.text, "", options)
            continue
        yield verify_one(item, parts[0], parts[1], options, parser)


def verify_one(
    item: InputItem, formula_text: str, witness_text: str, options: VerifyOptions, parser: InputParser | None = None
) -> Verdict:
    start = time.perf_counter()
    warnings: tuple[str, ...] = ()  # about how the formula was read, once it is

    def done(status: VerdictStatus, **fields: Any) -> Verdict:  # fields: the Verdict's others, by name
        elapsed = round((time.perf_counter() - start) * 1000.0, 3)
        return Verdict(
            item=item,
            status=status,
            formula=formula_text,
            witness=witness_text,
            time_ms=elapsed,
            warnings=warnings,
            **fields,
        )

    if item.error is not None:
        return done("error", message=item.error)
    from ltlwit.logic.syntax import deepltl_framing

    try:
        formula = (parser or InputParser(options.syntax)).parse(
            replace(item, text=formula_text), polish_hint=deepltl_framing(witness_text)
        )
    except ValueError as exc:
        return done("error", message="parse error in the formula", parse_error=exc)
    warnings = name_warnings(formula_text, formula, options.syntax)
    try:
        logic = logic_of(formula, options.logic)
    except ValueError as exc:
        return done("error", logic=options.logic, message=str(exc))
    claim = claim_of(witness_text)
    if claim == "unknown":
        return done("unknown", logic=logic, message=NOTHING_TO_CHECK)
    if claim == "unsat":
        try:
            status, counterexample, reason = judge_unsat(formula, logic, options)
        except ValueError as exc:  # a formula the engine cannot take (too deep)
            return done("error", logic=logic, message=str(exc))
        except Exception as exc:  # noqa: BLE001 - see answers.internal_error
            return done("error", logic=logic, message=internal_error(exc), exception=exc)
        return done(status, logic=logic, message=reason, counterexample=counterexample)
    witness: Witness
    try:
        witness = parse_witness(witness_text, formula, options.logic)
    except ValueError as exc:
        return done("error", logic=logic, message="parse error in the witness", parse_error=exc)
    logic = "ltl" if isinstance(witness, Trace) else "prop"  # a trace may witness a propositional formula
    try:
        data = {"declarations": options.declarations} if formula.data else {}
        valid = holds(formula, witness, options.engine, options.semantics, **data)
        if len(options.validators) > 1:
            from ltlwit.logic.validators import second_opinion

            limits = options.limits()
            with deadline_scope(limits.deadline(start), limits.ceiling, "judging the witness again"):
                text, bounded = second_opinion(options.validators, formula, witness, valid, options.semantics)
            if text is not None:
                return done("error", logic=logic, message=text)
            warnings += bounded
        return done("holds" if valid else "fails", logic=logic)
    except ValueError as exc:  # an AP the formula lacks, a formula too deep for the checker
        return done("error", logic=logic, message=str(exc))
    except Exception as exc:  # noqa: BLE001 - see answers.internal_error
        return done("error", logic=logic, message=internal_error(exc), exception=exc)


@dataclass(frozen=True)
class Requirement:
    """What `verify_log` checks: a formula's text and where it was read, and how a spec file
    means it (`ltlwit.specs.files.Spec`: at every instant, with constants, with its file's
    sorts)."""

    item: InputItem
    text: str
    name: str | None = None
    holds: str | None = None
    substitute: tuple[tuple[str, str], ...] = ()
    declarations: Declarations | None = None
    syntax: str | None = None  # its file's (a FRET export's `nuxmv`), else the run's


#: Where a spec holds (`ltlwit.specs.files.Spec.holds`): at the first instant, at every one, or
#: at the last of a finite trace.
HOLDS = ("initially", "always", "finally")


def as_checked(formula: Formula, at: str | None = None, substitute: tuple[tuple[str, str], ...] = ()) -> Formula:
    """The formula a spec asks about: its constants put in (FRET's Internal variables assigned a
    numeral), `G(formula)` for one that holds at every instant, `F(formula & wX false)` for one
    that holds at the last instant (of a finite trace: the instant with no next)."""
    if substitute and formula.data:
        from ltlwit.logic.theory.terms import substituted

        formula = substituted(formula, dict(substitute))
    if at == "always":
        return Formula("G", (formula,))
    if at == "finally":
        return Formula("F", (And(formula, Formula("wX", (FALSE,))),))
    return formula


def verify_log(requirements: Iterable[Requirement], log: str, options: VerifyOptions) -> Iterator[Verdict]:
    """Runtime verification: each requirement against the log of states at `log`
    (`ltlwit.pipeline.logs`), a finite trace whose columns nothing declares get their sorts
    from their values (`ltlwit.pipeline.log_sorts`). HOLDS or FAILS per requirement; one that
    must hold at every instant (`G(p)`, or a spec that holds `always`: FRET's requirements)
    that fails names the first instant where it does not, and its line. A problem with the log
    is an error verdict for each requirement it keeps from being judged
    (`Verdict.log_problems`). Each requirement has `options.timeout` from when its check
    begins, the first's reading the log; past it, or past the memory ceiling, it is UNKNOWN."""
    from ltlwit.pipeline.logs import LogError, read_log

    limits = options.limits()
    parser = InputParser(options.syntax)
    read: Log | LogError | HardLimit | None = None
    try:
        for requirement in requirements:
            start = time.perf_counter()
            if read is None:
                try:
                    with deadline_scope(limits.deadline(start), limits.ceiling, "reading the log"):
                        read = read_log(log)
                except (LogError, HardLimit) as exc:  # a limit's keeps the log read so far, for `defer_free`
                    read = exc
            yield _check_log(requirement, read, log, options, limits, parser, start)
    finally:
        if read is not None:  # a log of gigabytes: freed after the answers (by the CLI, never: its process ends)
            defer_free(read)


def _check_log(
    requirement: Requirement,
    read: Log | Exception,
    path: str,
    options: VerifyOptions,
    limits: SolveOptions,
    parser: InputParser,
    start: float,
) -> Verdict:
    item = requirement.item

    def done(status: VerdictStatus, **fields: Any) -> Verdict:  # fields: the Verdict's others, by name
        elapsed = round((time.perf_counter() - start) * 1000.0, 3)
        return Verdict(
            item=item,
            status=status,
            formula=requirement.text,
            witness=path,
            time_ms=elapsed,
            logic="ltl",
            name=requirement.name,
            **fields,
        )

    if item.error is not None:
        return done("error", message=item.error)
    if isinstance(read, HardLimit):
        return done("unknown", message=str(read))
    if isinstance(read, Exception):
        return done("error", message=str(read), log_problems=(str(read),))
    deadline = limits.deadline(start)
    try:
        try:
            with deadline_scope(deadline, limits.ceiling):
                formula = (
                    parse(requirement.text, requirement.syntax)
                    if requirement.syntax
                    else parser.parse(replace(item, text=requirement.text))
                )
        except ValueError as exc:
            return done("error", message="parse error in the formula", parse_error=exc)
        formula = as_checked(formula, requirement.holds, requirement.substitute)
        with deadline_scope(deadline, limits.ceiling, "checking the log"):
            limit = Limit(Budget(seconds=options.timeout, memory=limits.ceiling, start=start))
            return _judge(formula, read, options.declarations, requirement.declarations, limit, done)
    except HardLimit as exc:
        return done("unknown", message=str(given_up(exc)))
    except ValueError as exc:  # a sort clash, a requirement the log cannot judge
        return done("error", message=str(exc))
    except Exception as exc:  # noqa: BLE001 - see answers.internal_error
        return done("error", message=internal_error(exc), exception=exc)


def _judge(
    formula: Formula,
    log: Log,
    run: Declarations | None,
    own: Declarations | None,
    limit: Limit,
    done: Callable[..., Verdict],
) -> Verdict:
    """A requirement's verdict on the log (`done(status, **fields)` makes it): its columns'
    sorts as declared (`run`: --var and --domain; `own`: its spec file's, on top) or else
    inferred from the log."""
    from ltlwit.logic.ltl import abstraction, as_declared
    from ltlwit.logic.ltl.check import holds_data, violations
    from ltlwit.logic.theory.evaluate import state_trace
    from ltlwit.logic.theory.sorts import BOOL
    from ltlwit.pipeline.log_sorts import inferred_declarations, typed_column

    declared = run.merged(own) if run is not None else own
    found = inferred_declarations(log, formula, declared)
    problems = [*log.problems, *found.problems]
    declarations = found.declarations.merged(declared)
    if not problems:
        formula = as_declared(formula, declarations)
        whole = abstraction(formula, declarations, True)
        props = formula.aps()
        columns = {}
        for name, sort in [*((p, BOOL) for p in props), *whole.signature.variables.items()]:
            columns[name], problem = typed_column(log, name, sort)
            if problem is not None:
                problems.append(problem)
    if problems:
        return done("error", message="; ".join(problems), log_problems=tuple(problems))
    trace = state_trace(columns, len(log), whole.signature, props)
    if formula.op != "G":  # G(p) holds where p holds at every instant: `violations` says both
        if holds_data(whole, trace, limit):
            return done("holds", warnings=found.warnings)
        return done("fails", message=f"the log's {len(log)} states do not satisfy it", warnings=found.warnings)
    first = violations(abstraction(formula.children[0], declarations, True), trace, limit)
    if not first:
        return done("holds", warnings=found.warnings)
    return done(
        "fails",
        message=f"first violated at {log.where(first[0])} (instant {first[0]})",
        violated_at=first[0],
        violated_line=log.lines[first[0]],
        warnings=found.warnings,
    )
