"""A spec file is read once, as every question about it reads it: one reading of each name for
the whole file (a spec alone, the conjunction, the cores, `solve -F`), a `one-event` file's
activities for each spec, and vacuity over comparisons by its definition."""

from __future__ import annotations

import io
import time

import data_reference as ref
import numpy as np
import pytest
from cli_support import json_lines, run
from hypothesis import given, settings
from hypothesis import strategies as st

import ltlwit
from ltlwit.logic.formula import TRUE
from ltlwit.logic.polarity import replace_at
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.theory.sorts import INT, Declarations
from ltlwit.pipeline.options import SolveOptions
from ltlwit.specs.decider import Decider
from ltlwit.specs.vacuity import check_spec, occurrences


def test_a_spec_alone_reads_its_names_as_its_file_does(tmp_path) -> None:
    """r1 makes k Real; alone, r2 would read it as Int and be unsatisfiable (2 * k = m + 1 with
    m = 0 has no integer k), while the two together are satisfiable: one reading, one answer."""
    path = tmp_path / "two.spec"
    path.write_text("r1: G(k >= 0.0)\nr2: F(2 * k = m + 1) & G(m = 0)\n")
    result = run("check", "--var", "m:Int", "--consistency", "--format", "json", str(path))
    records = json_lines(result.stdout)
    assert result.exit_code == 0, result.stdout
    assert [(r.get("name"), r["status"]) for r in records] == [(None, "pass"), ("r1", "pass"), ("r2", "pass")]
    assert "k = 0.5" in records[2]["witness"]
    solved = json_lines(run("solve", "--var", "m:Int", "--format", "json", "-F", str(path)).stdout)
    assert [r["status"] for r in solved] == ["sat", "sat"]


def test_solve_reads_a_one_event_file_as_check_does(tmp_path) -> None:
    """The activities of a `one-event` file are its specs' together: alone, `absence(refund)`
    over the one activity `refund` has no finite trace; with `ship` it has."""
    path = tmp_path / "oe.spec"
    path.write_text("one-event\nnoreturn: absence(refund)\nx: existence(ship)\n")
    solved = run("solve", "--finite", "-F", str(path))
    checked = run("check", "--finite", "--format", "json", str(path))
    assert solved.stdout.splitlines() == ["noreturn: ship", "x: ship"]
    assert [r["status"] for r in json_lines(checked.stdout)] == ["pass", "pass"]


def test_a_clash_is_an_error_at_each_place_the_name_is_used(tmp_path) -> None:
    path = tmp_path / "clash.spec"
    path.write_text("a: G(level > 2)\nb: F(level & p)\nc: G(p)\n")
    records = json_lines(run("check", "--domain", "Int", "--format", "json", str(path)).stdout)
    assert [(r["name"], r["status"]) for r in records] == [("a", "error"), ("b", "error"), ("c", "pass")]
    assert records[0]["error"] == f"level is a variable here, but a proposition in b ({path}:2)"
    assert records[1]["error"] == f"level is a proposition here, but a variable in a ({path}:1)"


# -- random spec files: each spec's verdict agrees with the joint verdict and its core -------------

_ATOMS = ["x < y", "x + y = 2", "x = 1", "y != 0", "x <= 1", "2 * x > y", "x = y", "y > 0.5", "x >= 0"]


@st.composite
def _spec_files(draw) -> tuple[list[str], dict[str, str]]:
    """A few requirements over data (Int or Real, some declared, the others inferred from the
    whole file), each a small temporal formula over comparisons and a proposition."""

    def leaf() -> str:
        return draw(st.sampled_from([*_ATOMS, "p", "!p"]))

    def spec() -> str:
        body = leaf()
        for _ in range(draw(st.integers(0, 2))):
            body = f"({body}) {draw(st.sampled_from(['&', '|', '->']))} ({leaf()})"
        return f"{draw(st.sampled_from(['G', 'F', '']))}({body})"

    declared = draw(st.dictionaries(st.sampled_from(["x", "y"]), st.sampled_from(["Int", "Real"]), max_size=2))
    return [spec() for _ in range(draw(st.integers(2, 4)))], declared


@settings(max_examples=15, deadline=None, derandomize=True)
@given(_spec_files())
def test_each_verdict_agrees_with_the_joint_verdict_and_its_core(drawn) -> None:
    specs, declared = drawn
    lines = [f"var {name}: {sort}" for name, sort in declared.items()]
    lines += [f"r{k}: {text}" for k, text in enumerate(specs)]
    report = ltlwit.check(lines, consistency=True, model="none", timeout=20, semantics="finite", domain="Int")
    joint, *own = report.results
    assert all(r.status in ("pass", "fail", "unknown") for r in own), [r.message for r in own]
    if joint.status == "pass":  # a set satisfiable while one of its members is not: the old bug
        assert all(r.verdict in ("sat", "unknown") for r in own), [(r.spec.name, r.verdict) for r in own]
    if joint.status == "fail":
        members = [f"{s.name}: {s.formula}" for s in joint.conflict]
        core = ltlwit.check(
            [*(line for line in lines if line.startswith("var")), *members],
            consistency=True,
            model="none",
            timeout=20,
            semantics="finite",
            domain="Int",
        )
        assert core.results[0].status in ("fail", "unknown")  # the core alone conflicts too


# -- vacuity over comparisons, by the definition (brute force over every state) ------------------

_X = ("var", "x")
_Y = ("var", "y")
_LEAVES = [
    ("atom", "<", _X, _Y),
    ("atom", "=", ("+", _X, _Y), ("num", 2)),
    ("atom", "=", _X, ("num", 1)),
    ("atom", "!=", _Y, ("num", 0)),
    ("atom", "<=", _X, ("num", 1)),
    ("atom", ">", ("*", 2, _X), _Y),
    ("ap", "p"),
]
#: The domain the bounds spec allows: every model of the specs is one of these states.
_DOMAIN = [0, 1, 2]
_BOUNDS = (
    "&",
    ("&", ("atom", ">=", _X, ("num", 0)), ("atom", "<=", _X, ("num", 2))),
    ("&", ("atom", ">=", _Y, ("num", 0)), ("atom", "<=", _Y, ("num", 2))),
)


def _formulas(depth: int):
    leaf = st.sampled_from(_LEAVES)
    if depth == 0:
        return leaf
    sub = _formulas(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.just("!"), sub),
        st.tuples(st.sampled_from(["&", "|", "->", "<->"]), sub, sub),
    )


def _leaves(f: tuple) -> list[tuple]:
    """The leaves of a reference formula, in preorder (the order of ltlwit's occurrences)."""
    if f[0] in ("ap", "atom"):
        return [f]
    return [leaf for child in f[1:] for leaf in _leaves(child)]


def _models(fs: list[tuple]) -> np.ndarray:
    states = ref.all_traces(1, ["x", "y"], ["p"], _DOMAIN)
    return np.logical_and.reduce([ref.evaluate(f, states) for f in fs])


def _polarity(f: tuple, path: list[int]) -> int:
    """The polarity of the leaf reached by `path`, by the definition: flipped under `!` and
    the left of `->`, both under `<->`."""
    sign = 1
    for k in path:
        op = f[0]
        if op == "!":
            sign = -sign
        elif op == "<->":
            return 0
        elif op == "->" and k == 1:
            sign = -sign
        f = f[k]
    return sign


def _paths(f: tuple, path: tuple[int, ...] = ()) -> list[list[int]]:
    if f[0] in ("ap", "atom"):
        return [list(path)]
    return [p for k, child in enumerate(f[1:], 1) for p in _paths(child, (*path, k))]


def _replaced(f: tuple, path: list[int], value: bool) -> tuple:
    if not path:
        return ("true",) if value else ("false",)
    k = path[0]
    return tuple(_replaced(c, path[1:], value) if i == k else c for i, c in enumerate(f))


def _brute_vacuous(specs: list[tuple], which: int) -> set[tuple[int, bool]]:
    """The definition, literally: occurrence o (the n-th leaf) with the strengthening constant
    (both under `<->`) is vacuous when the set's models stay exactly the same."""
    whole = _models(specs)
    found = set()
    for n, path in enumerate(_paths(specs[which])):
        polarity = _polarity(specs[which], path)
        for value in (False,) if polarity > 0 else (True,) if polarity < 0 else (True, False):
            changed = list(specs)
            changed[which] = _replaced(specs[which], path, value)
            if (_models(changed) == whole).all():
                found.add((n, value))
                break
    return found


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(_formulas(2), min_size=1, max_size=2))
def test_vacuity_over_comparisons_matches_the_definition(specs: list[tuple]) -> None:
    everything = [_BOUNDS, *specs]
    if not _models(everything).any():
        return  # jointly unsatisfiable: reported instead of vacuity
    parsed = [parse_formula(ref.text(f), "nuxmv") for f in everything]
    decide = Decider(SolveOptions(semantics="finite", declarations=Declarations((("x", INT), ("y", INT)))))
    for which in range(1, len(everything)):
        spec = parsed[which]
        leaves = [i for i, node in enumerate(spec.walk()) if node.op in ("ap", "atom")]
        found = check_spec(parsed, which, decide).findings
        assert not any(f.undecided for f in found)
        assert {(leaves.index(f.occurrence.index), f.value) for f in found} == _brute_vacuous(everything, which)


def test_a_comparison_is_a_vacuity_candidate_in_check(tmp_path) -> None:
    """With `G(speed > 100.0)`, the trigger of `G(speed > 50.0 -> warn_on)` always holds: the
    occurrence can be true (the specs imply `G(warn_on)`); acknowledged as it is written."""
    path = tmp_path / "cruise.spec"
    path.write_text("var speed: Real\nfast: G(speed > 100.0)\nwarn: G(speed > 50.0 -> warn_on)\n")
    result = run("check", "--vacuity", "--format", "json", str(path))
    records = json_lines(result.stdout)
    (finding,) = records[2]["findings"]
    assert (finding["ap"], finding["replacement"], finding["status"]) == ("speed > 50.0", True, "vacuous")
    assert result.exit_code == 1
    path.write_text(path.read_text().replace("warn_on)", "warn_on)  # acknowledged: vacuous speed > 50.0"))
    assert run("check", "--vacuity", str(path)).exit_code == 0


def test_the_occurrences_are_those_of_propositions_and_comparisons() -> None:
    f = parse_formula("G(speed > 50.0 -> warn) & !(mode = on)", "nuxmv")
    assert [(o.ap, o.polarity) for o in occurrences(f)] == [("speed > 50.0", -1), ("warn", 1), ("mode = on", -1)]
    for o in occurrences(f):
        assert replace_at(f, o.index, TRUE) is not f


def test_a_spec_whose_timeout_runs_out_counts_its_occurrences_unchecked() -> None:
    specs = [parse_formula("G(a -> F b) & G(c -> F d)"), parse_formula("G F a")]
    found = check_spec(specs, 0, Decider(SolveOptions()), deadline=time.perf_counter() - 1.0)
    assert (found.findings, found.unchecked) == ([], 4)


def test_one_reading_is_declared_for_every_spec_of_a_file() -> None:
    """The reading's declarations are the same object for every spec of a file, naming every
    name it reads: k Real (from r1), m Real too (r2 computes it with k), p and q propositions
    (r3 compares them as nuXmv compares propositions; r4 uses p as one)."""
    from ltlwit.specs.reading import read_file

    lines = "r1: G(k >= 0.0)\nr2: F(2 * k = m + 1) & G(m = 0)\nr3: G(p = q) & F(q)\nr4: F(p)\n"
    parsed = read_file("-", SolveOptions(), io.BytesIO(lines.encode()))
    assert len({id(p.spec.declarations) for p in parsed}) == 1
    variables = parsed[0].spec.declarations.variables
    assert {n: str(s) for n, s in variables.items()} == {"k": "Real", "m": "Real", "p": "Bool", "q": "Bool"}


# -- questions asked of the specs that matter -----------------------------------------------------


class _Counted(Decider):
    """The check's decider, recording the questions it is asked."""

    def __init__(self, options: SolveOptions) -> None:
        super().__init__(options)
        self.asked: list = []

    def __call__(self, formula):
        self.asked.append(formula)
        return super().__call__(formula)


def test_a_conjunction_of_groups_apart_is_asked_group_by_group() -> None:
    """Three groups sharing no name: each asked alone, their witnesses combined (the shorter
    ones' last step repeated to the longest's length) and checked against the whole, which is
    never asked."""
    from ltlwit.logic.formula import And
    from ltlwit.specs.subsets import jointly

    specs = [parse_formula(f) for f in ["X X a", "G(a -> b)", "c & X !c", "F d"]]
    decide = _Counted(SolveOptions(semantics="finite"))
    result, used = jointly(specs, decide)
    assert result.__class__.__name__ == "Sat" and used == [0, 1, 2, 3]
    assert ltlwit.verify(And(*specs).to_str(), result.witness, semantics="finite")
    assert And(*specs) not in decide.asked


def test_groups_apart_that_conflict_through_the_length_of_a_trace_are_unsatisfiable() -> None:
    """No name is shared, each group has a model, but one needs 3 instants and the other at
    most 2: asked again at the first one's length, the second has none, and the whole is
    asked: UNSAT, never a combined 'witness'."""
    from ltlwit.specs.subsets import jointly

    specs = [parse_formula(f) for f in ["X X a", "b & !X X 1"]]
    result, _ = jointly(specs, Decider(SolveOptions(semantics="finite")))
    assert result.__class__.__name__ == "Unsat"


def test_a_formula_without_data_reads_the_propositions_of_a_data_trace() -> None:
    """A witness found for a question over data, checked against a spec without data (a FRET
    export's propositional requirements): its values are no part of the spec's reading."""
    witness = "p & x = 1; !p & x = 2"
    assert ltlwit.verify("p & X !p", witness, semantics="finite")
    assert not ltlwit.verify("G p", witness, semantics="finite")


def test_a_formula_that_only_looks_back_is_lengthened_by_a_lasso_of_it() -> None:
    """A model of 5 instants for p alternating from true: its one-instant model repeated
    breaks it, and a search for exactly 5 instants is what runs out of time beside FRET's
    non-linear requirements; a lasso of it is found at once, and its prefix is a model."""
    from ltlwit.logic.trace import Trace
    from ltlwit.specs.subsets import _as_long, looks_back

    alternating = parse_formula("G((!Y 1 -> p) & (Y p -> !p) & (Y !p -> p))")
    assert looks_back(alternating)
    decide = _Counted(SolveOptions(semantics="finite"))
    got = _as_long(alternating, Trace(tuple(parse_formula("q") for _ in range(5)), ()), decide)
    assert got is not None and got.finite and len(got.steps) == 5
    assert ltlwit.verify(alternating.to_str(), got, semantics="finite")
    assert decide.asked == []  # the lasso's, not a finite search of that length


@pytest.mark.parametrize("text", ["G(p -> X q)", "G(p) & F q", "G(x < next(x))", "H p"])
def test_what_looks_ahead_or_is_not_everywhere_is_not_lengthened_by_a_lasso(text: str) -> None:
    from ltlwit.specs.subsets import looks_back

    assert not looks_back(parse_formula(text))
