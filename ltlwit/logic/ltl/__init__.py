"""ltlwit's classical LTL engine: satisfiability with small verified lasso witnesses, and
checking of symbolic lasso traces (universal semantics).

    solve(formula, budget=None, engine="auto", semantics="infinite") -> Sat(Trace) | Unsat | Unknown
    holds(formula, trace, engine="auto") -> bool

`semantics`: "infinite" (lassos) or "finite" (LTLf: finite, non-empty traces; `X` is the
strong next, `wX` the weak one, the same operator on infinite traces); `holds` reads the
semantics off the trace (a finite trace has no cycle).
    Budget(seconds=None, states=None)
    clear_caches()

`engine`: "builtin" (this package, pure Python), "spot" (Spot's Python bindings; ValueError
when `import spot` fails), "auto" (= builtin: it is the one the test suite and the benchmarks
vouch for on these machines).

Modules: `rewrite` (NNF + basic rewrites), `labels` (truth tables / BDDs), `expand` (on-the-fly
FM translation), `emptiness` (Couvreur's SCC check, paths), `witness` (lasso extraction and
simplification), `check` (`holds`), `solver` (`solve`), `finite` (finite semantics as an end
condition of the same engine), `spot` (optional backend).
"""

from __future__ import annotations

from collections import OrderedDict
from contextlib import nullcontext
from typing import TYPE_CHECKING

from ltlwit.logic import SEMANTICS
from ltlwit.logic.budget import Budget, HardLimit, before_the_search
from ltlwit.logic.formula import Formula
from ltlwit.logic.ltl import check as _check
from ltlwit.logic.ltl import finite as _finite_mod
from ltlwit.logic.ltl.solver import solve_builtin
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.logic.trace import Trace

if TYPE_CHECKING:
    from ltlwit.logic.theory.abstraction import Abstraction
    from ltlwit.logic.theory.sorts import Declarations

ENGINES = ("auto", "builtin", "spot")

__all__ = ["Budget", "ENGINES", "SEMANTICS", "as_declared", "clear_caches", "equivalent", "holds", "solve"]


def solve(
    formula: Formula,
    budget: Budget | None = None,
    engine: str = "auto",
    semantics: str = "infinite",
    declarations: Declarations | None = None,
) -> Result:
    """Satisfiability of an LTL (or propositional) formula with a verified witness: a lasso,
    or under finite semantics a finite trace.

    Never a wrong answer: a witness has passed `holds`, Unsat comes from an exhaustive search.
    A formula too deep for the interpreter gives Unknown, not a crash. A formula over data
    (`formula.data`) is decided modulo its theories (`data`), its variables' sorts from
    `declarations` or inferred (SortError, a ValueError, where they clash or are unknown)."""
    finite = _finite(semantics)
    try:
        with before_the_search(budget, "inferring the sorts") if formula.data else nullcontext():
            formula = as_declared(formula, declarations)
    except HardLimit as exc:
        return Unknown(str(exc))
    if formula.data:
        if _backend(engine) == "spot":
            raise ValueError("the spot engine has no data atoms; the built-in engine (--engine builtin) decides them")
        from ltlwit.logic.ltl import data

        try:
            with before_the_search(budget, "inferring the sorts"):
                abstracted = abstraction(formula, declarations, finite)
        except HardLimit as exc:  # sorts inferred over a line of 100,000s of terms
            return Unknown(str(exc))
        return data.solve(abstracted, budget)
    if _backend(engine) == "spot":
        from ltlwit.logic.ltl import spot

        if finite:
            raise ValueError(
                "the spot engine decides infinite traces only; the built-in engine "
                "(--engine builtin) decides finite ones"
            )
        return spot.solve(_strong(formula, budget), budget)
    try:
        if finite:
            return _finite_mod.solve(formula, budget)
        return solve_builtin(_strong(formula, budget), budget)
    except HardLimit as exc:  # weak nexts rewritten in a formula of 100,000s of nodes
        return Unknown(str(exc))
    except RecursionError:
        return Unknown("formula nested too deeply for the built-in engine")


def equivalent(
    f: Formula, g: Formula, budget: Budget | None = None, engine: str = "auto", semantics: str = "infinite"
) -> bool | None:
    """Whether f and g are equivalent under `semantics`: True when `f xor g` is unsatisfiable,
    False with a witness that tells them apart, None when `budget` stops the question."""
    verdict = solve(Formula("xor", (f, g)), budget, engine, semantics)
    return True if isinstance(verdict, Unsat) else False if isinstance(verdict, Sat) else None


def _strong(formula: Formula, budget: Budget | None) -> Formula:
    """`finite.strong` within `budget`'s deadline: every node above a weak next is rebuilt."""
    with before_the_search(budget, "rewriting weak nexts"):
        return _finite_mod.strong(formula)


def holds(formula: Formula, trace: Trace, engine: str = "auto", declarations: Declarations | None = None) -> bool:
    """Whether every word matching the symbolic `trace` satisfies `formula` (a lasso: infinite
    words; a finite trace: finite words, finite semantics); False when a step is
    unsatisfiable. Raises ValueError (one line) for a formula nested too deeply. A formula
    over data needs a data trace (values in its steps: `theory.evaluate`), judged exactly,
    without the SMT solver."""
    if formula.data:
        if _backend(engine) == "spot":
            raise ValueError("the spot engine has no data atoms; the built-in engine (--engine builtin) checks them")
        return _check.holds_data(_checked_abstraction(formula, declarations, trace.finite), trace)
    formula = as_declared(formula, declarations)
    if trace.data:  # a trace of a formula over data, read for its propositions
        trace = _propositions(trace)
    if _backend(engine) == "spot":
        from ltlwit.logic.ltl import spot

        if trace.finite:
            raise ValueError(
                "the spot engine checks lassos only; the built-in engine (--engine builtin) checks finite traces"
            )
        return spot.holds(_finite_mod.strong(formula), trace)
    try:
        if trace.finite:
            return _finite_mod.holds(formula, trace)
        return _check.holds(_finite_mod.strong(formula), trace)
    except RecursionError:
        raise ValueError("formula nested too deeply for the built-in checker") from None


def _propositions(trace: Trace) -> Trace:
    """A data trace's steps without their data (values, function tables): what a formula
    without data reads of it. Each step's conjuncts over data are dropped; a step that is no
    such conjunction is a ValueError (which of its words a formula reads is not a step)."""
    from ltlwit.logic.formula import And, conjuncts

    def plain(step: Formula) -> Formula:
        kept = [c for c in conjuncts(step) if not c.data]
        if any(c.data and c.op != "atom" and not (c.op == "!" and c.children[0].op == "atom") for c in conjuncts(step)):
            raise ValueError("a step mixes data and propositions otherwise than in a conjunction")
        return And(*kept)

    return Trace(tuple(plain(s) for s in trace.prefix), tuple(plain(s) for s in trace.cycle))


def as_declared(formula: Formula, declarations: Declarations | None) -> Formula:
    """`formula` as its declarations read it: nuXmv's `p = q` of two propositions is `p <-> q`
    (`theory.sorts.boolean_comparisons`); a proposition declared data is a ValueError (`--var
    x:Int` with `F(x=1)`, Spot's `x` with a negation suffix: the formula would be read about
    something else than meant)."""
    if formula.data:
        from ltlwit.logic.theory.sorts import boolean_comparisons

        formula = boolean_comparisons(formula, declarations)
    if declarations is None or not declarations.entries:
        return formula
    declared = declarations.variables
    clash = next((n for n in formula.aps() if n in declared and declared[n].name != "Bool"), None)
    if clash is not None:
        raise ValueError(
            f"{clash} is declared {declared[clash]} but stands for a proposition here "
            f"(x=0 and x=1 without spaces are Spot's negation suffixes: write {clash} = 0)"
        )
    return formula


def abstraction(formula: Formula, declarations: Declarations | None, finite: bool) -> "Abstraction":
    """A formula over data's Boolean abstraction, its sorts resolved (`theory`)."""
    from ltlwit.logic.theory.abstraction import abstract
    from ltlwit.logic.theory.sorts import resolve

    return abstract(formula, resolve(formula, declarations), finite)


#: The abstractions `holds` judged traces against lately: `check` judges a few witnesses
#: against each of its specs again and again (a FRET export's redundancy questions: 1,200
#: checks, three quarters of their time reading and abstracting the same formulas anew).
_ABSTRACTIONS: "OrderedDict[tuple, Abstraction]" = OrderedDict()
_ABSTRACTIONS_KEPT = 256
_ABSTRACTED_SIZE = 50_000


def _checked_abstraction(formula: Formula, declarations: Declarations | None, finite: bool) -> "Abstraction":
    """`abstraction` of `formula` as declared (`as_declared`), remembered (`_ABSTRACTIONS`)."""
    if formula.size > _ABSTRACTED_SIZE:  # a multi-megabyte formula is not kept
        return abstraction(as_declared(formula, declarations), declarations, finite)
    key = (formula, declarations, finite)
    found = _ABSTRACTIONS.get(key)
    if found is None:
        found = _ABSTRACTIONS[key] = abstraction(as_declared(formula, declarations), declarations, finite)
        if len(_ABSTRACTIONS) > _ABSTRACTIONS_KEPT:
            _ABSTRACTIONS.popitem(last=False)
    else:
        _ABSTRACTIONS.move_to_end(key)
    return found


def _finite(semantics: str) -> bool:
    if semantics not in SEMANTICS:
        raise ValueError(f"unknown semantics {semantics!r} (choose from {', '.join(SEMANTICS)})")
    return semantics == "finite"


def clear_caches() -> None:
    """Forget every memoised rewrite, label universe, evaluator and automaton (they are bounded
    LRU caches anyway; this is for cold-start benchmarks and long-lived processes)."""
    from ltlwit.logic.ltl.encoding import rewrite

    rewrite.clear_memo()
    for table in (_check._LABELS, _check._EVALUATORS, _check._TRANSLATORS, _ABSTRACTIONS):
        table.clear()
    _finite_mod._translated.cache_clear()


def _backend(engine: str) -> str:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    return "builtin" if engine == "auto" else engine
