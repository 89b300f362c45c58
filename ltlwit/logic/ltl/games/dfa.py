"""LTLf synthesis over a symbolic DFA, where formula progression's states are cubes.

Progression (`progression`) explores its states one at a time, each a BDD; a binary counter of
n bits that the system must count down has 2^n of them. SYNTCOMP's LTLf games relate an instant
to the next under G (`G(X carry_1 -> counter_0 & X carry_0)`), with a few obligations (G, F, U)
pending: there every state progression meets is a conjunction of pending obligations and a
constraint on the next letter, given by the letter just read. Such a state is a bit vector: the
obligations pending at the previous instant (`p`), the letter read there (`m`: the previous
value of each proposition the steps read, beside its own variable in the order), and whether an
obligation was broken (`d`); transition and acceptance are BDDs over those bits and the letter,
and the reachability game is one fixpoint over every state at once.

The rules are progression's (its module docstring), with the letter an instant's obligations
read split off: an obligation pending at instant t is checked when the letter of t+1 is read,
its "now" over `m`, a proposition under X over the letter itself, and the temporal
subformulas it leaves pending (under X, and F, G, U, R, W, M themselves) as the next bits. That
reading is exact when every obligation's step, for each (previous letter, letter), requires a
set of next obligations (a cube: `_cube`, checked on the BDDs, not on the syntax); a formula
whose top is a Boolean combination of such parts (`A -> B`, the TLSF assumptions and
guarantees) is the product of their DFAs, each with its own bits, acceptance combined as the
formula combines them. Otherwise `NotCubes`, and progression plays it.

A winning player's strategy is written out as a machine over the states it reaches, the memory
of propositions no pending obligation reads dropped (so a counter's initial inputs are
forgotten after the first instant), and checked by the engine like every other (`games.verify`):
the DFA is only trusted to find it."""

from __future__ import annotations

import contextlib
import functools
import time
from typing import Any, Callable, Iterator

from ltlwit.logic.budget import Limit
from ltlwit.logic.formula import WEAK_NEXT, And, Formula, postorder
from ltlwit.logic.ltl.games import _flat
from ltlwit.logic.ltl.games.counting import Arena
from ltlwit.logic.ltl.games.machine import Machine
from ltlwit.logic.ltl.games.progression import nnf, progress

#: CUDD nodes past which the game gives up (progression or the counting games then try).
MAX_NODES = 2_000_000
#: Bytes of CUDD's memory past which an operation stops (NotCubes).
MAX_MEMORY = 256 << 20
#: Cases (conjunctions of parts) past which φ's acceptance is not split.
MAX_CASES = 64
#: Seconds between two counts of the BDD nodes once the DFA is built (`DfaGame.guard`).
COUNT_EVERY = 0.5
#: BDD nodes up to which the memory is paired with the letters once the DFA is built
#: (`DfaGame._pair`): the counters' DFAs are 800-5,000 nodes, and their fixpoints thousands of
#: rounds; chomp's are 45,000 and more, their fixpoints 15 rounds at most.
PAIR_NODES = 20_000
#: Memory variables moved beside their letters at a time (`DfaGame._pair`): one at a time, a
#: 13-bit double counter's 68 took 7.5 s; all at once, a 19-bit one's ran 70 s unchecked.
PAIR_MOVES = 8
#: States past which a strategy is not written out (its check would not end either).
MAX_STATES = 20_000


class NotCubes(Exception):
    """A formula outside the fragment (module docstring), or a game grown past its limits."""


class _Part:
    """One DFA of the product: a subformula of φ's Boolean top, its obligations' bits."""

    def __init__(self, game: DfaGame, formula: Formula, number: int) -> None:
        bdd = game.bdd
        self.bits: dict[str, Formula] = {}  # p-variable -> the obligation
        self.final: dict[str, Any] = {}  # p-variable -> whether it holds on a trace ending now
        step: dict[str, Any] = {}  # p-variable -> its step, over m, the letter and next p's
        made: dict[Formula, str] = {}

        def bit(g: Formula) -> Any:
            name = made.get(g)
            if name is None:
                name = made[g] = f"p{number}_{len(self.bits)}"
                bdd.declare(name)
                self.bits[name] = g
            return bdd.var(name)

        done: dict[Formula, tuple[Any, Any]] = {}  # (final, step)
        for g in postorder(formula):
            game.guard()
            done[g] = game.rule(g, done, bit)
        bit(formula)
        self.root = made[formula]
        for name, g in self.bits.items():
            self.final[name], step[name] = done[g]
        self.dead = f"d{number}"
        bdd.declare(self.dead)
        # each obligation's step as (what it requires now, {next obligation: when it is required})
        self.now: dict[str, Any] = {}
        self.then: dict[str, dict[str, Any]] = {}
        for name in self.bits:
            game.guard()
            self.now[name], self.then[name] = _cube(bdd, step[name], set(self.bits), game.guard)


def _cube(bdd: Any, step: Any, bits: set[str], guard: Callable[[], None]) -> tuple[Any, dict[str, Any]]:
    """`step` as C & AND_j (g_j -> p_j) over the bits p_j (C and g_j without them); NotCubes
    when it is not of that form (a disjunction of two obligations). `guard` goes before each of
    CUDD's operations: on chomp's steps each takes seconds."""
    mine = [v for v in step.support if v in bits]
    now = bdd.let({v: True for v in mine}, step) if mine else step
    then: dict[str, Any] = {}
    rebuilt = now
    for v in mine:
        guard()
        without = bdd.let({u: u != v for u in mine}, step)
        guard()
        need = now if without == bdd.false else now & ~without  # G's own bit: needed wherever it holds
        if need != bdd.false:
            then[v] = need
            guard()
            rebuilt = rebuilt & bdd.var(v) if need == now else rebuilt & (~need | bdd.var(v))
    if rebuilt != step:
        raise NotCubes("a step that leaves a choice of obligations")
    return now, then


def _choice(f: Formula) -> bool:
    """Whether `f` is a disjunction of two temporal formulas or more (`_flat` joins the others)."""
    return f.op == "|" and f.temporal and sum(g.temporal for g in _flat(f, "|", "")) > 1


@contextlib.contextmanager
def _ceiling() -> Iterator[None]:
    """CUDD's NULL node (an operation past `MAX_MEMORY`: dd's ValueError) as NotCubes."""
    try:
        yield
    except ValueError as e:
        if "NULL" not in str(e):
            raise
        raise NotCubes(f"past CUDD's {MAX_MEMORY >> 20} MiB") from e


class DfaGame:
    """The reachability game of an LTLf formula over its symbolic DFA (module docstring)."""

    def __init__(self, arena: Arena, formula: Formula, alive: str, limit: Limit) -> None:
        self.arena, self.limit, self.alive_name = arena, limit, alive
        bdd = self.bdd = arena.bdd
        # CUDD's sifting, unlike the other games: no static order kept chomp's steps small (a
        # grid's squares beside their selections), sifted they are 50,000 nodes, built in 3 s.
        # Called between operations (`guard`), not inside them (where it ran a step of chomp's
        # 3 x 6 for 15 s past its deadline); the ceiling makes an operation that outgrows it
        # stop (CUDD's NULL: ValueError) rather than run on.
        bdd.configure(reordering=False, max_memory=MAX_MEMORY)
        self._sifted_at, self._sift_rate = len(bdd), 0.0  # nodes after the last, seconds a node
        self._reads: dict[tuple, set[str]] = {}
        self._guarded, self._counted = 0, 0.0  # guards so far; when the nodes were last counted
        self._sifting = True  # while the DFA is built (`guard`)
        bdd.declare("init")
        self._order()
        self.parts: list[_Part] = []
        with _ceiling():
            self._build(self._split(nnf(formula)))
            self._sifted_at = 0  # ordered for the game's own BDDs, where the time allows
            self.guard(count=True)
            if len(bdd) <= PAIR_NODES:
                self._pair()
        self._sifting = False

    # -- the DFA -----------------------------------------------------------------------------
    def guard(self, count: bool = False) -> None:
        """The deadline before each of CUDD's operations. While the DFA is built, every 4th
        (or at once: `count`), `MAX_NODES`, and CUDD's sifting where the nodes have doubled
        since the last (`_sift`). Once it is built, `MAX_NODES` only, every `COUNT_EVERY`
        seconds: the nodes the game adds are its rounds' winning sets, not a blowup, and
        sifting for them made each round's operations 15 times slower (a 12-bit counter's
        fixpoint: 19 s, unsifted 2 s); counting the nodes scans CUDD's unique table (10 ms at
        100,000 nodes)."""
        self.limit.check_time()
        self._guarded += 1
        now = time.perf_counter()
        due = self._guarded % 4 == 0 if self._sifting else now - self._counted >= COUNT_EVERY
        if not (count or due):
            return
        self._counted = now
        nodes = len(self.bdd)
        if nodes > MAX_NODES:
            raise NotCubes(f"{nodes} BDD nodes")
        if self._sifting and nodes > 2 * self._sifted_at:
            self._sift(nodes)

    def _sift(self, nodes: int) -> None:
        """CUDD's sifting, or NotCubes where the time left would not allow it twice over at the
        slowest rate a sift has had so far (unsifted, chomp's operations take tens of seconds
        each)."""
        if 2 * self._sift_rate * nodes > self.limit.remaining():
            raise NotCubes("no time left to order the BDDs' variables")
        began = time.perf_counter()
        self.bdd.reorder()
        self._sift_rate = max(self._sift_rate, (time.perf_counter() - began) / nodes)
        self._sifted_at = len(self.bdd)

    def _recall(self, u: Any) -> Any:
        """A BDD over the letter as the same over the previous letter (`m`)."""
        support = [v for v in u.support if v in self.memory]
        return self.bdd.let({v: self.bdd.var(self.memory[v]) for v in support}, u) if support else u

    def rule(self, g: Formula, done: dict[Formula, tuple[Any, Any]], bit: Callable[[Formula], Any]) -> tuple[Any, Any]:
        """(final, step) of a subformula pending at an instant, its operands' already made:
        final over that instant's letter, step over it (as `m`), the next letter and the next
        pending bits."""
        bdd, op = self.bdd, g.op
        if not g.temporal:
            letter = self.arena.labels.of(g)
            return letter, self._recall(letter)
        if op in ("X", WEAK_NEXT):
            (c,) = g.children
            later = done[c][0] if not c.temporal else bit(c)  # a proposition: read at once
            return (bdd.true if op == WEAK_NEXT else bdd.false), later
        return progress(op, done[g.children[0]], done[g.children[-1]], lambda: bit(g))

    def _split(self, f: Formula) -> list[list[int]]:
        """φ's Boolean top split into parts at its disjunctions of temporal formulas (where
        progression's states stop being cubes: `A -> B`), a conjunction's other operands kept
        together: φ's acceptance as a disjunction of conjunctions of the parts' (their indices
        in `parts`), each kept apart (`accepts`). NotCubes where a part's steps are not cubes."""
        if _choice(f):
            return [c for g in _flat(f, "|", "") for c in self._split(g)]
        if f.temporal and f.op == "&":
            operands = _flat(f, "&", "")
            rest = [g for g in operands if not _choice(g)]
            if len(rest) < len(operands):
                cases: list[list[int]] = [[]]
                for dnf in ([self._split(And(*rest))] if rest else []) + [
                    self._split(g) for g in operands if _choice(g)
                ]:
                    if len(cases) * len(dnf) > MAX_CASES:
                        raise NotCubes(f"more than {MAX_CASES} cases")
                    cases = [c + d for c in cases for d in dnf]
                return cases
        self.parts.append(_Part(self, f, len(self.parts)))
        return [[len(self.parts) - 1]]

    def _order(self) -> None:
        """A memory variable for each letter's, beside it (`G(i_k <-> X o_k)` stays linear;
        with the memory below every letter, a step of chomp's 2 x 5 took 3 million nodes)."""
        bdd = self.bdd
        letters = sorted(self.arena.names, key=bdd.level_of_var)
        self.memory = {v: f"m{v}" for v in letters}  # letter variable -> its previous value's
        self.remembered = set(self.memory.values())
        bdd.declare(*self.memory.values())
        order = ["init", *(x for v in letters for x in (v, self.memory[v]))]
        bdd.reorder({v: k for k, v in enumerate(order)})

    def _pair(self) -> None:
        """Each memory variable put back right below its letter's, the two sifted together
        from then on: `_after` substitutes the one for the other, cheap only where their
        orders agree (a 10-bit counter's winning set of 250 nodes became 8,000 over the
        letters, the two sifted apart; its 1,026 rounds took 5 s, paired 0.3 s). Once the DFA
        is built, and only where it is small (`PAIR_NODES`): while it is built, sifting them
        apart is what keeps chomp's steps small (paired, its 3 x 4 took 58 s instead of 33).
        `PAIR_MOVES` variables moved at a time, the deadline and the nodes checked between (a
        DFA's BDDs can grow exponentially in the moves: a 19-bit double counter's, paired at
        once, took 70 s); past `MAX_NODES` / 4 the pairing stops and the variables are sifted apart
        again: the game is the same in any order."""
        bdd = self.bdd
        pairs = list(self.memory.items())
        for first in range(0, len(pairs), PAIR_MOVES):
            self.limit.check_time()
            if len(bdd) > MAX_NODES // 4:
                break
            moved = dict(pairs[first : first + PAIR_MOVES])  # letter -> its memory variable
            placed = set(moved.values())
            order = []
            for x in sorted(bdd.vars, key=bdd.level_of_var):
                if x not in placed:
                    order += [x, moved[x]] if x in moved else [x]
            try:
                bdd.reorder({x: k for k, x in enumerate(order)})
            except RuntimeError as e:  # CUDD's shuffle failed (its memory ceiling): dd's error
                raise NotCubes("the memory could not be paired with the letters") from e
        else:
            bdd.group({v: 2 for v in self.memory})
        self._sift(len(bdd))

    def _build(self, cases: list[list[int]]) -> None:
        """The transition (`next`: each state variable's next value) and acceptance (`accepts`:
        the letters that may end the trace, a BDD per case of `_split`), over the state and the
        letter."""
        bdd = self.bdd
        init = bdd.var("init")
        self.next: dict[str, Any] = {"init": bdd.false}
        self.next.update({m: bdd.var(v) for v, m in self.memory.items()})
        accepts = []
        for part in self.parts:
            self.guard()
            ok = bdd.true
            wanted: dict[str, Any] = {name: bdd.false for name in part.bits}
            for i in part.bits:
                pi = bdd.var(i)
                ok = ok & (~pi | part.now[i])
                for j, need in part.then[i].items():
                    wanted[j] = wanted[j] | (pi & need)
            final = bdd.true
            for j in part.bits:
                final = final & (~wanted[j] | part.final[j])
                self.next[j] = bdd.ite(init, bdd.true if j == part.root else bdd.false, wanted[j])
            dead = bdd.var(part.dead)
            self.next[part.dead] = ~init & (dead | ~ok)
            accepts.append(bdd.ite(init, part.final[part.root], ~dead & ok & final))
        # the disjuncts apart: where the system moves second, its choice distributes over them
        # (chomp's 4 x 3: 10 s to join them, its two steps' BDDs multiplied)
        self.accepts = []
        for case in cases:
            self.guard()
            conjunction = bdd.true
            for k in case:
                conjunction = conjunction & accepts[k]
            self.accepts.append(conjunction)
        self.state_vars = list(self.next)
        self.control = [v for v in self.state_vars if v not in self.remembered]  # init, p, d

    # -- the game ----------------------------------------------------------------------------
    def _quantified(self, lead: Any) -> Any:
        """The states from which the system can, at an instant, end the trace accepted or
        move by `lead` (over state and letter), whoever moves first."""
        bdd, arena = self.bdd, self.arena
        ins, outs = arena.vars["environment"], arena.vars["system"]
        if arena.moore:
            return bdd.exist(outs, bdd.forall(ins, self._endings | lead))
        chosen = bdd.exist(outs, lead)
        for u in self.accepts:
            self.guard()
            chosen = chosen | bdd.exist(outs, u)
        return bdd.forall(ins, chosen)

    @functools.cached_property
    def _endings(self) -> Any:
        """Every (state and) letter that ends the trace accepted, the cases joined once: where
        the system moves first, its choice does not distribute over them."""
        return self._ending()

    def _ending(self, values: dict[str, bool] | None = None) -> Any:
        """The (state and) letters that end the trace accepted; at the state `values`."""
        bdd = self.bdd
        out = bdd.false
        for u in self.accepts:
            out = out | (bdd.let(values, u) if values else u)
        return out

    def _after(self, states: Any) -> Any:
        """The (state, letter) pairs that lead into `states` (CUDD's vector composition: fast
        where each memory variable sits beside its letter's, `_pair`)."""
        return self.bdd.let(self.next, states)

    def solve(self) -> Machine:
        """The winner's strategy: a controller when the system wins from the first state, else
        a counter-strategy."""
        with _ceiling():
            return self._solve()

    def _solve(self) -> Machine:
        """`solve` under CUDD's memory ceiling: the fixpoint, then the winner's machine."""
        bdd = self.bdd
        self.start = {v: v == "init" for v in self.state_vars}
        won = [bdd.false]  # won[k]: the states the system wins from within k letters
        # the (state, letter) pairs into each round's won are made again where a strategy needs
        # them (`_into`): kept for every round, a 12-bit counter's 4,098 of them made CUDD's
        # manager 170,000 nodes, sifted for seconds a time
        self._made: dict[int, Any] = {}
        while True:
            self.guard()
            grown = self._quantified(self._after(won[-1]))
            if grown == won[-1]:
                break
            won.append(grown)
            if bdd.let(self.start, grown) == bdd.true:
                break
        self.won = won
        if bdd.let(self.start, won[-1]) == bdd.true:
            return self._controller()
        return self._counter()

    def _into(self, k: int) -> Any:
        """The (state, letter) pairs into `won[k]`."""
        into = self._made.get(k)
        if into is None:
            into = self._made[k] = self._after(self.won[k])
        return into

    def _rank(self, values: dict[str, bool]) -> int:
        """The first round that won the state (bisected: the rounds grow, and a counter of
        10 bits takes a thousand)."""
        low, high = 0, len(self.won) - 1
        while low < high:
            middle = (low + high) // 2
            if self.bdd.let(values, self.won[middle]) == self.bdd.true:
                high = middle
            else:
                low = middle + 1
        return low

    def _controller(self) -> Machine:
        """At each state, letters ending the trace, else leading to a state won sooner."""
        bdd = self.bdd

        def options(values: dict[str, bool]) -> list[tuple[Any, Any]]:
            ending = self._ending(values)
            sooner = bdd.let(values, self._into(self._rank(values) - 1))
            return [(ending, "end"), (sooner & ~ending, "next")]

        return self._strategy("system", options)

    def _counter(self) -> Machine:
        """At each state the system cannot win from, inputs that neither end a winning trace
        nor lead to a winning state, whatever the outputs; once the system stops (alive
        false) anything goes."""
        bdd = self.bdd
        alive = bdd.var(self.arena.var_of[self.alive_name])
        winning = self._into(len(self.won) - 1)  # the system's moves into the states it wins

        def options(values: dict[str, bool]) -> list[tuple[Any, Any]]:
            losing = ~self._ending(values) & ~bdd.let(values, winning)
            return [(~alive, "end"), (losing & alive, "next")]

        return self._strategy("environment", options)

    def _strategy(self, player: str, options: Callable[[dict[str, bool]], list[tuple[Any, Any]]]) -> Machine:
        """`player`'s machine over the states its moves reach from the first (`options`: at a
        state, (letters, "end" or "next")), and one more state once the trace has ended, where
        anything goes (the system writes alive false there, true elsewhere)."""
        arena, bdd = self.arena, self.bdd
        end = ("end",)
        first = ("state", tuple(sorted(self.start.items())))
        ids: dict[Any, int] = {first: 0}
        order: list[Any] = [first]
        raw: list[list[tuple[Any, Any, int]]] = []
        fixed: list[dict[str, bool]] = []
        for key in order:  # grows as targets are met
            if len(order) > MAX_STATES:
                raise NotCubes(f"a strategy of more than {MAX_STATES} states")
            self.guard()
            if key == end:
                picked = arena.pick([(bdd.true, end)], player, self.limit)
            else:
                values = dict(key[1])
                picked = []
                for guard, letter, target in arena.pick(options(values), player, self.limit):
                    if target == "end":
                        picked.append((guard, letter, end))
                        continue
                    for region, after in self._successors(values, guard & letter):
                        mine = arena.vars[player]
                        picked.append((bdd.exist(mine, region), letter, ("state", after)))
            raw.append(arena.row(picked, ids, order))
            fixed.append({self.alive_name: key != end} if player == "system" else {})
        return arena.machine(player, raw, fixed)

    def _successors(self, values: dict[str, bool], letters: Any) -> list[tuple[Any, tuple]]:
        """`letters` split by the state they lead to from the state `values`, the memory no
        pending obligation reads set false."""
        bdd = self.bdd
        parts: list[tuple[Any, dict[str, bool]]] = [(letters, {})]

        def split(pieces: list[tuple[Any, dict[str, bool]]], v: str, f: Any) -> list[tuple[Any, dict[str, bool]]]:
            self.limit.check_time()
            if len(pieces) > MAX_STATES:  # the first instant of a 19-bit counter: 2^19 of them
                raise NotCubes(f"a state with more than {MAX_STATES} successors")
            return [
                (region & (f if value else ~f), {**after, v: value})
                for region, after in pieces
                for value in (True, False)
                if region & (f if value else ~f) != bdd.false
            ]

        for v in self.control:
            parts = split(parts, v, bdd.let(values, self.next[v]))
        out: list[tuple[Any, tuple]] = []
        for region, after in parts:
            for part in self.parts:  # a broken part's pending bits say nothing any more
                if after[part.dead]:
                    after.update({p: False for p in part.bits})
            read = self._read(after)
            pieces = [(region, after)]
            for v, m in self.memory.items():
                if m in read:
                    pieces = split(pieces, m, bdd.var(v))
            forgotten = {m: False for m in self.remembered}
            out.extend((r, tuple(sorted({**forgotten, **a}.items()))) for r, a in pieces)
        return out

    def _read(self, control: dict[str, bool]) -> set[str]:
        """The memory variables a state's moves read, from its bits `control` (init, pending
        and broken)."""
        key = tuple(sorted(control.items()))
        read = self._reads.get(key)
        if read is None:
            read = set()
            for u in (*self.accepts, *self.next.values()):
                read |= {v for v in self.bdd.let(control, u).support if v in self.remembered}
            self._reads[key] = read
        return read
