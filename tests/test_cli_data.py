"""`ltlwit data generate` and `ltlwit data stats` through the CLI."""

from __future__ import annotations

import json

from cli_support import run

from ltlwit.logic import ltl
from ltlwit.logic.prop import entails
from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace
from ltlwit.logic.trivial import trivial
from ltlwit.train.pairs import iter_pairs


def test_generate_ltl_output_is_verified_by_the_checker(tmp_path):
    out = tmp_path / "mydata" / "train.txt.gz"  # the folder is created, ready for `train --data`
    result = run(
        "data",
        "generate",
        "--task",
        "ltl",
        "--aps",
        "4",
        "--max-size",
        "16",
        "-n",
        "120",
        "-o",
        str(out),
        "--seed",
        "5",
        "--jobs",
        "1",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert "120 samples (120 new, 0 already there)" in result.stderr
    pairs = list(iter_pairs(out))
    assert len(pairs) == 120 and len({f for f, _ in pairs}) == 120
    for formula_text, trace_text in pairs[::3]:
        formula = parse_formula(formula_text, "polish")
        assert formula.size <= 16 and set(formula.aps()) <= set("abcd")
        assert trivial(formula) == formula  # like randltl's output: no `!!`, `a & 1`, ...
        assert ltl.holds(formula, parse_trace(trace_text, "polish"))


def test_generate_prop_and_continue_to_a_larger_count(tmp_path):
    out = tmp_path / "prop.txt"
    args = ["data", "generate", "--task", "prop", "--aps", "5", "--max-size", "20", "-o", str(out), "--jobs", "2"]
    assert run(*args, "-n", "50").exit_code == 0
    first = list(iter_pairs(out))
    result = run(*args, "-n", "80")
    assert result.exit_code == 0 and "80 samples (30 new, 50 already there)" in result.stderr
    pairs = list(iter_pairs(out))
    assert pairs[:50] == first and len(pairs) == 80
    for formula_text, assignment_text in pairs:
        assert entails(parse_assignment(assignment_text, "polish"), parse_formula(formula_text, "polish"))
    again = run(*args, "-n", "80")
    assert again.exit_code == 0 and "80 samples (0 new, 80 already there)" in again.stderr


def test_generate_reports_a_space_too_small_with_status_1(tmp_path):
    out = tmp_path / "tiny.txt"
    result = run(
        "data", "generate", "--task", "ltl", "--aps", "1", "--max-size", "2", "-n", "500", "-o", str(out), "--jobs", "1"
    )
    assert result.exit_code == 1
    assert "only" in result.stderr and "of 500 samples" in result.stderr


def test_generate_usage_errors_are_2(tmp_path):
    base = ("data", "generate", "--max-size", "5", "-n", "5", "-o", str(tmp_path / "x.txt"))
    assert run(*base, "--task", "ltl", "--aps", "27").exit_code == 2
    assert run(*base, "--task", "ctl", "--aps", "2").exit_code == 2
    bad = run(*base, "--task", "prop", "--alphabet", "ltl35", "--aps", "2")
    assert bad.exit_code == 2 and bad.stderr.startswith("ltlwit: ") and "propositional alphabet" in bad.stderr


def test_stats_text_and_json(tmp_path):
    out = tmp_path / "s.txt"
    out.write_text("a\n{a}\n&ab\n{&ab}\nUab\n{b}\n!&<->abc\na0\n")
    text = run("data", "stats", str(out))
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert lines[0] == f"{out}: 4 samples by formula size (rows) and AP count (columns)"
    cells = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]] for line in lines if "│" in line}
    header = next(line for line in lines if "size" in line and "┃" in line)
    assert [c.strip() for c in header.split("┃")[1:-1]] == ["size", "1 AP", "2 APs", "3 APs", "all"]
    assert cells == {
        "1": ["1", "", "", "1"],
        "3": ["", "2", "", "2"],
        "6": ["", "", "1", "1"],
        "all": ["1", "2", "1", "4"],
    }
    data = json.loads(run("data", "stats", "--format", "json", str(out)).stdout)
    assert data["samples"] == 4 and data["by_aps"] == {"1": 1, "2": 2, "3": 1}
    assert data["by_size"] == {"1": 1, "3": 2, "6": 1}
    assert {"aps": 2, "size": 3, "count": 2} in data["cells"]


def test_generate_excludes_held_out_formulas_and_builds_constant_formulas(tmp_path):
    base = ["data", "generate", "--task", "prop", "--aps", "3", "--max-size", "9", "-n", "40", "--jobs", "1"]
    assert run(*base, "-o", str(tmp_path / "plain.txt")).exit_code == 0
    held = tmp_path / "test.txt"
    held.write_text("".join(f"{f}\n{a}\n" for f, a in list(iter_pairs(tmp_path / "plain.txt"))[:10]))
    result = run(*base, "-o", str(tmp_path / "train.txt"), "--exclude", str(held))
    assert result.exit_code == 0, result.stderr
    assert not {f for f, _ in iter_pairs(tmp_path / "train.txt")} & {f for f, _ in iter_pairs(held)}
    assert run(*base, "-o", str(tmp_path / "x.txt"), "--exclude", str(tmp_path / "nope.txt")).exit_code == 2
    zero = run(
        "data",
        "generate",
        "--task",
        "ltl",
        "--aps",
        "0",
        "--max-size",
        "7",
        "-n",
        "400",
        "--jobs",
        "1",
        "-o",
        str(tmp_path / "ap0.txt"),
    )
    assert zero.exit_code == 1 and "only" in zero.stderr  # few constant formulas exist
    assert all(not parse_formula(f, "polish").aps() for f, _ in iter_pairs(tmp_path / "ap0.txt"))


def test_generate_follows_a_reference_files_size_shares(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("&ab\na1b1\n" * 3 + "&a&bc\na1b1c1\n")  # three of size 3 for one of size 5
    out = tmp_path / "out.txt"
    result = run(
        "data",
        "generate",
        "--task",
        "prop",
        "--aps",
        "5",
        "--max-size",
        "9",
        "-n",
        "80",
        "--jobs",
        "1",
        "--size-shares",
        str(ref),
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.stderr
    sizes = [parse_formula(f, "polish").size for f, _ in iter_pairs(out)]
    assert set(sizes) == {3, 5} and sizes.count(3) == 60 and sizes.count(5) == 20


def test_stats_compare_side_by_side(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a\n{a}\n&ab\n{&ab}\n")
    b.write_text("Xa\n1;{a}\nUab\n{b}\n")
    text = run("data", "stats", str(b), "--compare", str(a))
    assert text.exit_code == 0, text.stderr
    assert "side by side" in text.stdout and "% nodes X" in text.stdout and "mean label steps" in text.stdout
    data = json.loads(run("data", "stats", str(b), "--compare", str(a), "--format", "json").stdout)
    assert data["reference"]["samples"] == data["file"]["samples"] == 2
    rows = {r["measure"]: r for r in data["rows"]}
    assert rows["% size 1"] == {"measure": "% size 1", "reference": "50.00", "file": "0.00", "difference": "-50.00"}
    assert json.loads(run("data", "stats", str(b), "--limit", "1", "--format", "json").stdout)["samples"] == 1


def test_stats_errors(tmp_path):
    assert run("data", "stats", str(tmp_path / "missing.txt")).exit_code == 2
    odd = tmp_path / "odd.txt"
    odd.write_text("a\n{a}\nXb\n")
    result = run("data", "stats", str(odd))
    assert result.exit_code == 2 and "odd.txt:3" in result.stderr


def test_data_stats_does_not_import_torch(tmp_path):
    import subprocess
    import sys

    from cli_support import ROOT, subprocess_env

    out = tmp_path / "s.txt"
    out.write_text("a\n{a}\n")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ltlwit", "data", "stats", str(out)],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| ltlwit.train.stats" in proc.stderr and "torch" not in proc.stderr


def test_progress_bar_only_on_a_terminal():
    import io

    from ltlwit.cli.environment import Environment
    from ltlwit.cli.progress import progress_bar

    def env(tty: bool) -> Environment:
        return Environment(
            stdin=io.BytesIO(),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
            stdin_isatty=False,
            stdout_isatty=False,
            stderr_isatty=tty,
        )

    quiet, live = env(False), env(True)
    for e in (quiet, live):
        with progress_bar(e, "generating", total=10, fields="loss {task.fields[loss]:.2f}", loss=1.0) as update:
            update(4, loss=0.5)
            update(10, loss=0.25)
    assert quiet.stderr.getvalue() == ""
    assert "generating" in live.stderr.getvalue() and "10/10" in live.stderr.getvalue()
    assert "loss 0.25" in live.stderr.getvalue()
    assert live.stdout.getvalue() == ""
