"""Finite-state strategies: a controller (the system's) or a counter-strategy (the
environment's), as the realizability game leaves them, and the two ways ltlwit checks them
with the engine alone, not with the game that made them.

A machine reads the other player's letters and writes its own. A Mealy machine writes after
reading (its letter depends on the state and what it read at that instant); a Moore machine
writes first (its letter depends on the state only). The system under Mealy semantics, as at
SYNTCOMP, is a Mealy machine, and the environment facing it a Moore machine; Moore semantics
swap the two.

`closed_loop` is the machine as an LTL formula over fresh state propositions; every letter
the other player can write has a transition, so the formula constrains the machine's letters
and nothing of the other's. A controller is correct exactly when `closed_loop ∧ ¬φ` is
unsatisfiable, a counter-strategy when `closed_loop ∧ φ` is: the engine's satisfiability
procedure is the model checker (`games.verify`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ltlwit.logic.assignment import cube
from ltlwit.logic.formula import FALSE, TRUE, And, Formula, Not, Or, ap, binop, conjuncts, disjuncts, postorder, unop
from ltlwit.logic.ltl.encoding.labels import make_labels
from ltlwit.logic.trace import Trace

PLAYERS = ("system", "environment")


@dataclass(frozen=True)
class Transition:
    """Where the letters of `guard` (over the letters read) lead: the machine writes `write`
    (a cube over its letters) and moves to state `target`."""

    guard: Formula
    write: Formula
    target: int


@dataclass(frozen=True)
class Machine:
    """A strategy with states 0..n-1 (0 initial); each state's guards are disjoint and cover
    every letter of `reads`. In a Moore machine a state's transitions share one `write`."""

    player: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    moore: bool
    states: tuple[tuple[Transition, ...], ...]

    def __post_init__(self) -> None:
        if self.player not in PLAYERS:
            raise ValueError(f"unknown player {self.player!r}")
        if not self.states:
            raise ValueError("a machine needs a state")

    @property
    def size(self) -> int:
        return len(self.states)

    def output(self, state: int) -> Formula:
        """A Moore machine's letter in `state`."""
        return self.states[state][0].write

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "kind": "moore" if self.moore else "mealy",
            "reads": list(self.reads),
            "writes": list(self.writes),
            "initial": 0,
            "states": [
                [{"guard": str(t.guard), "write": str(t.write), "target": t.target} for t in ts] for ts in self.states
            ],
        }

    def to_dot(self) -> str:
        """Graphviz: states as circles, transitions labelled `guard / write` (Moore: the write
        inside the state)."""
        lines = ["digraph strategy {", "  rankdir=LR;", "  init [shape=point]; init -> s0;"]
        for s, ts in enumerate(self.states):
            label = f"s{s}\\n{_escaped(str(ts[0].write))}" if self.moore else f"s{s}"
            lines.append(f'  s{s} [shape=circle, label="{label}"];')
            for t in ts:
                text = str(t.guard) if self.moore else f"{t.guard} / {t.write}"
                lines.append(f'  s{s} -> s{t.target} [label="{_escaped(text)}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"


def closed_loop(machine: Machine, taken: set[str]) -> Formula:
    """The machine as a formula over its letters, the other player's, and ⌈log2 n⌉ fresh state
    propositions (named apart from `taken`): in state s, on a letter of a guard, it writes the
    transition's letter and is next in the transition's target."""
    bits = max(1, (machine.size - 1).bit_length()) if machine.size > 1 else 0
    prefix = "_q"
    while any(name.startswith(prefix) for name in taken):
        prefix = "_" + prefix
    names = [f"{prefix}{i}" for i in range(bits)]

    def code(s: int) -> Formula:
        return cube((names[i], bool(s >> i & 1)) for i in range(bits))

    rules = []
    for s, ts in enumerate(machine.states):
        moves = []
        for t in ts:
            then = unop("X", code(t.target)) if bits else TRUE
            if not machine.moore:
                then = And(t.write, then)
            moves.append(binop("->", t.guard, then))
        body = And(machine.output(s), *moves) if machine.moore else And(*moves)
        rules.append(binop("->", code(s), body) if bits else body)
    return And(code(0), unop("G", And(*rules)))


def play(machine: Machine, monitors: Mapping[str, tuple[bool, Formula]] | None = None) -> Trace:
    """The play of the machine against the other player writing every letter false but the
    `monitors` among them (`games.monitors`: each its first value, then the value of its
    formula at the instant before), as a lasso: it closes when a state comes back with the
    same monitor values."""
    monitors = monitors or {}
    L = make_labels(machine.reads)
    values = {name: start for name, (start, _) in monitors.items()}
    seen: dict[tuple, int] = {}
    steps: list[Formula] = []
    state = 0
    while (state, tuple(values.values())) not in seen:
        seen[(state, tuple(values.values()))] = len(steps)
        read = {name: values.get(name, False) for name in machine.reads}
        letter = L.cube((i, read[name]) for i, name in enumerate(machine.reads))
        t = next(t for t in machine.states[state] if (L.of(t.guard) & letter) != L.false)
        steps.append(And(*conjuncts(cube(read.items())), *conjuncts(t.write)))
        written = read | letter_of(t.write)
        values = {name: _value(tracked, written) for name, (_, tracked) in monitors.items()}
        state = t.target
    start = seen[(state, tuple(values.values()))]
    return Trace(tuple(steps[:start]), tuple(steps[start:]))


def letter_of(step: Formula) -> dict[str, bool]:
    """The values a cube gives (`a & !b`: a true, b false)."""
    from ltlwit.logic.syntax.words import parse_cube

    return parse_cube(str(step), step).as_dict()


def _value(f: Formula, letter: Mapping[str, bool]) -> bool:
    """A propositional formula's value under a full valuation (absent propositions false)."""
    values: dict[Formula, bool] = {}
    for node in postorder(f):
        if node.op == "ap":
            values[node] = bool(letter.get(node.name or "", False))
        elif node.op in ("1", "0"):
            values[node] = node.op == "1"
        elif node.op == "!":
            values[node] = not values[node.children[0]]
        else:
            a, b = (values[c] for c in node.children)
            values[node] = {"&": a and b, "|": a or b, "->": not a or b, "<->": a == b, "xor": a != b}[node.op]
    return values[f]


def total(machine: Machine) -> bool:
    """Whether every state's guards cover every letter read, each letter once: what makes
    `closed_loop` a claim about every behaviour of the other player."""
    L = make_labels(machine.reads)
    for ts in machine.states:
        covered = L.false
        for t in ts:
            g = L.of(t.guard)
            if (g & covered) != L.false:
                return False
            covered = covered | g
        if covered != L.true:
            return False
        if machine.moore and len({t.write for t in ts}) > 1:
            return False
    return True


def guard_formula(bdd: Any, u: Any, names: dict[str, str]) -> Formula:
    """A BDD over `bdd`'s variables as a formula (Shannon expansion, shared subformulas);
    `names`: BDD variable -> AP name."""
    return shannon(u, {bdd.true: TRUE, bdd.false: FALSE}, lambda var, hi, lo: _ite(ap(names[var]), hi, lo))


def shannon(u: Any, memo: dict[Any, Any], node: Callable[[str, Any, Any], Any]) -> Any:
    """`u` folded over its BDD's nodes, children first: each node's value `node(its variable,
    its high child's value, its low child's)`, complemented edges resolved; `memo` holds the
    constants' values and gathers the rest. Iterative, and without a closure of its own: a
    recursive inner function is a reference cycle, and a cyclic collection that frees CUDD
    nodes together with their manager makes CUDD complain of nodes still referenced."""
    stack = [u]
    while stack:
        v = stack[-1]
        if v in memo:
            stack.pop()
            continue
        var, hi, lo = v.var, v.high, v.low  # the top variable's cofactors, from the node itself
        if v.negated:  # a complemented edge: its node's children negated
            hi, lo = ~hi, ~lo
        missing = [w for w in (hi, lo) if w not in memo]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        memo[v] = node(var, memo[hi], memo[lo])
    return memo[u]


def _ite(x: Formula, hi: Formula, lo: Formula) -> Formula:
    """`x ? hi : lo`, written flat: `a & b & c`, not `a & (b & c)`."""
    if lo is FALSE:
        return x if hi is TRUE else And(x, *conjuncts(hi))
    if hi is FALSE:
        return Not(x) if lo is TRUE else And(Not(x), *conjuncts(lo))
    if hi is TRUE:
        return Or(x, *disjuncts(lo))
    if lo is TRUE:
        return Or(Not(x), *disjuncts(hi))
    return Or(And(x, *conjuncts(hi)), And(Not(x), *conjuncts(lo)))


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
