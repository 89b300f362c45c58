"""Realizability as safety games with bounded counters (Schewe–Finkbeiner's bound, played as
Filiot, Jin and Raskin's safety game): the automaton the engine translates (`expand`) of what
a player must avoid, read universally, every run counted.

A player who wants ψ loses exactly when some run of the automaton of ¬ψ (a transition-based
generalised Büchi automaton, degeneralised here by the set of marks met since the last round)
is accepting. A game position maps each automaton state some run is in to the most accepting
rounds a run into it has completed; a letter leads to the position its edges give, and a
count above K loses. A strategy that keeps every count at most K keeps every run from being
accepting, so it wins ψ: a proof for every K, never a guess. The same arena serves both
players: the system wants φ over the outputs, the environment ¬φ over the inputs, and
whoever moves first (the environment under Mealy semantics) commits to its letter before
seeing the other's.

Positions keep only the runs no other run dominates (`_undominated`: the automaton's states
are sets of obligations, none dropped as implied, and a subset simulates its superset), and
where the automaton has no acceptance sets the game is one of reachability, the runs to be
ended, solved once without counts.

Letters stay symbolic: each position's letters are split into the blocks on which every run
moves alike (CUDD BDDs over inputs and outputs, `labels.Bdds`), so 20 APs cost blocks, not
2**20 letters; positions are explicit, explored forward from the initial one."""

from __future__ import annotations

import itertools
import time
from collections import deque
from typing import Any, Callable, Generator, Iterator, Sequence, TypeVar

from ltlwit.logic.assignment import cube
from ltlwit.logic.budget import Limit, OutOfTime
from ltlwit.logic.formula import Formula, Not, const
from ltlwit.logic.ltl.encoding.expand import Translator
from ltlwit.logic.ltl.encoding.labels import Bdds
from ltlwit.logic.ltl.encoding.rewrite import simplify
from ltlwit.logic.ltl.games.machine import Machine, Transition, guard_formula
from ltlwit.logic.polarity import ap_polarities, with_aps

#: automaton state, marks met in the current round
Key = tuple[int, int]
#: a position: (key, count) pairs, sorted
Position = tuple[tuple[Key, int], ...]
#: positions of more runs compare only the runs in one state for domination (`_undominated`)
MAX_DOMINATED = 256
#: seconds of a game's first turns (`CountingGame.turn`); doubled each time a step overruns one
FIRST_QUANTUM = 0.05

T = TypeVar("T")


class Arena:
    """The letters of one specification: inputs and outputs in one BDD universe, and who moves
    first. The BDD variables follow `order` (the formula's propositions as they first appear),
    not inputs then outputs: `G(i_k <-> X o_k)` over 64 pairs is a BDD of exponential size with
    every input above every output, linear with each input beside its output."""

    def __init__(
        self, inputs: tuple[str, ...], outputs: tuple[str, ...], moore: bool, order: Sequence[str] = ()
    ) -> None:
        self.inputs, self.outputs, self.moore = inputs, outputs, moore
        names = [n for n in dict.fromkeys(order) if n in inputs or n in outputs]
        names += [n for n in inputs + outputs if n not in names]
        self.labels = Bdds(names)
        self.bdd = self.labels.bdd
        variables = [f"v{i}" for i in range(len(names))]
        self.names = dict(zip(variables, names))
        self.var_of = {n: v for v, n in self.names.items()}
        mine = set(inputs)
        self.vars = {
            "environment": [v for v, n in self.names.items() if n in mine],
            "system": [v for v, n in self.names.items() if n not in mine],
        }

    def first(self, player: str) -> bool:
        """Whether `player` commits to its letter before the other (Moore: the system does)."""
        return (player == "system") == self.moore

    def letters(self, player: str) -> tuple[str, ...]:
        return self.outputs if player == "system" else self.inputs

    def other(self, player: str) -> str:
        return "environment" if player == "system" else "system"

    def wins(self, player: str, letters: Any) -> bool:
        """Whether `player` can keep to `letters` at an instant, whoever moves first."""
        bdd = self.bdd
        if self.first(player):
            return bdd.forall(self.vars[self.other(player)], letters) != bdd.false
        return bdd.exist(self.vars[player], letters) == bdd.true

    def pick(self, options: list[tuple[Any, Any]], player: str, limit: Limit) -> list[tuple[Any, Any, Any]]:
        """A strategy's moves at one instant: (guard over the other's letters, `player`'s letter
        as a BDD cube, target), choosing for every letter of the other's one of the player's
        inside the first of `options` (letters, target) that has one; a first mover commits to
        one letter for all of the other's. The options must leave the player a move for every
        letter of the other's (`wins`)."""
        bdd = self.bdd
        mine, theirs = self.vars[player], self.vars[self.other(player)]
        out = []
        covered = bdd.false
        if self.first(player):
            good = bdd.false
            for letters, _ in options:
                good = good | letters
            choice = self.some(bdd.forall(theirs, good), mine)
            for letters, target in options:
                guard = bdd.exist(mine, letters & choice) & ~covered
                if guard != bdd.false:
                    out.append((guard, choice, target))
                    covered = covered | guard
            return out
        for letters, target in options:
            while True:  # a letter of mine per region of theirs: 2^64 of them copying 64 inputs
                limit.check_time()
                free = bdd.exist(mine, letters) & ~covered
                if free == bdd.false:
                    break
                choice = self.some(letters & free, mine)
                guard = bdd.exist(mine, letters & choice) & ~covered
                out.append((guard, choice, target))
                covered = covered | guard
        assert covered == bdd.true, "a winning position answers every letter"
        return out

    def row(
        self, picked: list[tuple[Any, Any, Any]], ids: dict[Any, int], order: list[Any]
    ) -> list[tuple[Any, Any, int]]:
        """One state's transitions from the moves `pick` chose: guards of equal (letter,
        target) joined, targets numbered in the order they are met (`ids` and `order` grow)."""
        merged: dict[tuple[Any, Any], Any] = {}
        for guard, letter, target in picked:
            key = (letter, target)
            merged[key] = merged[key] | guard if key in merged else guard
        out = []
        for (letter, target), guard in merged.items():
            if target not in ids:
                ids[target] = len(order)
                order.append(target)
            out.append((guard, letter, ids[target]))
        return out

    def machine(
        self, player: str, raw: list[list[tuple[Any, Any, int]]], fixed: list[dict[str, bool]] | None = None
    ) -> Machine:
        """The strategy of `player` whose states are `raw`'s rows of (guard, letter, target)
        BDDs (`fixed`: per state, letters written whatever the row's letter says)."""
        states = tuple(
            tuple(
                Transition(
                    guard_formula(self.bdd, g, self.names), self.written(player, c, fixed[k] if fixed else None), t
                )
                for g, c, t in ts
            )
            for k, ts in enumerate(raw)
        )
        other = self.other(player)
        return Machine(player, self.letters(other), self.letters(player), self.first(player), states)

    def some(self, letters: Any, variables: list[str]) -> Any:
        """One valuation of `variables` inside `letters` (non-empty), as a BDD cube."""
        bdd = self.bdd
        keep = set(variables)
        values = bdd.pick(bdd.exist([v for v in bdd.vars if v not in keep], letters), care_vars=keep)
        return bdd.cube(values) if values else bdd.true

    def written(self, player: str, letter: Any, fixed: dict[str, bool] | None = None) -> Formula:
        """A cube of `player`'s letters as a flat formula, in declaration order (`fixed`: the
        values of some of them, whatever `letter` says)."""
        values = self.bdd.pick(letter) or {}  # a path of the BDD: the variables off it are free
        fixed = fixed or {}
        return cube((n, fixed[n] if n in fixed else values.get(self.var_of[n], False)) for n in self.letters(player))


class CountingGame:
    """One player's game for a goal (φ for the system, ¬φ for the environment); `search` for
    growing K reuses the automaton.

    Games played side by side (`realize`) take turns in slices of time: `slice` is the limit
    the translation and the successors of a position run under, its deadline set for each
    turn (`turn`); a step that runs past it is taken again in a later, longer turn (nothing
    partial is kept), so no game's single step (a first state's translation can take
    seconds) holds the others back. `spent`: the seconds of the turns so far."""

    def __init__(self, arena: Arena, player: str, goal: Formula, limit: Limit) -> None:
        self.arena, self.player, self.limit = arena, player, limit
        self.slice = limit.sub(float("inf"))
        self.spent = 0.0
        self.quantum = FIRST_QUANTUM
        # the player's propositions the goal is monotone in: written as they help it (true where
        # every occurrence is positive, false where negative), so the game has fewer letters
        # and often a smaller automaton, and a strategy that wins at all wins so
        mine = set(arena.letters(player))
        self.fixed = {
            n: ps == {1} for n, ps in ap_polarities(goal).items() if n in mine and len(ps) == 1 and 0 not in ps
        }
        if self.fixed:
            goal = with_aps(goal, {n: const(v) for n, v in self.fixed.items()})
        self.allowed = arena.bdd.cube({arena.var_of[n]: v for n, v in self.fixed.items()})
        # states are sets of obligations, and a set's subset simulates it (`_undominated`)
        self.automaton = Translator(simplify(Not(goal), limit), arena.labels, limit=self.slice, implied=False)
        self.full = self.automaton.all_marks
        #: no acceptance sets: every infinite run accepts, so the player must end every run
        self.reach = self.full == 0
        #: position -> (the bound its moves were made for, whether some letter lost, moves)
        self._moves: dict[Position, tuple[int, bool, list[tuple[Any, Position | None]]]] = {}
        self._out: dict[Key, list[tuple[Key | None, int, Any]]] = {}
        self._pruned: dict[Position, Position] = {}

    @property
    def initial(self) -> Position:
        return (((self.automaton.initial, 0), 0),)

    def turn(self, search: Iterator[tuple[int, Machine] | None]) -> tuple[int, Machine] | None | tuple[()]:
        """The next slice of `search` (this game's), within this game's quantum: its step, or
        () when the search has ended without a strategy."""
        start = time.perf_counter()
        end = start + self.quantum
        self.slice.deadline = end if self.limit.deadline is None else min(end, self.limit.deadline)
        try:
            return next(search, ())
        finally:
            self.spent += time.perf_counter() - start

    def _sliced(self, step: Callable[[], T]) -> Generator[None, None, T]:
        """`step()`, again in a later turn of twice the quantum where it runs past this one's
        (the budget's own deadline still ends it: `limit.check_time`)."""
        while True:
            try:
                return step()
            except OutOfTime:
                self.limit.check_time()
                self.quantum *= 2
                yield None

    def search(self, max_bound: int) -> Iterator[tuple[int, Machine] | None]:
        """Solve K = 0, 1, ... `max_bound` in slices: None after each slice of work (a position
        explored or a batch of positions solved), then (K, the strategy) for the first K won.
        Games played side by side advance slice by slice, so none holds the others back.

        An automaton without acceptance sets (what the player must avoid is a safety property:
        the environment's game for safety guarantees) makes it a reachability game without
        counts: the player must bring the runs to none (the empty position). It is explored a
        step deeper at a time and solved on what is explored, so a win in a few steps is found
        without the positions the other player could lead to later."""
        if self.reach:
            yield from self._reach()
            return
        for bound in range(max_bound + 1):
            nodes = yield from self._explore(bound)
            winning = yield from self._winning(nodes)
            if self.initial in winning:
                machine = yield from self._sliced(lambda: self._strategy(dict.fromkeys(winning, 0)))
                yield bound, machine
                return

    # -- the arena ---------------------------------------------------------------------------
    def _explore(self, bound: int) -> Generator[None, None, list[Position]]:
        order = [self.initial]
        seen = {self.initial}
        queue = deque(order)
        while queue:
            node = queue.popleft()
            self.limit.tick()
            moves = yield from self._sliced(lambda: self._successors(node, bound))
            for _, succ in moves:
                if succ is not None and succ not in seen:
                    seen.add(succ)
                    order.append(succ)
                    queue.append(succ)
            yield None
        return order

    def _successors(self, node: Position, bound: int) -> list[tuple[Any, Position | None]]:
        """The position's letters in blocks, one per position they lead to, and the block of
        letters that lose (some count past `bound`: None). Built key by key (keys whose letters
        are alike at once): the letters bringing each automaton state to each count split the
        blocks, so there are as many blocks as successors, not as many as combinations of edge
        labels. Kept across bounds where no letter lost (then the bound did not matter)."""
        hit = self._moves.get(node)
        if hit is not None and (hit[0] == bound or hit[1] is False):
            return hit[2]
        bdd = self.arena.bdd
        reach: dict[Key, dict[int, Any]] = {}
        lose = bdd.false
        for key, count in node:
            out = self._outgoing(key)
            self.slice.spend(1 + len(out))  # a position can hold 1,000s of keys (AllShades: 10 s past --timeout)
            for target, accepting, label in out:
                if target is None:  # no obligation left: the run accepts forever, past every bound
                    lose = lose | label
                    continue
                value = count + accepting
                values = reach.setdefault(target, {})
                values[value] = values[value] | label if value in values else label
        groups: dict[tuple[tuple[int, Any], ...], list[Key]] = {}  # keys that split the letters alike
        for key, values in reach.items():
            self.slice.spend(len(values))
            at_least = bdd.false
            ladder = []
            for value in sorted(values, reverse=True):
                at_least = at_least | values[value]
                if value > bound:
                    lose = lose | values[value]
                else:
                    ladder.append((value, at_least))
            groups.setdefault(tuple(ladder), []).append(key)
        # a block's counts as a chain (group, count, rest of the chain): a split shares its
        # block's chain instead of copying a dict of every key
        Chain = tuple[int, int, Any] | None
        blocks: list[tuple[Any, Chain]] = []
        if (free := ~lose & self.allowed) != bdd.false:  # the letters the player may write
            blocks.append((free, None))
        ladders = list(groups.items())
        for g, (steps, _) in enumerate(ladders):
            refined: list[tuple[Any, Chain]] = []
            for i, (letters, chain) in enumerate(blocks):
                if not i & 255:  # blocks can be 1,000s: the clock is read every 256
                    self.slice.spend(256 * len(steps))
                rest = letters
                for value, at_least in steps:  # the highest count first: a run's count is the most
                    part = rest & at_least
                    if part != bdd.false:
                        rest = rest & ~part
                        refined.append((part, (g, value, chain)))
                        if rest == bdd.false:
                            break
                if rest != bdd.false:  # letters that bring no run to these keys
                    refined.append((rest, chain))
            blocks = refined
        moves: list[tuple[Any, Position | None]] = []
        for letters, chain in blocks:
            counts: dict[Key, int] = {}
            while chain is not None:
                g, value, chain = chain
                for key in ladders[g][1]:
                    counts[key] = value
            self.slice.spend(len(counts))  # (a position of 100,000s of runs: collector_v3_pb_9)
            moves.append((letters, self._position(counts)))
        if lose != bdd.false:
            moves.append((lose, None))
        self._moves[node] = (bound, lose != bdd.false, moves)
        return moves

    def _position(self, counts: dict[Key, int]) -> Position:
        """The position `counts` stands for, its dominated runs dropped (`_undominated`; the
        same counts recur across blocks and positions, so they are dropped once)."""
        every = tuple(sorted(counts.items()))
        hit = self._pruned.get(every)
        if hit is None:
            hit = self._pruned[every] = _undominated(every, self.slice)
        return hit

    def _outgoing(self, key: Key) -> list[tuple[Key | None, int, Any]]:
        """Where a run in `key` goes, its edges grouped by (target key, accepting or not) with
        their labels joined (a target None: the empty obligation set); computed once a key."""
        hit = self._out.get(key)
        if hit is None:
            state, seen = key
            grouped: dict[tuple[Key | None, int], Any] = {}
            for label, target, marks in self.automaton.edges(state):
                met = seen | marks
                accepting = met == self.full and not self.reach
                where = ((target, 0 if accepting else met), int(accepting)) if target else (None, 0)
                grouped[where] = grouped[where] | label if where in grouped else label
            hit = self._out[key] = [(k, a, label) for (k, a), label in grouped.items()]
        return hit

    # -- solving -----------------------------------------------------------------------------
    def _good(self, node: Position, winning: set[Position] | dict[Position, int]) -> Any:
        good = self.arena.bdd.false
        for letters, succ in self._moves[node][2]:
            if succ is not None and succ in winning:
                good = good | letters
        return good

    def _winning(self, nodes: list[Position]) -> Generator[None, None, set[Position]]:
        """The greatest set of positions from which the player keeps inside it (a worklist:
        a position lost puts its predecessors back on the list)."""
        preds: dict[Position, list[Position]] = {n: [] for n in nodes}
        for n in nodes:
            for _, succ in self._moves[n][2]:
                if succ is not None:
                    preds[succ].append(n)
        winning = set(nodes)
        work = deque(nodes)
        queued = set(nodes)
        done = 0
        while work:
            n = work.popleft()
            queued.discard(n)
            self.limit.spend(1)
            done += 1
            if not done % 64:
                yield None
            if n in winning and not self.arena.wins(self.player, self._good(n, winning)):
                winning.discard(n)
                for p in preds[n]:
                    if p in winning and p not in queued:
                        queued.add(p)
                        work.append(p)
        return winning

    def _reach(self) -> Iterator[tuple[int, Machine] | None]:
        """The reachability game, by growing depth (`search`)."""
        layer, seen = [self.initial], {self.initial}
        nodes: list[Position] = []
        while layer:
            deeper = []
            for node in layer:
                self.limit.tick()
                moves = yield from self._sliced(lambda: self._successors(node, 0))
                for _, succ in moves:
                    if succ is not None and succ not in seen:
                        seen.add(succ)
                        deeper.append(succ)
                yield None
            nodes += layer
            if () in seen:  # the target: its moves (any letter) for the strategy's last state
                yield from self._sliced(lambda: self._successors((), 0))
            ranks = yield from self._attractor(nodes)
            if self.initial in ranks:
                machine = yield from self._sliced(lambda: self._strategy(ranks))
                yield 0, machine
                return
            layer = deeper

    def _attractor(self, nodes: list[Position]) -> Generator[None, None, dict[Position, int]]:
        """The positions from which the player brings the runs to none, each with the most
        steps it takes (0: the empty position, none left)."""
        ranks: dict[Position, int] = {(): 0} if () in self._moves else {}
        rest = [n for n in nodes if n != ()]
        for rank in itertools.count(1):
            new = []
            for i, n in enumerate(rest):
                self.limit.spend(1)
                if not i % 64:
                    yield None
                if self.arena.wins(self.player, self._good(n, ranks)):
                    new.append(n)
            if not new:
                break
            ranks.update(dict.fromkeys(new, rank))
            rest = [n for n in rest if n not in ranks]
        return ranks

    # -- the strategy ------------------------------------------------------------------------
    def _strategy(self, ranks: dict[Position, int]) -> Machine:
        """The player's machine over the winning positions, `ranks` their steps to the target
        (all 0 in a safety game): each move keeps to them and, in a reachability game, nearer
        the target."""
        ids = {self.initial: 0}
        order = [self.initial]
        raw: list[list[tuple[Any, Any, int]]] = []  # per state: (guard, my letter, target), BDDs
        for node in order:  # grows as targets are met
            self.limit.tick()
            moves = [
                (letters, succ)
                for letters, succ in self._moves[node][2]
                if succ is not None and succ in ranks and (ranks[succ] < ranks[node] or ranks[node] == 0)
            ]
            # nearer the target, then successors already in the machine, then the smallest counts
            moves.sort(key=lambda m: (ranks[m[1]], m[1] not in ids, sum(c for _, c in m[1])))
            # in this game's slice of time: a strategy of 2^64 rows (a shift register's) must
            # not hold back the games beside it
            raw.append(self.arena.row(self.arena.pick(moves, self.player, self.slice), ids, order))
        return self.arena.machine(self.player, _minimised(raw))


def _undominated(counts: Position, limit: Limit) -> Position:
    """The position `counts` without the runs another run dominates. A state is a set of
    obligations, and a subset q2 of q1 simulates it step by step (`Translator` with
    implied=False: each of q1's edges restricted to q2's obligations is one of q2's terms, with
    a subset of the obligations next and of the promises, so a superset of the marks, and where
    that term lost the letter to a subsumed one, the latter is weaker still), so a run
    from q2 completes its rounds no later than one from q1: (q2, seen2) with count c2 dominates
    (q1, seen1) with c1 when c2 > c1, or c2 == c1 and seen2 ⊇ seen1. The dominated run never
    reaches a count the dominating one does not, so the player who bounds the one bounds the
    other: dropping it changes no position's winner and merges many positions (the tableau's
    choices put a run in every subset of the pending obligations).

    Runs in one state are compared always; runs in different states in positions of at most
    `MAX_DOMINATED` runs (the comparison is quadratic)."""
    ranked = sorted(counts, key=lambda kc: (kc[0][0].bit_count(), -kc[1], -kc[0][1].bit_count()))
    across = len(ranked) <= MAX_DOMINATED
    kept: list[tuple[Key, int]] = []
    by_state: dict[int, list[tuple[Key, int]]] = {}  # the runs kept, by state: the rivals when not across
    for (q1, seen1), c1 in ranked:
        rivals = kept if across else by_state.get(q1, [])
        limit.spend(1 + len(rivals))
        if not any(q2 & ~q1 == 0 and (c2 > c1 or (c2 == c1 and seen2 & seen1 == seen1)) for (q2, seen2), c2 in rivals):
            kept.append(((q1, seen1), c1))
            by_state.setdefault(q1, []).append(((q1, seen1), c1))
    return tuple(sorted(kept))


def _minimised(raw: list[list[tuple[Any, Any, int]]]) -> list[list[tuple[Any, Any, int]]]:
    """The machine with its equivalent states merged (Moore's partition refinement: two states
    are one when every letter read makes both write the same and go to equivalent states),
    states renumbered from the initial one in the order they are reached."""
    classes = [0] * len(raw)
    while True:
        signatures: dict[Any, int] = {}
        fresh = []
        for s, ts in enumerate(raw):
            merged: dict[tuple[Any, int], Any] = {}
            for guard, letter, target in ts:
                key = (letter, classes[target])
                merged[key] = merged[key] | guard if key in merged else guard
            signature = (classes[s], frozenset(merged.items()))
            fresh.append(signatures.setdefault(signature, len(signatures)))
        if len(signatures) == len(set(classes)):
            break
        classes = fresh
    number: dict[int, int] = {classes[0]: 0}
    order = [0]
    out: list[list[tuple[Any, Any, int]]] = []
    for s in order:  # one representative a class, reached from the initial state
        merged = {}
        for guard, letter, target in raw[s]:
            if classes[target] not in number:
                number[classes[target]] = len(order)
                order.append(target)
            key = (letter, number[classes[target]])
            merged[key] = merged[key] | guard if key in merged else guard
        out.append([(guard, letter, target) for (letter, target), guard in merged.items()])
    return out
