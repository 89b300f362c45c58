"""A witness over data as a table, for the text a person reads (`check`'s lines, `solve`'s
table on a terminal), where its one line would be too long to read: a FRET project's joint
witness gives 170 variables their values in 4,400 characters.

The longer side of the table runs down the screen, which a terminal and a CI log scroll, and
the shorter across, which they wrap: a row per variable and a column per instant when the
witness has at least as many variables as instants (a requirements set's, mostly), else a row
per instant and a column per variable (a long run over a few counters). Propositions read
`true`/`false`, a value a step leaves open `any`; an uninterpreted function's table (`f(2) =
1.5`, `g(1) = false`), the same at every instant, is listed after the table, an entry a
line. A lasso says which instants repeat forever. One variable's values read well in their
line (`x = 0; x = 1; ...`), which stays. Machine formats (JSON, CSV, `solve`'s plain lines)
keep the one line: a person reads this, a program reads those.
"""

from __future__ import annotations

from ltlwit.logic.formula import Formula, conjuncts
from ltlwit.logic.trace import Trace

#: A witness whose one line is longer than this is shown as a table.
WIDE = 120
_GAP = "  "


def witness_table(witness: object, indent: str = "    ") -> list[str] | None:
    """The lines that show `witness` as a table, each starting with `indent`; None when it is
    not a trace with values, fits on a line of `WIDE` characters, is about one variable, or has
    a step that is not values alone (a symbolic step such as `a | b`)."""
    if not isinstance(witness, Trace) or not witness.data:
        return None
    if len(witness.to_str("spot")) <= WIDE:
        return None
    columns: list[dict[str, str]] = []
    rigid: dict[str, None] = {}
    for step in witness.steps:
        values = _values(step, rigid)
        if values is None:
            return None
        columns.append(values)
    names = list(dict.fromkeys(name for values in columns for name in values))
    if len(names) < 2:  # one variable's values read well in a row: `x = 0; x = 1; ...`
        return None
    cells = [[values.get(name, "any") for values in columns] for name in names]
    instants = [str(i) for i in range(len(columns))]
    if len(names) >= len(columns):
        rows = [["instant", *instants]] + [[name, *row] for name, row in zip(names, cells)]
    else:
        rows = [["instant", *names]] + [[i, *(row[k] for row in cells)] for k, i in enumerate(instants)]
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = [indent + _GAP.join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    if witness.cycle:
        first, last = len(witness.prefix), len(columns) - 1
        span = f"instant {first} repeats" if first == last else f"instants {first} to {last} repeat"
        lines.append(f"{indent}({span} forever)")
    if rigid:
        lines.append(f"{indent}functions, the same at every instant:")
        lines.extend(f"{indent}{_GAP}{entry}" for entry in rigid)
    return lines


def _values(step: Formula, rigid: dict[str, None]) -> dict[str, str] | None:
    """A step's values by the name they are of (`x` -> `2.5`, `p` -> `true`); its function
    entries go to `rigid`; None when a conjunct is no value."""
    out: dict[str, str] = {}
    for part in conjuncts(step):
        negated = part.op == "!"
        leaf = part.children[0] if negated else part
        if leaf.op == "ap":
            out[leaf.to_str("spot")] = "false" if negated else "true"
        elif leaf.term is not None and leaf.term.op == "pred":
            rigid[f"{leaf.term} = {'false' if negated else 'true'}"] = None
        elif leaf.term is not None and not negated and leaf.term.op == "=":
            left, right = leaf.term.children
            if left.op == "var":
                out[str(left)] = str(right)
            elif left.op == "call":
                rigid[part.to_str("spot")] = None
            else:
                return None
        elif part.op != "1":
            return None
    return out
