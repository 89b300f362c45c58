"""Realizability over data atoms with inputs, by a finite abstraction where one is exact.

Where each atom compares values of one instant only (no `next`, `pre`, no uninterpreted
function) and reads the inputs' data variables or the outputs', never both (`state = 1.0`,
`STATE = 3.0`: FRET's state machines), what a player can do with its data at an instant is
exactly to choose a consistent truth value for each of its atoms: a cube over them that some
values satisfy. The game over data is then the Boolean game of

    G C_in -> (G C_out & φ')

with φ' the Boolean abstraction (`theory.abstraction`: each atom a proposition, owned by the
player whose variables it reads; its invariants' `H` read as their operands: `monitors.hoisted`) and C_in, C_out the consistent cubes of the inputs' atoms and
the outputs' (z3 lists them, `MAX_CUBES` at most a side). A system that wins it writes, at each
instant, a consistent cube, which some values make true: its controller writes those values. An
environment that wins it plays consistent cubes (else the implication holds) against every
system that does: a counter-strategy over the data. The Boolean game's strategy is checked by
the engine as every other; its concrete play, values in every step, is checked on φ as
written by the exact evaluator. Anything else is Unknown, naming why (the exact reading with
no input at all is `games._unopposed`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ltlwit.logic.budget import Budget, Limit
from ltlwit.logic.formula import TRUE, And, Formula, Not, Or, ap, atom, const, rebuilt, transform, unop
from ltlwit.logic.ltl.encoding.labels import make_labels
from ltlwit.logic.ltl.games.machine import Machine, Transition, letter_of, play
from ltlwit.logic.ltl.games.monitors import hoisted
from ltlwit.logic.result import Unknown
from ltlwit.logic.theory.terms import PRE, SHIFTS, Term
from ltlwit.logic.trace import Trace

if TYPE_CHECKING:
    from ltlwit.logic.ltl.games import Verdict
    from ltlwit.logic.theory.sorts import Declarations

#: Consistent cubes of one player's atoms past which the abstraction is not tried.
MAX_CUBES = 1024


@dataclass(frozen=True)
class _Side:
    """One player's atoms (their propositions, in order), its consistent cubes, and for each
    cube the values that make it true (`theory.evaluate.value_atom` formulas)."""

    props: tuple[str, ...]
    cubes: dict[tuple[bool, ...], tuple[Formula, ...]]

    def consistent(self) -> Formula:
        return Or(*(And(*(ap(p) if b else Not(ap(p)) for p, b in zip(self.props, c))) for c in self.cubes))

    def values(self, letter: dict[str, bool]) -> tuple[Formula, ...] | None:
        """The values of a letter's cube over these atoms; None where no values make it true."""
        return self.cubes.get(tuple(letter.get(p, False) for p in self.props))


def separable(
    formula: Formula,
    ins: tuple[str, ...],
    outs: tuple[str, ...],
    moore: bool,
    budget: Budget | None,
    declarations: Declarations | None,
    decide: Callable[..., Verdict],
) -> Verdict:
    """φ's verdict over data (module docstring), `decide` the Boolean games (`games.realize`);
    Unknown where the abstraction is not exact."""
    from ltlwit.logic.ltl import abstraction

    limit = Limit(budget)
    made = abstraction(formula, declarations, False)
    owner: dict[str, list[tuple[str, Term]]] = {"environment": [], "system": []}
    for a, prop in made.names.items():
        why = _not_now(a)
        if why is not None:
            return Unknown(f"realizability over data with inputs: {why} (`{a}`), not decided yet")
        read = set(a.variables())
        if read & set(ins) and read - set(ins):
            return Unknown(
                f"realizability over data with inputs: `{a}` compares an input with an output, not decided yet"
            )
        owner["environment" if read & set(ins) else "system"].append((prop, a))
    sides = {}
    for player, atoms in owner.items():
        side = _side(atoms, made.signature, limit)
        if side is None:
            return Unknown(f"realizability over data with inputs: more than {MAX_CUBES} consistent cubes of atoms")
        sides[player] = side
    env, sys = sides["environment"], sides["system"]
    game = unop("G", env.consistent())
    boolean = Or(Not(game), And(unop("G", sys.consistent()), hoisted(made.plain)))
    data = set(made.signature.variables)
    bool_ins = tuple(n for n in ins if n not in data or made.signature.variables[n].name == "Bool")
    bool_outs = tuple(n for n in outs if n not in data or made.signature.variables[n].name == "Bool")
    verdict = decide(boolean, (*bool_ins, *env.props), (*bool_outs, *sys.props), moore=moore, budget=limit.left())
    if isinstance(verdict, Unknown):
        return verdict
    from ltlwit.logic.ltl.games import Realizable, Unrealizable

    strategy = verdict.controller if isinstance(verdict, Realizable) else verdict.counter_strategy
    if not isinstance(strategy, Machine):
        return Unknown("realizability over data with inputs: the controller is a circuit, too large to write over data")
    mine, theirs = (sys, env) if strategy.player == "system" else (env, sys)
    machine = _concrete(strategy, mine, theirs, made.names)
    from ltlwit.logic.ltl.games import as_played, watched

    # a counter-strategy reads the system's monitors, written right
    monitors = watched(as_played(boolean, "infinite", monitor=False)) if strategy.player == "environment" else {}
    run = _concrete_play(strategy, mine, theirs, monitors)
    _checked(formula, run, declarations, strategy.player == "system")
    if isinstance(verdict, Realizable):
        return Realizable(machine, run, verdict.bound)
    return Unrealizable(machine, run, verdict.bound)


def _not_now(a: Term) -> str | None:
    """Why an atom does not compare values of one instant, or None."""
    from ltlwit.logic.theory.sorts import BUILTINS

    for node in a.walk():
        if node.op in SHIFTS or node.op == "call" and node.name in PRE:
            return "an atom reads another instant's value"
        if node.op in ("call", "pred") and node.name not in BUILTINS:
            return "an atom applies an uninterpreted function"
    return None


def _side(atoms: list[tuple[str, Term]], signature: Any, limit: Limit) -> _Side | None:
    """The consistent cubes of `atoms` (z3 lists them, each with a model's values); None past
    `MAX_CUBES` or where z3 gives up."""
    import z3

    from ltlwit.logic.theory.evaluate import value_atom
    from ltlwit.logic.theory.smt import Encoder

    props = tuple(p for p, _ in atoms)
    if not atoms:
        return _Side(props, {(): ()})
    encoder = Encoder(signature)
    held = [encoder.atom(a, 0) for _, a in atoms]
    names = sorted({n for _, a in atoms for n in a.variables()})
    solver = z3.Solver(ctx=encoder.ctx)
    cubes: dict[tuple[bool, ...], tuple[Formula, ...]] = {}
    while True:
        limit.check_time()
        left = limit.remaining()
        if left != float("inf"):
            solver.set("timeout", max(1, int(1000 * left)))
        answer = solver.check()
        if answer == z3.unsat:
            return _Side(props, cubes)
        if answer != z3.sat or len(cubes) >= MAX_CUBES:
            return None
        model = solver.model()
        cube = tuple(z3.is_true(model.eval(h, model_completion=True)) for h in held)
        sorts = signature.variables
        cubes[cube] = tuple(value_atom(n, encoder.value(model, encoder.var(n, 0)), sorts[n]) for n in names)
        solver.add(z3.Or(*(z3.Not(h) if b else h for h, b in zip(held, cube))))


def _concrete(strategy: Machine, mine: _Side, theirs: _Side, names: dict[Term, str]) -> Machine:
    """The Boolean game's strategy over the data: each guard with the other player's atoms as
    written and only their consistent cubes, each letter written with the values of its cube;
    transitions no consistent letter takes, and states no play of them reaches, left out."""
    atoms = {prop: atom(a) for a, prop in names.items()}
    L = make_labels(strategy.reads)
    allowed = L.of(theirs.consistent())

    def shown(u: Any) -> Formula:
        """A label as a disjunction of small cubes, the inconsistent letters don't-cares, the
        atoms' propositions as the atoms."""
        cubes = []
        while u != L.false:
            c = L.cube_within(u, allowed)
            cubes.append(L.to_formula(c))
            u = u & L.neg(L.cube(c))
        return transform(Or(*cubes), lambda n, kids: atoms.get(n.name or "", n) if n.op == "ap" else rebuilt(n, kids))

    kept: dict[int, list[tuple[Formula, Formula, int]]] = {}
    order, k = [0], 0
    while k < len(order):
        s = order[k]
        k += 1
        rows = []
        for t in strategy.states[s]:
            guard = L.of(t.guard) & allowed
            if guard == L.false:
                continue
            letter = letter_of(t.write)
            values = mine.values(letter)
            if values is None:
                from ltlwit.logic.ltl.games import StrategyRejected

                raise StrategyRejected(f"the strategy writes {t.write}, which no values make true")
            booleans = [ap(n) if v else Not(ap(n)) for n, v in letter.items() if n not in mine.props]
            rows.append((shown(guard), And(*booleans, *values), t.target))
            if t.target not in kept and t.target not in order:
                order.append(t.target)
        kept[s] = rows
    number = {s: i for i, s in enumerate(order)}
    states = tuple(tuple(Transition(g, w, number[target]) for g, w, target in kept[s]) for s in order)

    def named(props: tuple[str, ...], side: _Side) -> tuple[str, ...]:
        """A side's propositions, its atoms' by their variables."""
        variables = (v for a, prop in names.items() if prop in side.props for v in a.variables())
        return tuple(n for n in props if n not in side.props) + tuple(dict.fromkeys(variables))

    return Machine(strategy.player, named(strategy.reads, theirs), named(strategy.writes, mine), strategy.moore, states)


def _concrete_play(strategy: Machine, mine: _Side, theirs: _Side, monitors: dict) -> Trace:
    """The strategy's play against the other player writing its first consistent cube at
    every instant, its `monitors` right (`games.monitors`) and its other propositions false:
    each step with the values of both cubes."""
    first = next(iter(theirs.cubes))
    fixed = {p: (b, const(b)) for p, b in zip(theirs.props, first)}  # (a constant "monitor")
    abstract = play(strategy, {**monitors, **fixed})

    def concrete(step: Formula) -> Formula:
        letter = letter_of(step)
        values = (*(mine.values(letter) or ()), *(theirs.values(letter) or ()))
        booleans = [ap(n) if v else Not(ap(n)) for n, v in letter.items() if n not in mine.props + theirs.props]
        return And(*booleans, *values) if booleans or values else TRUE

    return Trace(tuple(map(concrete, abstract.prefix)), tuple(map(concrete, abstract.cycle)))


def _checked(formula: Formula, run: Trace, declarations: Declarations | None, system: bool) -> None:
    """The concrete play judged on φ as written (exactly, `theory.evaluate`): a controller's
    must satisfy it, a counter-strategy's violate it."""
    from ltlwit.logic.ltl import holds
    from ltlwit.logic.ltl.games import StrategyRejected

    if holds(formula, run, declarations=declarations) != system:
        raise StrategyRejected(f"the play {run} over data {'violates' if system else 'satisfies'} {formula}")
