"""Sorts of data variables: declared, inferred where that is unambiguous, and errors that name
the variable when they clash or cannot be told."""

from __future__ import annotations

import pytest

from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.theory.sorts import (
    BOOL,
    INT,
    REAL,
    Declarations,
    SortError,
    parse_declaration,
    parse_sort,
    resolve,
)


def sorts(text: str, declarations: Declarations | None = None) -> dict[str, str]:
    return {name: str(sort) for name, sort in resolve(parse_formula(text), declarations).variables.items()}


def test_declarations_read_every_spelling() -> None:
    assert parse_declaration("speed:Real") == ("speed", REAL)
    assert parse_declaration("n : integer") == ("n", INT)
    assert parse_declaration("p:Bool") == ("p", BOOL)
    assert parse_sort("int32") == INT and parse_sort("double") == REAL and parse_sort("boolean") == BOOL
    assert parse_declaration("mode: {off, on}") == ("mode", parse_sort("{off, on}"))
    for bad, message in [
        ("speed", "expected NAME:SORT"),
        ("speed:Complex", "unknown sort"),
        ("mode:{}", "needs values"),
        ("mode:{a, a}", "lists a value twice"),
        ("mode:{a b}", "is not a name"),
    ]:
        with pytest.raises(SortError, match=message):
            parse_declaration(bad)


def test_inference_where_it_is_unambiguous() -> None:
    # a decimal numeral makes its class Real, through the comparisons and arithmetic that link it
    assert sorts("x > 1.5 & y < x + 1") == {"x": "Real", "y": "Real"}
    # a declared Int links the others to Int; mod is Int
    assert sorts("x > y & z mod 2 = 1", Declarations().declare("x", INT)) == {"x": "Int", "y": "Int", "z": "Int"}
    # FRET's functions say their sort
    assert sorts("absInt(a) > 0 & preReal(0, b) < 1") == {"a": "Int", "b": "Real"}
    # separate classes are decided separately, even where they share a numeral
    assert sorts("x > 1.0 & n = 2", Declarations(domain=INT)) == {"x": "Real", "n": "Int"}
    assert sorts("n > 0 & r > 0 & r < 0.5", Declarations(domain=INT)) == {"n": "Int", "r": "Real"}


def test_an_unknown_sort_says_how_to_give_one() -> None:
    with pytest.raises(
        SortError, match=r"the sort of x is unknown \(Int or Real\?\): declare it \(--var x:Int\)"
    ) as info:
        resolve(parse_formula("x > 1 & x < 2"))
    assert info.value.name == "x"
    assert sorts("x > 1 & x < 2", Declarations(domain=REAL)) == {"x": "Real"}


def test_enumerations() -> None:
    mode = parse_sort("{off, on}")
    decl = Declarations().declare("mode", mode)
    sig = resolve(parse_formula("mode = on & X(mode != off)"), decl)
    assert sig.variables == {"mode": mode} and set(sig.constants) == {"on", "off"}
    # an undeclared name compared with an enumeration's value is most likely a misspelled value
    with pytest.raises(SortError, match=r"m is not a value of the enumeration \{off, on\}"):
        resolve(parse_formula("next(m) = on"), decl)
    # every value of a variable's enumeration is a constant, used or not (a trace may give it)
    assert set(resolve(parse_formula("mode = on"), decl).constants) == {"on", "off"}
    for text, message in [
        ("mode = 3", "compared or computed with the number 3"),
        ("mode + 1 > 0", "compared or computed with the number"),
        ("mode < on", r"mode is of the enumeration \{off, on\}, which has no order: mode < on compares numbers"),
        ("G(x >= mode)", r"x is of the enumeration \{off, on\}, which has no order: x >= mode compares numbers"),
    ]:
        with pytest.raises(SortError, match=message):
            resolve(parse_formula(text), decl)
    two = decl.declare("dir", parse_sort("{up, down}"))
    with pytest.raises(SortError, match="values of two enumerations are compared"):
        resolve(parse_formula("mode = up"), two)
    # variables declared with the same values share one sort; a value in two sorts is an error
    same = decl.declare("other", parse_sort("{off, on}"))
    assert resolve(parse_formula("mode = other & other = on"), same).variables["other"] == mode
    with pytest.raises(SortError, match="on is a value of two enumerations"):
        resolve(parse_formula("mode = on"), decl.declare("power", parse_sort("{on, standby}")))


@pytest.mark.parametrize(
    "text, declared, message",
    [
        ("p & p > 1", {}, "p is used both as a proposition and as a term"),
        ("x + p > 1", {"p": BOOL}, "p is Bool but is compared or computed with numeric data"),
        ("x / 0 > 1", {}, "division by zero"),
        ("f(x) > 1 & x > f", {}, "f is a variable, and is applied to arguments too"),
        # one function of one arity, a predicate and a number: had been UNSAT (z3 read the
        # predicate's truth as 0 or 1), and `f(1) & f(2) > 0` a witness with f(2) true
        ("f(x) & f(x) > 1", {}, r"f\(...\) is used both as a proposition and as a term"),
        ("f(2) > 0 & f(1)", {}, r"f\(...\) is used both as a proposition and as a term"),
    ],
)
def test_clashes_name_the_variable(text: str, declared: dict, message: str) -> None:
    decl = Declarations(domain=INT)
    for name, sort in declared.items():
        decl = decl.declare(name, sort)
    with pytest.raises(SortError, match=message):
        resolve(parse_formula(text), decl)


def test_declaring_twice_differently_is_an_error() -> None:
    decl = Declarations().declare("x", INT)
    assert decl.declare("x", INT) is decl
    with pytest.raises(SortError, match="declared twice, as Int and as Real"):
        decl.declare("x", REAL)


def test_functions_are_told_apart_by_arity() -> None:
    """FRET's exports apply one name to 8 and to 9 arguments: two functions."""
    sig = resolve(parse_formula("det(a, b) & !det(a, b, c) & f(a) > 0"), Declarations(domain=REAL))
    assert set(sig.functions) == {("det", 2), ("det", 3), ("f", 1)}
    assert sig.functions[("det", 2)] == ((REAL, REAL), BOOL)


@pytest.mark.parametrize("text", ["2.5 < g(1)", "wprev(2.5) < g(1)", "g(x) > 0.5"])
def test_a_function_of_integers_with_a_real_result_keeps_integer_arguments(text: str) -> None:
    """`g` takes Int (its argument is `1`, or the Int `x`) and gives Real (compared with 2.5):
    z3's API is given an integer argument, as the SMT-LIB text is (it had been converted to
    the result's Real: z3 raised, an internal error on every search building atoms so)."""
    import z3

    from ltlwit.logic.theory.smt import Encoder

    formula = parse_formula(text)
    (atom,) = {node.term for node in formula.walk() if node.term is not None}
    sig = resolve(formula, Declarations(domain=INT))
    assert sig.functions[("g", 1)] == ((INT,), REAL)
    enc = Encoder(sig)
    through_api, text_form = enc.atom(atom, 0), enc.smtlib(atom, 0)
    declared = "".join(enc.declarations[s] for s in enc.used)
    (parsed,) = z3.parse_smt2_string(f"{declared}(assert {text_form})", ctx=enc.ctx)
    assert z3.eq(z3.simplify(through_api), z3.simplify(parsed))


def test_a_shifted_decimal_against_a_function_of_an_integer_is_solved() -> None:
    from ltlwit.logic import ltl
    from ltlwit.logic.result import Sat

    formula, ints = parse_formula("wprev(2.5) < g(1)"), Declarations(domain=INT)
    result = ltl.solve(formula, ltl.Budget(seconds=20), declarations=ints)
    assert isinstance(result, Sat)
    assert ltl.holds(formula, result.witness, declarations=ints)


def test_sort_inference_prints_no_term_until_a_message_needs_one(monkeypatch) -> None:
    """The evidence behind a class's sort is the term itself, printed for a message only: each
    node of `x + x + ... > 1` had been printed whole as it was read (a sum of 3,000 terms took
    25 s to say that the sort of x is unknown)."""
    from ltlwit.logic.theory import printing

    formula, clash = parse_formula(" + ".join(["x"] * 200) + " > 1"), parse_formula("x mod 2 = 1.5")
    printed: list[object] = []
    print_term = printing.print_term
    monkeypatch.setattr(printing, "print_term", lambda term: printed.append(term) or print_term(term))
    with pytest.raises(SortError, match="the sort of x is unknown"):
        resolve(formula)
    assert resolve(formula, Declarations(domain=INT)).variables == {"x": INT}
    assert printed == []
    with pytest.raises(SortError, match=r"^x mod 2 needs integers, and 1.5 is Real$"):
        resolve(clash)  # the message prints the term it names


def test_sort_inference_reads_the_deadline() -> None:
    """Sorts are inferred under the input's deadline (`ltl.solve` sets it from its budget
    before the search has a limit of its own): a long line's inference stops with the reason."""
    from ltlwit.logic import budget, ltl
    from ltlwit.logic.budget import OutOfTime, deadline_scope
    from ltlwit.logic.result import Unknown

    formula = parse_formula(" + ".join(["x"] * 200) + " > 1")
    with deadline_scope(budget.time.perf_counter() - 1.0, doing="inferring the sorts"):
        with pytest.raises(OutOfTime, match="^time budget exhausted while inferring the sorts$"):
            resolve(formula, Declarations(domain=INT))
    spent = ltl.Budget(seconds=1.0, start=budget.time.perf_counter() - 2.0)
    result = ltl.solve(formula, spent, declarations=Declarations(domain=INT))
    assert isinstance(result, Unknown) and result.reason == "time budget exhausted while inferring the sorts"


def test_comparisons_of_propositions_are_followed_along_a_chain_under_the_deadline() -> None:
    """nuXmv's `x0 = x1 & x1 = x2 & ... & xN = a` with `a` a proposition: every comparison
    reads `<->`, found by following each comparison once from the propositions (the chain had
    been swept once per name it grew by: 3,000 names, 15 s, past any --timeout); the
    comparisons are read under the input's deadline."""
    from ltlwit.logic import budget
    from ltlwit.logic.budget import OutOfTime, deadline_scope
    from ltlwit.logic.theory.sorts import boolean_comparisons

    n = 50
    formula = parse_formula(" & ".join(f"x{i} = x{i + 1}" for i in range(n)) + f" & x{n} = a & a")
    read = boolean_comparisons(formula)
    assert not read.data
    assert read == parse_formula(" & ".join(f"(x{i} <-> x{i + 1})" for i in range(n)) + f" & (x{n} <-> a) & a")
    with deadline_scope(budget.time.perf_counter() - 1.0, doing="inferring the sorts"):
        with pytest.raises(OutOfTime):
            boolean_comparisons(formula)


def test_merging_declarations_is_one_pass(monkeypatch) -> None:
    """`merged` adds the other's entries in one pass (declared one by one, each a copy of all
    before it, a merge of 20,000 was quadratic), with the same answers: a clash named, the
    same declaration twice once, the other's domain winning."""
    ours = Declarations(tuple((f"v{i}", INT) for i in range(100)), INT)
    theirs = Declarations(tuple((f"v{i}", INT) for i in range(50, 150)) + (("v150", INT),) * 2, REAL)
    declared: list[str] = []
    declare = Declarations.declare
    monkeypatch.setattr(Declarations, "declare", lambda self, n, s: declared.append(n) or declare(self, n, s))
    both = ours.merged(theirs)
    assert declared == []
    assert both.entries == tuple((f"v{i}", INT) for i in range(151)) and both.domain == REAL
    assert ours.merged(None) is ours and ours.merged(Declarations()) is ours
    with pytest.raises(SortError, match="variable v7 is declared twice, as Int and as Real"):
        ours.merged(Declarations((("w", REAL), ("v7", REAL))))
    with pytest.raises(TypeError):
        both.variables["v0"] = REAL  # type: ignore[index]
