"""Syntactic implication between NNF formulas (Somenzi & Bloem's rules, as Spot uses them).

`Implications.implies(f, g)` is sound but incomplete: True means every word satisfying f
satisfies g; False means "not proven". The translator uses it to drop obligations implied by
another obligation of the same state ({G a, a} is the state {G a}): the state's language is
the conjunction, so it is unchanged, and states that differ only by implied obligations merge.
Propositional pairs are decided exactly with labels. Deep formulas stop at `MAX_DEPTH`
(answering False), so the recursion is bounded.

Every rule concludes g at the step where the premise is expanded (or g is re-expanded at every
step, as under G). A rule like "F f ⇒ F g when f ⇒ F g" is true but must not be used here:
fulfilling F f would *create* the dropped obligation F g, which would be dropped again, so the
promise is never kept — with it, GF(a & F!a) accepted a^ω (the tests caught it).
"""

from __future__ import annotations

from ltlwit.logic.formula import FALSE, TRUE, Formula
from ltlwit.logic.ltl.encoding.labels import Labels

MAX_DEPTH = 40


class Implications:
    def __init__(self, labels: Labels) -> None:
        self.labels = labels
        self._memo: dict[tuple[Formula, Formula], bool] = {}

    def implies(self, f: Formula, g: Formula, depth: int = 0) -> bool:
        if f is g or g is TRUE or f is FALSE:
            return True
        key = (f, g)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        result = depth < MAX_DEPTH and self._rules(f, g, depth + 1)
        self._memo[key] = result
        return result

    def _rules(self, f: Formula, g: Formula, d: int) -> bool:
        imp = self.implies
        if not f.temporal and not g.temporal:
            L = self.labels
            return L.implies(L.of(f), L.of(g))
        fo, go = f.op, g.op
        # decompose the right side first where that is exact
        if go == "&":
            return imp(f, g.children[0], d) and imp(f, g.children[1], d)
        if fo == "|":
            return imp(f.children[0], g, d) and imp(f.children[1], g, d)
        if go == "|" and (imp(f, g.children[0], d) or imp(f, g.children[1], d)):
            return True
        if fo == "&" and (imp(f.children[0], g, d) or imp(f.children[1], g, d)):
            return True
        if (
            fo == go
            and fo in ("U", "R", "W", "M")
            and imp(f.children[0], g.children[0], d)
            and imp(f.children[1], g.children[1], d)
        ):
            return True
        if fo == go and fo in ("X", "F", "G") and imp(f.children[0], g.children[0], d):
            return True
        # what f guarantees at the first position
        if fo == "G" and imp(f.children[0], g, d):
            return True
        if fo in ("R", "M") and imp(f.children[1], g, d):
            return True
        if fo in ("U", "W") and imp(f.children[0], g, d) and imp(f.children[1], g, d):
            return True
        # what suffices for g at the first position
        if go in ("F", "U", "W") and imp(f, g.children[-1], d):
            return True
        if go in ("R", "M") and imp(f, g.children[0], d) and imp(f, g.children[1], d):
            return True
        if go == "W" and fo == "G" and imp(f.children[0], g.children[0], d):
            return True
        if go == "R" and fo == "G" and imp(f.children[0], g.children[1], d):
            return True
        return False
