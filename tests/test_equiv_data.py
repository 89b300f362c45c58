"""Equivalence classes for the embeddings (`ltlwit data equiv`, `ltlwit.train.equiv`).

Each identity is checked against the textbook references (tests/ltl_reference.py,
tests/ltlf_reference.py) on every short word, at every position of random formulas where it
applies, under each semantics it is listed for: the engine, which proves every member of a class,
is not the judge of the identities it is asked about.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run
from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_reference import lassos, satisfies
from ltlf_reference import satisfies_finite, words
from strategies import formulas

from ltlwit.logic.formula import Formula
from ltlwit.train.equiv import RULES, SOURCES, EquivConfig, _at, _positions, _replace, equivalence_classes

NAMES = ("a", "b")
LASSOS = lassos(1, 2, NAMES)
FINITE = list(words(NAMES, 3))
LONGER_LASSOS = lassos(2, 3, NAMES)
LONGER_FINITE = list(words(NAMES, 5))


def _same(f: Formula, g: Formula, logic: str, longer: bool = False) -> bool:
    if logic == "ltlf":
        return all(satisfies_finite(f, w) == satisfies_finite(g, w) for w in (LONGER_FINITE if longer else FINITE))
    return all(satisfies(f, p, c) == satisfies(g, p, c) for p, c in (LONGER_LASSOS if longer else LASSOS))


@settings(max_examples=80, deadline=None)
@given(
    formulas(NAMES, max_leaves=5, weak=True) | formulas(NAMES, max_leaves=5, past=True), st.sampled_from(sorted(RULES))
)
def test_every_identity_holds_wherever_it_applies(f: Formula, logic: str) -> None:
    if logic == "prop" and f.temporal:
        return
    for path in _positions(f):
        for rule in RULES[logic]:
            done = rule(_at(f, path))
            if done is not None:
                g = _replace(f, path, done)
                assert _same(f, g, logic), (logic, rule.__name__, str(f), str(g))


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("traces", [128, 3])
def test_classes_hold_equivalent_members_and_are_apart(source: str, traces: int, monkeypatch) -> None:
    """With fingerprints of three traces, many formulas share one: the engine alone keeps classes apart."""
    from ltlwit.logic import fingerprint

    real = fingerprint.Fingerprints
    monkeypatch.setattr(fingerprint, "Fingerprints", lambda semantics, size, seed: real(semantics, traces, seed))
    for logic in ("prop", "ltl", "ltlf"):
        config = EquivConfig(logic=logic, n_aps=2, max_size=7, classes=8, members=5, seed=3, source=source)
        classes = list(equivalence_classes(config))
        assert len(classes) == 8 and [c.number for c in classes] == list(range(8))
        for c in classes:
            assert len(set(c.members)) == len(c.members) >= 2
            assert all(_same(c.members[0], m, logic) for m in c.members[1:]), [str(m) for m in c.members]
        for i, c in enumerate(classes):  # apart on some word (longer ones than _same's: formulas of 7 tokens)
            for d in classes[:i]:
                assert not _same(c.members[0], d.members[0], logic, longer=True), (str(c.members[0]), str(d.members[0]))
        assert list(equivalence_classes(config)) == classes  # the same seed, the same classes


def test_random_classes_share_no_rewriting() -> None:
    """Random members are drawn, not rewritten: a class's members need not share their shape
    (here, some class holds two members with different operators at the root)."""
    config = EquivConfig(logic="ltl", n_aps=2, max_size=7, classes=20, seed=1, source="random")
    assert any(len({m.op for m in c.members}) > 1 for c in equivalence_classes(config))


def test_data_equiv_writes_classes_and_their_table(tmp_path: Path) -> None:
    out = tmp_path / "eq.jsonl.gz"
    result = run("data", "equiv", "--classes", "10", "--logic", "ltlf", "--seed", "1", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    import gzip

    rows = [json.loads(line) for line in gzip.open(out, "rt")]
    assert len(rows) == 10 and {r["logic"] for r in rows} == {"ltlf"}
    assert {r["split"] for r in rows} <= {"train", "val", "test"}
    assert "train:" in result.stderr and "classes" in result.stderr
