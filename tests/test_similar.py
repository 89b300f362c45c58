"""Semantic fingerprints, decided relations, `ltlwit similar` and `ltlwit embed`.

The relations are checked against the textbook reference (tests/ltl_reference.py,
tests/ltlf_reference.py) over every short word: a claim that no trace of `a & !b` exists
(`stronger`, `equivalent`) or of `a & b` (`disjoint`) is refuted by one short word that has
one; the fingerprints bit by bit against the same reference on their own traces.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run
from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_reference import lassos, letters, prop_value, satisfies
from ltlf_reference import satisfies_finite, words
from strategies import formulas

from ltlwit.api import embed, parse, similar
from ltlwit.logic import ltl
from ltlwit.logic.fingerprint import Fingerprints, cosine, skeleton
from ltlwit.logic.formula import Formula
from ltlwit.logic.relations import Relation, relate
from ltlwit.logic.result import Result

NAMES = ("a", "b")
LETTERS = letters(NAMES)
#: Every lasso of a prefix of at most 1 and a cycle of at most 2 letters over a, b.
LASSOS = lassos(1, 2, NAMES)
FINITE = list(words(NAMES, 3))


def _infinite(question: Formula) -> Result:
    return ltl.solve(question, engine="builtin")


def _finite(question: Formula) -> Result:
    return ltl.solve(question, engine="builtin", semantics="finite")


def _refuted(a: Formula, b: Formula, relation: Relation, finite: bool) -> str | None:
    """A short word that the claim `relation` rules out, described, or None."""
    holds = (lambda f, w: satisfies_finite(f, w)) if finite else (lambda f, w: satisfies(f, *w))
    for word in FINITE if finite else LASSOS:
        x, y = holds(a, word), holds(b, word)
        if x != y and relation is Relation.EQUIVALENT:
            return f"{word}: one holds, the other not"
        if x and not y and relation is Relation.STRONGER:
            return f"{word}: a & !b"
        if y and not x and relation is Relation.WEAKER:
            return f"{word}: !a & b"
        if x and y and relation is Relation.DISJOINT:
            return f"{word}: a & b"
    return None


@settings(max_examples=150, deadline=None)
@given(formulas(NAMES, max_leaves=5), formulas(NAMES, max_leaves=5), st.booleans(), st.booleans())
def test_no_relation_claims_what_a_short_word_refutes(a: Formula, b: Formula, finite: bool, prints: bool) -> None:
    semantics = "finite" if finite else "infinite"
    decide = _finite if finite else _infinite
    fp = Fingerprints(semantics, 64)
    evidence = (fp, fp.of(a), fp.of(b)) if prints else None
    related = relate(a, b, decide, evidence)
    assert related.relation is not Relation.UNDECIDED, related.reason
    assert _refuted(a, b, related.relation, finite) is None, (str(a), str(b), related.relation)


@pytest.mark.parametrize(
    "a, b, relation",
    [
        ("G(a -> F b)", "!F(a & G !b)", Relation.EQUIVALENT),
        ("a U b", "!(!a R !b)", Relation.EQUIVALENT),
        ("G a", "F a", Relation.STRONGER),
        ("F a", "G a", Relation.WEAKER),
        ("G a", "F !a", Relation.DISJOINT),
        ("G F a", "F G a", Relation.WEAKER),
        ("a", "b", Relation.OVERLAPPING),
    ],
)
def test_relations_of_known_pairs(a: str, b: str, relation: Relation) -> None:
    fp = Fingerprints()
    fa, fb = parse(a), parse(b)
    assert relate(fa, fb, _infinite, (fp, fp.of(fa), fp.of(fb))).relation is relation
    assert relate(fa, fb, _infinite).relation is relation  # the engine alone agrees


def test_unrelated_formulas_are_told_apart_by_traces_alone() -> None:
    """The fingerprints' traces answer every question of an overlapping pair: no engine call."""
    fp = Fingerprints()
    a, b = parse("G(a -> F b)"), parse("F(a & X c)")

    def engine(question: Formula) -> Result:
        raise AssertionError(f"asked the engine about {question}")

    assert relate(a, b, engine, (fp, fp.of(a), fp.of(b))).relation is Relation.OVERLAPPING


@settings(max_examples=60, deadline=None)
@given(formulas(NAMES, max_leaves=6, past=True), st.booleans())
def test_fingerprint_bits_are_the_reference_values(f: Formula, finite: bool) -> None:
    fp = Fingerprints("finite" if finite else "infinite", 32)
    bits = fp.of(f)
    for k in range(fp.size):
        trace = fp.trace(k, NAMES)
        letters = [next(x for x in LETTERS if prop_value(step, x)) for step in trace.steps]
        if finite:
            expected = satisfies_finite(f, letters)
        else:
            expected = satisfies(f, letters[: len(trace.prefix)], letters[len(trace.prefix) :])
        assert bool(bits >> k & 1) == expected, (str(f), k, trace.to_str())


def test_equivalent_formulas_share_a_fingerprint_and_others_are_ranked_by_it() -> None:
    fp = Fingerprints()
    same = [fp.of(parse(t)) for t in ("G(a -> F b)", "!F(a & G !b)", "G(!a | F b)")]
    assert len(set(same)) == 1 and cosine(same[0], same[1], fp.size) == 1.0
    assert cosine(fp.of(parse("G F a")), fp.of(parse("F G a")), fp.size) < 1.0
    assert cosine(fp.of(parse("a")), fp.of(parse("!a")), fp.size) == -1.0


def test_a_proposition_keeps_its_values_whatever_the_other_names() -> None:
    fp = Fingerprints()
    assert fp.of(parse("G F a")) == fp.of(parse("G F a & (b | !b)"))


def test_data_formulas_are_ranked_by_their_skeleton_and_related_by_the_engine(tmp_path: Path) -> None:
    f = parse("G(x > 5 -> F y = 2)")
    assert str(skeleton(f)) == 'G("x > 5" -> F"y = 2")'
    spec = tmp_path / "d.spec"
    spec.write_text("var x: Int\nfast: G(x > 5)\nslow: G(x > 3)\nother: F(x < 0)\n")
    answers = {s.entry.name: s for s in similar(spec, top=2)}
    relations = {n.entry.name: n.related.relation for n in answers["fast"].neighbours}
    assert relations == {"slow": Relation.WEAKER, "other": Relation.DISJOINT}  # each neighbour's to `fast`


def test_similar_cli_relates_each_spec_to_its_nearest(tmp_path: Path) -> None:
    spec = tmp_path / "r.spec"
    spec.write_text("r1: G(req -> F grant)\nr2: !F(req & G !grant)\nr3: G(req -> X grant)\nbad: G(\n")
    result = run("similar", "-F", str(spec), "--top", "2", "--format", "json")
    assert result.exit_code == 2  # the spec that does not parse; the others are still answered
    records = {r["name"]: r for r in map(json.loads, result.stdout.splitlines())}
    assert records["bad"]["error"].startswith("parse error")
    assert [(n["name"], n["relation"]) for n in records["r1"]["neighbours"]] == [
        ("r2", "equivalent"),
        ("r3", "stronger"),  # r3 implies r1
    ]
    assert [n["relation"] for n in records["r3"]["neighbours"]] == ["weaker", "weaker"]
    assert "^" in result.stderr  # the caret under the parse error


def test_similar_with_queries_and_a_file_of_one_spec(tmp_path: Path) -> None:
    spec = tmp_path / "one.spec"
    spec.write_text("only: G a\n")
    alone = run("similar", "-F", str(spec))
    assert alone.exit_code == 0 and "nothing to compare" in alone.stdout
    unread = run("similar", "-F", str(spec), "G(")
    assert unread.exit_code == 2 and unread.stdout == "ERROR G(\n"  # not every spec against the others instead
    asked = run("similar", "-F", str(spec), "F !a", "G(a & b)")
    assert asked.exit_code == 0
    assert asked.stdout.splitlines()[1].split()[1] == "disjoint"  # G a, to F !a
    assert asked.stdout.splitlines()[3].split()[1] == "weaker"  # G a, to G(a & b)


def test_embed_cli_prints_equal_fingerprints_for_equivalent_formulas() -> None:
    result = run("embed", "--fingerprint", "--size", "16", "a U b", "!(!a R !b)", "G(")
    assert result.exit_code == 2
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["vector"] == second["vector"] and len(first["vector"]) == 16 and set(first["vector"]) <= {-1, 1}
    assert first["embedding"] == "fingerprint"
    csv = run("embed", "--fingerprint", "--size", "4", "--format", "csv", "G a").stdout.splitlines()
    assert csv[0] == "input,name,where,v0,v1,v2,v3" and csv[1].startswith("G a,,,")


def test_embed_api_matches_the_fingerprint() -> None:
    (done,) = embed(["G F a"], fingerprint=True)
    fp = Fingerprints()
    bits = fp.of(parse("G F a"))
    assert list(done.vector) == [1 if bits >> k & 1 else -1 for k in range(fp.size)]
    assert done.embedding == "fingerprint"


def test_embed_gives_the_bundled_learned_embedding_of_the_inputs_logic() -> None:
    """By default the bundled ExpEmb-E model of the inputs' logic, the same vectors as naming
    it; the fingerprint where it cannot read an input, said on stderr, and never a mix."""
    from ltlwit.neural.expemb import embeddings, load

    temporal = run("embed", "G(x -> F y)", "x & y")
    records = [json.loads(line) for line in temporal.stdout.splitlines()]
    assert temporal.exit_code == 0 and [r["embedding"] for r in records] == ["expemb-ltl"] * 2
    assert [r["vector"] for r in records] == [
        [float(v) for v in e.vector] for e in embed(["G(x -> F y)", "x & y"], model="expemb-ltl")
    ]
    (direct,) = embeddings(load("expemb-ltl"), [parse("G(a -> F b)")])
    assert records[0]["vector"] == pytest.approx(list(direct), abs=1e-5)  # the names renamed a, b
    assert [e.embedding for e in embed(["x & y", "x | !y"])] == ["expemb-prop"] * 2
    past = run("embed", "G(x -> F y)", "H x")
    assert past.exit_code == 0 and {json.loads(line)["embedding"] for line in past.stdout.splitlines()} == {
        "fingerprint"
    }
    assert past.stderr == (
        "ltlwit: the fingerprint for every input: the learned models read future-time LTL over propositions,"
        " not 'H' (H x)\n"
    )
    assert run("embed", "--model", "expemb-ltl", "--fingerprint", "a").exit_code == 2


def test_check_similar_lists_each_requirements_nearest_without_failing_the_check(tmp_path: Path) -> None:
    spec = tmp_path / "r.spec"
    spec.write_text(
        "served: G(req -> F grant)\nno_starvation: !F(req & G !grant)\nprompt: G(req -> X grant)\n"
        "never: G !req & F req  # expect: unsat\nasked: F(req & X grant)  # expect: allowed\n"
    )
    checked = run("check", "--similar", "2", "--format", "json", str(spec))
    assert checked.exit_code == 0  # an equivalent pair is reported, not failed (--redundancy fails it)
    records = {r["name"]: r for r in map(json.loads, checked.stdout.splitlines()) if r.get("kind") == "spec"}
    assert records["never"]["similar"] is None and records["asked"]["similar"] is None  # requirements only
    alone = tmp_path / "requirements.spec"
    alone.write_text("".join(line + "\n" for line in spec.read_text().splitlines()[:3]))
    compared = {
        r["name"]: r
        for r in map(json.loads, run("similar", "-F", str(alone), "--top", "2", "--format", "json").stdout.splitlines())
    }
    for name in ("served", "no_starvation", "prompt"):
        mine = [(n["name"], n["similarity"], n["relation"]) for n in records[name]["similar"]]
        assert mine == [(n["name"], n["similarity"], n["relation"]) for n in compared[name]["neighbours"]]
    text = run("check", "--similar", "2", str(spec)).stdout
    assert "SIMILAR prompt (" in text and "implies served (" in text  # prompt implies served
    assert text.splitlines()[-1].endswith(
        "3 near pairs: 1 equivalent, 2 implied, 0 overlapping, 0 contradictory, 0 undecided"
    )


def test_embed_without_torch_gives_the_fingerprint_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's install has no PyTorch: `embed` still prints a vector for each input."""
    import ltlwit.neural

    monkeypatch.setattr(ltlwit.neural, "torch_installed", lambda: False)
    done = run("embed", "G(a -> F b)")
    assert done.exit_code == 0 and json.loads(done.stdout)["embedding"] == "fingerprint"
    assert "the learned models need PyTorch, which is not installed here" in done.stderr
