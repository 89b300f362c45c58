"""Controllers as AIGER circuits, SYNTCOMP's output format (ASCII `aag`, Biere's AIGER 1.9
without its extensions), and back.

`to_aiger`: the spec's inputs are the circuit's inputs and its outputs the circuit's outputs,
named in the symbol table as the specification names them; the machine's state is ⌈log2 n⌉
latches, reset to 0 (state 0, the initial one). Each output and each next-state bit is the
disjunction, over the states and their transitions that set it, of "in this state and the
guard holds": the guards of a state partition the inputs, so exactly one term fires. AND
gates are hashed structurally.

`from_aiger` reads a circuit back into a machine by evaluating it with BDDs, state by reached
state, so that `games.verify` checks the circuit itself, not the machine it was made from."""

from __future__ import annotations

import re
from typing import Any

from ltlwit.logic.assignment import cube
from ltlwit.logic.formula import Formula
from ltlwit.logic.ltl.games.machine import Machine, Transition, guard_formula, letter_of

__all__ = ["from_aiger", "to_aiger"]


class _Aig:
    """And-inverter graph under construction: literals are 2*var (+1 negated), 0 false, 1 true."""

    def __init__(self, inputs: int, latches: int) -> None:
        self.next_var = inputs + latches + 1
        self.ands: list[tuple[int, int, int]] = []
        self._hashed: dict[tuple[int, int], int] = {}

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
    header = f"aag {aig.next_var - 1} {n_in} {bits} {len(outputs)} {len(aig.ands)}"
    lines = [header, *(str(lits[name]) for name in machine.reads)]
    lines += [f"{latch[b]} {nexts[b]}" for b in range(bits)]
    lines += [str(o) for o in outputs]
    lines += [f"{lhs} {a} {b}" for lhs, a, b in aig.ands]
    lines += [f"i{i} {name}" for i, name in enumerate(machine.reads)]
    lines += [f"l{b} state_{b}" for b in range(bits)]
    lines += [f"o{j} {name}" for j, name in enumerate(machine.writes)]
    lines += ["c", "ltlwit: a controller checked by the engine against its specification"]
    return "\n".join(lines) + "\n"


def from_aiger(text: str) -> Machine:
    """The machine an ASCII AIGER circuit is (a Mealy controller over the inputs and outputs its
    symbol table names); ValueError where the text is no such circuit."""
    from ltlwit.logic.ltl.encoding.labels import Bdds

    rows = text.splitlines()
    head = re.fullmatch(r"aag (\d+) (\d+) (\d+) (\d+) (\d+)", rows[0].strip() if rows else "")
    if head is None:
        raise ValueError("not an ASCII AIGER file (aag M I L O A)")
    _, n_in, n_latch, n_out, n_and = map(int, head.groups())
    body = [list(map(int, r.split())) for r in rows[1 : 1 + n_in + n_latch + n_out + n_and]]
    symbols = dict(re.findall(r"^([ilo]\d+) (\S+)$", "\n".join(rows), flags=re.M))
    inputs = [symbols.get(f"i{k}", f"i{k}") for k in range(n_in)]
    outputs = [symbols.get(f"o{k}", f"o{k}") for k in range(n_out)]
    L = Bdds([*inputs, *(f"latch{k}" for k in range(n_latch))])
    value = {0: L.false}
    for k, row in enumerate(body[:n_in]):
        value[row[0]] = L.var(k)
    for k, row in enumerate(body[n_in : n_in + n_latch]):
        value[row[0]] = L.var(n_in + k)

    def lit(x: int) -> Any:
        base = value[x & ~1]
        return L.neg(base) if x & 1 else base

    for lhs, a, b in body[n_in + n_latch + n_out :]:
        value[lhs] = lit(a) & lit(b)
    nexts = [lit(row[1]) for row in body[n_in : n_in + n_latch]]
    outs = [lit(row[0]) for row in body[n_in + n_latch : n_in + n_latch + n_out]]
    bdd = L.bdd
    names = {f"v{k}": name for k, name in enumerate(inputs)}
    latch_vars = [f"v{n_in + k}" for k in range(n_latch)]
    ids = {0: 0}
    order = [0]
    states: list[tuple[Transition, ...]] = []
    for code in order:
        at = {latch_vars[k]: bool(code >> k & 1) for k in range(n_latch)}
        functions = [bdd.let(at, f) if at else f for f in outs + nexts]
        blocks: list[tuple[Any, tuple[bool, ...]]] = [(bdd.true, ())]
        for f in functions:
            blocks = [
                (part, values + (v,))
                for letters, values in blocks
                for v, part in ((True, letters & f), (False, letters & ~f))
                if part != bdd.false
            ]
        transitions = []
        for letters, values in blocks:
            target = sum(1 << k for k, v in enumerate(values[n_out:]) if v)
            if target not in ids:
                ids[target] = len(order)
                order.append(target)
            write = cube(zip(outputs, values[:n_out]))
            transitions.append(Transition(guard_formula(bdd, letters, names), write, ids[target]))
        states.append(tuple(transitions))
    return Machine("system", tuple(inputs), tuple(outputs), False, tuple(states))
