"""score_k (`ltlwit.eval.embeddings`) and the two embeddings that need no training."""

from __future__ import annotations

import pytest

from ltlwit.api import parse
from ltlwit.eval.embeddings import BASELINES, analogies, bag_of_tokens, fingerprints, nearest, score_k


def test_score_k_by_hand() -> None:
    # two classes, well apart: every neighbour found
    vectors = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]]
    assert score_k(vectors, [0, 0, 1, 1], k=5) == 100.0
    # classes crossed: each nearest neighbour is of the other class
    assert score_k(vectors, [0, 1, 0, 1], k=1) == 0.0
    # a class of one is no query; k larger than the class counts what can be found
    assert score_k([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]], [0, 0, 1], k=5) == 100.0
    # ties at the k-th place go by order: a constant embedding finds what comes first
    assert score_k([[1.0]] * 4, [0, 1, 1, 0], k=1) == pytest.approx(100.0 * 1 / 4)


def test_the_fingerprint_keeps_a_class_together_where_tokens_do_not() -> None:
    classes = [["G(a -> F b)", "!F(a & G !b)"], ["F a", "!G !a"], ["G a", "!F !a"], ["a U b", "!(!a R !b)"]]
    formulas = [parse(t) for members in classes for t in members]
    labels = [n for n, members in enumerate(classes) for _ in members]
    assert score_k(fingerprints(formulas), labels, k=1) == 100.0
    assert score_k(bag_of_tokens(formulas), labels, k=1) < 100.0
    assert bag_of_tokens([parse("a & a")]) == [[1.0, 2.0]]  # `&` once, `a` twice (every occurrence)


def test_analogies_are_answered_by_vector_arithmetic_and_judged_by_the_engine() -> None:
    pool = [parse(t) for t in ["X a", "F b", "G b", "a & b", "G !b", "F c"]]
    quads = [tuple(parse(t) for t in q) for q in [("G a", "F a", "G b", "F b"), ("G a", "G !a", "G b", "!F b")]]
    tokens = analogies(BASELINES["bag of tokens"], pool, quads)
    assert tokens == [(parse("F b"), True), (parse("G !b"), True)]  # d = !F b, proved equal to G !b
    constant = analogies(lambda formulas, semantics: [[1.0, 0.0] for _ in formulas], pool, quads)
    assert [right for _, right in constant] == [False, False]  # X a, the first candidate, twice
    assert nearest([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]], [1.0, 0.0], 2, leave_out=[0]) == [2, 1]
