"""Spot's ltlsynt as a realizability engine (`realize(..., engine="spot")`), to compare the games
with the tool SYNTCOMP ranks among its best: where `ltlsynt` is on PATH it is asked, and its
answer held to the rule every verdict here keeps, a strategy the engine checked.

ltlsynt answers REALIZABLE with a controller (`--aiger`: an ASCII AIGER circuit). It is read
back (`aiger.renamed`) and checked like the games' controllers (`games._proved`): where φ has
GR(1) shape as the circuit itself, symbolically (`gr1.check_circuit`), else as the machine the
circuit is, state by reached state (`aiger.from_aiger`), shown as a table where it is small. A
controller the check refutes is never printed: the answer is Unknown, naming the disagreement.
ltlsynt answers UNREALIZABLE without a counter-strategy, so the engine's own games look for one
with what is left of the budget; without one the answer is Unknown, naming ltlsynt's claim.

The specification crosses as text in Spot's syntax, its propositions renamed `i0, i1, ...` and
`o0, o1, ...` (any name reads back, none is read as an operator). ltlsynt plays Mealy games:
under Moore semantics it is asked φ[i -> X i], each input read one instant late, and its
controller, fed the inputs one instant late, is the Moore controller checked on φ
(`_undelayed`). Future-time LTL on infinite traces: finite semantics, past operators and data
atoms are the built-in engine's."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from typing import TYPE_CHECKING, Callable, Sequence

from ltlwit.logic.budget import Budget, Limit, OutOfBudget
from ltlwit.logic.formula import Formula
from ltlwit.logic.result import Unknown

if TYPE_CHECKING:
    from ltlwit.logic.ltl.games import Verdict
    from ltlwit.logic.ltl.games.machine import Machine

#: the program asked, found on PATH
PROGRAM = "ltlsynt"


def available() -> bool:
    """Whether `ltlsynt` is on PATH."""
    return shutil.which(PROGRAM) is not None


def realize(
    formula: Formula,
    ins: Sequence[str],
    outs: Sequence[str],
    moore: bool,
    budget: Budget | None,
    semantics: str,
) -> Verdict:
    """ltlsynt's verdict on `formula` (inputs `ins`, outputs `outs`), checked (module doc):
    Realizable, Unrealizable (the engine's counter-strategy) or Unknown with the reason."""
    outside = _outside(formula, moore, semantics)
    if outside is not None:
        return Unknown(outside)
    limit = Limit(budget)
    try:
        return _asked(formula, ins, outs, moore, semantics, limit)
    except OutOfBudget as error:  # the time or memory the check of its controller had
        return Unknown(str(error))


def _asked(
    formula: Formula,
    ins: Sequence[str],
    outs: Sequence[str],
    moore: bool,
    semantics: str,
    limit: Limit,
) -> Verdict:
    from ltlwit.logic.formula import ap, transform, unop
    from ltlwit.logic.ltl.games import as_played
    from ltlwit.logic.syntax import print_formula

    exact = as_played(formula, semantics, monitor=False)  # weak nexts as X: one next on infinite traces
    names = {**{f"i{k}": a for k, a in enumerate(ins)}, **{f"o{k}": a for k, a in enumerate(outs)}}
    # each proposition its slot; under Moore semantics each input read one instant late,
    # φ[i -> X i], whose Mealy controller reads at t the inputs of t - 1 (`_undelayed`)
    slot = {a: unop("X", ap(k)) if moore and k[0] == "i" else ap(k) for k, a in names.items()}
    asked = transform(
        exact, lambda f, kids: slot[f.name or ""] if f.op == "ap" else f if not kids else Formula(f.op, kids)
    )
    with tempfile.NamedTemporaryFile("w", suffix=".ltl", encoding="utf-8") as file:  # one argument holds 128 KiB
        file.write(print_formula(asked, "spot") + "\n")
        file.flush()
        command = [PROGRAM, "-F", file.name, "--aiger"]
        if ins:
            command.append("--ins=" + ",".join(s for s in names if s[0] == "i"))
        if outs or not ins:
            command.append("--outs=" + ",".join(s for s in names if s[0] == "o"))
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=limit.left().seconds, preexec_fn=_ceiling(limit.memory)
            )
        except subprocess.TimeoutExpired:
            return Unknown(f"{PROGRAM} gave no answer within the budget")
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            return Unknown(f"{PROGRAM} could not be run: {getattr(error, 'strerror', None) or error}")
    lines = done.stdout.splitlines()
    claim = lines[0].strip() if lines else ""
    if claim == "REALIZABLE" and done.returncode == 0:
        return _controller("\n".join(lines[1:]) + "\n", exact, ins, outs, names, moore, limit)
    if claim == "UNREALIZABLE" and done.returncode == 1:
        return _counter_strategy(formula, ins, outs, moore, limit)
    said = next((line.strip() for line in reversed(done.stderr.splitlines()) if line.strip()), "")
    return Unknown(f"{PROGRAM} gave no verdict (exit status {done.returncode}{': ' + said if said else ''})")


def _outside(formula: Formula, moore: bool, semantics: str) -> str | None:
    """Why ltlsynt cannot be asked `formula`, or None."""
    if semantics != "infinite":
        why = f"{semantics} semantics"
    elif formula.past:
        why = "past operators"
    elif formula.data:
        why = "data atoms"
    else:
        return None
    return f"{PROGRAM} plays games over future-time LTL on infinite traces, not {why}: --engine builtin decides them"


def _ceiling(memory: int | None) -> Callable[[], None] | None:
    """What holds ltlsynt to the budget's memory (bytes of address space), where there is one."""
    if memory is None:
        return None

    try:
        import resource  # here, not in the child: an import between fork and exec can deadlock
    except ImportError:  # Windows
        return None

    def held() -> None:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        except (ValueError, OSError):  # a system that does not lower it (macOS): ltlsynt runs unheld
            pass

    return held


def _controller(
    aiger: str,
    exact: Formula,
    ins: Sequence[str],
    outs: Sequence[str],
    names: dict[str, str],
    moore: bool,
    limit: Limit,
) -> Verdict:
    """ltlsynt's circuit, renamed and checked: the machine it is where that is small enough to
    list (a table and a play to show; under Moore semantics the Moore machine it stands for,
    `_undelayed`), else the circuit. Where φ has GR(1) shape the circuit is checked first
    against φ's GR(1) reading, symbolically (`gr1.check_circuit`; a machine's explicit check
    would list every letter of its inputs), with half the time if a machine is listed: it
    proves a controller where the product's tableau is out of reach, but it is stricter than φ
    (the move that breaks an assumption must still keep the system's step), so its refusal is
    no refutation: the product decides a machine, and a circuit it refuses is not verified."""
    from ltlwit.logic.ltl.games import Realizable, StrategyRejected, _played, _proved
    from ltlwit.logic.ltl.games.aiger import Circuit, from_aiger, renamed
    from ltlwit.logic.ltl.games.gr1 import MAX_STATES, MAX_TRANSITIONS, shape
    from ltlwit.logic.ltl.games.machine import Machine

    try:
        circuit = Circuit(tuple(ins), tuple(outs), renamed(aiger, ins, outs, names))
    except ValueError as error:
        return Unknown(f"{PROGRAM}'s controller could not be read: {error}")
    spec = shape(exact, ins)
    controller: Machine | Circuit = circuit
    try:
        controller = from_aiger(circuit.aiger, limit.with_states(MAX_STATES), MAX_TRANSITIONS)
    except OutOfBudget:
        limit.check_time()
        if moore:
            return Unknown(
                f"{PROGRAM}'s controller is a circuit too large to list, and a Moore one is checked as a machine"
            )
        if spec is None:
            return Unknown(
                f"{PROGRAM}'s controller is a circuit too large to list, and φ has no GR(1) shape to check it by"
            )
    unverified = Unknown(f"{PROGRAM}'s controller was not verified within the budget")
    if moore and isinstance(controller, Machine):
        controller, spec = _undelayed(controller, limit), None
    if spec is not None:  # φ's GR(1) reading, symbolically (the explicit check lists 2^n letters)
        try:
            left = limit if isinstance(controller, Circuit) else limit.sub(limit.remaining() / 2)
            verdict = _proved(exact, exact, {}, circuit, 0, left, "gr1")
            if isinstance(verdict, Realizable) and isinstance(controller, Machine):
                # the machine the circuit is (`from_aiger`), to read as a table: its play checked too
                return _played(exact, {}, controller, 0, True, limit) or unverified
            if verdict is not None or isinstance(controller, Circuit):
                return verdict or unverified
        except StrategyRejected:  # the reading is stricter than φ: the product decides a machine
            if isinstance(controller, Circuit):
                return Unknown(f"{PROGRAM}'s controller, too large to list, fails φ's GR(1) reading (stricter than φ)")
    try:
        return _proved(exact, exact, {}, controller, 0, limit) or unverified
    except StrategyRejected:
        return Unknown(f"{PROGRAM} answers REALIZABLE, but the engine refutes its controller: the two disagree")


def _undelayed(machine: Machine, limit: Limit) -> Machine:
    """The Moore controller of φ that a Mealy controller of φ[i -> X i] is, fed each instant's
    inputs one instant late (all false at first): its states are the Mealy machine's
    transitions, each writing what the transition writes, and moving on the inputs as the
    transition's target does."""
    from ltlwit.logic.ltl.games.machine import Machine, Transition, _value

    first = next(k for k, t in enumerate(machine.states[0]) if _value(t.guard, {}))
    index = {(0, first): 0}
    order = [(0, first)]
    states = []
    for s, k in order:
        limit.tick()
        fired = machine.states[s][k]
        row = []
        for k1, t in enumerate(machine.states[fired.target]):
            if (fired.target, k1) not in index:
                index[fired.target, k1] = len(order)
                order.append((fired.target, k1))
            row.append(Transition(t.guard, fired.write, index[fired.target, k1]))
        states.append(tuple(row))
    return Machine("system", machine.reads, machine.writes, True, tuple(states))


def _counter_strategy(formula: Formula, ins: Sequence[str], outs: Sequence[str], moore: bool, limit: Limit) -> Verdict:
    """The engine's verdict where ltlsynt says UNREALIZABLE, its games given what is left of the
    budget: ltlsynt gives no counter-strategy to check. A controller they verify stands."""
    from ltlwit.logic.ltl.games import realize

    verdict = realize(formula, ins, outs, moore, limit.left())
    if isinstance(verdict, Unknown):
        return Unknown(f"{PROGRAM} answers UNREALIZABLE; the engine verified no counter-strategy: {verdict.reason}")
    return verdict
