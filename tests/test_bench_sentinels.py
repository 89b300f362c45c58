"""bench/sentinels.py's rules: what it lists against the recorded results, and how it chooses
its list from full runs (no formula is run here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _sentinels():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("sentinels", BENCH / "sentinels.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


S = _sentinels()


def _row(name, status, wall, family="f", suite="finite", **extra):
    return {"suite": suite, "name": name, "family": family, "status": status, "wall": wall, **extra}


def _now(name, status, wall, unverified=False, reason=None):
    return {**_row(name, status, wall), "unverified": unverified, "reason": reason}


def test_findings_list_lost_changed_and_slower_answers_only():
    recorded = [
        _row("kept", "unsat", 0.4),
        _row("noise", "sat", 0.3),
        _row("lost", "unsat", 1.3),
        _row("flipped", "unsat", 0.5),
        _row("unchecked", "sat", 0.5),
        _row("slower", "sat", 1.5),
        _row("twice_but_small", "sat", 0.6),
        _row("gained", "unknown", 10.0),
    ]
    now = [
        _now("kept", "unsat", 0.45),
        _now("noise", "sat", 0.9),  # three times, but 0.6 s: start-up noise
        _now("lost", "unknown", 10.2, reason="time budget exhausted"),
        _now("flipped", "sat", 0.5),
        _now("unchecked", "sat", 0.5, unverified=True),
        _now("slower", "sat", 3.2),
        _now("twice_but_small", "sat", 1.5),  # 2.5 times, 0.9 s more
        _now("gained", "sat", 4.0),  # an answer more: nothing to list
    ]
    lines = S.findings(recorded, now)
    assert [line.split()[0] for line in lines] == ["lost", "WRONG", "WRONG", "slower"]
    assert "finite/lost" in lines[0] and "time budget exhausted" in lines[0]
    assert "finite/flipped" in lines[1] and "finite/unchecked" in lines[2]
    assert "finite/slower" in lines[3]


def test_select_takes_each_familys_hardest_then_the_slowest_within_cap_and_budget(tmp_path, monkeypatch):
    rows = [
        {"name": "a1", "family": "a", "status": "unsat", "wall": 0.2, "expected": "unsat", "verified": None},
        {"name": "a2", "family": "a", "status": "sat", "wall": 3.0, "expected": "sat", "verified": True},
        {"name": "a3", "family": "a", "status": "sat", "wall": 9.0, "expected": "sat", "verified": True},  # over CAP
        {"name": "a4", "family": "a", "status": "unknown", "wall": 10.0, "expected": "sat", "verified": None},
        {"name": "b1", "family": "b", "status": "sat", "wall": 0.1, "expected": "sat", "verified": True},
        {"name": "b2", "family": "b", "status": "sat", "wall": 2.0, "expected": "unsat", "verified": True},  # wrong
        {"name": "c1", "family": "c", "status": "unsat", "wall": 2.5, "expected": "unsat", "verified": None},
        {"name": "c2", "family": "c", "status": "unsat", "wall": 1.0, "expected": None, "verified": None},
    ]
    path = tmp_path / "finite.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setitem(S.QUOTA, "finite", 4)
    chosen = S.select({"finite": path})
    assert [c["name"] for c in chosen] == ["a2", "c1", "b1", "c2"]
    assert all(c["suite"] == "finite" for c in chosen)
    monkeypatch.setattr(S, "BUDGET", 5.7)  # the additions go first, the slowest of them first
    assert [c["name"] for c in S.select({"finite": path})] == ["a2", "c1", "b1"]


def test_times_are_compared_at_the_runs_pace():
    """On a machine half again as slow, every formula takes 1.5 times its recorded time: none is
    listed for that, but one three times as slow still is; and a pace beyond twice the record is
    listed itself."""
    walls = [1.0, 1.2, 2.0, 2.5, 3.0, 4.0, 0.3]
    recorded = [_row(f"f{i}", "sat", w) for i, w in enumerate(walls)]
    slower_machine = [_now(f"f{i}", "sat", 1.5 * w) for i, w in enumerate(walls)]
    assert S.pace(recorded, slower_machine) == 1.5
    assert S.findings(recorded, slower_machine) == []
    slower_machine[3] = _now("f3", "sat", 3 * 2.5 * 1.5)
    assert [line.split()[1] for line in S.findings(recorded, slower_machine)] == ["finite/f3:"]
    everything = [_now(f"f{i}", "sat", 2.5 * w) for i, w in enumerate(walls)]
    assert S.findings(recorded, everything)[0].startswith("slower every formula: 2.50 times")
    assert S.pace(recorded[:4], slower_machine[:4]) == 1.0  # too few to tell
