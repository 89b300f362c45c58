"""Witnesses that show a requirement act (its trigger firing), FRET's requirements read as their
authors wrote them (vacuity over their own parts), and a check's whole-run budget."""

from __future__ import annotations

import json

from cli_support import json_lines, run

import ltlwit

#: FRET's templates for "when C, the system shall immediately satisfy R" and "when C, the
#: system shall until S satisfy R", as FRET exports them (`ptExpanded` is the template filled
#: and simplified).
_WHEN = "(H (($regular_condition_SMV_pt$ & (Z (! $regular_condition_SMV_pt$))) -> $post_condition_SMV_pt$))"
_UNTIL = (
    "(H ((H (! $regular_condition_SMV_pt$)) | (((! $stop_condition_SMV_pt$) S ((! $stop_condition_SMV_pt$) & "
    "($regular_condition_SMV_pt$ & (Z (! $regular_condition_SMV_pt$))))) -> $post_condition_SMV_pt$)))"
)


def _requirement(reqid: str, template: str, **slots: str) -> dict:
    filled = template
    for name, text in slots.items():
        filled = filled.replace(f"${name}_SMV_pt$", text)
    semantics = {
        "condition": "regular" if "regular_condition" in slots else "null",
        "scope": {"type": "null"},
        "ptExpanded_fetched": template,
        "ptExpanded": filled,
        "component_name": "mixer",
    }
    semantics.update({f"{name}_SMV_pt": text for name, text in slots.items()})
    return {"reqid": reqid, "fulltext": reqid, "semantics": semantics}


def _export(tmp_path, requirements: list[dict]):
    path = tmp_path / "mixer.json"
    path.write_text(json.dumps({"requirements": requirements, "variables": []}, indent=1))
    return path


def test_a_requirement_s_witness_fires_its_trigger() -> None:
    report = ltlwit.check(["resp: G(req -> F grant)", "idle: G(req -> !busy)"], fire=True, model="none")
    for result in report.results:
        assert result.firing is not None and result.firing.fires is True
        assert ltlwit.verify("F req", result.witness)  # the trigger holds somewhere
        assert ltlwit.verify(result.spec.formula, result.witness)
    plain = ltlwit.check(["resp: G(req -> F grant)"], model="none").results[0]
    assert plain.firing is None and not ltlwit.verify("F req", plain.witness)  # not asked: the least witness


def test_a_trigger_that_cannot_fire_is_said_so(tmp_path) -> None:
    path = tmp_path / "s.spec"
    path.write_text("never: G((req & !req) -> F grant)\nr: G((req & G !ack) -> X ack)\n")
    records = json_lines(run("check", "--fire", "--format", "json", str(path)).stdout)
    assert [(r["status"], r["fires"]) for r in records] == [("pass", False), ("pass", False)]
    text = run("check", "--fire", str(path)).stdout.splitlines()
    assert text[1].startswith("PASS r (")
    assert text[1].endswith("(its trigger never fires: no trace of it has F(req & G!ack))"), text[1]


def test_fret_requirements_fire_by_default(tmp_path) -> None:
    path = _export(
        tmp_path,
        [
            _requirement("LM-012", _WHEN, regular_condition="emergency_button", post_condition="(! stirring_motor)"),
            _requirement(
                "LM-006",
                _UNTIL,
                regular_condition="liquid_level_2",
                stop_condition="(timer_60sec_expire | emergency_button)",
                post_condition="stirring_motor",
            ),
            _requirement(
                "LM-001", _WHEN, regular_condition="start_button", post_condition="((! liquid_level_1) -> valve_0)"
            ),
        ],
    )
    records = json_lines(run("check", "--format", "json", str(path)).stdout)
    assert [r["fires"] for r in records] == [True, True, True]
    triggers = ["F emergency_button", "F liquid_level_2", "F(start_button & !liquid_level_1)"]
    for record, trigger in zip(records, triggers):
        assert ltlwit.verify(trigger, record["witness"], semantics="finite"), (trigger, record["witness"])
    quiet = json_lines(run("check", "--no-fire", "--format", "json", str(path)).stdout)
    assert [r["fires"] for r in quiet] == [None, None, None]


def test_fret_vacuity_is_of_the_author_s_parts(tmp_path) -> None:
    """FRET's until template copies the condition into `H(!cond)`, which replaced by `true`
    makes the requirement stronger at no cost: reported on every such requirement, it was
    FRET's noise. The author's own parts are the candidates, each occurrence replaced in every
    copy: none is vacuous here; with `G !liquid_level_2` beside it, the condition is."""
    until = _requirement(
        "LM-006",
        _UNTIL,
        regular_condition="liquid_level_2",
        stop_condition="(timer_60sec_expire | emergency_button)",
        post_condition="stirring_motor",
    )
    when = _requirement("LM-012", _WHEN, regular_condition="emergency_button", post_condition="(! stirring_motor)")
    path = _export(tmp_path, [until, when])
    result = run("check", "--vacuity", "--format", "json", str(path))
    assert [r.get("vacuity") for r in json_lines(result.stdout)[1:]] == ["clean", "clean"], result.stdout
    never = {"reqid": "NEVER", "semantics": {"ptExpanded": "(H (! liquid_level_2))", "component_name": "mixer"}}
    path = _export(tmp_path, [until, when, never])
    records = json_lines(run("check", "--vacuity", "--format", "json", str(path)).stdout)
    assert [(f["ap"], f["part"]) for f in records[1]["findings"]] == [  # it never acts: all of it
        ("liquid_level_2", "condition"),
        ("timer_60sec_expire", "stop condition"),
        ("emergency_button", "stop condition"),
        ("stirring_motor", "response"),
    ]
    assert records[3]["vacuity"] == "clean"


def test_a_spent_budget_leaves_the_joint_questions_unknown() -> None:
    """Each question gets what is left of the run's budget: none left, the joint verdict is
    UNKNOWN for the budget, not asked."""
    report = ltlwit.check(["resp: G(req -> F grant)", "quiet: G !req"], consistency=True, model="none", budget=1e-9)
    joint, *specs = report.results
    assert joint.status == "unknown" and "budget" in joint.message
    assert all(r.status == "unknown" for r in specs)
