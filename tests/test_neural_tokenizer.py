"""Tokenizer: AP slots, Polish ids from the AST, round trips with many APs, decode errors as values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import formulas

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import FALSE, TRUE, Formula, ap, binop, unop
from ltlwit.logic.rename import slot_name
from ltlwit.logic.trace import Trace
from ltlwit.neural.tokenizer import (
    BASE_TOKENS,
    EOS,
    N_BASE,
    PAD,
    START,
    DecodeError,
    canonical_slots,
    decode_assignment,
    decode_formula,
    decode_trace,
    decode_witness,
    encode_assignment,
    encode_formula,
    encode_trace,
    encode_witness,
    render,
    slot_index,
)

N_APS = 30


SLOTS = [slot_name(i) for i in range(N_APS)]
steps = formulas(SLOTS, max_leaves=8, temporal=False)


def test_base_vocabulary_and_slots() -> None:
    assert BASE_TOKENS[:3] == ("<pad>", "<eos>", "<start>") and (PAD, EOS, START) == (0, 1, 2)
    assert {"0", "1", "!", "&", "|", "X", "U", "F", "G", "R", "W", "M", "->", "<->", "xor", ";", "{", "}"} == set(
        BASE_TOKENS[3:]
    )
    for i in (0, 25, 26, 27, 1000):
        assert slot_index(slot_name(i)) == i
    for bad in ("p5", "p026", "req", "A", "", "p1x"):
        with pytest.raises(ValueError):
            slot_index(bad)


def test_formula_ids_are_polish_order_from_the_ast() -> None:
    f = binop("&", binop("U", ap("a"), ap("b")), unop("!", unop("X", ap("c"))))
    ids = encode_formula(f)
    assert render(ids) == "&Uab!Xc"
    assert ids[2:4] == [N_BASE, N_BASE + 1] and ids[-1] == N_BASE + 2
    assert render(encode_formula(binop("<->", ap(slot_name(40)), FALSE))) == "<->[p40]0"


def test_canonical_slots_follow_first_appearance() -> None:
    f = binop("&", ap("req"), binop("U", ap("grant"), ap("req")))
    slots = canonical_slots(f)
    assert slots == {"req": 0, "grant": 1}
    assert render(encode_formula(f, slots)) == "&aUba"
    with pytest.raises(ValueError):
        encode_formula(f)  # not slot names


def test_deepltl_trace_layout() -> None:
    a, b = ap("a"), ap("b")
    t = Trace((TRUE, binop("&", a, unop("!", b))), (binop("|", unop("!", a), b),))
    ids = encode_trace(t)
    assert render(ids) == "1;&a!b;{|!ab}"
    assert decode_trace(ids + [EOS, PAD]) == t
    assert render(encode_trace(Trace((), (TRUE,)))) == "{1}"


def test_assignments_in_slot_order() -> None:
    a = Assignment.of({slot_name(27): True, "q": False, "a": True})
    ids = encode_assignment(a)
    assert render(ids) == "a1q0[p27]1"  # slot order (q is slot 16), not name order (p27 < q)
    assert decode_assignment(ids) == a
    assert encode_witness("prop", a) == ids and decode_witness("prop", ids) == a


@settings(max_examples=60, deadline=None)
@given(formulas(SLOTS, max_leaves=40))
def test_formula_round_trip(f: Formula) -> None:
    ids = encode_formula(f)
    assert len(ids) == f.size
    assert decode_formula(ids) is f  # hash-consed: the very same formula


@settings(max_examples=40, deadline=None)
@given(st.lists(steps, max_size=4), st.lists(steps, min_size=1, max_size=4))
def test_trace_round_trip(prefix: list[Formula], cycle: list[Formula]) -> None:
    t = Trace(tuple(prefix), tuple(cycle))
    assert decode_trace(encode_trace(t)) == t
    assert decode_witness("ltl", encode_witness("ltl", t)) == t


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.integers(0, N_APS - 1).map(slot_name), st.booleans()))
def test_assignment_round_trip(values: dict[str, bool]) -> None:
    a = Assignment.of(values)
    assert decode_assignment(encode_assignment(a)) == a


def test_thirty_aps_in_one_formula_and_trace() -> None:
    aps = [ap(slot_name(i)) for i in range(N_APS)]
    f = aps[0]
    for x in aps[1:]:
        f = binop("U", f, unop("X", x))
    assert decode_formula(encode_formula(f)) is f
    t = Trace(tuple(aps[:15]), tuple(aps[15:]))
    assert decode_trace(encode_trace(t)) == t
    assert len(set(encode_formula(f)) - set(range(N_BASE))) == N_APS


@pytest.mark.parametrize(
    "text, decode",
    [
        ("&a", decode_formula),
        ("ab", decode_formula),
        (";", decode_formula),
        ("a;b", decode_trace),
        ("{}", decode_trace),
        ("{a", decode_trace),
        ("{a}b", decode_trace),
        ("a{b}", decode_trace),
        ("{Xa}", decode_trace),
        ("a", decode_assignment),
        ("a1a0", decode_assignment),
        ("1a", decode_assignment),
        ("a&", decode_assignment),
    ],
)
def test_decode_errors_are_values(text: str, decode) -> None:
    ids = [N_BASE + ord(c) - ord("a") if c.isalpha() and c != "X" else BASE_TOKENS.index(c) for c in text]
    got = decode(ids)
    assert isinstance(got, DecodeError), (text, got)
    assert got.reason and 0 <= got.position <= len(ids)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, N_BASE + 6), max_size=20), st.sampled_from(["ltl", "prop"]))
def test_decoding_never_raises(ids: list[int], task: str) -> None:
    for got in (decode_formula(ids), decode_witness(task, ids)):
        assert isinstance(got, (Formula, Trace, Assignment, DecodeError))
