"""LTLf synthesis as a reachability game over formula progression, the approach behind Nike and
lisa, symbolic: a state is what the rest of the (non-empty) trace must satisfy, a Boolean
combination of the formula's subformulas kept as a BDD over one variable per subformula (so
`F a | (F a & X ...)` is `F a`: equal states are the same node). Reading a letter, a state
either holds if the trace ends there (`final`) or leaves the state the next instant must
satisfy (`next`); for each subformula both are BDDs, `next` over the letter and the next
state's variables:

    p        final p, next p                  X f    final 0, next f      wX f   final 1, next f
    a & b    final Fa & Fb, next Na & Nb      a | b  final Fa | Fb, next Na | Nb
    F a      final Fa, next Na | F a          G a    final Fa, next Na & G a
    a U b    final Fb, next Nb | (Na & a U b) a R b  final Fb, next Nb & (Na | a R b)
    a W b    final Fb | Fa, next Nb | (Na & a W b)    a M b  final Fb & Fa, next Nb & (Na | a M b)

and a state's are its variables replaced by them (CUDD's vector composition); the letter
variables come first in the order, so the next states are the nodes where a path leaves them.

The system, which also decides when the trace ends, wins from a state when, whatever the
environment writes (under Mealy semantics, first), it can write a letter that ends a trace
satisfying φ, or that leads to a state it wins from: the least fixpoint, over the states
explored forward from φ. A winning system's controller and a winning environment's
counter-strategy are machines over the engine's LTLf translation (`finite.guarded`: the
system writes `alive`, true up to the last instant), which `games.verify` then checks against
that translation, as it checks the counting games' strategies: the progression is only trusted
to find them."""

from __future__ import annotations

from typing import Any, Callable

from ltlwit.logic.budget import Limit
from ltlwit.logic.formula import FALSE, TRUE, WEAK_NEXT, Formula, binop, postorder, unop
from ltlwit.logic.ltl.games.counting import Arena
from ltlwit.logic.ltl.games.machine import Machine

#: CUDD nodes past which the progression gives up (each of CUDD's operations runs to its end,
#: deadline or not, and with the letters above the states a conjunction of many obligations
#: can take tens of seconds): the counting games take over.
MAX_NODES = 200_000
#: Letters (inputs and outputs) past which it is not tried: a single conjunction of two of its
#: BDDs ran 20 s and more (chomp of 4 x 8: 58 letters).
MAX_LETTERS = 24


class TooLarge(Exception):
    """A formula with more letters than `MAX_LETTERS`, or BDDs grown past `MAX_NODES`."""


#: (letters, final: whether the state holds if the trace ends with them, the next state)
Term = tuple[Any, bool, Any]

_DUAL = {"X": WEAK_NEXT, WEAK_NEXT: "X", "F": "G", "G": "F", "U": "R", "R": "U", "W": "M", "M": "W", "&": "|", "|": "&"}


def nnf(f: Formula, negated: bool = False) -> Formula:
    """Negation normal form valid on finite traces (`!X f` is `wX !f`), over `& | X wX F G U R W M`."""
    op = f.op
    if op == "!":
        return nnf(f.children[0], not negated)
    if op in ("1", "0"):
        return (FALSE if op == "1" else TRUE) if negated else f
    if op == "ap":
        return unop("!", f) if negated else f
    if op == "->":
        a, b = f.children
        return nnf(binop("|", unop("!", a), b), negated)
    if op in ("<->", "xor"):
        a, b = f.children
        same = binop("|", binop("&", a, b), binop("&", unop("!", a), unop("!", b)))
        return nnf(same, negated != (op == "xor"))
    kids = tuple(nnf(c, negated) for c in f.children)
    return Formula(_DUAL[op] if negated else op, kids)


def progress(op: str, a: tuple[Any, Any], b: tuple[Any, Any], me: Callable[[], Any]) -> tuple[Any, Any]:
    """(final, next) of `&`, `|`, F, G, U, R, W or M (module docstring) from its operands' (`a`
    the left or only one, `b` the right) and its own state variable (`me`, asked for by the
    temporal operators only)."""
    (fa, na), (fb, nb) = a, b
    if op == "&":
        return fa & fb, na & nb
    if op == "|":
        return fa | fb, na | nb
    if op == "F":
        return fa, na | me()
    if op == "G":
        return fa, na & me()
    if op == "U":
        return fb, nb | (na & me())
    if op == "R":
        return fb, nb & (na | me())
    if op == "W":
        return fb | fa, nb | (na & me())
    if op == "M":
        return fb & fa, nb & (na | me())
    raise ValueError(f"{op}: not an LTLf operator in negation normal form")


class ProgressionGame:
    """The reachability game of an LTLf formula (module docstring)."""

    def __init__(self, arena: Arena, formula: Formula, alive: str, limit: Limit) -> None:
        if len(arena.inputs) + len(arena.outputs) > MAX_LETTERS:
            raise TooLarge(f"{len(arena.inputs) + len(arena.outputs)} letters")
        self.arena, self.limit, self.alive_name = arena, limit, alive
        bdd = self.bdd = arena.bdd
        root = nnf(formula)
        nodes = postorder(root)
        names = [f"s{i}" for i in range(len(nodes))]
        bdd.declare(*names)  # after the letters': a path leaves them where a next state starts
        self.letter_levels = len(arena.inputs) + len(arena.outputs)
        var = {g: bdd.var(n) for g, n in zip(nodes, names)}
        self._final: dict[str, Any] = {}
        self._step: dict[str, Any] = {}
        done: dict[Formula, tuple[Any, Any]] = {}
        for g, name in zip(nodes, names):
            self._guard()
            done[g] = self._rule(g, var, done)
            self._final[name], self._step[name] = done[g]
        self.root = var[root]
        self._terms: dict[Any, list[Term]] = {}

    def _guard(self) -> None:
        """The deadline, and `MAX_NODES` (TooLarge), before the next of CUDD's operations."""
        self.limit.check_time()
        if len(self.bdd) > MAX_NODES:
            raise TooLarge(f"{len(self.bdd)} BDD nodes")

    def _rule(self, g: Formula, var: dict[Formula, Any], done: dict[Formula, tuple[Any, Any]]) -> tuple[Any, Any]:
        """(final, next) of a subformula, its operands' already made (module docstring)."""
        bdd, op = self.bdd, g.op
        if op in ("1", "0"):
            value = bdd.true if op == "1" else bdd.false
            return value, value
        if op in ("ap", "!"):
            letter = self.arena.labels.of(g)
            return letter, letter
        if op in ("X", WEAK_NEXT):
            return (bdd.true if op == WEAK_NEXT else bdd.false), var[g.children[0]]
        return progress(op, done[g.children[0]], done[g.children[-1]], lambda: var[g])

    def terms(self, state: Any) -> list[Term]:
        """A state's letters split by (whether the trace may end with them, the next state),
        memoised."""
        hit = self._terms.get(state)
        if hit is not None:
            return hit
        self.limit.tick()
        self._guard()
        bdd = self.bdd
        support = state.support
        final = bdd.let({v: self._final[v] for v in support}, state) if support else state
        after = bdd.let({v: self._step[v] for v in support}, state) if support else state
        out = []
        for nxt, letters in self._cuts(after).items():
            for value, part in ((True, letters & final), (False, letters & ~final)):
                if part != bdd.false:
                    out.append((part, value, nxt))
        self._terms[state] = out
        return out

    def _cuts(self, u: Any) -> dict[Any, Any]:
        """The nodes of `u` where its paths leave the letter variables (the next states), each
        with the letters that lead there: per node below the root, once (its paths are not
        enumerated: there are 2^letters of them)."""
        bdd = self.bdd
        memo: dict[Any, dict[Any, Any]] = {}
        stack = [(u, False)]
        while stack:
            node, ready = stack.pop()
            if node in memo:
                continue
            if node == bdd.true or node == bdd.false or node.level >= self.letter_levels:
                memo[node] = {node: bdd.true}
                continue
            name = bdd.var_at_level(node.level)
            hi, lo = bdd.let({name: True}, node), bdd.let({name: False}, node)
            if not ready:
                stack.append((node, True))
                stack.extend((k, False) for k in (hi, lo) if k not in memo)
                continue
            self.limit.spend(len(memo[hi]) + len(memo[lo]))
            here = bdd.var(name)
            out: dict[Any, Any] = {}
            for branch, literal in ((memo[hi], here), (memo[lo], ~here)):
                for cut, letters in branch.items():
                    part = letters & literal
                    out[cut] = out[cut] | part if cut in out else part
            memo[node] = out
        return memo[u]

    # -- the game ----------------------------------------------------------------------------
    def solve(self) -> Machine:
        """The winner's strategy: a controller (player "system") when the system wins from φ,
        else a counter-strategy."""
        states = [self.root]
        seen = {self.root}
        for state in states:  # grows as states are met
            for _, _, nxt in self.terms(state):
                if nxt != self.bdd.false and nxt not in seen:
                    seen.add(nxt)
                    states.append(nxt)
        rank: dict[Any, int] = {}  # the round a state was won in
        k = 0
        while True:
            won = [s for s in states if s not in rank and self.arena.wins("system", self._good(s, rank))]
            if not won:
                break
            for s in won:
                rank[s] = k
            k += 1
        if self.root in rank:
            return self._controller(rank)
        return self._counter(rank)

    def _good(self, state: Any, rank: dict[Any, int]) -> Any:
        """The letters that end a winning trace at `state` or lead where the system wins
        (`rank`: the states won so far)."""
        good = self.bdd.false
        for letters, final, nxt in self.terms(state):
            if final or nxt in rank:
                good = good | letters
        return good

    def _controller(self, rank: dict[Any, int]) -> Machine:
        """Mealy (or Moore) over the inputs, writing the outputs and `alive`: at each state a
        letter that ends the trace (alive, then dead forever: the last state) or moves to a
        state won in an earlier round."""

        def options(state: Any, end: Any) -> list[tuple[Any, Any]]:
            ending = self.bdd.false
            for letters, final, _ in self.terms(state):
                if final:
                    ending = ending | letters
            out = [(ending, end)]  # ending first, then the lowest rank
            for letters, final, nxt in sorted(self.terms(state), key=lambda t: rank.get(t[2], 1 << 30)):
                if not final and nxt in rank and rank[nxt] < rank[state]:
                    out.append((letters, ("state", nxt)))
            return out

        return self._strategy("system", options)

    def _counter(self, rank: dict[Any, int]) -> Machine:
        """The environment's: at each state the system cannot win from, inputs that neither end
        a winning trace nor lead to a winning state, whatever the outputs; once the system
        stops (alive false) anything goes."""
        alive = self.arena.labels.var(self.arena.labels.index[self.alive_name])

        def options(state: Any, end: Any) -> list[tuple[Any, Any]]:
            out = [(~alive, end)]  # the system stopped: the trace ended at the instant before
            for letters, final, nxt in self.terms(state):
                if not final and nxt not in rank:
                    out.append((letters & alive, ("state", nxt)))
            return out

        return self._strategy("environment", options)

    def _strategy(self, player: str, options: Callable[[Any, Any], list[tuple[Any, Any]]]) -> Machine:
        """`player`'s machine over the states reached from the root by the moves `options`
        offers at each (letters, target), and one more state once the trace has ended, where
        anything goes (the system writes alive false there, true elsewhere)."""
        arena = self.arena
        end = ("end", None)  # the trace has ended; states are ("state", node): never compared with it
        ids: dict[Any, int] = {("state", self.root): 0}
        order: list[Any] = [("state", self.root)]
        raw: list[list[tuple[Any, Any, int]]] = []
        fixed: list[dict[str, bool]] = []
        for key in order:  # grows as targets are met
            moves = [(self.bdd.true, end)] if key == end else options(key[1], end)
            raw.append(arena.row(arena.pick(moves, player, self.limit), ids, order))
            fixed.append({self.alive_name: key != end} if player == "system" else {})
        return arena.machine(player, raw, fixed)
