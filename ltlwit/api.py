"""ltlwit as a Python library: `parse`, `solve`, `verify`, `check` (docs/api.md).

    >>> import ltlwit
    >>> f = ltlwit.parse("G(req -> F grant) & F req")
    >>> answer = ltlwit.solve(f)
    >>> answer.status, answer.to_str(), answer.source
    ('sat', 'cycle{req & grant}', 'engine')
    >>> ltlwit.verify(f, "req; cycle{!grant}")
    False

The command line is built on the same objects: `ltlwit solve` streams its inputs through a
`Solver`, `ltlwit check` runs `Solver.check`, and `verify`, `check` and `eval` judge witnesses
with the one seam `ltlwit.logic.witness`. Bad input raises here (`ParseError`, a ValueError with
a column and `render()` for a caret display), where the CLI reports it and goes on; the
streaming calls (`Solver.solve_many`, `Solver.check`) never raise for one bad input.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Iterable, Iterator, Literal, Mapping, Sequence

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.witness import Witness, holds, logic_of, parse_witness
from ltlwit.pipeline import Pipeline
from ltlwit.pipeline.answers import Notify, Solution
from ltlwit.pipeline.inputs import STDIN_NAME, FormulaItem, InputItem
from ltlwit.pipeline.models import check_device
from ltlwit.pipeline.options import SolveOptions, default_max_memory, engine_problem
from ltlwit.pipeline.parsing import InputParser

if TYPE_CHECKING:  # `check`'s: the spec files' layer loads when specs are checked
    from ltlwit.logic.ltl.games import Verdict as Realizability
    from ltlwit.logic.theory.sorts import Declarations
    from ltlwit.pipeline.equivalents import Equivalents
    from ltlwit.specs.baseline import Entry
    from ltlwit.specs.realizability import Report as RealizabilityReport
    from ltlwit.specs.run import ConjunctionResult, Decided, RealizabilityResult, SpecResult
    from ltlwit.specs.similar import Embedded, Similar

__all__ = [
    "CheckReport",
    "Solution",
    "Solver",
    "check",
    "embed",
    "equivalents",
    "index",
    "parse",
    "realize",
    "realize_export",
    "similar",
    "solve",
    "verify",
]

#: Where API inputs say they come from (`Solution.item.file`).
API_NAME = "<api>"


def parse(text: str, syntax: str = "auto") -> Formula:
    """A formula from text in `spot` (infix), `polish` (DeepLTL's), `polish-spaced`, `lbt`, or
    `auto` (detects which). Raises ParseError (a ValueError) with the column of the problem.
    The result prints in any syntax: `parse("G a").to_str("lbt") == "G a"`."""
    from ltlwit.logic.syntax import parse_formula

    return parse_formula(text, syntax)


def realize(
    formula: Formula | str,
    inputs: Sequence[str],
    outputs: Sequence[str] | None = None,
    moore: bool = False,
    timeout: float | None = 60.0,
    max_memory: int | None = None,
    semantics: str = "infinite",
    variables: Mapping[str, str] | None = None,
    domain: str | None = None,
    declarations: Declarations | None = None,
    engine: str = "auto",
) -> Realizability:
    """Whether a system writing `outputs` can make `formula` hold whatever the environment writes
    on `inputs` (every other proposition is an output when `outputs` is None): `Realizable`
    with a controller, `Unrealizable` with a counter-strategy, each verified by the engine, or
    `Unknown` with the reason (`ltlwit.logic.ltl.games`). `moore`: the system writes before it
    reads each instant's inputs (default: Mealy, as at SYNTCOMP). `max_memory`: MiB, as for
    `Solver`. `semantics="finite"`: LTLf synthesis, the system also choosing when the trace
    ends (through an output `alive` its strategy writes). A proposition named both, or named neither while `outputs` is given: ValueError.
    Over data atoms (their sorts from `variables`, `domain` or `declarations`, as `Solver`'s, or inferred),
    decided where `formula` reads no input (the system alone then writes the whole run), or
    where each comparison reads one instant and one player's variables (the finite game over
    their truth values); a strategy then reads and writes values. `engine`: auto (= builtin),
    builtin, or spot: Spot's ltlsynt, where it is on PATH, asked instead of the games, its
    controller checked like theirs (its UNREALIZABLE has no counter-strategy: the games look for
    one; `ltlwit.logic.ltl.games.ltlsynt`); ValueError where it is not on PATH.

        >>> ltlwit.realize("G(req -> F grant) & G(grant -> !req)", ["req"])  # doctest: +SKIP
        Unrealizable(counter_strategy=Machine(...), play=..., bound=0)"""
    from ltlwit.logic.budget import Budget
    from ltlwit.logic.ltl.games import ltlsynt
    from ltlwit.logic.ltl.games import realize as decide

    if engine == "spot" and not ltlsynt.available():
        raise ValueError(f"the spot engine needs Spot's {ltlsynt.PROGRAM} on PATH (not found)")
    if isinstance(formula, str):
        formula = parse(formula)
    memory = default_max_memory() if max_memory is None else max_memory
    budget = Budget(seconds=timeout, memory=(memory << 20) if memory else None)
    declarations = _declarations(declarations, variables, domain)
    return decide(
        formula,
        inputs,
        outputs,
        moore=moore,
        budget=budget,
        semantics=semantics,
        declarations=declarations,
        engine=engine,
    )


def realize_export(
    export: str | os.PathLike,
    timeout: float | None = 60.0,
    diagnose: bool = False,
    max_memory: int | None = None,
    name: str = "<export>",
) -> RealizabilityReport:
    """A FRET export's realizability as FRET asks it: per connected component, each verdict with
    its verified strategy, and with `diagnose` an unrealizable component's minimal conflicts
    (`ltlwit.specs.realizability`). `export`: the export's path, or its JSON text (`name`
    names it in errors)."""
    from ltlwit.specs.realizability import realize_export as decide

    text, path = str(export), name
    if not text.lstrip().startswith(("{", "[")):
        path = text
        with open(export, encoding="utf-8-sig") as stream:
            text = stream.read()
    memory = default_max_memory() if max_memory is None else max_memory
    return decide(text, timeout, diagnose, (memory << 20) if memory else None, path)


class Solver:
    """Solves formulas with one set of options. Models load once, on first use, and a formula
    met again gets its earlier answers back, so reuse one solver for many formulas.

    Options are `ltlwit solve`'s: `logic` (auto|ltl|prop), `syntax` of text inputs, `model`
    (auto|si|dual|both|none or model names, comma-separated; auto runs models only where a CUDA
    GPU can), `timeout` (seconds per formula, from reading it to its answer, None: no limit),
    `max_memory` (MiB the process may hold while the engine works on a formula: past it the
    answer is UNKNOWN, with the reason; None: half the machine's memory, at most 4096; 0: no
    ceiling), `top` (candidates per
    model), `beam`, `engine` (auto|builtin|spot), `semantics` (infinite: lasso witnesses;
    finite: LTLf, finite witnesses, the models skipped), `device`, `fallback` (False: no engine,
    UNKNOWN when no candidate verifies), `all` (up to `top` witnesses per formula), `core` (an
    unsat answer's conflicting conjuncts, `Solution.core`; "fine": and the subformulas within
    them that matter, `Core.fine`),
    `batch_size`, `max_len`, `threads` (CPU threads of the models' tensor operations in this
    process, 1 by default; torch's setting is process-wide), `validators` (who judges a
    witness besides the builtin checker: "aiger", "spot", several comma-separated or a list;
    they must all agree, and a disagreement makes that answer an error naming each verdict),
    `variables` (data variables' sorts for formulas over data, `{"speed": "Real", "mode":
    "{off, on}"}`), `domain` ("Int" or "Real": the sort of data variables nothing else gives
    one; `declarations`, a `Declarations`, says both at once).
    ValueError for options that cannot work here (a model that is not installed,
    `device="cuda"` without a GPU, `engine="spot"` without Spot, a sort that is none)."""

    def __init__(
        self,
        *,
        logic: str = "auto",
        syntax: str = "auto",
        model: str = "auto",
        timeout: float | None = None,
        max_memory: int | None = None,
        top: int | None = None,
        beam: int | None = None,
        engine: str = "auto",
        semantics: str = "infinite",
        device: str = "auto",
        fallback: bool = True,
        all: bool = False,
        core: bool | Literal["fine"] = False,
        batch_size: int = 128,
        max_len: int = 160,
        validators: str | Sequence[str] = "builtin",
        threads: int = 1,
        variables: Mapping[str, str] | None = None,
        domain: str | None = None,
        declarations: Declarations | None = None,
        one_event: bool = False,
        notify: Notify | None = None,
    ) -> None:
        from ltlwit.logic.validators import validator_names

        problem = engine_problem(engine)
        if core not in (False, True, "fine"):
            problem = f"core must be True, False or 'fine', not {core!r}"
        if problem:
            raise ValueError(problem)
        self.options = SolveOptions(
            logic=logic,
            syntax=syntax,
            timeout=timeout,
            max_memory=default_max_memory() if max_memory is None else max_memory,
            engine=engine,
            semantics=semantics,
            model=model,
            top=top,
            beam=beam,
            device=device,
            fallback=fallback,
            all=all,
            core=core,
            batch_size=batch_size,
            max_len=max_len,
            validators=validator_names(validators),
            threads=threads,
            declarations=_declarations(declarations, variables, domain),
            one_event=one_event,
        )
        self.pipeline = Pipeline(self.options, notify=notify)
        if self.pipeline.uses_models:
            check_device(device)

    @property
    def model_failed(self) -> bool:
        """A model failed to load or run during this solver's life (the engine answered)."""
        return self.pipeline.model_failed

    def solve(self, formula: Formula | str) -> Solution:
        """The answer for one formula (the first of them with `all`): raises ParseError for
        text that is no formula, ValueError for a temporal formula with `logic="prop"`."""
        solution = next(iter(self.pipeline.run([self._item(formula)])))
        if solution.status == "error":
            if solution.parse_error is not None:
                raise solution.parse_error
            if solution.exception is not None:
                raise solution.exception
            raise ValueError(solution.message)
        return solution

    def solve_many(self, formulas: Iterable[Formula | str]) -> Iterator[Solution]:
        """Answers in input order, lazily, in model-sized batches; a bad input is a Solution
        with status "error" (its `message`, `parse_error`), never an exception. With `all`, a
        formula may get several answers (`Solution.item.line` is its 1-based position)."""
        return self.run(self._item(f, line) for line, f in enumerate(formulas, 1))

    def run(self, items: Iterable[InputItem]) -> Iterator[Solution]:
        """`solve_many` for inputs that carry their origin (`ltlwit.pipeline.inputs`)."""
        return self.pipeline.run(items)

    def check(
        self,
        paths: Iterable[str],
        vacuity: bool = False,
        stdin: BinaryIO | None = None,
        stdin_name: str = STDIN_NAME,
        jobs: int = 1,
        consistency: bool = False,
        redundancy: bool = False,
        baseline: Sequence[Entry] = (),
        all_cores: bool = False,
        fire: bool | None = None,
        budget: float | None = None,
        progress: bool = False,
        similar: int = 0,
        realizability: bool = False,
    ) -> Generator[SpecResult | ConjunctionResult | RealizabilityResult | Decided, None, None]:
        """The results of spec files (see `check`), lazily, file by file; the path `-` reads
        `stdin`. `jobs` > 1: that many worker processes answer the specs and their vacuity
        questions (each with its own models, loaded once); results still come in file order.
        `fire`: witnesses that make each requirement's trigger fire (None: FRET exports').
        `budget`: seconds for the whole run (each question within what is left of it).
        `progress`: also a `Decided` per spec as soon as its own verdict is decided. `similar`:
        each requirement's that many nearest requirements, their relations decided.
        `realizability`: each file's components' realizability (`RealizabilityResult`)."""
        from ltlwit.specs.run import CheckOptions, check_files

        solve, kept = self.options, self.pipeline.options
        if budget is not None:
            solve = dataclasses.replace(solve, until=time.perf_counter() + budget)
            self.pipeline.options = dataclasses.replace(kept, until=solve.until)
        options = CheckOptions(
            solve,
            vacuity,
            consistency,
            redundancy,
            tuple(baseline),
            all_cores,
            fire=fire,
            progress=progress,
            similar=similar,
            realizability=realizability,
        )
        try:
            if jobs <= 1:
                yield from check_files(paths, options, self.pipeline, stdin, stdin_name)
                return
            from ltlwit.pipeline.parallel import Pool
            from ltlwit.specs.run import CheckWork

            with Pool(jobs, CheckWork, (solve,), spawn=self.pipeline.uses_models, notify=self.pipeline.notify) as pool:
                try:
                    yield from check_files(paths, options, self.pipeline, stdin, stdin_name, pool)
                finally:
                    self.pipeline.model_failed |= pool.model_failed
        finally:
            self.pipeline.options = kept

    def _item(self, formula: Formula | str, line: int = 1) -> InputItem:
        if isinstance(formula, Formula):
            return FormulaItem(formula.to_str("spot"), API_NAME, line, from_argument=True, formula=formula)
        if not isinstance(formula, str):
            raise TypeError(f"expected a Formula or a string, got {type(formula).__name__}")
        return InputItem(formula.strip(), API_NAME, line, from_argument=True)


def _declarations(
    declarations: Declarations | None, variables: Mapping[str, str] | None, domain: str | None
) -> Declarations | None:
    """One `Declarations` of the API's three ways to give sorts; SortError (a ValueError) for
    a sort that is none."""
    if not variables and domain is None:
        return declarations
    from ltlwit.logic.theory.sorts import Declarations, parse_domain, parse_sort

    out = Declarations(domain=parse_domain(domain) if domain is not None else None).merged(declarations)
    for name, sort in (variables or {}).items():
        out = out.declare(name, parse_sort(sort, name) if isinstance(sort, str) else sort)
    return out


@functools.lru_cache(maxsize=8)
def _solver(**options: Any) -> Solver:
    if isinstance(options.get("variables"), tuple):  # made hashable by `solve`
        options["variables"] = dict(options["variables"])
    return Solver(**options)


def solve(
    formula: Formula | str,
    *,
    model: str = "auto",
    timeout: float | None = None,
    top: int | None = None,
    **options: Any,  # Solver's, which checks them
) -> Solution:
    """A verified witness of `formula`, or a proof that it has none.

    Returns a `Solution`: `.status` is "sat" (`.witness` a `Trace` or an `Assignment`, checked
    against the formula), "unsat" or "unknown" (`timeout` seconds ran out; `.message` says
    why); `.source` says who answered (`engine`, `sat-solver`, `model:si-ltl`, ...) and
    `.to_str(syntax)` prints the answer as `ltlwit solve --syntax-out` does. Other `options`
    are `Solver`'s; solvers are kept per set of options, so repeated calls load models once."""
    hashable = {
        k: tuple(v) if isinstance(v, list) else tuple(v.items()) if isinstance(v, dict) else v
        for k, v in options.items()
    }  # (validators=[...], variables={...})
    return _solver(model=model, timeout=timeout, top=top, **hashable).solve(formula)


def verify(
    formula: Formula | str,
    witness: Witness | Mapping[str, bool] | str,
    *,
    logic: str = "auto",
    syntax: str = "auto",
    engine: str = "auto",
    semantics: str = "infinite",
    validators: str | Sequence[str] = "builtin",
    variables: Mapping[str, str] | None = None,
    domain: str | None = None,
) -> bool:
    """Whether `witness` witnesses `formula`: a lasso trace every word of which satisfies it,
    or an assignment that entails a propositional formula. Text is read as `ltlwit verify`
    reads it (a trace `a; cycle{b}` or `a;{b}`, an assignment `a1c0`, `a & !c` or JSON; a
    mapping `{"a": True}` is an assignment). Raises ParseError for unreadable text, ValueError
    for a witness that cannot be judged (an assignment naming an AP the formula lacks, or one
    for a temporal formula, a trace of the other kind than `semantics`: a lasso under "finite",
    a finite trace `a; b` under "infinite").

    `witness` may also be what `solve` prints instead of one, so its answers check as they
    are: "UNSAT" (or "UNSAT core: ...") is True when the engine proves the formula
    unsatisfiable, False when it finds a witness; ValueError when it cannot decide (the
    memory ceiling), and for "UNKNOWN", which claims nothing. `validators` ("aiger", "spot",
    several): they must agree with the builtin checker, else ValueError naming each verdict.
    A formula over data takes a trace with values (`x = 0; x = 1`) and its variables' sorts
    from `variables` and `domain` (as `Solver`'s) or by inference."""
    from ltlwit.logic.validators import second_opinion, validator_names
    from ltlwit.pipeline.verify import NOTHING_TO_CHECK, VerifyOptions, claim_of, judge_unsat

    if isinstance(formula, str):
        from ltlwit.logic.syntax import deepltl_framing

        item = InputItem(formula.strip(), API_NAME, 1, from_argument=True)
        formula = InputParser(syntax).parse(item, polish_hint=isinstance(witness, str) and deepltl_framing(witness))
    decided = logic_of(formula, logic)
    claim = claim_of(witness.strip()) if isinstance(witness, str) else None
    if claim == "unknown":
        raise ValueError(NOTHING_TO_CHECK)
    declarations = _declarations(None, variables, domain)
    if claim == "unsat":
        status, _, reason = judge_unsat(
            formula, decided, VerifyOptions(logic, syntax, engine, semantics, declarations=declarations)
        )
        if status == "unknown":
            raise ValueError(reason)
        return status == "holds"
    if isinstance(witness, Mapping):
        witness = Assignment.of(witness)
    elif isinstance(witness, str):
        witness = parse_witness(witness, formula, logic)
    valid = (
        holds(formula, witness, engine, semantics, declarations)
        if formula.data
        else holds(formula, witness, engine, semantics)
    )
    text, _ = second_opinion(validator_names(validators), formula, witness, valid, semantics)
    if text is not None:
        raise ValueError(text)
    return valid


@dataclass(frozen=True)
class CheckReport:
    """The results of checking spec files: one `SpecResult` per spec (`.status` pass, fail,
    unknown or error; `.spec.name`, `.verdict`, `.witness`, `.counterexample`) and, with
    vacuity, one `ConjunctionResult` per file first; with realizability, a `RealizabilityResult`
    per component last. `passed` is what `ltlwit check`'s exit status 0 means."""

    results: list[SpecResult | ConjunctionResult | RealizabilityResult]

    @property
    def specs(self) -> list[SpecResult]:
        from ltlwit.specs.run import SpecResult

        return [r for r in self.results if isinstance(r, SpecResult)]

    @property
    def passed(self) -> bool:
        from ltlwit.specs.run import SpecResult

        return all(r.positive and not (isinstance(r, SpecResult) and r.findings_failed) for r in self.results)

    def __iter__(self) -> Iterator[SpecResult | ConjunctionResult | RealizabilityResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)


def check(
    path_or_lines: str | os.PathLike | Iterable[str],
    *,
    vacuity: bool = False,
    consistency: bool = False,
    redundancy: bool = False,
    timeout: float | None = 30.0,
    model: str = "auto",
    fire: bool | None = None,
    budget: float | None = None,
    similar: int = 0,
    realizability: bool = False,
    **options: Any,  # Solver's, which checks them
) -> CheckReport:
    """Check a spec file (a path: text, or TOML by its `.toml` suffix) or spec lines (`name:
    formula  # expect: unsat`, as in a file) against their expectations, as `ltlwit check`
    does; `vacuity`, `consistency` and `redundancy` add its checks of the specs together,
    `fire` witnesses in which requirements fire, `budget` a limit on the whole check, `similar`
    each requirement's that many nearest requirements with their relations (`SpecResult.similar`),
    `realizability` whether the requirements can be implemented whatever the inputs do, per
    component (`RealizabilityResult`: the file's `input` lines say which propositions are
    inputs). Other `options` are `Solver`'s."""
    from ltlwit.specs.run import Decided

    solver = Solver(model=model, timeout=timeout, **options)
    run = functools.partial(
        solver.check,
        vacuity=vacuity,
        consistency=consistency,
        redundancy=redundancy,
        fire=fire,
        budget=budget,
        similar=similar,
        realizability=realizability,
    )
    if isinstance(path_or_lines, (str, os.PathLike)):
        results = run([os.fspath(path_or_lines)])
    else:
        lines = io.BytesIO("".join(line.rstrip("\n") + "\n" for line in path_or_lines).encode("utf-8"))
        results = run(["-"], stdin=lines, stdin_name="<lines>")
    return CheckReport([r for r in results if not isinstance(r, Decided)])  # none come without `progress`


def similar(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
    queries: Iterable[str] = (),
    *,
    top: int = 5,
    timeout: float | None = 10.0,
    index: str | os.PathLike | None = None,
    **options: Any,  # Solver's, which checks them
) -> list[Similar]:
    """For each query (each spec of the files against the others when there is none), its `top`
    nearest specs of the spec files at `paths` by semantic fingerprint, each with its relation
    decided by the engine (`equivalent`, `stronger`, `weaker`, `overlapping`, `disjoint`, or
    `undecided` with the reason), each question within `timeout`, as `ltlwit similar` does. A
    spec or query that cannot be read comes back with its `error`. With `index` (a directory
    `ltlwit.index` filled), each query and each spec of the files is looked up in it instead;
    ValueError where it holds no index."""
    from ltlwit.specs.similar import similar_files, similar_in_index

    solve = Solver(model="none", timeout=timeout, **options).options
    files = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
    if index is not None:
        return list(similar_in_index(os.fspath(index), files, queries, solve, top))
    return list(similar_files(files, queries, solve, top))


def index(
    path: str | os.PathLike,
    formulas: Iterable[str | Formula],
    *,
    semantics: str = "infinite",
    syntax: str = "auto",
    size: int = 256,
    jobs: int = 1,
) -> int:
    """Add the formulas' fingerprints to the nearest-neighbour index at `path` (a directory, made
    where there is none; faiss, `pip install 'ltlwit[index]'`) for `similar(..., index=path)`, as
    `ltlwit embed --index` does (`jobs` processes computing them); the number of formulas it then
    holds. ParseError for a text that
    is not a formula; ValueError for an index of another semantics or size, or a formula over
    data (nothing added)."""
    from ltlwit.specs.index import add, refused
    from ltlwit.specs.similar import Compared

    read = [Compared(str(f), f if isinstance(f, Formula) else parse(f, syntax), semantics) for f in formulas]
    for entry in read:
        why = refused(entry)
        if why is not None:
            raise ValueError(f"{entry.text}: {why}")
    return add(path, read, semantics, size, jobs=jobs)[1]


def embed(
    formulas: Iterable[str | Formula],
    *,
    semantics: str = "infinite",
    syntax: str = "auto",
    model: str | None = None,
    fingerprint: bool = False,
) -> list[Embedded]:
    """Each formula's vector, as `ltlwit embed` prints them: by default the bundled learned
    embedding of the formulas' logic (expemb-ltl, or expemb-prop where none is temporal; the
    APs renamed once over all the formulas), or with `model` that trained ExpEmb model's (a
    name or weights file); with `fingerprint`, or where the bundled models cannot read a formula
    (past operators, data, finite traces), its semantic fingerprint (`ltlwit.logic.fingerprint`),
    the ±1 truth values on a fixed set of traces, equal for equivalent formulas. Each
    `Embedded.embedding` says which. ParseError for a text that is not a formula; ValueError for
    a formula `model` cannot read, or a model that embeds nothing."""
    from ltlwit.specs.similar import Compared, Similar, embedded

    read = [Compared(str(f), f if isinstance(f, Formula) else parse(f, syntax), semantics) for f in formulas]
    done, _ = embedded(read, model, fingerprint)
    for item in done:
        if isinstance(item, Similar):
            raise ValueError(f"{item.entry.text}: {item.error}")
    return [item for item in done if not isinstance(item, Similar)]


def equivalents(
    formula: str | Formula,
    model: str = "auto",
    *,
    beam: int = 10,
    timeout: float = 2.0,
    semantics: str = "infinite",
    syntax: str = "auto",
) -> Equivalents:
    """Formulas an ExpEmb-E model (`model`: its name or weights file; "auto": the bundled one of
    the formula's logic, expemb-ltl or expemb-prop) writes for `formula`,
    each proved equivalent by the engine within `timeout` seconds, in the formula's names,
    shortest first (`formulas`), with the count of the beam's `outputs` and of those that were
    no formula (`malformed`) or not decided (`undecided`); as `ltlwit equiv` prints them.
    ValueError for a model that is not ExpEmb-E or a formula it cannot read."""
    from ltlwit.pipeline.equivalents import Rewriter

    read = formula if isinstance(formula, Formula) else parse(formula, syntax)
    return Rewriter(model).equivalents(read, beam, timeout, semantics)
