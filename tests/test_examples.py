"""The files in examples/ do what their comments and the README say."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

from cli_support import ROOT, json_lines, run, subprocess_env

EXAMPLES = ROOT / "examples"


def test_arbiter_specs_pass_the_ci_gate_in_both_formats(tmp_path) -> None:
    text = run(
        "check", "--vacuity", "--format", "json", "--junit", str(tmp_path / "r.xml"), str(EXAMPLES / "arbiter.spec")
    )
    toml = run("check", "--vacuity", "--format", "json", str(EXAMPLES / "arbiter.toml"))
    assert (text.exit_code, toml.exit_code) == (0, 0), text.stdout + text.stderr
    strip = lambda records: [(r.get("name"), r["status"], r.get("verdict"), r.get("vacuity")) for r in records]  # noqa: E731
    assert strip(json_lines(text.stdout)) == strip(json_lines(toml.stdout))
    names = [r["name"] for r in json_lines(text.stdout)[1:]]
    assert names == [
        "mutex",
        "response1",
        "response2",
        "no_spurious1",
        "no_spurious2",
        "double_grant",
        "mutex_implies_never_both",
    ]
    assert (tmp_path / "r.xml").read_text().count("<testcase") == 8


def test_vacuous_example_is_flagged() -> None:
    result = run("check", "--vacuity", str(EXAMPLES / "vacuous.spec"))
    assert result.exit_code == 1
    assert (
        f"  VACUOUS response ({EXAMPLES / 'vacuous.spec'}:3): occurrence 1 of 'grant' can be false: "
        "the specs imply G(req -> F(0))" in result.stdout
    )
    assert run("check", str(EXAMPLES / "vacuous.spec")).exit_code == 0  # every spec is satisfiable


def test_declare_example_checks_finite_traces_with_the_past() -> None:
    result = run("check", "--vacuity", "--format", "json", str(EXAMPLES / "declare.toml"))
    assert result.exit_code == 0, result.stdout + result.stderr
    records = json_lines(result.stdout)
    assert records[0]["status"] == "pass" and "cycle" not in records[0]["witness"]  # jointly satisfiable, finitely
    assert [(r["name"], r["verdict"]) for r in records[1:]][-2:] == [
        ("approval_leads_to_payment", "valid"),
        ("last_step_cannot_approve", "unsat"),
    ]
    assert all(r["vacuity"] == "clean" for r in records[1:6])


def test_csv_example() -> None:
    result = run("solve", "--format", "json", "-F", f"{EXAMPLES / 'requirements.csv'}/-2")
    assert [(r["line"], r["status"]) for r in json_lines(result.stdout)] == [
        (2, "sat"),
        (3, "sat"),
        (4, "sat"),
        (5, "unsat"),
    ]


def test_pipeline_script(tmp_path) -> None:
    wrapper = tmp_path / "ltlwit"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m ltlwit "$@"\n')
    wrapper.chmod(0o755)
    env = subprocess_env()
    env["PATH"] = f"{tmp_path}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(
        [str(EXAMPLES / "pipeline.sh")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    sections = proc.stdout.split("== ")[1:]
    unsat = sections[0].splitlines()[1:]
    assert unsat == ["GFa & FG!a", "p & !p", "G(a -> X b) & F a & G !b"]
    assert len(sections[1].splitlines()) == 1 + 5  # five satisfiable formulas
    assert sections[3].split() == ["every", "witness,", "checked", "again", "by", "ltlwit", "verify", "5", "HOLDS"]


def test_realize_examples() -> None:
    result = run("realize", "-F", str(EXAMPLES / "arbiter.tlsf"), "--format", "json")
    (row,) = json_lines(result.stdout)
    assert result.exit_code == 0 and row["status"] == "realizable"
    assert row["controller"]["reads"] == ["r_0", "r_1", "r_2"] and row["controller"]["writes"] == ["g_0", "g_1", "g_2"]
    spec = EXAMPLES / "arbiter-unrealizable.spec"
    command = next(line for line in spec.read_text().splitlines() if "ltlwit realize" in line)
    args = shlex.split(command.lstrip("# "))[1:]
    result = run(*[str(ROOT / a) if a.startswith("examples/") else a for a in args], "--format", "json")
    (row,) = json_lines(result.stdout)
    assert result.exit_code == 1 and row["status"] == "unrealizable" and row["conflicts_complete"]
    assert ["mutex", "immediate0", "immediate1"] in row["conflicts"] and len(row["conflicts"]) == 5
