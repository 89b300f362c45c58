"""Beam search over both families: sorted, distinct, at most N <= beam, deterministic, valid."""

from __future__ import annotations

import pytest
import torch
from neural_support import DATA, one_thread, trained  # noqa: F401 - one_thread is a fixture

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import And, ap
from ltlwit.logic.rename import slot_name
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.trace import Trace
from ltlwit.neural.beam import beam_hypotheses, beam_search, encode_inputs, greedy
from ltlwit.neural.tokenizer import decode_witness, encode_witness


def inputs(task: str, n: int = 12) -> list:
    lines = (DATA / task / "val.txt").read_text().split("\n")
    return [parse_formula(t, "polish") for t in lines[0 : 2 * n : 2]]


@pytest.mark.slow
@pytest.mark.parametrize("arch, task", [("si", "ltl"), ("dual", "ltl"), ("si", "prop"), ("dual", "prop")])
def test_candidates_sorted_distinct_valid_and_deterministic(arch: str, task: str) -> None:
    model = trained(arch, task)
    fs = inputs(task)
    first = beam_search(model, fs, beam=4, n_best=3)
    second = beam_search(model, fs, beam=4, n_best=3)
    assert first == second
    kind = Trace if task == "ltl" else Assignment
    assert sum(map(len, first)) >= len(fs)  # not vacuous
    for cands in first:
        assert len(cands) <= 3
        scores = [c.score for c in cands]
        assert scores == sorted(scores, reverse=True)
        assert len({c.tokens for c in cands}) == len(cands) == len({str(c.witness) for c in cands})
        for c in cands:
            assert isinstance(c.witness, kind) and decode_witness(task, c.tokens) == c.witness
            if task == "ltl":
                assert tuple(encode_witness(task, c.witness)) == c.tokens


def test_hypotheses_include_invalid_strings_that_search_drops() -> None:
    model = trained("dual", "ltl", steps=20)  # barely trained: many malformed outputs
    fs = inputs("ltl", 8)
    hyps = beam_hypotheses(model, fs, beam=3, max_len=30)
    cands = beam_search(model, fs, beam=3, max_len=30)
    for h, c in zip(hyps, cands):
        assert len(c) <= len(h)
        kept = {x.tokens for x in c}
        assert [x.tokens for x in c] == [seq for _, seq in h if seq in kept]  # same order


def test_beam_of_one_without_length_penalty_is_greedy() -> None:
    model = trained("si", "ltl")
    fs = inputs("ltl")
    src, n_slots, n_aps = encode_inputs(fs, torch.device("cpu"))
    with torch.no_grad():
        greedy_out = greedy(model, src, n_slots, n_aps, max_len=40)
    for f, g, hyps in zip(fs, greedy_out, beam_hypotheses(model, fs, beam=1, alpha=0.0, max_len=40)):
        if hyps:
            assert list(hyps[0][1]) == g, f


@pytest.mark.parametrize("arch", ["si", "dual"])
def test_a_batch_gets_what_each_formula_gets_alone(arch: str) -> None:
    """The batch shares the encoder pass between an input's beams and drops inputs as they
    finish: no input may see another's rows (streams, beams, cache) on the way."""
    model = trained(arch, "ltl")
    fs = inputs("ltl", 16)
    # A dual-part model can name every slot up to the batch's highest, whichever its input has:
    # alone, an input offers its own slots only. Keep the inputs for which the two agree.
    slots = encode_inputs(fs, torch.device("cpu"))[1]
    fs = [f for f in fs if encode_inputs([f], torch.device("cpu"))[1] == slots]
    together = beam_search(model, fs, beam=3, max_len=40)
    lengths = {len(c[0].tokens) for c in together if c}
    assert len(lengths) > 1  # the inputs finish at different steps: some leave the batch early
    for f, got in zip(fs, together):
        alone = beam_search(model, [f], beam=3, max_len=40)[0]
        assert [c.tokens for c in got] == [c.tokens for c in alone], f
        assert [c.score for c in got] == pytest.approx([c.score for c in alone], abs=1e-4)


@pytest.mark.parametrize("arch", ["si", "dual"])
def test_decoding_runs_under_autocast(arch: str) -> None:
    """Training validates by greedy decoding under bfloat16 autocast (on a GPU): the sublayers
    then return bfloat16 beside the float32 residual stream, and decoding must take both."""
    model = trained(arch, "ltl")
    fs = inputs("ltl", 6)
    src, n_slots, n_aps = encode_inputs(fs, torch.device("cpu"))
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        out = greedy(model, src, n_slots, n_aps, max_len=20)
        hyps = beam_hypotheses(model, fs, beam=3, max_len=20)
    assert len(out) == len(hyps) == len(fs) and sum(map(len, out)) > 0


def test_arguments_and_ap_limits() -> None:
    si, dual = trained("si", "ltl"), trained("dual", "ltl")
    f = parse_formula("&ab", "polish")
    with pytest.raises(ValueError, match="n_best"):
        beam_search(si, [f], beam=2, n_best=3)
    with pytest.raises(ValueError):
        beam_search(si, [f], beam=0)
    with pytest.raises(ValueError, match="slot name"):
        beam_search(si, [And(ap("req"), ap("grant"))])
    many = And(*(ap(slot_name(i)) for i in range(40)))
    assert isinstance(beam_search(si, [many], beam=2, max_len=8, device="cpu"), list)  # any number of APs
    with pytest.raises(ValueError, match="at most 32 APs"):
        beam_search(dual, [many], beam=2, max_len=8)
    assert not si.training and not dual.training


# The propositional pair trains two more tiny models (~35 s on a busy 2-core CPU) for the same
# search code: slow, so the default run leaves it to CI.
@pytest.mark.parametrize(
    "arch, task",
    [
        ("si", "ltl"),
        ("dual", "ltl"),
        pytest.param("si", "prop", marks=pytest.mark.slow),
        pytest.param("dual", "prop", marks=pytest.mark.slow),
    ],
)
def test_every_tensor_is_placed_on_an_explicit_device(arch: str, task: str) -> None:
    """Stands in for a GPU run on machines without one: with the default device set to `meta`,
    any tensor that beam search or the model creates without naming its device has no data,
    so the search fails or changes. On CUDA the same slip would put it on the CPU."""
    model = trained(arch, task)
    fs = inputs(task)
    expected = beam_search(model, fs, beam=3, max_len=40)
    torch.set_default_device("meta")
    try:
        got = beam_search(model, fs, beam=3, max_len=40)
    finally:
        torch.set_default_device(None)
    assert got == expected and sum(map(len, got)) > 0
