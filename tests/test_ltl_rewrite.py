"""Formula preparation: NNF and the basic rewrites (rules, fixpoint, native operators, depth)."""

from __future__ import annotations

import pytest

from ltlwit.logic.formula import Formula, ap, unop
from ltlwit.logic.ltl.encoding.rewrite import negate, simplify
from ltlwit.logic.syntax import parse_formula, print_formula


def _s(text: str) -> str:
    return print_formula(simplify(parse_formula(text, "spot")), "spot")


def _n(text: str) -> str:
    return print_formula(negate(parse_formula(text, "spot")), "spot")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("X(1)", "1"),
        ("F(0)", "0"),
        ("G(1)", "1"),
        ("a U 1", "1"),
        ("0 U b", "b"),
        ("1 U b", "Fb"),
        ("0 R b", "Gb"),
        ("1 R b", "b"),
        ("a W 0", "Ga"),
        ("1 M b", "b"),
        ("a M 1", "Fa"),
        ("FFa", "Fa"),
        ("GGa", "Ga"),
        ("a U a", "a"),
        ("F(a U b)", "Fb"),
        ("G(a R b)", "Gb"),
        ("a U Fb", "Fb"),
        ("a R Gb", "Gb"),
        ("a U (a U b)", "a U b"),
        ("(a U b) U b", "a U b"),
        ("Xa U Xb", "X(a U b)"),
        ("XGFa", "GFa"),
        ("FGFa", "GFa"),
        ("GFGa", "FGa"),
        ("GFa | GFb", "GF(a | b)"),
        ("FGa & FGb", "FG(a & b)"),
        ("Ga & Gb", "G(a & b)"),
        ("Fa | Fb", "F(a | b)"),
        ("Xa & Xb", "X(a & b)"),
        ("a & (a | b)", "a"),
        ("a | (a & b)", "a"),
        ("a & !a & Fb", "0"),
        ("a | b | !a", "1"),
        ("a & a", "a"),
    ],
)
def test_rules(text: str, expected: str) -> None:
    assert _s(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("!(a U b)", "!a R !b"),
        ("!(a R b)", "!a U !b"),
        ("!(a W b)", "!a M !b"),
        ("!(a M b)", "!a W !b"),
        ("!Fa", "G!a"),
        ("!Ga", "F!a"),
        ("!Xa", "X!a"),
        ("!(a <-> Fb)", "a xor Fb"),
        ("!(a xor Fb)", "a <-> Fb"),
        ("!(a -> b)", "a & !b"),
    ],
)
def test_negation_normal_form_keeps_operators_native(text: str, expected: str) -> None:
    assert _s(text) == expected


def test_negate_is_simplified_negation() -> None:
    assert _n("G(a -> F b)") == "F(a & G!b)"
    assert _n("GFa") == "FG!a"


def test_fixpoint() -> None:
    for text in ["X(Ga & Gb) & XG c", "(a U (a U (a U b))) | F(c U (d U e))", "GF(a) | X(GFb | GFc)"]:
        once = simplify(parse_formula(text, "spot"))
        assert simplify(once) is once


def test_result_is_in_negation_normal_form() -> None:
    f = simplify(parse_formula("!(a -> !(Fb <-> !(c W !Xd))) xor !G(e M !f)", "spot"))
    for node in f.walk():
        assert node.op not in ("->",)
        if node.op == "!":
            assert node.children[0].op == "ap"


def test_no_blow_up_on_nested_equivalences() -> None:
    f = ap("p0")
    for i in range(1, 60):
        f = Formula("<->", (f, unop("F", ap(f"p{i}"))))
    assert simplify(f).size <= f.size + 1
    assert negate(f).size <= f.size + 1


def test_deep_formulas_are_fine() -> None:
    f = ap("a")
    for _ in range(20000):
        f = unop("X", f)
    g = simplify(Formula("!", (f,)))
    assert g.size == f.size + 1


def test_a_chain_that_repeats_its_links_is_flattened_once() -> None:
    """`f | f` twenty times over is a DAG of 21 nodes but a tree of a million operands: the
    chain's operands are its distinct ones, each link walked once."""
    from ltlwit.logic.formula import Or
    from ltlwit.logic.ltl.encoding.rewrite import _dependencies

    f = Or(ap("a"), ap("b"))
    for _ in range(20):
        f = Or(f, f)
    assert _dependencies(f, False) == [(ap("a"), False), (ap("b"), False)]
    assert print_formula(simplify(f)) == "a | b"


def test_the_deadline_is_read_as_often_as_operands_are_built() -> None:
    """300 stacked `O[<=3]` over data's guards make a few hundred n-ary nodes of hundreds of
    operands each; read every 1,024 nodes, the deadline went unread for seconds (2,638 of them
    ran 60 s past a 2 s --timeout)."""
    from ltlwit.logic.budget import Budget, Limit
    from ltlwit.logic.ltl.encoding import rewrite

    class Counting(Limit):
        reads = 0

        def check_time(self) -> None:
            Counting.reads += 1

    formula = parse_formula("O[<=3] " * 300 + "(a | X b) M Y c")
    rewrite.clear_memo()
    simplify(formula, Counting(Budget(seconds=60)))
    assert Counting.reads >= 20
