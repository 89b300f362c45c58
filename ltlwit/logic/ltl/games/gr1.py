"""GR(1) games (Piterman, Pnueli and Sa'ar, VMCAI 2006; Bloem et al., JCSS 2012): where φ
has the shape of generalized reactivity of rank 1, its game is solved over BDDs in time
polynomial in the state space, where the counting games' positions grow with the bound.

The shape, over the inputs X (the environment's) and outputs Y (the system's): initial
conditions θe over X and θs over X ∪ Y; safety G ρe with ρe over X, Y and X's next values, G ρs
over all and all next; justice G F J over the current values. Under Mealy semantics the
system wins

    θe → (θs ∧ (ρs W ¬ρe) ∧ ((G ρe ∧ ∧i G F Je_i) → ∧j G F Js_j))

(TLSF's strict semantics, its robot grids; without `,Strict` syfco writes `G ρs` in the
consequent, which this implies), exactly when every initial input has an initial output in
the winning region Z of the three nested fixpoints

    Z = νZ. ∧j μY. ∨i νX. (Js_j ∧ cpre(Z)) ∨ cpre(Y) ∨ (¬Je_i ∧ cpre(X)),
    cpre(S) = ∀x'. ρe → ∃y'. ρs ∧ S'.

`shape` reads the six parts off φ wherever its implications put them, and only where the game
decides φ for the system: a part of the consequent counts only under the antecedents the
game gives it (θs under all of θe; safety under θe and every G ρe, or `ρs W ¬ρe` exactly;
justice under all the assumptions). Responses `G(p -> F q)` (p, q over the current values,
under all the assumptions), the arbiters' requirement, enter the game as the system's: each a
monitor m the system writes, "a p not yet answered by a q before this instant" (¬m at first,
X m ↔ ((p ∨ m) ∧ ¬q)), and the justice G F ¬((p ∨ m) ∧ ¬q); checked without it (a response
is broken exactly where a fair cycle of ¬q follows a p ∧ ¬q). `controller` solves the game
and, where the system wins, writes its strategy as an explicit Mealy machine (the layers of
the last iteration as ranks, one memory value per guarantee being pursued, the classic
construction), or as a circuit where that machine is too large to list (`Strategy.circuit`),
which the caller verifies against φ like every other strategy; where the environment wins it
answers None and the counting games go on (a GR(1) counter-strategy needs memory of its own:
not built)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from ltlwit.logic.budget import Limit
from ltlwit.logic.formula import TRUE, And, Formula, Not, Or, ap, binop, conjuncts, postorder, unop
from ltlwit.logic.ltl.games.machine import Machine, Transition, letter_of

if TYPE_CHECKING:
    from ltlwit.logic.ltl.games.aiger import Circuit

#: CUDD's bound on the variable swaps of one dynamic reordering.
SWAPS = 200_000

#: How far CUDD's sifting lets the BDDs grow while it moves a variable, as a factor (CUDD's
#: default 1.2): a variable is sifted no further than where its sets stop shrinking. With the
#: default, gr_7's circuit spent 10 to 14 s of its 13 to 20 s sifting; so, 8 to 10 s, and the
#: game and the check a quarter faster (gr_5 through the CLI 31 -> 16-18 s, gr_7 49 -> 27-30 s,
#: shift_pb_125 28 -> 15 s; gr_1 to gr_3, amba's locks, arbiters: the same or faster).
GROWTH = 1.05

#: At most this many states, and transitions, in a controller written out as a machine, a table
#: people read: past either, `Strategy.machine` answers None and the strategy is written as a
#: circuit (`Strategy.circuit`; gr_1's 10,474 states and 98,564 transitions: 4.7 s to write out,
#: 9 s to check; as a circuit, 2.2 s and 1.8 s).
MAX_STATES, MAX_TRANSITIONS = 1_000, 10_000


@dataclass
class Gr1:
    """The parts of a GR(1) specification, each a list of formulas (safety: the bodies of G)."""

    env_init: list[Formula] = field(default_factory=list)
    env_safety: list[Formula] = field(default_factory=list)
    env_justice: list[Formula] = field(default_factory=list)
    sys_init: list[Formula] = field(default_factory=list)
    sys_safety: list[Formula] = field(default_factory=list)
    sys_justice: list[Formula] = field(default_factory=list)
    #: G(p -> F q): (p, q)
    responses: list[tuple[Formula, Formula]] = field(default_factory=list)


@dataclass
class Ranking:
    """A circuit's proof of progress, from the game that wrote it (`Strategy.ranking`): the
    latches holding the index of the guarantee pursued (`modes`, its bits, least first), the
    guarantees and assumptions as formulas, and as BDDs over the position (the game's
    variables, `_Game.now`) the positions the play keeps to (`region`) and, per guarantee, its
    layers (Y_k, [X_k_i per assumption]). A claim, not a proof: `check_circuit` checks it a
    step at a time, and one that fails proves nothing."""

    modes: tuple[str, ...]
    goals: tuple[Formula, ...]
    assumptions: tuple[Formula, ...]
    region: Any
    layers: list[list[tuple[Any, list[Any]]]]


@dataclass
class _Claim:
    """A `Ranking` read into a closed loop's manager (`_CircuitLoop.claim`): its modes as sets
    of states and their union, its guarantees and assumptions, its region, and per guarantee
    the sets X of its layers in order (the Y's are their unions: not needed)."""

    modes: list[Any]
    covered: Any
    goals: list[Any]
    assumptions: list[Any]
    region: Any
    layers: list[list[list[Any]]]


def _bits(count: int) -> int:
    """The latches that index `count` guarantees."""
    return max(1, (count - 1).bit_length())


def shape(formula: Formula, inputs: Sequence[str]) -> Gr1 | None:
    """φ's GR(1) parts, or None where φ does not have the shape (see the module docstring)."""
    ins = set(inputs)
    env: list[Formula] = []
    parts: list[tuple[Formula, frozenset[Formula]]] = []  # a consequent's conjunct, its antecedents
    stack: list[tuple[Formula, frozenset[Formula]]] = [(formula, frozenset())]
    while stack:
        f, context = stack.pop()
        if f.op == "->":
            assumed = conjuncts(f.children[0])
            env += assumed
            stack.append((f.children[1], context | frozenset(assumed)))
        elif f.op == "&":
            stack.extend((c, context) for c in reversed(f.children))
        elif f is not TRUE:
            parts.append((f, context))
    spec = Gr1()
    safety_parts: list[Formula] = []
    for f in dict.fromkeys(env):
        if not f.temporal and set(f.aps()) <= ins:
            spec.env_init.append(f)
        elif f.op == "G" and _step(f.children[0], ins):
            safety_parts.append(f)
            spec.env_safety += conjuncts(f.children[0])
        elif f.op == "G" and f.children[0].op == "F" and not f.children[0].children[0].temporal:
            spec.env_justice.append(f.children[0].children[0])
        else:
            return None
    init = set(spec.env_init)
    safe = init | set(safety_parts)
    everything = set(env)
    for f, context in parts:
        if not f.temporal:
            if not init <= context:
                return None
            spec.sys_init.append(f)
        elif f.op == "G" and _step(f.children[0]):
            if not safe <= context:
                return None
            spec.sys_safety += conjuncts(f.children[0])
        elif f.op == "W" and _strict(f, spec.env_safety) and _step(f.children[0]):
            if not init <= context:
                return None
            spec.sys_safety += conjuncts(f.children[0])
        elif f.op == "G" and f.children[0].op == "F" and not f.children[0].children[0].temporal:
            if not everything <= context:
                return None
            spec.sys_justice.append(f.children[0].children[0])
        elif f.op == "G" and _response(f.children[0]):
            if not everything <= context:
                return None
            trigger, answer = f.children[0].children
            spec.responses.append((trigger, answer.children[0]))
        else:
            return None
    return spec


def _response(f: Formula) -> bool:
    """Whether `f` is `p -> F q` with p and q over the current values."""
    return (
        f.op == "->"
        and f.children[1].op == "F"
        and not f.children[0].temporal
        and not f.children[1].children[0].temporal
    )


def _monitored(spec: Gr1, taken: Sequence[str]) -> tuple[Gr1, tuple[str, ...]]:
    """The specification with a monitor per response (module docstring), named apart from
    `taken`, and the monitors' names."""
    prefix = "pending"
    while any(a.startswith(prefix) for a in taken):
        prefix = "_" + prefix
    names = tuple(f"{prefix}{k}" for k in range(len(spec.responses)))
    init, safety, justice = list(spec.sys_init), list(spec.sys_safety), list(spec.sys_justice)
    for name, (trigger, answer) in zip(names, spec.responses):
        m = ap(name)
        waiting = And(Or(trigger, m), Not(answer))
        init.append(Not(m))
        safety.append(binop("<->", unop("X", m), waiting))
        justice.append(Not(waiting))
    return replace(spec, sys_init=init, sys_safety=safety, sys_justice=justice, responses=[]), names


def _step(f: Formula, nexts: set[str] | None = None) -> bool:
    """Whether `f` relates two instants: X only over formulas without temporal operators (and
    with `nexts`, only over those propositions), no other temporal operator."""
    for node in postorder(f, descend=lambda n: n.op != "X"):
        if node.op == "X":
            inner = node.children[0]
            if inner.temporal or (nexts is not None and not set(inner.aps()) <= nexts):
                return False
        elif node.temporal and node.op not in ("!", "&", "|", "->", "<->", "xor"):
            return False
    return True


def _strict(f: Formula, env_safety: list[Formula]) -> bool:
    """Whether `f` is `ρs W ¬ρe` for the environment's safety ρe (TLSF's strict semantics)."""
    released = f.children[1]
    return bool(env_safety) and released.op == "!" and set(conjuncts(released.children[0])) == set(env_safety)


class _Game:
    """The game's BDDs: each proposition's current and next value, the parts as BDDs."""

    def __init__(
        self, spec: Gr1, inputs: Sequence[str], outputs: Sequence[str], limit: Limit, monitored: bool = True
    ) -> None:
        """`monitored`: the responses as monitors the system writes (the game's), else left
        out (the checks', which observe them)."""
        from dd import cudd

        self.limit = limit
        self.shown = tuple(outputs)
        self.monitors: tuple[str, ...] = ()
        if monitored and spec.responses:
            spec, self.monitors = _monitored(spec, (*inputs, *outputs))
        self.spec = spec
        self.ins, self.outs = tuple(inputs), (*outputs, *self.monitors)
        self.bdd = bdd = cudd.BDD()
        # The order of declaration puts a robot's coordinates far from the moves that change
        # them: gr_1 took 45 s to solve so and 2 s with CUDD's sifting (5 s sifted once only);
        # amba_decomposed_lock_pb_60's 61 invariants over 121 inputs did not build in 100 s
        # without it. Each sift is bounded (max_swaps), so the deadline is still read often.
        bdd.configure(reordering=True, max_swaps=SWAPS, max_growth=GROWTH)
        names = (*self.ins, *self.outs)
        self.now = {a: f"c{i}" for i, a in enumerate(names)}
        self.next = {a: f"n{i}" for i, a in enumerate(names)}
        for a in names:  # each proposition's two copies side by side: transition relations stay small
            bdd.declare(self.now[a], self.next[a])
        self.priming = {self.now[a]: self.next[a] for a in names}
        self.x_next = [self.next[a] for a in self.ins]
        self.y_next = [self.next[a] for a in self.outs]
        self.env_init = self._all(spec.env_init)
        self.sys_init = self._all(spec.sys_init)
        self.rho_e = self._all(spec.env_safety)
        self.rho_s = self._all(spec.sys_safety)
        self.env_justice = [self.of(f) for f in spec.env_justice] or [bdd.true]
        self.sys_justice = [self.of(f) for f in spec.sys_justice] or [bdd.true]

    def _all(self, fs: list[Formula]) -> Any:
        out = self.bdd.true
        for f in fs:
            out &= self.of(f)
            self.limit.check_time()
        return out

    def of(self, f: Formula) -> Any:
        """`f`'s BDD, X's operand over the next values."""
        bdd, memo = self.bdd, {}
        for node in postorder(f):
            op = node.op
            if op == "ap":
                memo[node] = bdd.var(self.now[node.name or ""])
            elif op in ("1", "0"):
                memo[node] = bdd.true if op == "1" else bdd.false
            elif op == "X":
                memo[node] = self.let(self.priming, memo[node.children[0]])
            elif op == "!":
                memo[node] = ~memo[node.children[0]]
            else:
                a, b = (memo[c] for c in node.children)
                if op == "&":
                    memo[node] = a & b
                elif op == "|":
                    memo[node] = a | b
                elif op == "->":
                    memo[node] = ~a | b
                else:
                    memo[node] = a.equiv(b) if op == "<->" else ~a.equiv(b)
        return memo[f]

    def at(self, values: tuple[bool, ...]) -> dict[str, bool]:
        """A position (the inputs' values, then the outputs') as a substitution of the current values."""
        return {self.now[a]: v for a, v in zip((*self.ins, *self.outs), values)}

    def holds(self, u: Any, position: dict[str, bool]) -> bool:
        """Whether `u` (over the current values) holds at `position` (`at`)."""
        return self.let(position, u) == self.bdd.true

    def valuations(self, u: Any, variables: list[str]) -> Iterator[tuple[bool, ...]]:
        """Every valuation of `variables` in `u` (a BDD over them alone), in their order.

        dd's `pick_iter` turns CUDD's reordering off while it walks the BDD and back on only
        once it is exhausted: a walk left unfinished (a first pick, a machine found too large
        to list) left the game without sifting for good (gr_7's circuit, after its machine
        was found too large: 17 to 31 s). Here it is restored however the walk ends."""
        reordering = self.bdd.configure()["reordering"]
        try:
            for model in self.bdd.pick_iter(u, care_vars=set(variables)):
                yield tuple(bool(model[v]) for v in variables)
        finally:
            self.bdd.configure(reordering=reordering)

    def answers_start(self, z: Any) -> bool:
        """Whether the system answers every initial input θe allows with outputs θs allows in `z`."""
        choices = self.bdd.exist([self.now[a] for a in self.outs], self.sys_init & z)
        return (self.env_init & ~choices) == self.bdd.false

    def let(self, values: dict[str, Any], u: Any) -> Any:
        """`u` with `values` substituted (dd warns of an empty substitution: none here)."""
        return self.bdd.let(values, u) if values else u

    def cpre(self, s: Any) -> Any:
        """The positions from which the system can force the next one into `s`."""
        from dd.cudd import and_exists  # CUDD's relational product: the conjunction is never built

        self.limit.check_time()
        reach = and_exists(self.rho_s, self.let(self.priming, s), self.y_next)
        return ~and_exists(self.rho_e, ~reach, self.x_next)

    def solve(self) -> tuple[Any, list[list[tuple[Any, list[Any]]]]]:
        """The winning region Z and, per guarantee j, its layers: (Y_k, [X_k_i per assumption]).

        Z starts from the region where the system can keep ρs forever (νZ. cpre(Z), which holds
        the winning region): from everything, each X first peeled the positions that lose
        safety, a layer an iteration (gr_7's game: 72 s so, 29 s from the safe region). Z then
        shrinks a guarantee at a time, each Y computed under the Z the guarantees before it
        left, and stands once every guarantee in a row leaves it as it is: each Z is above the
        greatest fixpoint (the step is monotone), and one no guarantee shrinks lies below it,
        so the last layers of every guarantee are the winning region's. Each νX starts from
        the same X last computed (Z only shrinks, and every set computed under it with it:
        the old X bounds the new one from above); each X is a post-fixpoint (X ⊆ its own
        step), all the strategy needs."""
        bdd = self.bdd
        z = bdd.true
        while True:
            safe = z & self.cpre(z)
            if safe == z:
                break
            z = safe
        before: dict[tuple[int, int, int], Any] = {}
        layers: list[list[tuple[Any, list[Any]]]] = [[] for _ in self.sys_justice]
        standing, j = 0, 0  # how many guarantees in a row have left Z as it is; the next one
        while standing < len(self.sys_justice):
            if not self.answers_start(z):
                return bdd.false, layers  # an initial input is lost already: the system loses
            y, layers[j] = self._attractor(j, z, before)
            if y == z:
                standing += 1
            else:
                z, standing = y, 0
            j = (j + 1) % len(self.sys_justice)
        return z, layers

    def _attractor(
        self, j: int, z: Any, before: dict[tuple[int, int, int], Any]
    ) -> tuple[Any, list[tuple[Any, list[Any]]]]:
        """μY. ∨i νX. (Js_j ∧ cpre(Z)) ∨ cpre(Y) ∨ (¬Je_i ∧ cpre(X)) under `z`, and its layers
        (within z: every X starts from it)."""
        bdd = self.bdd
        reached = self.sys_justice[j] & self.cpre(z)
        y = bdd.false
        ys: list[tuple[Any, list[Any]]] = []
        while True:
            start = reached | self.cpre(y)
            xs: list[Any] = []
            for i, assumption in enumerate(self.env_justice):
                x = before.get((j, len(ys), i), z) & z
                while True:
                    x2 = x & (start | (~assumption & self.cpre(x)))
                    if x2 == x:
                        break
                    x = x2
                before[(j, len(ys), i)] = x
                xs.append(x)
            y2 = bdd.false
            for x in xs:
                y2 |= x
            if y2 == y:
                return y, ys
            y = y2
            ys.append((y, xs))


def solved(formula: Formula, inputs: Sequence[str], outputs: Sequence[str], limit: Limit) -> Strategy | None:
    """The system's winning strategy in φ's GR(1) game, not yet written out (`Strategy.machine`;
    `close` it), or None: φ is not GR(1)-shaped, or the system loses the game."""
    spec = shape(formula, inputs)
    if spec is None or not _has_cudd():
        return None
    strategy = Strategy(_Game(spec, inputs, outputs, limit))
    if strategy.wins():
        return strategy
    strategy.close()
    return None


def controller(formula: Formula, inputs: Sequence[str], outputs: Sequence[str], limit: Limit) -> Machine | None:
    """A Mealy controller for φ from its GR(1) game, or None: φ is not GR(1)-shaped, the system
    loses the game, or the controller would be larger than MAX_STATES or MAX_TRANSITIONS."""
    strategy = solved(formula, inputs, outputs, limit)
    if strategy is None:
        return None
    try:
        return strategy.machine(limit)
    finally:
        strategy.close()


def _has_cudd() -> bool:
    """Whether dd has its CUDD extension: its relational product and sifting make the game
    tractable (dd's pure-Python fallback has neither)."""
    try:
        import dd.cudd  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the dd build
        return False
    return True


class Strategy:
    """The system's strategy, explored from the initial positions: a machine state per
    position (the current inputs and outputs) and guarantee pursued."""

    def __init__(self, game: _Game) -> None:
        self.game = game
        self.z, self.layers = game.solve()
        self.primed: dict[Any, Any] = {}
        self.transitions = 0

    def wins(self) -> bool:
        """Whether the system answers every initial input θe allows inside the winning region."""
        return self.game.answers_start(self.z)

    def close(self) -> None:
        """Free the BDDs, CUDD's nodes before their manager."""
        self.primed.clear()
        del self.z, self.layers, self.game

    def machine(self, limit: Limit) -> Machine | None:
        """The strategy written out, within `limit`; None past MAX_STATES or MAX_TRANSITIONS, or
        where it writes monitors (a machine writes the specification's outputs alone)."""
        g = self.game
        if g.monitors:
            return None
        g.limit = limit
        self.transitions = 0
        x_now = [g.now[a] for a in g.ins]
        y_now = [g.now[a] for a in g.outs]
        index: dict[tuple[tuple[bool, ...], int], int] = {}
        rows: list[list[tuple[tuple[bool, ...], tuple[bool, ...], int]]] = [[]]  # per state: (inputs, outputs, target)
        todo: list[tuple[tuple[bool, ...], int]] = []

        def state(values: tuple[bool, ...], mode: int) -> int:
            key = (values, mode)
            if key not in index:
                if len(rows) >= MAX_STATES:
                    raise _TooLarge
                index[key] = len(rows)
                rows.append([])
                todo.append(key)
            return index[key]

        try:
            for x0 in self._letters(g.env_init, x_now):
                assigned = {v: x0[k] for k, v in enumerate(x_now)}
                y0 = self._pick(self.game.let(assigned, g.sys_init & self.z), y_now)
                rows[0].append((x0, y0, state((*x0, *y0), 0)))
            while todo:
                values, mode = todo.pop()
                here = index[(values, mode)]
                for x1, y1, mode1 in self._moves(values, mode):
                    rows[here].append((x1, y1, state((*x1, *y1), mode1)))
        except _TooLarge:
            return None
        return self._written(rows)

    def circuit(self, limit: Limit) -> Circuit:
        """The strategy as a circuit, its BDDs never enumerated: latches hold the position just
        played (the inputs and outputs), the guarantee pursued and whether the play has begun;
        the outputs are functions of them and the inputs read, taken from the strategy's
        relation (`_relation`) one output at a time (`_functions`)."""
        from ltlwit.logic.ltl.games.aiger import written

        g, bdd = self.game, self.game.bdd
        g.limit = limit
        self.primed.clear()  # the machine's: each set below is primed once, not kept
        count = len(g.sys_justice)
        bits = _bits(count)
        first_vars = ["begun", *(f"mode{b}" for b in range(bits))]
        bdd.declare(*first_vars)
        # on top of the order: the relation is a choice among the guarantees' relations, the
        # sum of their sizes (at the bottom, where `declare` puts them, gr_5's grew to 4.7M nodes)
        rest = sorted((v for v in bdd.vars if v not in first_vars), key=bdd.level_of_var)
        try:
            bdd.reorder({v: k for k, v in enumerate([*first_vars, *rest])})
        except RuntimeError:  # CUDD could not shuffle (out of memory): the order as it is
            pass
        begun = bdd.var("begun")

        def is_mode(j: int) -> Any:
            return bdd.cube({f"mode{b}": bool(j >> b & 1) for b in range(bits)})

        relation = bdd.false
        for j in range(count):
            relation |= is_mode(j) & self._relation(j)
        first = g.let(g.priming, g.sys_init & self.z)  # the first position, over the next values
        relation = (begun & (relation | ~g.rho_e)) | (~begun & first)  # ρe broken: the system has won
        outs = _functions(bdd, relation, g.y_next, limit)
        del relation, first
        value = dict(zip(g.outs, outs))
        moves = [bdd.false] * bits  # the guarantee pursued: the next once this one holds
        for j, goal in enumerate(g.sys_justice):
            following = (j + 1) % count
            for b in range(bits):
                bit = (goal if following >> b & 1 else bdd.false) | (~goal if j >> b & 1 else bdd.false)
                moves[b] |= is_mode(j) & bit
        latches = [("begun", "begun", True)]
        latches += [(f"last_{a}", g.now[a], bdd.var(g.next[a]) if a in g.ins else value[a]) for a in (*g.ins, *g.outs)]
        latches += [(f"mode{b}", f"mode{b}", begun & moves[b]) for b in range(bits)]
        limit.check_time()
        # sifted for the functions alone, what the relation's order made them: gr_2's from
        # 88,818 nodes to 31,115 (2.3 s), a circuit and a check the smaller for it
        bdd.reorder()
        shown = [(a, value[a]) for a in g.shown]  # the monitors: latches, not outputs
        return written(bdd, [(a, g.next[a]) for a in g.ins], latches, shown)

    def ranking(self) -> Ranking | None:
        """The layers of the circuit's guarantees (`circuit`) as its `Ranking`; None where the
        game plays monitors (the check observes responses instead)."""
        g = self.game
        if g.monitors:
            return None
        bits = _bits(len(g.sys_justice))
        return Ranking(
            tuple(f"mode{b}" for b in range(bits)),
            tuple(g.spec.sys_justice or [TRUE]),
            tuple(g.spec.env_justice or [TRUE]),
            self.z,
            self.layers,
        )

    def _relation(self, j: int) -> Any:
        """The moves of the strategy pursuing guarantee j, over the position and the next: once
        Js_j holds, into the winning region; else from layer k of Y into layer k - 1, or, from
        the first of its sets X_k_i holding the position where assumption i fails, into that X
        (Bloem et al., JCSS 2012: a position of X_k_i where it holds can reach a lower layer;
        one where it fails can stay, the environment owing it): the ranks the check reads in
        the `ranking`. Staying needs no test of whether the next input lets the system go
        lower (the classic construction's `∃y'` per layer, no faster on gr_7). Each layer is
        primed once here and not kept (`_primed` keeps what the machine's positions share):
        kept, CUDD sifted them all with the relation, gr_7's circuit 15 to 21 s rather than 14."""
        g, bdd = self.game, self.game.bdd
        goal = g.sys_justice[j]
        legal = g.rho_e  # the moves that matter: where the environment breaks ρe, any will do
        targets = legal & goal & self._primed(self.z)  # where each position's next one should lie
        below = bdd.false  # the layers before this one
        for y, xs in self.layers[j]:
            g.limit.check_time()
            lower = g.let(g.priming, below)
            targets |= legal & (~goal & y & ~below) & lower
            seen = below
            for x, assumption in zip(xs, g.env_justice):
                waits = ~goal & x & ~seen & ~assumption
                if waits != bdd.false:
                    targets |= legal & waits & g.let(g.priming, x)
                seen |= x
            below = y
        return g.rho_s & targets

    def _moves(self, values: tuple[bool, ...], mode: int) -> list[tuple[tuple[bool, ...], tuple[bool, ...], int]]:
        """The system's answer from a position, to each next input the environment may write."""
        g, bdd = self.game, self.game.bdd
        here = g.at(values)
        targets, mode1 = self._targets(here, mode)
        allowed = self.game.let(here, g.rho_e)
        moves = self.game.let(here, g.rho_s)
        wanted = [moves & self._primed(target) for target in targets]
        out = []
        for x1 in self._letters(allowed, g.x_next):
            g.limit.check_time()
            nexts = {v: x1[k] for k, v in enumerate(g.x_next)}
            for target in wanted:
                options = self.game.let(nexts, target)
                if options != bdd.false:
                    out.append((x1, self._pick(options, g.y_next), mode1))
                    break
            else:
                raise AssertionError("a position of the winning region without a winning move")
        return out

    def _targets(self, here: dict[str, bool], mode: int) -> tuple[list[Any], int]:
        """Where the next position should lie, in order of preference, and the next mode: the
        winning region once the guarantee pursued holds here (then the next guarantee), else a
        lower layer, else the same layer's set of the first assumption that holds it."""
        g = self.game

        def holds(u: Any) -> bool:
            return g.holds(u, here)

        if holds(g.sys_justice[mode]):
            return [self.z], (mode + 1) % len(g.sys_justice)
        layers = self.layers[mode]
        low, high = 0, len(layers) - 1  # the first layer holding here (each holds the one before)
        while low < high:
            mid = (low + high) // 2
            low, high = (low, mid) if holds(layers[mid][0]) else (mid + 1, high)
        k = low
        i = next(i for i, x in enumerate(layers[k][1]) if holds(x))
        lower = [layers[k - 1][0]] if k else []
        return [*lower, layers[k][1][i]], mode

    def _primed(self, u: Any) -> Any:
        """`u` over the next values (each layer's once)."""
        if u not in self.primed:
            self.primed[u] = self.game.let(self.game.priming, u)
        return self.primed[u]

    def _letters(self, u: Any, variables: list[str]) -> list[tuple[bool, ...]]:
        """Every valuation of `variables` in `u` (a BDD over them alone), each a transition of
        the controller: _TooLarge past MAX_TRANSITIONS in all."""
        out = []
        for values in self.game.valuations(u, variables):
            self.transitions += 1
            if self.transitions > MAX_TRANSITIONS:
                raise _TooLarge
            out.append(values)
        return out

    def _pick(self, u: Any, variables: list[str]) -> tuple[bool, ...]:
        return next(self.game.valuations(u, variables))

    def _written(self, rows: list[list[tuple[tuple[bool, ...], tuple[bool, ...], int]]]) -> Machine:
        """The machine: a transition per input the environment may write (each leads to a
        state of its own: the state is the position), the others sent to a state that writes
        all outputs false (the environment has broken its safety: the system has won)."""
        from ltlwit.logic.assignment import cube

        g = self.game
        sink = len(rows)
        quiet = cube((a, False) for a in g.outs)
        states = []
        for row in rows:
            ts = [Transition(cube(zip(g.ins, xs)), cube(zip(g.outs, ys)), target) for xs, ys, target in row]
            if len(row) < 2 ** len(g.ins):  # the letters not read are one guard: none of those read
                ts.append(Transition(Not(Or(*(t.guard for t in ts))), quiet, sink))
            states.append(tuple(ts))
        if any(t.target == sink for ts in states for t in ts):
            states.append((Transition(TRUE, quiet, sink),))
        return Machine("system", g.ins, g.outs, False, tuple(states))


class _TooLarge(Exception):
    pass


def _functions(bdd: Any, relation: Any, ys: list[str], limit: Limit) -> list[Any]:
    """A function for each of the variables `ys` such that, wherever some values of them lie
    in `relation`, theirs do: each in turn true where the relation, the functions before it
    substituted, allows it (simplified where it allows nothing: CUDD's restrict)."""
    from dd.cudd import restrict

    out = []
    for k, y in enumerate(ys):
        limit.check_time()
        f = bdd.let({y: True}, relation)
        if k + 1 < len(ys):
            f = bdd.exist(ys[k + 1 :], f)
        f = restrict(f, bdd.exist(ys[k:], relation))
        relation = bdd.let({y: f}, relation)
        out.append(f)
    return out


def check(formula: Formula, machine: Machine, limit: Limit) -> bool | None:
    """Whether every closed loop of the system's Mealy `machine` satisfies GR(1)-shaped φ,
    model-checked on the loop, not taken from the game: its positions (the machine's state and
    the letter just played) reached from every initial input θe allows, along the moves ρe
    allows (a move it forbids ends the environment's claim: φ holds whatever follows); θs at
    the first letter, ρs on every move, and no cycle of positions that avoids a guarantee Js_j
    while meeting every assumption Je_i (Tarjan's SCCs of the positions without Js_j). φ is
    implied by its GR(1) reading (`shape`), so a machine that passes satisfies φ. None: φ is
    not GR(1)-shaped, or the machine is not one this check reads (Moore, the environment's, or
    writing partial letters)."""
    spec = shape(formula, machine.reads)
    if spec is None or spec.responses or machine.moore or machine.player != "system" or not _has_cudd():
        return None
    writes = [letter_of(t.write) for ts in machine.states for t in ts]
    if any(set(w) != set(machine.writes) for w in writes):
        return None
    g = _Game(spec, machine.reads, machine.writes, limit)
    try:
        return _Loop(g, machine).holds()
    finally:
        del g  # CUDD's nodes go before their manager


class _Loop:
    """The closed loop's positions and moves, explored explicitly, its letter sets as BDDs."""

    def __init__(self, game: _Game, machine: Machine) -> None:
        self.game, self.machine = game, machine
        self.guards = []  # per state: (guard over the next inputs, outputs written, target)
        for ts in machine.states:
            row = []
            for t in ts:
                guard = self.game.let(game.priming, game.of(t.guard))
                written = letter_of(t.write)
                row.append((guard, tuple(written[a] for a in game.outs), t.target))
            self.guards.append(row)

    def holds(self) -> bool:
        g, bdd = self.game, self.game.bdd
        Position = tuple[int, tuple[bool, ...], tuple[bool, ...]]
        index: dict[Position, int] = {}
        positions: list[Position] = []
        edges: list[list[int]] = []

        def reach(p: Position) -> int:
            if p not in index:
                index[p] = len(positions)
                positions.append(p)
                edges.append([])
            return index[p]

        first = self.game.let(g.priming, g.env_init)  # the initial inputs, read as the next ones
        todo = []
        for guard, ys, target in self.guards[0]:
            for x0 in g.valuations(first & guard, g.x_next):
                g.limit.check_time()  # 2^n initial letters where θe leaves n inputs free
                if not g.holds(g.sys_init, g.at((*x0, *ys))):
                    return False
                todo.append(reach((target, x0, ys)))
        done = set()
        while todo:
            k = todo.pop()
            if k in done:
                continue
            done.add(k)
            g.limit.check_time()
            state, xs, ys = positions[k]
            here = g.at((*xs, *ys))
            allowed = self.game.let(here, g.rho_e)
            duties = self.game.let(here, g.rho_s)
            for guard, ys1, target in self.guards[state]:
                legal = allowed & guard
                if legal == bdd.false:
                    continue
                kept = self.game.let({g.next[a]: v for a, v in zip(g.outs, ys1)}, duties)
                if (legal & ~kept) != bdd.false:
                    return False  # a move the environment may make, on which the system breaks ρs
                for x1 in g.valuations(legal, g.x_next):
                    succ = reach((target, x1, ys1))
                    edges[k].append(succ)
                    todo.append(succ)
        at = [g.at((*xs, *ys)) for _, xs, ys in positions]
        for goal in g.sys_justice:
            away = [not g.holds(goal, here) for here in at]
            for scc in _components(edges, away):
                if all(any(g.holds(a, at[k]) for k in scc) for a in g.env_justice):
                    return False  # the environment can keep the play here: meeting its assumptions, never this goal
        return True


def check_circuit(formula: Formula, circuit: Circuit, limit: Limit, ranking: Ranking | None = None) -> bool | None:
    """`check` for a controller written as a circuit, model-checked symbolically: the loop's
    states are the circuit's latches, the position last played and whether the play has
    begun; its moves the inputs θe (at first) or ρe allows and the outputs the circuit writes.
    Every reachable move must keep θs (at first) and ρs, and for every guarantee Js_j no
    reachable cycle may avoid it while meeting every assumption Je_i (Emerson and Lei's fair
    states; or, given the game's `ranking` and where it holds, a step at a time:
    `_CircuitLoop.ranked`), nor, for every response G(p -> F q), follow a p ∧ ¬q and never
    meet q: `ρs W ¬ρe`, so stricter than the plain `G ρe -> G ρs` (sound for both). Shares
    nothing with the game but φ's parts and the ranking it checks. None: φ is not
    GR(1)-shaped, or the circuit not a Mealy controller; False: a text that is not a
    well-formed circuit of the specification's inputs and outputs (`aiger._read`), which
    proves nothing."""
    from ltlwit.logic.ltl.games.aiger import _read

    spec = shape(formula, circuit.reads)
    if spec is None or circuit.player != "system" or circuit.moore or not _has_cudd():
        return None
    try:
        parsed = _read(circuit.aiger)
    except ValueError:
        return False  # not a circuit: it proves nothing
    names = [
        parsed.symbols.get(f"{kind}{k}", name)
        for kind, ns in (("i", circuit.reads), ("o", circuit.writes))
        for k, name in enumerate(ns)
    ]
    if (len(parsed.inputs), len(parsed.outputs)) != (len(circuit.reads), len(circuit.writes)) or names != [
        *circuit.reads,
        *circuit.writes,
    ]:
        return False  # its inputs and outputs are not the specification's
    g = _Game(spec, circuit.reads, circuit.writes, limit, monitored=False)
    try:
        return _CircuitLoop(g, circuit, spec.responses).holds(ranking)
    finally:
        del g  # CUDD's nodes go before their manager


class _CircuitLoop:
    """The closed loop of a circuit as a symbolic transition system in its game's manager.

    A latch whose next value is, literal for literal, an input or an output holds that
    proposition's value at the instant before (both start at 0 before the play begins, and the
    circuit copies it at every step): it is the position's variable itself, not a variable
    beside it, so that the loop's moves stay as small as the strategy's."""

    def __init__(self, game: _Game, circuit: Circuit, responses: list[tuple[Formula, Formula]]) -> None:
        from ltlwit.logic.ltl.games.aiger import _read, _values

        self.game = g = game
        self.responses = [(g.of(p), g.of(q)) for p, q in responses]
        bdd = g.bdd
        parsed = _read(circuit.aiger)
        names = (*g.ins, *g.outs)
        # a literal that writes several propositions (shift_pb_125's in[i] and out[i + 1]) makes
        # them equal once begun, and 0 before: a latch copying it holds any one of them not held
        copies: dict[int, list[str]] = {}  # literal -> the propositions written as it
        for literal, a in [*zip(parsed.inputs, g.ins), *zip(parsed.outputs, g.outs)]:
            copies.setdefault(literal, []).append(a)
        held: dict[int, str] = {}  # latch -> the proposition it holds, each held once
        for k, (_, nxt) in enumerate(parsed.latch_rows):
            if copies.get(nxt):
                held[k] = copies[nxt].pop(0)
        own = [k for k in range(parsed.latches) if k not in held]
        self.latch_vars = {  # each named latch's variable in the loop: its own, or the proposition it holds
            parsed.symbols[f"l{k}"]: g.now[held[k]] if k in held else f"l{k}"
            for k in range(parsed.latches)
            if f"l{k}" in parsed.symbols
        }
        bdd.declare("b", "b'", *(v for k in own for v in (f"l{k}", f"l{k}'")))
        self.now = ["b", *(f"l{k}" for k in own), *(g.now[a] for a in names)]
        # once begun, whatever copies one literal is equal: the outputs and latches of 0 or 1
        # too; the position's variables of propositions written alike (`invariant`)
        alike: dict[int, list[Any]] = {}
        for literal, a in [*zip(parsed.inputs, g.ins), *zip(parsed.outputs, g.outs)]:
            alike.setdefault(literal, []).append(bdd.var(g.now[a]))
        for k in own:
            alike.setdefault(parsed.latch_rows[k][1], []).append(bdd.var(f"l{k}"))
        self.tied = bdd.true
        for literal, vs in alike.items():
            for v in vs:
                self.tied &= (v if literal else ~v) if literal in (0, 1) else v.equiv(vs[0])
        self.next = ["b'", *(f"l{k}'" for k in own), *(g.next[a] for a in names)]
        self.priming = dict(zip(self.now, self.next))
        self.unpriming = dict(zip(self.next, self.now))
        latch = [bdd.var(g.now[held[k]] if k in held else f"l{k}") for k in range(parsed.latches)]
        lit = _values(parsed, [bdd.var(g.next[a]) for a in g.ins] + latch, bdd.false, lambda u: ~u, lambda a, b: a & b)
        step = bdd.var("b'")
        for a, o in zip(g.outs, parsed.outputs):
            g.limit.check_time()  # a shift register's 125 copies: each conjunction slower than the last
            step &= bdd.var(g.next[a]).equiv(lit(o))
        for k in own:
            g.limit.check_time()
            step &= bdd.var(f"l{k}'").equiv(lit(parsed.latch_rows[k][1]))
        begun = bdd.var("b")
        legal = (begun & g.rho_e) | (~begun & g.let(g.priming, g.env_init))
        self.move = step & legal
        self.start = bdd.cube({v: False for v in self.now})
        self.begun = begun

    def pre(self, s: Any) -> Any:
        """The states with a move into `s`."""
        from dd.cudd import and_exists

        self.game.limit.check_time()
        return and_exists(self.move, self.game.let(self.priming, s), self.next)

    def holds(self, ranking: Ranking | None = None) -> bool:
        g, bdd = self.game, self.game.bdd
        first = g.let(g.priming, g.sys_init)
        if (self.start & self.move & ~first) != bdd.false:
            return False  # θs broken at the first instant
        claim = self.claim(ranking) if ranking is not None and not self.responses else None
        if claim is not None:
            kept = self.invariant(claim)  # the reachable states and more, without the search
            if kept is not None and self.safe(kept) and self.ranked(kept & self.begun, claim):
                return True
        reached = self.image(self.start, bdd.true)
        if not self.safe(reached):
            return False  # a move the environment may make, on which the system breaks ρs
        if claim is None or not self.ranked(reached & self.begun, claim):
            for goal in g.sys_justice:
                if self.fair(reached & self.begun & ~goal) != bdd.false:
                    return False  # a reachable cycle meeting every assumption, never this goal
        for trigger, answer in self.responses:
            unanswered = self.image(reached & self.begun & trigger & ~answer, ~answer)
            if self.fair(unanswered) != bdd.false:
                return False  # a p never answered: after it, a fair cycle without q
        return True

    def safe(self, states: Any) -> bool:
        """Whether no move from `states` breaks ρs, once the play has begun."""
        return (states & self.begun & self.move & ~self.game.rho_s) == self.game.bdd.false

    def claim(self, ranking: Ranking) -> _Claim | None:
        """`ranking` in the loop's terms, read once for `invariant` and `ranked`: its modes as
        sets of states, its guarantees, assumptions, region and layers as this manager's BDDs.
        None where it cannot speak of this loop: its mode bits not latches of their own (the
        modes would not be apart), too few of them, its sets over variables the loop lacks, a
        guarantee of φ that none of its own implies, or an assumption of its own that none of
        φ's implies (see `ranked`)."""
        from dd.cudd import copy_bdd

        g, bdd = self.game, self.game.bdd
        bits = [self.latch_vars.get(name) for name in ranking.modes]
        names = [v for v in bits if v is not None]
        goals = [g.of(f) for f in ranking.goals]
        assumptions = [g.of(f) for f in ranking.assumptions]
        if (
            len(set(names)) != len(bits)
            or not goals
            or len(goals) > 2 ** len(names)
            or len(ranking.layers) != len(goals)
            or any(len(xs) != len(assumptions) for ys in ranking.layers for _, xs in ys)
            or not all(any(gm & ~j == bdd.false for gm in goals) for j in g.sys_justice)
            or not all(any(je & ~a == bdd.false for je in g.env_justice) for a in assumptions)
        ):
            return None
        try:
            region = copy_bdd(ranking.region, bdd)
            layers = [[[copy_bdd(x, bdd) for x in xs] for _, xs in ys] for ys in ranking.layers]
        except ValueError:  # sets over variables the loop does not have
            return None
        modes = [bdd.cube({v: bool(m >> b & 1) for b, v in enumerate(names)}) for m in range(len(goals))]
        covered = bdd.false
        for mode in modes:
            covered |= mode
        return _Claim(modes, covered, goals, assumptions, region, layers)

    def invariant(self, claim: _Claim) -> Any:
        """The states the claim says the play keeps to, where no move leaves them: the start,
        and once begun the positions of its region in one of its modes, where the latches and
        propositions that copy one literal are equal (`tied`). None where they are not closed
        under the moves."""
        bdd = self.game.bdd
        kept = self.start | (self.begun & claim.region & claim.covered & self.tied)
        return kept if (kept & self.pre(~kept)) == bdd.false else None

    def ranked(self, reached: Any, claim: _Claim) -> bool:
        """Whether the claim proves that every fair cycle of the `reached` states meets every
        guarantee, checked on the loop's moves alone. Its latches `modes` name a guarantee G_m
        in every reached state (m below their count); from a state where G_m holds every move
        is to mode m + 1 (mod the count); from one where it does not, every move stays in mode
        m and goes to a lower rank (the first layer k, then the first assumption i, whose set
        holds the position) or to G_m, or keeps the rank (k, i) only where the position breaks
        A_i. Then no fair cycle keeps one mode (its rank could only stay, where A_i never
        holds), so every fair cycle goes round all modes, leaving each at a G_m; each of φ's
        guarantees holds wherever some G_m does, and each A_i wherever one of φ's assumptions
        does (`claim` has checked both). False where any of this fails: proof of nothing."""
        bdd = self.game.bdd
        modes = claim.modes
        if reached & ~claim.covered != bdd.false:
            return False
        for m, (goal, mode) in enumerate(zip(claim.goals, modes)):
            here = reached & mode
            if here & goal & self.pre(~modes[(m + 1) % len(modes)]) != bdd.false:
                return False
            ranks = []  # lowest first: the states of that rank, its positions, its assumption
            left = here & ~goal  # the states not yet ranked
            seen = bdd.false  # the positions of the lower ranks
            for xs in claim.layers[m]:
                for x, a in zip(xs, claim.assumptions):
                    positions = x & ~seen & ~goal
                    if positions != bdd.false:
                        ranks.append((left & positions, positions, a))
                        left &= ~positions
                    seen |= x
            if left != bdd.false:
                return False
            # the states with a move to a higher rank: out of the mode or of every rank, at
            # first; then, from the highest rank down, those with a move to that rank: the
            # pre of each rank's small set, not of each complement
            higher = self.pre(~mode | (mode & ~goal & ~seen))
            for states, positions, a in reversed(ranks):
                if states & ~a & higher != bdd.false:
                    return False  # a move up, where A_i fails
                higher |= self.pre(mode & positions)
                if states & a & higher != bdd.false:
                    return False  # a move up or to the same rank, where A_i holds
        return True

    def image(self, start: Any, within: Any) -> Any:
        """The states reachable from `start` through states of `within`."""
        from dd.cudd import and_exists

        g = self.game
        reached = frontier = start
        while frontier != g.bdd.false:
            g.limit.check_time()
            image = g.let(self.unpriming, and_exists(frontier, self.move, self.now))
            frontier = image & within & ~reached
            reached |= frontier
        return reached

    def fair(self, inside: Any) -> Any:
        """The states of `inside` with a path through it meeting each assumption again and again
        (Emerson and Lei), the paths kept within the set as it shrinks."""
        g, bdd = self.game, self.game.bdd
        fair = inside
        while fair != bdd.false:
            while True:  # the states without a move within the set, a step at a time: one image
                trimmed = fair & self.pre(fair)  # each, where a round of the assumptions takes several
                if trimmed == fair:
                    break
                fair = trimmed
            kept = fair
            for assumption in g.env_justice:
                until = frontier = fair & assumption  # E[fair U (fair & assumption)]
                while frontier != bdd.false:
                    frontier = kept & self.pre(frontier) & ~until
                    until |= frontier
                kept &= self.pre(until)
            if kept == fair:
                return fair
            fair = kept
        return fair


def _components(edges: list[list[int]], inside: list[bool]) -> list[list[int]]:
    """The strongly connected components of the graph restricted to the `inside` nodes that
    hold a cycle (more than one node, or a loop), by Tarjan's algorithm without recursion."""
    succs = [[w for w in ws if inside[w]] for ws in edges]
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(len(edges)):
        if not inside[root] or root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, i = work[-1]
            if i < len(succs[v]):
                work[-1] = (v, i + 1)
                w = succs[v][i]
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                scc = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    scc.append(w)
                    if w == v:
                        break
                if len(scc) > 1 or v in edges[v]:
                    out.append(scc)
    return out
