"""Controllers as AIGER circuits, SYNTCOMP's output format (ASCII `aag`, Biere's AIGER 1.9
without its extensions), and back.

`to_aiger`: the spec's inputs are the circuit's inputs and its outputs the circuit's outputs,
named in the symbol table as the specification names them; the machine's state is ⌈log2 n⌉
latches, reset to 0 (state 0, the initial one). Each output and each next-state bit is the
disjunction, over the states and their transitions that set it, of "in this state and the
guard holds": the guards of a state partition the inputs, so exactly one term fires. AND
gates are hashed structurally.

`from_aiger` reads a circuit back into a machine by evaluating it with BDDs, state by reached
state, so that `games.verify` checks the circuit itself, not the machine it was made from.

A strategy too large to list state by state (a GR(1) strategy over a robot's grid: 10^4 states
and 10^5 transitions, and more) is written straight from its BDDs (`written`: each BDD node a
multiplexer of three AND gates) into a `Circuit`, the controller itself, which `gr1.check_circuit`
model-checks symbolically; `Circuit.play` runs it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ltlwit.logic.assignment import cube
from ltlwit.logic.budget import Limit, OutOfBudget
from ltlwit.logic.formula import And, Formula, conjuncts
from ltlwit.logic.ltl.games.machine import Machine, Transition, guard_formula, letter_of, shannon
from ltlwit.logic.trace import Trace

__all__ = ["Circuit", "from_aiger", "renamed", "to_aiger", "written"]


@dataclass(frozen=True)
class Circuit:
    """A Mealy controller as an ASCII AIGER circuit (`aiger`): its inputs the specification's
    inputs, its outputs the outputs, its latches reset to 0. It stands where a `Machine` does
    for a strategy too large to list, and is what `--format aiger` prints: the text checked is
    the text shown."""

    reads: tuple[str, ...]
    writes: tuple[str, ...]
    aiger: str
    player: str = "system"
    moore: bool = False

    @property
    def latches(self) -> int:
        return _read(self.aiger).latches

    @property
    def gates(self) -> int:
        return len(_read(self.aiger).ands)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "kind": "mealy",
            "reads": list(self.reads),
            "writes": list(self.writes),
            "aiger": self.aiger,
        }

    def to_dot(self) -> str:
        """Graphviz: the and-inverter graph, inputs and latches as boxes, a dashed edge a
        negated one, each latch fed back from its next value."""
        c = _read(self.aiger)
        names = {lit: name for lit, name in zip(c.inputs, self.reads)}
        names.update({lit: f"latch{k}" for k, (lit, _) in enumerate(c.latch_rows)})
        lines = ["digraph circuit {", "  rankdir=BT;"]
        lines += [f'  n{lit} [shape=box, label="{name}"];' for lit, name in names.items()]
        lines += [f'  n{lhs} [shape=circle, label="&"];' for lhs, _, _ in c.ands]
        lines += ['  n0 [shape=box, label="0"];']

        def edge(x: int, to: str) -> str:
            return f"  n{x & ~1} -> {to}" + (" [style=dashed];" if x & 1 else ";")

        for lhs, a, b in c.ands:
            lines += [edge(a, f"n{lhs}"), edge(b, f"n{lhs}")]
        for lit, nxt in c.latch_rows:
            lines.append(edge(nxt, f"n{lit}"))
        for name, x in zip(self.writes, c.outputs):
            lines += [f'  out_{len(lines)} [shape=box, style=bold, label="{name}"];', edge(x, f"out_{len(lines)}")]
        return "\n".join([*lines, "}"]) + "\n"

    def step(self, latches: tuple[bool, ...], inputs: Sequence[bool]) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
        """The outputs written and the next latches, at latches `latches` reading `inputs`."""
        c = _read(self.aiger)
        value = _values(c, [*inputs, *latches], False, lambda v: not v, lambda a, b: a and b)
        return tuple(value(x) for x in c.outputs), tuple(value(n) for _, n in c.latch_rows)

    def play(self, limit: Limit | None = None) -> Trace:
        """The circuit's play against inputs that stay false, as a lasso: it closes when the
        latches come back (OutOfBudget where `limit` runs out first)."""
        c = _read(self.aiger)
        latches = (False,) * c.latches
        seen: dict[tuple[bool, ...], int] = {}
        steps: list[Formula] = []
        while latches not in seen:
            if limit is not None:
                limit.check_time()
            seen[latches] = len(steps)
            outputs, latches = self.step(latches, (False,) * len(self.reads))
            letter = [*((a, False) for a in self.reads), *zip(self.writes, outputs)]
            steps.append(And(*conjuncts(cube(letter))))
        start = seen[latches]
        return Trace(tuple(steps[:start]), tuple(steps[start:]))


@dataclass(frozen=True)
class _Parsed:
    """An ASCII AIGER circuit's rows: literals of the inputs, (latch, next) pairs, outputs,
    AND gates (lhs, a, b), and the symbol table's names."""

    inputs: tuple[int, ...]
    latch_rows: tuple[tuple[int, int], ...]
    outputs: tuple[int, ...]
    ands: tuple[tuple[int, int, int], ...]
    symbols: dict[str, str]

    @property
    def latches(self) -> int:
        return len(self.latch_rows)


_parsed_cache: dict[str, _Parsed] = {}


def _read(text: str) -> _Parsed:
    """The rows of ASCII AIGER `text`, the last one read kept; ValueError where it is not a
    well-formed circuit of this kind: inputs 2, 4, ..., 2I; latches next, reset to 0; each AND
    gate a variable of its own after them, its operands defined before it; every literal used
    defined (the checks read literals as the values they name, so a text that defines one
    twice must not reach them)."""
    hit = _parsed_cache.get(text)
    if hit is not None:
        return hit
    rows = text.splitlines()
    head = re.fullmatch(r"aag (\d+) (\d+) (\d+) (\d+) (\d+)", rows[0].strip() if rows else "")
    if head is None:
        raise ValueError("not an ASCII AIGER file (aag M I L O A)")
    most, n_in, n_latch, n_out, n_and = map(int, head.groups())
    try:
        body = [list(map(int, r.split())) for r in rows[1 : 1 + n_in + n_latch + n_out + n_and]]
    except ValueError:
        raise ValueError("an AIGER row that is not numbers") from None
    if len(body) < n_in + n_latch + n_out + n_and or most < n_in + n_latch + n_and:
        raise ValueError("an AIGER file shorter than its header says")
    inputs, latches = body[:n_in], body[n_in : n_in + n_latch]
    outputs, ands = body[n_in + n_latch : n_in + n_latch + n_out], body[n_in + n_latch + n_out :]
    if inputs != [[2 * (k + 1)] for k in range(n_in)]:
        raise ValueError("AIGER inputs other than 2, 4, ..., 2I")
    if any(len(r) not in (2, 3) or r[0] != 2 * (n_in + 1 + k) or r[2:] not in ([], [0]) for k, r in enumerate(latches)):
        raise ValueError("AIGER latches other than 2(I+1), ... with a next value, reset to 0")
    defined = n_in + n_latch  # variables 1..defined have their values
    for r in ands:
        if len(r) != 3 or r[0] != 2 * (defined + 1) or max(r[1], r[2]) >> 1 > defined:
            raise ValueError("AIGER AND gates out of order, or reading a literal not defined before them")
        defined += 1
    if any(len(r) != 1 for r in outputs) or any(
        x >> 1 > defined for x in [*(r[0] for r in outputs), *(r[1] for r in latches)]
    ):
        raise ValueError("AIGER outputs or latches reading a literal not defined")
    parsed = _Parsed(
        tuple(r[0] for r in inputs),
        tuple((r[0], r[1]) for r in latches),
        tuple(r[0] for r in outputs),
        tuple((r[0], r[1], r[2]) for r in ands),
        dict(re.findall(r"^([ilo]\d+) (\S+)$", "\n".join(rows), flags=re.M)),
    )
    _parsed_cache.clear()
    _parsed_cache[text] = parsed
    return parsed


def _values(
    c: _Parsed, leaves: Sequence[Any], false: Any, neg: Callable[[Any], Any], conj: Callable[[Any, Any], Any]
) -> Callable[[int], Any]:
    """Each literal's value, given the inputs' and then the latches' (`leaves`), in any algebra:
    booleans to run the circuit, BDDs to read it."""
    value = {0: false}
    for lit, v in zip((*c.inputs, *(lit for lit, _ in c.latch_rows)), leaves):
        value[lit] = v

    def of(x: int) -> Any:
        base = value[x & ~1]
        return neg(base) if x & 1 else base

    for lhs, a, b in c.ands:
        value[lhs] = conj(of(a), of(b))
    return of


class _Aig:
    """And-inverter graph under construction: literals are 2*var (+1 negated), 0 false, 1 true."""

    def __init__(self, inputs: int, latches: int) -> None:
        self.next_var = inputs + latches + 1
        self.ands: list[tuple[int, int, int]] = []
        self._hashed: dict[tuple[int, int], int] = {}

    def text(
        self, inputs: Sequence[str], latches: Sequence[tuple[str, int]], outputs: Sequence[tuple[str, int]]
    ) -> str:
        """The circuit in ASCII AIGER: inputs 2, 4, ..., then the latches (each its next
        literal, reset to 0), the outputs' literals, the gates, and the symbol table's names."""
        n_in = len(inputs)
        lines = [f"aag {self.next_var - 1} {n_in} {len(latches)} {len(outputs)} {len(self.ands)}"]
        lines += [str(2 * (k + 1)) for k in range(n_in)]
        lines += [f"{2 * (n_in + 1 + k)} {nxt}" for k, (_, nxt) in enumerate(latches)]
        lines += [str(lit) for _, lit in outputs]
        lines += [f"{lhs} {a} {b}" for lhs, a, b in self.ands]
        lines += [f"i{k} {name}" for k, name in enumerate(inputs)]
        lines += [f"l{k} {name}" for k, (name, _) in enumerate(latches)]
        lines += [f"o{k} {name}" for k, (name, _) in enumerate(outputs)]
        lines += ["c", "ltlwit: a controller checked by the engine against its specification"]
        return "\n".join(lines) + "\n"

    def conj(self, a: int, b: int) -> int:
        if a == 0 or b == 0 or a == b ^ 1:
            return 0
        if a == 1 or a == b:
            return b
        if b == 1:
            return a
        key = (min(a, b), max(a, b))
        hit = self._hashed.get(key)
        if hit is None:
            hit = self._hashed[key] = 2 * self.next_var
            self.ands.append((hit, *key))
            self.next_var += 1
        return hit

    def disj(self, a: int, b: int) -> int:
        return self.conj(a ^ 1, b ^ 1) ^ 1

    def of(self, f: Formula, lits: dict[str, int]) -> int:
        """The literal of a propositional formula over named literals (iteratively)."""
        done: dict[Formula, int] = {}
        stack = [(f, False)]
        while stack:
            node, ready = stack.pop()
            if node in done:
                continue
            if not ready and node.children:
                stack.append((node, True))
                stack.extend((c, False) for c in node.children if c not in done)
                continue
            op = node.op
            if op == "ap":
                done[node] = lits[node.name or ""]
            elif op in ("1", "0"):
                done[node] = 1 if op == "1" else 0
            elif op == "!":
                done[node] = done[node.children[0]] ^ 1
            else:
                a, b = (done[c] for c in node.children)
                if op == "&":
                    done[node] = self.conj(a, b)
                elif op == "|":
                    done[node] = self.disj(a, b)
                elif op == "->":
                    done[node] = self.disj(a ^ 1, b)
                else:
                    same = self.disj(self.conj(a, b), self.conj(a ^ 1, b ^ 1))
                    done[node] = same if op == "<->" else same ^ 1
        return done[f]


def to_aiger(machine: Machine) -> str:
    """The controller as an ASCII AIGER circuit (module docstring)."""
    if machine.player != "system":
        raise ValueError("only a controller is a circuit (SYNTCOMP's AIGER is the system's)")
    n_in, bits = len(machine.reads), (machine.size - 1).bit_length()
    aig = _Aig(n_in, bits)
    lits = {name: 2 * (i + 1) for i, name in enumerate(machine.reads)}
    latch = [2 * (n_in + 1 + b) for b in range(bits)]
    outputs = [0] * len(machine.writes)
    nexts = [0] * bits
    for s, transitions in enumerate(machine.states):
        here = 1
        for b in range(bits):
            here = aig.conj(here, latch[b] if s >> b & 1 else latch[b] ^ 1)
        for t in transitions:
            fires = aig.conj(here, aig.of(t.guard, lits))
            written = letter_of(t.write)
            for j, name in enumerate(machine.writes):
                if written.get(name, False):
                    outputs[j] = aig.disj(outputs[j], fires)
            for b in range(bits):
                if t.target >> b & 1:
                    nexts[b] = aig.disj(nexts[b], fires)
    latches = [(f"state_{b}", nexts[b]) for b in range(bits)]
    return aig.text(machine.reads, latches, list(zip(machine.writes, outputs)))


def from_aiger(text: str, limit: Limit | None = None, transitions: int | None = None) -> Machine:
    """The machine an ASCII AIGER circuit is (a Mealy controller over the inputs and outputs its
    symbol table names); ValueError where the text is no such circuit. `limit` counts its
    states as they are listed (`Limit.tick`: OutOfBudget past its states or time) and reads the
    clock as each state's letters are split by what they write (2^n blocks where n outputs copy
    n inputs); past `transitions` in all, OutOfBudget too."""
    from ltlwit.logic.ltl.encoding.labels import Bdds

    c = _read(text)
    n_in, n_latch, n_out = len(c.inputs), c.latches, len(c.outputs)
    inputs = [c.symbols.get(f"i{k}", f"i{k}") for k in range(n_in)]
    outputs = [c.symbols.get(f"o{k}", f"o{k}") for k in range(n_out)]
    L = Bdds([*inputs, *(f"latch{k}" for k in range(n_latch))])
    lit = _values(c, [L.var(k) for k in range(n_in + n_latch)], L.false, L.neg, lambda a, b: a & b)
    nexts = [lit(n) for _, n in c.latch_rows]
    outs = [lit(o) for o in c.outputs]
    bdd = L.bdd
    names = {f"v{k}": name for k, name in enumerate(inputs)}
    latch_vars = [f"v{n_in + k}" for k in range(n_latch)]
    ids = {0: 0}
    order = [0]
    states: list[tuple[Transition, ...]] = []
    listed = 0  # transitions of the states before
    for code in order:
        if limit is not None:
            limit.tick()
        at = {latch_vars[k]: bool(code >> k & 1) for k in range(n_latch)}
        functions = [bdd.let(at, f) if at else f for f in outs + nexts]
        blocks: list[tuple[Any, tuple[bool, ...]]] = [(bdd.true, ())]
        for f in functions:
            if limit is not None:
                limit.check_time()
            blocks = [
                (part, values + (v,))
                for letters, values in blocks
                for v, part in ((True, letters & f), (False, letters & ~f))
                if part != bdd.false
            ]
            if transitions is not None and listed + len(blocks) > transitions:  # splits only add blocks
                raise OutOfBudget(f"more than {transitions} transitions to list")
        listed += len(blocks)
        row = []
        for letters, values in blocks:
            target = sum(1 << k for k, v in enumerate(values[n_out:]) if v)
            if target not in ids:
                ids[target] = len(order)
                order.append(target)
            write = cube(zip(outputs, values[:n_out]))
            row.append(Transition(guard_formula(bdd, letters, names), write, ids[target]))
        states.append(tuple(row))
    return Machine("system", tuple(inputs), tuple(outputs), False, tuple(states))


def written(
    bdd: Any,
    reads: Sequence[tuple[str, str]],
    latches: Sequence[tuple[str, str, Any]],
    writes: Sequence[tuple[str, Any]],
) -> Circuit:
    """The circuit of functions held as BDDs of `bdd`: `reads` (name, BDD variable) its inputs,
    `latches` (name, BDD variable, its next value: a BDD or a bool) reset to 0, `writes`
    (name, BDD) its outputs. Each BDD node is a multiplexer on its variable, the nodes shared
    by every function and hashed with the gates."""
    n_in = len(reads)
    aig = _Aig(n_in, len(latches))
    lits = {var: 2 * (k + 1) for k, (_, var) in enumerate(reads)}
    lits.update({var: 2 * (n_in + 1 + k) for k, (_, var, _) in enumerate(latches)})
    memo: dict[Any, int] = {bdd.true: 1, bdd.false: 0}

    def literal(u: Any) -> int:
        if isinstance(u, bool):
            return int(u)
        return shannon(u, memo, lambda var, hi, lo: aig.disj(aig.conj(lits[var], hi), aig.conj(lits[var] ^ 1, lo)))

    nexts = [(name, literal(f)) for name, _, f in latches]
    outputs = [(name, literal(f)) for name, f in writes]
    memo.clear()  # CUDD's nodes go before their manager
    names = tuple(name for name, _ in reads)
    return Circuit(names, tuple(name for name, _ in writes), aig.text(names, nexts, outputs))


def renamed(text: str, reads: Sequence[str], writes: Sequence[str], names: dict[str, str]) -> str:
    """Another tool's circuit `text` as this module writes one (what `_read` reads): its inputs
    `reads` and outputs `writes`, in these orders, found by the names its symbol table gives
    them (`names`: the name there -> the name here), its latches after them and its gates in an
    order where each follows its operands, those no output or latch reads dropped. `text` may be
    any ASCII AIGER circuit of this kind (latches reset to 0): variables numbered with gaps, M
    an upper bound, gates in any order, as Spot writes them. An input it does not have is one it
    does not read, an output it does not have one it keeps false (a tool may drop a proposition
    its simplifications find free: the check decides). ValueError where it is no such circuit
    (a literal undefined or defined twice, a cycle of gates), or where its symbol table (to its
    comments) leaves an input or output unnamed, names one twice, or names it after no signal
    read or written here."""
    rows = [r.split() for r in text.splitlines()]
    head = rows[0] if rows else []
    if len(head) != 6 or head[0] != "aag" or not all(x.isdigit() for x in head[1:]):
        raise ValueError("not an ASCII AIGER file (aag M I L O A)")
    n_in, n_latch, n_out, n_and = map(int, head[2:])
    body = rows[1 : 1 + n_in + n_latch + n_out + n_and]
    if len(body) < n_in + n_latch + n_out + n_and or not all(x.isdigit() for r in body for x in r):
        raise ValueError("an AIGER file shorter than its header says, or a row that is not numbers")
    cut = [n_in, n_in + n_latch, n_in + n_latch + n_out]
    ins, latches, outs, ands = ([list(map(int, r)) for r in body[a:b]] for a, b in zip([0, *cut], [*cut, len(body)]))
    if any(len(r) != 1 for r in ins + outs) or any(len(r) not in (2, 3) or r[2:] not in ([], [0]) for r in latches):
        raise ValueError("AIGER rows of the wrong length, or latches not reset to 0")
    if any(len(r) != 3 for r in ands):
        raise ValueError("an AIGER AND gate that is not three literals")
    defined = [r[0] for r in ins + latches + ands]
    if any(x < 2 or x & 1 for x in defined) or len(set(defined)) != len(defined):
        raise ValueError("an AIGER variable defined twice, negated or constant")
    symbols: dict[str, str] = {}  # the symbol table: the lines after the body, to the comments
    for line in text.splitlines()[1 + len(body) :]:
        if line.rstrip() == "c":
            break
        symbol = re.fullmatch(r"([ilo]\d+) (.+)", line.rstrip())
        if symbol is not None:
            symbols[symbol[1]] = symbol[2]
    here = {
        kind: [names.get(symbols.get(f"{kind}{k}", ""), "") for k in range(n)]
        for kind, n in (("i", n_in), ("o", n_out))
    }
    for kind, signal, known in (("i", "input", reads), ("o", "output", writes)):
        for k, name in enumerate(here[kind]):
            if name not in known:
                raise ValueError(f"its {signal} {k} is named no {signal} of the specification's")
        if len(set(here[kind])) != len(here[kind]):
            raise ValueError(f"two of its {signal}s have one name")
    gate = {r[0]: (r[1], r[2]) for r in ands}
    var = {r[0] >> 1: reads.index(name) + 1 for r, name in zip(ins, here["i"])}  # old variable -> new
    var.update({r[0] >> 1: len(reads) + 1 + k for k, r in enumerate(latches)})
    order: list[int] = []  # the gates read, each after its operands (depth first, iteratively)
    path: set[int] = set()  # the gates being numbered: met again below themselves, a cycle
    for root in [r[0] for r in outs] + [r[1] for r in latches]:
        stack = [(root & ~1, False)]
        while stack:
            x, ready = stack.pop()
            if ready:
                path.discard(x)
                var[x >> 1] = len(reads) + n_latch + 1 + len(order)
                order.append(x)
            elif x >= 2 and (x >> 1) not in var:  # not a constant, input, latch or gate numbered
                if x not in gate:
                    raise ValueError(f"AIGER literal {x} is not defined")
                if x in path:
                    raise ValueError("a cycle of AIGER AND gates")
                path.add(x)
                stack += [(x, True), *((y & ~1, False) for y in gate[x])]

    def lit(x: int) -> int:
        return x if x < 2 else 2 * var[x >> 1] | x & 1

    written = dict(zip(here["o"], (r[0] for r in outs)))
    lines = [f"aag {len(reads) + n_latch + len(order)} {len(reads)} {n_latch} {len(writes)} {len(order)}"]
    lines += [str(2 * (k + 1)) for k in range(len(reads))]
    lines += [f"{lit(r[0])} {lit(r[1])}" for r in latches]
    lines += [str(lit(written.get(name, 0))) for name in writes]
    lines += [f"{lit(x)} {lit(gate[x][0])} {lit(gate[x][1])}" for x in order]
    lines += [f"i{k} {name}" for k, name in enumerate(reads)]
    lines += [f"o{k} {name}" for k, name in enumerate(writes)]
    return "\n".join(lines) + "\n"
