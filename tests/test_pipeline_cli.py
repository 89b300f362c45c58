"""`ltlwit solve` options around the pipeline: CSV in and out, witness syntaxes, --all,
--no-fallback, option checks, the progress line, and torch staying unimported without a model."""

from __future__ import annotations

import csv
import io
import subprocess
import sys

from cli_support import ROOT, json_lines, run, subprocess_env

from ltlwit.cli.environment import Environment
from ltlwit.logic.syntax import parse_assignment, parse_trace
from ltlwit.pipeline.options import SolveOptions


def test_csv_columns_as_input(tmp_path) -> None:
    table = tmp_path / "specs.csv"
    table.write_text('id,formula,note\n1,"a & b",first\n2,"F(x, y)",bad\n3,G c\n4\n\n# c\n')
    result = run("solve", "--format", "json", "-F", f"{table}/-2")
    records = json_lines(result.stdout)
    assert [(r["line"], r["status"]) for r in records] == [(2, "sat"), (3, "error"), (4, "sat"), (5, "error")]
    assert records[0]["input"] == "a & b" and records[2]["witness"] == "cycle{c}"
    assert f"ltlwit: {table}:5: no column 2 (the line has 1)" in result.stderr
    with_header = json_lines(run("solve", "--format", "json", "-F", f"{table}/2").stdout)
    assert with_header[0]["input"] == "formula"  # without the minus the header is a formula
    both = run("solve", "-F", f"{table}/-1", "-F", f"{table}/-9")
    # column 1 holds 1, 2, 3, 4: only `1` is a formula (true); no line has a column 9
    assert both.stdout == "1\n" + "ERROR\n" * 7
    assert f"ltlwit: {table}:3: parse error:\n>>> 2\n" in both.stderr
    assert f"{table}:2: no column 9 (the line has 3)" in both.stderr and both.exit_code == 2
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "2").write_text("G d\n")
    assert run("solve", "-F", str(tmp_path / "x" / "2")).stdout == "cycle{d}\n"  # an existing file wins
    quoted = tmp_path / "q.csv"
    quoted.write_text('"a & ""unterminated\n')
    assert "bad CSV line" in run("solve", "-F", f"{quoted}/1").stderr
    zero = run("solve", "-F", f"{table}/0", "b")
    assert zero.exit_code == 2 and zero.stdout == "b\n" and "CSV columns count from 1" in zero.stderr


def test_csv_output_has_a_header_and_one_row_per_answer() -> None:
    result = run(
        "solve", "--format", "csv", "--model", "none", "(a -> b) & a", "G(req -> F grant) & F req", "a & !a", "a U"
    )
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["status"] for r in rows] == ["sat", "sat", "unsat", "error"]
    assert rows[0]["witness"] == "a & b" and rows[0]["witness_polish"] == "a1b1" and rows[0]["verified"] == "true"
    assert rows[2]["verified"] == "" and rows[2]["source"] == "sat-solver"
    assert rows[3]["error"].startswith("parse error") and result.exit_code == 2
    assert "assignment" not in rows[0]


def test_witness_syntaxes_read_back_as_the_same_witness() -> None:
    formulas = ("G(req -> F grant) & F req", "(a -> b) & a", "X(p & !q) & F q")
    spot = run("solve", "--model", "none", *formulas).stdout.splitlines()
    for syntax in ("polish", "lbt"):
        other = run("solve", "--model", "none", "--syntax-out", syntax, *formulas).stdout.splitlines()
        assert other != spot
        assert parse_trace(other[0]) == parse_trace(spot[0]) and parse_trace(other[2]) == parse_trace(spot[2])
    polish = run("solve", "--model", "none", "--syntax-out", "polish", formulas[1]).stdout.strip()
    assert parse_assignment(polish) == parse_assignment(spot[1])
    assert run("solve", "--model", "none", "--syntax-out", "lbt", formulas[1]).stdout == '& "a" "b"\n'


def test_a_core_is_printed_in_the_output_syntax_where_it_can_spell_it() -> None:
    """As a witness is: network Polish falls back to the spaced form for names of several
    letters and past operators, a core over data is infix; the next input is still answered
    (a core with `req` was an internal error that lost every answer)."""
    from ltlwit.logic.syntax import parse_formula

    result = run("solve", "--model", "none", "--core", "--syntax-out", "polish", "req & !req", "b", "a & !a", "Y a")
    lines = result.stdout.splitlines()
    assert result.exit_code == 1 and len(lines) == 4
    assert parse_formula(lines[0].removeprefix("UNSAT core: "), "polish") == parse_formula("req & !req")
    assert lines[2] == "UNSAT core: &a!a" and lines[1] != "UNSAT"
    data = run("solve", "--model", "none", "--core", "--syntax-out", "lbt", "--var", "x:Int", "x > 1 & x < 0")
    assert data.stdout == "UNSAT core: x > 1 & x < 0\n"


def test_all_without_a_model_gives_the_engines_alternatives() -> None:
    """As many as --top (the beam's width by default), each one word of F a."""
    assert run("solve", "--all", "--model", "none", "F a").stdout == "cycle{a}\na; cycle{!a}\n!a; a; cycle{!a}\n"
    assert run("solve", "--all", "--top", "1", "--model", "none", "F a").stdout == "cycle{a}\n"


def test_no_fallback_without_a_model_answers_unknown() -> None:
    result = run("solve", "--format", "json", "--model", "none", "--no-fallback", "F a")
    (record,) = json_lines(result.stdout)
    assert (record["status"], record["reason"], result.exit_code) == (
        "unknown",
        "no ltl model is in use (--no-fallback)",
        1,
    )


def test_the_beam_is_wider_where_no_engine_answers_what_it_misses() -> None:
    assert SolveOptions().beam_width == 3 and SolveOptions(fallback=False).beam_width == 8
    assert SolveOptions(fallback=False, beam=2).beam_width == 2
    assert SolveOptions(fallback=False, top=10).beam_width == SolveOptions(top=10).beam_width == 10
    assert SolveOptions(fallback=False).n_best == 8 and SolveOptions(fallback=False, top=2).n_best == 2


def test_option_conflicts_are_usage_errors() -> None:
    result = run("solve", "--top", "5", "--beam", "3", "a")
    assert result.exit_code == 2 and "--top 5 asks for more candidates than --beam 3 keeps" in result.stderr
    assert run("solve", "--model", "tiny", "a").exit_code == 2


def _env(stdout_isatty: bool) -> tuple[Environment, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return (
        Environment(
            stdin=io.BytesIO(),
            stdout=out,
            stderr=err,
            stdin_isatty=True,
            stdout_isatty=stdout_isatty,
            stderr_isatty=True,
            color_allowed=False,
        ),
        out,
        err,
    )


def test_progress_line_only_when_stderr_alone_is_a_terminal() -> None:
    from ltlwit.cli import cli

    env, out, err = _env(stdout_isatty=False)
    assert cli.main(["solve", "--model", "none", "a", "(", "b"], standalone_mode=False, obj=env) == 2
    assert out.getvalue() == "a\nERROR\nb\n"
    text = err.getvalue()
    assert "\r\x1b[Kltlwit: 1 answered (1 sat, 0 unsat, 0 unknown, 0 errors)" in text
    assert "\r\x1b[Kltlwit: <arg 2>: parse error:" in text  # the line is wiped before a message
    assert text.endswith("\r\x1b[K") or text.endswith("\n")
    env, out, err = _env(stdout_isatty=True)
    cli.main(["solve", "--model", "none", "a"], standalone_mode=False, obj=env)
    assert "answered" not in err.getvalue()  # the table on the terminal shows the progress


def _imports(*args: str, home: str) -> str:
    """The import log of `ltlwit ARGS` with `--model` at its default and no bundled models."""
    from test_pipeline_models import HIDE_BUNDLED

    env = subprocess_env()
    env["LTLWIT_HOME"] = home
    env.pop("LTLWIT_MODEL", None)
    code = f"{HIDE_BUNDLED}; import sys; sys.argv = ['ltlwit', *sys.argv[1:]]; from ltlwit.cli import main; main()"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return proc.stderr


def test_torch_is_imported_only_when_a_model_runs(tmp_path) -> None:
    """Without weights, or on a machine without a GPU, the default model is the engine and
    torch is never imported (nor by check, completion); asking for a model imports it."""
    empty = str(tmp_path / "empty")
    for args in (["solve", "G(a -> F b)", "a & b"], ["check", "--help"], ["completion", "bash"]):
        log = _imports(*args, home=empty)
        assert "| ltlwit.cli" in log and "torch" not in log, args
    from test_pipeline_models import save_tiny_models

    home = str(tmp_path / "home")
    save_tiny_models(tmp_path / "home", ("si",))
    assert "torch" not in _imports("solve", "G(a -> F b)", home=home)  # weights, but no GPU
    log = _imports("solve", "--model", "si", "--max-len", "4", "G(a -> F b)", home=home)
    assert "| torch" in log and "| ltlwit.neural.beam" in log


def test_strings_that_are_spot_and_polish_follow_their_file(tmp_path) -> None:
    """`Uab`, `G!X1`: Spot reads propositions `Uab`, `X1`; DeepLTL's Polish `a U b`, `G!X 1`.
    Alone (an argument, a spec file of infix lines) they are Spot's; in a file whose lines so
    far were only Polish (a DeepLTL data set), Polish."""
    alone = run("solve", "--format", "json", "G!X1", "Uab", "!Req")
    assert [(r["status"], r["witness"]) for r in json_lines(alone.stdout)] == [
        ("sat", "cycle{!X1}"),
        ("sat", "Uab"),
        ("sat", "!Req"),
    ]
    data = tmp_path / "data.txt"
    data.write_text("&ab\nUab\nG!X1\n")
    polish = json_lines(run("solve", "--format", "json", "-F", str(data)).stdout)
    assert [(r["status"], r["witness"]) for r in polish] == [("sat", "a & b"), ("sat", "cycle{b}"), ("unsat", None)]
    specs = tmp_path / "infix.txt"
    specs.write_text("a&b\nUab\n")
    assert json_lines(run("solve", "--format", "json", "-F", str(specs)).stdout)[1]["witness"] == "Uab"
    converted = run("fmt", "--to", "polish-spaced", "G !t & a")
    assert converted.stdout == '& G ! "t" a\n'  # quoted: LBT reads a bare t as true
    assert run("solve", input=converted.stdout).stdout == "cycle{!t & a}\n"  # read back as Polish


def test_solve_reads_spec_files(tmp_path) -> None:
    """`solve -F` on a spec file: each spec an input named by its name, its comments and
    expectations not part of the formula, where it holds applied; errors at FILE:LINE."""
    path = tmp_path / "r.spec"
    path.write_text(
        "# requirements\nholds always\nmutex: !(g1 & g2)   # REQ-1\n"
        "flip: g1 & X !g1   # expect: unsat\nstart: g1 & X !g1   # holds: initially\nbad: G (a &\n"
    )
    result = run("solve", "--model", "none", "--format", "json", "-F", str(path))
    records = json_lines(result.stdout)
    assert [(r["name"], r["line"], r["status"]) for r in records] == [
        ("mutex", 3, "sat"),
        ("flip", 4, "unsat"),
        ("start", 5, "sat"),
        ("bad", 6, "error"),
    ]
    assert records[1]["input"] == "g1 & X !g1"  # as written; solved at every instant (holds always)
    assert f"ltlwit: {path}:6: parse error" in result.stderr and result.exit_code == 2
    core = run("solve", "--model", "none", "--core", "-F", str(path)).stdout.splitlines()
    assert core[1] == "flip: UNSAT core: G(g1 & X!g1)"  # named as check names it
    jobs = run("solve", "--model", "none", "--format", "json", "--jobs", "2", "-F", str(path))
    assert [(r["name"], r["status"]) for r in json_lines(jobs.stdout)] == [(r["name"], r["status"]) for r in records]
