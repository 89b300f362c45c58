"""Declare's templates (van der Aalst, Pesic, Schonenberg; their LTLf meanings as De Giacomo,
Maggi et al. give them), written by name in any formula: `response(request, approve)` is
`G(request -> F approve)`. Read over finite traces (process cases end: `--semantics finite`),
with `X` strong, so that `chain_response(a, b)` rules out an `a` at the last instant.

| template | meaning (LTLf) |
|---|---|
| `existence(a)` | `F a` |
| `existence2(a)`, `existence3(a)` | `a` at least twice, three times |
| `absence(a)` | `!F a` |
| `absence2(a)`, `absence3(a)` | `a` at most once, twice |
| `exactly1(a)`, `exactly2(a)` | `a` exactly once, twice |
| `init(a)` | `a` (at the first instant) |
| `last(a)` | `F(a & wX false)` (at the last instant) |
| `responded_existence(a, b)` | `F a -> F b` |
| `co_existence(a, b)` | `F a <-> F b` |
| `response(a, b)` | `G(a -> F b)` |
| `precedence(a, b)` | `!b W a` (no `b` before the first `a`) |
| `succession(a, b)` | `response(a, b) & precedence(a, b)` |
| `alternate_response(a, b)` | `G(a -> X(!a U b))` |
| `alternate_precedence(a, b)` | `precedence(a, b) & G(b -> wX(precedence(a, b)))` |
| `alternate_succession(a, b)` | `alternate_response(a, b) & alternate_precedence(a, b)` |
| `chain_response(a, b)` | `G(a -> X b)` |
| `chain_precedence(a, b)` | `G(X b -> a)` |
| `chain_succession(a, b)` | `G(a <-> X b)` |
| `choice(a, b)` | `F a | F b` |
| `exclusive_choice(a, b)` | `(F a | F b) & !(F a & F b)` |
| `not_co_existence(a, b)` | `!(F a & F b)` |
| `not_responded_existence(a, b)` | `F a -> !F b` |
| `not_succession(a, b)` (`not_response`, `not_precedence`) | `G(a -> !F b)` |
| `not_chain_succession(a, b)` (`not_chain_response`) | `G(a -> wX !b)` |

Names are read in any case, with or without underscores (`ChainResponse`, `chain-response` is
not a name). A template applied to activities (plain names) is expanded; applied to anything
else it is no template. A name close to a template's (`respnse(a, b)`) is an error with a
hint: it would otherwise read as an uninterpreted predicate of data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ltlwit.logic.budget import check_deadline
from ltlwit.logic.formula import FALSE, TICK, TRUE, And, Formula, Not, Or, ap, make, rebuilt, transform

if TYPE_CHECKING:  # the theory loads with the first formula over data
    from ltlwit.logic.theory.terms import Term


def F(x: Formula) -> Formula:  # noqa: N802 - LTL's letters
    return make("F", x)


def G(x: Formula) -> Formula:  # noqa: N802
    return make("G", x)


def X(x: Formula) -> Formula:  # noqa: N802
    return make("X", x)


def _implies(a: Formula, b: Formula) -> Formula:
    return make("->", a, b)


def _at_least(n: int, a: Formula) -> Formula:
    out = a
    for _ in range(n - 1):
        out = And(a, X(F(out)))
    return F(out)


def _precedence(a: Formula, b: Formula) -> Formula:
    return make("W", Not(b), a)


def _alternate_precedence(a: Formula, b: Formula) -> Formula:
    return And(_precedence(a, b), G(_implies(b, make("wX", _precedence(a, b)))))


def _alternate_response(a: Formula, b: Formula) -> Formula:
    return G(_implies(a, X(make("U", Not(a), b))))


TEMPLATES: dict[str, Callable[..., Formula]] = {
    "existence": lambda a: F(a),
    "existence2": lambda a: _at_least(2, a),
    "existence3": lambda a: _at_least(3, a),
    "absence": lambda a: Not(F(a)),
    "absence2": lambda a: Not(_at_least(2, a)),
    "absence3": lambda a: Not(_at_least(3, a)),
    "exactly1": lambda a: And(F(a), Not(_at_least(2, a))),
    "exactly2": lambda a: And(_at_least(2, a), Not(_at_least(3, a))),
    "init": lambda a: a,
    "last": lambda a: F(And(a, make("wX", FALSE))),
    "respondedexistence": lambda a, b: _implies(F(a), F(b)),
    "coexistence": lambda a, b: make("<->", F(a), F(b)),
    "response": lambda a, b: G(_implies(a, F(b))),
    "precedence": _precedence,
    "succession": lambda a, b: And(G(_implies(a, F(b))), _precedence(a, b)),
    "alternateresponse": _alternate_response,
    "alternateprecedence": _alternate_precedence,
    "alternatesuccession": lambda a, b: And(_alternate_response(a, b), _alternate_precedence(a, b)),
    "chainresponse": lambda a, b: G(_implies(a, X(b))),
    "chainprecedence": lambda a, b: G(_implies(X(b), a)),
    "chainsuccession": lambda a, b: G(make("<->", a, X(b))),
    "choice": lambda a, b: Or(F(a), F(b)),
    "exclusivechoice": lambda a, b: And(Or(F(a), F(b)), Not(And(F(a), F(b)))),
    "notcoexistence": lambda a, b: Not(And(F(a), F(b))),
    "notrespondedexistence": lambda a, b: _implies(F(a), Not(F(b))),
    "notsuccession": lambda a, b: G(_implies(a, Not(F(b)))),
    "notresponse": lambda a, b: G(_implies(a, Not(F(b)))),
    "notprecedence": lambda a, b: G(_implies(a, Not(F(b)))),
    "notchainsuccession": lambda a, b: G(_implies(a, make("wX", Not(b)))),
    "notchainresponse": lambda a, b: G(_implies(a, make("wX", Not(b)))),
}
_ARITY = {name: build.__code__.co_argcount for name, build in TEMPLATES.items()}


def key(name: str) -> str:
    return name.replace("_", "").lower()


def expanded(formula: Formula) -> Formula:
    """The formula with each Declare template applied to activities replaced by its meaning
    (module docstring); ValueError for a wrong arity or a near-miss of a template's name."""
    if not formula.data:
        return formula

    visited = 0

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        nonlocal visited
        visited += 1
        if not visited % TICK:  # a part of the parse: a multi-megabyte input's is paced by --timeout
            check_deadline()
        if node.term is not None:  # an atom
            return _template(node.term) or node
        return rebuilt(node, kids)

    return transform(formula, rule, skip=lambda node: not node.data)  # each shared subformula once


def _template(term: Term) -> Formula | None:
    """An atom's meaning when it is a template applied to activities, else None."""
    if term.op != "pred" or not all(c.op == "var" for c in term.children):
        return None
    name = key(term.symbol)
    args = [ap(c.symbol) for c in term.children]
    if name not in TEMPLATES:
        import difflib

        close = difflib.get_close_matches(name, TEMPLATES, n=1, cutoff=0.85)
        if close and name not in ("init", "last"):
            raise ValueError(f"unknown Declare template {term.name!r} (did you mean {close[0]!r}?)")
        return None
    if len(args) != _ARITY[name]:
        raise ValueError(
            f"the Declare template {term.name} takes {_ARITY[name]} "
            f"activit{'y' if _ARITY[name] == 1 else 'ies'}, not {len(args)}"
        )
    return TEMPLATES[name](*args)


def one_event(activities: list[str], temporal: bool = True) -> Formula:
    """Exactly one activity at every instant (`--one-event`: a process trace's reading; at the
    one instant of a propositional formula)."""
    names = [ap(a) for a in activities]
    if not names:
        return TRUE
    exactly = And(Or(*names), *_at_most_one(names))
    return G(exactly) if temporal else exactly


def _at_most_one(names: list[Formula]) -> list[Formula]:
    """Conjuncts saying at most one of `names` holds, O(n log n) literals and no proposition
    of their own (a witness shows the activities only): the two halves each hold at most one,
    and one half holds none. The pairwise `!(a & b)` is quadratic (a million nodes for 1,000
    activities), and a ladder of shared prefixes is too once the engine's rewriter flattens
    each prefix into its own chain."""
    negated = [Not(a) for a in names]
    out: list[Formula] = []
    pending = [(0, len(names))]
    while pending:
        start, end = pending.pop()
        if end - start < 2:
            continue
        check_deadline()  # built within the input's deadline (`deadline_scope`): n log n nodes
        half = (start + end) // 2
        out.append(Or(And(*negated[start:half]), And(*negated[half:end])))
        pending += [(start, half), (half, end)]
    return out


def activities_text(witness) -> str:
    """A witness of `one_event` traces as the activity sequence it is: `request; approve;
    cycle{idle}` (each step by the AP true there)."""
    from ltlwit.logic.trace import Trace

    def letter(step: Formula) -> str:
        if step.data:
            return step.to_str("spot")
        named = [c.name for c in _conjuncts(step) if c.name is not None]
        return named[0] if len(named) == 1 else step.to_str("spot")

    if not isinstance(witness, Trace):
        named = [n for n, v in witness.values if v]
        return named[0] if len(named) == 1 else witness.to_str("spot")
    prefix = [letter(s) for s in witness.prefix]
    cycle = [letter(s) for s in witness.cycle]
    return "; ".join(prefix + (["cycle{" + "; ".join(cycle) + "}"] if cycle else []))


def _conjuncts(step: Formula) -> list[Formula]:
    from ltlwit.logic.formula import conjuncts

    return list(conjuncts(step))
