"""Whether a witness witnesses a formula: the one decision `solve`, `verify`, `check` and `eval`
all rest on, made here and nowhere else.

A `Trace` witnesses a formula when every word it stands for satisfies it (the LTL checker,
universal semantics; a propositional formula is an LTL formula too). An `Assignment` witnesses a
propositional formula when it entails it (every completion satisfies it). A model may also
propose an `Invalid` token string; it witnesses nothing, and neither does a witness that cannot
be judged (an AP the formula does not mention, a formula too deep for the checker), so callers
that judge untrusted candidates use `is_witness`, which never raises.

The heavy halves (the LTL engine, the SAT solver) are imported when first needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence, Union

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming
from ltlwit.logic.trace import Trace

if TYPE_CHECKING:
    from ltlwit.logic.theory.sorts import Declarations

Witness = Union[Trace, Assignment]


@dataclass(frozen=True)
class Invalid:
    """A malformed model output, kept as its tokens (AP tokens by slot name) so it can be
    renamed and compared like a witness."""

    tokens: tuple[str, ...] = ()

    def rename(self, mapping: Mapping[str, str]) -> "Invalid":
        return Invalid(tuple(mapping.get(t, t) for t in self.tokens))


#: What a model proposes for a formula over slot names: a witness, or an invalid output.
Prediction = Union[Trace, Assignment, Invalid]


def logic_of(formula: Formula, logic: str = "auto") -> str:
    """`ltl` or `prop` for a run asked for `logic` (`auto`: `prop` exactly when the formula has
    no temporal operator and no data); ValueError when `prop` is asked for a temporal formula
    or one over data (its answer is a trace of states, even of one state)."""
    if logic == "auto":
        return "ltl" if formula.temporal or formula.data else "prop"
    if logic not in ("ltl", "prop"):
        raise ValueError(f"unknown logic {logic!r}; expected auto, ltl or prop")
    if logic == "prop" and formula.temporal:
        # No CLI flag here: `ltlwit.solve(..., logic="prop")` reports this as it is.
        raise ValueError("logic prop is for propositional formulas, and this one has temporal operators")
    if logic == "prop" and formula.data:
        raise ValueError(
            "logic prop is for propositional formulas, and this one compares data (its witness is a "
            "trace of values: --logic ltl or auto)"
        )
    return logic


def holds(
    formula: Formula,
    witness: Witness,
    engine: str = "auto",
    semantics: str | None = None,
    declarations: Declarations | None = None,
) -> bool:
    """Whether `witness` witnesses `formula`. ValueError when that cannot be judged: an
    assignment for a temporal formula, an assignment naming an AP the formula lacks, a formula
    too deep for the checker, a trace of the other kind than `semantics` asks for (a lasso
    under "finite", a finite trace under "infinite": never reinterpreted; None: a trace is
    judged under the semantics its kind implies). `engine` picks the LTL trace checker (`auto`,
    `builtin`, `spot`). A formula over data needs a trace with values (`theory.evaluate`), its
    variables' sorts from `declarations` or inferred."""
    if isinstance(witness, Trace):
        from ltlwit.logic import ltl

        if semantics is not None and witness.finite != (semantics == "finite"):
            raise ValueError(
                "a finite trace (no cycle{...}), but the semantics is infinite: give a lasso, or --semantics finite"
                if witness.finite
                else "a lasso trace (with a cycle), but the semantics is finite: give a finite trace (a; b; c), "
                "or --semantics infinite"
            )

        return bool(ltl.holds(formula, witness, engine=engine, declarations=declarations))
    if isinstance(witness, Assignment):
        if formula.temporal:
            raise ValueError(
                "an assignment witnesses only propositional formulas; this one is temporal (give a lasso trace)"
            )
        from ltlwit.logic.prop import entails

        return entails(witness, formula)
    raise TypeError(f"a witness is a Trace or an Assignment, not {type(witness).__name__}")


def is_witness(
    formula: Formula,
    candidate: Prediction,
    engine: str = "auto",
    semantics: str | None = "infinite",
    declarations: Declarations | None = None,
) -> bool:
    """`holds`, for candidates nobody vouches for: an `Invalid` output, or one that cannot be
    judged (a finite trace from a model of lassos...), is no witness."""
    if isinstance(candidate, Invalid):
        return False
    try:
        return holds(formula, candidate, engine, semantics, declarations)
    except ValueError:
        return False


def minimise(assignment: Assignment, formula: Formula) -> Assignment:
    """Drop literals (last first) while the rest still entails `formula`: subset-minimal, the
    promise the SAT path's answers keep. `assignment` must entail `formula`; entailment is
    monotone, so one pass is enough."""
    values = list(assignment.values)
    for i in range(len(values) - 1, -1, -1):
        smaller = values[:i] + values[i + 1 :]
        if holds(formula, Assignment(tuple(smaller))):
            values = smaller
    return Assignment(tuple(values))


def invert(renaming: Renaming, prediction: Prediction) -> Prediction:
    """A prediction for `renaming.apply(x)` mapped back to x's names. An AP the renaming does
    not cover (the model made one up) makes the prediction Invalid: it has no preimage."""
    try:
        if isinstance(prediction, Trace):
            return renaming.invert_trace(prediction)
        if isinstance(prediction, Assignment):
            return renaming.invert_assignment(prediction)
    except ValueError:
        return Invalid(("<unknown AP>",))
    return prediction.rename(renaming.inverse().mapping)


def parse_witness(text: str, formula: Formula, logic: str = "auto") -> Witness:
    """A witness for `formula` as a user writes it: for a propositional formula an assignment
    (`a1c0`, JSON, a Spot cube `a & !c` or an LBT cube `& "a" ! "c"`), and with `logic` auto a
    lasso trace too; for an LTL formula a trace (`a & !b; cycle{c}`, DeepLTL's `&a!b;{c}`, LBT
    steps). Raises the ParseError of the reading the text was most likely meant as."""
    from ltlwit.logic.syntax import parse_trace

    if logic_of(formula, logic) == "ltl":
        return parse_trace(text, "auto")
    try:
        return _parse_assignment_for(text, formula)
    except ValueError:
        if logic != "auto":
            raise
        try:  # a propositional formula is an LTL formula too: a lasso trace may witness it
            return parse_trace(text, "auto")
        except ValueError:
            pass
        raise


def _parse_assignment_for(text: str, formula: Formula) -> Assignment:
    """Of the readings of `text` that parse (compact or JSON, a Spot cube, an LBT cube: what
    `solve --syntax-out lbt` prints), the one naming only the formula's APs (`a1` is a=true as an
    assignment but the AP `a1` as a cube; `t` is the empty assignment in LBT but the AP `t` in
    Spot), else the first."""
    from ltlwit.logic.syntax import parse_assignment, parse_formula
    from ltlwit.logic.syntax.words import parse_cube

    readings: list[Assignment] = []
    errors: list[ValueError] = []
    for reader in (
        parse_assignment,
        lambda t: parse_cube(t, parse_formula(t, "spot")),
        lambda t: parse_cube(t, parse_formula(t, "lbt")),
    ):
        try:
            readings.append(reader(text))
        except ValueError as exc:
            errors.append(exc)
    if not readings:
        # The error of the reading the text was most likely meant as: JSON, else the Spot
        # cube (the LBT reading's errors are rarely the helpful ones).
        raise errors[0] if text.lstrip().startswith("{") else errors[1]
    aps = set(formula.aps())
    return next((r for r in readings if set(r.aps()) <= aps), readings[0])


def same_words(a: Witness, b: Witness) -> bool:
    """Whether two witnesses stand for the same set of words (assignments: are the same), so
    that a list of witnesses (`solve --all`) names each set once: `cycle{!a | b}` and
    `cycle{b | !a}` are one witness, and so are `a; cycle{a}` and `cycle{a}`. A lasso's words
    are those whose every position satisfies its step there, so two lassos agree when their
    steps are equivalent at every position, and positions repeat after the longer prefix with
    the least common multiple of the loops' lengths as period."""
    if isinstance(a, Assignment) or isinstance(b, Assignment):
        return a == b
    if a == b:
        return True
    if a.data or b.data:  # values: the same words only if written alike
        return False
    if a.finite or b.finite:
        return (
            a.finite
            and b.finite
            and len(a.prefix) == len(b.prefix)
            and all(_equivalent(x, y) for x, y in zip(a.prefix, b.prefix))
        )
    from math import lcm

    def at(t: Trace, i: int) -> Formula:
        return t.prefix[i] if i < len(t.prefix) else t.cycle[(i - len(t.prefix)) % len(t.cycle)]

    horizon = max(len(a.prefix), len(b.prefix)) + lcm(len(a.cycle), len(b.cycle))
    return all(_equivalent(at(a, i), at(b, i)) for i in range(horizon))


def _equivalent(f: Formula, g: Formula) -> bool:
    """Propositional equivalence of two steps (one SAT call unless they are the same)."""
    if f is g:
        return True
    from ltlwit.logic.formula import And, Not, Or
    from ltlwit.logic.prop import solve_prop
    from ltlwit.logic.result import Unsat

    return isinstance(solve_prop(Or(And(f, Not(g)), And(Not(f), g))), Unsat)


def excluding(witness: Witness, aps: Sequence[str]) -> Formula | None:
    """A formula whose models are the words that are not the witness's, so that a formula
    conjoined with it has other witnesses (`solve --all` from the engine): an assignment's
    extensions, a finite trace's words (its steps at its positions, and no more instants), a
    lasso's one word when its letters are full (`concrete`: on a lasso every AP of `aps`
    repeats with the loop's period from the loop on; a symbolic loop's words are not an LTL
    property). None for a witness with data values."""
    from ltlwit.logic.formula import FALSE, And, Not, ap

    if isinstance(witness, Assignment):
        return Not(And(*(ap(n) if v else Not(ap(n)) for n, v in witness.values)))
    if witness.data:
        return None

    def later(k: int, f: Formula) -> Formula:
        for _ in range(k):
            f = Formula("X", (f,))
        return f

    if witness.finite:
        steps = list(witness.steps)
        return Not(
            And(*(later(i, step) for i, step in enumerate(steps)), later(len(steps) - 1, Formula("wX", (FALSE,))))
        )
    letters = concrete(witness, aps).steps
    same = And(*(Formula("<->", (ap(n), later(len(witness.cycle), ap(n)))) for n in aps))
    return Not(
        And(*(later(i, letter) for i, letter in enumerate(letters)), later(len(witness.prefix), Formula("G", (same,))))
    )


def concrete(witness: Trace, aps: Sequence[str]) -> Trace:
    """One word of a trace: each step a full letter over `aps` that satisfies it (APs it leaves
    free false)."""
    from ltlwit.logic.formula import And, Not, ap
    from ltlwit.logic.prop import solve_prop

    def letter(step: Formula) -> Formula:
        found = getattr(solve_prop(step), "witness", None)
        values = dict(found.values) if isinstance(found, Assignment) else {}
        return And(*(ap(n) if values.get(n, False) else Not(ap(n)) for n in aps))

    return Trace(tuple(letter(s) for s in witness.prefix), tuple(letter(s) for s in witness.cycle))
