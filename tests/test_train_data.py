"""Training data: two-line files, canonical slots, caching, bucketed resumable sharded batches,
bijective AP renaming."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import torch
from neural_support import DATA, one_thread  # noqa: F401 - one_thread is a fixture

from ltlwit.logic.rename import Renaming
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.trace import Trace
from ltlwit.neural.tokenizer import EOS, N_BASE, PAD, START, decode_formula, decode_trace, render
from ltlwit.train import data as D
from ltlwit.train.data import Batches, DeviceSplit, encode_file, encode_pair, load_split
from ltlwit.train.pairs import iter_pairs

CPU = torch.device("cpu")


def write(path: Path, pairs: list[tuple[str, str]], gz: bool = False) -> Path:
    text = "".join(f"{f}\n{label}\n" for f, label in pairs)
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


def test_iter_pairs_plain_and_gzip(tmp_path: Path) -> None:
    pairs = [("&ab", "{&ab}"), ("Xc", "1;{c}")]
    assert list(iter_pairs(write(tmp_path / "a.txt", pairs))) == pairs
    assert list(iter_pairs(write(tmp_path / "a.txt.gz", pairs, gz=True))) == pairs
    (tmp_path / "odd.txt").write_text("&ab\n{1}\nXa\n")
    with pytest.raises(ValueError, match="odd number of lines"):
        list(iter_pairs(tmp_path / "odd.txt"))


def test_encode_pair_numbers_aps_canonically() -> None:
    src, tgt, n = encode_pair("ltl", "&cUac", "&ac;{1}")  # c first, then a
    assert render(src) == "&aUba" and render(tgt) == "&ba;{1}" and n == 2
    src, tgt, n = encode_pair("prop", "|e!b", "b0")
    assert render(src) == "|a!b" and render(tgt) == "b0" and n == 2
    assert encode_pair("ltl", "Xa", "{b}") is None  # a label AP the formula lacks


def test_encode_file_counts_drops_and_reports_lines(tmp_path: Path) -> None:
    split = encode_file(write(tmp_path / "t.txt", [("&ab", "{a}"), ("Xa", "{b}"), ("b", "{b}")]), "ltl")
    assert len(split) == 2 and split.dropped == 1
    assert split.n_aps.tolist() == [2, 1]
    with pytest.raises(ValueError, match=r"t2\.txt:3: "):
        encode_file(write(tmp_path / "t2.txt", [("a", "{a}"), ("&a", "{a}")]), "ltl")


def test_cache_is_used_and_keyed_by_content(tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path / "train.txt", [("&ab", "{a}"), ("Xa", "{a}")])
    first = load_split(path, "ltl", tmp_path / "cache")
    assert len(list((tmp_path / "cache").glob("*.pt"))) == 1

    def boom(*args, **kwargs):
        raise AssertionError("parsed again")

    monkeypatch.setattr(D, "encode_file", boom)
    again = load_split(path, "ltl", tmp_path / "cache")
    assert torch.equal(again.src, first.src) and torch.equal(again.tgt_len, first.tgt_len)
    write(path, [("&ab", "{b}")])  # new content: a new key
    with pytest.raises(AssertionError, match="parsed again"):
        load_split(path, "ltl", tmp_path / "cache")


def device_split(task: str = "ltl", **kwargs) -> DeviceSplit:
    return DeviceSplit(encode_file(DATA / task / "train.txt", task, workers=1), CPU, **kwargs)


def test_batches_hold_the_samples() -> None:
    data = device_split()
    batch = next(Batches(data, 16, seed=0))
    assert batch.src.shape[1] % 8 == 0 and batch.tgt_in.shape == batch.tgt_out.shape
    assert (batch.tgt_in[:, 0] == START).all()
    lines = (DATA / "ltl" / "train.txt").read_text().split("\n")
    formulas = {render(encode_pair("ltl", lines[i], lines[i + 1])[0]) for i in range(0, 128, 2)}
    for src, tin, tout in zip(batch.src.tolist(), batch.tgt_in.tolist(), batch.tgt_out.tolist()):
        f = decode_formula([t for t in src if t != PAD])
        assert render(encode_pair("ltl", f.to_str("polish"), "{1}")[0]) in formulas
        body = [t for t in tout if t != PAD]
        assert body[-1] == EOS and tin[1 : len(body)] == body[:-1]
        assert isinstance(decode_trace(body), Trace)
    assert (
        batch.n_aps
        == batch.n_slots
        == max(len(decode_formula([t for t in s if t != PAD]).aps()) for s in batch.src.tolist())
    )


def epoch_indices(batches: Batches, count: int) -> list[list[int]]:
    out = []
    for _ in range(count):
        b = next(batches)
        out.append(sorted(map(tuple, b.src.tolist())))
    return out


def test_epochs_cover_every_sample_once_and_are_seeded() -> None:
    data = device_split()
    b = Batches(data, 16, seed=3)
    first = epoch_indices(b, 4)
    assert b.state_dict() == {"epoch": 0, "pos": 4}
    seen = [row for batch in first for row in batch]
    assert len(seen) == 64 and len(set(seen)) == len({tuple(r) for r in data.src.tolist()})
    assert epoch_indices(Batches(data, 16, seed=3), 4) == first
    assert epoch_indices(b, 4) != first  # the next epoch is shuffled anew
    assert epoch_indices(Batches(data, 16, seed=4), 4) != first


def test_resume_position_and_sharding() -> None:
    data = device_split()
    full = Batches(data, 8, seed=1)
    epoch_indices(full, 5)
    state = full.state_dict()
    rest = epoch_indices(full, 6)  # crosses into the next epoch
    resumed = Batches(data, 8, seed=1)
    resumed.load_state_dict(state)
    assert epoch_indices(resumed, 6) == rest
    ranks = [Batches(data, 8, seed=1, rank=r, world=2) for r in range(2)]
    shards = [{row for batch in epoch_indices(b, 4) for row in batch} for b in ranks]
    assert len(ranks[0]._plans) == len(ranks[1]._plans) == 4
    assert not shards[0] & shards[1]


def test_rename_augmentation_is_a_bijection_per_sample() -> None:
    torch.manual_seed(0)
    data = device_split(rename_pool=12)
    batch = next(Batches(data, 64, seed=0))
    assert batch.n_slots == 12
    plain = next(Batches(device_split(), 64, seed=0))
    moved = 0
    for src, tgt, src0, tgt0 in zip(
        batch.src.tolist(), batch.tgt_out.tolist(), plain.src.tolist(), plain.tgt_out.tolist()
    ):
        mapping: dict[int, int] = {}
        for a, b in zip(src0 + tgt0, src + tgt):
            assert (a >= N_BASE) == (b >= N_BASE) and (a == b or a >= N_BASE)
            if a >= N_BASE:
                assert mapping.setdefault(a, b) == b  # consistent across formula and label
        assert len(set(mapping.values())) == len(mapping)  # never merges two APs
        assert all(N_BASE <= b < N_BASE + 12 for b in mapping.values())
        moved += any(a != b for a, b in mapping.items())
    assert moved > 32


def test_parses_real_deepltl_lines() -> None:
    f, t = "U&a!X&c!eXe", "!a;e;{1}"
    src, tgt, n = encode_pair("ltl", f, t)
    formula, trace = parse_formula(f, "polish"), parse_trace(t, "polish")
    slots = Renaming.canonical(formula)  # a, c, e -> a, b, c
    assert decode_formula(src) == slots.apply(formula) and n == 3 and formula.size == len(src)
    assert decode_trace(tgt) == slots.apply_trace(trace)
    assert len(tgt) == len(render(tgt))


@pytest.mark.parametrize("per_ap", [False, True])
def test_token_cap_splits_long_batches(per_ap: bool) -> None:
    data = device_split()
    capped = Batches(data, 32, seed=2, max_tokens=400, per_ap=per_ap)
    next(capped)
    rows = []
    for _, (n, s, t, n_aps) in capped._plans:
        cost = n * (s + t) * (max(n_aps, 1) if per_ap else 1)
        assert cost <= 400 or n == 1
        rows.append(n)
    assert sum(rows) == 64 and len(rows) > 2  # every sample once, in more than 64 / 32 batches
