"""`ltlwit fmt`: syntax conversion, one output line per input, errors located and exit 2."""

from __future__ import annotations

import pytest
from cli_support import run

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


@pytest.mark.parametrize("to", ["spot", "polish", "polish-spaced", "lbt"])
def test_every_output_syntax_parses_back_to_the_same_formula(to: str) -> None:
    source = ["a U b U c", "!(a -> X b) <-> (c xor F G d)", "a W (b M !c) & 1 R 0"]
    result = run("fmt", "--to", to, *source)
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    assert len(out) == len(source)
    for original, printed in zip(source, out):
        assert parse_formula(printed, to) is parse_formula(original, "spot")


def test_default_output_is_spot_and_input_syntax_is_detected() -> None:
    expected = parse_formula("(a U b) & !X c", "spot")
    for args in (["&Uab!Xc"], ["--syntax", "polish", "&Uab!Xc"], ["--syntax", "lbt", '& U "a" "b" ! X "c"']):
        result = run("fmt", *args)
        assert result.exit_code == 0
        assert parse_formula(result.stdout.strip(), "spot") is expected


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
