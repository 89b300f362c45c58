"""Spot's own readings (tests/data/parse.jsonl, a copy of ../shared/data/golden/parse.jsonl)
must come out of our parsers structure for structure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax import ParseError, parse_formula

GOLDEN = Path(__file__).parent / "data" / "parse.jsonl"
ROWS = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
SYNTAX = {"infix": "spot", "lbt": "lbt", "polish": "polish-spaced"}
_PLAIN = re.compile(r"[A-Za-z0-9_]+\Z")


def canon(f: Formula) -> str:
    """The canonical form of ../shared/data/README.md: n-ary & and | flattened and sorted,
    <-> and xor operands sorted, names JSON-quoted unless made of letters, digits and _."""
    if f.op in ("1", "0"):
        return f.op
    if f.op == "ap":
        return f.name if _PLAIN.match(f.name) else json.dumps(f.name)
    if f.op in ("&", "|"):
        parts, stack = [], [f]
        while stack:
            node = stack.pop()
            if node.op == f.op:
                stack.extend(node.children)
            else:
                parts.append(canon(node))
        return f"({f.op} {' '.join(sorted(parts))})"
    parts = [canon(c) for c in f.children]
    if f.op in ("<->", "xor"):
        parts.sort()
    return f"({f.op} {' '.join(parts)})"


def test_golden_file_is_complete():
    assert len(ROWS) == 2550
    assert {row["syntax"] for row in ROWS} == set(SYNTAX)


def test_canon_examples_from_the_readme():
    assert canon(parse_formula("a & b U c", "spot")) == "(& (U b c) a)"
    assert canon(parse_formula("a & (b & c)", "spot")) == "(& a b c)"
    assert canon(parse_formula('"x < 3" U b', "spot")) == '(U "x < 3" b)'


def test_every_golden_input_parses_to_spots_structure():
    wrong = []
    for row in ROWS:
        got = canon(parse_formula(row["input"], SYNTAX[row["syntax"]]))
        if got != row["canon"]:
            wrong.append((row["input"], row["canon"], got))
    assert wrong == []


def test_auto_detection_agrees_with_the_golden_syntax():
    """Auto tries infix first (as Spot does), so a prefix string that is also valid infix,
    such as the unary chain `X ! G X f`, is read as infix; every other line must match."""
    wrong = []
    for row in ROWS:
        if row["syntax"] != "infix":
            try:
                parse_formula(row["input"], "spot")
                continue
            except ParseError:
                pass
        got = canon(parse_formula(row["input"]))
        if got != row["canon"]:
            wrong.append((row["input"], row["canon"], got))
    assert wrong == []


@pytest.mark.parametrize("syntax", ["spot", "polish-spaced", "lbt"])
def test_golden_formulas_print_and_parse_back_identically(syntax):
    for row in ROWS:
        f = parse_formula(row["input"], SYNTAX[row["syntax"]])
        assert parse_formula(f.to_str(syntax), syntax) is f
