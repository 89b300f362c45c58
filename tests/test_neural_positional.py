"""Tree positional encoding (hand-checked paths, an AST reference, batching) and RoPE."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from strategies import formulas

from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax import parse_formula
from ltlwit.neural.positional import Rotary, tree_positions
from ltlwit.neural.tokenizer import PAD, encode_formula

L, R = [1, 0], [0, 1]


def paths(text: str, d: int, pad: int = 0) -> list[list[int]]:
    ids = encode_formula(parse_formula(text, "polish"))
    pe = tree_positions(torch.tensor([ids + [PAD] * pad]), d)[0]
    return [[int(x) for x in row] for row in pe]


def trimmed(rows: list[list[int]]) -> list[list[int]]:
    """Drop the zero padding at the end of each row (paths have a 1 in every step)."""
    out = []
    for row in rows:
        n = len(row)
        while n and row[n - 1] == 0 and row[n - 2] == 0:
            n -= 2
        out.append(row[:n])
    return out


@pytest.mark.parametrize(
    "text, expected",
    [
        ("&Uab!Xc", [[], L, L + L, R + L, R, L + R, L + L + R]),  # the tree-position example
        ("a", [[]]),
        ("XXa", [[], L, L + L]),
        ("U!ab", [[], L, L + L, R]),
        ("&a&bc", [[], L, R, L + R, R + R]),
        ("<->xorab1", [[], L, L + L, R + L, R]),
    ],
)
def test_hand_checked_paths(text: str, expected: list[list[int]]) -> None:
    assert trimmed(paths(text, 16)) == expected


def test_paths_are_cut_to_d_and_pads_are_zero() -> None:
    rows = paths("XXXXa", 4, pad=3)
    assert rows[4] == L + L  # four steps, cut to the nearest two
    assert rows[5:] == [[0, 0, 0, 0]] * 3


def reference(f: Formula, d: int) -> list[list[float]]:
    """Straight from the AST: root-to-node path, nearest step first, zero-padded/cut to d."""
    out: list[list[float]] = []

    def visit(node: Formula, path: list[int]) -> None:
        row = (path + [0] * d)[:d]
        out.append([float(x) for x in row])
        for i, child in enumerate(node.children):
            visit(child, (R if i == 1 else L) + path)

    visit(f, [])
    return out


@settings(max_examples=50, deadline=None)
@given(formulas(max_leaves=20))
def test_matches_the_ast_reference(f: Formula) -> None:
    ids = encode_formula(f)
    got = tree_positions(torch.tensor([ids]), 24)[0].tolist()
    assert got == reference(f, 24)


def test_batches_with_different_lengths() -> None:
    texts = ["&Uab!Xc", "a", "U!ab"]
    ids = [encode_formula(parse_formula(t, "polish")) for t in texts]
    width = max(map(len, ids))
    batch = tree_positions(torch.tensor([r + [PAD] * (width - len(r)) for r in ids]), 8)
    for row, r in zip(batch, ids):
        assert torch.equal(row[: len(r)], tree_positions(torch.tensor([r]), 8)[0])
        assert not row[len(r) :].any()


def test_rope_depends_on_relative_positions_only() -> None:
    torch.manual_seed(0)
    rope = Rotary(8)
    q, k = torch.randn(1, 1, 1, 8), torch.randn(1, 1, 1, 8)
    dot = lambda m, n: float((rope(q, m) * rope(k, n)).sum())  # noqa: E731
    for m in range(4):
        for n in range(4):
            assert dot(m, n) == pytest.approx(dot(m + 5, n + 5), abs=1e-5)
    assert dot(0, 1) != pytest.approx(dot(0, 2), abs=1e-3)
    assert float(rope(q, 3).norm()) == pytest.approx(float(q.norm()), rel=1e-5)
    with pytest.raises(ValueError):
        Rotary(7)
