"""Asking the engine about a spec file's questions: each once, with the file's reading, within
the run's limits, witnesses shared.

A file's joint questions (its conjunction, scenarios, cores, vacuity and redundancy
questions) all conjoin the same specs (C & !s[o := v], one per occurrence), so most of them are
satisfied by a trace found for another: a `Decider` answers a question by an earlier witness
where one satisfies it (checked, in milliseconds, against the question as asked) and asks the
engine only otherwise; on the 8-client arbiter, one solve per question took 29 s.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from ltlwit.logic.formula import And, Formula, conjuncts
from ltlwit.logic.result import Result, Sat, Unknown
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Witness, is_witness, logic_of
from ltlwit.pipeline.checking import engine_answer
from ltlwit.pipeline.options import SolveOptions

#: Witnesses a file's questions keep for the next ones (the latest first).
SHARED_WITNESSES = 32
#: Why a question asked after the run's `--budget` has no answer.
BUDGET_SPENT = "the run's --budget is spent"


class Decider:
    """Satisfiability of a file's questions (module docstring): the engine with `options` (the
    file's semantics, its one reading of names in `options.declarations`, a `one-event` file's
    activities in `options.assume`, conjoined with every question), each question asked once.
    A question asked once the run's `--budget` is spent is Unknown without asking."""

    def __init__(self, options: SolveOptions) -> None:
        self.options = options
        self._cache: dict[Formula, Result] = {}
        self._found: list[Witness] = []
        #: A bound of this view's questions' own (`bounded`), not the run's `--budget`.
        self._bound: float | None = None
        #: The same questions on infinite traces (`on_lassos`), once asked: shared by the views.
        self._lassos: list[Decider] = []

    def bounded(self, deadline: float | None) -> "Decider":
        """This decider (its answers and witnesses shared) with every question ending by
        `deadline` too (a spec's vacuity, whose questions share its `--timeout`)."""
        if deadline is None:
            return self
        view = Decider(self.options)
        view._cache, view._found, view._bound, view._lassos = self._cache, self._found, deadline, self._lassos
        return view

    def on_lassos(self) -> "Decider":
        """This decider for the same questions on infinite traces (its bound kept): a lasso of
        a formula that only looks back (`G` of a past formula, as FRET writes requirements)
        gives it a finite model of every length, its prefixes; a finite model can only be
        lengthened by another search."""
        if self.options.semantics == "infinite":
            return self
        if not self._lassos:
            self._lassos.append(Decider(replace(self.options, semantics="infinite")))
        return self._lassos[0].bounded(self._bound)

    @property
    def assume(self) -> Formula | None:
        return self.options.assume

    def __call__(self, formula: Formula) -> Result:
        if self.options.assume is not None:
            formula = And(formula, self.options.assume)
        known = self._cache.get(formula)
        if known is not None:
            return known
        parts = conjuncts(formula)[::-1] if not formula.data else [formula]
        witness = next((w for w in self._found if self._fits(parts, formula, w)), None)
        if witness is not None:
            result: Result = Sat(witness)
        elif self.spent():
            result = Unknown(BUDGET_SPENT)
        elif self._bound is not None and time.perf_counter() >= self._bound:
            return Unknown("time budget exhausted")
        else:
            options = self.options
            if self._bound is not None:
                options = replace(options, until=min(self._bound, options.until or self._bound))
            result = engine_answer(formula, logic_of(formula), options)[0]
            if isinstance(result, Sat):
                self._found.insert(0, result.witness)
                del self._found[SHARED_WITNESSES:]
        if not (self._bound is not None and isinstance(result, Unknown)):  # its bound, not the question's limit
            self._cache[formula] = result
        return result

    def _fits(self, parts: list[Formula], formula: Formula, witness: Witness) -> bool:
        """`satisfies`, a trace checked against `parts` (the question's conjuncts, the last
        first: the claim a question adds to the specs, which an earlier question's witness
        mostly fails) one at a time, so that a witness that fails costs one small check."""
        if isinstance(witness, Trace) and len(parts) > 1:
            return all(self.satisfies(part, witness) for part in parts)
        return self.satisfies(formula, witness)

    def satisfies(self, formula: Formula, witness: Witness) -> bool:
        """Whether `witness` satisfies `formula` as the file reads it (its semantics, its sorts)."""
        return is_witness(formula, witness, semantics=self.options.semantics, declarations=self.options.declarations)

    def expiry(self, start: float) -> Callable[[], bool]:
        """Whether the `--timeout` of a question started at `start` is spent: where a core's
        shrinking or an enumeration of conflicts stops."""
        deadline = self.options.deadline(start)
        return lambda: deadline is not None and time.perf_counter() >= deadline

    def spent(self) -> bool:
        """Whether the run's `--budget` is spent."""
        return self.options.until is not None and time.perf_counter() >= self.options.until
