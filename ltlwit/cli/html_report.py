"""`--html FILE` (solve and check): one self-contained HTML page, no scripts and nothing
fetched, a section per answer: the formula as written with the parts that matter highlighted
(a core's conjuncts, a vacuous occurrence), the verdict, the witness as text and as a timing
diagram (`ltlwit.logic.waveform.svg`: the loop's passes shaded, its start marked)."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from ltlwit.logic.trace import Trace

_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}
section{border-top:1px solid #ddd;padding:.6em 0}
code{font-family:monospace;background:#f6f6f6;padding:.1em .3em}
mark{background:#ffd6d6}
.pass,.sat{color:#17803d}.fail,.unsat,.error{color:#b42318}.unknown{color:#a15c07}
.diagram{overflow-x:auto;margin:.4em 0}"""


class HtmlReport:
    """The answers of a run, written as one page at its end (`write`)."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.sections: list[str] = []

    def solution(self, solution: Any) -> None:
        """A `solve` answer: a core's conjuncts highlighted where their columns are known."""
        text = solution.item.text
        spans = []
        core = solution.core
        if core is not None and core.spans is not None:
            spans = [core.spans[i] for i in core.members]
        label = getattr(solution.item, "name", None) or solution.item.where
        self._section(label, solution.status, _marked(text, spans), solution.witness, solution.message)

    def spec(self, result: Any) -> None:
        """A `check` result: vacuous occurrences highlighted, conflicts listed."""
        from ltlwit.specs.run import ConjunctionResult, RealizabilityResult

        if isinstance(result, RealizabilityResult):
            what = {"pass": "realizable", "fail": "unrealizable"}.get(result.status, result.status)
            conflicts = "; ".join(", ".join(escape(n) for n in c) for c in result.conflicts)
            detail = f"{what}; minimal conflicts: {conflicts}" if conflicts else what
            if result.message:
                detail += f" ({escape(result.message)})"
            self._section(
                f"{result.component or 'the requirements'} of {result.item.file}: {', '.join(result.requirements)}",
                result.status,
                "",
                getattr(result.verdict, "play", None),
                detail,
            )
            return
        if isinstance(result, ConjunctionResult):
            names = ", ".join(escape(s.name or s.where) for s in result.conflict)
            detail = f"conflict: {names}" if names else (result.message or "")
            self._section(
                f"all {result.count} specs of {result.item.file} together", result.status, "", result.witness, detail
            )
            return
        spec = result.spec
        findings = result.vacuity.findings if result.vacuity is not None else []
        occurrences = [(f.occurrence.ap, f.occurrence.nth) for f in findings]
        self._section(
            spec.label,
            result.status,
            _marked(spec.formula, _occurrence_spans(spec.formula, occurrences)),
            result.witness or result.counterexample,
            result.message or result.verdict,
        )

    def _section(self, label: str, status: str, formula: str, witness: Any, detail: str | None) -> None:
        from ltlwit.logic.waveform import svg

        parts = [f'<section><h3>{escape(label)} <span class="{escape(status)}">{escape(status.upper())}</span></h3>']
        if formula:
            parts.append(f"<p><code>{formula}</code></p>")
        if detail:
            parts.append(f"<p>{escape(str(detail))}</p>")
        if witness is not None:
            parts.append(f"<p>witness: <code>{escape(witness.to_str('spot'))}</code></p>")
            if isinstance(witness, Trace):
                parts.append(f'<div class="diagram">{svg(witness)}</div>')
        parts.append("</section>")
        self.sections.append("".join(parts))

    def write(self, path: str) -> None:
        page = (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(self.title)}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{escape(self.title)}</h1>\n"
            + "\n".join(self.sections)
            + "\n</body></html>\n"
        )
        # an argument's bytes that are not UTF-8 (surrogates in Python) written as \udcXX,
        # as messages show them: the page says it is UTF-8
        with open(path, "w", encoding="utf-8", errors="backslashreplace") as out:
            out.write(page)


def _marked(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` escaped, the 0-based [start, end) `spans` in <mark>."""
    out, at = [], 0
    for start, end in sorted(spans):
        if start < at:
            continue
        out.append(escape(text[at:start]) + "<mark>" + escape(text[start:end]) + "</mark>")
        at = end
    return "".join(out) + escape(text[at:])


def _occurrence_spans(text: str, occurrences: list[tuple[str, int]]) -> list[tuple[int, int]]:
    """Where the nth occurrence of each AP is written (as a whole word), as far as the text
    shows it."""
    spans = []
    for name, nth in occurrences:
        found = [m.span() for m in re.finditer(rf"(?<![\w\"]){re.escape(name)}(?![\w\"])", text)]
        if len(found) >= nth:
            spans.append(found[nth - 1])
    return spans
