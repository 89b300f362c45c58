"""A witness over many variables is a table where a person reads it (`check`'s text, `solve`'s
table on a terminal), a row per variable and a column per instant (or the other way round
for a long run over few variables); machine formats and piped `solve` keep their one line."""

from __future__ import annotations

from cli_support import json_lines, run, run_env

from ltlwit.cli.witness_table import WIDE, witness_table
from ltlwit.logic.syntax import parse_trace

#: Eight variables whose values the formula forces, over two instants (finite traces).
NAMES = [f"requirement_variable_{k}" for k in range(8)]
FORMULA = " & ".join(f"{name} = {k}" for k, name in enumerate(NAMES)) + " & X(p & requirement_variable_0 = 9)"
ARGS = ("--finite", "--domain", "Int", "--model", "none")


def rows(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def test_check_shows_many_values_as_a_table_under_its_line(tmp_path) -> None:
    path = tmp_path / "wide.spec"
    path.write_text(f"wide: {FORMULA}\nnarrow: x = 1\n")
    result = run("check", *ARGS, str(path))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"PASS wide ({path}:1): sat, witness below"
    table = rows(lines[1:11])
    assert all(line.startswith("    ") for line in lines[1:11])
    assert table[0] == ["instant", "0", "1"]
    assert sorted(row[0] for row in table[1:]) == sorted([*NAMES, "p"])
    assert ["p", "false", "true"] in table and [NAMES[0], "0", "9"] in table
    assert lines[11] == f"PASS narrow ({path}:2): sat, witness x = 1"
    record = json_lines(run("check", *ARGS, "--format", "json", str(path)).stdout)[0]
    assert len(record["witness"]) > WIDE and "\n" not in record["witness"]  # JSON keeps the one line
    steps = [step.split(" & ") for step in record["witness"].split("; ")]
    for name, *cells in table[1:]:  # the table shows the very witness JSON gives
        for step, cell in zip(steps, cells):
            assert (name if cell == "true" else f"!{name}" if cell == "false" else f"{name} = {cell}") in step


def test_solve_tabulates_on_a_terminal_and_keeps_one_line_in_a_pipe() -> None:
    code, table, _ = run_env("solve", *ARGS, FORMULA, "x = 1", stdout_isatty=True, color_allowed=False)
    assert code == 0
    lines = table.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("    instant")))
    assert lines[1].split()[1:3] == ["SAT", "below"]  # the answer's row says where its witness is
    assert rows(lines[start : start + 10])[0] == ["instant", "0", "1"]
    assert [NAMES[0], "0", "9"] in rows(lines[start : start + 10])
    assert "x = 1" in lines[start + 10]  # the next answer's row
    piped = run("solve", *ARGS, FORMULA, "x = 1").stdout.splitlines()
    assert len(piped) == 2 and piped[1] == "x = 1" and len(piped[0]) > WIDE


def test_the_longer_side_runs_down_and_a_lasso_says_what_repeats() -> None:
    steps = [f"x = {k} & y = {-k} & z = {k * k}" for k in range(12)]
    down = witness_table(parse_trace("; ".join(steps)))
    assert rows(down[:2]) == [["instant", "x", "y", "z"], ["0", "0", "0", "0"]] and len(down) == 13
    wide = " & ".join(f"v{k}_with_a_name = {k}" for k in range(10))
    lasso = witness_table(parse_trace(f"{wide} & f(3) = 2 & !g(1); cycle{{{wide} & p}}"))
    assert rows(lasso[:3]) == [["instant", "0", "1"], ["v0_with_a_name", "0", "0"], ["v1_with_a_name", "1", "1"]]
    assert lasso[-4:] == [
        "    (instant 1 repeats forever)",
        "    functions, the same at every instant:",
        "      f(3) = 2",
        "      g(1) = false",
    ]
    assert ["p", "any", "true"] in rows(lasso)  # a value a step leaves open
    assert witness_table(parse_trace("; ".join(f"x = {k}" for k in range(60)))) is None  # one variable: a line
    assert witness_table(parse_trace("x = 1 & y = 2")) is None  # short
    assert witness_table(parse_trace(f"{wide} & (a | b)")) is None  # a symbolic step has no table
