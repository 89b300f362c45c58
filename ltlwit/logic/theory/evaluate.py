"""Exact evaluation of atoms on concrete states, without the SMT solver: the half of every
data witness's check that decides the atoms (Python integers for Int, exact rationals for
Real, names for enumeration values), so that no witness rests on the solver that found it.

A data trace is a `Trace` whose steps carry values as atoms `x = 3`, `mode = wing_borne`,
`speed = 2.5` beside the propositions' literals (`req & !ack & x = 3`), and whose first step
may carry the uninterpreted functions' tables (`f(0) = 1`, `p(2)` or `!p(2)`: a function is
rigid, so an entry holds at every instant). `values_of` reads them back; `boolean_trace` turns a
data trace into an ordinary one over the atoms' propositions (`Abstraction.names`), each atom
evaluated at each instant: the one checker (`ltl.check`) then decides the formula as written.

An atom's value at instant i (BLACK's reading of its term operators): false when a strong
`next`/`prev` in it reads an instant that does not exist; otherwise true when a weak
`wnext`/`wprev` does; otherwise the comparison of its terms' values. `preReal(init, e)` and
`preInt(init, e)` read `init` at the first instant and e at the previous one otherwise. A
comparison whose terms divide by zero is false (`x / y > 1` where y = 0): division is only
defined where the divisor is not zero, and the SMT encoding says the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

from ltlwit.logic.budget import check_deadline, paced
from ltlwit.logic.formula import ATOM, TRUE, And, Formula, Not, ap, atom, conjuncts
from ltlwit.logic.theory.sorts import Signature, Sort
from ltlwit.logic.theory.terms import PRE, SHIFT_STEP, Term, horizon, num, relation, var

Value = int | Fraction | str | bool
#: A state by absolute instant, None where the instant does not exist.
StateAt = Callable[[int], "Mapping[str, Value] | None"]
#: The uninterpreted functions' tables: (name, argument values) -> value.
Tables = Mapping[tuple[str, tuple[Value, ...]], Value]
V = TypeVar("V")
#: Instants between two reads of a `deadline_scope`'s limits in the loops over a trace (a
#: log's: hundreds of thousands of instants, each a fraction of a millisecond).
EVERY = 64


class TraceError(ValueError):
    """A data trace that cannot be judged: a variable without a value, a value of the wrong
    sort, a function entry it does not give."""


class Undefined(Exception):
    """A division by zero: the comparison that holds it is false."""


def atom_value(a: Term, at: int, state: StateAt, sig: Signature, tables: Tables) -> bool:
    """The atom's value at instant `at` (module docstring)."""
    strong_missing = weak_missing = False
    for p, strong in _reads(a, at):
        if state(p) is None:
            if strong:
                strong_missing = True
            else:
                weak_missing = True
    if strong_missing:
        return False
    if weak_missing:
        return True
    sorts = sig.sorts_in(a)
    try:
        if a.op == "pred":
            args = tuple(term_value(c, at, state, sig, tables, sorts) for c in a.children)
            return bool(_entry(tables, a.symbol, args))
        left, right = (term_value(c, at, state, sig, tables, sorts) for c in a.children)
    except Undefined:
        return False
    return _compare(a.op, left, right)


def _compare(op: str, left: Value, right: Value) -> bool:
    if op == "=":
        return left == right
    if op == "!=":
        return left != right
    if isinstance(left, str) or isinstance(right, str):
        raise TraceError(f"enumeration values are not ordered: {left} {op} {right}")
    return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]


def _reads(term: Term, at: int):
    """(instant, strong) of every instant read: each shift's (strong when it or one around it
    is next or prev: `prev(next(x))` at 0 and `next(1)` at the last instant read one that is
    missing) and each variable's, `pre` read as it is at `at`."""
    stack: list[tuple[Term, int, bool]] = [(term, at, False)]
    while stack:
        node, p, strong = stack.pop()
        op = node.op
        if op == "var":
            yield p, strong
        elif op in SHIFT_STEP:
            step, s = SHIFT_STEP[op]
            yield p + step, strong or s
            stack.append((node.children[0], p + step, strong or s))
        elif op == "call" and node.name in PRE:
            init, e = node.children
            stack.append((init, p, strong) if p == 0 else (e, p - 1, strong))
        else:
            stack.extend((c, p, strong) for c in node.children)


def term_value(
    term: Term, at: int, state: StateAt, sig: Signature, tables: Tables, sorts: Mapping[Term, Sort]
) -> Value:
    """A term's value; `sorts`: the sort each of the atom's terms is computed in
    (`Signature.sorts_in`)."""
    return fold(
        term,
        at,
        lambda node, p: _variable(node.symbol, p, state, sig) if node.op == "var" else _numeral(node),
        lambda node, values: _apply(node, values, sorts[node], tables),
    )


def fold(term: Term, at: int, leaf: Callable[[Term, int], V], combine: Callable[[Term, list[V]], V]) -> V:
    """The term read at instant `at` bottom-up, each (node, instant) once: `leaf` gives a
    variable's or numeral's, `combine` a node's from its `operands`'. Iterative, since a `pre`
    chain is as deep as its input; the evaluator and both SMT encodings read terms this way."""
    done: dict[tuple[Term, int], V] = {}
    stack: list[tuple[Term, int, bool]] = [(term, at, False)]
    while stack:
        node, p, ready = stack.pop()
        key = (node, p)
        if key in done:
            continue
        if node.op in ("var", "num"):
            done[key] = leaf(node, p)
            continue
        kids = operands(node, p)
        if not ready:
            stack.append((node, p, True))
            stack.extend((c, q, False) for c, q in kids if (c, q) not in done)
            continue
        done[key] = combine(node, [done[k] for k in kids])
    return done[(term, at)]


def operands(node: Term, p: int) -> list[tuple[Term, int]]:
    """What a node reads, and at which instant: a shift's operand at the next or previous one,
    a `pre`'s `init` at the first instant and its e at the previous one elsewhere (the SMT
    encoding reads them the same: `theory.smt`)."""
    op = node.op
    if op in SHIFT_STEP:
        return [(node.children[0], p + SHIFT_STEP[op][0])]
    if op == "call" and node.name in PRE:
        init, e = node.children
        return [(init, p)] if p == 0 else [(e, p - 1)]
    return [(c, p) for c in node.children]


def _variable(name: str, p: int, state: StateAt, sig: Signature) -> Value:
    if name in sig.constants:
        return name
    s = state(p)
    if s is None:  # read through a weak shift of an atom that is decided before this
        raise TraceError(f"instant {p} does not exist")
    if name not in s:
        raise TraceError(f"the trace gives {name} no value at step {p + 1}")
    return s[name]


def _numeral(node: Term) -> Value:
    """A numeral's exact value: an int where it is whole and written so, for the integer
    arithmetic it may take part in (its neighbours' sort decides: `_apply`)."""
    value = node.value
    return int(value) if value.denominator == 1 and not node.decimal else value


def _apply(node: Term, values: list[Value], sort: Sort, tables: Tables) -> Value:
    op = node.op
    if op in SHIFT_STEP:
        return values[0]
    real = sort.name == "Real"
    if op == "neg":
        return -_number(values[0])
    if op in ("+", "-", "*"):
        a, b = (_number(v) for v in values)
        return a + b if op == "+" else a - b if op == "-" else a * b
    if op in ("/", "mod"):
        a, b = (_number(v) for v in values)
        if b == 0:
            raise Undefined()
        if real and op == "/":
            return Fraction(a) / Fraction(b)
        q, r = euclid(int(a), int(b))
        return q if op == "/" else r
    name = node.symbol  # a call: the rest are
    if name in ("absReal", "absInt", "abs"):
        number = _number(values[0])
        return -number if number < 0 else number
    if name == "min":
        return min(values)
    if name == "max":
        return max(values)
    if name in PRE:
        return values[0]
    return _entry(tables, name, tuple(values))


def _number(value: Value) -> int | Fraction:
    """An operand of arithmetic: a number (the sorts keep enumeration values out of it,
    `sorts.resolve`)."""
    if isinstance(value, str):
        raise TraceError(f"arithmetic on the enumeration value {value}")
    return value


def euclid(a: int, b: int) -> tuple[int, int]:
    """SMT-LIB's integer division and remainder: a = b*q + r with 0 <= r < |b|."""
    r = a % abs(b)
    return (a - r) // b, r


def _entry(tables: Tables, name: str, args: tuple[Value, ...]) -> Value:
    try:
        return tables[(name, args)]
    except KeyError:
        shown = ", ".join(_text(v) for v in args)
        raise TraceError(f"the trace does not give {name}({shown})") from None


def _text(value: Value) -> str:
    return str(value_term(value)) if not isinstance(value, (str, bool)) else str(value)


# -- data traces: values carried by the steps ----------------------------------------------
def value_term(value: Value) -> Term:
    """A value as the term a trace step writes it: `3`, `-2`, `2.5`, `1.0 / 3`, a name."""
    if isinstance(value, str):
        return var(value)
    return num(value)


def value_atom(name: str, value: Value, sort: Sort) -> Formula:
    """`name = value` as a step atom."""
    return atom(relation("=", var(name), _sorted_value_term(value, sort)))


def _sorted_value_term(value: Value, sort: Sort) -> Term:
    """`value_term`, where a Real's whole values keep a decimal point (`3.0`)."""
    if sort.name == "Real" and not isinstance(value, str) and Fraction(value).denominator == 1:
        v = int(value)
        t = num(f"{abs(v)}.0")
        return t if v >= 0 else Term("neg", (t,))
    return value_term(value)


def table_atoms(tables: Tables, sig: Signature) -> list[Formula]:
    """The functions' entries as step atoms: `f(0) = 1`, `p(2)`, `!p(3)`."""
    out = []
    for (name, args), value in sorted(tables.items(), key=lambda kv: str(kv[0])):
        call = [value_term(a) for a in args]
        if isinstance(value, bool):
            f = atom(Term("pred", tuple(call), name))
            out.append(f if value else Not(f))
        else:
            known = sig.functions.get((name, len(args)))
            result = known[1] if known is not None else None
            left = Term("call", tuple(call), name)
            right = _sorted_value_term(value, result) if result is not None else value_term(value)
            out.append(atom(relation("=", left, right)))
    return out


@dataclass(frozen=True)
class Values:
    """What a data trace's steps say beyond propositions: each step's values and the tables."""

    steps: tuple[dict[str, Value], ...]
    tables: Tables
    #: each step without its value atoms (the propositions' part)
    booleans: tuple[Formula, ...]


def values_of(steps: tuple[Formula, ...], sig: Signature) -> Values:
    """Read a data trace's values (module docstring) for a formula of signature `sig`: the
    values of the names it reads, each typed to its sort (a name it does not read is ignored,
    like an extra proposition, whatever its value); TraceError for a step that constrains data
    without giving values (`x > 3`), a value of the wrong sort, two values for one name."""
    read = _read(steps)
    typed_columns = {name: _column(read, name, sort) for name, sort in sig.variables.items()}
    columns = [(name, column) for name, column in typed_columns.items() if column is not None]
    if len(columns) == len(typed_columns) and not any(given.keys() & sig.constants.keys() for given in read.values):
        out_steps = [
            {name: cell for name, column in columns if (cell := column[i]) is not None}
            for i in paced(range(len(read.values)), check_deadline, EVERY)
        ]
    else:
        out_steps = _typed_steps(read, sig)
    tables: dict[tuple[str, tuple[Value, ...]], Value] = {}
    for i, call, value in read.entries:
        key = (call.symbol, len(call.children))
        if key not in sig.functions:
            continue  # a function the formula does not apply: ignored
        args = tuple(_value(a, sig, i) for a in call.children)
        if isinstance(value, bool):
            _put(tables, (call.symbol, args), value, i)
            continue
        _put(tables, (call.symbol, args), _typed(_value(value, sig, i), sig.functions[key][1], call.symbol, i), i)
    return Values(tuple(out_steps), tables, read.booleans)


def _column(read: "_Given", name: str, sort: Sort) -> "tuple[Value | None, ...] | None":
    """`name`'s value at each step as its `sort` types it (None where a step gives none), typed
    once per trace and sort (`_Given.columns`): a FRET export's witness is judged against each
    of its 97 requirements, and typing its values anew took a sixth of `check`'s time. None
    where a value is no numeral of the sort, or two are given: the step by step reading
    (`_typed_steps`) says which."""
    key = (name, sort)
    if key not in read.columns:
        out: list[Value | None] = []
        for terms in (given.get(name) for given in read.values):
            if terms is None:
                out.append(None)
                continue
            values = {_given_numeral(t, sort, name) for t in terms}
            if len(values) != 1 or None in values:
                read.columns[key] = None
                break
            out.append(values.pop())
        else:
            read.columns[key] = tuple(out)
    return read.columns[key]


#: The signature a numeral is read under (it names nothing).
_NUMERALS = Signature({}, {}, {})


def _given_numeral(t: Term, sort: Sort, name: str) -> Value | None:
    """A numeral's value as `sort` types it; None for anything else (an enumeration's value
    depends on the signature), or a value the sort has not."""
    if any(n.op == "var" for n in t.walk()):
        return None
    value = _constant(t, _NUMERALS)
    if value is None:
        return None
    try:
        return typed(value, sort, name)
    except TraceError:
        return None


def _typed_steps(read: "_Given", sig: Signature) -> list[dict[str, Value]]:
    """Each step's values typed by `sig`, step by step: the first problem met is the one told."""
    out_steps: list[dict[str, Value]] = []
    for i, given in enumerate(paced(read.values, check_deadline, EVERY)):
        values: dict[str, Value] = {}
        for name, sort in sig.variables.items():
            terms = given.get(name)
            if terms is None:
                continue
            typed_ = {_typed(_value(t, sig, i), sort, name, i) for t in terms}
            if len(typed_) > 1:
                raise TraceError(f"step {i + 1}: two values for {name}")
            values[name] = typed_.pop()
        for name in given.keys() & sig.constants.keys():
            raise TraceError(f"step {i + 1}: {name} is an enumeration value, not a variable")
        out_steps.append(values)
    return out_steps


@dataclass(frozen=True)
class _Given:
    """A data trace's steps as written, whatever formula reads them: each step's values by
    name (the constant terms given: one normally, more if the step gives several), the
    function entries (step, the call or predicate, its value: a constant term, or a truth),
    each step's propositions' part."""

    values: tuple[dict[str, list[Term]], ...]
    entries: tuple[tuple[int, Term, "Term | bool"], ...]
    booleans: tuple[Formula, ...]
    #: each name's values typed by a sort (`_column`), as formulas ask for them
    columns: dict = field(default_factory=dict, compare=False)


@lru_cache(maxsize=16)
def _read(steps: tuple[Formula, ...]) -> _Given:
    """The steps of a data trace read once (`_Given`), for the few traces checked against many
    formulas in a row (`check`'s witnesses, against each of its specs: a FRET export's 101-step
    witness of 300 values a step was read again for each of 86 requirements). Read only."""
    out_steps: list[dict[str, list[Term]]] = []
    entries: list[tuple[int, Term, Term | bool]] = []
    booleans: list[Formula] = []
    for i, step in enumerate(paced(steps, check_deadline, EVERY)):
        values: dict[str, list[Term]] = {}
        rest: list[Formula] = []
        for c in conjuncts(step):
            negated = c.op == "!" and c.children[0].op == ATOM
            t = (c.children[0] if negated else c).term
            if t is None:  # no atom
                if c.data:
                    raise TraceError(
                        f"step {i + 1}: {c} mixes data into a propositional part: "
                        "a trace gives values (x = 3), not conditions"
                    )
                rest.append(c)
                continue
            if t.op == "pred" and all(_literal(a) for a in t.children):
                entries.append((i, t, not negated))
                continue
            if negated or t.op != "=" or not _literal(t.children[1]):
                raise TraceError(f"step {i + 1}: {c} is a condition, not a value (a trace gives x = 3)")
            left, right = t.children
            if left.op == "var":
                values.setdefault(left.symbol, []).append(right)
            elif left.op == "call" and all(_literal(a) for a in left.children):
                entries.append((i, left, right))
            else:
                raise TraceError(f"step {i + 1}: {c} is a condition, not a value (a trace gives x = 3)")
        out_steps.append(values)
        booleans.append(And(*rest) if rest else TRUE)
    return _Given(tuple(out_steps), tuple(entries), tuple(booleans))


def _literal(t: Term) -> bool:
    """Whether a term is written as a constant: a numeral, its negation or quotient, or a name
    (an enumeration value, to a formula whose sorts have it)."""
    if t.op in ("num", "var"):
        return True
    if t.op == "neg":
        return _literal(t.children[0])
    return t.op == "/" and all(_literal(c) for c in t.children)


def _value(t: Term, sig: Signature, i: int) -> Value:
    """A constant term's value under `sig` (a name must be one of its enumeration values)."""
    value = _constant(t, sig)
    if value is None:
        raise TraceError(f"step {i + 1}: {t} is not a value (a trace gives x = 3)")
    return value


def _put(tables: dict, key: tuple, value: Value, i: int) -> None:
    if key in tables and tables[key] != value:
        raise TraceError(f"step {i + 1}: two values for {key[0]}{key[1]}")
    tables[key] = value


def _constant(t: Term, sig: Signature) -> Value | None:
    """The value of a constant term (a numeral, its negation or quotient, an enumeration value)."""
    if t.op == "num":
        exact = t.value
        return int(exact) if exact.denominator == 1 and not t.decimal else exact
    if t.op == "var":
        return t.name if t.name in sig.constants else None
    if t.op == "neg":
        v = _constant(t.children[0], sig)
        return -v if v is not None and not isinstance(v, str) else None
    if t.op == "/":
        a, b = (_constant(c, sig) for c in t.children)
        if a is None or b is None or isinstance(a, str) or isinstance(b, str) or b == 0:
            return None
        return Fraction(a) / Fraction(b)
    return None


def _typed(value: Value, sort: Sort, name: str, i: int) -> Value:
    try:
        return typed(value, sort, name)
    except TraceError as exc:
        raise TraceError(f"step {i + 1}: {exc}") from None


def typed(value: Value, sort: Sort, name: str) -> Value:
    """`value` as a value of `name`'s `sort` (an Int's an int, a Real's a Fraction); TraceError
    saying why for a value that is none of that sort's, where it is left to the caller to say."""
    if sort.enum:
        if value not in sort.values:
            raise TraceError(f"{value} is not a value of {name}'s sort {sort}")
        return value
    if isinstance(value, str):
        raise TraceError(f"{name} is {sort.name}, not an enumeration value ({value})")
    if sort.name == "Int":
        if Fraction(value).denominator != 1:
            raise TraceError(f"{name} is Int, and {_text(value)} is not an integer")
        return int(value)
    return Fraction(value)


def boolean_trace(trace, names: Mapping[Term, str], sig: Signature, tables: Tables | None = None):
    """The ordinary trace a data trace stands for (module docstring): each step its
    propositions' part with each atom's proposition set to the atom's value there. A lasso's
    loop is unrolled as often as the atoms look back (`prev` at the loop's first step reads
    the prefix's last step on the first pass, the loop's last step after)."""
    from ltlwit.logic.trace import Trace

    vals = values_of(trace.steps, sig)
    if tables is not None:  # given (a solver's model, while its witness is written): the steps' are none
        vals = Values(vals.steps, tables, vals.booleans)
    states = vals.steps
    n, start = len(states), len(trace.prefix)
    for i, s in enumerate(paced(states, check_deadline)):
        missing = next((v for v in sig.variables if sig.variables[v].name != "Bool" and v not in s), None)
        if missing is not None:
            raise TraceError(f"the trace gives {missing} no value at step {i + 1}")

    def state(p: int) -> Mapping[str, Value] | None:
        if p < 0:
            return None
        if p < n:
            return states[p]
        if trace.finite:
            return None
        return states[start + (p - start) % (n - start)]

    def step(p: int, booleans: Formula) -> Formula:
        lits = []
        for a, name in names.items():
            lits.append(ap(name) if atom_value(a, p, state, sig, vals.tables) else Not(ap(name)))
        return And(*([] if booleans is TRUE else [booleans]), *lits) if lits else booleans

    if trace.finite:
        return Trace(tuple(step(p, vals.booleans[p]) for p in paced(range(n), check_deadline, EVERY)), ())
    back = max((lookback(a) for a in names), default=0)
    first = max((horizon(a) for a in names), default=0)  # a `pre` reads its init below it
    loop = n - start
    copies = max(-(-back // loop), -(-max(0, first - start) // loop))  # passes unrolled into the prefix
    prefix = [step(p, vals.booleans[p]) for p in range(start)]
    for c in range(copies):
        prefix += [step(start + c * loop + j, vals.booleans[start + j]) for j in range(loop)]
    cycle = [step(start + copies * loop + j, vals.booleans[start + j]) for j in range(loop)]
    return Trace(tuple(prefix), tuple(cycle))


def lookback(a: Term) -> int:
    """How many instants back an atom may read (`terms.reads`): a lasso's loop is unrolled
    that often before its steps repeat."""
    from ltlwit.logic.theory.terms import reads

    return max(0, -min(reads(a)))


def state_trace(columns: Mapping[str, Sequence[Value]], length: int, sig: Signature, props: Iterable[str]):
    """A finite data trace of a log's states, its values typed already
    (`ltlwit.pipeline.log_sorts`): instant i gives each proposition of `props` its truth
    `columns[name][i]` and each data variable of `sig` its value `columns[name][i]`."""
    from ltlwit.logic.trace import Trace

    truths = [(ap(name), Not(ap(name)), columns[name]) for name in props]
    values = [(name, columns[name], sort) for name, sort in sig.variables.items()]
    steps = []
    for i in paced(range(length), check_deadline, EVERY):
        parts = [yes if cells[i] else no for yes, no, cells in truths]
        parts += [value_atom(name, cells[i], sort) for name, cells, sort in values]
        steps.append(And(*parts) if parts else TRUE)
    return Trace(tuple(steps), ())
