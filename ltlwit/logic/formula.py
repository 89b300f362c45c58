"""The one formula type of ltlwit: immutable, hash-consed LTL/propositional syntax trees.

Hash-consing makes structurally equal formulas the *same object*, so equality is identity,
hashing is O(1), and the engine can use formulas directly as (parts of) automaton states.
The hash is structural (computed once, from the operator and the children's hashes, an AP's
from its name's CRC), not the object's address: sets of formulas then iterate in the same
order in every process, so the searches' order of work does not depend on where the
allocator happened to put the formulas (with address hashes, one 40-client arbiter took 6
search rounds in one process and 7, twice the time, in another). The intern table needs no
hash of a formula: it keys a node by its operator and its children's ids (`_TABLE`).
It holds formulas weakly, so streaming a large input keeps memory constant.

Constructors never simplify: a parser must return exactly what the user wrote (`1 U a` stays
`1 U a`); rewriting is the engine's business. `&` and `|` are binary, as in Polish notation,
which keeps the tree positional encoding of the neural models well defined.
"""

from __future__ import annotations

import gc
import weakref
import zlib
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

from ltlwit.logic.budget import check_deadline

if TYPE_CHECKING:  # the theory imports this module: its terms are only named here
    from ltlwit.logic.theory.terms import Term

#: Operator spellings used as `Formula.op`. Constants are "1" and "0"; an AP has op "ap" and
#: its name as `name`; a first-order atom over data (`x + 1 > y`) has op "atom" and its `Term`
#: as `term` (`ltlwit.logic.theory`): a leaf to every layer but the theory's.
CONSTANTS = ("1", "0")
ATOM = "atom"
#: The past-time operators, in BLACK's and nuXmv's letters: `Y` yesterday (there is a previous
#: instant and the operand held there), `Z` weak yesterday (or this is the first instant), `O`
#: once, `H` historically, `S` since, `T` triggered (`a T b` = `!(!a S !b)`): the mirror images
#: of X, X, F, G, U and R.
PAST_UNARY = ("Y", "Z", "O", "H")
PAST_BINARY = ("S", "T")
PAST = frozenset(PAST_UNARY + PAST_BINARY)
#: Weak next, BLACK's `wX`: on a finite trace, "if there is a next instant, f holds there",
#: where `X` (strong) demands a next instant; on infinite traces both are the same operator.
WEAK_NEXT = "wX"
UNARY = ("!", "X", "F", "G") + PAST_UNARY + (WEAK_NEXT,)
BINARY = ("&", "|", "->", "<->", "xor", "U", "R", "W", "M") + PAST_BINARY
TEMPORAL = frozenset({"X", "F", "G", "U", "R", "W", "M", WEAK_NEXT}) | PAST
OPERATORS = UNARY + BINARY

_OPCODE = {op: i for i, op in enumerate(OPERATORS)}


class _Ref(weakref.ref["Formula"]):
    """A weak reference to a formula that knows its intern-table key (the standard library's
    `KeyedRef` without its Python-level constructor, a microsecond per node)."""

    __slots__ = ("key",)

    key: tuple


#: The intern table: a formula's key (its operator and its children's ids, or a leaf's name)
#: to a weak reference to it. Children's ids, not the children: their hashes would be Python
#: calls, and a child's id cannot be reused while the formula holding it is alive; the entry
#: goes when the formula is freed (`_forget`, which CPython calls before it frees the children).
_TABLE: dict[tuple, _Ref] = {}


def _forget(ref: _Ref, table: dict[tuple, _Ref] = _TABLE) -> None:
    # the table is bound as a default: at interpreter exit the module's globals may be gone
    if table.get(ref.key) is ref:
        del table[ref.key]


class _Fields:
    """A formula node's fields. A node is built as a `_Node`, whose fields are set by plain
    attribute stores, and then becomes a `Formula`, which forbids them: `object.__setattr__`
    for each of its fields cost a microsecond per node, a second on a multi-megabyte parse."""

    __slots__ = (
        "op",
        "children",
        "name",
        "term",
        "size",
        "temporal",
        "past",
        "weak",
        "data",
        "_aps",
        "_hash",
        "__weakref__",
    )

    op: str
    children: tuple["Formula", ...]
    #: an AP's name; None on every other node (so a node with a name is an AP)
    name: str | None
    #: an atom's comparison or predicate; None on every other node
    term: Term | None
    size: int
    temporal: bool
    #: some node of the formula is a past operator (the engine's automaton and the models are
    #: for future-only formulas; the SAT-based searches take both)
    past: bool
    #: some node of the formula is a weak next `wX` (read as X under infinite semantics)
    weak: bool
    #: some leaf of the formula is a first-order atom over data (op "atom")
    data: bool
    #: the AP names in order of first appearance, set when first asked for (`Formula.aps`):
    #: unset before, which costs the constructor no store
    _aps: tuple[str, ...]
    _hash: int


class _Node(_Fields):
    __slots__ = ()


class Formula(_Fields):
    """A node of a formula tree; build one with the module's constructors, never directly."""

    __slots__ = ()

    def __new__(
        cls, op: str, children: tuple["Formula", ...] = (), name: str | None = None, term: Term | None = None
    ) -> "Formula":
        # Explicit arity cases: this constructor is the hot path of every parser.
        if not children:
            key: tuple = (op, name) if term is None else (op, term)
        elif len(children) == 1:
            key = (op, id(children[0]))
        else:
            key = (op, id(children[0]), id(children[1]))
        ref = _TABLE.get(key)
        if ref is not None:
            found = ref()
            if found is not None:
                return found
        node: _Fields = object.__new__(_Node)
        node.op = op
        node.children = children
        node.name = name
        node.term = term
        if not children:
            node.size, node.temporal, node.past, node.weak = 1, False, False, False
            node.data = op == ATOM
            node._hash = zlib.crc32(f"{op}\0{name if term is None else term}".encode())
        elif len(children) == 1:
            child = children[0]
            node.size = 1 + child.size
            node.temporal = op in TEMPORAL or child.temporal
            node.past = child.past or op in PAST
            node.weak = child.weak or op == WEAK_NEXT
            node.data = child.data
            node._hash = hash((_OPCODE[op], child._hash))
        else:
            left, right = children
            node.size = 1 + left.size + right.size
            node.temporal = op in TEMPORAL or left.temporal or right.temporal
            node.past = left.past or right.past or op in PAST
            node.weak = left.weak or right.weak
            node.data = left.data or right.data
            node._hash = hash((_OPCODE[op], left._hash, right._hash))
        node.__class__ = Formula
        formula: Formula = node  # type: ignore[assignment]  # a Formula now: no checker follows a class change
        ref = _Ref(formula, _forget)
        ref.key = key
        _TABLE[key] = ref
        return formula

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("formulas are immutable")

    def __reduce__(self) -> tuple:
        # Flat, not nested: pickling nested reductions recurses once per level, and a
        # conjunction of a few hundred APs is already too deep for that.
        return (_unflatten, (_flatten(self),))

    # Identity is equality (hash-consing, object's __eq__); the hash is structural (module docstring).
    def __hash__(self) -> int:
        return self._hash

    @property
    def is_ap(self) -> bool:
        return self.op == "ap"

    @property
    def is_constant(self) -> bool:
        return self.op in CONSTANTS

    @property
    def is_propositional(self) -> bool:
        return not self.temporal

    def walk(self) -> Iterator["Formula"]:
        """Nodes in Polish (pre-)order; iterative, so 10,000-deep formulas are fine."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def aps(self, tick: Callable[[], None] | None = None) -> tuple[str, ...]:
        """AP names in order of first appearance in Polish order (the canonical slot order).
        `tick`: as `postorder`'s, on a first call (the answer is kept). Each distinct node is
        visited once, in Polish order: a subformula met again adds no name that its first
        occurrence did not (shared subformulas, as bounded operators spell out, make a tree
        exponentially larger than its nodes: `O[<=3]` nested 12 times is 4^12 leaves)."""
        try:
            return self._aps
        except AttributeError:  # not asked for before
            pass
        names: dict[str, None] = {}
        visited: set[Formula] = set()
        stack = [self]
        while stack:
            node = stack.pop()
            if node in visited:
                continue
            visited.add(node)
            name = node.name
            if name is not None:  # an AP (`_Fields.name`)
                names.setdefault(name, None)
            elif tick is not None and not len(visited) % TICK:
                tick()
            stack.extend(reversed(node.children))
        found = tuple(names)
        object.__setattr__(self, "_aps", found)
        return found

    def to_str(self, syntax: str = "spot") -> str:
        """Render in `spot` (infix), `polish`, `polish-spaced` or `lbt` syntax."""
        from ltlwit.logic.syntax import print_formula

        return print_formula(self, syntax)

    def __str__(self) -> str:
        return self.to_str("spot")

    def __repr__(self) -> str:
        return f"formula({self.to_str('spot')!r})"


#: A formula's node as it is pickled: (op, name, term, indices of the children).
_Flat = tuple[str, "str | None", "Term | None", tuple[int, ...]]


def _flatten(formula: Formula) -> tuple[_Flat, ...]:
    """The distinct nodes of `formula`, children first."""
    order = postorder(formula)
    index = {node: i for i, node in enumerate(order)}
    return tuple((node.op, node.name, node.term, tuple(index[c] for c in node.children)) for node in order)


def _unflatten(nodes: tuple[_Flat, ...]) -> Formula:
    built: list[Formula] = []
    for op, name, term, children in nodes:
        built.append(Formula(op, tuple(built[i] for i in children), name, term))
    return built[-1]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while formulas are built in bulk (a parse, a
    search; also a decorator). Formulas hold no cycles and are freed by reference counting, but
    the collector runs after every few hundred allocations and walks every live object: on a
    2 MB specification's parse it took 2.2 of 5.5 s, and over a search's hundreds of MB of
    states one collection holds the interpreter (and so the deadline) for a quarter of a
    second. Nested uses leave it off until the outermost one ends.

    When the outermost one ends with more than `FREEZE_AFTER` objects built meanwhile and
    still alive (a multi-megabyte parse: 10 million), they are moved out of the collector's
    sight (`gc.freeze`) before it is on again: its next collection would otherwise walk them
    all at once, 0.6 µs each, and a full one later on again, seconds the deadline cannot stop
    (a 10 MB specification: 0.4 s after its parse, then 1.9 s in whatever came next). They
    are still freed by reference counting; only a cycle that was garbage by then is never
    collected."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if gc.get_count()[0] > FREEZE_AFTER:
                gc.freeze()
            gc.enable()


#: Objects built and alive at the end of a `collector_paused` block past which they are frozen.
FREEZE_AFTER = 1_000_000


TRUE = Formula("1")
FALSE = Formula("0")


def ap(name: str) -> Formula:
    """An atomic proposition; any non-empty name (printers quote what needs quoting)."""
    if not isinstance(name, str) or not name:
        raise ValueError("an atomic proposition needs a non-empty name")
    return Formula("ap", (), name)


def atom(term: Term) -> Formula:
    """A first-order atom over data: a comparison or predicate `Term` (`ltlwit.logic.theory`)."""
    if not getattr(term, "is_atom", False):  # also for an untyped caller's non-term
        raise ValueError(f"not an atom: {term!r}")
    return Formula(ATOM, (), None, term)


def const(value: bool) -> Formula:
    return TRUE if value else FALSE


def unop(op: str, child: Formula) -> Formula:
    if op not in UNARY:
        raise ValueError(f"not a unary operator: {op!r}")
    return Formula(op, (child,))


def binop(op: str, left: Formula, right: Formula) -> Formula:
    if op not in BINARY:
        raise ValueError(f"not a binary operator: {op!r}")
    return Formula(op, (left, right))


def Not(f: Formula) -> Formula:  # noqa: N802 - Spot-like constructor names
    return Formula("!", (f,))


def And(*fs: Formula) -> Formula:  # noqa: N802
    """Left-nested conjunction; `And()` is `1`."""
    return _chain("&", fs, TRUE)


def Or(*fs: Formula) -> Formula:  # noqa: N802
    """Left-nested disjunction; `Or()` is `0`."""
    return _chain("|", fs, FALSE)


def _chain(op: str, fs: tuple[Formula, ...], empty: Formula) -> Formula:
    if not fs:
        return empty
    result = fs[0]
    for f in fs[1:]:
        result = Formula(op, (result, f))
    return result


def make(op: str, *children: Formula, name: str | None = None, term: Term | None = None) -> Formula:
    """Generic constructor keyed by operator spelling, for code that maps over trees: an AP
    takes its `name`, an atom its `term`."""
    if op == "ap":
        return ap(name or "")  # no name: ap's own error
    if op == ATOM:
        if term is None:
            raise ValueError("an atom needs a term")
        return atom(term)
    if op in CONSTANTS:
        if children:
            raise ValueError(f"constant {op} takes no operands")
        return Formula(op)
    if op in UNARY and len(children) == 1:
        return Formula(op, children)
    if op in BINARY and len(children) == 2:
        return Formula(op, children)
    raise ValueError(f"bad operator/arity: {op!r}/{len(children)}")


def transform(
    formula: Formula,
    rule: Callable[[Formula, tuple[Formula, ...]], Formula],
    skip: Callable[[Formula], bool] | None = None,
) -> Formula:
    """Rebuild `formula` bottom-up: each node becomes `rule(node, transformed_children)`.

    Iterative (10,000-deep formulas are fine) and each shared subformula is visited once; the
    renamers and rewriters of every layer go through here. Nodes for which `skip(node)` holds
    are kept as they are, children and all.
    """
    done: dict[Formula, Formula] = {}
    stack: list[tuple[Formula, bool]] = [(formula, False)]
    while stack:
        node, ready = stack.pop()
        if node in done:
            continue
        if len(done) % TICK == TICK - 1:  # a rewrite of 100,000s of nodes before a search has its limit
            check_deadline()  # the enclosing deadline_scope's, if any
        if skip is not None and skip(node):
            done[node] = node
        elif ready or not node.children:
            done[node] = rule(node, tuple(done[c] for c in node.children))
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children if c not in done)
    return done[formula]


#: Nodes between two calls of a walk's `tick`.
TICK = 4096


def rebuilt(node: Formula, kids: tuple[Formula, ...]) -> Formula:
    """`node` with `kids` for children, for a `transform` rule: the node itself where they are
    its own (no new node built, its cached fields kept)."""
    return node if all(k is c for k, c in zip(kids, node.children)) else Formula(node.op, kids, node.name)


def postorder(
    formula: Formula,
    descend: Callable[[Formula], bool] | None = None,
    skip: set[Formula] | None = None,
    tick: Callable[[], None] | None = None,
) -> list[Formula]:
    """Distinct nodes, children before parents (left to right), without recursion.

    `descend(node)` False keeps a node's subtree out (the node itself is still listed): the
    SAT encoder wants every node, the 3-valued trace checker stops at propositional leaves.
    `skip`: nodes already listed by an earlier call (updated), for one order over many roots.
    `tick`: called every `TICK` nodes listed (a deadline's reader: a multi-MB formula's walk
    takes most of a second).
    """
    order: list[Formula] = []
    seen: set[Formula] = skip if skip is not None else set()
    stack: list[tuple[Formula, bool]] = [(formula, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            if tick is not None and not len(order) % TICK:
                tick()
            continue
        if node in seen:
            continue
        seen.add(node)
        kids = node.children
        if not kids:  # a leaf is listed at once (what its expanded entry, popped next, would do)
            order.append(node)
            continue
        stack.append((node, True))
        if descend is None or descend(node):
            # explicit arities (one or two: the constructor's): a 1.5 MB specification's walk
            # took 0.6 s with a generator here
            if len(kids) == 2 and kids[1] not in seen:
                stack.append((kids[1], False))
            if kids[0] not in seen:
                stack.append((kids[0], False))
    return order


def conjuncts(f: Formula) -> list[Formula]:
    """The top-level conjuncts of f, left to right (`1` dropped): a state of the SAT-based
    searches holds these, never a conjunction, and a cube is a conjunction of literals."""
    return _operands(f, "&", "1")


def disjuncts(f: Formula) -> list[Formula]:
    """The top-level disjuncts of f, left to right (`0` dropped)."""
    return _operands(f, "|", "0")


def _operands(f: Formula, op: str, unit: str) -> list[Formula]:
    out, stack = [], [f]
    while stack:
        g = stack.pop()
        if g.op == op:
            stack.extend(reversed(g.children))
        elif g.op != unit:
            out.append(g)
    return out
