"""The pipeline over a stream of inputs: chunks in, outcomes out, in input order.

Per chunk of inputs:
1. parse each input and decide its logic (errors become outcomes at once);
2. for the inputs a model can take: rewrite into the model's core operators, rename
   canonically into slots (`a`, `b`, ...), and run each model's beam search once for the
   whole chunk (inputs over a dual model's AP limit, or beyond `MAX_MODEL_INPUT`, skip it);
3. per input, try the candidates best score first: rename back, validate against the formula
   as written; the first that verifies is the answer (with `--all`: up to N distinct ones);
4. no candidate verified: the engine answers (`--timeout` per formula), or, with
   `--no-fallback`, the answer is UNKNOWN.

Chunks ramp up 1, 2, 4, ... to `batch_size`, so the first answer is quick and later ones come
in batches the models run efficiently; without a model every input is its own chunk. Only one
chunk is held at a time: memory does not grow with the input. A formula met again (the same
formula, same logic) gets the answers it got before from a bounded cache (`REMEMBERED`).
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Hashable, Iterable, Iterator, Mapping, Sequence

from ltlwit.inputs import InputItem
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming
from ltlwit.logic.result import Sat, Unsat
from ltlwit.pipeline.checking import engine_answer, validate
from ltlwit.pipeline.coreform import MAX_MODEL_INPUT, to_core
from ltlwit.pipeline.models import ModelProblem, Selection, check_device, cuda_available, load, select, source_name
from ltlwit.pipeline.sources import Candidate, CandidateSource, NeuralSource, merge
from ltlwit.solve import InputParser, Notify, Outcome, SolveOptions, internal_error
from ltlwit.status import ExitStatus

#: Distinct formulas whose answers a run remembers (least recently used ones are forgotten),
#: and input texts (up to `_SHORT` characters) whose parse it remembers.
REMEMBERED = 4096
_SHORT = 512


@dataclass
class _Work:
    """One input on its way through a chunk."""

    item: InputItem
    spent: float = 0.0  # seconds attributed to this input so far
    formula: Formula | None = None
    logic: str | None = None
    done: Outcome | None = None  # set when the input is answered before the models
    repeat: list[Outcome] | None = None  # the answers an earlier input with this formula got
    renaming: Renaming | None = None
    slotted: Formula | None = None  # core form over slot names, None: no model takes it
    candidates: list[list[Candidate]] = field(default_factory=list)


class Pipeline:
    """One run's pipeline. `sources` (per task) replaces the registry's models — tests plug in
    fakes this way; by default the models of `options.model` are loaded on first use.
    `exit_status` is ERROR once a model failed to load or run (its inputs went to the engine)."""

    def __init__(self, options: SolveOptions, sources: Mapping[str, Sequence[CandidateSource]] | None = None,
                 notify: Notify | None = None) -> None:
        self.options = options
        self.notify = notify or (lambda text: None)
        self.exit_status = ExitStatus.SUCCESS
        self._sources: dict[str, list[CandidateSource]] = {t: list(s) for t, s in (sources or {}).items()}
        self._memo: OrderedDict[tuple[Formula, str], list[Outcome]] = OrderedDict()
        self._parser = InputParser(options.syntax)
        self._parsed: OrderedDict[Hashable, Formula] = OrderedDict()
        self._selection = Selection({t: () for t in self._sources}) if sources is not None else select(options)

    @property
    def uses_models(self) -> bool:
        return any(self._sources.values()) or not self._selection.empty

    # -- the stream ------------------------------------------------------------------------

    def run(self, items: Iterable[InputItem]) -> Iterator[Outcome]:
        import ltlwit.logic.ltl  # noqa: F401 - load the solvers before the first input's clock starts
        import ltlwit.logic.prop  # noqa: F401
        import ltlwit.logic.syntax  # noqa: F401

        for chunk in self._chunks(items):
            yield from self._run_chunk(chunk)

    def _chunks(self, items: Iterable[InputItem]) -> Iterator[list[InputItem]]:
        stream = iter(items)
        size = 1
        while True:
            chunk = list(itertools.islice(stream, size))
            if not chunk:
                return
            yield chunk
            if self.uses_models:
                size = min(size * 2, self.options.batch_size)

    def _run_chunk(self, chunk: list[InputItem]) -> Iterator[Outcome]:
        work = [self._prepare(item) for item in chunk]
        for task in ("ltl", "prop"):
            for source in self._task_sources(task, work):
                self._propose(source, [w for w in work if self._takes(source, w)])
        for w in work:
            yield from self._finish(w)

    # -- stages ------------------------------------------------------------------------------

    def _prepare(self, item: InputItem) -> _Work:
        start = time.perf_counter()
        w = _Work(item)
        try:
            self._parse(w)
            if w.done is None:
                w.repeat = self._memo.get((w.formula, w.logic))  # type: ignore[arg-type]
            if w.done is None and w.repeat is None and self._may_use_models(w.logic):
                core = to_core(w.formula, w.logic)  # type: ignore[arg-type]
                if core.size <= MAX_MODEL_INPUT:
                    w.renaming = Renaming.canonical(core)
                    w.slotted = w.renaming.apply(core)
        except Exception as exc:  # noqa: BLE001 - a bug on one input must not cost the others
            w.done = self._outcome(w, "error", message=internal_error(exc))
        w.spent += time.perf_counter() - start
        return w

    def _parse(self, w: _Work) -> None:
        if w.item.error is not None:
            w.done = self._outcome(w, "error", message=w.item.error)
            return
        key = self._parser.key(w.item)
        w.formula = self._parsed.get(key)
        if w.formula is not None:
            self._parsed.move_to_end(key)
        else:
            try:
                w.formula = self._parser.parse(w.item)
            except ValueError as exc:  # ParseError, with a caret rendering
                w.done = self._outcome(w, "error", message="parse error", parse_error=exc)
                return
            if len(w.item.text) <= _SHORT:
                _remember(self._parsed, key, w.formula)
        logic = self.options.logic
        w.logic = logic if logic != "auto" else ("ltl" if w.formula.temporal else "prop")
        if w.logic == "prop" and w.formula.temporal:
            w.done = self._outcome(w, "error", logic=w.logic,
                                   message="--logic prop, but the formula has temporal operators")

    def _may_use_models(self, logic: str | None) -> bool:
        return bool(self._sources.get(logic or "")) or bool(self._selection.names.get(logic or ""))

    def _takes(self, source: CandidateSource, w: _Work) -> bool:
        if w.done is not None or w.slotted is None or w.logic != source.task:
            return False
        return source.max_aps is None or len(w.renaming) <= source.max_aps  # type: ignore[arg-type]

    def _task_sources(self, task: str, work: list[_Work]) -> list[CandidateSource]:
        """The task's sources, loading the registry's models the first time an input needs them."""
        if task not in self._sources and any(w.logic == task and w.slotted is not None for w in work):
            self._sources[task] = self._load(task)
        return self._sources.get(task, [])

    def _load(self, task: str) -> list[CandidateSource]:
        names = self._selection.names.get(task, ())
        sources: list[CandidateSource] = []
        if names and self.options.model == "auto" and self.options.device == "auto" and not cuda_available():
            self._selection.names[task] = ()
            return sources  # a driver but no CUDA torch: auto quietly leaves it to the engine
        try:
            if names:
                check_device(self.options.device)
            for name in names:
                model, manifest = load(name, self.options.device)
                opts = self.options
                sources.append(NeuralSource(source_name(name, task), model, manifest, opts.beam_width, opts.n_best,
                                            opts.batch_size, opts.max_len))
        except ModelProblem as exc:
            self._model_failed(f"{exc}; answering {task} formulas with the engine")
            return []
        return sources

    def _propose(self, source: CandidateSource, work: list[_Work]) -> None:
        if not work:
            return
        start = time.perf_counter()
        try:
            found = source.propose([w.slotted for w in work])  # type: ignore[misc]
            if len(found) != len(work):
                raise ValueError(f"{len(found)} candidate lists for {len(work)} formulas")
        except Exception as exc:  # noqa: BLE001 - a model failure costs speed, never answers
            self._model_failed(f"{source.label} failed ({type(exc).__name__}: {' '.join(str(exc).split())}); "
                               "not used for the rest of this run, the engine answers instead")
            self._sources[source.task] = [s for s in self._sources[source.task] if s is not source]
            found = [[] for _ in work]
        share = (time.perf_counter() - start) / len(work)
        for w, cands in zip(work, found):
            w.candidates.append(list(cands))
            w.spent += share

    def _finish(self, w: _Work) -> Iterator[Outcome]:
        if w.done is not None:
            yield w.done
            return
        key = (w.formula, w.logic)
        if w.repeat is not None:
            self._memo.move_to_end(key)  # type: ignore[arg-type]
            yield from (_again(o, w.item, round(w.spent * 1000.0, 3)) for o in w.repeat)
            return
        start = time.perf_counter()
        try:
            outcomes = self._answer(w, start)
        except Exception as exc:  # noqa: BLE001 - see _prepare
            outcomes = [self._outcome(w, "error", logic=w.logic, message=internal_error(exc), start=start)]
        if all(o.status != "error" for o in outcomes):
            _remember(self._memo, key, outcomes)
        yield from outcomes

    def _answer(self, w: _Work, start: float) -> list[Outcome]:
        opts = self.options
        formula, logic = w.formula, w.logic
        assert formula is not None and logic is not None
        found: list[tuple[object, str, int]] = []  # (witness, source, rank)
        tried = 0
        for rank, cand in enumerate(merge(w.candidates), 1):
            tried += 1
            witness = validate(formula, logic, w.renaming, cand.prediction, opts.engine)  # type: ignore[arg-type]
            if witness is not None and all(witness != f[0] for f in found):
                found.append((witness, cand.source, rank))
                if not opts.all or len(found) >= opts.n_best:
                    break
        out = [self._outcome(w, "sat", logic=logic, witness=wit, source=src, rank=rank, candidates_tried=tried,
                             verified=True, start=start) for wit, src, rank in found]
        if out and not (opts.all and len(out) < opts.n_best and opts.fallback):
            return out
        if not opts.fallback:
            return out or [self._outcome(w, "unknown", logic=logic, candidates_tried=tried, start=start,
                                         message=self._no_fallback_reason(w, tried))]
        try:
            result, source = engine_answer(formula, logic, opts)
        except ValueError as exc:
            return out or [self._outcome(w, "error", logic=logic, message=str(exc), start=start)]
        if isinstance(result, Sat):
            if all(result.witness != f[0] for f in found):
                out.append(self._outcome(w, "sat", logic=logic, witness=result.witness, source=source,
                                         candidates_tried=tried, verified=True, start=start))
            return out
        if out:  # the models found witnesses; the engine did not add one
            return out
        if isinstance(result, Unsat):
            return [self._outcome(w, "unsat", logic=logic, source=source, candidates_tried=tried, start=start)]
        return [self._outcome(w, "unknown", logic=logic, source=source, candidates_tried=tried, start=start,
                              message=result.reason or None)]

    def _no_fallback_reason(self, w: _Work, tried: int) -> str:
        sources = self._sources.get(w.logic or "", [])
        if tried:
            why = f"none of the {tried} model candidates verified"
        elif not sources:
            why = f"no {w.logic} model is in use"
        elif w.slotted is None:
            why = f"the formula is too large for the models (over {MAX_MODEL_INPUT} tokens in core form)"
        elif not any(self._takes(s, w) for s in sources):
            why = f"the formula has more APs ({len(w.renaming or ())}) than the models tell apart"
        else:
            why = "the models proposed no well-formed candidate"
        return why + " (--no-fallback)"

    # -- helpers -----------------------------------------------------------------------------

    def _outcome(self, w: _Work, status: str, start: float | None = None, **fields: object) -> Outcome:
        spent = w.spent + (time.perf_counter() - start if start is not None else 0.0)
        return Outcome(item=w.item, status=status, time_ms=round(spent * 1000.0, 3), **fields)  # type: ignore[arg-type]

    def _model_failed(self, message: str) -> None:
        self.exit_status = ExitStatus.ERROR
        self.notify(message)


def _remember(table: OrderedDict, key: object, value: object) -> None:
    table[key] = value
    if len(table) > REMEMBERED:
        table.popitem(last=False)


def _again(outcome: Outcome, item: InputItem, time_ms: float) -> Outcome:
    """A remembered outcome for another input with the same formula (a shallow copy with the
    input and time changed: `dataclasses.replace` re-runs __init__ and costs 10x more)."""
    copy = object.__new__(Outcome)
    copy.__dict__.update(outcome.__dict__, item=item, time_ms=time_ms)
    return copy
