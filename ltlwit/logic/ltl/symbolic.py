"""Symbolic emptiness: the obligation automaton of `xnf` as BDDs, for unsatisfiability proofs
whose explicit search would visit exponentially many states.

The explicit search (`explore`) proves unsatisfiability by visiting every reachable obligation
set. Specifications whose state holds many independent bits (a lift's call buttons: 2^n sets)
defeat it; as sets of states in BDDs, they are small. This is the automaton of `xnf`, Spot's
idea of BDD-labelled transitions taken one step further (NuSMV's way):

* state variables n_g (g is an obligation now) and m_g (g is one next), one pair per formula
  that can be an obligation; AP variables; one variable p_u per Until-like u (postponed);
* the transition relation T = ∧_g (n_g → E(g)), E as in `xnf` with N(g) := m_g and P(u) := p_u;
* the fair states by Emerson–Lei's fixpoint for transition-based generalized Büchi
  acceptance: Z = νZ. ∧_u μY. Z ∧ (EX_u Z ∨ EX Y), where EX_u takes only edges with p_u false.
The formula is unsatisfiable iff no edge from its initial obligations reaches a fair state.

It only ever answers "unsatisfiable" (`prove_unsat`): a satisfiable formula's witness comes
from the other searches. The fixpoints run as a generator that yields after each image, so a
portfolio can interleave it with them; a BDD that outgrows `MAX_NODES` ends it (no verdict).
"""

from __future__ import annotations

from typing import Any, Generator

from ltlwit.logic.budget import Limit
from ltlwit.logic.formula import Formula
from ltlwit.logic.formula import ap as ap_of
from ltlwit.logic.ltl.expand import _closure
from ltlwit.logic.ltl.rewrite import negate
from ltlwit.logic.ltl.xnf import UNTIL_LIKE, conjuncts

#: Nodes in the BDD manager past which the fixpoints give up (memory, and time: CUDD's
#: operations cannot be interrupted, so their size is what bounds one step's time).
MAX_NODES = 2_000_000


class TooBig(Exception):
    """The BDDs outgrew `MAX_NODES`: no verdict from this procedure."""


class Fixpoints:
    """The BDD encoding of one formula's obligation automaton (see the module docstring)."""

    def __init__(self, formula: Formula, limit: Limit) -> None:
        from dd import cudd

        self.limit = limit
        self.cudd = cudd
        self.bdd = cudd.BDD()
        self.bdd.configure(reordering=False)
        self.targets: dict[Formula, int] = {}  # obligation -> index j of (n_j, m_j)
        self.untils: dict[Formula, int] = {}
        self._order(formula)
        b = self.bdd
        self._e: dict[Formula, Any] = {}
        self.aps_q = [f"a{i}" for i in range(len(self.aps))]
        self.m_q = [f"m{j}" for j in range(len(self.targets))]
        self.p_q = [f"p{k}" for k in range(len(self.untils))]
        self.rename_nm = {f"n{j}": f"m{j}" for j in range(len(self.targets))}
        self.quantified = self.aps_q + self.m_q + self.p_q
        relation = b.true
        for g, j in self.targets.items():
            relation &= ~b.var(f"n{j}") | self.now(g)
            self._check()
        self.relation = relation
        self.initial = b.true
        for g in conjuncts(formula):
            self.initial &= self.now(g)
        self.initial = b.exist(self.aps_q + self.p_q, self.initial)  # over m: first successors

    # -- variables, declared in the order the formula meets them (current/next interleaved) --
    def _order(self, formula: Formula) -> None:
        """Declare the variables in an order that keeps the relation small: FORCE (Aloul,
        Markov and Sakallah 2003) over the constraints, each conjunct of an obligation's
        expansion being one: every item (an AP, an obligation's n/m pair, a promise) moves to
        the mean centre of the constraints it is in, a few rounds from a depth-first order.
        Pairs related by a conjunct (`b3 -> F f3`) end up close, where a fixed walk order put
        all buttons before all floors and the relation doubled per button."""
        self.aps = {}
        items, edges = _constraints(formula)
        position = {item: i for i, item in enumerate(items)}
        for _ in range(FORCE_ROUNDS):
            centre = [sum(position[i] for i in e) / len(e) for e in edges]
            total: dict[tuple, float] = {}
            count: dict[tuple, int] = {}
            for c, e in zip(centre, edges):
                for i in e:
                    total[i] = total.get(i, 0.0) + c
                    count[i] = count.get(i, 0) + 1
            items.sort(key=lambda i: total[i] / count[i] if i in count else position[i])
            position = {item: i for i, item in enumerate(items)}
        names: list[str] = []
        for kind, f in items:
            if kind == "ap":
                i = self.aps[f.name] = len(self.aps)  # type: ignore[index]
                names.append(f"a{i}")
            elif kind == "obligation":
                j = self.targets[f] = len(self.targets)
                names.extend((f"n{j}", f"m{j}"))
            else:
                k = self.untils[f] = len(self.untils)
                names.append(f"p{k}")
        self.bdd.declare(*names)

    def _check(self) -> None:
        if len(self.bdd) > MAX_NODES:
            raise TooBig()
        self.limit.check_time()

    # -- E(f) as a BDD over APs, m and p --------------------------------------------------------
    def now(self, f: Formula) -> Any:
        memo = self._e
        hit = memo.get(f)
        if hit is not None:
            return hit
        stack: list[tuple[Formula, bool]] = [(f, False)]
        while stack:
            node, ready = stack.pop()
            if node in memo:
                continue
            deps = _now_children(node)
            if not ready and deps:
                stack.append((node, True))
                stack.extend((c, False) for c in deps if c not in memo)
                continue
            memo[node] = self._gate(node, [memo[c] for c in deps])
        return memo[f]

    def _gate(self, f: Formula, kids: list[Any]) -> Any:
        b = self.bdd
        op = f.op
        if op == "ap":
            return b.var(f"a{self.aps[f.name]}")
        if op in ("1", "0"):
            return b.true if op == "1" else b.false
        if op == "!":
            return ~kids[0]
        if not f.temporal:
            a, c = kids
            if op == "&":
                return a & c
            if op == "|":
                return a | c
            if op == "->":
                return ~a | c
            same = (a & c) | (~a & ~c)
            return same if op == "<->" else ~same
        if op == "&":
            return kids[0] & kids[1]
        if op == "|":
            return kids[0] | kids[1]
        if op == "X":
            out = b.true
            for g in conjuncts(f.children[0]):
                out &= self._next(g)
            return out
        if op in ("<->", "xor"):
            a, c, na, nc = kids
            if op == "xor":
                c, nc = nc, c
            return (a & c) | (na & nc)
        n = self._next(f)
        if op == "U":
            a, c = kids
            return c | (a & n & self._post(f))
        if op == "F":
            return kids[0] | (n & self._post(f))
        if op == "R":
            a, c = kids
            return c & (a | n)
        if op == "G":
            return kids[0] & n
        if op == "W":
            a, c = kids
            return c | (a & n)
        if op == "M":
            a, c = kids
            return c & (a | (n & self._post(f)))
        raise ValueError(f"operator {op} is not in negation normal form")

    def _next(self, g: Formula) -> Any:
        return self.bdd.var(f"m{self.targets[g]}")

    def _post(self, u: Formula) -> Any:
        return self.bdd.var(f"p{self.untils[u]}")

    # -- images and fixpoints -------------------------------------------------------------------
    def pre(self, y: Any, mark: Any = None) -> Any:
        """States with an edge (marked by `mark`, when given) into `y`."""
        target = self.bdd.let(self.rename_nm, y)
        if mark is not None:
            target &= mark
        out = self.cudd.and_exists(self.relation, target, self.quantified)
        self._check()
        return out

    def fair_states(self) -> Generator[None, None, Any]:
        """Emerson–Lei (module docstring); yields after each image."""
        b = self.bdd
        z = b.true
        marks = [~b.var(f"p{k}") for k in range(len(self.untils))] or [None]
        while True:
            new = z
            for mark in marks:
                y = z & self.pre(z, mark)
                yield
                while True:
                    grown = y | (z & self.pre(y))
                    yield
                    if grown == y:
                        break
                    y = grown
                new &= y
            if new == z:
                return z
            z = new

    def unsat_steps(self) -> Generator[None, None, bool]:
        """True at the end when the formula has no model, False when it has one."""
        z = yield from self.fair_states()
        reach = self.initial & self.bdd.let(self.rename_nm, z)
        return reach == self.bdd.false


#: Rounds of FORCE's centre-of-gravity moves.
FORCE_ROUNDS = 20


def _constraints(formula: Formula) -> tuple[list[tuple[str, Formula]], list[list[tuple[str, Formula]]]]:
    """The items to order (("ap", p), ("obligation", g), ("promise", u)) in depth-first order,
    and the constraints among them: each conjunct of each obligation's expansion (with the
    obligation itself), and the initial conjuncts."""
    items: dict[tuple[str, Formula], None] = {}
    edges: list[list[tuple[str, Formula]]] = []
    obligations: dict[Formula, None] = {}
    roots = conjuncts(formula)
    todo = list(roots)
    seen: set[Formula] = set()
    while todo:  # every obligation that can arise, depth first
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for g in _obligations_of(f):
            obligations.setdefault(g, None)
        for name in f.aps() if not f.temporal else ():
            items.setdefault(("ap", ap_of(name)), None)
        if f.op == "ap":
            items.setdefault(("ap", f), None)
        kids = list(f.children)
        if f.temporal and f.op in ("<->", "xor"):
            kids += [negate(c) for c in f.children]
        todo.extend(reversed(kids))
    for g in obligations:
        items.setdefault(("obligation", g), None)
    for f in seen:
        if f.op in UNTIL_LIKE:
            items.setdefault(("promise", f), None)
    for g in list(obligations) + [None]:
        parts = roots if g is None else _parts(g)
        for part in parts:
            # an invariant's own pair would tie all of its conjuncts together: left out
            edge = {("obligation", g)} if g is not None and len(parts) == 1 else set()
            edge |= _items_in(part)
            if len(edge) > 1:
                edges.append(list(edge))
    return list(items), edges


def _parts(g: Formula) -> list[Formula]:
    """The conjuncts of g's expansion this step (G and R bodies split)."""
    if g.op == "G":
        return conjuncts(g.children[0])
    if g.op == "R":
        return conjuncts(g.children[1]) + [g.children[0]]
    return [g]


def _items_in(part: Formula) -> set[tuple[str, Formula]]:
    """The items one conjunct's expansion mentions: its APs, the obligations it may create
    next, its promises (not looking past X: that is the next step)."""
    out: set[tuple[str, Formula]] = set()
    stack = [part]
    seen: set[Formula] = set()
    while stack:
        f = stack.pop()
        if f in seen:
            continue
        seen.add(f)
        if not f.temporal:
            out.update(("ap", ap_of(n)) for n in f.aps())
            continue
        out.update(("obligation", g) for g in _obligations_of(f))
        if f.op in UNTIL_LIKE:
            out.add(("promise", f))
        stack.extend(_now_children(f))
    return out


def _obligations_of(f: Formula) -> list[Formula]:
    """The formulas that f's expansion can make obligations of the next state."""
    if f.op == "X":
        return conjuncts(f.children[0])
    if f.op in ("U", "F", "R", "G", "W", "M"):
        return [f]
    return []


def _now_children(f: Formula) -> tuple[Formula, ...]:
    op = f.op
    if op == "X" or not f.children:
        return ()
    if f.temporal and op in ("<->", "xor"):
        a, b = f.children
        return (a, b, negate(a), negate(b))
    return f.children
