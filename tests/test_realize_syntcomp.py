"""SYNTCOMP's labelled benchmarks (../shared/data/synt): every TLSF file reads, and a seeded
sample of the quick families gets its label or UNKNOWN, never the other verdict (each verdict
carries a strategy the engine checked against the formula as read: a misreading is what this
catches, as ltl2dpa10's `a || b && c` once was)."""

from __future__ import annotations

import gzip
import json
import random

import pytest
from shared_data import shared_file

from ltlwit.logic.budget import Budget
from ltlwit.logic.ltl.games import Realizable, Unrealizable, realize
from ltlwit.logic.syntax.tlsf import TlsfError, parse_tlsf


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in gzip.open(shared_file(f"synt/{name}"), "rt")]


def test_every_shared_tlsf_file_reads() -> None:
    unread = []
    for row in rows("ltl-shared.jsonl.gz") + rows("ltlf-shared.jsonl.gz"):
        try:
            spec = parse_tlsf(row["tlsf"])
        except TlsfError as exc:
            unread.append((row["name"], str(exc)))
            continue
        assert spec.semantics == row["semantics"].lower() and spec.finite == row["finite"], row["name"]
        assert set(spec.formula().aps()) <= set(spec.inputs) | set(spec.outputs)
    assert [name for name, why in unread if "enum" not in why] == []  # amba's case study declares an enum
    assert len(unread) <= 1


QUICK = ("lily", "ltl2dpa", "mux", "tsl_paper", "Scutella")


@pytest.mark.slow
def test_a_sample_of_quick_families_never_contradicts_its_label() -> None:
    sample = [r for r in rows("ltl-shared.jsonl.gz") + rows("ltlf-shared.jsonl.gz") if r["family"] in QUICK]
    sample = random.Random(1).sample(sample, 24)
    answered = 0
    for row in sample:
        spec = parse_tlsf(row["tlsf"])
        semantics = "finite" if spec.finite else "infinite"
        budget = Budget(seconds=15, states=3_000)  # positions decide what is answered, the time bounds the rest
        verdict = realize(spec.formula(), spec.inputs, spec.outputs, spec.moore, budget, semantics)
        if isinstance(verdict, (Realizable, Unrealizable)):
            answered += 1
            assert (isinstance(verdict, Realizable)) == (row["status"] == "realizable"), row["name"]
    assert answered >= 18  # 22 of these 24 within 3,000 positions (the slowest in 7 s here)
