"""Atoms as z3 terms, instant by instant: the theory half of the SMT-based searches.

A variable `x` read at instant i is the z3 constant `x@i` (its sort's: Int, Real, or an
enumeration as a z3 datatype); a shift moves the instant; an uninterpreted function is one z3
function for every instant (rigid); the built-ins are their definitions (`absReal(t)`:
`If(t >= 0, t, -t)`). A comparison that divides holds only where every divisor is non-zero,
as the exact evaluator reads it. Each encoder has a z3 context of its own, so that a
watchdog can interrupt it and enumerations are declared once per solve.

z3 is imported here only, when a formula with data atoms is solved: a plain formula never
loads it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Mapping

import z3

from ltlwit.logic.theory.evaluate import Value, fold
from ltlwit.logic.theory.sorts import BUILTINS, INT, REAL, Signature, Sort
from ltlwit.logic.theory.terms import PRE, RELATIONS, SHIFT_STEP, Term

Where = Callable[[int], int]
#: Values known before z3 is asked, by instant (`theory.forced`).
Known = Mapping[int, Mapping[str, Value]]
_NONE: Mapping[str, Value] = {}


class Irrational(ValueError):
    """A model whose values are not all rational (`x * x = 2`): no witness the exact
    evaluator could confirm; the answer is UNKNOWN, with this as its reason."""


class Encoder:
    def __init__(self, signature: Signature) -> None:
        self.ctx = z3.Context()
        self.sig = signature
        self._enums: dict[str, tuple[z3.SortRef, dict[str, z3.ExprRef]]] = {}
        self._vars: dict[tuple[str, int], z3.ExprRef] = {}
        self._funs: dict[tuple[str, int], z3.FuncDeclRef] = {}
        #: the declaration of each symbol the SMT-LIB text uses (`smtlib`), and those of the
        #: text being written (each solver's parser is told of them once: `Z3Clauses`)
        self.declarations: dict[str, str] = {}
        self.used: list[str] = []

    # -- sorts and symbols ------------------------------------------------------------------
    def sort(self, sort: Sort) -> z3.SortRef:
        if sort.enum:
            return self._enum(sort)[0]
        if sort.name == "Int":
            return z3.IntSort(self.ctx)
        if sort.name == "Real":
            return z3.RealSort(self.ctx)
        return z3.BoolSort(self.ctx)

    def _enum(self, sort: Sort) -> tuple[z3.SortRef, dict[str, z3.ExprRef]]:
        found = self._enums.get(sort.name)
        if found is None:
            z3sort, values = z3.EnumSort(f"{sort.name}#{len(self._enums)}", list(sort.values), ctx=self.ctx)
            found = self._enums[sort.name] = (z3sort, dict(zip(sort.values, values)))
        return found

    def var(self, name: str, at: int) -> z3.ExprRef:
        key = (name, at)
        v = self._vars.get(key)
        if v is None:
            v = self._vars[key] = z3.Const(_symbol("v", name, at), self.sort(self.sig.variables[name]))
        return v

    def function(self, name: str, arity: int) -> z3.FuncDeclRef:
        key = (name, arity)
        f = self._funs.get(key)
        if f is None:
            args, result = self.sig.functions[key]
            f = self._funs[key] = z3.Function(_symbol("f", name), *(self.sort(s) for s in args), self.sort(result))
        return f

    # -- atoms --------------------------------------------------------------------------------
    def atom(self, a: Term, at: int, where: Where | None = None, known: Known | None = None) -> z3.BoolRef:
        """The comparison `a` at instant `at`; `where` maps each instant a variable is read at
        to the step holding its value (a lasso's later passes: the loop's), identity by default.
        A `pre` is decided at the instant it is read at, as the exact evaluator decides it.
        `known`: values (by instant) written as constants instead of the variables: a quotient
        by a variable whose value is known is linear (`smt_bounded.Recorded`)."""
        divisors: list[z3.ExprRef] = []
        sorts = self.sig.sorts_in(a)
        if a.op == "pred":
            key = (a.symbol, len(a.children))
            f = self.function(*key)
            args = tuple(
                self._term(c, at, where, divisors, s, sorts, known)
                for c, s in zip(a.children, self.sig.functions[key][0])
            )
            core = f(*args)
        else:
            left, right = a.children
            target = _common(_sort(left, sorts), _sort(right, sorts))
            lt = self._term(left, at, where, divisors, target, sorts, known)
            rt = self._term(right, at, where, divisors, target, sorts, known)
            core = _RELATE[a.op](lt, rt)
        if divisors:
            return z3.And(*(d != 0 for d in divisors), core)
        return core

    def _term(
        self,
        term: Term,
        at: int,
        where: Where | None,
        divisors: list,
        want: Sort,
        sorts: Mapping[Term, Sort],
        known: Known | None = None,
    ) -> z3.ExprRef:
        def leaf(node: Term, p: int) -> z3.ExprRef:
            if node.op == "num":
                return self._numeral(node.value, _sort(node, sorts))
            name = node.symbol
            if name in self.sig.constants:
                return self._enum(self.sig.constants[name])[1][name]
            value = known.get(p, _NONE).get(name) if known is not None else None
            if value is not None:
                return self.constant(value, self.sig.variables[name])
            return self.var(name, where(p) if where else p)

        return self._coerce(
            fold(term, at, leaf, lambda node, values: self._apply(node, values, divisors, sorts[node])), want
        )

    def _numeral(self, value: Fraction, sort: Sort) -> z3.ExprRef:
        if sort.name == "Int" and value.denominator == 1:
            return z3.IntVal(int(value), self.ctx)
        return z3.RealVal(value, self.ctx)

    def _coerce(self, e: z3.ExprRef, sort: Sort) -> z3.ExprRef:
        if sort.name == "Real" and z3.is_int(e):
            return z3.ToReal(e)
        return e

    def _apply(self, node: Term, values: list[z3.ExprRef], divisors: list, sort: Sort) -> z3.ExprRef:
        op = node.op
        if op in SHIFT_STEP or op == "call" and node.name in PRE:
            return values[0]
        if op == "call" and node.name not in BUILTINS:
            # its arguments convert to its argument sorts, whatever the sort of its result:
            # `g(1)` Int -> Real compared with 2.5 takes the Int 1, not a Real 1.0
            key = (node.symbol, len(values))
            f = self.function(*key)
            return f(*(self._coerce(v, s) for v, s in zip(values, self.sig.functions[key][0])))
        if sort.name == "Real":
            values = [self._coerce(v, sort) for v in values]
        if op == "neg":
            return -values[0]
        if op in ("+", "-", "*"):
            a, b = values
            return a + b if op == "+" else a - b if op == "-" else a * b
        if op in ("/", "mod"):
            a, b = values
            divisors.append(b)
            if op == "mod":
                return a % b
            return a / b
        name = node.name
        if name in ("absReal", "absInt", "abs"):
            (t,) = values
            return z3.If(t >= 0, t, -t)
        a, b = values  # min, max
        return z3.If(a <= b, a, b) if name == "min" else z3.If(a >= b, a, b)

    # -- atoms as SMT-LIB text ------------------------------------------------------------------
    def smtlib(self, a: Term, at: int, known: Known | None = None) -> str | None:
        """The comparison `a` at instant `at` as SMT-LIB text, for a solver's `from_string`
        (building z3 terms through the Python API cost 2 ms an atom: most of the searches' time
        on BLACK's counters of 40 variables); the symbols it uses are in `used` (their
        declarations in `declarations`) until the caller takes them. None where an enumeration
        is involved (its sort lives in the API only): `atom` then. `known` as in `atom`."""
        if self._enums or any(s.enum for s in self.sig.variables.values()):
            return None
        divisors: list[tuple[str, str]] = []  # (divisor, its sort's zero)
        sorts = self.sig.sorts_in(a)
        if a.op == "pred":
            key = (a.symbol, len(a.children))
            args = [
                self._text(c, at, divisors, s, sorts, known) for c, s in zip(a.children, self.sig.functions[key][0])
            ]
            core = f"({self._declare_function(*key)} {' '.join(args)})"
        else:
            left, right = a.children
            target = _common(_sort(left, sorts), _sort(right, sorts))
            lt, rt = (
                self._text(left, at, divisors, target, sorts, known),
                self._text(right, at, divisors, target, sorts, known),
            )
            core = f"({_SMTLIB_RELATIONS[a.op]} {lt} {rt})"
        if divisors:
            return "(and " + " ".join(f"(not (= {d} {z}))" for d, z in divisors) + f" {core})"
        return core

    def fact(self, name: str, at: int, value: Value) -> str | None:
        """`name = value` at instant `at` as SMT-LIB text (`smtlib`: None where an enumeration
        is involved)."""
        if self._enums or any(s.enum for s in self.sig.variables.values()):
            return None
        integer = self.sig.variables[name].name == "Int"
        return f"(= {self._declare_var(name, at)} {_numeral_text(Fraction(value), integer)[0]})"

    def _declare_var(self, name: str, at: int) -> str:
        symbol = f"|{_symbol('v', name, at)}|"
        if symbol not in self.declarations:
            self.declarations[symbol] = f"(declare-const {symbol} {self.sig.variables[name].name})"
        self.used.append(symbol)
        return symbol

    def _declare_function(self, name: str, arity: int) -> str:
        symbol = f"|{_symbol('f', name)}|"
        key = f"{symbol}/{arity}"
        if key not in self.declarations:
            args, result = self.sig.functions[(name, arity)]
            self.declarations[key] = f"(declare-fun {symbol} ({' '.join(s.name for s in args)}) {result.name})"
        self.used.append(key)
        return symbol

    def _text(
        self,
        term: Term,
        at: int,
        divisors: list[tuple[str, str]],
        want: Sort,
        sorts: Mapping[Term, Sort],
        known: Known | None = None,
    ) -> str:
        """`_term` as text: the same sorts, coercions and division guards."""

        def leaf(node: Term, p: int) -> tuple[str, bool]:  # (text, an Int)
            if node.op == "num":
                return _numeral_text(node.value, _sort(node, sorts).name == "Int")
            name = node.symbol
            value = known.get(p, _NONE).get(name) if known is not None else None
            if value is not None:
                return _numeral_text(Fraction(value), self.sig.variables[name].name == "Int")
            return self._declare_var(name, p), self.sig.variables[name].name == "Int"

        text, integer = fold(term, at, leaf, lambda node, values: self._apply_text(node, values, divisors, sorts[node]))
        return f"(to_real {text})" if want.name == "Real" and integer else text

    def _apply_text(
        self, node: Term, values: list[tuple[str, bool]], divisors: list[tuple[str, str]], sort: Sort
    ) -> tuple[str, bool]:
        op = node.op
        if op in SHIFT_STEP or op == "call" and node.name in PRE:
            return values[0]
        real = sort.name == "Real"
        texts = [f"(to_real {t})" if real and i else t for t, i in values]
        zero = "0.0" if real else "0"
        if op == "neg":
            return f"(- {texts[0]})", not real
        if op in ("+", "-", "*"):
            return f"({op} {texts[0]} {texts[1]})", not real
        if op in ("/", "mod"):
            divisors.append((texts[1], zero))
            return f"({'/' if real and op == '/' else 'div' if op == '/' else 'mod'} {texts[0]} {texts[1]})", not real
        name = node.symbol  # a call: the rest are
        if name in ("absReal", "absInt", "abs"):  # `let`: nested ones would copy their operand
            return f"(let ((|a!| {texts[0]})) (ite (>= |a!| {zero}) |a!| (- |a!|)))", not real
        if name in ("min", "max"):
            a, b = texts
            return (
                f"(let ((|a!| {a}) (|b!| {b})) (ite ({'<=' if name == 'min' else '>='} |a!| |b!|) |a!| |b!|))",
                not real,
            )
        key = (name, len(values))
        arguments, result = self.sig.functions[key]
        args = [f"(to_real {t})" if s.name == "Real" and i else t for (t, i), s in zip(values, arguments)]
        return f"({self._declare_function(*key)} {' '.join(args)})", result.name == "Int"

    # -- models -------------------------------------------------------------------------------
    def value(self, model: z3.ModelRef, e: z3.ExprRef) -> Value:
        """An exact Python value of a model's expression; ValueError for an irrational one
        (a non-linear model), which no exact check could confirm."""
        v = model.eval(e, model_completion=True)
        if z3.is_int_value(v):
            return v.as_long()
        if z3.is_rational_value(v):
            return Fraction(v.numerator_as_long(), v.denominator_as_long())
        if z3.is_true(v) or z3.is_false(v):
            return z3.is_true(v)
        if z3.is_algebraic_value(v):
            raise Irrational(f"a model exists, but with an irrational value ({v}), which cannot be checked exactly")
        return str(v)

    def table_reader(self, model: z3.ModelRef) -> Callable[[str, tuple[Value, ...]], Value]:
        """The model's function entries: (name, argument values) -> the value there."""

        def read(name: str, args: tuple[Value, ...]) -> Value:
            sorts = self.sig.functions[(name, len(args))][0]
            f = self.function(name, len(args))
            return self.value(model, f(*(self.constant(v, s) for v, s in zip(args, sorts))))

        return read

    def constant(self, value: Value, sort: Sort) -> z3.ExprRef:
        if sort.enum:
            assert isinstance(value, str)  # an enumeration's values are names
            return self._enum(sort)[1][value]
        return self._numeral(Fraction(value), sort)

    def interrupt(self) -> None:
        self.ctx.interrupt()


def _symbol(kind: str, name: str, at: int | None = None) -> str:
    """A data symbol's z3 name, the same through the API and in SMT-LIB text: `v%` for a
    variable at an instant, `f%` for a function, so that none is an SMT-LIB built-in (`div`)
    or a step's proposition (`b7`), with `%`, `|` and `\\` escaped (a quoted SMT-LIB symbol
    cannot hold the last two)."""
    safe = name.replace("%", "%25").replace("|", "%7C").replace("\\", "%5C")
    return f"{kind}%{safe}" + (f"@{at}" if at is not None else "")


def _sort(term: Term, sorts: Mapping[Term, Sort]) -> Sort:
    """A term's sort in its atom; a numeral's is what it is written as (its neighbours convert
    it where they are Real)."""
    found = sorts.get(term)
    if found is not None:
        return found
    return REAL if term.decimal or term.value.denominator != 1 else INT


def _common(a: Sort, b: Sort) -> Sort:
    if a.name == "Real" or b.name == "Real":
        return REAL
    return a


_SMTLIB_RELATIONS = {"=": "=", "!=": "distinct", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _numeral_text(value: Fraction, integer: bool) -> tuple[str, bool]:
    if integer and value.denominator == 1:
        n = value.numerator
        return (str(n) if n >= 0 else f"(- {-n})"), True
    num, den = abs(value.numerator), value.denominator
    text = f"{num}.0" if den == 1 else f"(/ {num}.0 {den}.0)"
    return (text if value >= 0 else f"(- {text})"), False


_RELATE = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
assert set(_RELATE) == set(RELATIONS)
