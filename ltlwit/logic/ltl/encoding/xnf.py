"""X-normal form: every formula's "now" part in one incremental SAT solver (aalta's successors).

aalta (Li et al., "SAT-based explicit LTL reasoning", HVC 2015) never enumerates the terms of a
state's expansion: the expansion is a propositional formula over the APs and one variable per
formula required *next*, and each SAT model is a transition (a letter and a next state). Big
propositional parts (a dozen APs under G, hundreds of clauses) therefore cost one CNF, not a
DNF product. This module is that encoding, built once per formula and shared by every state:

* `ap(name)`: the AP's variable.
* `next_var(g)` — N(g): "g is an obligation of the next state". `X g` is the conjunction of the
  N variables of g's conjuncts, so states are sets of non-conjunctive formulas.
* `post_var(u)` — P(u), for each Until-like `u` (`a U b`, `F b`, `a M b`): "u is postponed". An
  edge whose model leaves P(u) false is in u's acceptance set (Couvreur's promises).
* `now(f)` — E(f), a literal implying f's expansion (Plaisted–Greenbaum, one direction: the
  literals are only ever asserted), for NNF f:
  `a U b`: b ∨ (a ∧ N(u) ∧ P(u));  `F b`: b ∨ (N(u) ∧ P(u));  `a R b`: b ∧ (a ∨ N(u));
  `G a`: a ∧ N(u);  `a W b`: b ∨ (a ∧ N(u));  `a M b`: b ∧ (a ∨ (N(u) ∧ P(u)));
  `a <-> b`: (a ∧ b) ∨ (¬a ∧ ¬b) with ¬a, ¬b in simplified NNF (likewise xor).
  A model of E(f₁) ∧ … ∧ E(fₖ) gives a sound edge: its letter followed by any word of the next
  state (the N variables set) satisfies every fᵢ. Setting extra N or P variables only weakens an
  edge, so the search keeps the models minimal in them.
* `constant(f)` — C(f), exact both ways: the letter σ satisfies C(f) iff the constant word σ^ω
  satisfies f (`witness.constant_collapse` as a circuit). aalta's obligation acceleration asks
  this of every state: one SAT call that answers most satisfiable formulas at once. Future-only
  formulas: on a constant word a past operator's value still changes after the first instant.

Past operators are state, as in BLACK's encoding of LTL+P: one *request* per `Y g` or `Z g`
(`a S b`, `O b` make `Y` requests of themselves, `a T b`, `H a` `Z` requests), with two
variables: V(r), "r holds now", read by the gates, and L(r), "r holds at the next instant",
which requires g now (L(r) → E(g), one direction again: NNF has the duals, so a request is only
ever claimed true). The searches link L(r) at one step to V(r) at the next (V(r) → L(r) before),
and at the first instant V(r) is false for `Y` and free for `Z`:
  `Y g`: V(Y g);  `Z g`: V(Z g);  `a S b`: b ∨ (a ∧ V(Y(a S b)));  `O b`: b ∨ V(Y(O b));
  `a T b`: b ∧ (a ∨ V(Z(a T b)));  `H a`: a ∧ V(Z(H a)).
The past is finite, so unlike `U` no acceptance mark is needed: a claimed `a S b` without a `b`
would need V false at the first instant. A state with more requests true has every edge of one
with fewer (V only occurs positively), the mirror of obligations.

Propositional subformulas get exact Tseitin variables, shared by E and C, except the
clauses among a conjunction's conjuncts under E: those are clauses guarded by the
conjunction's E literal (`Xnf._conjunction`), so that a `G` of thousands of them costs a SAT
call nothing until one of their literals is set. Everything is
iterative, so formulas thousands of levels deep encode without recursion. The solver is
MiniSat (python-sat): it releases the GIL and honours `interrupt()`, so a watchdog thread can
stop a long call at the deadline (CaDiCaL's binding can do neither).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from pysat.solvers import Solver

from ltlwit.logic.budget import paced
from ltlwit.logic.formula import PAST, TICK, Formula, conjuncts, disjuncts
from ltlwit.logic.ltl.encoding.expand import _closure
from ltlwit.logic.ltl.encoding.rewrite import negate

if TYPE_CHECKING:
    from ltlwit.logic.budget import Limit

#: A literal, or a Python bool where constant folding decided it.
Lit = int | bool

UNTIL_LIKE = frozenset({"U", "F", "M"})
SOLVER = "minisat22"


class Xnf:
    """The encoding of one formula's closure (see the module docstring); grows on demand."""

    def __init__(self, solver: str = SOLVER) -> None:
        self.name = solver
        self.solver = Solver(name=solver)
        self.interrupted = False
        #: called every `TICK` nodes encoded (a search's deadline: a multi-MB formula's
        #: encoding takes seconds, and no SAT call runs meanwhile for the watchdog to stop)
        self.tick: Callable[[], None] | None = None
        self.visited = 0  # nodes the walks have visited, over all of them (`_bottom_up`)
        self.clauses: list[list[int]] = []  # the permanent ones, for `compact`
        self.selectors = 0  # temporary variables since the last compaction
        self.top = 0
        self.aps: dict[str, int] = {}
        self.ap_names: dict[int, str] = {}
        self.nxt: dict[Formula, int] = {}
        self.next_of: dict[int, Formula] = {}
        self.post: dict[Formula, int] = {}
        self.post_of: dict[int, Formula] = {}
        #: past requests (`Y g`, `Z g`): V(r) "r holds now" and L(r) "r holds next", both ways
        self.held: dict[Formula, int] = {}
        self.held_of: dict[int, Formula] = {}
        self.latch: dict[Formula, int] = {}
        self.latch_of: dict[int, Formula] = {}
        self._requests: list[Formula] = []  # the keys of `latch` in order (`Y^20000 a` makes 20,000)
        self._latched = 0  # requests whose clause L(r) → E(g) is in (a prefix of `_requests`)
        self._now: dict[Formula, Lit] = {}
        self._prop: dict[Formula, Lit] = {}
        self._const: dict[Formula, Lit] = {}
        self._cone: dict[Formula, tuple[frozenset[int], frozenset[int]]] = {}
        self.clause_count = 0

    # -- variables ---------------------------------------------------------------------------
    def fresh(self) -> int:
        self.top += 1
        return self.top

    def add(self, clause: list[int]) -> None:
        """A permanent clause (the encoding, or a learned one)."""
        self.solver.add_clause(clause)
        self.clauses.append(clause)
        self.clause_count += 1

    def selector(self) -> int:
        """A temporary activation variable, for clauses that hold while it is assumed."""
        self.selectors += 1
        return self.fresh()

    def add_temporary(self, clause: list[int]) -> None:
        """A clause guarded by a selector: dropped by `compact` once the selector is retired."""
        self.solver.add_clause(clause)

    def retire(self, selector: int) -> None:
        """Fix a selector false for good: its clauses are satisfied, and being assigned at the
        root it is never decided again (a free variable costs a decision in every call)."""
        self.solver.add_clause([-selector])

    def interrupt(self) -> None:
        """Stop the current SAT call and every later one (the watchdog's deadline)."""
        self.interrupted = True
        self.solver.interrupt()

    def compact(self) -> None:
        """Renumber the permanent variables densely into a new solver, leaving the retired
        selectors and their clauses behind: models are read as lists over every variable, so
        their count is a cost per call. Callers hold no variable across this call."""
        keep: set[int] = set()
        for clause in self.clauses:
            keep.update(abs(v) for v in clause)
        keep.update(self.aps.values())
        keep.update(self.nxt.values())
        keep.update(self.post.values())
        keep.update(self.held.values())
        keep.update(self.latch.values())
        for table in (self._now, self._prop, self._const):
            keep.update(abs(v) for v in table.values() if not isinstance(v, bool))
        new = {v: i + 1 for i, v in enumerate(sorted(keep))}

        def lit(x: Lit) -> Lit:
            if isinstance(x, bool):
                return x
            return new[x] if x > 0 else -new[-x]

        self.clauses = [[lit(v) for v in clause] for clause in self.clauses]
        self.aps = {k: new[v] for k, v in self.aps.items()}
        self.ap_names = {v: k for k, v in self.aps.items()}
        self.nxt = {k: new[v] for k, v in self.nxt.items()}
        self.next_of = {v: k for k, v in self.nxt.items()}
        self.post = {k: new[v] for k, v in self.post.items()}
        self.post_of = {v: k for k, v in self.post.items()}
        self.held = {k: new[v] for k, v in self.held.items()}
        self.held_of = {v: k for k, v in self.held.items()}
        self.latch = {k: new[v] for k, v in self.latch.items()}
        self.latch_of = {v: k for k, v in self.latch.items()}
        for table in (self._now, self._prop, self._const):
            for k in table:
                table[k] = lit(table[k])
        self._cone = {
            k: (frozenset(new[v] for v in a), frozenset(new[v] for v in n)) for k, (a, n) in self._cone.items()
        }
        self.solver.delete()
        self.solver = Solver(name=self.name, bootstrap_with=self.clauses)
        if self.interrupted:
            self.solver.interrupt()
        self.top = len(new)
        self.selectors = 0

    def ap(self, name: str) -> int:
        return self._named(self.aps, self.ap_names, name)

    def next_var(self, g: Formula) -> int:
        return self._named(self.nxt, self.next_of, g)

    def post_var(self, u: Formula) -> int:
        return self._named(self.post, self.post_of, u)

    def request(self, r: Formula) -> int:
        """V(r) of a past request r (`Y g` or `Z g`), with its L(r); `latches` adds L(r) → E(g)."""
        if r not in self.latch:
            self._requests.append(r)
        self._named(self.latch, self.latch_of, r)
        return self._named(self.held, self.held_of, r)

    def latches(self) -> None:
        """Add L(r) → E(g) for every request made so far, and for those that these make: the
        gates of E(g) may make requests of their own (`Y(a S b)` does, of itself: E(a S b)
        reads V(Y(a S b)), which is why this waits until E(g) is built rather than recursing)."""
        while self._latched < len(self._requests):
            r = self._requests[self._latched]
            self._latched += 1
            clause = folded([-self.latch[r], self.now(r.children[0])])
            if clause is not None:
                self.add(clause)

    def _named(self, table: dict, back: dict, key: object) -> int:
        """The variable standing for `key` in `table` (and `back`, the other way), made once."""
        v = table.get(key)
        if v is None:
            v = table[key] = self.fresh()
            back[v] = key
        return v

    # -- gates (constant folding; `exact` adds the reverse implications too) -----------------
    def _and(self, lits: Iterable[Lit], exact: bool) -> Lit:
        return self._gate(lits, exact, conjunction=True)

    def _or(self, lits: Iterable[Lit], exact: bool) -> Lit:
        return self._gate(lits, exact, conjunction=False)

    def _gate(self, lits: Iterable[Lit], exact: bool, conjunction: bool) -> Lit:
        """y → ∧lits (or y → ∨lits), and the converse when `exact`; constants folded."""
        absorbing = not conjunction  # False absorbs a conjunction, True a disjunction
        kids: list[int] = []
        for x in lits:
            if x is absorbing:
                return absorbing
            if x is not (not absorbing):
                kids.append(x)
        kids = list(dict.fromkeys(kids))
        if not kids:
            return not absorbing
        if len(kids) == 1:
            return kids[0]
        y = self.fresh()
        if conjunction:
            for k in kids:
                self.add([-y, k])
            if exact:
                self.add([y] + [-k for k in kids])
        else:
            self.add([-y] + kids)
            if exact:
                for k in kids:
                    self.add([y, -k])
        return y

    def _iff(self, a: Lit, b: Lit, xor: bool) -> Lit:
        if isinstance(a, bool) or isinstance(b, bool):
            if isinstance(a, bool) and isinstance(b, bool):
                return (a != b) if xor else (a == b)
            const, other = (a, b) if isinstance(a, bool) else (b, a)
            positive = const != xor
            return other if positive else -other
        if a == b or a == -b:
            same = a == b
            return same != xor
        y = self.fresh()
        if xor:
            b = -b
        self.add([-y, -a, b])
        self.add([-y, a, -b])
        self.add([y, a, b])
        self.add([y, -a, -b])
        return y

    # -- propositional subformulas: exact Tseitin --------------------------------------------
    def prop(self, f: Formula) -> Lit:
        return _bottom_up(self._prop, f, lambda node: node.children, self._prop_gate, self)

    def _prop_gate(self, node: Formula, kids: list[Lit]) -> Lit:
        op = node.op
        if node.name is not None:  # an AP
            return self.ap(node.name)
        if op == "1":
            return True
        if op == "0":
            return False
        if op == "!":
            x = kids[0]
            return (not x) if isinstance(x, bool) else -x
        a, b = kids
        if op == "&":
            return self._and(kids, True)
        if op == "|":
            return self._or(kids, True)
        if op == "->":
            return self._or([(not a) if isinstance(a, bool) else -a, b], True)
        if op in ("<->", "xor"):
            return self._iff(a, b, op == "xor")
        raise ValueError(f"operator {op} in a propositional formula")

    # -- E(f): the now part ------------------------------------------------------------------
    def now(self, f: Formula) -> Lit:
        hit = self._now.get(f)  # the searches ask this of every obligation of every state
        if hit is not None:
            return hit
        return _bottom_up(
            self._now,
            f,
            _now_deps,
            lambda node, kids: self._now_gate(node, kids) if node.temporal else self.prop(node),
            self,
        )

    def _conjunction(self, f: Formula, kids: list[Lit]) -> Lit:
        """E of a conjunction, flattened: y → E(c) for its other conjuncts (`kids`), and for
        each one that is a clause the clause itself under y, with no variable of its own. A
        specification's `G` of thousands of clauses (the 100-client arbiter's 4,950 mutex
        pairs) then costs no propagation in a SAT call until a literal of a clause is set,
        where a Tseitin gate per clause and per binary `&` had each call propagate all 10,000
        of them (18,600 propagations a call on an encoding of 11,200 variables)."""
        clauses = []
        for c in paced(conjuncts(f), self.tick):  # a specification's 100,000s of conjuncts
            lits = _clause(c)
            if lits is None:
                continue
            clause = folded(x if isinstance(x, bool) else (self.ap(x[0]) if x[1] else -self.ap(x[0])) for x in lits)
            if clause is None:
                continue
            if not clause:
                return False
            clauses.append(clause)
        if any(k is False for k in kids):
            return False
        rest = list(dict.fromkeys(k for k in kids if k is not True))
        if not clauses and len(rest) <= 1:
            return rest[0] if rest else True
        y = self.fresh()
        for k in paced(rest, self.tick):
            self.add([-y, k])
        for clause in paced(clauses, self.tick):
            self.add([-y] + clause)
        return y

    def _now_gate(self, f: Formula, kids: list[Lit]) -> Lit:
        op = f.op
        if op == "&":
            return self._conjunction(f, kids)
        if op == "|":
            return self._or(kids, False)
        if op == "X":
            return self._and([self.next_var(g) for g in conjuncts(f.children[0])], False)
        if op in ("Y", "Z"):
            return self.request(f)
        if op in ("S", "O"):
            b, a = kids[-1], (kids[0] if op == "S" else True)
            return self._or([b, self._and([a, self.request(Formula("Y", (f,)))], False)], False)
        if op in ("T", "H"):
            b, a = kids[-1], (kids[0] if op == "T" else False)
            return self._and([b, self._or([a, self.request(Formula("Z", (f,)))], False)], False)
        if op == "<->" or op == "xor":
            a, b, na, nb = kids
            if op == "xor":
                b, nb = nb, b
            return self._or([self._and([a, b], False), self._and([na, nb], False)], False)
        n = self.next_var(f)
        if op == "U":
            a, b = kids
            return self._or([b, self._and([a, n, self.post_var(f)], False)], False)
        if op == "F":
            return self._or([kids[0], self._and([n, self.post_var(f)], False)], False)
        if op == "R":
            a, b = kids
            return self._and([b, self._or([a, n], False)], False)
        if op == "G":
            return self._and([kids[0], n], False)
        if op == "W":
            a, b = kids
            return self._or([b, self._and([a, n], False)], False)
        if op == "M":
            a, b = kids
            return self._and([b, self._or([a, self._and([n, self.post_var(f)], False)], False)], False)
        raise ValueError(f"operator {op} is not in negation normal form")

    def assumptions(self, formulas: Iterable[Formula], constant: bool = False) -> list[int] | None:
        """E(f) (C(f) when `constant`) of every formula, constants folded; None when one is
        false. Memo hits read inline: the explicit search asks this of a dozen obligations a
        state, 100,000s of states."""
        memo, literal = (self._const, self.constant) if constant else (self._now, self.now)
        lits = []
        for f in formulas:
            lit = memo.get(f)
            if lit is None:
                lit = literal(f)
            if lit is False:
                return None
            if lit is not True:
                lits.append(lit)
        return lits

    def encode_closure(self, formula: Formula) -> None:
        """E of every formula of `formula`'s closure, so that every acceptance mark and past
        request exists before a search; a conjunction's only through its parent's, flattened
        (`_conjunction`: one of each of a 4,950-conjunct chain's nested conjunctions was
        quadratic)."""
        for f in _closure(formula, self.tick):
            if f.op != "&":
                self.now(f)
            self.visited += 1  # a multi-MB formula's closure is 100,000s of small walks
            if self.tick is not None and self.visited % TICK == 0:
                self.tick()

    def cone(self, f: Formula) -> tuple[frozenset[int], frozenset[int]]:
        """(AP variables, N and P variables) that E(f)'s clauses mention: a model's values
        outside them are arbitrary, so letters and next states are read inside them only."""
        hit = self._cone.get(f)
        if hit is not None:
            return hit
        aps: set[int] = set()
        np: set[int] = set()
        seen: set[Formula] = set()
        stack = [f]
        while stack:
            g = stack.pop()
            if g in seen:
                continue
            seen.add(g)
            self.visited += 1  # counted over every call: a state's 1,860 obligations, each a
            if self.tick is not None and self.visited % TICK == 0:  # walk of a thousand nodes
                self.tick()
            if not g.temporal:
                aps.update(self.ap(n) for n in g.aps())
                continue
            if g.op == "X":
                np.update(self.next_var(c) for c in conjuncts(g.children[0]))
                continue
            if g.op not in ("&", "|", "<->", "xor") and g.op not in PAST:  # V(r): the state's
                np.add(self.next_var(g))
                if g.op in UNTIL_LIKE:
                    np.add(self.post_var(g))
            stack.extend(_now_children(g))
        hit = self._cone[f] = (frozenset(aps), frozenset(np))
        return hit

    # -- C(f): the constant-word collapse (exact) --------------------------------------------
    def constant(self, f: Formula) -> Lit:
        hit = self._const.get(f)
        if hit is not None:
            return hit
        return _bottom_up(
            self._const,
            f,
            lambda node: node.children if node.temporal else (),
            lambda node, kids: self._constant_gate(node, kids) if node.temporal else self.prop(node),
            self,
        )

    def _constant_gate(self, node: Formula, kids: list[Lit]) -> Lit:
        op = node.op
        if op in ("X", "F", "G"):
            return kids[0]
        if op in ("U", "R"):
            return kids[1]
        if op in ("|", "W"):
            return self._or(kids, True)
        if op in ("&", "M"):
            return self._and(kids, True)
        if op in ("<->", "xor"):
            return self._iff(kids[0], kids[1], op == "xor")
        raise ValueError(f"operator {op} is not in negation normal form")


def folded(lits: Iterable[Lit]) -> list[int] | None:
    """A clause over literals some of which constant folding decided: None when one is True
    (the clause holds), else the clause without the False ones."""
    out = []
    for x in lits:
        if x is True:
            return None
        if x is not False:
            out.append(x)
    return out


@dataclass(frozen=True)
class Step:
    """One step of a formula's transition relation as CNF over the variables 1..`width`, for
    the searches that copy it (`bounded`) or reason about it symbolically (`liveness`): a state
    is the set of obligations g with E(g) asserted; the step's model picks a letter (`aps`), the
    next state (the N variables of `links`) and the postponed eventualities (`posts`)."""

    clauses: list[list[int]]
    aps: dict[str, int]
    width: int
    #: E(f) of the formula's conjuncts: the first step's constraints
    initial: list[Lit]
    #: (N(g), E(g)) for every g that may be required next: N(g) at one step asserts E(g) at the next
    links: list[tuple[int, Lit]]
    #: P(u) of every Until-like u: an edge with P(u) false is in u's acceptance set
    posts: list[int]
    #: (V(r), L(r), weak) of every past request r: V(r) at one step requires L(r) at the step
    #: before; at the first step V(r) is false unless r is weak (a `Z`)
    latches: list[tuple[int, int, bool]]


def propagations(solver: Solver) -> int:
    """The solver's unit propagations so far: the searches' unit of work, which does not depend
    on the machine's speed."""
    return solver.accum_stats().get("propagations", 0)


def step(formula: Formula, template: Xnf | None = None, solver: str = SOLVER, limit: Limit | None = None) -> Step:
    """The step encoding of `formula`; `template`: an encoding of the formula's closure to
    complete and copy (the explicit search's, before it searches) instead of encoding it again.
    A snapshot: the template may grow afterwards. `limit`: a solve's budget, whose deadline is
    read every 1024 formulas encoded (a multi-MB formula's encoding takes seconds)."""
    if template is None:
        template = Xnf(solver)
        template.encode_closure(formula)
    check = limit.check_time if limit is not None else None
    initial = [template.now(f) for f in paced(conjuncts(formula), check)]
    done: set[Formula] = set()
    while len(done) < len(template.nxt) or template._latched < len(template.latch):
        for g in [g for g in paced(template.nxt, check) if g not in done]:  # the E that N(g) before requires
            template.now(g)
            done.add(g)
            if check is not None and len(done) & 1023 == 0:
                check()
        template.latches()
    return Step(
        clauses=list(template.clauses),
        aps=dict(template.aps),
        width=template.top,
        initial=initial,
        links=[(template.nxt[g], template.now(g)) for g in paced(template.nxt, check)],
        posts=list(template.post.values()),
        latches=[(template.held[r], template.latch[r], r.op == "Z") for r in template.latch],
    )


def _bottom_up(
    memo: dict[Formula, Lit],
    root: Formula,
    deps: Callable[[Formula], tuple[Formula, ...]],
    gate: Callable[[Formula, list[Lit]], Lit],
    clock: Xnf | None = None,
) -> Lit:
    """`memo[root]`, computing `gate(node, [memo of its deps])` children first, iteratively (so
    formulas thousands of levels deep are fine) and once per node; `clock.tick()` every `TICK`
    nodes visited, counted in `clock.visited` over every walk (a multi-MB formula's encoding is
    100,000s of walks of a few nodes each: counted per walk, none reached `TICK`, and the
    deadline went unread for 1.5 s), those found in the memo too (a walk over a multi-MB
    formula's encoded nodes took a second between two ticks when only new ones counted)."""
    hit = memo.get(root)
    if hit is not None:
        return hit
    tick = clock.tick if clock is not None else None
    stack: list[tuple[Formula, bool]] = [(root, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, ready = pop()
        if clock is not None:
            clock.visited += 1
            if tick is not None and not clock.visited % TICK:
                tick()
        if node in memo:
            continue
        kids = deps(node)
        if not ready and kids:
            push((node, True))
            for c in kids:
                if c not in memo:
                    push((c, False))
            continue
        memo[node] = gate(node, [memo[c] for c in kids])
    return memo[root]


def _clause(f: Formula) -> list[tuple[str, bool] | bool] | None:
    """A propositional f that is a disjunction of literals as its literals ((AP name, value),
    constants as bools), else None."""
    if f.temporal:
        return None
    out: list[tuple[str, bool] | bool] = []
    for d in disjuncts(f):  # `0` has none: the empty clause
        if d.name is not None:  # an AP
            out.append((d.name, True))
        elif d.op == "!" and d.children[0].name is not None:
            out.append((d.children[0].name, False))
        elif d.op in ("1", "0"):
            out.append(d.op == "1")
        else:
            return None
    return out


def _now_deps(f: Formula) -> tuple[Formula, ...]:
    """The formulas whose E literal `now` computes before f's: for a conjunction, its
    flattened conjuncts but the clauses (`Xnf._conjunction`)."""
    if not f.temporal:
        return ()
    if f.op == "&":
        return tuple(c for c in conjuncts(f) if _clause(c) is None)
    return _now_children(f)


def _now_children(f: Formula) -> tuple[Formula, ...]:
    """The formulas whose E literal f's expansion uses (none under X: that is the next step)."""
    op = f.op
    if op in ("X", "Y", "Z") or not f.temporal:  # the next step's, or the step before's
        return ()
    if op in ("<->", "xor"):
        a, b = f.children
        return (a, b, negate(a), negate(b))
    return f.children
