"""TLSF's basic format (`ltlwit.logic.syntax.tlsf`): its own precedences, the bounded operators,
the sections merged as syfco writes them, and errors at the file's line and column."""

from __future__ import annotations

import pytest

from ltlwit.logic.syntax import parse_formula
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
        ("true && !false", "1 & !0"),
        ("a <-> b -> c", "a <-> (b -> c)"),
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
        ("INPUTS { a; }\nOUTPUTS { a; }", 7, "a is both an input and an output"),
        ("INPUTS { a; }\nWHATEVER { a; }", 8, "unknown section WHATEVER"),
        ("INPUTS { a; }\nOUTPUTS { o; }\nGUARANTEES {\n  G (a -> o);\n", 6, "missing closing brace"),
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


def test_parameterised_tlsf_says_how_to_instantiate_it() -> None:
    with pytest.raises(TlsfError, match="syfco"):
        parse_tlsf("INFO { SEMANTICS: Mealy }\nGLOBAL { PARAMETERS { n = 2; } }\nMAIN { INPUTS { a; } }")
    with pytest.raises(TlsfError, match="unknown SEMANTICS"):
        parse_tlsf(spec("INPUTS { a; }", "Mooly"))
