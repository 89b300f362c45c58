"""`ltlwit check` results as data for machines: JSON records and JUnit XML (the CLI's text
lines are `ltlwit.cli.check`'s).

JSON: `{"kind": "spec", ...}` per spec and, with --vacuity, `{"kind": "conjunction", ...}` per
file, every key always present. JUnit: a <testsuite> per spec file, a <testcase> per spec (and
per conjunction); fail and vacuous specs are <failure>s, unknown and unreadable ones <error>s.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Iterable

from ltlwit.logic.witness import Witness
from ltlwit.pipeline.answers import plural
from ltlwit.specs.files import Spec
from ltlwit.specs.run import ConjunctionResult, RealizabilityResult, Redundancy, SpecResult
from ltlwit.specs.similar import Neighbour
from ltlwit.specs.vacuity import Finding, Vacuity


def witness_text(witness: Witness | None) -> str | None:
    return witness.to_str("spot") if witness is not None else None


def finding_text(f: Finding) -> str:
    occ = f.occurrence
    which = f"occurrence {occ.nth} of {occ.ap!r}" + (f" in its {occ.in_part}" if occ.in_part else "")
    value = "true" if f.value else "false"
    if f.undecided:
        return f"{which}: undecided whether it can be {value} ({f.reason})"
    if occ.part is not None:  # a part of a template's formula (a FRET requirement's condition)
        what = occ.in_part or "part"
        return f"{which} can be {value}: the specs imply it with its {what} {f.replaced.to_str('spot')}"
    return f"{which} can be {value}: the specs imply {f.replaced.to_str('spot')}"


def unchecked_text(vacuity: Vacuity) -> str:
    return f"{plural(vacuity.unchecked, 'occurrence')} not checked: its --timeout ran out before their questions"


def redundancy_text(redundancy: Redundancy) -> str:
    if redundancy.state == "undecided":
        why = f": {redundancy.reason}" if redundancy.reason else ""
        return f"undecided whether the other requirements imply it{why}"
    if not redundancy.implied_by:
        return "valid: every trace satisfies it, whatever the other requirements say"
    names = ", ".join(s.cited for s in redundancy.implied_by)
    return f"implied by {names}" + ("" if redundancy.minimal else " (not proven minimal)")


def _refs(specs: Iterable[Spec]) -> list[dict[str, Any]]:
    return [{"name": s.name, "line": s.line or None} for s in specs]


def record(result: SpecResult | ConjunctionResult | RealizabilityResult) -> dict[str, Any]:
    """A result as a JSON record (module docstring), every key of its kind present whatever
    its value, so that a reader need not ask whether one is there."""
    if isinstance(result, RealizabilityResult):
        return _realizability_record(result)
    return _conjunction_record(result) if isinstance(result, ConjunctionResult) else _spec_record(result)


def _realizability_record(result: RealizabilityResult) -> dict[str, Any]:
    """A component's realizability: its verdict, strategy and play, conflicts by spec name."""
    verdict = result.verdict
    machine = getattr(verdict, "controller", None) or getattr(verdict, "counter_strategy", None)
    play = getattr(verdict, "play", None)
    return {
        "kind": "realizability",
        "file": result.item.file,
        "component": result.component or None,
        "specs": list(result.requirements),
        "outputs": list(result.outputs),
        "status": result.status,
        "verdict": {"pass": "realizable", "fail": "unrealizable", "unknown": "unknown"}.get(result.status),
        "strategy": machine.to_dict() if machine is not None else None,
        "play": str(play) if play is not None else None,
        "conflicts": [list(c) for c in result.conflicts] or None,
        "corrections": [list(c) for c in result.corrections] or None,
        "complete": result.complete,
        "reason": result.message if result.status != "error" else None,
        "error": result.error_text,
        "time_ms": result.time_ms,
    }


def _conjunction_record(result: ConjunctionResult) -> dict[str, Any]:
    """Whether a file's requirements (a FRET project's) hold together, the specs of a conflict
    named by name and line: what a reader finds them by in the file."""
    return {
        "kind": "conjunction",
        "file": result.item.file,
        "group": result.group,
        "specs": result.count,
        "status": result.status,
        "witness": witness_text(result.witness),
        "reason": result.message if result.status != "error" else None,
        "error": result.error_text,
        "time_ms": result.time_ms,
        "conflict": _refs(result.conflict) or None,
        "conflict_minimal": result.conflict_minimal,
        "conflicts": [_refs(c) for c in result.conflicts] or None,
        "corrections": [_refs(c) for c in result.corrections] or None,
        "complete": result.complete,
    }


def _spec_record(result: SpecResult) -> dict[str, Any]:
    """A spec's own verdict and what the questions about its file's specs together found of it,
    each check's record flattened into the keys a reader knows (`core_minimal`: the scenario's
    core's, or the redundant requirement's)."""
    spec, core, vacuity, redundancy = result.spec, result.core, result.vacuity, result.redundancy
    findings = vacuity.findings if vacuity is not None else []
    return {
        "kind": "spec",
        "name": spec.name,
        "file": spec.file,
        "line": spec.line or None,
        "formula": spec.formula or None,
        "expect": spec.expect,
        "status": result.status,
        "verdict": result.verdict,
        "witness": witness_text(result.witness),
        "counterexample": witness_text(result.counterexample),
        "source": result.source,
        "reason": result.message if result.status in ("fail", "unknown") else None,
        "error": result.error_text,
        "time_ms": result.time_ms,
        "fires": result.firing.fires if result.firing is not None else None,
        "vacuity": vacuity.state if vacuity is not None else None,
        "unchecked": (vacuity.unchecked if vacuity is not None else 0) or None,
        "core": _refs(core.requirements if core is not None else ()) or None,
        "core_minimal": core.minimal if core is not None else redundancy.minimal if redundancy is not None else None,
        "redundancy": redundancy.state if redundancy is not None else None,
        "implied_by": _refs(redundancy.implied_by if redundancy is not None else ()) or None,
        "redundancy_reason": redundancy.reason if redundancy is not None else None,
        "similar": [_neighbour_record(n) for n in result.similar] if result.similar is not None else None,
        "acknowledged": list(result.acknowledgments.covered) or None,
        "stale": list(result.acknowledgments.stale) or None,
        "findings": [_finding_record(f, result.is_acknowledged(f.key)) for f in findings],
    }


def _neighbour_record(n: Neighbour) -> dict[str, Any]:
    return {
        "name": n.entry.name,
        "where": n.entry.where,
        "formula": n.entry.text,
        "similarity": round(n.similarity, 4),
        "relation": n.related.relation.value,
        "reason": n.related.reason,
    }


def similar_text(n: Neighbour) -> str:
    """A neighbour as a line under its requirement names it: its relation to the requirement
    first (`implied by r3`: r3 implies it), then the neighbour, its text, the similarity."""
    said = _RELATIONS.get(n.related.relation.value, n.related.relation.value)
    reason = f" ({n.related.reason})" if n.related.reason else ""
    return f"{said} {n.entry.label}: {n.entry.text} (similarity {n.similarity:.2f}){reason}"


#: A neighbour's relation to a requirement, as a line under it says it.
_RELATIONS = {
    "equivalent": "equivalent to",
    "stronger": "implied by",
    "weaker": "implies",
    "overlapping": "overlaps",
    "disjoint": "contradicts",
    "undecided": "undecided against",
}


def _finding_record(f: Finding, acknowledged: bool) -> dict[str, Any]:
    """A vacuity finding; `acknowledged`: whether its spec acknowledges it, which the finding
    itself does not know, and then it does not fail the check."""
    return {
        "ap": f.occurrence.ap,
        "occurrence": f.occurrence.nth,
        "part": f.occurrence.in_part,
        "polarity": f.occurrence.polarity,
        "replacement": f.value,
        "implied": f.replaced.to_str("spot"),
        "status": "undecided" if f.undecided else "vacuous",
        "reason": f.reason,
        "acknowledged": acknowledged,
    }


def junit_xml(results: Iterable[SpecResult | ConjunctionResult | RealizabilityResult]) -> bytes:
    """A JUnit XML report: one <testsuite> per spec file, in the order the files came."""
    suites: dict[str, ET.Element] = {}
    root = ET.Element("testsuites", name="ltlwit check")
    for result in results:
        file = result.item.file
        suite = suites.get(file)
        if suite is None:
            suite = suites[file] = ET.SubElement(root, "testsuite", name=file)
        case = ET.SubElement(suite, "testcase", classname=file, time=f"{result.time_ms / 1000:.6f}")
        if isinstance(result, RealizabilityResult):
            names = ", ".join(result.requirements)
            case.set(
                "name", f"{result.component or 'the requirements'} is realizable" + (f" ({names})" if names else "")
            )
            conflicts = "; ".join(", ".join(c) for c in result.conflicts)
            detail = f"minimal conflicts: {conflicts}" if conflicts else None
            _outcome(case, result.status, result.message or "unrealizable", result.error_text, "unrealizable", detail)
            continue
        if isinstance(result, ConjunctionResult):
            of = f" of project {result.group}" if result.group else ""
            case.set("name", f"all {plural(result.count, 'spec')}{of} together are satisfiable")
            _outcome(case, result.status, result.message, result.error_text, "inconsistent", None)
            continue
        spec = result.spec
        case.set("name", spec.label)
        if spec.line:
            case.set("file", spec.file)
            case.set("line", str(spec.line))
        detail = witness_text(result.witness) or witness_text(result.counterexample)
        _outcome(case, result.status, result.message, result.error_text, "expectation", detail)
        if result.status == "pass":
            _findings_failures(case, result)
        if result.status == "pass" and detail:
            ET.SubElement(case, "system-out").text = f"{result.verdict}: {detail}"
    for suite in suites.values():
        cases = suite.findall("testcase")
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
        suite.set("skipped", "0")
        suite.set("time", f"{sum(float(c.get('time', 0)) for c in cases):.6f}")
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def _findings_failures(case: ET.Element, result: SpecResult) -> None:
    """A passing spec's failures for what its file's joint checks found and no acknowledgment
    covers, and for the acknowledgments that match nothing."""
    if result.vacuity is not None and result.vacuity_failed:
        new = [finding_text(f) for f in result.vacuity.findings if not result.is_acknowledged(f.key)]
        if result.vacuity.unchecked:  # its --timeout ran out before some questions
            new.append(unchecked_text(result.vacuity))
        failure = ET.SubElement(case, "failure", type="vacuity", message=f"{result.vacuity.state}: {new[0]}")
        failure.text = "\n".join(new)
    if result.redundancy is not None and result.redundancy_failed:
        ET.SubElement(case, "failure", type="redundancy", message=redundancy_text(result.redundancy))
    if result.acknowledgments.stale:
        ET.SubElement(
            case,
            "failure",
            type="stale-acknowledgment",
            message="acknowledgments that match no finding: " + ", ".join(result.acknowledgments.stale),
        )


def _outcome(
    case: ET.Element, status: str, message: str | None, error: str | None, kind: str, detail: str | None
) -> None:
    if status == "fail":
        ET.SubElement(case, "failure", type=kind, message=message or "failed").text = detail
    elif status == "unknown":
        ET.SubElement(case, "error", type="unknown", message=f"no answer: {message}")
    elif status == "error":
        ET.SubElement(case, "error", type="error", message=error or "error")
