"""Requirements over data in CI: spec files with declarations, FRET exports (a sample of the
LMCPS case study in tests/data), conflicts named by requirement, and logs checked against
requirements (`verify --log`)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import json_lines, run

from ltlwit.specs.files import read_specs

DATA = Path(__file__).resolve().parent / "data"
FRET = DATA / "fret_lm_sample.json"


def test_text_spec_files_declare_their_variables(tmp_path) -> None:
    path = tmp_path / "cruise.spec"
    path.write_text(
        "var speed, limit: Real\nvar mode: {off, cruise, brake}\n"
        "limit: G(speed <= limit)\n"
        "brakes: G(mode = brake -> wnext(speed) < speed)\n"
        "never: mode = off & mode = cruise   # expect: unsat\n"
        "domain Int\n"
        "count: n = 0 & G(wnext(n) = n + 1) & F(n = 3)\n"
    )
    result = run("check", "--finite", str(path))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "4 specs: 4 passed, 0 failed, 0 unknown, 0 errors"
    assert "count (" in result.stdout and "n = 3" in result.stdout


def test_toml_spec_files_declare_their_variables(tmp_path) -> None:
    path = tmp_path / "cruise.toml"
    path.write_text(
        'domain = "Real"\n[variables]\nmode = "{off, on}"\n'
        '[[spec]]\nname = "on"\nformula = "G(mode = on -> x > 1.5) & F(mode = on)"\n'
        '[[spec]]\nname = "off"\nformula = "G(mode != off) & F(mode = off)"\nexpect = "unsat"\n'
    )
    result = run("check", "--finite", "--format", "json", str(path))
    records = json_lines(result.stdout)
    assert result.exit_code == 0, result.stderr
    assert [(r["name"], r["status"]) for r in records] == [("on", "pass"), ("off", "pass")]


def test_bad_declarations_are_errors_of_their_line(tmp_path) -> None:
    path = tmp_path / "bad.spec"
    path.write_text("var speed Real\nvar x: Complex\nok: G p\n")
    result = run("check", str(path))
    assert result.exit_code == 2
    assert f"{path}:1: expected 'var NAME: SORT'" in result.stderr
    assert f"{path}:2: unknown sort 'Complex'" in result.stderr
    assert "PASS ok" in result.stdout


def test_fret_requirements_are_specs_named_by_reqid() -> None:
    specs = list(read_specs(str(FRET)))
    assert len(specs) == 11 and all(s.error is None for s in specs)
    ap007 = next(s for s in specs if s.name == "AP-007")
    assert (ap007.holds, ap007.semantics, ap007.expect) == ("always", "finite", "sat")
    assert ap007.note and ap007.note.startswith("RollAutopilot shall always satisfy")
    assert ap007.declarations is not None and str(ap007.declarations.variables["aileron_cmd"]) == "Real"
    assert ("ap_transition_state", "0.0") in ap007.substitute  # an Internal variable assigned a numeral
    assert ("CAT1", "0") in ap007.substitute  # an integer one stays an integer
    tags = next(s for s in specs if s.name == "NLG-004")
    assert "<" not in tags.formula.replace("<=", "") and tags.warnings


def test_fret_export_is_consistent_with_values_in_its_witness() -> None:
    result = run("check", "--model", "none", "--consistency", "--format", "json", str(FRET))
    records = json_lines(result.stdout)
    assert result.exit_code == 0, result.stderr
    conjunction = records[0]
    assert (conjunction["kind"], conjunction["status"], conjunction["specs"]) == ("conjunction", "pass", 11)
    assert "aileron_cmd = " in conjunction["witness"]
    assert all(r["status"] == "pass" for r in records[1:])


def test_a_planted_conflict_is_named_exactly(tmp_path) -> None:
    export = json.loads(FRET.read_text())
    export["requirements"].append(
        {
            "reqid": "PLANTED-1",
            "fulltext": "Autopilot shall always satisfy aileron_cmd > 20.0",
            "semantics": {"ptExpanded": "(H (aileron_cmd > 20.0))"},
        }
    )
    path = tmp_path / "planted.json"
    path.write_text(json.dumps(export, indent=1))
    result = run("check", "--model", "none", "--consistency", "--format", "json", str(path))
    conjunction = json_lines(result.stdout)[0]
    assert result.exit_code == 1
    assert conjunction["status"] == "fail" and conjunction["conflict_minimal"] is True
    assert sorted(c["name"] for c in conjunction["conflict"]) == ["AP-007", "PLANTED-1"]
    text = run("check", "--model", "none", "--consistency", str(path)).stdout
    assert '"RollAutopilot shall always satisfy -15.0 <= aileron_cmd & aileron_cmd <= 15.0"' in text


def test_logs_are_checked_against_requirements(tmp_path) -> None:
    csv = tmp_path / "run.csv"
    csv.write_text("aileron_cmd,roll_angle,on\n0.0,1.0,true\n5.5,2,1\n16.0,3.25,false\n1.0,4,0\n")
    result = run("verify", "--log", str(csv), "G(aileron_cmd <= 15.0)", "F(roll_angle > 3.5)", "G(on -> X !on)")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"FAILS G(aileron_cmd <= 15.0): first violated at {csv}:4 (instant 2)",
        "HOLDS F(roll_angle > 3.5)",
        f"FAILS G(on -> X !on): first violated at {csv}:2 (instant 0)",
    ]
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text(
        "\n".join(
            json.dumps(row)
            for row in [
                {"aileron_cmd": 0.0, "roll_angle": 0, "on": True},
                {"aileron_cmd": 16.0, "roll_angle": 1, "on": False},
            ]
        )
    )
    same = json_lines(run("verify", "--log", str(jsonl), "--format", "json", "G(aileron_cmd <= 15.0)").stdout)
    assert (same[0]["status"], same[0]["violated_at"]) == ("fails", 1)


def test_fret_requirements_against_a_log(tmp_path) -> None:
    """FRET's requirements hold at every instant: the first instant one does not is named."""
    log = tmp_path / "run.csv"
    log.write_text("aileron_cmd,roll_angle\n0.0,1.0\n-16.5,2.0\n")
    spec = tmp_path / "reqs.json"
    export = json.loads(FRET.read_text())
    export["requirements"] = [r for r in export["requirements"] if r["reqid"] in ("AP-007", "AP-006")]
    spec.write_text(json.dumps(export))
    records = json_lines(run("verify", "--log", str(log), "-F", str(spec), "--format", "json").stdout)
    verdicts = {r["name"]: (r["status"], r["violated_at"]) for r in records}
    assert verdicts == {"AP-007": ("fails", 1), "AP-006": ("holds", None)}


def test_logs_that_cannot_be_read(tmp_path) -> None:
    short = tmp_path / "short.csv"
    short.write_text("x\n1\n")
    missing = run("verify", "--log", str(short), "--domain", "Int", "G(x < y)")
    assert missing.exit_code == 2 and f"{short}:1: no column y (the columns: x)" in missing.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("x,p\n1,maybe\n")
    wrong = run("verify", "--log", str(bad), "--domain", "Int", "G(p -> x > 0)")
    assert wrong.exit_code == 2 and f"{bad}:2: p is a proposition, and 'maybe' is not true or false" in wrong.stderr
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("x,y\n1\n")
    assert f"{ragged}:2: 1 value for 2 columns (x, y)" in run("verify", "--log", str(ragged), "G(x > 0)").stderr
    gone = run("verify", "--log", str(tmp_path / "none.csv"), "G(x > 0)")
    assert gone.exit_code == 2 and "cannot open" in gone.stderr
    spreadsheet = tmp_path / "excel.csv"
    spreadsheet.write_bytes("x,y\n1,2\n".encode("utf-8-sig"))  # a byte-order mark before the header
    assert run("verify", "--log", str(spreadsheet), "--domain", "Int", "G(x < y)").stdout == "HOLDS G(x < y)\n"


def _export(requirements: list[tuple[str, str, str]], variables: list[dict]) -> str:
    return json.dumps(
        {
            "requirements": [
                {"reqid": r, "semantics": {"ptExpanded": f, "component_name": c}} for r, c, f in requirements
            ],
            "variables": variables,
        }
    )


def test_a_requirement_reads_its_own_component_s_types(tmp_path) -> None:
    """`dot` is a double of component A and untyped in B, where a requirement applies it as a
    function: that one reads, and the conjunction leaves it out, saying why."""
    path = tmp_path / "components.json"
    path.write_text(
        _export(
            [("R1", "B", "(H (dot(v) > 0.5))"), ("R2", "A", "(H (dot > 1.0))")],
            [
                {"variable_name": "dot", "component_name": "A", "dataType": "double"},
                {"variable_name": "dot", "component_name": "B", "dataType": ""},
            ],
        )
    )
    result = run("check", "--model", "none", "--consistency", str(path))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[2].startswith("PASS (all 1 spec of") and lines[2].endswith(
        f"left out: R1 ({path}:1, dot is a variable, and is applied to arguments too (dot(...)))"
    )
    assert [line.split()[:2] for line in lines[:2]] == [["PASS", "R1"], ["PASS", "R2"]]


def test_a_function_two_components_read_two_ways_says_both_and_who(tmp_path) -> None:
    """`det` is a Real function in component A and a predicate in B (FRET's LM export:
    det_3x3 of 9 arguments): the conjunction leaves out the later one, naming both signatures
    and the requirement that reads it the first way."""
    path = tmp_path / "signatures.json"
    path.write_text(
        _export(
            [("R1", "A", "(H (det(v, v) > 0.5))"), ("R2", "B", "(H det(w, w))")],
            [
                {"variable_name": "v", "component_name": "A", "dataType": "double"},
                {"variable_name": "w", "component_name": "B", "dataType": "double"},
                {"variable_name": "det", "component_name": "A", "idType": "Function"},
                {"variable_name": "det", "component_name": "B", "idType": "Function"},
            ],
        )
    )
    result = run("check", "--model", "none", "--consistency", str(path))
    assert result.exit_code == 0, result.stderr
    joint = result.stdout.splitlines()[2]
    assert joint.startswith("PASS (all 1 spec of") and joint.endswith(
        f"left out: R2 ({path}:1, function det of 2 arguments is read with two signatures, "
        "Real^2 -> Real and Real^2 -> Bool (R1, component A, reads it the first way))"
    )


def test_fret_exports_are_read_whatever_comes_first(tmp_path) -> None:
    """The `variables` may come first, past any head a sniff would read; a BOM is allowed; a
    JSON object without requirements says so."""
    big = tmp_path / "big.json"
    filler = [{"variable_name": f"v{i}", "component_name": "C", "dataType": "double"} for i in range(2000)]
    big.write_bytes(
        (
            "\ufeff"
            + json.dumps(
                {"variables": filler, "requirements": [{"reqid": "R1", "semantics": {"ptExpanded": "(H (v1 > 0.0))"}}]}
            )
        ).encode()
    )
    assert big.stat().st_size > 1 << 16
    assert run("check", "--model", "none", str(big)).stdout.startswith("PASS R1")
    other = tmp_path / "other.json"
    other.write_text('{"x": 1}')
    result = run("check", str(other))
    assert result.exit_code == 2 and "not a FRET export: no list of requirements" in result.stderr


def test_a_fret_list_of_requirements_is_an_export_without_variables(tmp_path) -> None:
    """FRET's "export requirements" writes a JSON list, and older versions leave the editor's
    HTML in the formula; undeclared numbers are doubles."""
    path = tmp_path / "list.json"
    path.write_text(
        json.dumps(
            [
                {
                    "reqid": "R1",
                    "fulltext": "FSM shall always satisfy state = s0 => STATE = s1",
                    "semantics": {"ptExpanded": "(H <b><i>(( state = s0 ) -> STATE = s1)</i></b>)"},
                },
                {"reqid": "R2", "semantics": {"ptExpanded": "(H (state = s0 & STATE != s1 & STATE / 2 = 0.25))"}},
            ],
            indent=2,
        )
    )
    result = run("check", "--model", "none", "--consistency", str(path))
    assert result.exit_code == 1, result.stderr
    assert "jointly unsatisfiable" in result.stdout and "R1 (" in result.stdout and "R2 (" in result.stdout
    assert "HTML tags" in result.stderr
    assert [line.split()[:2] for line in result.stdout.splitlines()[:2]] == [["PASS", "R1"], ["PASS", "R2"]]
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2]")
    assert run("check", str(junk)).exit_code == 2


def test_fret_formulas_are_read_in_nuxmv_s_syntax_with_or_without_atoms(tmp_path) -> None:
    """`OPEN_DOOR` is one name in a requirement without atoms too (Spot would read `O PEN_DOOR`),
    so the two requirements speak of the same proposition and conflict."""
    path = tmp_path / "names.json"
    path.write_text(_export([("R1", "C", "(H OPEN_DOOR)"), ("R2", "C", "(H ((! OPEN_DOOR) & (x > 0.0)))")], []))
    result = run("check", "--model", "none", "--consistency", str(path))
    assert result.exit_code == 1 and "jointly unsatisfiable" in result.stdout, result.stdout
    assert "split" not in result.stderr
    assert run("solve", "--model", "none", "--syntax", "nuxmv", "Ga & !a").stdout == '"Ga" & !a\n'
    assert run("solve", "--model", "none", "--syntax", "spot", "Ga & !a").stdout.startswith("UNSAT")


def test_declarations_that_clash_are_errors_of_their_specs(tmp_path) -> None:
    spec = tmp_path / "s.spec"
    spec.write_text("var x: Int\nG(x > 0)\n")
    result = run("check", "--var", "x:Real", str(spec))
    assert result.exit_code == 2 and "internal error" not in result.stderr
    assert "s.spec:2: variable x is declared twice, as Real and as Int" in result.stderr
    domain = tmp_path / "d.spec"
    domain.write_text("domain Bool\nG(w > 1)\n")
    assert "d.spec:1: the domain is Int or Real, not Bool" in run("check", str(domain)).stderr


def test_log_checks_compare_propositions_and_report_once(tmp_path) -> None:
    log = tmp_path / "run.csv"
    log.write_text("p,q,x\n1,1,2\n0,0,3\n")
    assert run("verify", "--log", str(log), "G(p = q) & F p").stdout == "HOLDS G(p = q) & F p\n"
    nan = tmp_path / "nan.jsonl"
    nan.write_text('{"x": 1.5}\n{"x": NaN}\n')
    result = run("verify", "--var", "x:Real", "--log", str(nan), "G(x > 1.0)")
    assert result.exit_code == 2 and f"{nan}:2: x: nan is not a number" in result.stderr


def test_a_name_read_two_ways_in_one_component_is_an_error_at_each_place(tmp_path) -> None:
    """Nothing declares `yout`: a variable in R1 and R3, a function in R2, all of one component
    (its names read once): each is an error naming the others, none is judged alone in a
    reading the others contradict, and the conjunction is left with none of them."""
    path = tmp_path / "clash.json"
    path.write_text(
        json.dumps(
            [
                {"reqid": r, "semantics": {"ptExpanded": f}}
                for r, f in [("R1", "(H (yout > 1.0))"), ("R2", "(H (yout(3) = 0.0))"), ("R3", "(H (yout < 0.0))")]
            ]
        )
    )
    result = run("check", "--model", "none", "--consistency", str(path))
    lines = result.stdout.splitlines()
    assert result.exit_code == 2, result.stdout
    assert [line.split()[:2] for line in lines if not line.startswith("PASS (")][:3] == [
        ["ERROR", "R1"],
        ["ERROR", "R2"],
        ["ERROR", "R3"],
    ]
    r1, r2, r3 = (next(line for line in lines if line.startswith(f"ERROR {r} ")) for r in ("R1", "R2", "R3"))
    # each says how it reads the name, and where it is read the other way
    assert r2.endswith(f"yout is applied to arguments here, but a variable in R1 ({path}:1), R3 ({path}:1)")
    assert r1.endswith(f"yout is a variable here, but applied to arguments in R2 ({path}:1)")
    assert r3.endswith(f"yout is a variable here, but applied to arguments in R2 ({path}:1)")


def test_requirements_of_components_whose_names_clash_are_left_out_of_the_conjunction(tmp_path) -> None:
    """`yout` is a variable in component A (R1, R3) and a function in component B (R2): each
    component reads its names its own way, so each requirement reads; their project's
    conjunction keeps R1 and R3 and leaves R2 out, saying why."""
    path = tmp_path / "clash.json"
    path.write_text(
        json.dumps(
            [
                {"reqid": r, "semantics": {"ptExpanded": f, "component_name": c}}
                for r, f, c in [
                    ("R1", "(H (yout > 1.0))", "A"),
                    ("R2", "(H (yout(3) = 0.0))", "B"),
                    ("R3", "(H (yout < 0.0))", "A"),
                ]
            ]
        )
    )
    result = run("check", "--model", "none", "--consistency", str(path))
    joint = result.stdout.splitlines()[3]
    assert joint.startswith("FAIL") and "R1 (" in joint and "R3 (" in joint, result.stdout
    assert f"left out: R2 ({path}:1, yout is a variable, and is applied to arguments too" in joint
    assert [line.split()[:2] for line in result.stdout.splitlines()[:3]] == [
        ["PASS", "R1"],
        ["PASS", "R2"],
        ["PASS", "R3"],
    ]


def test_an_export_of_several_projects_checks_each_apart(tmp_path) -> None:
    """FRET's whole database: P1's requirements conflict, P2's hold together and share a
    reqid with P1's; a reqid repeated within a project is an error at its second line."""
    path = tmp_path / "projects.json"
    path.write_text(
        json.dumps(
            [
                {"reqid": "R1", "project": "P1", "semantics": {"ptExpanded": "(H (x > 1.0))"}},
                {"reqid": "R2", "project": "P1", "semantics": {"ptExpanded": "(H (x < 0.0))"}},
                {"reqid": "R1", "project": "P2", "semantics": {"ptExpanded": "(H (x < 0.0))"}},
                {"reqid": "R1", "project": "P2", "semantics": {"ptExpanded": "(H (x = 0.0))"}},
            ],
            indent=1,
        )
    )
    result = run("check", "--model", "none", "--consistency", str(path))
    lines = [line for line in result.stdout.splitlines() if line.split()[1] == "(all"]
    assert lines[0].startswith(f"FAIL (all 2 specs of {path}, project P1, together): jointly unsatisfiable")
    assert lines[1].startswith(f"PASS (all 1 spec of {path}, project P2, together): jointly satisfiable")
    assert f"ERROR R1 ({path}:24): duplicate reqid 'R1' (first at line 17)" in result.stdout
    assert result.stdout.splitlines()[-1].endswith("; 1 file whose specs contradict each other")
    records = [
        json.loads(line)
        for line in run("check", "--model", "none", "--consistency", "--format", "json", str(path)).stdout.splitlines()
    ]
    assert [(r["group"], r["status"]) for r in records if r["kind"] == "conjunction"] == [
        ("P1", "fail"),
        ("P2", "pass"),
    ]


def test_a_big_fret_export_is_read_in_one_pass(tmp_path, monkeypatch) -> None:
    """3,000 variables and 300 requirements: the declarations are gathered and made once, not
    declared one by one (each a copy of all before it: an export of 20,000 variables took 24 s
    before its first answer), and each requirement's line is read off one index of the file
    (each had been looked for, and the lines before it counted, from the file's start), the
    reqid written as the file writes it (`é`, not `\\u00e9`), past its mentions before."""
    from ltlwit.logic.theory.sorts import BOOL, REAL, Declarations
    from ltlwit.specs import fret

    variables = [
        {"variable_name": f"v{i}", "component_name": "C", "dataType": ["double", "boolean"][i % 2]} for i in range(3000)
    ]
    reqids = [f"R-{k}" for k in range(299)] + ["R-é"]
    requirements = [
        {
            "reqid": r,
            "parent_reqid": reqids[k + 1] if k + 1 < len(reqids) else "",
            "semantics": {"ptExpanded": f"(H (v{2 * k} > 0.0 & v{2 * k + 1}))", "component_name": "C"},
        }
        for k, r in enumerate(reqids)
    ]
    path = tmp_path / "big.json"
    text = json.dumps({"requirements": requirements, "variables": variables}, indent=2, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    lines = {line.strip(): n for n, line in enumerate(text.splitlines(), 1) if line.strip().startswith('"reqid"')}
    declared: list[str] = []
    declare = Declarations.declare
    monkeypatch.setattr(
        Declarations, "declare", lambda self, name, sort: declared.append(name) or declare(self, name, sort)
    )
    fret._written.cache_clear()
    specs = list(fret.read_fret(str(path)))
    assert declared == []
    assert fret._written.cache_info().misses == 1
    assert [(s.name, s.line) for s in specs] == [
        (r, lines[f'"reqid": {json.dumps(r, ensure_ascii=False)},']) for r in reqids
    ]
    assert specs[5].declarations.variables == {"v10": REAL, "v11": BOOL}


def test_nuxmv_var_sections_declare_as_var_lines_do(tmp_path) -> None:
    """`VAR`/`IVAR` sections (`name : integer;`, several on a line, with comments) declare what
    `var name: Sort` lines do; a section ends at the first line that declares nothing (a
    comment, `--` or `#`, declares nothing and ends nothing: `mode : {...}` after one is no spec)."""
    nuxmv = tmp_path / "cruise.spec"
    nuxmv.write_text(
        "VAR\n  speed : real;  -- km/h\n# the modes\n  mode : {off, cruise}; n : integer;\n"
        "IVAR b : boolean;\n"
        "LTLSPEC NAME limit := G(speed <= 120.0 & (b -> n > 0));\n"
        "LTLSPEC NAME off := G(mode = off -> speed = 0.0);\n"
    )
    plain = tmp_path / "plain.spec"
    plain.write_text(
        "var speed: Real\nvar mode: {off, cruise}\nvar n: Int\nvar b: Bool\n"
        "limit: G(speed <= 120.0 & (b -> n > 0))\noff: G(mode = off -> speed = 0.0)\n"
    )
    got, meant = list(read_specs(str(nuxmv))), list(read_specs(str(plain)))
    assert [(s.name, s.formula, s.error) for s in got] == [(s.name, s.formula, s.error) for s in meant]
    assert got[0].declarations == meant[0].declarations
    result = run("check", str(nuxmv))
    assert result.exit_code == 0, result.stdout + result.stderr
    bad = tmp_path / "bad.spec"
    bad.write_text("VAR x : 0..5; y : integer;\nLTLSPEC G(y > 0)\n")
    result = run("check", str(bad))
    assert f"{bad}:1: unknown sort '0..5'" in result.stderr
    assert "PASS" in result.stdout  # y is declared all the same
