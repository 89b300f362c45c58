"""Rendering `ltlwit check` results: plain lines for CI logs, JSON Lines, and JUnit XML.

Text: one line per spec, `PASS|FAIL|UNKNOWN|ERROR NAME (FILE:LINE): details`, vacuity findings
indented below their spec, a summary line last. JSON Lines: `{"kind": "spec", ...}` per spec
and, with --vacuity, `{"kind": "conjunction", ...}` per file, every key always present.
JUnit: a <testsuite> per spec file, a <testcase> per spec (and per conjunction); fail and
vacuous specs are <failure>s, unknown and unreadable ones <error>s.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any, Iterable

from ltlwit.env import Environment
from ltlwit.output import Printer, render_witness
from ltlwit.specs.run import ConjunctionResult, SpecResult
from ltlwit.specs.vacuity import Finding

_COLORS = {"PASS": "green", "FAIL": "red", "UNKNOWN": "yellow", "ERROR": "red", "VACUOUS": "red",
           "UNDECIDED": "yellow"}


def _text(witness: object) -> str | None:
    return render_witness(witness, "spot") if witness is not None else None  # type: ignore[arg-type]


def finding_text(f: Finding) -> str:
    occ = f.occurrence
    which = f"occurrence {occ.nth} of {occ.ap!r}"
    value = "true" if f.value else "false"
    if f.undecided:
        return f"{which}: undecided whether it can be {value} ({f.reason})"
    return f"{which} can be {value}: the specs imply {f.replaced.to_str('spot')}"


class CheckPrinter(Printer):
    def __init__(self, env: Environment) -> None:
        super().__init__(env)
        self.counts: Counter[str] = Counter()

    def emit(self, result: SpecResult | ConjunctionResult) -> None:
        if isinstance(result, SpecResult):
            self.counts[result.status] += 1
            self.counts["vacuity:" + (result.vacuity or "")] += 1
        else:
            self.counts["together:" + result.status] += 1
        if result.status == "error":
            self.problem(result)
        self.render(result)

    def render(self, result: SpecResult | ConjunctionResult) -> None:
        raise NotImplementedError

    def summary(self) -> None:
        return None


class CheckText(CheckPrinter):
    def render(self, result: SpecResult | ConjunctionResult) -> None:
        word = result.status.upper()
        if isinstance(result, ConjunctionResult):
            label = f"(all {result.count} specs of {result.item.file} together)"
            detail = ("jointly satisfiable, witness " + (_text(result.witness) or "?") if result.status == "pass"
                      else result.error_text if result.status == "error" else result.message)
            self.data(f"{self._status_word(word, _COLORS[word])} {label}: {detail}")
            return
        spec = result.spec
        label = spec.name + f" ({spec.where})" if spec.name else spec.where
        self.data(f"{self._status_word(word, _COLORS[word])} {label}: {self._detail(result)}")
        for f in result.findings:
            tag = "UNDECIDED" if f.undecided else "VACUOUS"
            self.data(f"  {self._status_word(tag, _COLORS[tag])} {finding_text(f)}")

    def _detail(self, r: SpecResult) -> str:
        if r.status == "error":
            return r.error_text or "error"
        if r.status == "unknown":
            return f"expected {r.spec.expect}, no answer: {r.message}"
        if r.verdict == "valid":
            return "valid"
        if r.verdict == "invalid":
            return f"{r.message}: {_text(r.counterexample)}"
        text = f"{r.verdict}, witness {_text(r.witness)}" if r.witness is not None else str(r.verdict)
        return f"{r.message}; {text}" if r.status == "fail" else text

    def summary(self) -> None:
        c = self.counts
        total = sum(c[s] for s in ("pass", "fail", "unknown", "error"))
        line = f"{total} specs: {c['pass']} passed, {c['fail']} failed, {c['unknown']} unknown, {c['error']} errors"
        if c["vacuity:clean"] + c["vacuity:vacuous"] + c["vacuity:undecided"]:
            line += f"; vacuity: {c['vacuity:vacuous']} vacuous, {c['vacuity:undecided']} undecided"
        if c["together:fail"]:  # specs that pass one by one can still contradict each other
            line += f"; {c['together:fail']} file(s) whose specs contradict each other"
        if c["together:unknown"] + c["together:error"]:
            line += f"; {c['together:unknown'] + c['together:error']} file(s) not known to hold together"
        self.data(line)


class CheckJson(CheckPrinter):
    def render(self, result: SpecResult | ConjunctionResult) -> None:
        self.data(json.dumps(record(result), ensure_ascii=False))


def record(result: SpecResult | ConjunctionResult) -> dict[str, Any]:
    if isinstance(result, ConjunctionResult):
        return {"kind": "conjunction", "file": result.item.file, "specs": result.count, "status": result.status,
                "witness": _text(result.witness), "reason": result.message if result.status != "error" else None,
                "error": result.error_text, "time_ms": result.time_ms}
    spec = result.spec
    return {
        "kind": "spec", "name": spec.name, "file": spec.file, "line": spec.line or None,
        "formula": spec.formula or None, "expect": spec.expect, "status": result.status,
        "verdict": result.verdict, "witness": _text(result.witness),
        "counterexample": _text(result.counterexample), "source": result.source,
        "reason": result.message if result.status in ("fail", "unknown") else None,
        "error": result.error_text, "time_ms": result.time_ms, "vacuity": result.vacuity,
        "findings": [{"ap": f.occurrence.ap, "occurrence": f.occurrence.nth, "polarity": f.occurrence.polarity,
                      "replacement": f.value, "implied": f.replaced.to_str("spot"),
                      "status": "undecided" if f.undecided else "vacuous", "reason": f.reason}
                     for f in result.findings],
    }


def check_printer(fmt: str, env: Environment) -> CheckPrinter:
    return CheckJson(env) if fmt == "json" else CheckText(env)


def junit_xml(results: Iterable[SpecResult | ConjunctionResult]) -> bytes:
    """A JUnit XML report: one <testsuite> per spec file, in the order the files came."""
    suites: dict[str, ET.Element] = {}
    root = ET.Element("testsuites", name="ltlwit check")
    for result in results:
        file = result.item.file
        suite = suites.get(file)
        if suite is None:
            suite = suites[file] = ET.SubElement(root, "testsuite", name=file)
        case = ET.SubElement(suite, "testcase", classname=file, time=f"{result.time_ms / 1000:.6f}")
        if isinstance(result, ConjunctionResult):
            case.set("name", f"all {result.count} specs together are satisfiable")
            _outcome(case, result.status, result.message, result.error_text, "inconsistent", None)
            continue
        spec = result.spec
        case.set("name", spec.label)
        if spec.line:
            case.set("file", spec.file)
            case.set("line", str(spec.line))
        detail = _text(result.witness) or _text(result.counterexample)
        _outcome(case, result.status, result.message, result.error_text, "expectation", detail)
        if result.status == "pass" and result.vacuity_failed:
            failure = ET.SubElement(case, "failure", type="vacuity",
                                    message=f"{result.vacuity}: {finding_text(result.findings[0])}")
            failure.text = "\n".join(finding_text(f) for f in result.findings)
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


def _outcome(case: ET.Element, status: str, message: str | None, error: str | None, kind: str,
             detail: str | None) -> None:
    if status == "fail":
        ET.SubElement(case, "failure", type=kind, message=message or "failed").text = detail
    elif status == "unknown":
        ET.SubElement(case, "error", type="unknown", message=f"no answer: {message}")
    elif status == "error":
        ET.SubElement(case, "error", type="error", message=error or "error")
