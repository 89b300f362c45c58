"""GR(1) games (`ltlwit.logic.ltl.games.gr1`): the shape read off a formula only where the game
decides it, the game's verdicts against the counting games' on random GR(1) specifications in
TLSF's strict form (where the GR(1) game is complete), its controllers accepted by the generic
product check and the reference oracle too, and its closed-loop check refuting a broken one."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st
from test_realize import _wins_every_short_play

from ltlwit.logic.budget import Budget, Limit
from ltlwit.logic.formula import Formula, Not
from ltlwit.logic.ltl import holds
from ltlwit.logic.ltl.games import Realizable, Unrealizable, gr1, realize, verify
from ltlwit.logic.ltl.games.aiger import Circuit, from_aiger
from ltlwit.logic.ltl.games.gr1 import check, check_circuit, controller, shape
from ltlwit.logic.ltl.games.machine import Transition
from ltlwit.logic.syntax import parse_formula as P


def strict(theta_e: str, theta_s: str, rho_e: str, rho_s: str, je: str, js: str) -> Formula:
    """θe -> (θs & (ρs W !ρe) & ((G ρe & G F je) -> G F js)), as syfco writes a strict TLSF."""
    return P(f"({theta_e}) -> (({theta_s}) & (({rho_s}) W !({rho_e})) & ((G({rho_e}) & G F({je})) -> G F({js})))")


def test_the_shape_is_read_only_where_the_game_decides_the_formula() -> None:
    f = strict("!r", "!g", "r -> X r", "r -> X g & X r", "!r", "g")
    parts = shape(f, ["r"])
    assert parts is not None
    assert (parts.env_init, parts.sys_init, parts.env_justice, parts.sys_justice) == (
        [P("!r")],
        [P("!g")],
        [P("!r")],
        [P("g")],
    )
    assert parts.env_safety == [P("r -> X r")] and parts.sys_safety == [P("r -> X g & X r")]
    # syfco's non-strict form: G ρs under G ρe, which the strict game implies
    assert shape(P("(!r & G(r -> X r)) -> (!g & G(r -> X g))"), ["r"]) is not None
    # responses, under every assumption
    assert shape(P("G F r -> G(r -> F g)"), ["r"]).responses == [(P("r"), P("g"))]
    # not GR(1): an eventuality inside G but a response's; two steps of X; the environment's
    # safety deciding the next output; a guarantee the game keeps only while the environment
    # keeps its safety; a response under some of the assumptions only
    for text in [
        "G(r -> F X g)",
        "G(r -> X X g)",
        "G(r -> X g) -> G F g",
        "(G(r -> X r) -> G F g) & G(g -> X !g)",
        "(G F r -> G(r -> F g)) & G F !r",
    ]:
        assert shape(P(text), ["r"]) is None, text


STEP = st.sampled_from(["r", "g", "X r", "X g", "!r", "!g", "!X r", "!X g"])


def _step(inputs_next_only: bool) -> st.SearchStrategy[str]:
    atoms = STEP.filter(lambda a: not (inputs_next_only and "X g" in a))
    return st.lists(st.lists(atoms, min_size=1, max_size=2), min_size=1, max_size=2).map(
        lambda clauses: " & ".join("(" + " | ".join(c) + ")" for c in clauses)
    )


NOW = st.sampled_from(["r", "g", "!r", "!g", "r & g", "r | !g", "1"])


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["!r", "r", "1"]), NOW, _step(True), _step(False), NOW, NOW)
def test_the_gr1_game_agrees_with_the_counting_games(
    theta_e: str, theta_s: str, rho_e: str, rho_s: str, je: str, js: str
) -> None:
    """In the strict form the GR(1) game is complete: it finds a controller exactly where one
    exists; each is also accepted by the product check and the reference oracle."""
    f = strict(theta_e, theta_s, rho_e, rho_s, je, js)
    assert shape(f, ["r"]) is not None
    machine = controller(f, ["r"], ["g"], Limit(Budget(seconds=30)))
    counted = realize(f, ["r"], budget=Budget(seconds=30), gr1=False)
    assert isinstance(counted, (Realizable, Unrealizable)), (f, counted)
    assert (machine is not None) == isinstance(counted, Realizable), f
    if machine is not None:
        assert check(f, machine, Limit(None)) is True
        assert verify(f, machine, Budget(seconds=30)) is True
        assert _wins_every_short_play(f, machine)
        assert isinstance(realize(f, ["r"], budget=Budget(seconds=30)), Realizable)


def _textbook(game: gr1._Game) -> object:
    """Z = νZ. ∧j μY. ∨i νX. (Js_j ∧ cpre(Z)) ∨ cpre(Y) ∨ (¬Je_i ∧ cpre(X)), each fixpoint
    from its own end (everything, nothing) and every guarantee under the same Z."""
    bdd = game.bdd

    def fix(step, u):
        while (v := step(u)) != u:
            u = v
        return u

    def attractor(z, goal):
        reached = goal & game.cpre(z)

        def y_step(y):
            start = reached | game.cpre(y)
            out = bdd.false
            for a in game.env_justice:
                out |= fix(lambda x, a=a: start | (~a & game.cpre(x)), bdd.true)
            return out

        return fix(y_step, bdd.false)

    def z_step(z):
        out = bdd.true
        for goal in game.sys_justice:
            out &= attractor(z, goal)
        return out

    return fix(z_step, bdd.true)


SPEC = st.sampled_from(["r", "g", "h", "!r", "!g", "!h", "r & g", "g | !h", "r | h", "1"])


@settings(max_examples=30, deadline=None)
@given(st.lists(SPEC, min_size=1, max_size=3), st.lists(SPEC, min_size=1, max_size=3), st.data())
def test_the_winning_region_is_the_textbook_fixpoint(assumed: list[str], goals: list[str], data) -> None:
    """The game starts Z from the safe region and shrinks it a guarantee at a time, X from the
    last one computed: the same greatest fixpoint as the textbook's nested iteration."""
    rho_e = data.draw(_step(True))
    rho_s = data.draw(_step(False).map(lambda s: s + " & (X h | !X g)"))
    f = P(
        f"G({rho_e}) & {' & '.join(f'G F({a})' for a in assumed)} -> "
        f"G({rho_s}) & {' & '.join(f'G F({j})' for j in goals)}"
    )
    spec = shape(f, ["r"])
    assert spec is not None and len(spec.sys_justice) == len(goals)
    game = gr1._Game(spec, ["r"], ["g", "h"], Limit(None))
    z, _ = game.solve()
    expected = _textbook(game)
    assert game.answers_start(z) == game.answers_start(expected), f
    if game.answers_start(z):
        assert z == expected, f


def test_the_closed_loop_check_refutes_a_broken_controller() -> None:
    """A grant for each request, the next instant, while the environment keeps r once raised;
    the controller written by the game passes, and each single write flipped fails both checks."""
    f = strict("!r", "!g", "r -> X r", "r -> X g", "1", "!r | g")
    machine = controller(f, ["r"], ["g"], Limit(None))
    assert machine is not None and check(f, machine, Limit(None)) is True
    broken = 0
    for s, ts in enumerate(machine.states):
        for k, t in enumerate(ts):
            flipped = Transition(t.guard, Not(t.write) if t.write.op == "ap" else t.write.children[0], t.target)
            states = list(machine.states)
            states[s] = (*ts[:k], flipped, *ts[k + 1 :])
            other = replace(machine, states=tuple(states))
            wins = verify(f, other, Budget(seconds=30))
            assert check(f, other, Limit(None)) is wins, (s, k)
            broken += not wins
    assert broken > 0
    assert check(P("G(r -> F g)"), machine, Limit(None)) is None  # not GR(1): not this check's to say


def test_a_controller_too_many_states_to_list_is_written_as_a_circuit_and_checked_as_one(monkeypatch) -> None:
    from ltlwit.logic.ltl import games
    from ltlwit.logic.ltl.games import gr1

    f = strict("!r", "!g", "r -> X r", "r -> X g", "!r", "g")
    monkeypatch.setattr(gr1, "MAX_TRANSITIONS", 2)
    monkeypatch.setattr(games, "COUNTING_FIRST", 0.0)
    assert controller(f, ["r"], ["g"], Limit(None)) is None
    verdict = realize(f, ["r"], budget=Budget(seconds=30))
    assert isinstance(verdict, Realizable) and isinstance(verdict.controller, Circuit)
    assert verdict.controller.reads == ("r",) and verdict.controller.writes == ("g",)
    listed = from_aiger(verdict.controller.aiger)  # the same circuit, state by state
    assert verify(f, listed, Budget(seconds=30)) is True and _wins_every_short_play(f, listed)
    assert holds(f, verdict.play) and verdict.play == verdict.controller.play()


def test_a_machine_too_large_to_list_leaves_the_game_sifting(monkeypatch) -> None:
    """dd's walk over a BDD's models turns CUDD's reordering off until the walk ends: a
    listing cut short (or a single pick) must leave the game sifting for the circuit after it."""
    f = strict("!r", "!g", "r -> X r", "r -> X g", "!r", "g")
    monkeypatch.setattr(gr1, "MAX_TRANSITIONS", 2)
    strategy = gr1.solved(f, ["r"], ["g"], Limit(None))
    assert strategy is not None
    try:
        assert strategy.game.bdd.configure()["reordering"] is True
        assert strategy.machine(Limit(None)) is None
        assert strategy.game.bdd.configure()["reordering"] is True
        strategy._pick(strategy.z, sorted(strategy.game.now.values()))
        assert strategy.game.bdd.configure()["reordering"] is True
    finally:
        strategy.close()


def _circuit(f: Formula) -> Circuit | None:
    strategy = gr1.solved(f, ["r"], ["g"], Limit(None))
    if strategy is None:
        return None
    try:
        return strategy.circuit(Limit(None))
    finally:
        strategy.close()


def _mutants(circuit: Circuit) -> list[Circuit]:
    """The circuit with one output, latch or gate literal negated: each a different machine."""
    rows = circuit.aiger.splitlines()
    head = list(map(int, rows[0].split()[1:]))
    n_in, n_latch, n_out, n_and = head[1:]
    out = []
    for k in range(1 + n_in, 1 + n_in + n_latch + n_out + n_and):
        cells = rows[k].split()
        cells[-1] = str(int(cells[-1]) ^ 1)
        out.append(replace(circuit, aiger="\n".join([*rows[:k], " ".join(cells), *rows[k + 1 :]]) + "\n"))
    return out


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["!r", "r", "1"]), NOW, _step(True), _step(False), NOW, NOW)
def test_the_circuit_check_agrees_with_the_product_check_on_circuits_and_their_mutants(
    theta_e: str, theta_s: str, rho_e: str, rho_s: str, je: str, js: str
) -> None:
    """The GR(1) strategy as a circuit passes the symbolic check; it and every mutant of it
    (one literal negated) get the same answer from the explicit product check of the machine
    the circuit is (`from_aiger`), which shares nothing with the symbolic one."""
    f = strict(theta_e, theta_s, rho_e, rho_s, je, js)
    circuit = _circuit(f)
    if circuit is None:
        return
    assert check_circuit(f, circuit, Limit(None)) is True
    assert verify(f, from_aiger(circuit.aiger), Budget(seconds=30)) is True
    for mutant in _mutants(circuit)[:12]:
        assert check_circuit(f, mutant, Limit(None)) is verify(f, from_aiger(mutant.aiger), Budget(seconds=30))


@settings(max_examples=20, deadline=None)
@given(st.lists(SPEC, min_size=1, max_size=3), st.lists(SPEC, min_size=2, max_size=3), st.data())
def test_the_games_ranking_proves_its_circuit_and_no_mutant_of_it(assumed: list[str], goals: list[str], data) -> None:
    """With several guarantees and assumptions: the ranking the game gives its circuit holds
    on the loop's reachable states (so the fair-cycle search is not needed), and with it the
    check of every mutant of the circuit answers as without it, never True where the explicit
    product check finds a losing play: the ranking proves the circuit it was made for, and
    nothing false about any other. (The check reads `ρs W ¬ρe`, stricter than these
    formulas' `G ρe -> G ρs`: it may refute a mutant the product accepts.)"""
    rho_e, rho_s = data.draw(_step(True)), data.draw(_step(False))
    f = P(
        f"G({rho_e}) & {' & '.join(f'G F({a})' for a in assumed)} -> "
        f"G({rho_s}) & {' & '.join(f'G F({j})' for j in goals)}"
    )
    strategy = gr1.solved(f, ["r"], ["g", "h"], Limit(None))
    if strategy is None:
        return
    try:
        circuit, ranking = strategy.circuit(Limit(None)), strategy.ranking()
        assert ranking is not None
        game = gr1._Game(shape(f, ["r"]), ["r"], ["g", "h"], Limit(None), monitored=False)
        loop = gr1._CircuitLoop(game, circuit, [])
        claim = loop.claim(ranking)
        assert claim is not None and loop.ranked(loop.image(loop.start, game.bdd.true) & loop.begun, claim), f
        del claim, loop, game
        assert check_circuit(f, circuit, Limit(None), ranking) is True
        for mutant in _mutants(circuit)[:10]:
            ranked = check_circuit(f, mutant, Limit(None), ranking)
            assert ranked is check_circuit(f, mutant, Limit(None)), f
            assert not ranked or verify(f, from_aiger(mutant.aiger), Budget(seconds=30)), f
    finally:
        strategy.close()


def test_a_latch_copying_a_literal_two_propositions_share_is_held_by_one() -> None:
    """A shift (each output written as an input): the game's circuit keeps the last inputs and
    outputs in latches, and an output's literal is an input's too. Each latch is then one of
    those propositions' own variable in the check's loop, none beside them (shift_pb_125's 125
    latch variables made its check sift 77 times), and the check agrees with the product's on
    the circuit and its mutants."""
    n = 4
    f = P(" & ".join(f"G(i{k} <-> o{(k + 1) % n})" for k in range(n)))
    ins, outs = [f"i{k}" for k in range(n)], [f"o{k}" for k in range(n)]
    strategy = gr1.solved(f, ins, outs, Limit(None))
    assert strategy is not None
    try:
        circuit = strategy.circuit(Limit(None))
        assert circuit.latches >= 2 * n  # the inputs' and the outputs' last values
        loop = gr1._CircuitLoop(gr1._Game(shape(f, ins), ins, outs, Limit(None), monitored=False), circuit, [])
        held = {loop.latch_vars[f"last_{a}"] for a in (*ins, *outs)}
        assert held == {loop.game.now[a] for a in (*ins, *outs)}  # each a proposition's: none of its own
        del loop
        assert check_circuit(f, circuit, Limit(None)) is True
        for mutant in _mutants(circuit)[:12]:
            assert check_circuit(f, mutant, Limit(None)) is verify(f, from_aiger(mutant.aiger), Budget(seconds=30))
    finally:
        strategy.close()


def test_the_circuit_check_refutes_a_broken_circuit() -> None:
    """A grant for each request the next instant: the circuit the game writes passes, and among
    its mutants some fail both the symbolic check and the product check."""
    f = strict("!r", "!g", "r -> X r", "r -> X g", "1", "!r | g")
    circuit = _circuit(f)
    assert circuit is not None and check_circuit(f, circuit, Limit(None)) is True
    verdicts = [check_circuit(f, m, Limit(None)) for m in _mutants(circuit)]
    assert False in verdicts and True in verdicts
    assert check_circuit(P("G(r -> X X g)"), circuit, Limit(None)) is None  # not GR(1): not this check's to say


def test_a_ranking_does_not_let_a_circuit_wait_where_the_assumption_holds() -> None:
    """G F r -> G F g: the game's circuit grants, and its ranking proves it; the same circuit
    granting only where r does not hold (g = ¬r) loses the play where r holds forever, though
    it never leaves the rank where r holds: the ranking proves nothing about it (a rank may
    be kept only where its assumption fails), and the check refutes it."""
    f = P("G F r -> G F g")
    strategy = gr1.solved(f, ["r"], ["g"], Limit(None))
    assert strategy is not None
    try:
        circuit, ranking = strategy.circuit(Limit(None)), strategy.ranking()
        rows = circuit.aiger.splitlines()
        n_in, n_latch = map(int, rows[0].split()[2:4])
        waiting = replace(circuit, aiger="\n".join([*rows[: 1 + n_in + n_latch], "3", *rows[2 + n_in + n_latch :]]))
        assert check_circuit(f, circuit, Limit(None), ranking) is True
        assert check_circuit(f, waiting, Limit(None), ranking) is False
        assert verify(f, from_aiger(waiting.aiger), Budget(seconds=30)) is False
    finally:
        strategy.close()


def test_realize_writes_the_gr1_strategy_when_the_counting_games_have_not_answered(monkeypatch) -> None:
    """Once the counting games have had their first turns (none here), the system's GR(1)
    strategy is written out, checked on the closed loop, and is the answer."""
    from ltlwit.logic.ltl import games
    from ltlwit.logic.ltl.games import gr1

    written = []
    machine = gr1.Strategy.machine

    def spy(self, limit):
        written.append(machine(self, limit))
        return written[-1]

    monkeypatch.setattr(games, "COUNTING_FIRST", 0.0)
    monkeypatch.setattr(gr1.Strategy, "machine", spy)
    f = strict("!r", "!g", "r -> X r", "r -> X g", "!r", "g")
    verdict = realize(f, ["r"], budget=Budget(seconds=30))
    assert isinstance(verdict, Realizable) and written == [verdict.controller]
    assert verify(f, verdict.controller, Budget(seconds=30)) is True and _wins_every_short_play(f, verdict.controller)
    assert isinstance(realize(P("G(r -> X g) & G(r -> X !g)"), ["r"], budget=Budget(seconds=30)), Unrealizable)


RESPONSES = st.lists(
    st.sampled_from(["G(r -> F g)", "G(g -> F !g)", "G(!r -> F !g)", "G(r & g -> F !r)"]), min_size=1, max_size=2
)


@settings(max_examples=25, deadline=None)
@given(
    RESPONSES,
    st.sampled_from(["1", "G F r", "G F !r", "G(r -> X r)"]),
    st.sampled_from(["1", "G(g -> X !g)", "G(r -> !g)", "G F g"]),
)
def test_responses_are_played_with_monitors_and_checked_with_observers(
    responses: list[str], assumption: str, guarantee: str
) -> None:
    """Responses G(p -> F q) under the assumptions: the GR(1) game (its monitors written by the
    system) agrees with the counting games; its circuit, which keeps the monitors in latches,
    passes the symbolic check (which observes the responses instead), and it and its mutants
    get the same answer from the product check of the machine the circuit is."""
    f = P(f"({assumption}) -> ({' & '.join([*responses, guarantee])})")
    parts = shape(f, ["r"])
    assert parts is not None and parts.responses
    counted = realize(f, ["r"], budget=Budget(seconds=30), gr1=False)
    assert isinstance(counted, (Realizable, Unrealizable)), (f, counted)
    circuit = _circuit(f)
    assert (circuit is not None) == isinstance(counted, Realizable), f
    if circuit is None:
        return
    assert circuit.writes == ("g",)  # the monitors are latches, not outputs
    assert check_circuit(f, circuit, Limit(None)) is True
    listed = from_aiger(circuit.aiger)
    assert verify(f, listed, Budget(seconds=30)) is True and _wins_every_short_play(f, listed)
    for mutant in _mutants(circuit)[:12]:
        assert check_circuit(f, mutant, Limit(None)) is verify(f, from_aiger(mutant.aiger), Budget(seconds=30))


def test_a_circuit_that_never_answers_fails_the_response_check() -> None:
    never = Circuit(("r",), ("g",), "aag 1 1 0 1 0\n2\n0\ni0 r\no0 g\n")
    always = Circuit(("r",), ("g",), "aag 1 1 0 1 0\n2\n1\ni0 r\no0 g\n")
    assert check_circuit(P("G(r -> F g)"), never, Limit(None)) is False
    assert check_circuit(P("G(r -> F g)"), always, Limit(None)) is True
    assert check_circuit(P("G F !r -> G(r -> F g)"), never, Limit(None)) is False  # r, then !r forever: fair
    assert check_circuit(P("G F !r -> G(!r -> F g)"), always, Limit(None)) is True


def test_a_text_that_is_not_a_well_formed_circuit_proves_nothing() -> None:
    """The check reads a latch that copies an input's literal as that input's last value: a
    text that defines the literal again (an AND gate over it), a reset other than 0, rows out
    of order, or inputs and outputs not the specification's prove nothing."""
    f = P("G(r -> X g) & G(!r -> X !g)")
    copy = Circuit(("r",), ("g",), "aag 2 1 1 1 0\n2\n4 2\n4\ni0 r\no0 g\n")  # g: r, an instant late
    assert check_circuit(f, copy, Limit(None)) is True
    for text in [
        "aag 3 1 1 1 1\n2\n4 2\n4\n2 0 0\n",  # the gate redefines r's literal: g would be 0
        "aag 2 1 1 1 0\n2\n4 2 1\n4\n",  # the latch reset to 1
        "aag 3 1 1 1 1\n2\n4 2\n6\n6 8 8\n",  # a gate reading a literal defined nowhere
        "aag 2 1 1 1 0\n2\n4 2\n4\ni0 s\no0 g\n",  # an input the specification does not name
    ]:
        assert check_circuit(f, replace(copy, aiger=text), Limit(None)) is False, text
    assert check_circuit(f, replace(copy, reads=("r", "s")), Limit(None)) is False  # one input for two
