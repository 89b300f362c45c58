"""Realizability of FRET exports (`ltlwit.specs.realizability`, `realize -F export.json`): FRET's
connected components, verdicts and minimal conflicts, on a small export written here and on the
case studies whose verdicts FRET documents (../shared/data/synt/fret)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from cli_support import json_lines, run
from shared_data import shared_file

from ltlwit.logic.ltl.games import Realizable, Unrealizable
from ltlwit.logic.result import Unknown
from ltlwit.specs.realizability import components, read_export, realize_export


def requirement(reqid: str, formula: str, text: str = "") -> dict:
    return {"reqid": reqid, "fulltext": text or reqid, "semantics": {"ptExpanded": formula}}


def rising(x: str) -> str:
    return f"({x} & (Z (! {x})))"


#: a start button that opens a valve unless the tank is full, an emergency button that closes
#: it, a level sensor that closes it, and an independent motor
EXPORT = {
    "requirements": [
        requirement("R-motor", f"(H ({rising('emergency')} -> (! motor)))"),
        requirement("R-level", f"(H ({rising('full')} -> (! valve)))"),
        requirement("R-start", f"(H ({rising('start')} -> ((! full) -> valve)))", "when start shall open"),
        requirement("R-stop", f"(H ({rising('emergency')} -> (! valve)))", "when emergency shall close"),
        requirement("assumption-1", "(H (! (start & emergency)))"),
    ],
    "variables": [
        {"variable_name": name, "idType": kind, "dataType": "boolean"}
        for name, kind in [
            ("emergency", "Input"),
            ("full", "Input"),
            ("start", "Input"),
            ("motor", "Output"),
            ("valve", "Output"),
        ]
    ],
}


def test_components_as_fret_numbers_them() -> None:
    export = read_export(json.dumps(EXPORT))
    found = [(name, [r.name for r in reqs], outs) for name, reqs, outs in components(export)]
    assert found == [("cc0", ["R-motor"], ["motor"]), ("cc1", ["R-level", "R-start", "R-stop"], ["valve"])]
    assert [r.name for r in export.requirements if r.assumption] == ["assumption-1"]


def test_assumptions_decide_and_conflicts_are_minimal() -> None:
    report = realize_export(json.dumps(EXPORT), timeout=60, diagnose=True)
    assert [type(c.verdict) for c in report.components] == [Realizable, Realizable]
    without = dict(EXPORT, requirements=EXPORT["requirements"][:-1])  # start and emergency together
    report = realize_export(json.dumps(without), timeout=60, diagnose=True)
    motor, valve = report.components
    assert isinstance(motor.verdict, Realizable) and isinstance(valve.verdict, Unrealizable)
    assert valve.conflicts == (("R-start", "R-stop"),) and valve.complete


def test_cli(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(dict(EXPORT, requirements=EXPORT["requirements"][:-1])))
    result = run("realize", "-F", str(path), "--diagnose")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["REALIZABLE", "cc0", "R-motor", "(outputs:", "motor)"]
    assert lines[1].startswith("UNREALIZABLE  cc1  R-level, R-start, R-stop")
    assert lines[2:5] == [
        "  conflict 1: R-start, R-stop",
        "    R-start: when start shall open",
        "    R-stop: when emergency shall close",
    ]
    assert lines[5] == "  minimal corrections (drop one set and the rest is realizable): {R-start}; {R-stop}"
    assert "_m" not in lines[6] and lines[6].startswith("  play: ")  # the monitors stay out of the text
    assert lines[-1].startswith("UNREALIZABLE") and lines[-1].endswith("1 of 2 components realizable")
    rows = json_lines(run("realize", "-F", str(path), "--format", "json").stdout)
    assert [(r["component"], r["status"], r["conflicts"]) for r in rows] == [
        ("cc0", "realizable", None),
        ("cc1", "unrealizable", None),
    ]
    assert rows[1]["counter_strategy"]["player"] == "environment" and rows[0]["controller"]["writes"][0] == "motor"
    path.write_text("{}")
    result = run("realize", "-F", str(path))
    assert result.exit_code == 2 and "not a FRET export" in result.stderr


def test_fret_case_studies_documented_verdicts_and_conflicts() -> None:
    facts = json.loads(shared_file("synt/fret/realizability.json").read_text())
    mixer = next(p for p in facts["projects"] if p["project"] == "Liquid_mixer")
    report = realize_export(shared_file("synt/" + mixer["export_file"]).read_text(), timeout=60, diagnose=True)
    documented = {c["name"]: (c["requirements"], c["verdict"]) for c in mixer["connected_components"]}
    assert {c.name: (list(c.requirements), _word(c.verdict)) for c in report.components} == documented
    for conflict in mixer["minimal_conflicts"]:
        component = next(c for c in report.components if c.name == conflict["cc"])
        assert set(map(frozenset, component.conflicts)) == {frozenset(conflict["requirements"])}
        assert component.complete


def _word(verdict: object) -> str:
    return (
        "realizable"
        if isinstance(verdict, Realizable)
        else "unrealizable"
        if isinstance(verdict, Unrealizable)
        else "unknown"
    )


def test_spec_file_requirements_per_component_with_every_conflict(tmp_path: Path) -> None:
    """Three clients, a grant at a time, each also asked to be granted at once: every two of
    those immediate grants conflict with the mutual exclusion, and so does each immediate
    grant with another client's response (its requests may never stop)."""
    n = 3
    lines = ["mutex: G(" + " & ".join(f"!(g{i} & g{j})" for i in range(n) for j in range(i + 1, n)) + ")"]
    lines += [f"response{i}: G(r{i} -> F g{i})" for i in range(n)]
    lines += [f"immediate{i}: G(r{i} -> g{i})" for i in range(n)]
    lines += ["echo: G(x <-> y)", "scenario: F(r0 & r1)  # expect: allowed"]
    path = tmp_path / "arbiter.spec"
    path.write_text("\n".join(lines) + "\n")
    result = run("realize", "-F", str(path), "--inputs", "r0,r1,r2,x", "--diagnose", "--format", "json")
    arbiter, echo = json_lines(result.stdout)
    assert result.exit_code == 1
    assert echo["status"] == "realizable" and echo["requirements"] == ["echo"]
    assert arbiter["status"] == "unrealizable" and arbiter["conflicts_complete"]
    expected = {frozenset({"mutex", f"immediate{i}", f"immediate{j}"}) for i in range(n) for j in range(i + 1, n)}
    expected |= {frozenset({"mutex", f"immediate{i}", f"response{j}"}) for i in range(n) for j in range(n) if i != j}
    assert set(map(frozenset, arbiter["conflicts"])) == expected
    # the minimal correction sets are the minimal hitting sets of the conflicts (duality)
    names = sorted(set().union(*expected))
    hitting = [
        frozenset(c)
        for k in range(1, len(names) + 1)
        for c in itertools.combinations(names, k)
        if all(set(c) & core for core in expected)
    ]
    minimal = {h for h in hitting if not any(o < h for o in hitting)}
    assert set(map(frozenset, arbiter["corrections"])) == minimal
    assert "scenario" not in arbiter["requirements"]  # a scenario is no requirement


def test_inputs_and_outputs_declared_in_the_file(tmp_path: Path) -> None:
    text = tmp_path / "a.spec"
    text.write_text("input r  # the environment's\nresp: G(r -> F g)\nstop: G(r -> !g)\n")
    toml = tmp_path / "a.toml"
    toml.write_text(
        'inputs = ["r"]\n[[spec]]\nname = "resp"\nformula = "G(r -> F g)"\n[[spec]]\nname = "stop"\nformula = "G(r -> !g)"\n'
    )
    for path in (text, toml):
        (row,) = json_lines(run("realize", "-F", str(path), "--diagnose", "--format", "json").stdout)
        assert row["status"] == "unrealizable" and row["conflicts"] == [["resp", "stop"]], path
        assert run("check", str(path)).exit_code == 0  # check reads the lines and is unmoved by them
    text.write_text("input r\noutput g\nresp: G(r -> F (g & h))\n")
    result = run("realize", "-F", str(text))
    assert result.exit_code == 2 and f"ltlwit: {text}: h is neither an input nor an output" in result.stderr
    text.write_text("input r s\nG(r -> F g)\n")
    result = run("realize", "-F", str(text))
    assert result.exit_code == 2 and f"{text}:1: expected 'input NAME, NAME'" in result.stderr
    toml.write_text('inputs = "r"\n[[spec]]\nformula = "G(r -> F g)"\n')
    assert "inputs is a list of names" in run("realize", "-F", str(toml)).stderr


def test_check_realizability_gates_ci(tmp_path: Path) -> None:
    import ltlwit
    from ltlwit.specs.run import RealizabilityResult

    spec = tmp_path / "a.spec"
    spec.write_text("input r, x\nresp: G(r -> F g)\nstop: G(r -> !g)\necho: G(x <-> y)\n")
    result = run("check", "--realizability", "--junit", str(tmp_path / "j.xml"), str(spec))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert f"FAIL unrealizable (cc0 of {spec}): resp, stop" in lines
    assert f"PASS realizable (cc1 of {spec}): echo" in lines
    assert "  CONFLICT resp, stop" in lines and "  FIX remove resp" in lines
    assert lines[-1].endswith("; realizability: 1 realizable, 1 unrealizable, 0 undecided")
    junit = (tmp_path / "j.xml").read_text()
    assert 'name="cc0 is realizable (resp, stop)"' in junit and 'type="unrealizable"' in junit
    rows = [
        r
        for r in json_lines(run("check", "--realizability", "--format", "json", str(spec)).stdout)
        if r["kind"] == "realizability"
    ]
    assert [(r["component"], r["verdict"], r["conflicts"]) for r in rows] == [
        ("cc0", "unrealizable", [["resp", "stop"]]),
        ("cc1", "realizable", None),
    ]
    assert rows[1]["strategy"]["player"] == "system" and rows[0]["strategy"]["player"] == "environment"
    report = ltlwit.check(str(spec), realizability=True)
    assert not report.passed
    assert [r.status for r in report if isinstance(r, RealizabilityResult)] == ["fail", "pass"]
    spec.write_text("resp: G(r -> F g)\n")  # no inputs named: an error, the specs still checked
    result = run("check", "--realizability", str(spec))
    assert result.exit_code == 2 and result.stdout.startswith("PASS resp")
    assert "a line 'input NAME, NAME'" in result.stderr
    assert run("check", str(spec)).exit_code == 0


def variable(name: str, kind: str, data_type: str, assignment: str | None = None) -> dict:
    entry = {"variable_name": name, "idType": kind, "dataType": data_type}
    return entry | ({"assignment": assignment} if assignment is not None else {})


def slowing(ticks: int) -> dict:
    """A vehicle at 50.0 that slows by at most 10.0 a tick, fast while above 30.0, and must be
    slow within `ticks` ticks after the first instant (FRET's "within N ticks": at the latest
    ticks instants on): realizable from 2 ticks (50, 40, 30)."""
    return {
        "requirements": [
            requirement("V-init", "(H ((! (Y TRUE)) -> (speed = 50.0)))"),
            requirement("V-rate", "(H ((! (Y TRUE)) | (absReal((preReal(0.0,speed) - speed)) <= 10.0)))"),
            requirement("V-mode", "(H ((mode = FAST) <-> (speed > 30.0)))"),
            requirement("V-slow", f"(H ((H (! (mode = SLOW))) -> (O[0,{ticks - 1}] (! (Y TRUE)))))"),
        ],
        "variables": [
            variable("speed", "Output", "double"),
            variable("mode", "Output", "integer"),
            variable("FAST", "Internal", "integer", "1"),
            variable("SLOW", "Internal", "integer", "0"),
        ],
    }


def test_data_components_without_inputs_are_decided_with_checked_runs() -> None:
    """No input: the system alone writes the run, so the component is realizable exactly where
    some run satisfies it; its controller writes such a run, which satisfies every requirement
    as `check` reads it, and an unrealizable one's conflicts are minimal."""
    from ltlwit.logic.ltl import holds
    from ltlwit.pipeline.options import SolveOptions
    from ltlwit.specs.fret import fret_specs
    from ltlwit.specs.reading import parse_specs

    text = json.dumps(slowing(2))
    (component,) = realize_export(text, timeout=60).components
    assert isinstance(component.verdict, Realizable)
    run_ = component.verdict.play
    assert [s.data for s in run_.steps] == [True] * len(run_.steps)
    for p in parse_specs(list(fret_specs(text, "x.json")), SolveOptions()):
        assert holds(p.formula, run_, declarations=p.spec.declarations), p.spec.name
    assert component.verdict.controller.writes == ("speed", "mode")
    (component,) = realize_export(json.dumps(slowing(1)), timeout=60, diagnose=True).components
    assert isinstance(component.verdict, Unrealizable)
    assert component.conflicts == (("V-init", "V-rate", "V-mode", "V-slow"),) and component.complete
    assert set(component.corrections) == {("V-init",), ("V-rate",), ("V-mode",), ("V-slow",)}


def test_data_components_reading_an_input_or_an_undefined_variable_say_so() -> None:
    export = slowing(2)
    braking = dict(
        export,
        requirements=[*export["requirements"], requirement("V-brake", "(H (brake -> (speed = 0.0)))")],
        variables=[*export["variables"], variable("brake", "Input", "boolean")],
    )
    (component,) = realize_export(json.dumps(braking), timeout=60).components
    assert isinstance(component.verdict, Unknown) and "another instant's value" in component.verdict.reason
    limited = dict(
        export,
        requirements=[*export["requirements"], requirement("V-limit", "(H (speed <= limit))")],
        variables=[*export["variables"], variable("limit", "Internal", "double", "60.0 -> pre limit + 1.0")],
    )
    (component,) = realize_export(json.dumps(limited), timeout=60).components
    assert isinstance(component.verdict, Unknown) and component.verdict.reason.startswith("limit: neither Input")


def test_data_controller_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "slowing.json"
    path.write_text(json.dumps(slowing(2)))
    (row,) = json_lines(run("realize", "-F", str(path), "--format", "json").stdout)
    assert row["status"] == "realizable" and "speed = 50.0" in row["controller"]["states"][0][0]["write"]
    result = run("realize", "-F", str(path), "--format", "aiger")
    assert result.exit_code == 2 and result.stdout == "REALIZABLE cc0\n" and "no AIGER circuit" in result.stderr
    result = run("check", "--realizability", str(path))
    assert f"PASS realizable (cc0 of {path}): V-init, V-rate, V-mode, V-slow" in result.stdout.splitlines()


def test_lift_plus_cruise_documented_verdicts() -> None:
    """FRET's Lift+Cruise case study (LPC_mini: no inputs; doubles, an integer mode and
    Internal constants): the selections its instructions document, and the whole set."""
    facts = json.loads(shared_file("synt/fret/realizability.json").read_text())
    lpc = next(p for p in facts["projects"] if p["project"] == "LPC_mini")
    export = json.loads(shared_file("synt/" + lpc["export_file"]).read_text())
    (component,) = realize_export(json.dumps(export), timeout=60).components
    assert _word(component.verdict) == lpc["component_verdict"]["verdict"]
    assert set(component.requirements) == set(lpc["connected_components"][0]["requirements"])
    for experiment in lpc["selection_experiments"]:
        chosen = dict(export, requirements=[r for r in export["requirements"] if r["reqid"] in experiment["selected"]])
        (component,) = realize_export(json.dumps(chosen), timeout=60).components
        assert _word(component.verdict) == experiment["verdict"], experiment["deselected"]


def autopilot(*reqids: str) -> dict:
    """FRET's FSM example, its autopilot's transitions: `state` (the input) and `STATE` (the
    output) doubles compared with Internal constants; FRET documents FSM-002 and FSM-003 as a
    conflict (both fire in the transition state under standby with good and supported)."""
    rule = {
        "FSM-002": "(standby & (state = ap_transition_state)) -> (STATE = ap_standby_state)",
        "FSM-003": "((state = ap_transition_state) & good & supported) -> (STATE = ap_nominal_state)",
        "FSM-004": "((! good) & (state = ap_nominal_state)) -> (STATE = ap_maneuver_state)",
        "FSM-005": "((state = ap_nominal_state) & standby) -> (STATE = ap_standby_state)",
        "FSM-008": "((state = ap_standby_state) & (! standby)) -> (STATE = ap_transition_state)",
    }
    constants = [("ap_transition_state", "0.0"), ("ap_nominal_state", "1.0")]
    constants += [("ap_maneuver_state", "2.0"), ("ap_standby_state", "3.0")]
    return {
        "requirements": [requirement(r, f"(H ({rule[r]}))") for r in reqids],
        "variables": [
            *(variable(n, "Input", "boolean") for n in ("standby", "good", "supported")),
            variable("state", "Input", "double"),
            variable("STATE", "Output", "double"),
            *(variable(n, "Internal", "double", v) for n, v in constants),
        ],
    }


def test_fret_state_machine_over_data_inputs_names_its_conflicts() -> None:
    report = realize_export(
        json.dumps(autopilot("FSM-002", "FSM-003", "FSM-004", "FSM-005")), timeout=60, diagnose=True
    )
    (component,) = report.components
    assert isinstance(component.verdict, Unrealizable) and component.complete
    assert set(component.conflicts) == {("FSM-002", "FSM-003"), ("FSM-004", "FSM-005")}
    strategy = component.verdict.counter_strategy
    assert "state" in strategy.writes and "= 0.0" in str(component.verdict.play)
    (component,) = realize_export(json.dumps(autopilot("FSM-002", "FSM-004", "FSM-008")), timeout=60).components
    assert isinstance(component.verdict, Realizable)
    controller = component.verdict.controller
    assert controller.writes == ("STATE",) and all(
        str(t.write).startswith("STATE = ") for ts in controller.states for t in ts
    )


def test_an_unreadable_requirement_leaves_its_component_undecided_only() -> None:
    export = autopilot("FSM-002", "FSM-003")
    export["requirements"].append(requirement("R-broken", "(H ((STATE = ) -> standby))"))
    export["requirements"].append(requirement("R-motor", "(H (standby -> (! motor)))"))
    export["variables"].append(variable("motor", "Output", "boolean"))
    fsm, motor = realize_export(json.dumps(export), timeout=60).components
    assert isinstance(fsm.verdict, Unknown) and fsm.verdict.reason.startswith(
        "R-broken does not read (<export>:1: column 14: syntax error"
    )
    assert fsm.requirements == ("FSM-002", "FSM-003", "R-broken") and isinstance(motor.verdict, Realizable)


def test_projects_of_one_export_are_realized_apart() -> None:
    first = [dict(requirement("R-1", "(H (r -> g))"), project="A")]
    second = [dict(requirement("R-1", "(H (r -> (! g)))"), project="B")]
    variables = [variable("r", "Input", "boolean"), variable("g", "Output", "boolean")]
    report = realize_export(json.dumps({"requirements": first + second, "variables": variables}), timeout=60)
    assert [(c.name, c.requirements, _word(c.verdict)) for c in report.components] == [
        ("A/cc0", ("R-1",), "realizable"),
        ("B/cc0", ("R-1",), "realizable"),
    ]


def test_fret_database_state_machines() -> None:
    """FRET's own database export (LM_requirements.json): the autopilot's state machine is
    unrealizable by the conflicts its requirements' variants were written to resolve, among
    them FRET's documented {FSM-002, FSM-003}; the sensor's by {FSM-010, FSM-011v1}."""
    report = realize_export(shared_file("fret/LM_requirements.json").read_text(), timeout=5, diagnose=True)
    by_first = {c.requirements[0]: c for c in report.components}
    autopilot_ = next(c for c in report.components if "FSM-002" in c.requirements)
    assert isinstance(autopilot_.verdict, Unrealizable) and autopilot_.complete
    assert set(map(frozenset, autopilot_.conflicts)) == {
        frozenset(p)
        for p in [("FSM-002", "FSM-003"), ("FSM-004", "FSM-005"), ("FSM-006", "FSM-007"), ("FSM-008v1", "FSM-009")]
    }
    sensor = next(c for c in report.components if "FSM-010" in c.requirements)
    assert set(map(frozenset, sensor.conflicts)) == {frozenset({"FSM-010", "FSM-011v1"})}
    nlg = by_first["TUI-003v2"]
    assert isinstance(nlg.verdict, Unknown) and "NLG-007" in nlg.verdict.reason  # yout read two ways


def test_internal_definitions_are_read_as_fret_defines_them() -> None:
    """An Internal variable assigned a Lustre expression is that expression for `realize`
    (here: `fast` a comparison, `gain` the change since the instant before, 0.0 at the first),
    which the system keeps; one that reads itself stays free, and says so."""
    from ltlwit.pipeline.options import SolveOptions
    from ltlwit.specs.fret import fret_specs
    from ltlwit.specs.reading import parse_specs

    export = slowing(2)
    export["variables"] += [
        variable("fast", "Internal", "boolean", "speed > 30.0"),
        variable("gain", "Internal", "double", "0.0 -> (speed - pre speed)"),
        {"variable_name": "cruising", "idType": "Mode", "modeRequirement": "speed > 20.0 & mode = FAST"},
    ]
    export["requirements"] += [
        requirement("V-fast", "(H (fast -> (mode = FAST)))"),
        requirement("V-gain", "(H (gain <= 0.0))"),
    ]
    parsed = parse_specs(list(fret_specs(json.dumps(export), "v.json")), SolveOptions())
    fast = next(p for p in parsed if p.spec.name == "V-fast")
    assert "fast" in str(fast.formula)  # check reads them as it did: free
    defines = {name: (text, boolean) for name, text, boolean, _ in fast.spec.defines}
    assert defines == {
        "fast": ("(speed > 30.0)", True),
        "gain": ("(case !(Y TRUE) : 0.0; TRUE : (speed - preReal(0.0, speed)); esac)", False),
        "cruising": ("(speed > 20.0 & mode = FAST)", True),
    }
    (component,) = realize_export(json.dumps(export), timeout=60).components
    assert isinstance(component.verdict, Realizable)
    export["requirements"].append(requirement("V-cruise", "(H (cruising -> (speed >= 40.0)))"))  # 50, 40, 30
    (component,) = realize_export(json.dumps(export), timeout=60).components
    assert isinstance(component.verdict, Realizable)
    steady = requirement("V-steady", "(H ((mode = FAST) -> (! cruising)))")  # a free `cruising` could be false
    (component,) = realize_export(
        json.dumps(dict(export, requirements=[*export["requirements"], steady])), 60
    ).components
    assert isinstance(component.verdict, Unrealizable)
    export["requirements"].append(requirement("V-up", "(H ((! (Y TRUE)) | (gain > 0.0)))"))  # never slows
    (component,) = realize_export(json.dumps(export), timeout=60).components
    assert isinstance(component.verdict, Unrealizable)
