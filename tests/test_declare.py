"""Declare's templates against their textbook definitions, decided on every finite trace of up
to four instants over two activities (each instant any set of them: the templates are LTLf
formulas, read with or without one activity per instant), and `--one-event`."""

from __future__ import annotations

import itertools

import pytest
from cli_support import json_lines, run

from ltlwit.logic import ltl
from ltlwit.logic.declare import TEMPLATES
from ltlwit.logic.formula import And, Not, ap
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.trace import Trace


def _count(t, x):
    return sum(x in s for s in t)


def _any(t, x):
    return any(x in s for s in t)


def _alt_precedence(t):  # each b has an a at or before it with no b in between
    return all(
        any("a" in t[i] and not any("b" in t[m] for m in range(i, k)) for i in range(k + 1))
        for k in range(len(t))
        if "b" in t[k]
    )


REFERENCE = {  # trace: a tuple of sets of activities
    "existence": lambda t: _any(t, "a"),
    "existence2": lambda t: _count(t, "a") >= 2,
    "existence3": lambda t: _count(t, "a") >= 3,
    "absence": lambda t: _count(t, "a") == 0,
    "absence2": lambda t: _count(t, "a") <= 1,
    "absence3": lambda t: _count(t, "a") <= 2,
    "exactly1": lambda t: _count(t, "a") == 1,
    "exactly2": lambda t: _count(t, "a") == 2,
    "init": lambda t: "a" in t[0],
    "last": lambda t: "a" in t[-1],
    "respondedexistence": lambda t: not _any(t, "a") or _any(t, "b"),
    "coexistence": lambda t: _any(t, "a") == _any(t, "b"),
    "response": lambda t: all(any("b" in s for s in t[i:]) for i, s in enumerate(t) if "a" in s),
    "precedence": lambda t: all(any("a" in s for s in t[: j + 1]) for j, s in enumerate(t) if "b" in s),
    "succession": lambda t: REFERENCE["response"](t) and REFERENCE["precedence"](t),
    "alternateresponse": lambda t: all(
        any("b" in t[j] and not any("a" in t[m] for m in range(i + 1, j)) for j in range(i + 1, len(t)))
        for i, s in enumerate(t)
        if "a" in s
    ),
    "alternateprecedence": _alt_precedence,
    "alternatesuccession": lambda t: REFERENCE["alternateresponse"](t) and _alt_precedence(t),
    "chainresponse": lambda t: all(i + 1 < len(t) and "b" in t[i + 1] for i, s in enumerate(t) if "a" in s),
    "chainprecedence": lambda t: all("a" in t[j - 1] for j in range(1, len(t)) if "b" in t[j]),
    "chainsuccession": lambda t: all(("a" in t[i]) == (i + 1 < len(t) and "b" in t[i + 1]) for i in range(len(t))),
    "choice": lambda t: _any(t, "a") or _any(t, "b"),
    "exclusivechoice": lambda t: _any(t, "a") != _any(t, "b"),
    "notcoexistence": lambda t: not (_any(t, "a") and _any(t, "b")),
    "notrespondedexistence": lambda t: not _any(t, "a") or not _any(t, "b"),
    "notsuccession": lambda t: not any("a" in t[i] and "b" in t[j] for i in range(len(t)) for j in range(i, len(t))),
    "notresponse": lambda t: REFERENCE["notsuccession"](t),
    "notprecedence": lambda t: REFERENCE["notsuccession"](t),
    "notchainsuccession": lambda t: not any("a" in t[i] and "b" in t[i + 1] for i in range(len(t) - 1)),
    "notchainresponse": lambda t: REFERENCE["notchainsuccession"](t),
}

LETTERS = [frozenset(c) for k in range(3) for c in itertools.combinations("ab", k)]
TRACES = [t for n in range(1, 5) for t in itertools.product(LETTERS, repeat=n)]


def _trace(t) -> Trace:
    return Trace(
        tuple(And(ap("a") if "a" in s else Not(ap("a")), ap("b") if "b" in s else Not(ap("b"))) for s in t), ()
    )


def test_every_template_has_a_reference() -> None:
    assert set(REFERENCE) == set(TEMPLATES)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_template_matches_its_definition_on_all_short_traces(name: str) -> None:
    arity = TEMPLATES[name].__code__.co_argcount
    formula = parse_formula(f"{name}({', '.join('ab'[:arity])}) & (a | !a) & (b | !b)")
    wrong = [t for t in TRACES if ltl.holds(formula, _trace(t)) != REFERENCE[name](t)]
    assert not wrong, [[sorted(s) for s in t] for t in wrong[:3]]


def test_template_names_in_any_case_and_errors() -> None:
    assert parse_formula("ChainResponse(a, b)") is parse_formula("chain_response(a, b)")
    assert parse_formula("NOT_CO_EXISTENCE(x, y)") is parse_formula("!(F x & F y)")
    with pytest.raises(ValueError, match="unknown Declare template 'respnse' \\(did you mean 'response'\\?\\)"):
        parse_formula("respnse(a, b)")
    with pytest.raises(ValueError, match="the Declare template response takes 2 activities, not 3"):
        parse_formula("response(a, b, c)")
    result = run("solve", "response(a)", "F a")
    assert result.exit_code == 2 and "<arg 1>: parse error: the Declare template response takes 2" in result.stderr
    assert result.stdout.splitlines()[1] == "cycle{a}"  # the rest answered


def test_one_event_witnesses_are_activity_sequences(tmp_path) -> None:
    formula = "response(request, approve) & F request & F pay"
    text = run("solve", "--model", "none", "--finite", "--one-event", formula).stdout.strip()
    assert text == "pay; request; approve"
    (record,) = json_lines(
        run("solve", "--model", "none", "--finite", "--one-event", "--format", "json", formula).stdout
    )
    steps = record["witness"].split("; ")
    assert all(sum(not lit.startswith("!") for lit in step.split(" & ")) == 1 for step in steps)
    spec = tmp_path / "p.spec"
    spec.write_text(
        "one-event\nstart: init(request)\nreply: response(request, approve)\n"
        "both: F(approve & request)   # expect: forbidden\n"
    )
    result = run("check", "--finite", "--consistency", str(spec))
    assert result.exit_code == 0 and "PASS start" in result.stdout and "witness request" in result.stdout


@pytest.mark.parametrize("n", range(1, 8))
def test_one_event_holds_exactly_when_one_activity_does(n: int) -> None:
    """Every assignment of n activities (odd and even n split unevenly into halves)."""
    from ltlwit.logic.declare import one_event

    names = [f"p{i}" for i in range(n)]
    for values in itertools.product([False, True], repeat=n):
        step = And(*(ap(p) if v else Not(ap(p)) for p, v in zip(names, values)))
        assert ltl.holds(one_event(names, True), Trace((), (step,))) is (sum(values) == 1), values
        assert ltl.holds(one_event(names, False), Trace((step,), ())) is (sum(values) == 1), values


def test_one_event_grows_as_n_log_n_through_the_engines_rewriter() -> None:
    """The constraint over n activities has O(n log n) nodes, before and after the rewriter
    that prepares every formula for the engine (pairwise exclusions had n^2: 1.2 GB and 20 s
    for 1,000 activities) and no proposition but the activities (witnesses show those only)."""
    import math

    from ltlwit.logic.declare import one_event
    from ltlwit.logic.formula import postorder
    from ltlwit.logic.ltl.encoding.rewrite import simplify

    n = 300
    names = [f"p{i}" for i in range(n)]
    constraint = one_event(names, True)
    bound = 4 * n * math.ceil(math.log2(n))
    assert len(postorder(constraint)) <= bound
    assert len(postorder(simplify(constraint))) <= bound
    assert sorted(constraint.aps()) == sorted(names)


def test_one_event_is_built_within_the_inputs_deadline(monkeypatch) -> None:
    """The constraint reads the deadline as it is built, and the pipeline builds it under the
    input's deadline and memory ceiling, as it parses the input (20,000 activities: 300,000
    nodes, which had been built with no limit at all)."""
    from ltlwit.logic import budget, declare
    from ltlwit.logic.budget import OutOfTime, deadline_scope
    from ltlwit.pipeline.inputs import InputItem
    from ltlwit.pipeline.options import SolveOptions
    from ltlwit.pipeline.run import Pipeline

    with deadline_scope(budget.time.perf_counter() - 1.0):
        with pytest.raises(OutOfTime):
            declare.one_event([f"p{i}" for i in range(100)], True)
    limits = []
    build = declare.one_event
    monkeypatch.setattr(declare, "one_event", lambda *args: limits.append(budget._scope.limits) or build(*args))
    (answer,) = Pipeline(SolveOptions(model="none", timeout=60.0, one_event=True)).run([InputItem("F a & F b", "-", 1)])
    assert answer.status == "sat"
    assert len(limits) == 1 and limits[0] is not None and limits[0].deadline is not None
