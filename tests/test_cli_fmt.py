"""`ltlwit fmt`: syntax conversion, one output line per input, errors located and exit 2."""

from __future__ import annotations

import pytest
from cli_support import run

from ltlwit.logic import FMT_SYNTAXES
from ltlwit.logic.syntax import parse_formula


@pytest.mark.parametrize(
    "to, expected",
    [
        ("polish-spaced", "G -> req F grant"),
        ("polish", None),
    ],
)
def test_convert(to: str, expected: str | None) -> None:
    result = run("fmt", "--to", to, "G(req -> F grant)")
    if expected is None:  # network Polish cannot spell multi-letter APs
        assert result.exit_code == 2 and result.stdout == "ERROR\n"
    else:
        assert (result.exit_code, result.stdout) == (0, expected + "\n")


@pytest.mark.parametrize("to", FMT_SYNTAXES)
def test_every_output_syntax_parses_back_to_the_same_formula(to: str) -> None:
    source = ["a U b U c", "!(a -> X b) <-> (c xor F G d)", "a W (b M !c) & 1 R 0", '"t" U X "f"', "X true & a"]
    result = run("fmt", "--to", to, *source)
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    assert len(out) == len(source)
    for original, printed in zip(source, out):
        expected = parse_formula(original, "spot")
        assert parse_formula(printed) is expected  # auto-detection, as a later command reads it
        assert parse_formula(printed, "spot" if to == "infix" else to) is expected


def test_default_output_is_infix_and_input_syntax_is_detected() -> None:
    expected = parse_formula("(a U b) & !X c", "spot")
    for args in (["&Uab!Xc"], ["--syntax", "polish", "&Uab!Xc"], ["--syntax", "lbt", '& U "a" "b" ! X "c"']):
        result = run("fmt", *args)
        assert result.exit_code == 0
        assert parse_formula(result.stdout.strip(), "spot") is expected


@pytest.mark.parametrize("args", [[], ["--to", "infix"]])
def test_past_and_weak_next_are_written_in_infix_unless_spot_is_asked_for(args: list[str]) -> None:
    result = run("fmt", *args, "Y TRUE", "G(grant -> O req)", "wX false")
    assert (result.exit_code, result.stdout) == (0, "Y(1)\nG(grant -> Oreq)\nwX 0\n")
    for line in result.stdout.splitlines():
        assert parse_formula(line).past or parse_formula(line).weak


def test_spot_refuses_what_its_syntax_lacks_in_one_line() -> None:
    result = run("fmt", "--to", "spot", "Y TRUE")
    assert (result.exit_code, result.stdout) == (2, "ERROR\n")
    assert result.stderr.count("\n") == 1
    assert "Spot's syntax has no past operators" in result.stderr


def test_lbt_refuses_a_constant_under_unary_operators_that_would_read_back_as_a_name() -> None:
    result = run("fmt", "--to", "lbt", "X[!](Y(wX(false)))", "X(false) U p0")
    assert (result.exit_code, result.stdout) == (2, "ERROR\nU X f p0\n")
    assert "cannot print in lbt syntax: its LBT spelling 'X Y wX f' is also infix over a proposition f" in result.stderr
    assert result.stderr.count("\n") == 1


def test_names_that_spell_constants_or_operators_are_quoted() -> None:
    source = '"t" & "f" & "X" & "G" & "true" & "i" & p0'
    result = run("fmt", "--to", "lbt", source)
    assert result.stdout == '& & & & & & "t" "f" "X" "G" "true" "i" p0\n'
    spaced = run("fmt", "--to", "polish-spaced", source).stdout
    assert spaced == '& & & & & & "t" "f" "X" "G" "true" "i" p0\n'
    for printed in (result.stdout, spaced):
        assert parse_formula(printed) is parse_formula(source, "spot")


def test_network_polish_that_spot_would_read_otherwise_is_written_spaced() -> None:
    result = run("fmt", "--to", "polish", "a U b", "a & X b", "F true")
    assert (result.exit_code, result.stdout) == (0, "U a b\n&aXb\nF 1\n")


def test_unprintable_and_unparsable_inputs_are_errors(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("a & b\nreq & b\n(a\n")
    result = run("fmt", "--to", "polish", "-F", str(path))
    assert result.exit_code == 2
    assert result.stdout == "&ab\nERROR\nERROR\n"
    assert f"ltlwit: {path}:2: cannot print in polish syntax" in result.stderr
    assert f"ltlwit: {path}:3: parse error:" in result.stderr


def test_fmt_reads_piped_stdin() -> None:
    assert run("fmt", "--to", "polish", input="a & !b\n").stdout == "&a!b\n"


def test_a_formula_too_large_to_print_is_an_error_of_its_line() -> None:
    """`O[<=3]` stacked 14 times: 43 nodes, 805 million occurrences spelled out (no syntax
    keeps the bounded past): a one-line error for that input, at once, and the next printed
    (fmt wrote gigabytes, a hang to the fuzzer)."""
    result = run("fmt", "-F", "-", input="O[<=3] " * 14 + "a\nF b\n")
    assert result.exit_code == 2 and result.stdout == "ERROR\nFb\n"
    assert "805,306,366 subformula occurrences" in result.stderr and "too large to print" in result.stderr
