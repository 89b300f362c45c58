"""The pipeline over a stream of inputs: chunks in, outcomes out, in input order.

Per chunk of inputs:
1. parse each input and decide its logic (errors become outcomes at once);
2. for the inputs a model can take: rewrite into the model's core operators, rename
   canonically into slots (`a`, `b`, ...), and run each model's beam search once for the
   whole chunk (inputs over a dual model's AP limit, beyond `MAX_MODEL_INPUT`, or with past
   operators, which the models never saw, skip it: their answers say so in `models_skipped`);
3. per input, try the candidates best score first: rename back, validate against the formula
   as written; the first that verifies is the answer (with `--all`: up to N distinct ones);
4. no candidate verified: the engine answers (`--timeout` per formula), or, with
   `--no-fallback`, the answer is UNKNOWN.

Chunks ramp up 1, 4, 16, ... to `batch_size`, so the first answer is quick and later ones come
in batches the models run efficiently (each batch pays a fixed cost per decoding step: ramping
by 4 rather than 2 made 100 formulas' beam search 7% cheaper); without a model every input is its own chunk. Only one
chunk is held at a time: memory does not grow with the input. A formula met again (the same
formula, same logic) gets the answers it got before from a bounded cache (`REMEMBERED`).

Each input passes the stages as a typed value: `Answered` (done before the models: an error,
or a formula met before) or `Pending` (parsed, with its `ModelInput` when a model may take it,
collecting the models' `Proposal`s), and leaves as `Solution`s.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

from ltlwit.logic import stage
from ltlwit.logic.budget import HardLimit, deadline_scope
from ltlwit.logic.formula import And, Formula
from ltlwit.logic.rename import Renaming
from ltlwit.logic.result import Result, Sat, Unsat
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Witness, logic_of, same_words
from ltlwit.pipeline.answers import Notify, Solution, Status, internal_error
from ltlwit.pipeline.checking import engine_answer, validate
from ltlwit.pipeline.coreform import MAX_MODEL_INPUT, to_core
from ltlwit.pipeline.inputs import FormulaItem, InputItem, SpecItem
from ltlwit.pipeline.models import ModelProblem, Selection, check_device, cuda_available, load, select
from ltlwit.pipeline.options import SolveOptions
from ltlwit.pipeline.parsing import InputParser, name_warnings
from ltlwit.pipeline.sources import CandidateSource, NeuralSource, Proposal, merge

if TYPE_CHECKING:
    from ltlwit.logic.core import Core
    from ltlwit.logic.theory.sorts import Declarations

#: Distinct formulas whose answers a run remembers (least recently used ones are forgotten),
#: and input texts (up to `parsing.SHORT` characters) whose parse it remembers.
REMEMBERED = 4096


@dataclass(frozen=True)
class Answered:
    """An input answered before the models: an error, or a formula whose answers are known."""

    solutions: list[Solution]


@dataclass(frozen=True)
class ModelInput:
    """What a model sees of an input: its core form over slot names, and the renaming back."""

    renaming: Renaming
    formula: Formula


@dataclass
class Pending:
    """A parsed input still to be answered; `model_input` is None when no model may take it."""

    item: InputItem
    formula: Formula
    logic: str
    semantics: str  # the input's own (a spec's) or the run's
    model_input: ModelInput | None
    spent: float  # seconds attributed to this input so far
    proposals: list[list[Proposal]] = field(default_factory=list)  # one list per source that ran
    warnings: tuple[str, ...] = ()  # about how its text was read (`Solution.warnings`)
    declarations: Declarations | None = None  # its data's sorts: the run's and its spec file's

    @property
    def finite(self) -> bool:
        """Its answer is a finite trace, or no finite trace exists (the models write lassos)."""
        return self.logic == "ltl" and self.semantics == "finite"


class Pipeline:
    """One run's pipeline. `sources` (per task) replaces the registry's models — tests plug in
    fakes this way; by default the models of `options.model` are loaded on first use.
    `model_failed` is set once a model failed to load or run (its inputs went to the engine)."""

    def __init__(
        self,
        options: SolveOptions,
        sources: Mapping[str, Sequence[CandidateSource]] | None = None,
        notify: Notify | None = None,
    ) -> None:
        self.options = options
        self.notify: Notify = notify or _silent
        self.model_failed = False
        self._sources: dict[str, list[CandidateSource]] = {t: list(s) for t, s in (sources or {}).items()}
        #: Answers by (formula, logic, semantics, declarations), least recently asked first.
        self._memo: OrderedDict[tuple[Formula, str, str, Declarations | None], list[Solution]] = OrderedDict()
        #: Parses the inputs, remembering the parses of short texts.
        self.parser = InputParser(options.syntax, remember=REMEMBERED)
        self._selection = Selection({t: () for t in self._sources}) if sources is not None else select(options)
        #: When the first input's clock starts, if before it is read (`count_from`).
        self._origin: float | None = None
        #: Whether the notices that past formulas, and formulas over data, skip the models were
        #: given (once a run each).
        self._past_said = False
        self._data_said = False

    def count_from(self, origin: float) -> None:
        """Start the first input's clock at `origin` (a `time.perf_counter()` reading), e.g.
        when the process started: a one-formula command then answers within `--timeout` of
        being launched, start-up included."""
        self._origin = origin

    def take_origin(self) -> float | None:
        """The first input's clock start (`count_from`), handed to whoever reads the first
        input instead (a worker process, `ltlwit.pipeline.parallel`)."""
        origin, self._origin = self._origin, None
        return origin

    @property
    def uses_models(self) -> bool:
        return any(self._sources.values()) or not self._selection.empty

    # -- the stream ------------------------------------------------------------------------

    def run(self, items: Iterable[InputItem], ramp: bool = True) -> Iterator[Solution]:
        """Solutions for `items`, lazily, in input order (several per input with `all`).
        `ramp=False`: model batches are `batch_size` from the start (a worker process given a
        chunk of a longer stream, `ltlwit.pipeline.parallel`)."""
        for solutions in self.answers(items, ramp):
            yield from solutions

    def answers(
        self, items: Iterable[InputItem], ramp: bool = True, read: Callable[[InputItem], float | None] | None = None
    ) -> Iterator[list[Solution]]:
        """`run`'s solutions, a list per input, each as soon as the input is answered.
        `read(item)`: when the input was read, if before it is taken from `items` (a
        `time.perf_counter()` reading, or None): its clock starts then, and an input whose
        `--timeout` ran out before it is taken is answered UNKNOWN at once (a worker process
        given inputs that the main process read, `ltlwit.pipeline.parallel`).

        The parsers and the LTL engine's first steps load here, before the first input's clock
        starts: nearly every input needs them. The SAT solver and the searches on it load when
        a formula first needs them (`solver._search` in `ltlwit.logic.ltl`, `engine_answer` for
        a propositional formula), within that formula's `--timeout`: 20-60 ms, once a process,
        that a cold `ltlwit solve` of a small LTL formula does not pay."""
        import ltlwit.logic.ltl  # noqa: F401
        import ltlwit.logic.syntax  # noqa: F401

        for chunk in self._chunks(items, 1 if ramp or not self.uses_models else self.options.batch_size):
            yield from self._run_chunk(chunk, read)

    def _chunks(self, items: Iterable[InputItem], size: int) -> Iterator[list[InputItem]]:
        stream = iter(items)
        while True:
            chunk = list(itertools.islice(stream, size))
            if not chunk:
                return
            yield chunk
            if self.uses_models:
                size = min(size * 4, self.options.batch_size)

    def _run_chunk(
        self, chunk: list[InputItem], read: Callable[[InputItem], float | None] | None = None
    ) -> Iterator[list[Solution]]:
        stages = [self._prepare(item, read(item) if read is not None else None) for item in chunk]
        pending = [stage for stage in stages if isinstance(stage, Pending)]
        for task in ("ltl", "prop"):
            for source in self._task_sources(task, pending):
                self._propose(source, [p for p in pending if self._takes(source, p)])
        for prepared in stages:
            yield prepared.solutions if isinstance(prepared, Answered) else list(self._finish(prepared))

    # -- stages ------------------------------------------------------------------------------

    def _prepare(self, item: InputItem, read: float | None = None) -> Answered | Pending:
        stage.enter("parsing")
        start = time.perf_counter()
        if self._origin is not None:
            start, self._origin = min(start, self._origin), None
        if read is not None:  # handed to this worker then (`ltlwit.pipeline.parallel`)
            start = min(start, read)
        elif item.began is not None:  # from the line's first byte (a slow producer, a huge line)
            start = min(start, item.began)
        deadline = self.options.deadline(start)
        if deadline is not None and time.perf_counter() >= deadline:  # it waited or read that long
            return Answered([self._solution(item, "unknown", start=start, message="time budget exhausted")])
        try:
            parsed = self._parse(item, start)
            if isinstance(parsed, Answered):
                return parsed
            formula, logic, warnings = parsed
            if self.options.one_event and not isinstance(item, SpecItem):  # a spec file's are in its formula
                events = self._one_event(item, formula, logic, start)
                if isinstance(events, Answered):
                    return events
                formula = And(formula, events)
            semantics = getattr(item, "semantics", None) or self.options.semantics
            try:
                declarations = self._declarations(item)
            except ValueError as exc:  # a --var that clashes with the spec file's own declaration
                return Answered([self._solution(item, "error", start=start, message=str(exc))])
            earlier = self._memo.get((formula, logic, semantics, declarations))
            if earlier is not None:
                self._memo.move_to_end((formula, logic, semantics, declarations))
                time_ms = _ms(time.perf_counter() - start)
                return Answered([_again(s, item, time_ms, warnings) for s in earlier])
            pending = Pending(item, formula, logic, semantics, None, 0.0, warnings=warnings, declarations=declarations)
            pending.model_input = self._model_input(pending)
            pending.spent = time.perf_counter() - start
            return pending
        except Exception as exc:  # noqa: BLE001 - a bug on one input must not cost the others
            return Answered([self._solution(item, "error", start=start, message=internal_error(exc), exception=exc)])

    def _one_event(self, item: InputItem, formula: Formula, logic: str, start: float) -> Formula | Answered:
        """The input's exactly-one-activity constraint, built within its deadline: 20,000
        activities are 300,000 nodes."""
        from ltlwit.logic.declare import one_event

        try:
            with deadline_scope(self.options.deadline(start), self.options.ceiling, "adding --one-event"):
                return one_event(sorted(formula.aps()), logic == "ltl")
        except HardLimit as exc:
            return Answered([self._solution(item, "unknown", start=start, message=str(exc))])

    def _declarations(self, item: InputItem) -> Declarations | None:
        """The sorts an input's data has: the run's, and its spec file's on top."""
        own = getattr(item, "declarations", None)
        if own is None:
            return self.options.declarations
        return (self.options.declarations or own).merged(own) if self.options.declarations else own

    def _parse(self, item: InputItem, start: float) -> Answered | tuple[Formula, str, tuple[str, ...]]:
        """The input's formula, logic and warnings about its reading, or its error answer."""
        if item.error is not None:
            return Answered([self._solution(item, "error", start=start, message=item.error)])
        warnings: tuple[str, ...] = ()
        if isinstance(item, SpecItem):
            if item.parse_error is not None:
                return Answered(
                    [self._solution(item, "error", start=start, message="parse error", parse_error=item.parse_error)]
                )
            if item.unknown is not None or item.formula is None:
                return Answered([self._solution(item, "unknown", start=start, message=item.unknown)])
            formula, warnings = item.formula, item.warnings
        elif isinstance(item, FormulaItem):
            formula = item.formula
        else:
            try:  # the name warnings within the deadline too: they may read the text again
                with deadline_scope(self.options.deadline(start), self.options.ceiling):
                    formula = self.parser.parse(item)
                    warnings = name_warnings(item.text, formula, self.options.syntax)
            except ValueError as exc:  # ParseError, with a caret rendering
                return Answered([self._solution(item, "error", start=start, message="parse error", parse_error=exc)])
            except HardLimit as exc:  # a multi-megabyte input whose reading took all of --timeout or --max-memory
                return Answered([self._solution(item, "unknown", start=start, message=str(exc))])
        try:
            return formula, logic_of(formula, self.options.logic), warnings
        except ValueError as exc:  # --logic prop for a temporal formula (`Grant`: the warning says why)
            return Answered(
                [
                    self._solution(
                        item, "error", start=start, logic=self.options.logic, message=str(exc), warnings=warnings
                    )
                ]
            )

    def _model_input(self, p: Pending) -> ModelInput | None:
        formula, logic = p.formula, p.logic
        if formula.past or formula.data or p.finite or not self._models_for(logic):
            return None
        core = to_core(formula, logic)
        if core.size > MAX_MODEL_INPUT:
            return None
        renaming = Renaming.canonical(core)
        return ModelInput(renaming, renaming.apply(core))

    def _models_for(self, logic: str) -> bool:
        """Whether a model is in use for `logic` (selected, loaded or plugged in)."""
        return bool(self._sources.get(logic) or self._selection.names.get(logic))

    def _takes(self, source: CandidateSource, p: Pending) -> bool:
        if p.model_input is None or p.logic != source.task:
            return False
        return source.max_aps is None or len(p.model_input.renaming) <= source.max_aps

    def _task_sources(self, task: str, pending: list[Pending]) -> list[CandidateSource]:
        """The task's sources, loading the registry's models the first time an input needs them."""
        if task not in self._sources and any(p.logic == task and p.model_input is not None for p in pending):
            self._sources[task] = self._load(task)
        if any(p.logic == task and p.formula.past for p in pending) and self._models_for(task) and not self._past_said:
            self._past_said = True
            self.notify(
                "formulas with past operators (Y, Z, S, T, O, H) skip the models, trained on "
                "future-only LTL; the engine answers them",
                None,
            )
        if any(p.logic == task and p.formula.data for p in pending) and self._models_for(task) and not self._data_said:
            self._data_said = True
            self.notify(
                "formulas over data (comparisons such as x > 1) skip the models, trained on propositions; "
                "the engine answers them with an SMT solver",
                None,
            )
        return self._sources.get(task, [])

    def _load(self, task: str) -> list[CandidateSource]:
        stage.enter("loading the models")
        names = self._selection.names.get(task, ())
        sources: list[CandidateSource] = []
        if names and self.options.model == "auto" and self.options.device == "auto" and not cuda_available():
            self._selection.names[task] = ()
            return sources  # a driver but no CUDA torch: auto quietly leaves it to the engine
        try:
            if names:
                check_device(self.options.device)
            for name in names:
                model, manifest = load(name, self.options.device, self.options.threads)
                opts = self.options
                sources.append(
                    NeuralSource(name, model, manifest, opts.beam_width, opts.n_best, opts.batch_size, opts.max_len)
                )
        except ModelProblem as exc:
            self._model_failed(f"{exc}; answering {task} formulas with the engine", None)
            return []
        return sources

    def _propose(self, source: CandidateSource, pending: list[Pending]) -> None:
        if not pending:
            return
        stage.enter(f"models (a batch of {len(pending)})")
        start = time.perf_counter()
        formulas = []
        for p in pending:
            assert p.model_input is not None  # `_takes` passes only inputs a model may take
            formulas.append(p.model_input.formula)
        try:
            found = source.propose(formulas)
            if len(found) != len(pending):
                raise ValueError(f"{len(found)} candidate lists for {len(pending)} formulas")
        except Exception as exc:  # noqa: BLE001 - a model failure costs speed, never answers
            self._model_failed(
                f"{source.label} failed ({type(exc).__name__}: {' '.join(str(exc).split())}); "
                "not used for the rest of this run, the engine answers instead",
                exc,
            )
            self._sources[source.task] = [s for s in self._sources[source.task] if s is not source]
            found = [[] for _ in pending]
        share = (time.perf_counter() - start) / len(pending)
        for p, proposals in zip(pending, found):
            p.proposals.append(list(proposals))
            p.spent += share

    def _finish(self, p: Pending) -> Iterator[Solution]:
        start = time.perf_counter()
        try:
            solutions = [self._second_opinion(p, s, start - p.spent) for s in self._answer(p, start)]
        except Exception as exc:  # noqa: BLE001 - see _prepare
            solutions = [
                self._solution(
                    p.item,
                    "error",
                    p.spent,
                    start,
                    logic=p.logic,
                    message=internal_error(exc),
                    exception=exc,
                    warnings=p.warnings,
                )
            ]
        if all(s.status != "error" for s in solutions):
            _remember(self._memo, (p.formula, p.logic, p.semantics, p.declarations), solutions)
        yield from solutions

    def _second_opinion(self, p: Pending, s: Solution, started: float) -> Solution:
        """A witness the builtin checker passed, judged again by the other validators of
        `--validator` (`ltlwit.logic.validators`), within the input's `--timeout` from
        `started`. A disagreement is never silent: the answer becomes an error whose message
        holds the formula, the witness and each verdict, and the witness is not printed as
        one; a validator that could only search up to a bound, or ran out of time, leaves the
        answer as it is, with a warning."""
        if s.witness is None or len(self.options.validators) < 2:
            return s
        from ltlwit.logic.validators import second_opinion

        try:
            with deadline_scope(self.options.deadline(started), self.options.ceiling, "judging the witness again"):
                text, warnings = second_opinion(self.options.validators, p.formula, s.witness, True, p.semantics)
        except ValueError as exc:
            return replace(s, status="error", witness=None, verified=None, message=f"validator: {exc}")
        if text is not None:
            return replace(s, status="error", witness=None, verified=None, message=text)
        return replace(s, warnings=s.warnings + warnings)

    def _answer(self, p: Pending, start: float) -> list[Solution]:
        opts = self.options
        found: list[tuple[Witness, str, int]] = []  # (witness, source, rank)
        tried = 0
        stage.enter("checking the models' candidates")
        for rank, proposal in enumerate(merge(p.proposals), 1):
            tried += 1
            assert p.model_input is not None  # only inputs a model took have proposals
            witness = validate(p.formula, p.logic, p.model_input.renaming, proposal.prediction, opts.engine)
            if witness is not None and not any(same_words(witness, f[0]) for f in found):
                found.append((witness, proposal.source, rank))
                if not opts.all or len(found) >= opts.n_best:
                    break

        skipped = self._skipped(p)

        def solution(status: Status, **fields: object) -> Solution:
            return self._solution(
                p.item,
                status,
                p.spent,
                start,
                logic=p.logic,
                candidates_tried=tried,
                models_skipped=skipped,
                semantics=p.semantics if p.logic == "ltl" else None,
                warnings=p.warnings,
                **fields,
            )

        out = [solution("sat", witness=w, source=src, rank=rank, verified=True) for w, src, rank in found]
        if out and not (opts.all and len(out) < opts.n_best and opts.fallback):
            return out
        if not opts.fallback:
            return out or [solution("unknown", message=self._no_fallback_reason(p, tried))]
        try:
            if p.semantics != opts.semantics or p.declarations != opts.declarations:
                opts = replace(opts, semantics=p.semantics, declarations=p.declarations)
            stage.enter("engine")
            result, source = engine_answer(p.formula, p.logic, opts, started=start - p.spent)
        except ValueError as exc:
            return out or [
                self._solution(p.item, "error", p.spent, start, logic=p.logic, message=str(exc), warnings=p.warnings)
            ]
        if isinstance(result, Sat):
            if not any(same_words(result.witness, f[0]) for f in found):
                out.append(solution("sat", witness=result.witness, source=source, verified=True))
            if opts.all:
                out = _distinct([replace(s, witness=self._word(p, s.witness)) for s in out])
                out += [
                    solution("sat", witness=w, source=source, verified=True)
                    for w in self._alternatives(p, opts, [s.witness for s in out], start)
                ]
            return out
        if out:  # the models found witnesses; the engine did not add one
            return out
        if isinstance(result, Unsat):
            return [solution("unsat", source=source, core=self._core(p, opts, start) if opts.core else None)]
        return [solution("unknown", source=source, message=result.reason or None)]

    def _alternatives(self, p: Pending, opts: SolveOptions, known: list, start: float) -> list:
        """More witnesses from the engine, up to `--top` in all (`--all`): the formula asked
        again with each known witness's word excluded (`witness.excluding`), each new one
        checked against the formula as written; they stop at the first question the engine
        cannot answer or finds unsatisfiable, and at the input's deadline."""
        from ltlwit.logic.witness import excluding, is_witness

        found: list = []
        aps = p.formula.aps()
        while len(known) + len(found) < opts.n_best:
            others = [x for x in (excluding(w, aps) for w in known + found) if x is not None]
            if len(others) < len(known) + len(found):
                break  # a witness with data values
            try:
                result, _ = engine_answer(And(p.formula, *others), p.logic, opts, started=start - p.spent)
            except ValueError:
                break
            if not isinstance(result, Sat) or not is_witness(
                p.formula,
                result.witness,
                semantics=p.semantics if p.logic == "ltl" else None,
                declarations=p.declarations,
            ):
                break
            found.append(self._word(p, result.witness))
        return found

    def _word(self, p: Pending, witness: Witness | None) -> Witness | None:
        """A lasso as one word (`witness.concrete`), so that `--all`'s lassos differ in a word (a
        symbolic loop's words cannot be excluded by a formula), checked against the formula as
        written like every witness printed; other witnesses as they are."""
        from ltlwit.logic.witness import concrete, holds

        if not isinstance(witness, Trace) or witness.finite or witness.data:
            return witness
        word = concrete(witness, p.formula.aps())
        if not holds(p.formula, word, semantics=p.semantics):
            raise AssertionError(f"a word of the verified witness {witness} fails its check")
        return word

    def _core(self, p: Pending, opts: SolveOptions, start: float) -> Core:
        """The input's unsat core over its top-level conjuncts (and within them, with
        `--fine-core`), within its `--timeout`."""
        from ltlwit.logic.core import fine_core, top_conjuncts, unsat_core

        started = start - p.spent
        deadline = opts.deadline(started)
        written = _written(p.item.text, p.formula)
        parts = tuple(f for _, _, f in written) if written is not None else top_conjuncts(p.formula)

        def decide(f: Formula) -> Result:
            return engine_answer(f, p.logic, opts, started=started)[0]

        def expired() -> bool:
            return deadline is not None and time.perf_counter() >= deadline

        with stage.within("unsat core"):
            core = unsat_core(parts, decide, expired)
            if opts.core == "fine":
                core = fine_core(core, decide, expired)
        spans = (
            tuple((start, end) for start, end, _ in written)
            if written is not None
            else _spans(p.item.text, p.formula, len(parts))
        )
        return replace(core, spans=spans)

    def _skipped(self, p: Pending) -> str | None:
        """Why no model saw an input although one is in use for its logic; None when one did,
        or none is in use."""
        if not self._models_for(p.logic):
            return None
        if p.formula.data:
            return "data atoms (the models know propositions only)"
        if p.finite:
            return "finite semantics (the models write lassos)"
        if p.formula.past:
            return "past operators (the models know future-only LTL)"
        if p.model_input is None:
            return f"too large (over {MAX_MODEL_INPUT} tokens in core form)"
        sources = self._sources.get(p.logic, [])
        if sources and not any(self._takes(s, p) for s in sources):
            return f"more APs ({len(p.model_input.renaming)}) than the models tell apart"
        return None

    def _no_fallback_reason(self, p: Pending, tried: int) -> str:
        skipped = self._skipped(p)
        if tried:
            why = f"none of the {tried} model candidates verified"
        elif not self._sources.get(p.logic) and skipped is None:
            why = f"no {p.logic} model is in use"
        elif skipped is not None:
            why = f"the models skipped the formula: {skipped}"
        else:
            why = "the models proposed no well-formed candidate"
        return why + " (--no-fallback)"

    # -- helpers -----------------------------------------------------------------------------

    def _solution(
        self, item: InputItem, status: Status, spent: float = 0.0, start: float | None = None, **fields: Any
    ) -> Solution:
        """`fields`: the Solution's other fields, by name."""
        if start is not None:
            spent += time.perf_counter() - start
        return Solution(item=item, status=status, time_ms=_ms(spent), **fields)

    def _model_failed(self, message: str, exc: BaseException | None) -> None:
        self.model_failed = True
        self.notify(message, exc)


def _silent(text: str, exc: BaseException | None = None) -> None:
    """The notices of a pipeline given no `notify`: none."""


def _distinct(solutions: list[Solution]) -> list[Solution]:
    """The solutions whose witnesses stand for other words than the earlier ones' (lassos made
    one word each for `--all` may meet)."""
    out: list[Solution] = []
    words: list[Witness] = []  # theirs
    for s in solutions:
        assert s.witness is not None  # `--all`'s answers: sat, each with its witness
        if not any(same_words(s.witness, w) for w in words):
            out.append(s)
            words.append(s.witness)
    return out


def _written(text: str, formula: Formula) -> list[tuple[int, int, Formula]] | None:
    """The input's top-level conjuncts as the user wrote them (`infix.written_conjuncts`) where
    the input is infix text that reads as `formula` and more than one conjunct is written: a
    core names them, not the engine's rewriting (`G[0..2] c` is one conjunct, not `c` and
    `wX(c & wX c)`, and `a & true & Y b` has three)."""
    from ltlwit.logic.syntax.infix import written_conjuncts

    try:
        read, parts = written_conjuncts(text)
    except ValueError:
        return None
    conjuncts = [(start, end, f) for start, end, f in parts if f is not None]
    if read is not formula or len(parts) < 2 or len(conjuncts) < len(parts):
        return None
    return conjuncts


def _spans(text: str, formula: Formula, count: int) -> tuple[tuple[int, int], ...] | None:
    """Where the formula's top-level conjuncts are written in its input line, when the line is
    infix text that reads as that formula (else None: Polish, LBT, a formula from the API)."""
    from ltlwit.logic.syntax.infix import conjunct_spans

    try:
        written, spans = conjunct_spans(text)
    except ValueError:
        return None
    return tuple(spans) if written is formula and len(spans) == count else None


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 3)


def _remember(table: OrderedDict, key: object, value: object) -> None:
    table[key] = value
    if len(table) > REMEMBERED:
        table.popitem(last=False)


def _again(solution: Solution, item: InputItem, time_ms: float, warnings: tuple[str, ...]) -> Solution:
    """A remembered solution for another input with the same formula (a shallow copy with the
    input, time and warnings changed: `dataclasses.replace` re-runs __init__ and costs 10x more;
    `G rant` and `Grant` are one formula, and only the second is warned about)."""
    copy = object.__new__(Solution)
    copy.__dict__.update(solution.__dict__, item=item, time_ms=time_ms, warnings=warnings)
    return copy
