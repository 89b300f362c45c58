"""Terms and first-order atoms: what a requirement over data compares (`kgs <= 20.0`,
`lift_mode = thrust_borne`, `next(x) = x + 1`, `f(n) = 2 * f(n - 1) + c`).

An atom is a leaf of the one formula type (`formula.atom(term)`: op "atom", its `term` this
package's `Term`), so every layer
that walks formulas (the printers, the rewriting, the step encoding once atoms are abstracted
into propositions) keeps its shape; what an atom means is this package's business. Terms are
hash-consed like formulas: structurally equal terms are the same object, so an atom is keyed
in the formula intern table by identity and compared in O(1).

Operators (`Term.op`):
- leaves: `var` (a flexible variable: its value may change at every instant; `name`), `num`
  (a numeral, `name` its text as written: `10`, `10.0`, `0.0001`; a decimal point makes it
  Real);
- arithmetic: `+ - * /` (binary), `neg` (unary minus), `mod`;
- `call`: a function applied to terms (`name`): FRET's built-ins (`absReal`, `absInt`, `abs`,
  `preReal`, `preInt`, `min`, `max`, ...) or an uninterpreted function symbol, which is rigid
  (the same function at every instant, as in BLACK's LTLf-modulo-theories paper);
- shifts: `next wnext prev wprev` (BLACK's): the operand's value at the next or previous
  instant; strong (`next`, `prev`) or weak (`wnext`, `wprev`) where that instant is missing;
- atoms (Boolean-valued): the comparisons `= != < <= > >=` of two terms, and `pred`, an
  uninterpreted predicate applied to terms (`det_3x3(a, b, ...)`, `user(x1, x2)`).

Everything is iterative where depth comes from the input (FRET's Lustre definitions nest a
`pre` 200 deep).
"""

from __future__ import annotations

import weakref
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from ltlwit.logic.formula import Formula

#: The comparison operators, and their negations (for printing and rewriting).
RELATIONS = ("=", "!=", "<", "<=", ">", ">=")
NEGATED = {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
ARITHMETIC = ("+", "-", "*", "/", "mod")
SHIFTS = ("next", "wnext", "prev", "wprev")
#: How far and which way a shift moves, and whether it is strong.
SHIFT_STEP = {"next": (1, True), "wnext": (1, False), "prev": (-1, True), "wprev": (-1, False)}
ATOM_OPS = frozenset(RELATIONS) | {"pred"}
#: FRET's `preReal(init, e)`, `preInt(init, e)`: `init` at the first instant, e at the previous
#: one at any other (decided at the instant the call is read at, after shifts and outer ones).
PRE = frozenset({"preReal", "preInt"})

_TABLE: "weakref.WeakValueDictionary[tuple, Term]" = weakref.WeakValueDictionary()


class Term:
    """A node of a term or atom; build one with the module's constructors."""

    __slots__ = ("op", "children", "name", "_hash", "__weakref__")

    op: str
    children: tuple["Term", ...]
    #: what a `var`, `num`, `call` or `pred` node names (`symbol`); None on the operators'
    name: str | None
    _hash: int

    def __new__(cls, op: str, children: tuple["Term", ...] = (), name: str | None = None) -> "Term":
        key = (op, name, *map(id, children))
        found = _TABLE.get(key)
        if found is not None:
            return found
        node = object.__new__(cls)
        object.__setattr__(node, "op", op)
        object.__setattr__(node, "children", children)
        object.__setattr__(node, "name", name)
        object.__setattr__(node, "_hash", hash((op, name, *(c._hash for c in children))))
        _TABLE[key] = node
        return node

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("terms are immutable")

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple:
        return (_unflatten, (_flatten(self),))

    @property
    def symbol(self) -> str:
        """The name of a `var`, `num`, `call` or `pred` node, always set there: the variable,
        the numeral as written, the function or predicate."""
        name = self.name
        if name is None:
            raise ValueError(f"a {self.op} term names nothing")
        return name

    @property
    def is_atom(self) -> bool:
        return self.op in ATOM_OPS

    @property
    def value(self) -> Fraction:
        """A numeral's exact value."""
        assert self.op == "num"
        return Fraction(self.symbol)

    @property
    def decimal(self) -> bool:
        """A numeral written with a decimal point: Real, never Int (BLACK's typing)."""
        return self.op == "num" and "." in (self.name or "")

    def walk(self) -> Iterator["Term"]:
        """Nodes in pre-order, iteratively."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def variables(self) -> tuple[str, ...]:
        """Variable names in order of first appearance."""
        return tuple(dict.fromkeys(n.symbol for n in self.walk() if n.op == "var"))

    def __str__(self) -> str:
        from ltlwit.logic.theory.printing import print_term

        return print_term(self)

    def __repr__(self) -> str:
        return f"term({str(self)!r})"


def _flatten(term: Term) -> tuple[tuple[str, str | None, tuple[int, ...]], ...]:
    order: list[Term] = []
    index: dict[Term, int] = {}
    stack: list[tuple[Term, bool]] = [(term, False)]
    while stack:
        node, ready = stack.pop()
        if node in index:
            continue
        if ready:
            index[node] = len(order)
            order.append(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(node.children) if c not in index)
    return tuple((n.op, n.name, tuple(index[c] for c in n.children)) for n in order)


def _unflatten(nodes: tuple[tuple[str, str | None, tuple[int, ...]], ...]) -> Term:
    built: list[Term] = []
    for op, name, children in nodes:
        built.append(Term(op, tuple(built[i] for i in children), name))
    return built[-1]


# -- constructors -------------------------------------------------------------------------
def var(name: str) -> Term:
    if not isinstance(name, str) or not name:
        raise ValueError("a variable needs a non-empty name")
    return Term("var", (), name)


def num(value: int | str | Fraction) -> Term:
    """A numeral: an int, a decimal string (`"10.0"`, kept as written), or a Fraction
    (written as a decimal when it has a finite one, else as a quotient `1/3`)."""
    if isinstance(value, bool):
        raise TypeError("a numeral is not a bool")
    if isinstance(value, int):
        return Term("num", (), str(value)) if value >= 0 else Term("neg", (Term("num", (), str(-value)),))
    if isinstance(value, str):
        Fraction(value)  # validates
        return Term("num", (), value)
    if value < 0:
        return Term("neg", (num(-value),))
    if value.denominator == 1:
        return Term("num", (), str(value.numerator))
    text = _decimal(value)
    if text is not None:
        return Term("num", (), text)
    # a decimal numerator: the quotient is Real wherever it stands (`1.0 / 3`)
    return Term("/", (Term("num", (), f"{value.numerator}.0"), num(value.denominator)))


def _decimal(value: Fraction) -> str | None:
    """The finite decimal expansion of a non-negative fraction, or None (`1/3`)."""
    den = value.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return None
    digits = max(twos, fives)
    scaled = value * 10**digits
    whole, frac = divmod(int(scaled), 10**digits)
    return f"{whole}.{frac:0{digits}d}"


def relation(op: str, left: Term, right: Term) -> Term:
    if op not in RELATIONS:
        raise ValueError(f"not a comparison: {op!r}")
    return Term(op, (left, right))


# -- traversal ----------------------------------------------------------------------------
def transform(term: Term, rule: Callable[[Term, tuple[Term, ...]], Term]) -> Term:
    """Rebuild bottom-up, iteratively: each node becomes `rule(node, new_children)`."""
    done: dict[Term, Term] = {}
    stack: list[tuple[Term, bool]] = [(term, False)]
    while stack:
        node, ready = stack.pop()
        if node in done:
            continue
        if ready or not node.children:
            done[node] = rule(node, tuple(done[c] for c in node.children))
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children if c not in done)
    return done[term]


def reads(term: Term) -> set[int]:
    """The instants relative to the atom's own that it may read: each shift's and each
    variable's (whether an instant exists matters as its values do: `prev(1)`), and through a
    `pre` both its branches (`init` where the call is read, e one instant before): what links
    a pattern of atoms across instants (`ltl.searches.refinement`) and how far a lasso's values must
    close (`ltl.searches.smt_bounded`)."""
    out: set[int] = set()
    stack: list[tuple[Term, int]] = [(term, 0)]
    while stack:
        node, at = stack.pop()
        if node.op == "var":
            out.add(at)
        elif node.op in SHIFT_STEP:
            out.add(at + SHIFT_STEP[node.op][0])
            stack.append((node.children[0], at + SHIFT_STEP[node.op][0]))
        elif node.op == "call" and node.name in PRE:
            stack.extend([(node.children[0], at), (node.children[1], at - 1)])
        else:
            stack.extend((c, at) for c in node.children)
    return out or {0}


def horizon(term: Term) -> int:
    """The first instant from which every `pre` of the atom reads its e (no longer its init):
    0 for an atom without one. Below it the atom's reads depend on where the trace starts."""
    out = 0
    stack: list[tuple[Term, int, int]] = [(term, 0, 0)]  # node, shifts' offset, enclosing pres
    while stack:
        node, at, pres = stack.pop()
        if node.op in SHIFT_STEP:
            stack.append((node.children[0], at + SHIFT_STEP[node.op][0], pres))
        elif node.op == "call" and node.name in PRE:
            out = max(out, pres - at + 1)  # read at i + at - (enclosing e-branches) = 0 somewhere below
            stack.extend([(node.children[0], at, pres), (node.children[1], at, pres + 1)])
        else:
            stack.extend((c, at, pres) for c in node.children)
    return out


def branch_reads(term: Term, first: int | None) -> list[tuple[int, bool]]:
    """The reads (offset from the atom's instant, strong) the atom makes at instant `first`
    (None: at an instant past its `horizon`, where every `pre` reads its e), each `pre` decided
    where it is read, as the exact evaluator does (`evaluate._reads`: each shift's instant and
    each variable's)."""
    out: list[tuple[int, bool]] = []
    stack: list[tuple[Term, int, bool]] = [(term, 0, False)]
    while stack:
        node, at, strong = stack.pop()
        if node.op == "var":
            out.append((at, strong))
        elif node.op in SHIFT_STEP:
            step, s = SHIFT_STEP[node.op]
            out.append((at + step, strong or s))
            stack.append((node.children[0], at + step, strong or s))
        elif node.op == "call" and node.name in PRE:
            init, e = node.children
            at_first = first is not None and first + at == 0
            stack.append((init, at, strong) if at_first else (e, at - 1, strong))
        else:
            stack.extend((c, at, strong) for c in node.children)
    return out


def has_pre(term: Term) -> bool:
    """Whether the atom's meaning depends on where the trace starts (a `pre` call)."""
    return any(n.op == "call" and n.name in PRE for n in term.walk())


def offsets(term: Term) -> Iterator[tuple[str, int, bool]]:
    """Each variable occurrence as (name, offset, strong): the instant it is read at relative
    to the atom's own (`next(x)`: +1; `prev(prev(y))`: -2), and whether a strong shift on its
    way demands that instant (strong wins: `next(wnext(x))` is strong)."""
    stack: list[tuple[Term, int, bool]] = [(term, 0, False)]
    while stack:
        node, at, strong = stack.pop()
        if node.op == "var":
            yield node.symbol, at, strong
            continue
        step = SHIFT_STEP.get(node.op)
        if step is not None:
            stack.append((node.children[0], at + step[0], strong or step[1]))
            continue
        stack.extend((c, at, strong) for c in node.children)


def substituted(formula: Formula, values: dict[str, str]) -> Formula:
    """`formula` with the variables named in `values` replaced by those numerals in every atom
    (FRET's constants: `ap_nominal_state` is `1.0`)."""
    from ltlwit.logic.formula import Formula, atom
    from ltlwit.logic.formula import transform as transform_formula

    def term_rule(node: Term, kids: tuple[Term, ...]) -> Term:
        if node.op == "var" and node.symbol in values:
            text = values[node.symbol]
            return Term("neg", (Term("num", (), text[1:]),)) if text.startswith("-") else Term("num", (), text)
        return Term(node.op, kids, node.name) if kids else node

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.term is not None:  # an atom
            return atom(transform(node.term, term_rule))
        return Formula(node.op, kids, node.name) if kids else node

    return transform_formula(formula, rule, skip=lambda node: not node.data)
