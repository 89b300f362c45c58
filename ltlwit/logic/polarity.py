"""Subformula occurrences by position, with their polarity, and replacing them by position.

An occurrence is a node of the formula tree, numbered in Polish (pre-)order as `Formula.walk`
lists them. Its polarity says in which direction the formula depends on it: every operator is
monotone in its operands except `!` and the left of `->` (which flip it) and `<->`/`xor`
(under which it is both). So for an occurrence of positive polarity, replacing it by `1`
weakens the formula (the original implies the result) and by `0` strengthens it; negative
polarity the other way round. Vacuity (`ltlwit.specs.vacuity`) strengthens one AP occurrence at
a time; the fine unsat core (`ltlwit.logic.core`) weakens many occurrences at once.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Mapping, Sequence

from ltlwit.logic.formula import FALSE, TRUE, Formula, rebuilt, transform

#: +1 positive, -1 negative, 0 both (under `<->` or `xor`).
Polarity = int


def polarities(formula: Formula) -> list[Polarity]:
    """The polarity of each node, in Polish order (`formula.walk()`'s)."""
    out: list[Polarity] = []
    stack: list[tuple[Formula, Polarity]] = [(formula, 1)]
    while stack:
        node, polarity = stack.pop()
        out.append(polarity)
        stack.extend(reversed(_children_polarities(node, polarity)))
    return out


def ap_polarities(formula: Formula) -> dict[str, set[Polarity]]:
    """Each proposition's polarities over its occurrences, each shared subformula visited once
    per polarity (a bounded operator's copies make the tree exponentially larger than its
    nodes: `O[<=3]` nested 14 times is 4^14 leaves)."""
    found: dict[str, set[Polarity]] = {}
    seen: set[tuple[Formula, Polarity]] = set()
    stack: list[tuple[Formula, Polarity]] = [(formula, 1)]
    while stack:
        node, polarity = stack.pop()
        if (node, polarity) in seen:
            continue
        seen.add((node, polarity))
        if node.op == "ap":
            found.setdefault(node.name or "", set()).add(polarity)
        stack.extend(_children_polarities(node, polarity))
    return found


def with_aps(formula: Formula, table: Mapping[str, Formula]) -> Formula:
    """`formula` with the propositions `table` names replaced by its formulas."""

    def fill(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.op == "ap" and node.name in table:
            return table[node.name or ""]
        return rebuilt(node, kids)

    return transform(formula, fill)


def _children_polarities(node: Formula, polarity: Polarity) -> list[tuple[Formula, Polarity]]:
    """`node`'s children, in order, each with its polarity when `node` has `polarity`."""
    kids = node.children
    if node.op == "!":
        return [(kids[0], -polarity)]
    if node.op in ("<->", "xor"):
        return [(kids[0], 0), (kids[1], 0)]
    if node.op == "->":
        return [(kids[0], -polarity), (kids[1], polarity)]
    return [(k, polarity) for k in kids]


def weakening(polarity: Polarity) -> Formula | None:
    """The constant that weakens a formula in place of an occurrence of this polarity (None
    under `<->`/`xor`, where neither does)."""
    return TRUE if polarity > 0 else FALSE if polarity < 0 else None


def child_positions(node: Formula, index: int) -> list[int]:
    """The positions of the children of `node`, which is at position `index`."""
    out, offset = [], index + 1
    for child in node.children:
        out.append(offset)
        offset += child.size
    return out


def replace_at(formula: Formula, index: int, value: Formula) -> Formula:
    """The formula with the subformula at Polish position `index` replaced by `value`."""
    if not 0 <= index < formula.size:
        raise IndexError(f"no position {index} in a formula of size {formula.size}")
    return replace_many(formula, {index: value})


def replace_many(formula: Formula, values: Mapping[int, Formula]) -> Formula:
    """The formula with the subformula at each Polish position in `values` replaced (positions
    inside a replaced subtree are ignored)."""
    if not values:
        return formula
    inside = sorted(values)  # a subtree at p of size s is rebuilt only if some position is in (p, p + s)
    # Iterative: (node, position, ready); children rebuilt before their parent.
    built: list[Formula] = []
    stack: list[tuple[Formula, int, bool]] = [(formula, 0, False)]
    while stack:
        node, position, ready = stack.pop()
        if ready:
            n = len(node.children)
            kids = tuple(built[len(built) - n :])
            del built[len(built) - n :]
            built.append(rebuilt(node, kids))
        elif position in values:
            built.append(values[position])
        elif not node.children or bisect_right(inside, position) == bisect_right(inside, position + node.size - 1):
            built.append(node)
        else:
            stack.append((node, position, True))
            offset, entries = position + 1, []
            for child in node.children:
                entries.append((child, offset, False))
                offset += child.size
            stack.extend(reversed(entries))
    return built[0]


@dataclass(frozen=True)
class Parts:
    """A formula made by putting parts into a template: the proposition `slots[k]` of
    `template`, wherever it occurs, stands for `parts[k]`. A FRET requirement is made so (its
    template filled with the condition, response, stop condition and mode its author wrote,
    some of them several times, some under `!`): its occurrences are the parts', and replacing
    one replaces it in every copy the template makes."""

    template: Formula
    slots: tuple[str, ...]
    parts: tuple[Formula, ...]
    #: What each part is, for people (FRET's "condition", "response"...).
    labels: tuple[str, ...] = ()
    #: What its author wrote around each part, over the slots (FRET's response `H[0,100]
    #: __part_1_0` around its comparison): what a person is shown of the part; none: the
    #: whole formula.
    pieces: tuple[Formula, ...] = ()

    def formula(self, parts: Sequence[Formula] | None = None) -> Formula:
        """The template filled with `parts` (default: its own)."""
        return self._filled(self.template, parts)

    def piece(self, slot: int, parts: Sequence[Formula] | None = None) -> Formula:
        """What its author wrote around part `slot` (`pieces`), filled with `parts`."""
        return self._filled(self.pieces[slot] if slot < len(self.pieces) else self.template, parts)

    def _filled(self, template: Formula, parts: Sequence[Formula] | None) -> Formula:
        return with_aps(template, dict(zip(self.slots, self.parts if parts is None else parts)))

    def polarity(self, slot: int) -> Polarity:
        """The polarity of the template's copies of part `slot`: +1 or -1 where all of them have
        it, 0 where they differ (FRET's `H(!cond) | (... cond ...)`) or one is under `<->`."""
        found = ap_polarities(self.template).get(self.slots[slot], set())
        return found.pop() if len(found) == 1 else 0
