"""Sorts of the data a formula speaks of, declared or inferred, and the signature a solve uses.

Every variable has one sort: `Bool` (then it is a proposition, as every AP is), `Int`, `Real`,
or an enumeration (`lift_mode: {thrust_borne, semi_thrust_borne, wing_borne}`), whose values
are constants of that sort, mutually exclusive. Declarations come from spec files, FRET's
variable lists and `--var NAME:SORT` (`Declarations`); a variable nobody declared gets its sort
by inference (`resolve`): the variables, numerals and functions one comparison relates share a
sort class (`x < y + 1`, `f(n) = c`), and a class is Real when something in it is (a declared
Real, a numeral with a decimal point, FRET's `absReal`, `preReal`), Int when something is Int
(a declared Int, `mod`, `absInt`, `preInt`), an enumeration when one of its values is in it, and
otherwise `--domain` (BLACK's `-d`) decides; with no domain the sort is unknown, an error that
names the variable and says how to declare it. Integer numerals fit either numeric sort.

Arithmetic happens in the sort of its class: `3 / 2 > x` with `x` Real divides exactly (1.5),
`n / 2` with `n` Int divides as SMT-LIB's `div` (Euclidean: the remainder is never negative).
A function symbol that is not one of the built-ins is uninterpreted and rigid: one function at
every instant, its argument and result sorts inferred like variables'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Mapping

from ltlwit.logic.budget import check_deadline, paced
from ltlwit.logic.formula import Formula, ap, postorder, transform
from ltlwit.logic.theory.terms import RELATIONS, SHIFTS, Term


class SortError(ValueError):
    """A variable whose sort clashes or cannot be told; `name` is the variable."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


class UnknownSort(SortError):
    """Nothing tells a variable's sort (no declaration, no evidence, no domain): unlike a clash,
    another formula that mentions it may tell (`theory.reading`)."""


@dataclass(frozen=True)
class Sort:
    """`Bool`, `Int`, `Real`, or an enumeration (its name and values)."""

    name: str
    values: tuple[str, ...] = ()

    @property
    def enum(self) -> bool:
        return bool(self.values)

    def __str__(self) -> str:
        return "{" + ", ".join(self.values) + "}" if self.values else self.name


BOOL, INT, REAL = Sort("Bool"), Sort("Int"), Sort("Real")
BARE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: Spellings of the base sorts: ltlwit's and BLACK's, SMV's, FRET's and Simulink's data types.
_SPELLINGS = {
    "bool": BOOL,
    "boolean": BOOL,
    "int": INT,
    "integer": INT,
    "int8": INT,
    "int16": INT,
    "int32": INT,
    "int64": INT,
    "uint8": INT,
    "uint16": INT,
    "uint32": INT,
    "uint64": INT,
    "unsigned integer": INT,
    "real": REAL,
    "double": REAL,
    "single": REAL,
    "float": REAL,
}

#: The built-in functions: name -> (sort of the result, or None: the arguments' class).
BUILTINS: dict[str, Sort | None] = {
    "absReal": REAL,
    "absInt": INT,
    "abs": None,
    "min": None,
    "max": None,
    "preReal": REAL,
    "preInt": INT,
}


def parse_sort(text: str, name: str | None = None) -> Sort:
    """A sort as written in a declaration: `Int`, `Real`, `Bool` (any case; also `integer`,
    `double`, `boolean`, Simulink's `int32`...) or an enumeration `{a, b, c}` (named `name`'s
    sort when it has no name of its own)."""
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        values = tuple(v.strip() for v in body[1:-1].split(",") if v.strip())
        if not values:
            raise SortError(f"an enumeration needs values: {text!r}", name)
        if len(set(values)) != len(values):
            raise SortError(f"an enumeration lists a value twice: {text!r}", name)
        from ltlwit.logic.theory.printing import BARE

        bad = next((v for v in values if not BARE.match(v)), None)
        if bad is not None:
            raise SortError(f"enumeration value {bad!r} is not a name", name)
        return Sort("{" + ", ".join(values) + "}", values)  # one sort for every variable with these values
    found = base_sort(body)
    if found is None:
        raise SortError(f"unknown sort {body!r} (expected Int, Real, Bool or an enumeration {{a, b, c}})", name)
    return found


def base_sort(spelling: str) -> Sort | None:
    """Bool, Int or Real as a declaration, a FRET export or a Simulink model spells it (any
    case: `integer`, `double`, `uint8`...), or None."""
    return _SPELLINGS.get(spelling.strip().lower())


#: An uninterpreted function's signature: (name, arity) -> (argument sorts, result sort).
FunctionSort = tuple[tuple[str, int], tuple[tuple[Sort, ...], Sort]]


def signature_text(arguments: tuple[Sort, ...], result: Sort) -> str:
    """`Real^9 -> Bool`, `Int, Real -> Real`: a signature as a message shows it."""
    if len(arguments) > 1 and len(set(arguments)) == 1:
        given = f"{arguments[0]}^{len(arguments)}"
    else:
        given = ", ".join(map(str, arguments))
    return f"{given} -> {result}"


@dataclass(frozen=True)
class Declarations:
    """What the user declared: variables' sorts, and the sort of undeclared numeric ones; and
    what a set of formulas read together fixed (`theory.reading`): every variable's sort and
    every uninterpreted function's signature, so that each formula alone reads its names as the
    set does. Immutable and hashable (a solve's options hold it); `declare` gives a new one."""

    entries: tuple[tuple[str, Sort], ...] = ()
    domain: Sort | None = None
    functions: tuple[FunctionSort, ...] = ()
    #: `entries` by name, built once, on first use: every look-up had built it anew (a FRET
    #: export's 20,000 variables, each declared, built it 20,000 times: 24 s)
    _index: dict[str, Sort] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def variables(self) -> Mapping[str, Sort]:
        """Each declared variable's sort (read-only)."""
        return MappingProxyType(self._by_name())

    def _by_name(self) -> dict[str, Sort]:
        index = self._index
        if index is None:
            index = dict(self.entries)
            object.__setattr__(self, "_index", index)
        return index

    def declare(self, name: str, sort: Sort) -> "Declarations":
        old = self._by_name().get(name)
        if old is not None and old != sort:
            raise SortError(f"variable {name} is declared twice, as {old} and as {sort}", name)
        if old is not None:
            return self
        return Declarations(self.entries + ((name, sort),), self.domain, self.functions)

    def merged(self, other: "Declarations | None") -> "Declarations":
        """These declarations with `other`'s added (a clash of the two is a SortError; its
        domain, when it has one, wins; a function read with two signatures is a SortError too).
        In one pass: declared one by one, each a copy of all before it, a merge was quadratic."""
        if other is None or other == self:
            return self
        known = self._by_name()
        added: dict[str, Sort] = {}
        for name, sort in other.entries:
            old = known.get(name, added.get(name))
            if old is not None and old != sort:
                raise SortError(f"variable {name} is declared twice, as {old} and as {sort}", name)
            if old is None:
                added[name] = sort
        functions = dict(self.functions)
        for key, signature in other.functions:
            old_signature = functions.setdefault(key, signature)
            if old_signature != signature:
                raise SortError(
                    f"function {key[0]} of {key[1]} argument{'s' if key[1] != 1 else ''} is read with two signatures, "
                    f"{signature_text(*old_signature)} and {signature_text(*signature)}",
                    key[0],
                )
        if not added and other.domain is None and len(functions) == len(self.functions):
            return self
        return Declarations(
            self.entries + tuple(added.items()),
            other.domain if other.domain is not None else self.domain,
            tuple(functions.items()),
        )

    def enum_values(self) -> dict[str, Sort]:
        """Each enumeration value's sort; SortError for a value of two different enumerations
        (`on` in `{on, off}` and in `{on, standby}`: which would `x = on` compare?)."""
        values: dict[str, Sort] = {}
        for name, sort in self.entries:
            for v in sort.values:
                if values.setdefault(v, sort) != sort:
                    raise SortError(f"{v} is a value of two enumerations, {values[v]} and {sort} (of {name})", name)
        return values


def parse_domain(text: str) -> Sort:
    """The sort of undeclared numeric variables (BLACK's `-d`): Int or Real."""
    sort = parse_sort(text)
    if sort not in (INT, REAL):
        raise SortError(f"the domain is Int or Real, not {text.strip()}")
    return sort


def parse_declaration(text: str) -> tuple[str, Sort]:
    """`NAME:SORT` (`--var speed:Real`, `--var mode:{off, on}`)."""
    name, sep, sort = text.partition(":")
    name = name.strip()
    if not sep or not name:
        raise SortError(f"expected NAME:SORT (e.g. speed:Real, mode:{{off, on}}), got {text!r}")
    return name, parse_sort(sort, name)


@dataclass(frozen=True)
class Signature:
    """The sorts one solve uses: each data variable's, each enumeration value's, each
    uninterpreted function's by name and arity (argument sorts, result sort: `det(a, b)` and
    `det(a, b, c)` are two functions), and, per atom, the sort each of its terms is computed in
    (`sorts_in`)."""

    variables: Mapping[str, Sort]
    constants: Mapping[str, Sort]
    functions: Mapping[tuple[str, int], tuple[tuple[Sort, ...], Sort]]
    atom_sorts: dict = field(default_factory=dict)

    def sorts_in(self, atom: Term) -> Mapping[Term, Sort]:
        """The sort each term of `atom` (numerals aside: they take their neighbours') is
        computed in: a comparison's terms, and the operands of its arithmetic, share one, Real
        when a variable, numeral or function result among them is Real, else Int (an
        enumeration where they are its values); a function's arguments are computed in theirs
        and converted to its argument sorts. Per atom: `n / 2 = 1` divides integers although
        `n < 3.5` elsewhere compares n as a Real."""
        found = self.atom_sorts.get(atom)
        if found is None:
            found = self.atom_sorts[atom] = _atom_sorts(atom, self)
        return found

    @property
    def empty(self) -> bool:
        return not self.variables and not self.functions


class _Clue(Enum):
    """What a class of terms is known to be short of a sort: a number (`NUMERIC`: an integer
    numeral, arithmetic), a number compared by an order (`ORDERED`: `<`; an enumeration has
    none), an integer (`INTEGRAL`: `mod`, `absInt`, an Int argument), or data an argument
    converts from (`CONVERTIBLE`)."""

    NUMERIC = "numeric"
    ORDERED = "ordered"
    INTEGRAL = "integral"
    CONVERTIBLE = "convertible"


#: What a class of terms is known to be, each with why: a sort (an enumeration's too), or a clue.
_Evidence = Mapping[Sort | _Clue, object]


class _Classes:
    """Union-find over sort slots, with what each class is known to be."""

    def __init__(self) -> None:
        self.parent: dict[object, object] = {}
        self.evidence: dict[object, dict[Sort | _Clue, object]] = {}

    def find(self, x: object) -> object:
        self.parent.setdefault(x, x)
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: object, b: object) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb
            merged = self.evidence.pop(ra, {})
            for kind, why in merged.items():
                self.evidence.setdefault(rb, {}).setdefault(kind, why)

    def note(self, x: object, what: Sort | _Clue, why: object) -> None:
        """`what` is evidence for x's class; `why` is the variable's name, numeral or term
        behind it, printed only in a message (a term printed at each node of a sum of 3,000
        terms was 4.5 million names printed, 25 s before its error)."""
        self.evidence.setdefault(self.find(x), {}).setdefault(what, why)


def boolean_comparisons(formula: Formula, declarations: Declarations | None = None) -> Formula:
    """`formula` with nuXmv's comparisons of Booleans, `p = q` and `p != q`, written as the
    formula's `<->` and `xor`: where one side is a proposition (used as one elsewhere, or
    declared Bool) and the other a name not declared otherwise, both are. A formula left with no
    atom is an ordinary one."""
    if not formula.data:
        return formula
    declared = (declarations or Declarations()).variables
    enums = (declarations or Declarations()).enum_values()
    pairs = dict.fromkeys(
        a.term
        for a in postorder(formula, tick=check_deadline)
        if a.term is not None
        and a.term.op in ("=", "!=")
        and all(c.op == "var" and c.name not in enums for c in a.term.children)
    )
    if not pairs:
        return formula
    booleans = set(formula.aps()) | {n for n, sort in declared.items() if sort == BOOL}
    linked: dict[str, list[str]] = {}  # a name -> the names it is compared with, where both may be Bool
    for t in paced(pairs, check_deadline):
        left, right = (c.symbol for c in t.children)
        if declared.get(left, BOOL) == BOOL and declared.get(right, BOOL) == BOOL:
            linked.setdefault(left, []).append(right)
            linked.setdefault(right, []).append(left)
    reached = [n for n in booleans if n in linked]  # each comparison followed once (a chain of
    while reached:  # 3,000 had been swept 3,000 times: 15 s)
        for other in linked[reached.pop()]:
            if other not in booleans:
                booleans.add(other)
                reached.append(other)

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        t = node.term
        if t is None or t not in pairs or not {c.symbol for c in t.children} <= booleans:
            return node if not kids else Formula(node.op, kids)
        left, right = (ap(c.symbol) for c in t.children)
        return Formula("<->" if t.op == "=" else "xor", (left, right))

    return transform(formula, rule, skip=lambda node: not node.data)


def resolve(formula: Formula, declarations: Declarations | None = None) -> Signature:
    """The signature of `formula`'s data (module docstring); SortError names the variable
    whose sort clashes or cannot be told."""
    decls = declarations or Declarations()
    declared = decls.variables
    enums = decls.enum_values()
    classes = _Classes()
    props = {n for n in formula.aps()}
    atoms = [node.term for node in postorder(formula, tick=check_deadline) if node.term is not None]
    variables: dict[str, None] = {}
    constants: dict[str, Sort] = {}
    functions: dict[tuple[str, int], None] = {}
    seen: set[Term] = set()
    for a in atoms:
        for node in paced(a.walk(), check_deadline):
            if node in seen:
                continue
            seen.add(node)
            op = node.op
            if op in RELATIONS:
                _link(classes, node.children[0], node.children[1])
                if op not in ("=", "!="):  # an order: numbers (`ordered`, so that an enumeration says why)
                    classes.note(node.children[0], _Clue.ORDERED, node)
                continue
            if op == "pred":
                _arguments(classes, node, functions)
                continue
            if op == "var":
                name = node.symbol
                if name in enums:
                    constants[name] = enums[name]
                    classes.note(node, enums[name], name)
                    continue
                variables[name] = None
                classes.union(node, ("var", name))
                sort = declared.get(name)
                if sort is not None:
                    classes.note(node, sort, name)
            elif op == "num":
                continue  # a numeral has no class of its own (`_link`)
            elif op in SHIFTS:
                _link(classes, node, node.children[0])
            elif op in ("+", "-", "*", "/", "mod", "neg"):
                for c in node.children:
                    _link(classes, node, c)
                classes.note(node, INT if op == "mod" else _Clue.NUMERIC, node)
            elif op == "call":
                name = node.symbol
                if name in BUILTINS:
                    result = BUILTINS[name]
                    for c in node.children:
                        _link(classes, node, c)
                    classes.note(node, result or _Clue.NUMERIC, f"{name}(...)")
                else:
                    _arguments(classes, node, functions)
                    classes.union(node, ("fun", name, len(node.children)))
    clash = next((n for n in variables if n in props and declared.get(n) != BOOL), None)
    if clash is not None:
        raise SortError(f"{clash} is used both as a proposition and as a term (a number or value)", clash)
    signatures = dict(decls.functions)
    for key in functions:
        known = signatures.get(key)
        if known is not None:  # read with other formulas (`theory.reading`): their signature
            name, arity = key
            for k, sort in enumerate(known[0]):
                classes.note(("arg", name, arity, k), sort, f"argument {k + 1} of {name}")
            if known[1] != BOOL:
                classes.note(("fun", name, arity), known[1], f"the result of {name}")
    sorts: dict[object, Sort] = {}

    def sort_of_class(x: object, name: str) -> Sort:
        root = classes.find(x)
        if root in sorts:
            return sorts[root]
        sorts[root] = _decide(classes.evidence.get(root, {}), name, decls.domain)
        return sorts[root]

    var_sorts = {}
    for name in variables:
        given = declared.get(name)
        var_sorts[name] = given or sort_of_class(("var", name), name)
        if given is not None:
            sort_of_class(("var", name), name)  # a declared variable's class must agree too
        elif var_sorts[name].enum:  # `mode = c`: most likely a value misspelled, never a new variable
            raise SortError(
                f"{name} is not a value of the enumeration {var_sorts[name]} (nor a declared variable)", name
            )
    for sort in {s for s in var_sorts.values() if s.enum}:
        for value in sort.values:  # a trace may give any value of a variable's sort
            constants.setdefault(value, sort)
    fun_sorts = {}
    for name, arity in functions:
        if name in variables or name in props or declared.get(name) is not None:
            raise SortError(f"{name} is a variable, and is applied to arguments too ({name}(...))", name)
        if ("pred", name, arity) in classes.parent and ("fun", name, arity) in classes.parent:
            raise SortError(f"{name}(...) is used both as a proposition and as a term (a number or value)", name)
        args = tuple(sort_of_class(("arg", name, arity, k), f"argument {k + 1} of {name}") for k in range(arity))
        result = (
            BOOL
            if ("pred", name, arity) in classes.parent
            else sort_of_class(("fun", name, arity), f"the result of {name}")
        )
        if any(s == BOOL for s in args):
            raise SortError(f"{name}'s arguments must be data, not propositions", name)
        fun_sorts[(name, arity)] = (args, result)
        known = signatures.get((name, arity))
        if known is not None and known != (args, result):
            kind = "a predicate" if known[1] == BOOL else "a function" if result == BOOL else "another signature"
            raise SortError(f"{name} is {kind} elsewhere, and is used otherwise here", name)
    sig = Signature(var_sorts, constants, fun_sorts)
    for a in dict.fromkeys(atoms):  # every atom's arithmetic checked now, its errors named now
        sig.sorts_in(a)
    return sig


def _atom_sorts(atom: Term, sig: Signature) -> dict[Term, Sort]:
    """`Signature.sorts_in`: a union-find over the atom's terms, numerals left out (hash-consed,
    one `2` stands for every 2)."""
    classes = _Classes()
    nodes: list[Term] = []
    for node in dict.fromkeys(paced(atom.walk(), check_deadline)):
        op = node.op
        if op == "num":
            continue
        if op in RELATIONS:
            _link(classes, node.children[0], node.children[1])
            continue
        if op == "pred":
            for c, sort in zip(node.children, sig.functions[(node.symbol, len(node.children))][0]):
                classes.find(c)
                _note_target(classes, c, sort)
            continue
        nodes.append(node)
        classes.find(node)
        if op == "var":
            name = node.symbol
            found = sig.variables.get(name) or sig.constants.get(name)
            if found is None:
                raise SortError(f"{name} has no sort", name)
            if found == BOOL:
                raise SortError(f"{name} is a proposition (Bool), used as a number", name)
            classes.note(node, found, name)
        elif op in SHIFTS:
            _link(classes, node, node.children[0])
        elif op in ("+", "-", "*", "/", "mod", "neg"):
            for c in node.children:
                _link(classes, node, c)
            if op == "mod":
                classes.note(node, _Clue.INTEGRAL, node)
        elif op == "call" and node.name in BUILTINS:
            for c in node.children:
                _link(classes, node, c)
            result = BUILTINS[node.symbol]
            if result is not None:
                classes.note(node, result if result == REAL else _Clue.INTEGRAL, f"{node.name}(...)")
        elif op == "call":
            args, result = sig.functions[(node.symbol, len(node.children))]
            classes.note(node, result, f"{node.name}(...)")
            for c, sort in zip(node.children, args):
                _note_target(classes, c, sort)
    out: dict[Term, Sort] = {}
    decided: dict[object, Sort] = {}
    for node in nodes:
        root = classes.find(node)
        if root not in decided:
            decided[root] = _local(classes.evidence.get(root, {}), node)
        out[node] = decided[root]
    for node in nodes:
        if node.op in ("+", "-", "*", "/", "mod", "neg") and out[node].enum:
            raise SortError(f"arithmetic on enumeration values: {node}", None)
        if node.op in ("/", "mod") and _constant_zero(node.children[1]):
            raise SortError(f"division by zero: {node}", None)
    return out


def _note_target(classes: _Classes, term: Term, sort: Sort) -> None:
    """A function argument converted to `sort`: an Int argument cannot take Real data."""
    if term.op != "num":
        classes.note(term, _Clue.INTEGRAL if sort == INT else _Clue.CONVERTIBLE, term)


def _enumerations(evidence: _Evidence) -> list[Sort]:
    return [k for k in evidence if isinstance(k, Sort) and k.enum]


def _local(evidence: _Evidence, node: Term) -> Sort:
    enums = _enumerations(evidence)
    if enums:
        return enums[0]
    real = REAL in evidence
    if real and _Clue.INTEGRAL in evidence:
        raise SortError(f"{evidence[_Clue.INTEGRAL]} needs integers, and {evidence[REAL]} is Real", None)
    return REAL if real else INT


def _constant_zero(term: Term) -> bool:
    from fractions import Fraction

    try:
        return _fold(term) == Fraction(0)
    except (ValueError, ZeroDivisionError):
        return False


def _fold(term: Term):
    """A term of numerals only, as a number (ValueError for anything else)."""
    from fractions import Fraction

    if term.op == "num":
        return term.value
    if term.op == "neg":
        return -_fold(term.children[0])
    if term.op in ("+", "-", "*"):
        a, b = (_fold(c) for c in term.children)
        return a + b if term.op == "+" else a - b if term.op == "-" else a * b
    if term.op == "/":
        a, b = (_fold(c) for c in term.children)
        return Fraction(a) / Fraction(b)
    raise ValueError(term.op)


def _link(classes: _Classes, a: object, b: object) -> None:
    """a and b are computed in one sort. A numeral is never a member of a class: one numeral
    object stands for every `0` of the formula (terms are hash-consed), and joining classes
    through it would make `n > 0` Real because of `r > 0 & r < 0.5`; it only tells its
    neighbour's class what it can be (Real for a decimal)."""
    for x, y in ((a, b), (b, a)):
        if isinstance(y, Term) and y.op == "num":
            if not (isinstance(x, Term) and x.op == "num"):
                classes.note(x, REAL if y.decimal else _Clue.NUMERIC, y.name)
            return
    classes.union(a, b)


def _arguments(classes: _Classes, node: Term, functions: dict[tuple[str, int], None]) -> None:
    key = (node.symbol, len(node.children))
    functions[key] = None
    if node.op == "pred":
        classes.find(("pred", *key))
    for k, c in enumerate(node.children):
        _link(classes, ("arg", *key, k), c)


def _decide(evidence: _Evidence, name: str, domain: Sort | None) -> Sort:
    enums = _enumerations(evidence)
    numeric = {k: why for k, why in evidence.items() if k in (INT, REAL, _Clue.NUMERIC, _Clue.ORDERED)}
    if BOOL in evidence:
        if enums or numeric:
            first = next(iter(numeric), None)
            other = enums[0] if enums else first.name if isinstance(first, Sort) else _Clue.NUMERIC.value
            raise SortError(
                f"{evidence[BOOL]} is Bool but is compared or computed with {other} data", str(evidence[BOOL])
            )
        return BOOL
    if len(enums) > 1:
        raise SortError(f"values of two enumerations are compared: {enums[0]} and {enums[1]} (through {name})", name)
    if enums:
        if list(numeric) == [_Clue.ORDERED]:  # no number in sight: `m > a` orders the values
            raise SortError(
                f"{name} is of the enumeration {enums[0]}, which has no order: {numeric[_Clue.ORDERED]} compares "
                "numbers (an enumeration's values compare with = and != only)",
                name,
            )
        if numeric:
            why = next(why for k, why in numeric.items() if k is not _Clue.ORDERED)
            raise SortError(
                f"{name} is of the enumeration {enums[0]} but is compared or computed with the number {why}", name
            )
        return enums[0]
    if REAL in numeric:
        return REAL
    if INT in numeric:
        return INT
    if domain is not None:
        return domain
    how = f"declare it (--var {name}:Int)" if BARE_NAME.match(name) else "declare a variable it is computed with"
    raise UnknownSort(f"the sort of {name} is unknown (Int or Real?): {how} or give --domain Int|Real", name)
