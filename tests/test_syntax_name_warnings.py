"""Names that Spot's rules split into an operator and a name (`Grant` is `G rant`): the reading
stays Spot's, and `solve`, `verify` and `check` warn, once per name and run."""

from __future__ import annotations

import pytest
from cli_support import json_lines, run

import ltlwit
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.syntax.infix_lex import split_names, split_warning

GRANT = "'Grant' is read as 'G rant' (G applied to rant); write \"Grant\" to keep it one name"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Grant", [("Grant", "G rant")]),
        ("Grant & X Grant & F(Grant)", [("Grant", "G rant")]),  # each name once
        ("Fail U Once", [("Fail", "F ail"), ("Once", "O nce")]),
        ("XGready", [("XGready", "X G ready")]),
        ("wXFready", [("wXFready", "wX F ready")]),
        ("Grant=0", [("Grant", "G rant")]),
        ("a Ready", [("Ready", "R eady")]),  # after an operand a name may not start with R
        ("Wait U Gone", [("Gone", "G one")]),  # where an operand is due, only unary letters split
        ('"Grant"', []),
        ("G rant", []),
        ("G(req -> F grant)", []),
        ("GFa & FGp1 & Xb & a Ub", []),  # Spot's idiom: one-letter names
        ("Go", []),  # indistinguishable from `Gp`
        ("Gtrue", []),  # a constant, not a name
        ("/* Grant */ a", []),
        ("a.Grant | aUb", []),  # one name each
        ("a & &", []),  # not infix
    ],
)
def test_split_names(text: str, expected: list[tuple[str, str]]) -> None:
    assert split_names(text) == expected


def test_the_reading_is_unchanged() -> None:
    assert parse_formula("Grant") is parse_formula("G rant")


def test_warning_text() -> None:
    assert split_warning("Grant", "G rant") == GRANT
    assert split_warning("Ready", "R eady") == (
        "'Ready' is read as 'R eady' (R whose right operand is eady); write \"Ready\" to keep it one name"
    )


def test_solve_warns_once_per_input_under_its_location() -> None:
    result = run("solve", "Grant & X Grant & F Grant", "G rant", "Grant -> Fail")
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        f"ltlwit: <arg 1>: warning: {GRANT}",
        f"ltlwit: <arg 3>: warning: {GRANT}",
        "ltlwit: <arg 3>: warning: 'Fail' is read as 'F ail' (F applied to ail); write \"Fail\" to keep it one name",
    ]
    jobs = run("solve", "--jobs", "2", "Grant & X Grant & F Grant", "G rant", "Grant -> Fail")
    assert sorted(jobs.stderr.splitlines()) == sorted(result.stderr.splitlines())


def test_spaced_or_quoted_names_do_not_warn() -> None:
    result = run("solve", "G rant", '"Grant"', "GFa")
    assert result.exit_code == 0 and result.stderr == ""


def test_lines_of_a_file_warn_each_at_its_line(tmp_path) -> None:
    path = tmp_path / "specs.txt"
    path.write_text("a\nGrant\nF Grant\n")
    result = run("solve", "-F", str(path))
    assert result.stderr.splitlines() == [f"ltlwit: {path}:2: warning: {GRANT}", f"ltlwit: {path}:3: warning: {GRANT}"]


def test_json_carries_the_warnings_of_each_input() -> None:
    records = json_lines(run("solve", "--format", "json", "G rant", "Grant", "G rant", "Grant").stdout)
    # the same formula each time, remembered: the warnings belong to the text
    assert [r["warnings"] for r in records] == [[], [GRANT], [], [GRANT]]


def test_csv_has_a_warnings_column() -> None:
    header, row = run("solve", "--format", "csv", "Grant").stdout.splitlines()
    assert header.endswith(",warnings")
    assert row.endswith('"' + GRANT.replace('"', '""') + '"')


def test_only_the_infix_reading_warns() -> None:
    assert (
        json_lines(run("solve", "--format", "json", "--syntax", "polish-spaced", "G Grant").stdout)[0]["warnings"] == []
    )
    assert json_lines(run("solve", "--format", "json", "G Grant").stdout)[0]["warnings"] == [
        "'Grant' is read as 'G rant' (G applied to rant); write \"Grant\" to keep it one name"
    ]


def test_a_formula_refused_for_its_logic_still_says_why() -> None:
    result = run("solve", "--logic", "prop", "Grant")
    assert result.exit_code == 2
    assert f"warning: {GRANT}" in result.stderr


def test_verify_warns() -> None:
    result = run("verify", "Grant", "cycle{rant}")
    assert result.stdout == "HOLDS\n"
    assert result.stderr == f"ltlwit: <arg 1>: warning: {GRANT}\n"
    records = json_lines(run("verify", "--format", "json", "Grant", "cycle{rant}").stdout)
    assert "warnings" not in records[0]  # verify's record keeps its keys


def test_check_warns(tmp_path) -> None:
    path = tmp_path / "arbiter.spec"
    path.write_text("grants: G(Req -> F Grant)\nonce: F Grant\n")
    result = run("check", str(path))
    assert result.exit_code == 0
    assert result.stderr == f"ltlwit: {path}:1: warning: {GRANT}\nltlwit: {path}:2: warning: {GRANT}\n"


def test_the_api_carries_them() -> None:
    assert ltlwit.solve("Grant").warnings == (GRANT,)
    assert ltlwit.solve("G rant").warnings == ()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_quiet_silences_stderr_and_json_keeps_them(jobs: str, tmp_path) -> None:
    spec = tmp_path / "s.spec"
    spec.write_text("a: Grant U x\n")
    for args in (
        ["solve", "-q", "-j", jobs, "Grant U x", "Fail"],
        ["verify", "-q", "-j", jobs, "Grant U x", "cycle{x}"],
        ["check", "-q", "-j", jobs, str(spec)],
    ):
        out = run(*args)
        assert out.exit_code == 0 and "warning" not in out.stderr, (args, out.stderr)
        assert "warning" in run(*[a for a in args if a != "-q"]).stderr
    [first, _] = json_lines(run("solve", "-q", "-j", jobs, "--format", "json", "Grant U x", "Fail").stdout)
    assert first["warnings"] and "Grant" in first["warnings"][0]
