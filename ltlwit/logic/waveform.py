"""Traces as waveforms: Value Change Dump (IEEE 1364's VCD, read by GTKWave and every waveform
viewer) and SVG timing diagrams (`ltlwit solve --format vcd`, `--html`).

A witness is a trace of steps; each step a conjunction of literals and, over data, values
(`x = 3`). A proposition a step leaves free is drawn unknown (`x` in VCD, a hatched band in
SVG): every value there satisfies the formula. A lasso is unrolled `passes` times through its
loop; the signal `loop` is 1 at the first instant of each pass, so the loop's start is marked
in the viewer.
"""

from __future__ import annotations

from fractions import Fraction
from html import escape
from typing import TYPE_CHECKING, Sequence

from ltlwit.logic.formula import Formula, conjuncts
from ltlwit.logic.trace import Trace

if TYPE_CHECKING:  # the theory loads with the first formula over data
    from ltlwit.logic.theory.terms import Term

#: Passes through a lasso's loop a waveform shows.
PASSES = 2

Value = bool | int | Fraction | str | None


def instants(trace: Trace, passes: int = PASSES) -> tuple[list[Formula], list[bool]]:
    """The steps at each instant (a lasso unrolled `passes` times) and where a pass through the
    loop starts."""
    steps = list(trace.prefix) + list(trace.cycle) * (passes if trace.cycle else 0)
    starts = [
        bool(trace.cycle) and i >= len(trace.prefix) and (i - len(trace.prefix)) % len(trace.cycle) == 0
        for i in range(len(steps))
    ]
    return steps, starts


def values(step: Formula) -> dict[str, Value]:
    """A step's propositions (True/False) and data values (`x = 3`: 3), by name."""
    out: dict[str, Value] = {}
    for c in conjuncts(step):
        negated = c.op == "!"
        leaf = c.children[0] if negated else c
        if leaf.name is not None:  # an AP
            out[leaf.name] = not negated
        elif leaf.term is not None and not negated and leaf.term.op == "=" and leaf.term.children[0].op == "var":
            variable, right = leaf.term.children
            out[variable.symbol] = _constant(right)
    return out


def _constant(term: Term) -> Value:
    if term.op == "num":
        return term.value if term.decimal or term.value.denominator != 1 else int(term.value)
    if term.op == "neg":
        inner = _constant(term.children[0])
        return -inner if isinstance(inner, (int, Fraction)) else inner
    if term.op == "/":
        a, b = (_constant(c) for c in term.children)
        return Fraction(a) / Fraction(b) if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)) else None
    return term.name if term.op == "var" else None


def signals(traces: Sequence[Trace]) -> list[str]:
    """Every name any step of the traces gives a value, in order of first appearance."""
    seen: dict[str, None] = {}
    for trace in traces:
        for step in trace.steps:
            for name in values(step):
                seen.setdefault(name, None)
    return list(seen)


def vcd(
    scopes: Sequence[tuple[str, Trace]], passes: int = PASSES, date: str | None = None, comments: Sequence[str] = ()
) -> str:
    """One VCD document with a scope per trace (`scopes`: name, trace), one time unit per
    instant; propositions are 1-bit wires, integers 64-bit integers, other values reals
    (rationals as floats: VCD has no exact ones), enumeration values strings."""
    lines = [f"$date {date or 'ltlwit'} $end", "$version ltlwit $end", "$timescale 1 ns $end"]
    lines += [f"$comment {c} $end" for c in comments]
    ids: list[dict[str, str]] = []
    kinds: list[dict[str, str]] = []
    counter = 0
    for name, trace in scopes:
        steps, _ = instants(trace, passes)
        lines.append(f"$scope module {_vcd_name(name)} $end")
        mine, kind = {"loop": _id(counter)}, {"loop": "wire"}
        counter += 1
        lines.append(f"$var wire 1 {mine['loop']} loop $end")
        for sig in signals([trace]):
            seen = [values(s).get(sig) for s in steps]
            kind[sig] = (
                "wire"
                if all(v is None or isinstance(v, bool) for v in seen)
                else "integer"
                if all(v is None or isinstance(v, int) and not isinstance(v, bool) and abs(v) < 1 << 63 for v in seen)
                else "string"
                if any(isinstance(v, str) for v in seen)
                else "real"
            )
            mine[sig] = _id(counter)
            counter += 1
            width = {"wire": 1, "integer": 64, "real": 64, "string": 1}[kind[sig]]
            lines.append(f"$var {kind[sig]} {width} {mine[sig]} {_vcd_name(sig)} $end")
        lines.append("$upscope $end")
        ids.append(mine)
        kinds.append(kind)
    lines.append("$enddefinitions $end")
    length = max((len(instants(t, passes)[0]) for _, t in scopes), default=0)
    last: list[dict[str, str]] = [{} for _ in scopes]
    for time in range(length + 1):
        changes = []
        for k, (_, trace) in enumerate(scopes):
            steps, starts = instants(trace, passes)
            if time > len(steps):
                continue
            now = values(steps[time]) if time < len(steps) else {}
            for sig, code in ids[k].items():
                if time == len(steps):  # after the trace: unknown
                    text = _vcd_value(None, kinds[k][sig], code)
                elif sig == "loop":
                    text = _vcd_value(starts[time], "wire", code)
                else:
                    text = _vcd_value(now.get(sig), kinds[k][sig], code)
                if last[k].get(sig) != text:
                    changes.append(text)
                    last[k][sig] = text
        if changes:
            lines.append(f"#{time}")
            lines.extend(changes)
    return "\n".join(lines) + "\n"


def _id(n: int) -> str:
    """VCD identifier codes: printable ASCII from `!`."""
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 94)
        out = chr(33 + r) + out
    return out


def _vcd_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_." else "_" for c in name) or "_"


def _vcd_value(value: Value, kind: str, code: str) -> str:
    if kind == "wire":
        return ("x" if value is None else "1" if value else "0") + code
    if kind == "integer":
        if not isinstance(value, int):  # (an integer column's values are ints)
            return "bx " + code
        return ("b" + format(value, "b") if value >= 0 else "b" + format((1 << 64) + value, "064b")) + " " + code
    if kind == "string":
        return "s" + ("x" if value is None else str(value)) + " " + code
    return ("r" + ("nan" if value is None else repr(float(value)))) + " " + code


def svg(trace: Trace, passes: int = PASSES, highlight: Sequence[str] = ()) -> str:
    """A timing diagram of one trace: a row per signal (propositions high or low, values as
    labelled segments, free ones hatched), a column per instant, the loop's passes shaded."""
    steps, starts = instants(trace, passes)
    names = signals([trace])
    col, row, left = 48, 28, 12 + 8 * max([len(n) for n in names] + [4])
    width, height = left + col * len(steps) + 12, 30 + row * len(names) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="monospace" font-size="12">',
        '<defs><pattern id="free" width="6" height="6" patternUnits="userSpaceOnUse">'
        '<path d="M0 6 L6 0" stroke="#bbb"/></pattern></defs>',
    ]
    for i in range(len(steps)):
        x = left + col * i
        if trace.cycle and i >= len(trace.prefix):
            out.append(f'<rect x="{x}" y="18" width="{col}" height="{height - 18}" fill="#f2f6ff"/>')
        if starts[i]:
            out.append(
                f'<line x1="{x}" y1="14" x2="{x}" y2="{height}" stroke="#36c" stroke-dasharray="3,2"/>'
                f'<text x="{x + 2}" y="12" fill="#36c">loop</text>'
            )
        out.append(f'<text x="{x + col / 2 - 4}" y="{height - 2 if not names else 26}" fill="#888">{i}</text>')
    for r, name in enumerate(names):
        y = 30 + row * r
        color = "#c33" if name in highlight else "#222"
        out.append(f'<text x="4" y="{y + 17}" fill="{color}">{escape(name)}</text>')
        for i, step in enumerate(steps):
            x = left + col * i
            v = values(step).get(name)
            if v is None:
                out.append(f'<rect x="{x}" y="{y + 4}" width="{col}" height="{row - 8}" fill="url(#free)"/>')
            elif isinstance(v, bool):
                level = y + 5 if v else y + row - 5
                out.append(
                    f'<line x1="{x}" y1="{level}" x2="{x + col}" y2="{level}" stroke="{color}" stroke-width="2"/>'
                )
                if i and isinstance(values(steps[i - 1]).get(name), bool) and values(steps[i - 1]).get(name) != v:
                    out.append(
                        f'<line x1="{x}" y1="{y + 5}" x2="{x}" y2="{y + row - 5}" stroke="{color}" stroke-width="2"/>'
                    )
            else:
                out.append(
                    f'<rect x="{x + 1}" y="{y + 5}" width="{col - 2}" height="{row - 10}" fill="none" '
                    f'stroke="{color}"/><text x="{x + 4}" y="{y + 18}">{escape(_short(v))}</text>'
                )
    out.append("</svg>")
    return "\n".join(out)


def _short(v: Value) -> str:
    text = str(v) if not isinstance(v, Fraction) or v.denominator == 1 else f"{float(v):.3g}"
    return text if len(text) <= 6 else text[:5] + "…"
