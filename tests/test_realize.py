"""Realizability (`ltlwit.logic.ltl.games`): verdicts on specifications whose answer is known by
argument, and every strategy the games produce judged by the textbook oracle
(`ltl_reference.satisfies`, which shares nothing with the engine) against every short lasso
the other player can write, the strategy's moves simulated here."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_reference import lassos, prop_value, satisfies
from strategies import formulas

from ltlwit.logic.budget import Budget
from ltlwit.logic.formula import PAST, TEMPORAL, And, Formula, Not, Or, ap, binop, postorder, unop
from ltlwit.logic.ltl.games import Realizable, Unrealizable, players, realize, safety_part, verify
from ltlwit.logic.ltl.games.machine import Machine, Transition, closed_loop, letter_of, total
from ltlwit.logic.ltl.games.monitors import monitored
from ltlwit.logic.result import Unknown
from ltlwit.logic.syntax import parse_formula as parse
from ltlwit.logic.theory.sorts import Declarations, parse_declaration

P = parse
LASSOS = lassos(2, 2, ("a", "b"))

#: (formula, inputs, Mealy verdict, Moore verdict), each argued in its comment
KNOWN = [
    # a response the system gives at once
    ("G(req -> F grant)", ["req"], True, True),
    # the client that requests forever is never granted
    ("G(req -> F grant) & G(grant -> !req)", ["req"], False, False),
    # copying the current input needs to see it: Mealy only
    ("G(b <-> a)", ["a"], True, False),
    # copying the previous input: a one-bit memory, both
    ("G(a <-> X b)", ["a"], True, True),
    # predicting the next input: neither
    ("G(b <-> X a)", ["a"], False, False),
    # the environment alone decides F a
    ("F a", ["a"], False, False),
    # the system may answer G F a with G F b, whatever a does
    ("G F a -> G F b", ["a"], True, True),
    # two clients, one grant at a time: round robin
    ("G(r1 -> F g1) & G(r2 -> F g2) & G!(g1 & g2)", ["r1", "r2"], True, True),
    # a grant two steps after each request, never two grants in a row: requests in a row
    # demand grants in a row
    ("G(r -> X X g) & G(!g | !X g)", ["r"], False, False),
    # only outputs: realizable iff satisfiable
    ("G F b & F G !b", [], False, False),
    ("G(b -> X !b) & G F b", [], True, True),
    # past operators: echoing yesterday's input needs no sight of today's; once and
    # historically do
    ("G(b <-> Y a)", ["a"], True, True),
    ("G(b <-> O a)", ["a"], True, False),
    ("G(b <-> H a)", ["a"], True, False),
    # a grant only after some request, and grants forever: a may never come
    ("G(b -> O a) & G F b", ["a"], False, False),
    # requests in a row demand two grants at once two steps later: the safety guarantees
    # alone are unrealizable (the game of `safety_part`), whatever the liveness beside them
    (
        "G F !m -> G(r0 & X r1 -> X X(g0 & g1)) & G!(g0 & g1) & G(r0 -> F g0) & G(m -> X !g0 U g1)",
        ["r0", "r1", "m"],
        False,
        False,
    ),
]


@pytest.mark.parametrize("text, inputs, mealy, moore", KNOWN)
def test_known_verdicts_with_strategies_the_oracle_accepts(
    text: str, inputs: list[str], mealy: bool, moore: bool
) -> None:
    f = P(text)
    for is_moore, expected in ((False, mealy), (True, moore)):
        verdict = realize(f, inputs, moore=is_moore, budget=Budget(seconds=60))
        assert isinstance(verdict, Realizable if expected else Unrealizable), (text, is_moore, verdict)
        machine = verdict.controller if isinstance(verdict, Realizable) else verdict.counter_strategy
        assert machine.moore == (is_moore if machine.player == "system" else not is_moore)
        assert total(machine)
        assert _wins_every_short_play(f, machine)
        assert satisfies(f, *_letters(verdict.play)) == expected


def _letters(trace) -> tuple[list[dict[str, bool]], list[dict[str, bool]]]:
    return [letter_of(s) for s in trace.prefix], [letter_of(s) for s in trace.cycle]


def _simulate(machine: Machine, prefix: list[dict], cycle: list[dict]) -> tuple[list[dict], list[dict]]:
    """The word the machine makes against the other player's lasso, as a lasso (it closes when
    a machine state meets the same position of the other's cycle again)."""
    word: list[dict] = []
    seen: dict[tuple[int, int], int] = {}
    state, i = 0, 0
    while True:
        position = i if i < len(prefix) else len(prefix) + (i - len(prefix)) % len(cycle)
        if i >= len(prefix):
            key = (state, position)
            if key in seen:
                start = seen[key]
                return word[:start], word[start:]
            seen[key] = len(word)
        read = prefix[position] if position < len(prefix) else cycle[position - len(prefix)]
        moves = [t for t in machine.states[state] if prop_value(t.guard, read)]
        assert len(moves) == 1, "exactly one transition per letter"
        written = {name: prop_value(ap(name), letter_of(moves[0].write)) for name in machine.writes}
        word.append(read | written)
        state, i = moves[0].target, i + 1


def _wins_every_short_play(f: Formula, machine: Machine) -> bool:
    """Every play against a short lasso of the other's letters satisfies f (a controller) or
    violates it (a counter-strategy; with past operators, violates f's definitions of its
    monitors or f, since it reads the monitors too)."""
    goal = machine.player == "system"
    if not goal and f.past:
        f = monitored(f)[0]
    return all(satisfies(f, *_simulate(machine, p, c)) == goal for p, c in lassos(2, 2, machine.reads))


@pytest.mark.parametrize("method", ["product", "solve"])
def test_a_wrong_controller_is_refuted_and_a_partial_one_proves_nothing(method: str) -> None:
    f = P("G(req -> F grant)")
    never = Machine("system", ("req",), ("grant",), False, ((Transition(P("1"), P("!grant"), 0),),))
    assert verify(f, never, method=method) is False
    # the loop of a machine that answers only !req would forbid req: its Unsat proves nothing
    partial = Machine("system", ("req",), ("grant",), False, ((Transition(P("!req"), P("!grant"), 0),),))
    assert not total(partial)
    assert verify(f, partial, method=method) is False
    right = Machine("system", ("req",), ("grant",), False, ((Transition(P("1"), P("grant"), 0),),))
    assert verify(f, right, method=method) is True
    # the environment's: a request forever defeats a system that must not grant while asked
    g = P("G(req -> F grant) & G(grant -> !req)")
    forever = Machine("environment", ("grant",), ("req",), True, ((Transition(P("1"), P("req"), 0),),))
    assert verify(g, forever, method=method) is True
    assert verify(f, forever, method=method) is False


@st.composite
def machines(draw: st.DrawFn) -> Machine:
    """A random total Mealy machine of one to three states, for either player, over a, b."""
    player = draw(st.sampled_from(["system", "environment"]))
    reads, writes = (("a",), ("b",)) if player == "system" else (("b",), ("a",))
    n = draw(st.integers(1, 3))
    cube = st.sampled_from([writes[0], f"!{writes[0]}"])
    states = tuple(
        tuple(Transition(P(guard), P(draw(cube)), draw(st.integers(0, n - 1))) for guard in (reads[0], f"!{reads[0]}"))
        for _ in range(n)
    )
    return Machine(player, reads, writes, False, states)


@settings(max_examples=150, deadline=None)
@given(
    machines(),
    st.lists(formulas(("a", "b"), max_leaves=4, constants=False), min_size=1, max_size=4),
    st.sampled_from(["&", "->", "|", "F", "G"]),
    st.booleans(),
)
def test_the_lazy_product_check_agrees_with_the_closed_loop_solved(
    machine: Machine, parts: list, op: str, negated: bool
) -> None:
    """The product check asks a goal's conjunctions a few conjuncts at a time (`games._cases`,
    `_no_play`); deciding the closed loop with the goal whole must say the same."""
    if op in ("F", "G"):  # F over a disjunction, G over a conjunction
        f = unop(op, Or(*parts) if op == "F" else And(*parts))
    else:
        f = And(*parts) if op == "&" else binop(op, parts[0], And(*parts[1:])) if len(parts) > 1 else parts[0]
    f = Not(f) if negated else f
    budget = Budget(seconds=30)
    assert verify(f, machine, budget=budget) is verify(f, machine, method="solve", budget=budget), str(f)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(formulas(("a", "b"), max_leaves=4), min_size=1, max_size=3),
    st.sampled_from(["&", "|", "F", "G", "<->", "xor"]),
)
def test_a_goal_is_the_disjunction_of_its_cases(parts: list, op: str) -> None:
    from ltlwit.logic.budget import Limit
    from ltlwit.logic.ltl.encoding.rewrite import simplify
    from ltlwit.logic.ltl.games import _cases, _fewest

    f = unop(op, Or(*parts) if op == "F" else And(*parts)) if op in ("F", "G") else binop(op, parts[0], Or(*parts))
    cases = _fewest(_cases(simplify(f), Limit(None)))  # (without those that hold another's conjuncts)
    assert all(satisfies(f, p, c) == any(all(satisfies(g, p, c) for g in case) for case in cases) for p, c in LASSOS)


def test_an_environment_writing_the_same_inputs_forever_is_tried_first() -> None:
    """Clients that all request forever defeat an arbiter that must answer every request and
    never grant while two are asked: a one-state counter-strategy, found before any game and
    winning every short play by the oracle; a realizable arbiter has none."""
    from ltlwit.logic.budget import Limit
    from ltlwit.logic.ltl.games import _constant_counter
    from ltlwit.logic.ltl.games.counting import Arena

    clients = range(4)
    pairs = " & ".join(f"G(r{i} & r{j} -> G !g)" for i in clients for j in clients if i < j)
    spec = P(f"(({' & '.join(f'G F r{i}' for i in clients)}) <-> G F g) & {pairs}")
    ins = tuple(f"r{i}" for i in clients)
    machine = _constant_counter(spec, Arena(ins, ("g",), False, spec.aps()), ins, ("g",), Limit(None))
    assert machine is not None and machine.size == 1 and _wins_every_short_play(spec, machine)
    verdict = realize(spec, list(ins), budget=Budget(seconds=30))
    assert isinstance(verdict, Unrealizable) and verdict.counter_strategy == machine
    fair = P("G(r0 -> F g0) & G(r1 -> F g1) & G !(g0 & g1)")
    arena = Arena(("r0", "r1"), ("g0", "g1"), False, fair.aps())
    assert _constant_counter(fair, arena, ("r0", "r1"), ("g0", "g1"), Limit(None)) is None


def test_the_safety_part_keeps_the_safety_guarantees() -> None:
    assert safety_part(P("a -> G b & G F c")) == P("a -> G b")
    assert safety_part(P("(G F a -> G b) & (c U d) & !(e U f)")) == P("(G F a -> G b) & !(e U f)")
    assert safety_part(P("H a -> G(b -> F c) & G(Y b -> c)")) == P("H a -> G(Y b -> c)")
    assert safety_part(P("G(a <-> X b) & G F c")) == P("G(a <-> X b)")
    assert safety_part(P("G((a -> F b) & !(b & c)) & X(c R a & F a)")) == P("G!(b & c) & X(c R a)")
    # all safety, or none: nothing to weaken
    assert safety_part(P("G a & X b")) is None
    assert safety_part(P("G F a -> F b")) is None


PARTS = formulas(("a", "b"), max_leaves=4, constants=False, past=True)


@settings(max_examples=100, deadline=None)
@given(PARTS, PARTS, PARTS)
def test_the_safety_part_is_implied_and_a_safety_property(a: Formula, b: Formula, c: Formula) -> None:
    """φ implies its safety part (so a counter-strategy to the part defeats φ); and without
    assumptions (no implication whose premise reads the future: `G a -> b` is one, kept whole
    as TLSF's `A -> G` is) the part is a safety property: a lasso that violates it has a prefix
    that no continuation repairs (on a lasso, the violation shows within the prefix and
    size + 1 turns of the cycle)."""
    f = binop("->", a, And(b, c))  # assumptions -> guarantees, as specifications are written
    part = safety_part(f)
    for prefix, cycle in LASSOS if part is not None else ():
        if satisfies(f, prefix, cycle):
            assert satisfies(part, prefix, cycle), (f, part, prefix, cycle)
    guarantees = And(b, c)
    if any(d.op == "->" and _reads_the_future(d.children[0]) for d in postorder(guarantees)):
        return
    part = safety_part(guarantees)
    violated = [(p, c) for p, c in LASSOS if part is not None and not satisfies(part, p, c)]
    for prefix, cycle in violated[:4]:
        bad = prefix + cycle * (part.size + 1)
        for more, again in lassos(0, 2, ("a", "b")):
            assert not satisfies(part, bad + more, again), (part, prefix, cycle, again)


def _reads_the_future(f: Formula) -> bool:
    return any(d.op in TEMPORAL and d.op not in PAST for d in postorder(f))


def test_the_closed_loop_names_its_states_apart_from_the_specification() -> None:
    m = Machine("system", ("a",), ("b",), False, ((Transition(P("1"), P("b"), 1),), (Transition(P("1"), P("!b"), 0),)))
    loop = closed_loop(m, {"a", "b", "_q0"})
    assert "_q0" not in loop.aps() and "__q0" in loop.aps()


INT_X = Declarations().declare(*parse_declaration("x:Int"))


def test_data_atoms_without_inputs_realizable_exactly_where_a_run_exists() -> None:
    """No input read: the system alone writes the run. Its controller writes a run the
    engine's checker accepts; where none exists, the environment's idle strategy wins, its
    play a run that violates φ."""
    from ltlwit.logic.ltl import holds

    f = P("b & G(x >= 0) & G(b -> X(x = 3)) & F G(!b & x < 3)")
    verdict = realize(f, [], declarations=INT_X)
    assert isinstance(verdict, Realizable) and verdict.controller.writes == ("b", "x")
    assert verdict.play.data and holds(f, verdict.play, declarations=INT_X)
    assert holds(P("X(x = 3)"), verdict.play, declarations=INT_X)
    verdict = realize(P("G(x > 0) & F(x < 0)"), [], declarations=INT_X)
    assert isinstance(verdict, Unrealizable) and verdict.counter_strategy.player == "environment"
    assert not holds(P("G(x > 0) & F(x < 0)"), verdict.play, declarations=INT_X)


def test_players() -> None:
    f = P("G(a -> F b) & G(c -> !b)")
    assert players(f, ["a", "c", "zz"]) == (("a", "c"), ("b",))
    assert players(P("G(x > 1 -> b)"), ["b"]) == (("b",), ("x",))  # a data variable is a player's too
    with pytest.raises(ValueError, match="neither an input nor an output"):
        players(f, ["a"], ["b"])
    with pytest.raises(ValueError, match="both an input and an output"):
        players(f, ["a"], ["a", "b", "c"])


def test_what_is_not_decided_yet_is_unknown_with_the_reason() -> None:
    reason = realize(P("G(x > 1 -> next(x) > 1)"), ["x"], declarations=INT_X).reason
    assert "data with inputs" in reason and "another instant" in reason
    assert "finite" in realize(P("G(x > 1 -> b)"), [], declarations=INT_X, semantics="finite").reason
    verdict = realize(P("G(r1 -> F g1) & G(r2 -> F g2) & G!(g1 & g2)"), ["r1", "r2"], budget=Budget(seconds=1e-4))
    assert isinstance(verdict, Unknown)


@settings(max_examples=60, deadline=None)
@given(formulas(("a", "b", "c"), max_leaves=6, constants=False, past=True))
def test_random_specifications_strategies_and_semantics_agree(f: Formula) -> None:
    """Every strategy wins every short play by the oracle; a system that wins writing first
    (Moore) wins seeing the inputs (Mealy), and an environment that wins against Mealy wins
    against Moore."""
    verdicts = {}
    for moore in (False, True):
        verdict = realize(f, ["a"], moore=moore, budget=Budget(seconds=10))
        verdicts[moore] = verdict
        if isinstance(verdict, (Realizable, Unrealizable)):
            machine = verdict.controller if isinstance(verdict, Realizable) else verdict.counter_strategy
            assert _wins_every_short_play(f, machine), (f, moore)
            # the engine's two checks agree: the product with the automaton, and satisfiability
            played = monitored(f)[0] if f.past else f
            assert verify(played, machine, method="solve", budget=Budget(seconds=30)) is True, (f, moore)
    if isinstance(verdicts[True], Realizable):
        assert not isinstance(verdicts[False], Unrealizable)
    if isinstance(verdicts[False], Unrealizable):
        assert not isinstance(verdicts[True], Realizable)


def test_an_output_free_specification_is_realizable_exactly_when_valid_over_inputs() -> None:
    for text, valid in (("G F a | F G !a", True), ("G F a", False), ("a | !a", True)):
        verdict = realize(P(text), ["a"], budget=Budget(seconds=30))
        assert isinstance(verdict, Realizable if valid else Unrealizable), text


#: LTLf synthesis: (formula, inputs, realizable), the system choosing when the trace ends
FINITE = [
    ("F b", ["a"], True),  # write b, stop
    ("X b", ["a"], True),  # two instants
    ("G(a -> b)", ["a"], True),  # answer the first instant and stop
    ("F(a & b)", ["a"], False),  # the environment never writes a
    ("b U a", ["a"], False),  # the trace must end, and it cannot end on a
    ("a", ["a"], False),
    ("G F b", ["a"], True),  # on a finite trace: b at the last instant
    ("F a -> F b", ["a"], True),
]


@pytest.mark.parametrize("text, inputs, realizable", FINITE)
def test_finite_semantics_verdicts_and_strategies_by_the_ltlf_oracle(
    text: str, inputs: list[str], realizable: bool
) -> None:
    from ltlf_reference import satisfies_finite

    f = P(text)
    verdict = realize(f, inputs, budget=Budget(seconds=60), semantics="finite")
    assert isinstance(verdict, Realizable if realizable else Unrealizable), (text, verdict)
    if isinstance(verdict, Realizable):
        machine = verdict.controller
        assert "alive" in machine.writes and verdict.play.finite
        assert satisfies_finite(f, _letters(verdict.play)[0])
        for p, c in lassos(2, 2, machine.reads):
            prefix, cycle = _simulate(machine, p, c)
            word = prefix + cycle
            end = next(i for i, letter in enumerate(word) if not letter["alive"])
            assert end > 0 and satisfies_finite(f, word[:end]), (text, p, c)
    else:
        machine = verdict.counter_strategy
        outputs = [n for n in machine.reads if n != "alive"]
        for p, c in lassos(2, 2, outputs):
            for end in range(1, 5):
                moves = [dict(letter, alive=i < end) for i, letter in enumerate((p + c * 4)[:6])]
                word, _ = _simulate(machine, moves, [dict(moves[-1])])
                assert not satisfies_finite(f, word[:end]), (text, p, c, end)


@settings(max_examples=60, deadline=None)
@given(formulas(("a", "b", "c"), max_leaves=6, constants=False, weak=True))
def test_ltlf_progression_and_counting_games_agree(f: Formula) -> None:
    """Two ways to the same LTLf verdict: the reachability games (over the symbolic DFA, else
    formula progression) and the counting games over the engine's translation; both strategies
    verified."""
    quick = realize(f, ["a"], budget=Budget(seconds=10), semantics="finite")
    slow = realize(f, ["a"], budget=Budget(seconds=10), semantics="finite", progression=False)
    decided = (Realizable, Unrealizable)
    if isinstance(quick, decided) and isinstance(slow, decided):
        assert type(quick) is type(slow), f
    assert isinstance(quick, decided), (f, quick)  # progression decides every small one


def _finite_game(kind: type, f: Formula, inputs: list[str], moore: bool = False) -> Machine:
    """The winner's strategy in f's LTLf reachability game, played by `kind` (`DfaGame` or
    `ProgressionGame`) as `realize` plays it."""
    from ltlwit.logic.budget import Limit
    from ltlwit.logic.ltl.games import as_played
    from ltlwit.logic.ltl.games.counting import Arena

    played = as_played(f, "finite")
    alive = next(a for a in played.aps() if a not in f.aps())
    ins, outs = players(f, inputs)
    arena = Arena(ins, (*outs, alive), moore, played.aps())
    return kind(arena, f, alive, Limit(Budget(seconds=20))).solve()


@settings(max_examples=80, deadline=None)
@given(formulas(("a", "b", "c"), max_leaves=6, constants=False, weak=True), st.booleans())
def test_the_ltlf_dfa_and_progression_games_agree(f: Formula, moore: bool) -> None:
    """Two LTLf reachability games: over the symbolic DFA where progression's states are cubes
    (`dfa`) and over progression's states one by one: the same winner, and the DFA's strategy
    passes the engine's check (a controller also every short play, by the LTLf oracle)."""
    from ltlf_reference import satisfies_finite

    from ltlwit.logic.ltl.games import as_played
    from ltlwit.logic.ltl.games.dfa import DfaGame, NotCubes
    from ltlwit.logic.ltl.games.progression import ProgressionGame

    try:
        machine = _finite_game(DfaGame, f, ["a"], moore)
    except NotCubes:
        return  # outside the fragment: `test_the_ltlf_dfa_plays_the_invariants_of_syntcomp_s_games`
    assert machine.player == _finite_game(ProgressionGame, f, ["a"], moore).player, f
    assert verify(as_played(f, "finite"), machine, Budget(seconds=20)) is True, f
    if machine.player == "system" and not moore:
        for p, c in lassos(2, 2, machine.reads):
            prefix, cycle = _simulate(machine, p, c)
            word = prefix + cycle
            end = next(i for i, letter in enumerate(word) if not letter["alive"])
            assert satisfies_finite(f, word[:end]), (f, p, c)


def _counter(bits: int) -> str:
    """SYNTCOMP's LTLf counter game (Two-player-Game/Single-Counter) of `bits` bits: the
    environment sets the counter and increments it at least every other instant, the system
    keeps the carries and the count, and must bring the counter to 0."""
    init = " & ".join(f"(X c{i} -> i{i}) & (i{i} -> wX c{i})" for i in range(bits))
    steps = ["(X k0 -> inc)", "(inc -> wX k0)"]
    for i in range(1, bits):
        steps += [f"(X k{i} -> c{i - 1} & X k{i - 1})", f"(c{i - 1} & wX k{i - 1} -> wX k{i})"]
    for i in range(bits):
        steps += [f"(X c{i} -> !(c{i} <-> X k{i}))", f"(!(c{i} <-> wX k{i}) -> wX c{i})"]
    zero = " & ".join(f"!c{i}" for i in range(bits))
    return f"({init}) & (G(!inc -> X inc) -> X G({' & '.join(steps)}) & X F({zero}))"


@pytest.mark.parametrize(
    "text, inputs, moore, realizable",
    [
        (_counter(3), ["inc", "i0", "i1", "i2"], True, True),
        # four instants at least, each request answered at the next: a memory of one input
        ("X X X g & G(r -> wX g)", ["r"], True, True),
        # the environment requests forever: the trace cannot end
        ("G(r -> X g)", ["r"], False, False),
        # Moore: the system cannot copy what it has not seen
        ("G(r <-> g)", ["r"], True, False),
        # an assumption and a guarantee, each its own DFA, acceptance as the implication says
        ("G(r -> X !r) -> G(r -> X g) & F g", ["r"], False, True),
    ],
)
def test_the_ltlf_dfa_plays_the_invariants_of_syntcomp_s_games(
    text: str, inputs: list[str], moore: bool, realizable: bool
) -> None:
    """Invariants relating an instant to the next, the shape of SYNTCOMP's LTLf games, are in
    the DFA game's fragment, and their strategies pass the engine's check."""
    from ltlwit.logic.ltl.games import as_played
    from ltlwit.logic.ltl.games.dfa import DfaGame

    f = P(text)
    machine = _finite_game(DfaGame, f, inputs, moore)
    assert machine.player == ("system" if realizable else "environment"), text
    assert verify(as_played(f, "finite"), machine, Budget(seconds=60)) is True, text
    verdict = realize(f, inputs, moore=moore, budget=Budget(seconds=60), semantics="finite")
    assert isinstance(verdict, Realizable if realizable else Unrealizable), text


@pytest.mark.parametrize("pair_nodes", [0, None])
def test_the_dfa_game_pairs_memory_with_letters_and_its_answer_does_not_depend_on_it(
    pair_nodes: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small DFA's memory variables sit beside their letters once it is built (`_pair`: the
    counters' fixpoints are fast only so), and the game's answer is the same unpaired
    (`PAIR_NODES` 0): a verified controller either way."""
    from ltlwit.logic.budget import Limit
    from ltlwit.logic.ltl.games import as_played, dfa
    from ltlwit.logic.ltl.games.counting import Arena

    if pair_nodes is not None:
        monkeypatch.setattr(dfa, "PAIR_NODES", pair_nodes)
    f = P(_counter(3))
    played = as_played(f, "finite")
    alive = next(a for a in played.aps() if a not in f.aps())
    ins, outs = players(f, ["inc", "i0", "i1", "i2"])
    game = dfa.DfaGame(Arena(ins, (*outs, alive), True, played.aps()), f, alive, Limit(Budget(seconds=20)))
    apart = {abs(game.bdd.level_of_var(v) - game.bdd.level_of_var(m)) for v, m in game.memory.items()}
    if pair_nodes is None:
        assert apart == {1}
    machine = game.solve()
    assert machine.player == "system"
    assert verify(played, machine, Budget(seconds=60)) is True


def test_a_step_that_leaves_a_choice_of_obligations_is_outside_the_dfa_game() -> None:
    """`G(wX F a | wX F b)` pends F a or F b: progression's states are no cubes there."""
    from ltlwit.logic.ltl.games.dfa import DfaGame, NotCubes

    with pytest.raises(NotCubes):
        _finite_game(DfaGame, P("G(wX F a | wX F b)"), ["c"])
    assert isinstance(realize(P("G(wX F a | wX F b)"), ["c"], semantics="finite"), Realizable)


SMALL = formulas(("a", "b", "c"), max_leaves=4, constants=False)


@settings(max_examples=60, deadline=None)
@given(SMALL, SMALL, SMALL)
def test_dropping_dominated_runs_changes_no_game_s_winner(x: Formula, y: Formula, z: Formula) -> None:
    """The counting games drop the runs that others dominate (`counting._undominated`): the
    first bound each player wins at is the one the games that keep every run give (on
    response-shaped specifications, whose tableaux put runs in many subsets of obligations)."""
    from unittest import mock

    from ltlwit.logic.budget import Limit
    from ltlwit.logic.formula import Not, unop
    from ltlwit.logic.ltl.games import counting

    f = And(unop("G", binop("->", x, unop("F", y))), unop("G", z))

    def first_won(player: str) -> int | None:
        arena = counting.Arena(("a",), ("b", "c"), False, f.aps())
        game = counting.CountingGame(arena, player, f if player == "system" else Not(f), Limit(None))
        return next((step[0] for step in game.search(3) if step is not None), None)

    def everything(counts: tuple, limit: Limit) -> tuple:
        return counts

    pruned = [first_won(p) for p in ("system", "environment")]
    with mock.patch.object(counting, "_undominated", everything):
        kept = [first_won(p) for p in ("system", "environment")]
    assert pruned == kept, f


def test_a_player_writes_what_the_goal_is_monotone_in_as_it_helps() -> None:
    """Propositions of the player's that occur with one polarity only are fixed (`fixed`): the
    controller writes b, which only helps `G F b`, true always; c, under `<->`, stays free;
    the environment's r occurs only negatively in φ, so positively in ¬φ: requests always."""
    from ltlwit.logic.budget import Limit
    from ltlwit.logic.formula import Not
    from ltlwit.logic.ltl.games import counting
    from ltlwit.logic.polarity import ap_polarities

    f = P("G F b & G(r -> F (c <-> r)) & G(!d | X r)")
    assert ap_polarities(f) == {"b": {1}, "r": {-1, 0, 1}, "c": {0}, "d": {-1}}
    arena = counting.Arena(("r",), ("b", "c", "d"), False, f.aps())
    assert counting.CountingGame(arena, "system", f, Limit(None)).fixed == {"b": True, "d": False}
    g = P("G(r -> F g) & G(g -> !r)")
    assert counting.CountingGame(
        counting.Arena(("r",), ("g",), False, g.aps()), "environment", Not(g), Limit(None)
    ).fixed == {"r": True}
    verdict = realize(f, ["r"], budget=Budget(seconds=30))
    assert isinstance(verdict, Realizable)
    assert all(
        prop_value(ap("b"), letter_of(t.write)) and not prop_value(ap("d"), letter_of(t.write))
        for ts in verdict.controller.states
        for t in ts
    )


def test_turns_cut_short_change_no_verdict() -> None:
    """The games take turns of time (`CountingGame.turn`); a step that runs past its turn is
    taken again in a longer one. With turns far too short for any step, every step is cut
    and retried, and the verdicts and bounds are those of turns that cut nothing."""
    from unittest import mock

    from ltlwit.logic.ltl.games import counting

    for text, inputs in (("G(r1 -> F g1) & G(r2 -> F g2) & G!(g1 & g2)", ["r1", "r2"]), (KNOWN[1][0], ["req"])):
        whole = realize(P(text), inputs, budget=Budget(seconds=60))
        with mock.patch.object(counting, "FIRST_QUANTUM", 1e-9):
            cut = realize(P(text), inputs, budget=Budget(seconds=60))
        assert type(cut) is type(whole) and cut.bound == whole.bound, (text, whole, cut)
