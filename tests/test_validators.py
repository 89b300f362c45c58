"""The validators by name (`ltlwit.logic.validators`): several agree or the disagreement is
said in full; what cannot run here is said up front."""

from __future__ import annotations

import importlib.util

import pytest

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.validators import Validation, bounded, disagreement, judge, validator_problem


def test_builtin_and_aiger_agree_on_witnesses_and_non_witnesses() -> None:
    for formula, witness, valid in [
        ("G(a -> F b)", "cycle{b}", True),
        ("G(a -> F b)", "cycle{a}", False),
        ("F a & G !b", "!b; cycle{a & !b}", True),
        ("a U b", "a; a; b", True),
    ]:
        semantics = "finite" if "cycle" not in witness else "infinite"
        verdicts = judge(["builtin", "aiger"], parse_formula(formula), parse_trace(witness), semantics)
        assert {v.valid for v in verdicts.values()} == {valid}, (formula, witness, verdicts)
        assert disagreement(parse_formula(formula), parse_trace(witness), verdicts) is None
    prop = judge(["builtin", "aiger"], parse_formula("a | b"), Assignment.of({"a": True}))
    assert all(v.valid for v in prop.values())


def test_a_disagreement_names_the_formula_the_witness_and_each_verdict() -> None:
    f, w = parse_formula("G(a -> F b)"), parse_trace("cycle{b}")
    text = disagreement(f, w, {"builtin": Validation(True), "aiger": Validation(False, ({"a": True, "b": False},), 0)})
    assert text is not None
    assert "G(a -> Fb)" in text and "cycle{b}" in text and "builtin: holds" in text
    assert "aiger: fails (counterexample cycle{a & !b})" in text
    assert bounded({"aiger": Validation(True, exact=False), "builtin": Validation(True)}) == ["aiger"]


def test_what_cannot_run_is_said_up_front() -> None:
    assert validator_problem(["builtin", "aiger"]) is None
    assert validator_problem(["nope"]) == "unknown validator 'nope' (known: builtin, aiger, spot)"
    if importlib.util.find_spec("spot") is None:  # this machine: no Spot bindings
        assert "import spot" in validator_problem(["spot"])
    else:
        assert validator_problem(["spot"]) is None


def test_the_wrong_kind_of_trace_is_an_error_for_every_validator() -> None:
    for names in (["builtin"], ["aiger"]):
        with pytest.raises(ValueError, match="semantics is finite"):
            judge(names, parse_formula("F a"), parse_trace("cycle{a}"), "finite")
