"""`data stats` counts, and the sample readers it shares with eval (two-line, JSON Lines)."""

from __future__ import annotations

import gzip
import json

import pytest
from shared_data import shared_file

from ltlwit.train.pairs import append_pairs, iter_pairs, read_samples, recover_pairs
from ltlwit.train.stats import dataset_stats


def test_counts_per_ap_number_and_size(tmp_path):
    path = tmp_path / "s.txt.gz"
    append_pairs(path, [("a", "{a}"), ("&ab", "{&ab}"), ("Uab", "{b}")])
    append_pairs(path, [("&<->ab!c", "a1b1c0"), ("1", "{1}")])
    stats = dataset_stats(path)
    assert stats.total == 5
    assert stats.counts == {(1, 1): 1, (2, 3): 2, (3, 6): 1, (0, 1): 1}
    assert stats.by_aps() == {0: 1, 1: 1, 2: 2, 3: 1}
    assert stats.by_size() == {1: 2, 3: 2, 6: 1}
    out = stats.to_json()
    assert out["samples"] == 5 and {"aps": 2, "size": 3, "count": 2} in out["cells"]


def test_jsonl_grid_rows_unsat_skipped_unknown_kept(tmp_path):
    path = tmp_path / "grid.jsonl"
    rows = [
        {"formula": "Uab", "sat": True, "witness": "b; cycle{1}"},
        {"formula": "&a!a", "sat": False, "witness": None},
        {"formula": "XXa", "sat": None, "witness": None},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    samples = list(read_samples(path))
    assert [(s.formula, s.label, s.line, s.label_syntax) for s in samples] == [
        ("Uab", "b; cycle{1}", 1, "spot"),
        ("XXa", None, 3, "spot"),
    ]
    stats = dataset_stats(path)
    assert stats.total == 2 and stats.unlabelled == 1


def test_reader_errors_name_file_and_line(tmp_path):
    odd = tmp_path / "odd.txt"
    odd.write_text("a\n{a}\nb\n")
    with pytest.raises(ValueError, match=r"odd.txt:3"):
        list(iter_pairs(odd))
    bad = tmp_path / "bad.txt"
    bad.write_text("a\n{a}\n&a\n{a}\n")
    with pytest.raises(ValueError, match=r"bad.txt:3"):
        dataset_stats(bad)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"formula": "a"}\n[1]\n')
    with pytest.raises(ValueError, match=r"rows.jsonl:2"):
        list(read_samples(rows))


def test_reads_the_shared_spot_sets_directly():
    path = shared_file("prop35/test.txt.gz")
    first = next(iter_pairs(path))
    with gzip.open(path, "rt") as fh:
        assert first == (fh.readline().strip(), fh.readline().strip())


def test_recover_keeps_complete_pairs_only(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("a\n{a}\nb\n")
    assert recover_pairs(path) == [("a", "{a}")]
    assert path.read_text() == "a\n{a}\n"
    assert recover_pairs(tmp_path / "missing.txt") == []


def test_operators_constants_and_label_lengths(tmp_path):
    path = tmp_path / "mix.txt"
    append_pairs(path, [("U1Xa", "1;{a}"), ("&X0b", "{b}"), ("!a", "{!a}")])
    stats = dataset_stats(path)
    assert stats.ops == {"U": 1, "1": 1, "X": 2, "ap": 3, "&": 1, "0": 1, "!": 1}
    assert stats.features == {"1U": 1, "X0": 1, "constants": 2}
    assert stats.labels() == {"tokens": 4.0, "steps": pytest.approx(4 / 3), "cycle": 1.0}
    prop = tmp_path / "prop.txt"
    append_pairs(prop, [("&ab", "a1b1"), ("|a!b", "b0")])
    assert dataset_stats(prop).labels() == {"tokens": 3.0, "assigned": 1.5}
    assert dataset_stats(prop, limit=1).total == 1


def test_two_sets_side_by_side(tmp_path):
    from ltlwit.train.stats import comparison_rows

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    append_pairs(a, [("a", "{a}"), ("&ab", "{&ab}")])
    append_pairs(b, [("a", "{a}"), ("Xa", "1;{a}"), ("b", "{b}"), ("Uab", "{b}")])
    rows = {m: (x, y, d) for m, x, y, d in comparison_rows(dataset_stats(a), dataset_stats(b))}
    assert rows["samples"] == ("2", "4", "")
    assert rows["% 1 AP"] == ("50.00", "75.00", "+25.00")
    assert rows["% size 3"] == ("50.00", "25.00", "-25.00")
    assert rows["% nodes X"] == ("0.00", f"{100 / 7:.2f}", f"{100 / 7:+.2f}")
    assert rows["mean label steps"] == ("1.00", "1.25", "+0.25")
