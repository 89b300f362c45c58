"""`ltlwit check`: spec files (text and TOML), expectations, exit statuses, JSON and JUnit."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from cli_support import json_lines, run
from ltl_reference import random_completions, satisfies

from ltlwit.logic.formula import Not
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.specs.files import parse_spec_line, read_specs

ARBITER = """\
# arbiter requirements
mutex:    G !(grant1 & grant2)
response: G(req1 -> F grant1)
never:    G !(grant1 & grant2) & F(grant1 & grant2)   # expect: unsat
follows:  G !(grant1 & grant2) -> !F(grant1 & grant2)   # expect: valid

G F grant2   # an unnamed spec; this comment is not an expectation
"""


def test_spec_lines() -> None:
    spec = parse_spec_line('name.v2: G("a#b" -> F c)   # expect: UNSAT')
    assert (spec.name, spec.formula, spec.expect, spec.error) == ("name.v2", 'G("a#b" -> F c)', "unsat", None)
    assert (
        parse_spec_line("F a # expect: maybe").error
        == "unknown expectation 'maybe' (use sat, unsat, valid, allowed, forbidden or implied)"
    )
    assert parse_spec_line("x:   # expect: sat").error == "no formula after 'x':"
    assert parse_spec_line('"quoted: ap" & b').name is None


def test_text_spec_file_all_pass(tmp_path) -> None:
    path = tmp_path / "arbiter.spec"
    path.write_text(ARBITER)
    result = run("check", str(path))
    assert result.exit_code == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines[:4]] == [
        ["PASS", "mutex"],
        ["PASS", "response"],
        ["PASS", "never"],
        ["PASS", "follows"],
    ]
    assert lines[4].startswith(f"PASS {path}:7: sat, witness ")
    assert lines[-1] == "5 specs: 5 passed, 0 failed, 0 unknown, 0 errors"


def test_failures_errors_and_their_statuses(tmp_path) -> None:
    path = tmp_path / "bad.spec"
    path.write_text("ok: F a\nwrong: G a & F !a\nnot_valid: F a   # expect: valid\n")
    result = run("check", "--format", "json", str(path))
    records = json_lines(result.stdout)
    assert result.exit_code == 1
    assert [(r["name"], r["status"], r["verdict"]) for r in records] == [
        ("ok", "pass", "sat"),
        ("wrong", "fail", "unsat"),
        ("not_valid", "fail", "invalid"),
    ]
    assert records[1]["reason"] == "expected sat, but it is unsatisfiable" and records[1]["witness"] is None
    counter = parse_trace(records[2]["counterexample"])
    formula = parse_formula("F a")
    names = list(dict.fromkeys(formula.aps() + counter.aps()))
    assert all(
        satisfies(Not(formula), p, c) for p, c in random_completions(counter, names, __import__("random").Random(1))
    )
    broken = tmp_path / "broken.spec"
    broken.write_text("a: F a\nb: G (\nb: X c\n")
    result = run("check", str(path), str(broken), str(tmp_path / "missing.spec"))
    assert result.exit_code == 2
    assert f"ltlwit: {broken}:2: parse error:" in result.stderr
    assert f"ltlwit: {broken}:3: duplicate spec name 'b' (first at line 2)" in result.stderr
    assert f"ltlwit: {tmp_path / 'missing.spec'}: cannot open: No such file or directory" in result.stderr
    assert result.stdout.splitlines()[-1] == "7 specs: 2 passed, 2 failed, 0 unknown, 3 errors"


def test_duplicate_names_and_empty_files_are_errors(tmp_path) -> None:
    path = tmp_path / "dup.spec"
    path.write_text("x: F a\nx: G b\n")
    assert [s.error for s in read_specs(str(path))] == [None, "duplicate spec name 'x' (first at line 1)"]
    empty = tmp_path / "empty.spec"
    empty.write_text("# nothing yet\n")
    result = run("check", str(empty))
    assert result.exit_code == 2 and f"ltlwit: {empty}: no specs in this file" in result.stderr


def test_toml_spec_files(tmp_path) -> None:
    path = tmp_path / "specs.toml"
    path.write_text(
        '[[spec]]\nname = "mutex"\nformula = "G !(g1 & g2)"\n\n'
        '[[spec]]\nname = "never"\nformula = "F(g1 & g2) & G !g1"\nexpect = "unsat"\n\n'
        '[[spec]]\nformula = "X a"\nexpected = "sat"\n'
    )
    records = json_lines(run("check", "--format", "json", str(path)).stdout)
    assert [(r["name"], r["line"], r["status"]) for r in records] == [
        ("mutex", 1, "pass"),
        ("never", 5, "pass"),
        (None, 10, "error"),
    ]
    assert (
        records[2]["error"]
        == "unknown key 'expected' in [[spec]] (known: name, formula, expect, semantics, acknowledged, holds)"
    )
    bad = tmp_path / "bad.toml"
    bad.write_text("[[spec]\n")
    result = run("check", str(bad))
    assert result.exit_code == 2 and "not a valid TOML file" in result.stderr


def test_junit_report(tmp_path) -> None:
    path = tmp_path / "arbiter.spec"
    path.write_text(ARBITER + "oops: F a   # expect: unsat\nhard: G(a U\n")
    report = tmp_path / "out" / "junit.xml"
    report.parent.mkdir()
    result = run("check", "--junit", str(report), str(path))
    assert result.exit_code == 2
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite.get("name") == str(path)
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("7", "1", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["oops"].find("failure").get("message") == "expected unsat, but it is satisfiable"
    assert cases["hard"].find("error").get("message").startswith("parse error")
    assert cases["mutex"].get("line") == "2" and cases["mutex"].find("system-out").text.startswith("sat: ")
    unwritable = run("check", "--junit", str(tmp_path / "no" / "such" / "dir.xml"), str(path))
    assert unwritable.exit_code == 2 and "cannot write the JUnit report" in unwritable.stderr


def test_junit_report_of_a_spec_whose_vacuity_ran_out_of_time() -> None:
    """Occurrences left unchecked and no finding: a failure saying so (it was an IndexError that
    lost the whole report)."""
    from ltlwit.pipeline.inputs import InputItem
    from ltlwit.specs.files import Spec
    from ltlwit.specs.report import junit_xml
    from ltlwit.specs.run import SpecResult
    from ltlwit.specs.vacuity import Vacuity

    spec = Spec("r.spec", 1, "slow", "G(a -> F b)")
    result = SpecResult(
        item=InputItem(spec.formula, "r.spec", 1), status="pass", spec=spec, vacuity=Vacuity(unchecked=2)
    )
    case = ET.fromstring(junit_xml([result])).find("testsuite/testcase")
    failure = case.find("failure")
    assert failure.get("type") == "vacuity"
    assert (
        failure.get("message") == "undecided: 2 occurrences not checked: its --timeout ran out before their questions"
    )


def test_unknown_never_passes(tmp_path, monkeypatch) -> None:
    from ltlwit.logic import ltl
    from ltlwit.logic.result import Unknown

    monkeypatch.setattr(
        ltl, "solve", lambda formula, budget=None, engine="auto", semantics="infinite": Unknown("time budget exhausted")
    )
    path = tmp_path / "s.spec"
    path.write_text("slow: G F a & F G b\n")
    result = run("check", "--model", "none", "--junit", str(tmp_path / "j.xml"), str(path))
    assert result.exit_code == 1
    assert result.stdout.startswith("UNKNOWN slow") and "time budget exhausted" in result.stdout
    error = ET.parse(tmp_path / "j.xml").getroot().find("testsuite/testcase/error")
    assert error.get("type") == "unknown"


def test_expectation_comments() -> None:
    """A note beside the expectation is fine; anything that looks like an expectation but is
    not exactly one is an error: the spec never silently falls back to `sat`."""
    ok = {
        "F a # expect: unsat # from review": "unsat",
        "F a # REQ-12 # Expect: VALID": "valid",
        "F a #expect:unsat": "unsat",
        "F a # see issue #12": "sat",
        "F a # an except: unsat": "sat",
        'G("a#b" -> F c)   # expect: UNSAT  # REQ-7': "unsat",
    }
    for line, expect in ok.items():
        spec = parse_spec_line(line)
        assert (spec.expect, spec.error) == (expect, None), line
    for comment in [
        "# expect: unsat (JIRA-12)",
        "# expect unsat",
        "# expected: unsat",
        "# Expected unsat",
        "# EXPECT=unsat",
        "# exepct: unsat",
        "# unsat",
        "# expect: sat # expect: unsat",
        "# expectation: valid",
        "# expect: unsat.",
        "# expect:",
        "# expected sat? see below",
        "# unsat (REQ-3)",
        "# unsat: REQ-3",
        "# valid, per REQ-4",
        "# UNSAT!",
    ]:
        spec = parse_spec_line("n: F a " + comment)
        assert spec.error is not None and spec.name == "n", comment
    assert parse_spec_line("F a # expect unsat").error.startswith(
        "malformed expectation '# expect unsat': write exactly '# expect: sat|unsat|valid|allowed|forbidden|implied'"
    )
    assert (
        parse_spec_line("F a # expect: maybe").error
        == "unknown expectation 'maybe' (use sat, unsat, valid, allowed, forbidden or implied)"
    )


def test_malformed_expectation_fails_the_check(tmp_path) -> None:
    """QA's case: neither expectation may pass silently; the other specs are still checked."""
    path = tmp_path / "c4.spec"
    path.write_text(
        "# Expected behaviour: the arbiter never grants twice (prose, not an expectation)\n"
        "safety: G !(g1 & g2) | F b   # expect: valid (REQ-12)\n"
        "never: F err   # expect: unsat # from review\n"
        "# expect: unsat\n"
        "live: G F g1\n"
    )
    result = run("check", "--format", "json", str(path))
    records = json_lines(result.stdout)
    assert result.exit_code == 2
    assert [(r["name"], r["line"], r["status"], r["expect"]) for r in records] == [
        ("safety", 2, "error", "sat"),
        ("never", 3, "fail", "unsat"),
        (None, 4, "error", "sat"),
        ("live", 5, "pass", "sat"),
    ]
    assert f"ltlwit: {path}:2: malformed expectation '# expect: valid (REQ-12)'" in result.stderr
    assert f"ltlwit: {path}:4: expectation '# expect: unsat' on a line of its own belongs to no spec" in result.stderr
    assert result.stderr.count("ltlwit: ") == 2


def test_toml_expectation_keys_and_values(tmp_path) -> None:
    path = tmp_path / "specs.toml"
    path.write_text(
        '[[spec]]\nname = "a"\nformula = "F a"\nexpected = "unsat"\n\n'
        '[[spec]]\nname = "b"\nformula = "F b"\nExpect = "unsat"\n\n'
        '[[spec]]\nname = "c"\nformula = "F c"\nexpect = "unsat (JIRA-12)"\n\n'
        '[[spec]]\nname = "d"\nformula = "F d"\nexpect = true\n\n'
        '[[spec]]\nname = "e"\nformula = "F e & G !e"\nexpect = "UNSAT"\n'
    )
    specs = list(read_specs(str(path)))
    assert [(s.name, s.expect if s.error is None else None) for s in specs] == [
        ("a", None),
        ("b", None),
        ("c", None),
        ("d", None),
        ("e", "unsat"),
    ]
    assert (
        specs[0].error
        == "unknown key 'expected' in [[spec]] (known: name, formula, expect, semantics, acknowledged, holds)"
    )
    assert (
        specs[2].error == "unknown expectation 'unsat (JIRA-12)' (use sat, unsat, valid, allowed, forbidden or implied)"
    )
    result = run("check", str(path))
    assert (
        result.exit_code == 2 and result.stdout.splitlines()[-1] == "5 specs: 1 passed, 0 failed, 0 unknown, 4 errors"
    )


def test_specs_on_stdin() -> None:
    result = run("check", "-", input="ok: F a\nwrong: G b  # expect: unsat\n")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "PASS ok (<stdin>:1): sat, witness cycle{a}",
        "FAIL wrong (<stdin>:2): expected unsat, but it is satisfiable; sat, witness cycle{b}",
    ]
    empty = run("check", "-", input="# nothing\n")
    assert empty.exit_code == 2 and "<stdin>" in empty.stderr and "no specs" in empty.stderr
    assert run("check", "-", "-", input="a\n").exit_code == 2


def test_nuxmv_spec_lines() -> None:
    """`LTLSPEC NAME r1 := φ;` is a spec named r1; `INVARSPEC` one that holds always; a `--`
    comment ends the formula as `#` does, and `# expect:` after it still counts."""
    spec = parse_spec_line("LTLSPEC NAME r1 := G(p -> F q); -- the response  # expect: valid")
    assert (spec.name, spec.formula, spec.expect, spec.holds, spec.error) == ("r1", "G(p -> F q)", "valid", None, None)
    safe = parse_spec_line("INVARSPEC NAME safe := !(g1 & g2);  # expect: sat")
    assert (safe.name, safe.formula, safe.holds) == ("safe", "!(g1 & g2)", "always")
    assert (parse_spec_line("LTLSPEC F a").name, parse_spec_line("LTLSPEC F a").formula) == (None, "F a")
    dashed = parse_spec_line('req--1: a --> "b--c" -- a note')  # a name's dashes, Spot's arrow, a quoted name
    assert (dashed.name, dashed.formula) == ("req--1", 'a --> "b--c"')
    assert parse_spec_line("r2: LTLSPEC NAME r3 := F a;").error == "the spec is named twice: r2: and NAME r3 :="
    assert parse_spec_line("LTLSPEC NAME r4 := ;").error == "no formula after LTLSPEC"
    assert parse_spec_line("INVARSPEC a  # holds: finally").error == "an INVARSPEC holds always, not '# holds: finally'"
    assert parse_spec_line("F a  -- expect: unsat").error.startswith("an expectation in a '--' comment")


def test_nuxmv_spec_file(tmp_path) -> None:
    path = tmp_path / "arbiter.spec"
    path.write_text(
        "-- the arbiter, as nuXmv reads it\n"
        "LTLSPEC NAME mutex := G !(grant1 & grant2);\n"
        "LTLSPEC NAME never := G !(grant1 & grant2) & F(grant1 & grant2);  # expect: unsat\n"
        "INVARSPEC NAME quiet := grant1 -> req1; -- every grant was asked for\n"
        "-- expect: unsat\n"
        "MODULE main\n"
    )
    result = run("check", str(path))
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines[:3]] == [["PASS", "mutex"], ["PASS", "never"], ["PASS", "quiet"]]
    assert f"{path}:5: an expectation in a '--' comment" in result.stderr
    assert f"{path}:6: nuXmv's MODULE is not read here" in result.stderr
    assert lines[-1] == "5 specs: 3 passed, 0 failed, 0 unknown, 2 errors"
