"""Solving formulas over data: verdicts with their proofs, witnesses with every value, each
confirmed by the exact evaluator, which does not use z3; `solve` on the command line."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest
from cli_support import json_lines, run

from ltlwit.logic import ltl
from ltlwit.logic.result import Sat, Unknown, Unsat
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.theory.evaluate import TraceError, euclid, values_of
from ltlwit.logic.theory.sorts import INT, REAL, Declarations, parse_sort, resolve

INTS = Declarations(domain=INT)
REALS = Declarations(domain=REAL)


def solve(text: str, declarations: Declarations = INTS, semantics: str = "finite", seconds: float = 20):
    return ltl.solve(parse_formula(text), ltl.Budget(seconds=seconds), semantics=semantics, declarations=declarations)


def holds(text: str, trace: str, declarations: Declarations = INTS) -> bool:
    return ltl.holds(parse_formula(text), parse_trace(trace), declarations=declarations)


def values(result: Sat, name: str) -> list:
    sig = resolve(parse_formula(f"{name} = {name}"), INTS if name != "c" else REALS)
    return [step.get(name) for step in values_of(result.witness.steps, sig).steps]


@pytest.mark.parametrize(
    "text, declarations",
    [
        ("x = 0 & G(wnext(x) = x + 1) & F(x = 6)", INTS),
        ("c = 1.0 & G(wnext(c) = 10.0 * c) & F(c > 999.5)", REALS),
        (
            "(n = 0) & G(wnext(n) = n + 1) & G((n > 1) -> (f(n) = 2 * f(n - 1))) & G((n = 1) -> (f(n) = 1)) & X X X wX False",
            INTS,
        ),
        ("G(x > 0 -> X(x < 0)) & F(x > 5)", INTS),
        ("x = 7 & G(wnext(x) = x / 2) & F(x = 0)", INTS),  # Euclidean division: 7, 3, 1, 0
    ],
)
def test_satisfiable_with_a_witness_that_holds(text: str, declarations: Declarations) -> None:
    result = solve(text, declarations)
    assert isinstance(result, Sat), result
    assert result.witness.finite
    assert ltl.holds(parse_formula(text), result.witness, declarations=declarations)


def test_values_are_the_counter_s() -> None:
    result = solve("x = 0 & G(wnext(x) = x + 1) & F(x = 6)")
    assert values(result, "x")[:7] == [0, 1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize(
    "text, proof",
    [
        ("x > 3 & X(x < 2) & G(next(x) >= x)", "theory search"),  # no run outlives the bound
        ("G(x > 0) & F(x < 0)", "abstraction"),  # no bound proves this one
        ("x > 3 & F(x < 2) & G(wnext(x) >= x)", "abstraction"),  # an inductive lemma
        (
            "(x0 > 0) & (next(x1) > x0) & X(next(x2) > x1) & G(wnext(x0) = x0 & wnext(x1) = x1 & wnext(x2) = x2) "
            "& G(5 = x0 + x1 + x2)",
            "theory search",
        ),  # BLACK's LIA scalable_3, small
        ("mode = on & X(mode = off) & G(wnext(mode) = mode)", "theory search"),  # values exclude each other
        ("G(mode = on) & F(mode = off)", "abstraction"),
    ],
)
def test_unsatisfiable_with_a_proof(text: str, proof: str) -> None:
    decl = INTS.declare("mode", parse_sort("{on, off}"))
    result = solve(text, decl)
    assert isinstance(result, Unsat) and result.proof.startswith(proof), result


def test_strong_and_weak_terms_at_the_ends() -> None:
    """BLACK's reading: a strong `next` makes an atom false at the last instant, a weak one
    true; `prev`/`wprev` likewise at the first."""
    assert isinstance(solve("G(next(x) > x)"), Unsat)  # the last instant has no next
    assert isinstance(solve("G(wnext(x) > x) & X wX false"), Sat)
    assert isinstance(solve("prev(x) = 1"), Unsat)
    assert isinstance(solve("wprev(x) = 1 & x = 2"), Sat)
    assert holds("G(wnext(x) > x)", "x = 1; x = 2")
    assert not holds("G(next(x) > x)", "x = 1; x = 2")
    assert holds("wprev(x) = 5", "x = 1")


def test_infinite_traces_close_the_values_with_the_loop() -> None:
    """A lasso's values repeat with its loop: where none can, the answer is UNKNOWN (the values
    may still go on without repeating), never UNSAT."""
    result = solve("x = 0 & G(next(x) = 1 - x)", semantics="infinite")
    assert isinstance(result, Sat) and not result.witness.finite
    assert holds("x = 0 & G(next(x) = 1 - x)", str(result.witness))
    assert isinstance(solve("x = 0 & G(next(x) = x + 1)", semantics="infinite", seconds=2), Unknown)
    assert isinstance(solve("G(x > 0) & F(x < 0)", semantics="infinite"), Unsat)


def test_functions_are_rigid() -> None:
    """An uninterpreted function is the same at every instant: `f(c)` cannot change while c
    stays."""
    assert isinstance(solve("G(wnext(c) = c) & f(c) = 1 & F(f(c) = 2)"), Unsat)
    assert isinstance(solve("f(c) = 1 & F(f(c) = 2)"), Sat)


def test_pre_functions_read_the_previous_instant() -> None:
    text = "G(preInt(0, x) + 1 = x)"  # x = 1, 2, 3, ...
    result = solve(text + " & X X true")
    assert isinstance(result, Sat)
    assert values(result, "x")[:3] == [1, 2, 3]
    assert holds(text, "x = 1; x = 2; x = 3") and not holds(text, "x = 1; x = 3")


def test_division_holds_only_where_the_divisor_is_not_zero() -> None:
    assert holds("x / y > 1", "x = 5 & y = 2") and not holds("x / y > 1", "x = 5 & y = 0")
    assert not holds("!(x / y > 1)", "x = 5 & y = 2") and holds("!(x / y > 1)", "x = 5 & y = 0")
    assert holds("x / 2 = 1.5", "x = 3.0", REALS) and holds("x / 2 = 1", "x = 3")  # Real and Int division
    assert euclid(-7, 2) == (-4, 1) and euclid(7, -2) == (-3, 1)
    assert holds("x / 2 = -4 & x mod 2 = 1", "x = -7")


def test_witnesses_are_checked_without_z3(monkeypatch) -> None:
    """The exact evaluator judges a witness with z3 out of reach."""
    result = solve("c = 1.0 & G(wnext(c) = c / 3) & F(c < 0.05)", REALS)
    assert isinstance(result, Sat)
    assert any(isinstance(v, Fraction) and v.denominator == 27 for v in values(result, "c"))
    monkeypatch.setitem(sys.modules, "z3", None)  # `import z3` fails from here on
    assert ltl.holds(parse_formula("c = 1.0 & G(wnext(c) = c / 3) & F(c < 0.05)"), result.witness, declarations=REALS)


def test_traces_that_cannot_be_judged() -> None:
    for trace, message in [
        ("x = 1; y = 2", "gives y no value at step 1"),
        ("x = 1.5", "x is Int, and 1.5 is not an integer"),
        ("x > 1", "is a condition, not a value"),
        ("x = 1 & x = 2", "two values for x"),
    ]:
        with pytest.raises(TraceError, match=message):
            holds("x > 0 & X(x > 0 | y > 0)" if "y" in trace else "x > 0", trace)


def test_solve_prints_values_in_every_format() -> None:
    formula = "x = 0 & G(wnext(x) = x + 2) & F(x = 4)"
    text = run("solve", "--finite", "--domain", "Int", formula)
    assert (text.exit_code, text.stdout) == (0, "x = 0; x = 2; x = 4\n")
    record = json_lines(run("solve", "--finite", "--domain", "Int", "--format", "json", formula).stdout)[0]
    assert (record["witness"], record["verified"], record["witness_polish"]) == ("x = 0; x = 2; x = 4", True, None)
    csv = run("solve", "--finite", "--domain", "Int", "--format", "csv", formula).stdout.splitlines()
    assert "x = 0; x = 2; x = 4" in csv[1]
    lbt = run("solve", "--finite", "--domain", "Int", "--syntax-out", "lbt", formula)  # values: infix
    assert lbt.stdout == "x = 0; x = 2; x = 4\n"


def test_solve_errors_name_the_input_and_go_on() -> None:
    result = run("solve", "--finite", "x > 1 & x < 2", "G p", "--var", "mode:{a,b}", "mode = c")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == ["ERROR", "p", "ERROR"]
    assert "<arg 1>: the sort of x is unknown" in result.stderr
    assert "<arg 3>: c is not a value of the enumeration {a, b} (nor a declared variable)" in result.stderr
    usage = run("solve", "--var", "speed", "x > 1")
    assert usage.exit_code == 2 and "expected NAME:SORT" in usage.stderr
    prop = run("solve", "--logic", "prop", "--domain", "Int", "x > 1")
    assert prop.exit_code == 2 and "compares data" in prop.stderr


def test_verify_reads_traces_with_values() -> None:
    ok = run("verify", "--finite", "--domain", "Int", "x = 0 & G(wnext(x) = x + 1)", "x = 0; x = 1; x = 2")
    bad = run("verify", "--finite", "--domain", "Int", "x = 0 & G(wnext(x) = x + 1)", "x = 0; x = 2")
    assert (ok.exit_code, ok.stdout, bad.exit_code, bad.stdout) == (0, "HOLDS\n", 1, "FAILS\n")
    claim = run("verify", "--finite", "--domain", "Int", "G(x > 0) & F(x < 0)", "UNSAT")
    assert (claim.exit_code, claim.stdout) == (0, "HOLDS\n")


@pytest.mark.parametrize(
    "text, trace",
    [
        ("next(preReal(0, x)) = 5", "x = 5.0; x = 1.0"),  # a `pre` under a shift
        ("X(preReal(0, preReal(1, x)) = 1)", "x = 1.0; x = 2.0"),  # nested: each at its own instant
        ("X(preReal(0, wprev(x)) = 5)", "x = 1.0; x = 2.0"),  # a weak read stays weak
        ("preReal(1, x) / 2 = y & y > 0.25", "x = 0.0 & y = 0.5"),  # the first instant's init, divided exactly
    ],
)
def test_pre_is_decided_where_it_is_read(text: str, trace: str) -> None:
    """The checker and the solver read `pre` alike: at the instant the call is read, after the
    shifts and the `pre`s around it."""
    assert holds(text, trace, REALS)
    result = solve(text, REALS)
    assert isinstance(result, Sat) and holds(text, str(result.witness), REALS)


def test_each_comparison_computes_in_its_own_sort() -> None:
    decl = INTS.declare("n", INT)
    result = solve("n / 2 = 1 & n = 3 & n < 3.5", decl)  # integer division, whatever `n < 3.5` says
    assert isinstance(result, Sat) and values(result, "n") == [3]
    with pytest.raises(ValueError, match="x mod 2 needs integers, and x is Real"):
        solve("x = 2.5 & x mod 2 = 0", REALS)


def test_lasso_values_close_however_far_back_an_atom_reads() -> None:
    assert isinstance(solve("x = 0 & X(x = 0) & X X G(x = 1 & prev(prev(x)) = 0)", semantics="infinite"), Unsat)
    result = solve("G(prev(prev(x)) = x | !Y Y 1) & G F(x = 1) & G F(x = 2)", semantics="infinite")
    assert isinstance(result, Sat) and not result.witness.finite


def test_a_pre_reads_its_init_only_at_the_first_instant_of_a_lasso() -> None:
    """Below its horizon a `pre` reads init, so the loop of a lasso starting at 0 reads e on its
    later passes, and the reads a branch not taken would make guard nothing."""
    assert isinstance(solve("G p & G(p <-> preInt(1, 0) = 1)", semantics="infinite"), Unsat)
    assert isinstance(solve("G p & G(p <-> preInt(1, 0) = 1)"), Sat)  # the one-instant trace
    result = solve("G(x = 1 - preInt(1, x))", semantics="infinite")
    assert isinstance(result, Sat) and values(result, "x")[:3] == [0, 1, 0]
    assert isinstance(solve("preInt(0, next(x)) = 1 & x = 2 & X(x = 3)"), Unsat)  # init read, not next(x)


def test_a_weak_next_is_a_next_on_infinite_traces() -> None:
    text = "G(x > 0) & wX(x < 3) & X X(x > 5)"
    result = solve(text, semantics="infinite")
    assert isinstance(result, Sat) and ltl.holds(parse_formula(text), result.witness, declarations=INTS)


@pytest.mark.parametrize(
    "text",
    [
        '"a|b" > 0 & "a|b" < 2',
        "b1(x) > 0 & x = 2",
        "div(x, 2) > 0 & div(3, x) < 1",
        "absReal(absReal(absReal(absReal(x - 1) - 1) - 1) - 1) < 0.5",
    ],
)
def test_names_and_nesting_reach_z3_whatever_they_are(text: str) -> None:
    """Symbols are named apart from SMT-LIB's built-ins and the steps' propositions; nested
    built-ins are written once each."""
    result = solve(text, REALS)
    assert isinstance(result, Sat) and holds(text, str(result.witness), REALS)


def test_an_irrational_model_is_unknown() -> None:
    result = solve("x * x = 2", REALS, seconds=5)
    assert isinstance(result, Unknown) and "irrational" in result.reason


def test_declared_data_is_no_proposition() -> None:
    result = run("solve", "--finite", "--var", "x:Int", "F(x=1)")
    assert result.exit_code == 2
    assert "'x=1' is Spot's negation suffix (x); to compare x with 1, write x = 1" in result.stderr
    assert "x is declared Int but stands for a proposition here" in result.stderr
    spaced = run("solve", "--finite", "--var", "x:Int", "F(x = 1)")
    assert (spaced.exit_code, spaced.stdout) == (0, "x = 1\n")


def test_propositions_compared_as_nuxmv_does() -> None:
    """`p = q` between propositions (one used as a proposition elsewhere, or declared Bool) is
    `p <-> q`; a name declared numeric stays a term, and the clash is named."""
    both = INTS.declare("p", parse_sort("Bool")).declare("q", parse_sort("Bool"))
    assert isinstance(solve("p = q & p & !q", both), Unsat)
    result = solve("G(p != q) & p & X q")
    assert isinstance(result, Sat) and [str(s) for s in result.witness.steps] == ["p & !q", "!p & q"]
    chained = solve("p = q & q = r & p & !r")  # r is one through q
    assert isinstance(chained, Unsat)
    assert holds("G(p = q)", "p & q; !p & !q", both) and not holds("G(p = q)", "p & q; p & !q", both)
    with pytest.raises(ValueError, match="q is used both as a proposition and as a term"):
        solve("p = q & q", INTS.declare("p", INT))


def test_a_strong_shift_needs_the_instant_it_moves_to() -> None:
    """`prev(next(x))` at the first instant and `next(1)` at the last read a missing instant."""
    assert isinstance(solve("!(prev(next(x)) = x)"), Sat)
    assert isinstance(solve("prev(next(x)) = x"), Unsat)
    assert isinstance(solve("!(next(1) = 1)"), Sat)
    assert not holds("next(1) = 1", "x = 0") and holds("X(prev(next(x)) = x)", "x = 0; x = 1")


def test_witnesses_with_functions_named_as_operators_read_back() -> None:
    text = "R(x) > 1 & V(x, x)"
    result = solve(text)
    assert isinstance(result, Sat) and '"R"(' in str(result.witness)
    assert holds(text, str(result.witness))


def test_a_case_takes_its_first_branch_whose_condition_holds() -> None:
    """nuXmv's case: with x = 5 both conditions hold and the first one decides."""
    case = "(case x > 3 : 1; x > 0 : 2; TRUE : 3; esac) = y & x = 5"
    assert isinstance(solve(case + " & y = 2"), Unsat)
    assert values(solve(case), "y") == [1]
    assert holds("case x > 3 : y = 1; TRUE : y = 3; esac", "x = 0 & y = 3")
    assert not holds("case x > 3 : y = 1; TRUE : y = 3; esac", "x = 0 & y = 1")
    # its negation holds exactly where the case does not: no instant leaves it without a value
    assert holds("!(case x > 3 : y = 1; TRUE : y = 3; esac)", "x = 9 & y = 3")


def test_nuxmv_statements_are_solved_from_the_command_line(tmp_path) -> None:
    """`LTLSPEC`, `;`, `--` comments and case as nuXmv users write them, as arguments and in
    a -F text file, with --syntax auto and nuxmv; the output keeps one line per formula."""
    lines = [
        "LTLSPEC NAME r1 := G(x > 3) & F(x < 5); -- x is 4 somewhere",
        "INVARSPEC case x > 3 : p; TRUE : !p; esac;",
        "LTLSPEC G(p -> F q);",
    ]
    (tmp_path / "specs.txt").write_text("-- a comment line, skipped as `#` ones are\n" + "\n".join(lines) + "\n")
    for syntax in ("auto", "nuxmv"):
        args = ("solve", "--finite", "--domain", "Int", "--syntax", syntax)
        result = run(*args, *lines)
        assert result.exit_code == 0, result.stderr
        witnesses = result.stdout.splitlines()
        assert len(witnesses) == 3
        for meant, witness in zip(["G(x > 3) & F(x < 5)", "G(x > 3 & p | !(x > 3) & !p)", "G(p -> F q)"], witnesses):
            assert holds(meant, witness), (syntax, meant, witness)
        assert run(*args, "-F", str(tmp_path / "specs.txt")).stdout == result.stdout


def test_mathematical_functions_are_said_to_be_uninterpreted() -> None:
    """`sqrt(26) = 0.0` in a witness is right for an uninterpreted sqrt: a warning says once per
    formula which mathematical functions are read so (any case), and none for a function of
    the user's own."""
    formulas = ["G(y = sqrt(x) + sin(x) + SQRT(x)) & x = 26 & F(sqrt(x) > 0)", "F(f(x) > 1)", "G(Cos(x) < 2)"]
    result = run("solve", "--finite", "--domain", "Real", *formulas)
    assert result.exit_code == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert [line.split(": warning: ")[0] for line in warned] == ["ltlwit: <arg 1>", "ltlwit: <arg 3>"]
    assert (
        warned[0].split(": warning: ")[1].startswith("sqrt, sin, SQRT: uninterpreted functions, not the mathematical")
    )
    assert warned[1].split(": warning: ")[1].startswith("Cos: an uninterpreted function, not the mathematical one")
    records = json_lines(run("solve", "--finite", "--domain", "Real", "--format", "json", *formulas).stdout)
    assert [len(r["warnings"]) for r in records] == [1, 0, 1]


def test_values_that_never_repeat_have_no_lasso_and_say_so_at_once() -> None:
    """`next(x) = x + 1` at every instant: x grows without end, so no lasso (whose loop returns
    to the values it left) is a model, though an infinite trace is: UNKNOWN with that reason
    after a short search for a proof that no trace exists (the engine had spent the whole
    timeout), never UNSAT; where the values are bounded too, that proof is found (UNSAT); where
    they may stay (`next(x) >= x`), a lasso is the answer."""
    import ltlwit

    grows = ltlwit.solve("x = 0 & G(next(x) = x + 1)", domain="Int", model="none", timeout=30)
    assert grows.status == "unknown" and "no lasso can repeat the values: x grows" in grows.message
    shrinks = ltlwit.solve("G(x > wprev(x) - 2 & x < wprev(x))", domain="Real", model="none", timeout=30)
    assert shrinks.status == "unknown" and "x shrinks at every instant" in shrinks.message
    bounded = ltlwit.solve("G(x < next(x)) & G(x >= -1 & x <= 2)", domain="Int", model="none", timeout=30)
    assert bounded.status == "unsat"
    stays = ltlwit.solve("x = 0 & G(next(x) >= x)", domain="Int", model="none", timeout=30)
    assert stays.status == "sat"


# -- atoms that constrain nothing together: the abstraction is exact --------------------------


def _random_ltl(rng, size: int) -> str:
    """A random LTL formula over p, q, r (future and past operators), in Spot's syntax."""
    if size <= 1:
        return rng.choice(["p", "q", "r", "!p", "1"])
    if rng.random() < 0.4:
        return f"{rng.choice(['X', 'F', 'G', 'Y', 'O', 'H', '!'])}({_random_ltl(rng, size - 1)})"
    left = rng.randint(1, size - 2) if size > 2 else 1
    op = rng.choice(["&", "|", "U", "R", "S", "->"])
    return f"({_random_ltl(rng, left)}) {op} ({_random_ltl(rng, size - 1 - left)})"


@pytest.mark.parametrize("semantics", ["finite", "infinite"])
def test_independent_atoms_have_their_abstraction_s_verdict(semantics: str) -> None:
    """Atoms over variables of their own, each true for some values and false for others: a
    formula over them is satisfiable exactly when its propositional skeleton is (`data.exact`),
    and its witness holds with values."""
    import random

    rng = random.Random(7)
    decl = INTS.declare("m", parse_sort("{on, off}"))
    atoms = {"p": "(x > 1)", "q": "(y <= -2)", "r": "(m = on)"}
    for _ in range(60):
        plain = _random_ltl(rng, rng.randint(2, 9))
        text = "".join(atoms.get(ch, ch) for ch in plain)
        formula = parse_formula(text)
        assert _exact(ltl.abstraction(ltl.as_declared(formula, decl), decl, semantics == "finite")), text
        expected = ltl.solve(parse_formula(plain), ltl.Budget(seconds=20), semantics=semantics)
        got = solve(text, decl, semantics)
        assert type(got) is type(expected), (text, got, expected)
        if isinstance(got, Sat):
            assert ltl.holds(formula, got.witness, declarations=decl)


@pytest.mark.parametrize(
    "text, exact",
    [
        ("F(x > 1) & G(y < 0)", True),
        ("G(x > 1) & F(x < 0)", False),  # x in two atoms: they constrain each other
        ("G(x > 1) & F(next(y) < 0)", False),  # a shift reads another instant
        ("G(f(x) > 1)", False),  # an uninterpreted function is rigid
        ("G(x + y > 1) & F(z > 2)", True),
        ("F(x < x)", False),  # never true: its proposition must be false
    ],
)
def test_which_abstractions_are_exact(text: str, exact: bool) -> None:
    assert _exact(ltl.abstraction(parse_formula(text), INTS, True)) is exact


def _exact(abstraction: ltl.Abstraction, budget: ltl.Budget | None = None) -> bool:
    from ltlwit.logic.budget import Limit
    from ltlwit.logic.ltl import data
    from ltlwit.logic.theory.smt import Encoder

    return data.exact(abstraction, Encoder(abstraction.signature), Limit(budget))


def test_a_persisted_condition_gets_its_long_witness_from_the_engine() -> None:
    """FRET's `persisted(100, x > 50.0)` violated needs 101 instants: the exact abstraction's
    witness, given values and checked."""
    text = "!G(H(!(H[0,100](x > 50.0) & H[0,99](Y 1))))"
    result = solve(text, REALS)
    assert isinstance(result, Sat) and len(result.witness.steps) == 101
    assert ltl.holds(parse_formula(text), result.witness, declarations=REALS)


def test_the_search_for_values_that_never_repeat_keeps_the_deadline() -> None:
    """z3 ran seconds past its own timeout on a comparison with a numeral of 73,000 digits,
    before the solve's clock was read at all: the first question is asked within it."""
    from ltlwit.logic.budget import Budget, Limit, OutOfTime
    from ltlwit.logic.ltl import data

    abstraction = ltl.abstraction(parse_formula("G(next(x) > x + 1)"), INTS, False)
    assert data.never_repeats(abstraction) is not None
    with pytest.raises(OutOfTime):
        data.never_repeats(abstraction, Limit(Budget(seconds=0)))
    exact = ltl.abstraction(parse_formula("F(x > 1) & G(y < 0)"), INTS, True)
    assert _exact(exact)
    with pytest.raises(OutOfTime):  # its questions are asked within the solve's deadline too
        _exact(exact, Budget(seconds=0))
