"""TLSF's basic format (`ltlwit.logic.syntax.tlsf`): its own precedences, the bounded operators,
the sections merged as syfco writes them, and errors at the file's line and column."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from strategies import formulas

from ltlwit.logic.formula import FALSE, TRUE, Formula, transform
from ltlwit.logic.syntax import parse_formula, print_formula
from ltlwit.logic.syntax.tlsf import TlsfError, parse_tlsf


def spec(main: str, semantics: str = "Mealy") -> str:
    return f'INFO {{\n  TITLE: "t"\n  SEMANTICS: {semantics}\n  TARGET: Mealy\n}}\nMAIN {{\n{main}\n}}\n'


def guarantee(text: str, inputs: str = "a; b; c;") -> str:
    return str(parse_tlsf(spec(f"INPUTS {{ {inputs} }}\nOUTPUTS {{ o; }}\nGUARANTEES {{ {text}; }}")).formula())


@pytest.mark.parametrize(
    "tlsf, spot",
    [
        # temporal binary operators bind weaker than the Boolean ones
        ("a -> b U c", "(a -> b) U c"),
        ("a && b || c W a", "((a & b) | c) W a"),
        # W above U above R
        ("a U b W c", "a U (b W c)"),
        ("a R b U c", "a R (b U c)"),
        ("a R b R c", "(a R b) R c"),
        ("a U b U c", "a U (b U c)"),
        # unary operators bind tightest
        ("G a && F b", "G a & F b"),
        ("! a -> X o", "!a -> X o"),
        ("X[2] a", "X X a"),
        ("F[1:2] a", "X(a | X a)"),
        ("true && !false", "1"),  # constants fold (guards are computed)
        ("a && true", "a & 1"),
        ("a <-> b -> c", "a <-> (b -> c)"),
        # && above ||, both left-associative (ltl2dpa10 reads G F p0 || G F p2 && !G F p1)
        ("a || b && c", "a | (b & c)"),
        ("a && b || c && a", "(a & b) | (c & a)"),
        ("G F a || G F b && !G F c", "G F a | (G F b & !G F c)"),
        ("a || b || c", "(a | b) | c"),
    ],
)
def test_precedence(tlsf: str, spot: str) -> None:
    assert guarantee(tlsf) == str(parse_formula(spot))


def test_sections_merge_as_syfco_writes_them() -> None:
    text = spec(
        """
  INPUTS { r; }
  OUTPUTS { g; }
  INITIALLY { !r; }
  PRESET { !g; }
  REQUIRE { r -> X !r; }
  ASSERT { g -> !r; }
  ASSUMPTIONS { G F r; }
  GUARANTEES { G F g; }
"""
    )
    s = parse_tlsf(text)
    assert (s.inputs, s.outputs, s.semantics, s.strict) == (("r",), ("g",), "mealy", False)
    expected = parse_formula("!r -> (!g & ((G(r -> X !r) & G F r) -> (G(g -> !r) & G F g)))")
    assert s.formula() is expected
    strict = parse_tlsf(text.replace("SEMANTICS: Mealy", "SEMANTICS: Mealy,Strict"))
    assert strict.strict and strict.formula() is parse_formula(
        "!r -> (!g & ((g -> !r) W !(r -> X !r)) & ((G(r -> X !r) & G F r) -> G F g))"
    )


def test_comments_optional_last_semicolon_and_moore() -> None:
    text = spec(
        """
  // inputs
  INPUTS { a; /* two
  lines */ }
  OUTPUTS { o; }
  GUARANTEES {
    G (a -> X o);   // response
    F o
  }
""",
        "Moore",
    )
    s = parse_tlsf(text)
    assert s.moore and s.inputs == ("a",)
    assert s.formula() is parse_formula("G(a -> X o) & F o")


@pytest.mark.parametrize(
    "main, line, reason",
    [
        ("INPUTS { a; }\nOUTPUTS { o; }\nGUARANTEES {\n  G (a -> ;\n}", 10, "syntax error"),
        ("INPUTS { a; }\nOUTPUTS { o; }\nGUARANTEES {\n  G (a -> z);\n}", 10, "z is neither an input nor an output"),
        ("INPUTS { a; }\nOUTPUTS { a; }", 8, "a is both an input and an output"),
        ("INPUTS { a; }\nWHATEVER { a; }", 8, "unknown section WHATEVER"),
        ("INPUTS { a; }\nOUTPUTS { o; }\nGUARANTEES {\n  G (a -> o);\n", 13, "missing closing brace"),
        ("INPUTS { a; }\nOUTPUTS { o; }\nGUARANTEES { a $ o; }", 9, "unexpected character '$'"),
    ],
)
def test_errors_say_line_and_column(main: str, line: int, reason: str) -> None:
    with pytest.raises(TlsfError) as caught:
        parse_tlsf(spec(main))
    assert caught.value.line == line
    assert reason in str(caught.value)
    assert str(caught.value).startswith(f"line {line}: column ")
    assert "^" in caught.value.render()


def test_unknown_semantics() -> None:
    with pytest.raises(TlsfError, match="unknown SEMANTICS"):
        parse_tlsf(spec("INPUTS { a; }", "Mooly"))


ARBITER = """INFO {
  TITLE:       "arbiter"
  SEMANTICS:   Mealy
  TARGET:      Mealy
}
GLOBAL {
  PARAMETERS {
    n = 3;
    u = n - 2;
  }
  DEFINITIONS {
    // at most one of bus[i..j]
    mone(bus,i,j) =
      i > j : false
      i == j : true
      otherwise : (none(bus, i, m(i,j)) && mone(bus, m(i,j) + 1, j)) ||
                  (mone(bus, i, m(i,j)) && none(bus, m(i,j) + 1, j));
    none(bus,i,j) = &&[i <= t <= j] !bus[t];
    m(i,j) = (i + j) / 2;
    last = SIZEOF g - 1;
  }
}
MAIN {
  INPUTS { r[n]; }
  OUTPUTS { g[n]; }
  ASSERT { mone(g, 0, n - 1); }
  GUARANTEES {
    &&[0 <= i < n] G (r[i] -> F g[i]);
    ||[i IN {0, last}] X[u] g[i];
  }
}
"""


def test_parameterised_tlsf_is_instantiated_as_syfco_does() -> None:
    s = parse_tlsf(ARBITER)
    assert s.inputs == ("r_0", "r_1", "r_2") and s.outputs == ("g_0", "g_1", "g_2")
    none = {(i, j): " & ".join(f"!g_{t}" for t in range(i, j + 1)) for i in range(3) for j in range(i, 3)}
    # m(0, 2) = 1, mone(g, 2, 2) = true, m(0, 1) = 0
    mone = f"({none[0, 1]} & 1) | ((({none[0, 0]} & 1) | (1 & {none[1, 1]})) & {none[2, 2]})"
    responses = " & ".join(f"G(r_{i} -> F g_{i})" for i in range(3))
    expected = parse_formula(f"G({mone}) & ({responses} & (X g_0 | X g_2))")
    assert s.formula() is expected
    assert parse_tlsf(ARBITER, {"n": 2}).outputs == ("g_0", "g_1")
    # {a, b .. c} counts from a to c in steps of b - a, as Haskell's [a, b .. c]
    assert parse_tlsf(ARBITER.replace("SIZEOF g - 1", "SIZEOF {0, 2 .. 6} - MAX {1 .. 2}")).formula() is expected
    with pytest.raises(TlsfError, match="no parameter k"):
        parse_tlsf(ARBITER, {"k": 2})


@pytest.mark.parametrize(
    "change, reason",
    [
        (("mone(g, 0, n - 1)", "mone(g, 0, n)"), "index 3 out of bus's range 0..2"),
        (("mone(g, 0, n - 1)", "mine(g)"), "mine is not defined"),
        (("mone(g, 0, n - 1)", "mone(g, 0)"), "mone takes 3 arguments, not 2"),
        (("[0 <= i < n]", "[i + 1]"), "expected a binding"),
        (("r[n];", "hburst r;"), "hburst is not an enumerated type"),
        (("u = n - 2;", "u = n / 0;"), "division by zero"),
    ],
)
def test_parameterised_errors(change: tuple[str, str], reason: str) -> None:
    with pytest.raises(TlsfError) as caught:
        parse_tlsf(ARBITER.replace(*change))
    assert reason in str(caught.value) and str(caught.value).startswith("line ")


def test_finite_next_is_weak_and_the_bang_next_strong() -> None:
    s = parse_tlsf(spec("INPUTS { a; }\nOUTPUTS { o; }\nGUARANTEES { X a && X[!] o; }", "Mealy,Finite"))
    assert s.finite and s.formula() is parse_formula("wX a & X o")


@settings(max_examples=300, deadline=None)
@given(formulas(("a", "b", "c"), max_leaves=12, past=False))
def test_boolean_and_unary_precedence_agree_with_spot(f: Formula) -> None:
    """Where TLSF and Spot agree (the Boolean and unary operators), a formula printed by Spot's
    printer with as few parentheses as Spot needs reads back as the same formula."""
    f = _without_temporal_binaries(f)
    text = print_formula(f, "spot").replace("&", "&&").replace("|", "||").replace("xor", "^")
    assume("^" not in text)
    text = re.sub(r"\b1\b", "true", re.sub(r"\b0\b", "false", text))
    text = re.sub(r"([XFG])", r"\1 ", text)  # Spot writes GFa: the names here are a, b, c
    assert parse_tlsf(spec(f"INPUTS {{ a; b; c; }}\nOUTPUTS {{ o; }}\nGUARANTEES {{ {text}; }}")).formula() is _folded(
        f
    )


def _without_temporal_binaries(f: Formula) -> Formula:
    return transform(
        f,
        lambda n, kids: (
            Formula("&", kids) if n.op in ("U", "R", "W", "M", "xor") else Formula(n.op, kids, n.name) if kids else n
        ),
    )


def _folded(f: Formula) -> Formula:
    """Constants folded where both operands are constants, as TLSF's reader folds guards."""

    def rule(n: Formula, kids: tuple[Formula, ...]) -> Formula:
        if n.op == "!" and kids[0].is_constant:
            return FALSE if kids[0] is TRUE else TRUE
        if n.op in ("&", "|", "->", "<->") and all(k.is_constant for k in kids):
            a, b = (k is TRUE for k in kids)
            value = {"&": a and b, "|": a or b, "->": (not a) or b, "<->": a == b}[n.op]
            return TRUE if value else FALSE
        return Formula(n.op, kids, n.name) if kids else n

    return transform(f, rule)


ENUMS = """
INFO { TITLE: "t" SEMANTICS: Mealy TARGET: Mealy }
GLOBAL {
  DEFINITIONS {
    enum burst = SINGLE: 01 INCR: 00, 11;
    enum mode = IDLE: 0* BUSY: 10;
  }
}
MAIN {
  INPUTS { burst h; }
  OUTPUTS { mode m; o; }
  GUARANTEES { G (o <-> h == SINGLE) && G (h != INCR -> m == BUSY); }
}
"""


def test_enumerated_types_are_buses_compared_by_their_codes() -> None:
    """Bit i of a signal is its code's i-th character; a value may have several codes, `*`
    either bit; codes no value has are ruled out for inputs by the environment (REQUIRE), for
    outputs by the system (ASSERT), as syfco writes them."""
    s = parse_tlsf(ENUMS)
    assert s.inputs == ("h_0", "h_1") and s.outputs == ("m_0", "m_1", "o")
    single, incr = "!h_0 & h_1", "(!h_0 & !h_1) | (h_0 & h_1)"
    assert s.sections["require"] == (parse_formula("!(h_0 & !h_1)"),)  # 10: no value of burst
    assert s.sections["assert"] == (parse_formula("!(m_0 & m_1)"),)  # 11: none of mode
    guarantees = f"G(o <-> ({single})) & G(!({incr}) -> (m_0 & !m_1))"
    assert s.formula() is parse_formula(f"G!(h_0 & !h_1) -> (G!(m_0 & m_1) & ({guarantees}))")
    every_code = parse_tlsf(ENUMS.replace("00, 11", "00, 1*"))
    assert "require" not in every_code.sections


@pytest.mark.parametrize(
    "change, reason",
    [
        (("BUSY: 10", "BUSY: 100"), "a code of 3 bits where mode's have 2"),
        (("BUSY: 10", "BUSY: 12"), "expected a code of 0, 1 and *, found '12'"),
        (("BUSY: 10", "IDLE: 10"), "IDLE is already a value of mode"),
        (("h != INCR", "h != BUSY"), "an enumerated value compared with something not of its type"),
        (("h != INCR", "o != INCR"), "an enumerated value compared with something not of its type"),
    ],
)
def test_enumerated_type_errors(change: tuple[str, str], reason: str) -> None:
    with pytest.raises(TlsfError) as caught:
        parse_tlsf(ENUMS.replace(*change))
    assert reason in str(caught.value)
