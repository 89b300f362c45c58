"""Realizability: can a system, writing the outputs, make φ hold whatever the environment
writes on the inputs?

    realize(formula, inputs, outputs=None, moore=False, budget=None)
        -> Realizable(controller, play) | Unrealizable(counter_strategy, play) | Unknown(reason)

Each verdict carries its proof, checked by the engine and not by the game that found it: a
controller (the system's strategy) when no closed loop of it violates φ, a counter-strategy
(the environment's: inputs that defeat every system) when no closed loop of it satisfies φ
(`verify`: the loop's product with the engine's automaton of ¬φ, or φ, proved empty; with past
operators `closed_loop(machine) ∧ ¬φ` proved unsatisfiable). A strategy the engine does not
confirm within the budget gives Unknown; one it refutes is a bug (`StrategyRejected`), never
an answer. Under Mealy semantics
(the default, as at SYNTCOMP) the system sees the current inputs; under Moore semantics it
writes before reading them.

The games (`counting`) grow their bound K = 0, 1, 2, ... for both players side by side, in
turns of time, the one that has had least going next, so realizable and unrealizable
specifications both end with a proof, each as soon as its winner's game allows; beside them
the environment plays against φ's safety guarantees alone (`safety_part`), often a far
smaller game; where φ has GR(1) shape, its GR(1) game (`gr1`) is solved first and its
controller written out if they have not answered in their first turns. LTLf is a
reachability game, over a symbolic DFA where formula progression's states are cubes (`dfa`:
SYNTCOMP's LTLf games, invariants from one instant to the next) or over progression's states
one by one (`progression`). Future-time LTL on infinite
traces, finite ones (LTLf) and past operators (`monitors`); over data atoms, φ that reads no
input (`_unopposed`) or whose atoms a finite abstraction reads exactly (`theory`), else Unknown
saying so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, Union

from ltlwit.logic.budget import Budget, HardLimit, Limit, OutOfBudget
from ltlwit.logic.formula import (
    PAST,
    TEMPORAL,
    TRUE,
    WEAK_NEXT,
    And,
    Formula,
    Not,
    Or,
    ap,
    binop,
    collector_paused,
    postorder,
    unop,
)
from ltlwit.logic.ltl.games.machine import Machine, Transition, closed_loop, play, total
from ltlwit.logic.result import Sat, Unknown, Unsat, WitnessRejected
from ltlwit.logic.trace import Trace

if TYPE_CHECKING:
    from ltlwit.logic.ltl.games.aiger import Circuit
    from ltlwit.logic.ltl.games.counting import Arena
    from ltlwit.logic.ltl.games.gr1 import Ranking
    from ltlwit.logic.ltl.games.monitors import Monitors
    from ltlwit.logic.theory.sorts import Declarations

__all__ = [
    "Machine",
    "Realizable",
    "StrategyRejected",
    "Unrealizable",
    "as_played",
    "players",
    "realize",
    "safety_part",
    "verify",
]

#: the largest bound tried before answering Unknown (a bound that high is a blow-up anyway)
MAX_BOUND = 64


@dataclass(frozen=True)
class Realizable:
    """A controller the engine has verified (a machine, or a circuit where the machine would
    have too many states to list), and its play against inputs that stay false."""

    controller: Machine | Circuit
    play: Trace
    bound: int


@dataclass(frozen=True)
class Unrealizable:
    """A counter-strategy the engine has verified, and its play against outputs that stay
    false (one concrete run in which φ fails)."""

    counter_strategy: Machine
    play: Trace
    bound: int


Verdict = Union[Realizable, Unrealizable, Unknown]


class StrategyRejected(WitnessRejected):
    """A strategy the game found and the engine refutes: a bug in ltlwit."""


def players(
    formula: Formula, inputs: Sequence[str], outputs: Sequence[str] | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The inputs and outputs of `formula`, those it mentions (its propositions and data
    variables): every one not an input is an output unless `outputs` is given, in which case
    every one must be named (ValueError naming the first that is not, or one named both)."""
    ins = tuple(dict.fromkeys(inputs))
    both = next((a for a in ins if outputs is not None and a in outputs), None)
    if both is not None:
        raise ValueError(f"{both} is named both an input and an output")
    aps = _variables(formula)
    if outputs is None:
        outs = tuple(a for a in aps if a not in ins)
    else:
        outs = tuple(dict.fromkeys(outputs))
        stray = next((a for a in aps if a not in ins and a not in outs), None)
        if stray is not None:
            raise ValueError(f"{stray} is neither an input nor an output")
    return tuple(a for a in ins if a in aps), tuple(a for a in outs if a in aps)


def realize(
    formula: Formula,
    inputs: Sequence[str],
    outputs: Sequence[str] | None = None,
    moore: bool = False,
    budget: Budget | None = None,
    semantics: str = "infinite",
    progression: bool = True,
    gr1: bool = True,
    small: bool = True,
    declarations: Declarations | None = None,
    engine: str = "auto",
) -> Verdict:
    """Realizable or Unrealizable with a verified strategy, or Unknown with the reason.

    Under finite semantics (LTLf synthesis, as De Giacomo and Vardi define it and SYNTCOMP's
    LTLf track plays it) the system also decides when the trace ends, and wins when the
    finite trace satisfies φ: the game is played on the engine's own translation of LTLf
    (`finite.guarded`: φ over an `alive` proposition, alive at first and dead from some
    instant on), `alive` one more output, which the strategies then write. The winner is found
    by the reachability games over the symbolic DFA or formula progression (`_finite_game`;
    `progression` False: by the counting games on the translation, which the tests compare),
    its strategy checked on the translation.
    A GR(1)-shaped φ (`gr1.shape`) is first solved as a GR(1) game (`gr1`; False: not, which
    the tests compare), whose controller is checked on the closed loop (`verify`'s `gr1`).
    `small`: where the system wins that game, the counting games still have their first turns
    (`COUNTING_FIRST`) for a controller small enough to read; False where the verdict alone is
    wanted (the cores' questions).
    Over data atoms (`declarations`: their sorts), under infinite semantics: φ that reads no
    input exactly (the system alone chooses the whole run: `_unopposed`), else by a finite
    abstraction where one is exact (`theory.separable`).
    `engine`: auto (= builtin), builtin, or spot: Spot's ltlsynt asked instead, its answer
    checked (`ltlsynt`); ValueError for another."""
    from ltlwit.logic.ltl import _backend

    ins, outs = players(formula, inputs, outputs)
    if _backend(engine) == "spot":
        from ltlwit.logic.ltl.games import ltlsynt

        return ltlsynt.realize(formula, ins, outs, moore, budget, semantics)
    if formula.data:
        if semantics != "infinite":
            return Unknown("realizability over data atoms is decided under infinite semantics only, for now")
        if ins:
            from ltlwit.logic.ltl.games.theory import separable

            return separable(formula, ins, outs, moore, budget, declarations, realize)
        return _unopposed(formula, outs, budget, declarations)
    from ltlwit.logic.ltl.games.counting import Arena
    from ltlwit.logic.ltl.games.monitors import pure_past

    written = formula
    if formula.past and not pure_past(formula):
        return Unknown("realizability with future operators inside past ones is not decided yet")
    exact = as_played(formula, semantics, monitor=False)  # a controller's check: past operators as written
    formula = as_played(formula, semantics)
    added = tuple(a for a in formula.aps() if a not in written.aps())
    outs = (*outs, *added)  # the end of a finite trace, the past operators' monitors
    monitors = watched(exact)
    alive = next((ap(a) for a in added if not a.startswith("_")), None)

    limit = Limit(budget)
    try:
        arena = Arena(ins, outs, moore, formula.aps())
        if alive is not None and not written.past and progression:  # LTLf: reachability games
            with collector_paused():  # (`_counted` says why)
                found = _finite_game(ins, outs, moore, written, formula.aps(), alive.name or "", limit)
                verdict = _proved(exact, formula, monitors, found, 0, limit) if found is not None else None
            if found is not None:
                if isinstance(verdict, Realizable):
                    return _finite_play(verdict, written, alive)
                if verdict is not None:
                    return verdict
                return Unknown(f"the {_strategy(found)} found was not verified within the budget")
        constant = None if formula.past else _constant_counter(formula, arena, ins, outs, limit)
        if constant is not None:
            verdict = _proved(exact, formula, monitors, constant, 0, limit)
            if verdict is not None:
                return verdict
        plain = gr1 and not moore and not written.past and alive is None  # GR(1): the game, first
        winning = _gr1_solved(formula, ins, outs, limit) if plain else None
        try:
            return _counted(exact, formula, written, monitors, alive, arena, winning, limit, small)
        finally:
            if winning is not None:
                winning.close()
    except HardLimit as e:
        return Unknown(str(e))
    except OutOfBudget as e:
        return Unknown(str(e))


def _variables(formula: Formula) -> tuple[str, ...]:
    """The propositions and data variables `formula` reads, in order (not its functions: rigid,
    no player's to write)."""
    out = dict.fromkeys(formula.aps())
    if formula.data:
        for node in postorder(formula):
            if node.term is not None:
                out.update(dict.fromkeys(node.term.variables()))
    return tuple(out)


def _unopposed(
    formula: Formula, outs: tuple[str, ...], budget: Budget | None, declarations: Declarations | None
) -> Verdict:
    """Realizability of φ over data where the environment has no say (φ reads no input):
    exactly φ's satisfiability, decided by the engine modulo its theories. A witness run is
    the controller, a machine that writes it step by step (its one play, checked by the
    engine); no run at all (Unsat) leaves the environment a counter-strategy that does
    nothing, its play any run, which violates φ (checked too)."""
    from ltlwit.logic.ltl import holds, solve

    found = solve(formula, budget, declarations=declarations)
    if isinstance(found, Sat) and isinstance(found.witness, Trace):
        run = found.witness
        if not holds(formula, run, declarations=declarations):
            raise StrategyRejected(f"the run {run} written as a controller for {formula} failed its check")
        steps = run.steps
        states = tuple(
            (Transition(TRUE, step, k + 1 if k + 1 < len(steps) else len(run.prefix)),) for k, step in enumerate(steps)
        )
        return Realizable(Machine("system", (), outs, False, states), run, 0)
    if isinstance(found, Unsat):
        other = solve(Not(formula), budget, declarations=declarations)
        if isinstance(other, Sat) and isinstance(other.witness, Trace):
            if holds(formula, other.witness, declarations=declarations):
                raise StrategyRejected(f"the play {other.witness} of an unsatisfiable {formula} satisfies it")
            idle = Machine("environment", outs, (), True, ((Transition(TRUE, TRUE, 0),),))
            return Unrealizable(idle, other.witness, 0)
        return Unknown(f"no run satisfies the requirements, but none violating them was found: {_why(other)}")
    return Unknown(_why(found))


def _why(found: Any) -> str:
    return found.reason if isinstance(found, Unknown) else "the engine gave no run"


def _finite_game(
    ins: tuple[str, ...],
    outs: tuple[str, ...],
    moore: bool,
    written: Formula,
    order: Sequence[str],
    alive: str,
    limit: Limit,
) -> Machine | None:
    """The winner's strategy in φ's LTLf reachability game: over its symbolic DFA where
    progression's states are cubes (`dfa`), else over progression's states one by one
    (`progression`); None where neither plays φ (the counting games then do), each game in a
    BDD manager of its own."""
    from ltlwit.logic.ltl.games.counting import Arena
    from ltlwit.logic.ltl.games.dfa import DfaGame, NotCubes
    from ltlwit.logic.ltl.games.progression import ProgressionGame, TooLarge

    for game in (DfaGame, ProgressionGame):
        try:
            return game(Arena(ins, outs, moore, order), written, alive, limit).solve()
        except (NotCubes, TooLarge):
            continue
    return None


#: Where the system wins φ's GR(1) game, the counting games go first for this long (seconds, at
#: most, and the share of the budget left): a small controller of theirs is found in a second
#: where the GR(1) strategy, written out position by position, has thousands of states
#: (amba_decomposed_encode_pb_8: 4,098, 7 s to check; theirs: 0.3 s in all).
COUNTING_FIRST, COUNTING_SHARE = 2.0, 0.2


def _counted(
    exact: Formula,
    formula: Formula,
    written: Formula,
    monitors: dict,
    alive: Formula | None,
    arena: Arena,
    winning: Any,
    limit: Limit,
    small: bool = True,
) -> Verdict:
    """The counting games, in turns; where the system won the GR(1) game (`winning`), its
    strategy written out and checked once they have had their first turns (`COUNTING_FIRST`;
    at once where not `small`)."""
    import contextlib
    import time

    from ltlwit.logic.ltl.games.counting import CountingGame

    # an environment that breaks the safety guarantees breaks φ: often far the smallest game
    weak = safety_part(formula)
    games = [CountingGame(arena, "environment", Not(weak), limit)] if weak is not None else []
    games += [
        CountingGame(arena, "system", formula, limit),
        CountingGame(arena, "environment", Not(formula), limit),
    ]
    searches = {k: game.search(MAX_BOUND) for k, game in enumerate(games)}
    gr1_at = time.perf_counter() + (min(COUNTING_FIRST, COUNTING_SHARE * limit.remaining()) if small else 0.0)
    while searches or winning is not None:
        if winning is not None and (not searches or time.perf_counter() >= gr1_at):
            verdict = _gr1(exact, winning, limit)
            winning = None
            if verdict is not None:
                return verdict
            continue
        # the game that has had least time goes next: the cheaper proof is not held back
        k = min(searches, key=lambda k: (games[k].spent, k))
        # Python's cyclic collector off while a game builds positions (freed by reference
        # counting): its full collections over them took 5.7 of AllShades' 12.9 s, and held
        # the deadline 2.3 s past --timeout (`formula.collector_paused`). Not beside a GR(1)
        # strategy still to be written: the games' turns before it, faster, grew gr_5's peak
        # memory by half.
        with collector_paused() if winning is None else contextlib.nullcontext():
            step = games[k].turn(searches[k])
        if step is None:
            continue
        if not step:  # no strategy within MAX_BOUND
            del searches[k]
            continue
        bound, machine = step
        # a counter-strategy reads the monitors: it beats the systems that write them right
        with collector_paused():
            verdict = _proved(exact, formula, monitors, machine, bound, limit)
        if isinstance(verdict, Realizable) and alive is not None:
            return _finite_play(verdict, written, alive)
        if verdict is not None:
            return verdict
        return Unknown(f"the {_strategy(machine)} found at bound {bound} was not verified within the budget")
    return Unknown(f"no strategy within bound {MAX_BOUND}")


#: The share of the budget left that the GR(1) game may take, and then writing its strategy out:
#: an environment that wins it gives no counter-strategy, and the counting games need the rest.
GR1_SHARE = 0.5


def _gr1_solved(formula: Formula, ins: tuple[str, ...], outs: tuple[str, ...], limit: Limit) -> Any:
    """The system's winning strategy in φ's GR(1) game (`gr1.solved`), or None: not the shape,
    the environment wins, or the game took its share of the budget."""
    from ltlwit.logic.ltl.games.gr1 import solved

    try:
        return solved(formula, ins, outs, limit.sub(GR1_SHARE * limit.remaining()))
    except OutOfBudget:
        limit.check_time()  # the whole budget's end ends the search; the game's share, the game
        return None


def _gr1(exact: Formula, winning: Any, limit: Limit) -> Verdict | None:
    """The GR(1) strategy written out, as a machine or, past the states a table lists, as a
    circuit, and checked on the closed loop (Unknown when the check runs out of time), or None,
    the counting games to go on: its share of the budget spent listing the machine. The
    circuit may take what is left: the game is won, and a specification whose machine is too
    large to list leaves the counting games no controller to find in time (gr_7's circuit:
    14 to 23 s, then its check)."""
    designed: Machine | Circuit | None
    try:
        designed = winning.machine(limit.sub(GR1_SHARE * limit.remaining()))
        if designed is None:  # too many states to list: the circuit, from the BDDs
            designed = winning.circuit(limit)
    except OutOfBudget:
        limit.check_time()
        return None
    ranking = None if isinstance(designed, Machine) else winning.ranking()
    verdict = _proved(exact, exact, {}, designed, 0, limit, "gr1", ranking)
    return verdict or Unknown(f"the {_strategy(designed)} found was not verified within the budget")


#: Seconds the check of each constant counter-strategy may take, at most, and as a share of
#: what is left of the budget.
CONSTANT_SECONDS, CONSTANT_SHARE = 1.0, 0.05


def _constant_counter(
    formula: Formula, arena: Arena, ins: tuple[str, ...], outs: tuple[str, ...], limit: Limit
) -> Machine | None:
    """An environment writing the same inputs at every instant, all true or all false, where
    one defeats φ (`verify`, within a small budget): before any game is built, since checking
    one costs milliseconds and the games of unrealizable arbiters whose clients all request
    forever do not end (SYNTCOMP's full arbiters, 26 of its shared half)."""
    if not ins:
        return None
    seconds = min(CONSTANT_SECONDS, CONSTANT_SHARE * limit.remaining())
    for value in (True, False):
        letter = And(*(ap(a) if value else Not(ap(a)) for a in ins))
        machine = Machine("environment", outs, ins, arena.first("environment"), ((Transition(TRUE, letter, 0),),))
        if verify(formula, machine, Budget(seconds=seconds)) is True:
            return machine
    return None


def safety_part(formula: Formula) -> Formula | None:
    """φ with the guarantees that are not syntactically safety dropped (conjuncts, also under
    G and X, and the consequents of implications, replaced by true), or None when that leaves
    φ as it was or nothing. φ implies it, so an environment that defeats it defeats φ; and its game is often
    far smaller: `G(r0 & X r1 -> X X X(g0 & g1)) & G!(g0 & g1)` is unrealizable by itself, and
    the liveness guarantees beside it (`G(r0 -> F g0)`) multiply the positions of φ's game."""

    def weak(f: Formula) -> Formula:
        if f.op == "&":
            return And(*(w for w in map(weak, f.children) if w is not TRUE))
        if f.op == "->":
            a, b = f.children
            b2 = weak(b)
            return TRUE if b2 is TRUE else binop("->", a, b2)
        if f.op in ("G", "X") and not _safety(f):  # G(a & b) is G a & G b: TLSF's invariants
            inner = weak(f.children[0])
            return TRUE if inner is TRUE else unop(f.op, inner)
        return f if _safety(f) else TRUE

    part = weak(formula)
    return None if part is TRUE or part is formula else part


def _safety(f: Formula, negated: bool = False) -> bool:
    """Whether `f` (negated: ¬f) is syntactically safety: in negation normal form, only
    X, G, R, W over propositions and past subformulas (which the games read as state)."""
    op = f.op
    if not f.temporal or op in PAST:
        return not any(d.op in TEMPORAL and d.op not in PAST for d in postorder(f))
    if op == "!":
        return _safety(f.children[0], not negated)
    if op in ("&", "|"):
        return all(_safety(c, negated) for c in f.children)
    if op == "->":
        return _safety(f.children[0], not negated) and _safety(f.children[1], negated)
    if op in ("<->", "xor"):
        return all(_safety(c, n) for c in f.children for n in (False, True))
    if op in ("X", WEAK_NEXT):
        return _safety(f.children[0], negated)
    if op in (("G", "R", "W") if not negated else ("F", "U", "M")):
        return all(_safety(c, negated) for c in f.children)
    return False


def as_played(formula: Formula, semantics: str = "infinite", monitor: bool = True) -> Formula:
    """The formula the games play for `formula`: under finite semantics the engine's LTLf
    translation (`finite.guarded`, over one more output, alive), else with weak nexts read as
    X; with `monitor`, past operators replaced by their monitors (`monitors.monitored`)."""
    from ltlwit.logic.ltl.finite import guarded, strong
    from ltlwit.logic.ltl.games.monitors import hoisted, monitored

    if semantics == "finite":
        formula = guarded(formula)[0]
    elif semantics == "infinite":
        formula = strong(formula)  # on infinite traces a weak next is X (TLSF's G[a:b] writes it)
    else:
        raise ValueError(f"unknown semantics {semantics!r}")
    return monitored(hoisted(formula))[0] if monitor and formula.past else formula


def watched(exact: Formula) -> Monitors:
    """The monitors a counter-strategy reads for φ as played (`as_played`), from φ read
    exactly (`as_played` without them)."""
    from ltlwit.logic.ltl.games.monitors import hoisted, monitored

    return monitored(hoisted(exact))[1] if exact.past else {}


def verify(
    formula: Formula,
    machine: Machine | Circuit,
    budget: Budget | None = None,
    method: str = "product",
    ranking: Ranking | None = None,
) -> bool | None:
    """Whether `machine` wins for its player: every closed loop satisfies φ (a controller) or
    violates it (a counter-strategy); None when the budget stops the check. A machine whose
    guards do not cover every letter proves nothing (the loop would forbid the other player's
    letters): False.

    `product` (for future-time φ): the closed loop's product with the engine's automaton of
    what the player must avoid (¬φ, or φ), translated afresh without the translator's
    reductions, explored by Couvreur's emptiness check: an accepting cycle is a play the
    machine loses. `solve`: the closed loop as a formula over fresh state propositions
    (`machine.closed_loop`), conjoined with the negated goal, decided by the engine's
    satisfiability portfolio (past operators too; its SAT searches are slow on large
    machines). `gr1`: for a GR(1)-shaped φ, the closed loop explored against φ's GR(1) reading
    (`gr1.check`), where the product's tableau of hundreds of step constraints is out of reach;
    the reading implies φ but is stricter (the move that breaks an assumption must still keep
    the system's step), so True proves φ and False refutes the reading, not φ (a GR(1) game's
    strategy keeps the reading; another may not: `ltlsynt`);
    a circuit (`aiger.Circuit`), always so, symbolically (`gr1.check_circuit`; `ranking`, a
    circuit's `gr1.Ranking` from the game that wrote it, checked a step at a time in place of
    the fair-cycle search where it holds)."""
    if isinstance(machine, Machine) and not total(machine):
        return False
    if method == "gr1" or not isinstance(machine, Machine):
        from ltlwit.logic.ltl.games.gr1 import check, check_circuit

        try:
            if isinstance(machine, Machine):
                return check(formula, machine, Limit(budget))
            return check_circuit(formula, machine, Limit(budget), ranking)
        except OutOfBudget:
            return None
    goal = formula if machine.player == "environment" else Not(formula)
    if method == "solve" or formula.past:
        from ltlwit.logic.ltl import solve

        verdict = solve(And(closed_loop(machine, set(formula.aps())), goal), budget)
        return True if isinstance(verdict, Unsat) else False if isinstance(verdict, Sat) else None
    return _product_empty(goal, machine, Limit(budget))


def _product_empty(goal: Formula, machine: Machine, limit: Limit) -> bool | None:
    """Whether no closed loop of `machine` satisfies `goal`: no play of it satisfies any of the
    conjunctions `goal` is a disjunction of at its top (`_cases`), each asked lazily
    (`_no_play`), starting from what the cases before it needed that it has. None when the
    budget stops it."""
    from ltlwit.logic.ltl.encoding.labels import Bdds
    from ltlwit.logic.ltl.encoding.rewrite import simplify

    try:
        cases = _fewest(_cases(simplify(goal, limit), limit))
        names = tuple(dict.fromkeys((*machine.reads, *machine.writes, *(a for c in cases for f in c for a in f.aps()))))
        L = Bdds(names)
        moves = _moves(machine, L)  # once for every case: a 2,049-state counter's took 4 s a time
        try:
            asked: list[Formula] = []  # what earlier cases needed: a case sharing it starts from it
            plays: dict[tuple[Formula, ...], Trace | None] = {}  # the cases' questions, asked once
            for case in cases:
                verdict = _no_play(case, moves, L, limit, [f for f in asked if f in case], plays)
                if not isinstance(verdict, list):
                    return verdict
                asked += [f for f in verdict if f not in asked]
            return True
        finally:  # CUDD's nodes go before their manager
            moves.clear()
    except OutOfBudget:
        return None


def _moves(machine: Machine, L: Any) -> list[list[tuple[Any, int]]]:
    """Each state's letters by target, as `L`'s BDDs: one product edge per target."""
    moves = []
    for ts in machine.states:
        to: dict[int, Any] = {}
        for t in ts:
            letters = L.of(t.guard) & L.of(t.write)
            to[t.target] = to[t.target] | letters if t.target in to else letters
        moves.append([(letters, target) for target, letters in to.items()])
    return moves


def _fewest(cases: list[list[Formula]]) -> list[list[Formula]]:
    """The cases without repeats and without those that hold every conjunct of another (no
    play satisfies them where none satisfies that one), in their order."""
    sets = [frozenset(c) for c in cases]
    return [
        list(dict.fromkeys(c))
        for i, c in enumerate(cases)
        if not any(o < sets[i] or o == sets[i] and j < i for j, o in enumerate(sets))
    ]


#: At most this many conjunctions `_cases` splits a goal into (a conjunction of disjunctions
#: multiplies them); past it, a part is kept whole.
MAX_CASES = 256


def _cases(f: Formula, limit: Limit) -> list[list[Formula]]:
    """`f` (simplified: in negation normal form) as a disjunction of conjunctions, split at its
    top only (`|`, `F` over `|`; `&`, `G` over `&`; `<->` and `xor` as two cases, each
    simplified again): each conjunction a list of its conjuncts. A controller's goal ¬(A ->
    G(g1 & g2)), `A & F(!g1 | !g2)`, is (A & F!g1) | (A & F!g2); a counter-strategy's,
    `G(g1 & g2) | F(!a1 | !a2)`, is F!a1 | F!a2 | (G g1 & G g2). Chains are flattened
    iteratively (a TLSF file's 1,225 invariants are one `&` chain); only an alternation of `|`
    and `&` recurses."""
    from ltlwit.logic.ltl.encoding.rewrite import simplify

    out: list[list[Formula]] = []
    for d in _flat(f, "|", "F"):
        if not d.temporal:  # the first instant's: no play of the machine is spared by splitting it
            out.append([d])
            continue
        if d.op in ("<->", "xor"):
            a, b = d.children
            halves = (And(a, b), And(Not(a), Not(b))) if d.op == "<->" else (And(a, Not(b)), And(Not(a), b))
            out += [case for half in halves for case in _cases(simplify(half, limit), limit)]
            continue
        product: list[list[Formula]] = [[]]
        for c in _flat(d, "&", "G"):
            split = (
                _cases(c, limit) if c.op in ("|", "<->", "xor") or c.op == "F" and c.children[0].op == "|" else [[c]]
            )
            if len(product) * len(split) > MAX_CASES:
                split = [[c]]
            product = [p + q for p in product for q in split]
        out += product
    return out


def _flat(f: Formula, op: str, over: str) -> list[Formula]:
    """The operands of `f`'s chain of `op` (`|` or `&`), `over` (`F` or `G`) distributed over
    it (`F(a | b)` as `F a`, `F b`), left to right; a chain's operands without temporal
    operators kept together, one operand. `G(a & b)` as `G a`, `G b` (the simplifier joins
    them): each an obligation of the translator's own, so that the machine's letters prune each
    one's terms before the product of those asked (a counter-strategy requesting everything
    leaves a 16-client arbiter's 120 request-pair invariants one term each)."""
    out, stack = [], [f]
    while stack:
        g = stack.pop()
        if g.op == op and g.temporal:
            stack.extend(reversed(g.children))
        elif g.op == over and g.children[0].op == op:
            stack.extend(unop(over, c) for c in reversed(g.children[0].children))
        else:
            out.append(g)
    plain = [g for g in out if not g.temporal]
    if len(plain) < 2:
        return out
    joined = (And if op == "&" else Or)(*plain)
    return [joined, *(g for g in out if g.temporal)]


def _no_play(
    case: list[Formula],
    moves: list,
    L: Any,
    limit: Limit,
    start: list[Formula],
    plays: dict[tuple[Formula, ...], Trace | None],
) -> list[Formula] | bool | None:
    """Whether no play of the machine (`moves`: `_moves`) satisfies every formula of `case`,
    asked of a few of them at a time: a play of the machine's product with the engine's
    automaton of those asked so far (translated afresh, without the translator's reductions,
    explored by Couvreur's emptiness check) is a concrete lasso, checked against the others;
    the first it violates is asked too. No such play: none satisfies the case (it implies what
    was asked): the formulas asked, from `start` on. A play that satisfies every formula: the
    machine loses (False). A counter-strategy that requests everything defeats an arbiter by
    two of its 120 guarantees; the product of all of them was out of reach. `plays`: the
    lassos found so far, by the formulas asked: every case starting from nothing asks for any
    play first (a 16,386-state controller's took 0.5 s, for each of its 30 cases)."""
    from ltlwit.logic.ltl import holds

    asked = list(start)
    while True:
        key = tuple(asked)
        if key not in plays:
            plays[key] = _play(And(*asked), moves, L, limit)
        found = plays[key]
        if found is None:
            return asked
        missed = next((f for f in case if f not in asked and not holds(f, found)), None)
        if missed is None:
            return False
        asked.append(missed)


def _play(formula: Formula, moves: list, L: Any, limit: Limit) -> Trace | None:
    """A lasso the machine (`moves`: each state's letters, as `L`'s BDDs, and targets) can play
    that satisfies `formula`, every step a full valuation of `L`'s names; None when there is none."""
    from ltlwit.logic.ltl.encoding.expand import Translator
    from ltlwit.logic.ltl.searches.emptiness import accepting_cycle, accepting_scc, shortest_path

    automaton = Translator(formula, L, optimise=False, limit=limit)

    def successors(state: tuple[int, int]) -> list[tuple[Any, tuple[int, int], int]]:
        m, q = state
        return [
            (label, (target, q2), marks)
            for letters, target in moves[m]
            for label, q2, marks in automaton.edges_within(q, letters, limit)
        ]

    start = (0, automaton.initial)
    scc, explored = accepting_scc(start, successors, automaton.all_marks, limit)
    if scc is None:
        return None
    prefix = shortest_path(start, scc.__contains__, successors, explored.__contains__, limit=limit)
    cycle = accepting_cycle(prefix[-1][1] if prefix else start, scc, successors, automaton.all_marks, limit)
    steps = [L.to_formula(L.minterm(edge[0])) for edge in (*prefix, *cycle)]
    return Trace(tuple(steps[: len(prefix)]), tuple(steps[len(prefix) :]))


def _proved(
    exact: Formula,
    played: Formula,
    monitors: dict,
    machine: Machine | Circuit,
    bound: int,
    limit: Limit,
    method: str = "product",
    ranking: Ranking | None = None,
) -> Verdict | None:
    """The verdict `machine` proves, checked by the engine: a controller against the formula
    as written (`exact`), a counter-strategy, which reads the past operators' monitors, against
    the formula with the monitors' definitions (`played`); its play, against a system that
    writes the monitors right, must violate `exact` too (`ranking`: see `verify`). None when
    the budget stops the check."""
    system = machine.player == "system"
    verified = verify(exact if system else played, machine, limit.left(), method, ranking)
    if verified is None:
        return None
    return _played(exact, monitors, machine, bound, verified, limit)


def _played(
    exact: Formula, monitors: dict, machine: Machine | Circuit, bound: int, verified: bool, limit: Limit
) -> Verdict | None:
    """`_proved`'s verdict once its check has answered (`verified`), with the strategy's play,
    which must satisfy `exact` (a controller's) or violate it (a counter-strategy's); None when
    the budget stops the play."""
    from ltlwit.logic.ltl import holds

    system = machine.player == "system"
    try:
        game = play(machine, None if system else monitors) if isinstance(machine, Machine) else machine.play(limit)
    except OutOfBudget:
        return None
    if not verified or not holds(exact if system else Not(exact), game):
        raise StrategyRejected(f"the {_strategy(machine)} found for {exact} failed its check")
    if isinstance(machine, Machine) and not system:
        return Unrealizable(machine, game, bound)
    return Realizable(machine, game, bound)


def _finite_play(verdict: Realizable, formula: Formula, alive: Formula) -> Realizable:
    """The controller's play as the finite trace it stands for (the instants where `alive`
    holds), checked on the formula as written under finite semantics."""
    from ltlwit.logic.ltl import holds
    from ltlwit.logic.ltl.finite import finite_part

    trace = finite_part(verdict.play, alive)
    if trace is None or not holds(formula, trace):
        raise StrategyRejected(f"the controller's play {verdict.play} does not end in a trace of {formula}")
    return Realizable(verdict.controller, trace, verdict.bound)


def _strategy(machine: Machine | Circuit) -> str:
    return "controller" if machine.player == "system" else "counter-strategy"
