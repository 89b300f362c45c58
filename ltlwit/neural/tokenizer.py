"""Token ids for formulas, traces and assignments: a fixed base vocabulary plus unbounded AP slots.

Slot i stands for the i-th AP of the canonical renaming (`ltlwit.logic.rename.slot_name(i)`:
`a`..`z`, then `p26`, `p27`, ...), so the id of an AP says nothing about its user-facing name
and a model never sees more than "the i-th AP". Formulas are written in Polish order straight
from the AST (no printing and re-lexing). Traces use DeepLTL's `step;step;{step;step}` layout
and assignments its `a1c0` layout, APs in slot order.

Decoding returns a `DecodeError` value instead of raising: beam search produces many invalid
token strings and simply drops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, Union

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import BINARY, UNARY, Formula, ap
from ltlwit.logic.rename import slot_name
from ltlwit.logic.trace import Trace

BASE_TOKENS: tuple[str, ...] = (
    "<pad>",
    "<eos>",
    "<start>",
    "0",
    "1",
    "!",
    "&",
    "|",
    "X",
    "U",
    "F",
    "G",
    "R",
    "W",
    "M",
    "->",
    "<->",
    "xor",
    ";",
    "{",
    "}",
)
#: Number of base (non-interchangeable) tokens; AP slot i has id N_BASE + i.
N_BASE = len(BASE_TOKENS)
PAD, EOS, START = 0, 1, 2
_ID = {tok: i for i, tok in enumerate(BASE_TOKENS)}
ZERO, ONE, SEMI, LBRACE, RBRACE = _ID["0"], _ID["1"], _ID[";"], _ID["{"], _ID["}"]
#: Operand count of each base token (0 for constants, delimiters and specials); APs have 0.
ARITY: tuple[int, ...] = tuple(1 if t in UNARY else 2 if t in BINARY else 0 for t in BASE_TOKENS)

Witness = Union[Trace, Assignment]


@dataclass(frozen=True)
class DecodeError:
    """Why a token string is not a well-formed formula/trace/assignment (a value, not raised)."""

    reason: str
    position: int


def slot_token(i: int) -> int:
    return N_BASE + i


def slot_index(name: str) -> int:
    """Inverse of `slot_name`: `a` -> 0, `z` -> 25, `p26` -> 26; ValueError for other names."""
    if len(name) == 1 and "a" <= name <= "z":
        return ord(name) - ord("a")
    if name.startswith("p") and name[1:].isdigit() and int(name[1:]) >= 26 and slot_name(int(name[1:])) == name:
        return int(name[1:])
    raise ValueError(f"AP {name!r} is not a slot name (rename the formula canonically first)")


def canonical_slots(formula: Formula) -> dict[str, int]:
    """AP name -> slot by first appearance in Polish order (the canonical renaming's order)."""
    return {name: i for i, name in enumerate(formula.aps())}


def _slot(name: str, slots: Mapping[str, int] | None) -> int:
    if slots is None:
        return slot_index(name)
    try:
        return slots[name]
    except KeyError:
        raise ValueError(f"AP {name!r} has no slot") from None


def encode_formula(formula: Formula, slots: Mapping[str, int] | None = None) -> list[int]:
    """Polish-order ids. Without `slots`, AP names must be slot names (`a`, `b`, ..., `p26`)."""
    return [N_BASE + _slot(str(n.name), slots) if n.op == "ap" else _ID[n.op] for n in formula.walk()]


def encode_trace(trace: Trace, slots: Mapping[str, int] | None = None) -> list[int]:
    ids: list[int] = []
    for step in trace.prefix:
        ids += encode_formula(step, slots)
        ids.append(SEMI)
    ids.append(LBRACE)
    for i, step in enumerate(trace.cycle):
        if i:
            ids.append(SEMI)
        ids += encode_formula(step, slots)
    ids.append(RBRACE)
    return ids


def encode_assignment(assignment: Assignment, slots: Mapping[str, int] | None = None) -> list[int]:
    """`a1c0` layout with APs in slot order (an assignment is a set; slot order makes it canonical)."""
    pairs = sorted((_slot(name, slots), value) for name, value in assignment.values)
    ids: list[int] = []
    for slot, value in pairs:
        ids += [N_BASE + slot, ONE if value else ZERO]
    return ids


def encode_witness(task: str, witness: Witness, slots: Mapping[str, int] | None = None) -> list[int]:
    """Target ids for a task: `ltl` -> trace, `prop` -> assignment."""
    if task not in ("ltl", "prop"):
        raise ValueError(f"unknown task {task!r} (expected ltl or prop)")
    if task == "ltl" and isinstance(witness, Trace):
        return encode_trace(witness, slots)
    if task == "prop" and isinstance(witness, Assignment):
        return encode_assignment(witness, slots)
    raise TypeError(
        f"a {task} target is {'a Trace' if task == 'ltl' else 'an Assignment'}, not {type(witness).__name__}"
    )


def _strip(ids: Sequence[int]) -> list[int]:
    ids = list(ids)
    return ids[: ids.index(EOS)] if EOS in ids else ids


def _formula_at(ids: list[int], start: int, stop: int) -> tuple[Formula, int] | DecodeError:
    """Parse one Polish formula from ids[start:stop]; returns it and the index after it."""
    stack: list[tuple[int, list[Formula]]] = []  # (operator id, operands so far)
    i = start
    while True:
        if i >= stop:
            return DecodeError("formula ends early", i)
        t = ids[i]
        i += 1
        if t >= N_BASE:
            node = ap(slot_name(t - N_BASE))
        elif t in (ZERO, ONE):
            node = Formula(BASE_TOKENS[t])
        elif ARITY[t]:
            stack.append((t, []))
            continue
        else:
            return DecodeError(f"unexpected {BASE_TOKENS[t]!r} in a formula", i - 1)
        while stack:
            op, args = stack[-1]
            args.append(node)
            if len(args) < ARITY[op]:
                break
            stack.pop()
            node = Formula(BASE_TOKENS[op], tuple(args))
        if not stack:
            return node, i


def decode_formula(ids: Sequence[int]) -> Formula | DecodeError:
    ids = _strip(ids)
    got = _formula_at(ids, 0, len(ids))
    if isinstance(got, DecodeError):
        return got
    formula, end = got
    if end != len(ids):
        return DecodeError("tokens after a complete formula", end)
    return formula


def decode_trace(ids: Sequence[int]) -> Trace | DecodeError:
    """Inverse of `encode_trace`: `(step ;)* { step (; step)* }`, steps propositional."""
    ids = _strip(ids)
    prefix: list[Formula] = []
    cycle: list[Formula] = []
    i, n, in_cycle = 0, len(ids), False
    while True:
        if i < n and ids[i] == LBRACE and not in_cycle:
            in_cycle, i = True, i + 1
            continue
        got = _formula_at(ids, i, n)
        if isinstance(got, DecodeError):
            return got
        step, i = got
        if step.temporal:
            return DecodeError("temporal operator in a trace step", i - 1)
        (cycle if in_cycle else prefix).append(step)
        if i < n and ids[i] == SEMI:
            i += 1
            continue
        if in_cycle and i < n and ids[i] == RBRACE:
            if i + 1 != n:
                return DecodeError("tokens after the cycle", i + 1)
            return Trace(tuple(prefix), tuple(cycle))
        return DecodeError("expected ';' or '}'" if in_cycle else "expected ';'", i)


def decode_assignment(ids: Sequence[int]) -> Assignment | DecodeError:
    """Inverse of `encode_assignment`; any AP order is accepted, an AP given twice is an error."""
    ids = _strip(ids)
    if len(ids) % 2:
        return DecodeError("an AP without a value", len(ids) - 1)
    values: dict[str, bool] = {}
    for i in range(0, len(ids), 2):
        slot, value = ids[i], ids[i + 1]
        if slot < N_BASE:
            return DecodeError(f"expected an AP, got {BASE_TOKENS[slot]!r}", i)
        if value not in (ZERO, ONE):
            return DecodeError("expected 0 or 1 after an AP", i + 1)
        name = slot_name(slot - N_BASE)
        if name in values:
            return DecodeError(f"AP {name} assigned twice", i)
        values[name] = value == ONE
    return Assignment.of(values)


def decode_witness(task: str, ids: Sequence[int]) -> Witness | DecodeError:
    if task == "ltl":
        return decode_trace(ids)
    if task == "prop":
        return decode_assignment(ids)
    raise ValueError(f"unknown task {task!r} (expected ltl or prop)")


def render(ids: Sequence[int]) -> str:
    """Human-readable token string (`&a!b;{1}`, slots as their names), for logs and errors."""
    out = []
    for t in ids:
        name = BASE_TOKENS[t] if t < N_BASE else slot_name(t - N_BASE)
        out.append(name if len(name) == 1 or t < N_BASE else f"[{name}]")
    return "".join(out)
