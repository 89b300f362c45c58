"""Past operators in a game: each temporal past subformula ψ becomes a proposition `m_ψ`,
"what ψ's recurrence needs of the previous instant", which the system writes, defined by

    Y f:   m false at first, X m <-> f      ψ = m
    Z f:   m true at first,  X m <-> f      ψ = m
    O f:   m false at first, X m <-> ψ      ψ = f | m
    H f:   m true at first,  X m <-> ψ      ψ = f & m
    a S b: m false at first, X m <-> ψ      ψ = b | (a & m)
    a T b: m true at first,  X m <-> ψ      ψ = b & (a | m)

(inner past subformulas replaced first). Each `m` at an instant is a function of the instants
before it, so a system can write it whatever it sees of the current one, under Mealy and Moore
semantics alike: φ is realizable exactly when `definitions ∧ φ'` is with the monitors as
outputs, and the strategies of the one are the strategies of the other (a counter-strategy
reads the monitors too: a system that writes them wrong loses by the definitions)."""

from __future__ import annotations

from ltlwit.logic.formula import PAST, TEMPORAL, And, Formula, Not, Or, ap, binop, conjuncts, postorder, transform, unop

FUTURE = TEMPORAL - PAST

#: op -> the monitor's first value
_START = {"Y": False, "Z": True, "O": False, "H": True, "S": False, "T": True}


#: a monitor's name -> (its first value, the formula whose value it takes at the next instant)
Monitors = dict[str, tuple[bool, Formula]]


def hoisted(formula: Formula) -> Formula:
    """`formula` with each `H f` that is a conjunct of an invariant (`G(... & H f)`, or of the
    consequent of `G(H a -> ... & H f)`) read as `f`: the same traces (from the first instant,
    f at every instant is H f at every instant; under `H a`, which holds at every earlier
    instant too, so is f), and no monitor to write (FRET's requirements are `H` of an
    invariant: a dozen of them made a state machine's game 20 s)."""

    def bare(f: Formula) -> Formula:
        while f.op == "H":
            f = f.children[0]
        return f

    def body(f: Formula) -> Formula:
        if f.op == "->" and f.children[0].op == "H":
            return binop("->", f.children[0], body(f.children[1]))
        parts = conjuncts(f)
        return And(*map(bare, parts)) if any(p.op == "H" for p in parts) else f

    parts = conjuncts(formula)
    if not any(p.op == "G" for p in parts):
        return formula
    return And(*(unop("G", body(p.children[0])) if p.op == "G" else p for p in parts))


def pure_past(formula: Formula) -> bool:
    """Whether no future operator stands inside a past one (`a S X b` looks ahead: its
    monitor would not be a function of the instants before)."""
    return not any(
        node.op in PAST and any(d.op in FUTURE for d in postorder(node)) for node in postorder(formula) if node.past
    )


def monitored(formula: Formula) -> tuple[Formula, Monitors]:
    """`definitions ∧ φ'` (module docstring) and the monitors, named apart from the formula's
    propositions."""
    taken = set(formula.aps())
    prefix = "_m"
    while any(name.startswith(prefix) for name in taken):
        prefix = "_" + prefix
    monitors: Monitors = {}
    definitions: list[Formula] = []

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.op not in PAST:
            return node if all(k is c for k, c in zip(kids, node.children)) else Formula(node.op, kids, node.name)
        name = f"{prefix}{len(monitors)}"
        m = ap(name)
        start = _START[node.op]
        if node.op in ("Y", "Z"):
            value, tracked = m, kids[0]
        else:
            value = {
                "O": lambda: Or(kids[0], m),
                "H": lambda: And(kids[0], m),
                "S": lambda: Or(kids[1], And(kids[0], m)),
                "T": lambda: And(kids[1], Or(kids[0], m)),
            }[node.op]()
            tracked = value
        monitors[name] = (start, tracked)
        definitions.append(m if start else Not(m))
        definitions.append(unop("G", binop("<->", unop("X", m), tracked)))
        return value

    body = transform(formula, rule, skip=lambda node: not node.past)
    return And(*definitions, body), monitors
