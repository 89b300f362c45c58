"""Values a problem forces, found by exact arithmetic before the SMT solver is asked: where an
equality holds (unit propagation says so) with one side a variable at an instant, or a
function's entry, whose value is not known yet, and the other side's value known, the first
takes that value; an atom whose every value read is known is then decided by the exact
evaluator (`evaluate`), and what it decides goes back to unit propagation
(`ltl.searches.smt_bounded.Recorded`).

BLACK's counters (`c = 1.0 & G(wnext(c) = 10.0 * c) & X^84(x = c & G(wnext(x) = x / 10.0) &
F(x = 1.0))`) are arithmetic once the steps are unrolled: z3, searching for which instant
satisfies `F` with numbers of 200 digits in its simplex, took a second where the values
decide every comparison.

Instants are the SMT encoding's: a value at an instant past a trace's end is a variable like
any other there (the Boolean layer says whether the instant exists), so the evaluator is asked
with every instant present."""

from __future__ import annotations

from fractions import Fraction

from ltlwit.logic.theory.evaluate import TraceError, Undefined, Value, atom_value, operands, term_value
from ltlwit.logic.theory.sorts import Signature, Sort
from ltlwit.logic.theory.terms import PRE, SHIFT_STEP, Term

#: ("v", variable, instant) or ("f", function, argument values): what takes a value.
Slot = tuple
#: What an atom reads: ("v", variable, instant), or ("f", function) for any of its entries.
Key = tuple

_NOTHING: dict = {}


class Forced:
    """The values known so far (module docstring)."""

    def __init__(self, sig: Signature) -> None:
        self.sig = sig
        self.states: dict[int, dict[str, Value]] = {}
        self.tables: dict[tuple[str, tuple[Value, ...]], Value] = {}

    def keys(self, a: Term, at: int) -> list[Key]:
        """What the atom reads at `at`: it may be decided once all of it is known."""
        out: set[Key] = set()
        stack = [(a, at)]
        while stack:
            node, p = stack.pop()
            if node.op == "var":
                if node.name not in self.sig.constants:
                    out.add(("v", node.name, p))
                continue
            if node.op in ("call", "pred") and (node.name, len(node.children)) in self.sig.functions:
                out.add(("f", node.name))
            stack.extend(operands(node, p))
        return list(out)

    def known(self, key: Key) -> bool:
        return key[0] == "f" or key[2] in self.states and key[1] in self.states[key[2]]

    def decide(self, a: Term, at: int) -> bool | None:
        """The atom's value at `at` where every value it reads is known, else None."""
        try:
            return atom_value(a, at, self._state, self.sig, self.tables)
        except TraceError:
            return None

    def learn(self, a: Term, at: int, holds: bool) -> Key | None:
        """Where the atom (holding at `at` when `holds`) is an equality between a slot whose
        value is unknown and a term whose value is known: the slot takes it, and what reads it
        is returned (None: nothing learnt)."""
        if a.op not in ("=", "!=") or holds != (a.op == "="):
            return None
        sorts = self.sig.sorts_in(a)
        left, right = a.children
        for this, other in ((left, right), (right, left)):
            slot = self._slot(this, at, sorts)
            if slot is None or self._has(slot):
                continue
            try:
                value = term_value(other, at, self._state, self.sig, self.tables, sorts)
            except (TraceError, Undefined):
                continue
            kind, name, where = slot
            sort = self.sig.variables[name] if kind == "v" else self.sig.functions[(name, len(where))][1]
            typed = _typed(value, sort)
            if typed is None:
                return None
            if kind == "v":
                self.states.setdefault(where, {})[name] = typed
                return slot
            self.tables[(name, where)] = typed
            return ("f", name)
        return None

    def _slot(self, term: Term, at: int, sorts) -> Slot | None:
        while term.op in SHIFT_STEP or term.op == "call" and term.name in PRE:
            ((term, at),) = operands(term, at)
        if term.op == "var":
            return None if term.name in self.sig.constants else ("v", term.name, at)
        if term.op == "call" and (term.name, len(term.children)) in self.sig.functions:
            try:
                args = tuple(term_value(c, at, self._state, self.sig, self.tables, sorts) for c in term.children)
            except (TraceError, Undefined):
                return None
            return ("f", term.name, args)
        return None

    def _has(self, slot: Slot) -> bool:
        kind, name, where = slot
        if kind == "v":
            return name in self.states.get(where, _NOTHING)
        return (name, where) in self.tables

    def _state(self, p: int) -> dict[str, Value]:
        return self.states.get(p, _NOTHING)


def _typed(value: Value, sort: Sort) -> Value | None:
    """The value as a slot of `sort` holds it; None where it cannot (an Int slot equal to a
    fraction: z3 finds that conflict)."""
    if sort.enum:
        return value if isinstance(value, str) and value in sort.values else None
    if isinstance(value, (str, bool)) or sort.name not in ("Int", "Real"):
        return None
    exact = Fraction(value)
    if sort.name == "Int":
        return int(exact) if exact.denominator == 1 else None
    return exact
