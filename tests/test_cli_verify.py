"""`ltlwit verify`: assignments entail propositional formulas, traces satisfy LTL formulas."""

from __future__ import annotations

import pytest
from cli_support import json_lines, run


@pytest.mark.parametrize("witness", ["a0", '{"a": false}', "!a", "a0b1", "b1a0", "!a & b"])
def test_propositional_witness_spellings_that_hold(witness: str) -> None:
    result = run("verify", "!a | (b & c)", witness)
    assert (result.exit_code, result.stdout) == (0, "HOLDS\n")


@pytest.mark.parametrize("witness", ["a1", "b1", "1", "a & b"])
def test_propositional_witnesses_that_fail(witness: str) -> None:
    result = run("verify", "!a | (b & c)", witness)
    assert (result.exit_code, result.stdout) == (1, "FAILS\n")


def test_a_cube_over_a_multi_letter_ap_is_not_misread_as_a1() -> None:
    assert run("verify", "a1 | b", "a1").stdout == "HOLDS\n"
    assert run("verify", "a | b", "a1").stdout == "HOLDS\n"


def test_foreign_ap_is_an_error_not_a_crash() -> None:
    result = run("verify", "a | b", "z1")
    assert result.exit_code == 2
    assert "ltlwit: <arg 1>: the assignment names z, which the formula does not mention" in result.stderr


def test_ltl_traces() -> None:
    assert run("verify", "G(req -> F grant)", "cycle{!req}").stdout == "HOLDS\n"
    assert run("verify", "G(req -> F grant)", "req; cycle{!grant}").stdout == "FAILS\n"
    assert run("verify", "G a", "a; cycle{a & !a}").exit_code == 1  # an unsatisfiable step never holds
    assert run("verify", "GF a", "&a!b;{a}").stdout == "HOLDS\n"  # DeepLTL's spelling


def test_propositional_formula_accepts_a_trace_too() -> None:
    assert run("verify", "a & !b", "cycle{a & !b}").stdout == "HOLDS\n"
    assert run("verify", "--logic", "prop", "a", "cycle{a}").exit_code == 2


def test_file_of_pairs_json(tmp_path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("a & b\ta1b1\nF a\tcycle{!a}\n# comment\nno tab here\nG a\tcycle{(\n")
    result = run("verify", "--format", "json", "-F", str(path))
    records = json_lines(result.stdout)
    assert [(r["formula"], r["witness"], r["holds"]) for r in records[:2]] == [
        ("a & b", "a1b1", True),
        ("F a", "cycle{!a}", False),
    ]
    assert [(r["line"], r["status"]) for r in records] == [(1, "holds"), (2, "fails"), (4, "error"), (5, "error")]
    assert {"formula", "witness", "holds"} <= set(records[0])
    assert records[2]["error"] == "expected FORMULA<TAB>WITNESS"
    assert f"ltlwit: {path}:4: expected FORMULA<TAB>WITNESS" in result.stderr
    assert f"ltlwit: {path}:5: parse error in the witness:" in result.stderr
    assert result.exit_code == 2


def test_pairs_from_stdin() -> None:
    result = run("verify", input="a\ta1\nb\tb0\n")
    assert (result.exit_code, result.stdout) == (1, "HOLDS\nFAILS\n")


def test_bad_formula_is_located() -> None:
    result = run("verify", "a &", "a1")
    assert result.exit_code == 2
    assert result.stderr.startswith("ltlwit: <arg 1>: parse error in the formula:\n>>> a &\n")


ROUND_TRIP_FORMULAS = [
    "a & !b",
    "(a -> b) & a",
    "a <-> b",
    "a | !a",
    "t | !t",
    "true",
    '"t" & !u',
    "p0 & !p1",
    "a1 & b0",
    '"x y" & !"b#c"',
    "X a",
    "G(req -> F grant)",
    "X X !a & a",
    "GF (a & !b) & FG c",
    "G a | !G a",
    'G("a;b" -> X "c{d}")',
    'F "t"',
    "p0 U (p1 & X !p0)",
    'G "Req"',
    'G "X1"',
    'G "Gb"',
    'G("Fa" & !b)',  # names that read as operators unquoted
]


@pytest.mark.parametrize("syntax", ["spot", "polish", "lbt"])
@pytest.mark.parametrize("formula", ROUND_TRIP_FORMULAS)
def test_every_solve_witness_reads_back(syntax: str, formula: str) -> None:
    """What `solve --syntax-out S` prints verifies: traces and assignments, tautologies (the
    empty assignment) and names that need quotes, in every output syntax."""
    solved = run("solve", "--model", "none", "--syntax-out", syntax, formula)
    assert solved.exit_code == 0, solved.stderr
    witness = solved.stdout.removesuffix("\n")
    result = run("verify", formula, witness)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "HOLDS\n", ""), witness


def test_lbt_cubes() -> None:
    assert run("verify", "a & !b", '& "a" ! "b"').stdout == "HOLDS\n"
    assert run("verify", "a & !b", '& "a" "b"').stdout == "FAILS\n"
    assert run("verify", "a | b", "t").stdout == "FAILS\n"  # LBT's true: the empty assignment
    assert run("verify", "t", "t").stdout == "HOLDS\n"  # ... unless the formula is about an AP t
    assert run("verify", "p0 -> p1", "! p0").stdout == "HOLDS\n"
    assert run("verify", "G(a -> X b)", 'cycle{& ! "a" "b"}').stdout == "HOLDS\n"


def test_a_deepltl_file_verifies_as_its_formulas_are_meant(tmp_path) -> None:
    """`UX0&cXe` is `(X 0) U (c & X e)` in DeepLTL's Polish, two propositions in Spot. A line
    whose witness is in DeepLTL's framing, or that follows Polish-only lines, is read as Polish."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("UX0&cXe\t&c1;{&ce}\n")  # alone: the `;{...}` witness says DeepLTL
    assert run("verify", "-F", str(pairs)).stdout == "HOLDS\n"
    data = tmp_path / "data.txt"
    data.write_text("&ab\nUX0&cXe\n")
    solved = run("solve", "-F", str(data)).stdout.splitlines()
    pairs.write_text("".join(f"{f}\t{w}\n" for f, w in zip(["&ab", "UX0&cXe"], solved)))
    assert run("verify", "-F", str(pairs)).stdout == "HOLDS\nHOLDS\n"  # Spot-framed witnesses
