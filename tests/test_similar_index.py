"""`embed --index` and `similar --index`: a formula library's fingerprints in a faiss index on
disk, looked up with the ranking `similar -F` makes and the relations it decides."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cli_support import run

import ltlwit
from ltlwit.specs import index as index_module
from ltlwit.specs.index import open_index
from ltlwit.specs.similar import Compared

PATTERNS = ["G({p} -> F {q})", "G(!{p} | F {q})", "G !({p} & {q})", "F {p} -> (!{q} U {p})", "G F {p}", "{p} U {q}"]


def _library(path: Path, n: int, seed: int) -> Path:
    """Specs drawn from patterns over a few names: many ties (restatements, renamings) to break."""
    rng = random.Random(seed)
    names = ["a", "b", "c", "d"]
    lines = []
    for i in range(n):
        p, q = rng.sample(names, 2)
        lines.append(f"s{i}: {rng.choice(PATTERNS).format(p=p, q=q)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _neighbours(answers: list) -> list[tuple[str | None, list[tuple[str | None, float, str]]]]:
    return [
        (a.entry.name, [(n.entry.name, n.similarity, n.related.relation.value) for n in a.neighbours]) for a in answers
    ]


def test_lookups_rank_and_relate_as_similar_does(tmp_path: Path) -> None:
    spec = _library(tmp_path / "lib.spec", 40, seed=3)
    count = ltlwit.index(tmp_path / "idx", [])  # an empty index answers nothing
    assert count == 0
    run("embed", "-F", str(spec), "--index", str(tmp_path / "idx"))
    looked_up = ltlwit.similar(spec, index=tmp_path / "idx", top=4)
    compared = ltlwit.similar(spec, top=4)
    assert _neighbours(looked_up) == _neighbours(compared)  # ties too: in the order the specs were added
    assert any(sim == 1.0 for _, ns in _neighbours(looked_up) for _, sim, _ in ns)


def test_an_index_filled_in_steps_is_the_index_filled_at_once(tmp_path: Path) -> None:
    formulas = [line.split(": ", 1)[1] for line in _library(tmp_path / "l.spec", 30, seed=5).read_text().splitlines()]
    assert ltlwit.index(tmp_path / "once", formulas) == 30
    ltlwit.index(tmp_path / "steps", formulas[:11])
    assert ltlwit.index(tmp_path / "steps", formulas[11:]) == 30
    read = [Compared(f, ltlwit.parse(f), "infinite") for f in formulas]
    assert index_module.add(tmp_path / "chunks", read, "infinite", 256, chunk=4) == (30, 30)  # 8 commits
    queries = ["G(a -> F b)", "F G c", "b U d"]
    once, steps, chunks = (
        [[(n.entry.text, n.similarity) for n in a.neighbours] for a in ltlwit.similar([], queries, index=where, top=6)]
        for where in (tmp_path / "once", tmp_path / "steps", tmp_path / "chunks")
    )
    assert once == steps == chunks and len(once[0]) == 6


def test_fingerprints_from_several_processes_make_the_same_index(tmp_path: Path) -> None:
    spec = _library(tmp_path / "lib.spec", 700, seed=7)  # more than one batch of two workers
    assert run("embed", "-F", str(spec), "--index", str(tmp_path / "one")).exit_code == 0
    done = run("embed", "-F", str(spec), "--index", str(tmp_path / "two"), "--jobs", "2")
    assert done.exit_code == 0 and "700 added, 700 in the index" in done.stderr
    for name in ("fingerprints.faiss", "entries.jsonl", "offsets.u64", "index.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_an_interrupted_addition_leaves_the_index_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    where = tmp_path / "idx"
    ltlwit.index(where, ["G a", "F b"])
    real = index_module._replace

    def crash_at_the_count(target: Path, write: object) -> None:
        if target.name == "index.json":
            raise KeyboardInterrupt
        real(target, write)

    monkeypatch.setattr(index_module, "_replace", crash_at_the_count)
    with pytest.raises(KeyboardInterrupt):
        ltlwit.index(where, ["G c", "a U b"])  # the entries and vectors written, not the count
    monkeypatch.undo()
    opened = open_index(where)
    assert opened.count == 2 and opened._vectors.ntotal == 2
    assert [e.text for _, e in opened.nearest(opened.fingerprints.of(ltlwit.parse("G c")), top=5)] == ["G a", "F b"]
    assert ltlwit.index(where, ["X d"]) == 3  # what the interruption left is dropped first
    texts = [json.loads(line)["text"] for line in (where / "entries.jsonl").read_text().splitlines()]
    assert texts == ["G a", "F b", "X d"]


def test_a_spec_the_index_holds_is_not_its_own_neighbour(tmp_path: Path) -> None:
    spec = tmp_path / "r.spec"
    spec.write_text("r1: G(req -> F grant)\nr2: !F(req & G !grant)\nr3: G(req -> X grant)\n")
    run("embed", "-F", str(spec), "--index", str(tmp_path / "idx"))
    result = run("similar", "-F", str(spec), "--index", str(tmp_path / "idx"), "--top", "1", "--format", "json")
    assert result.exit_code == 0
    found = {
        r["name"]: [(n["name"], n["relation"]) for n in r["neighbours"]]
        for r in map(json.loads, result.stdout.splitlines())
    }
    assert found == {"r1": [("r2", "equivalent")], "r2": [("r1", "equivalent")], "r3": [("r1", "weaker")]}


def test_what_an_index_refuses(tmp_path: Path) -> None:
    where = tmp_path / "idx"
    ltlwit.index(where, ["G a"])
    with pytest.raises(ValueError, match="infinite semantics and 256 traces, not finite"):
        ltlwit.index(where, ["F a"], semantics="finite")
    with pytest.raises(ValueError, match="multiple of 8"):
        ltlwit.index(tmp_path / "odd", ["F a"], size=12)
    data = tmp_path / "d.spec"
    data.write_text("var x: Int\nfast: G(x > 5)\nplain: G a\n")
    refused = run("embed", "-F", str(data), "--index", str(tmp_path / "d"))
    assert refused.exit_code == 2 and "d.spec:2: a formula over data" in refused.stderr
    assert open_index(tmp_path / "d").count == 1  # the other spec still went in
    with pytest.raises(ValueError, match="over data"):
        ltlwit.index(tmp_path / "d", ["G b", "F(x > 5)"])
    assert open_index(tmp_path / "d").count == 1  # nothing added
    meta = json.loads((where / "index.json").read_text())
    (where / "index.json").write_text(json.dumps({**meta, "probes": ["0"] * len(meta["probes"])}))
    with pytest.raises(ValueError, match="other fingerprint traces"):
        open_index(where)
    missing = run("similar", "G a", "--index", str(tmp_path / "none"))
    assert missing.exit_code == 2 and "no index here" in missing.stderr
    assert run("similar", "--index", str(where)).exit_code == 2  # nothing to look up
    assert run("similar", "G a").exit_code == 2  # nothing to compare it with: neither -F nor --index
    assert run("embed", "G a", "--index", str(where), "--model", "m").exit_code == 2


def test_a_query_of_other_semantics_is_told_so(tmp_path: Path) -> None:
    ltlwit.index(tmp_path / "idx", ["G a", "F b"])
    result = run("similar", "--finite", "G a", "G(", "--index", str(tmp_path / "idx"))
    assert result.exit_code == 2  # the query that does not parse; the other still answered
    assert "no formula of finite semantics" in result.stdout


def test_without_faiss_the_index_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_faiss(name: str, *args: object, **kwargs: object) -> object:
        if name == "faiss":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_faiss)
    for result in (
        run("embed", "G a", "--index", str(tmp_path / "idx")),
        run("similar", "G a", "--index", str(tmp_path)),
    ):
        assert result.exit_code == 2 and "pip install 'ltlwit[index]'" in result.stderr
