"""The fifth paper's embedding models through the one training loop: `ltlwit train --arch
expemb-e|expemb-a` on a file of `ltlwit data equiv` classes, the weights used by `ltlwit embed
--model`, and refused where a witness model is wanted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import json_lines, run

import ltlwit
from ltlwit.train.equiv import encoded_pairs, read_classes


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("equiv") / "classes.jsonl"
    made = run("data", "equiv", "--logic", "ltl", "-n", "40", "--members", "4", "--seed", "3", "-o", str(path))
    assert made.exit_code == 0, made.stderr
    return path


@pytest.fixture(scope="module")
def weights(classes: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    done = run(
        "train", "--task", "ltl", "--arch", "expemb-e", "--preset", "tiny", "--data", str(classes),
        "--out", str(out), "--steps", "6", "--log-every", "3", "--val-every", "0", "--ckpt-every", "0",
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert done.stdout == f"{out / 'model.pt'}\n" and "ltlwit embed --model" in done.stderr
    return out / "model.pt"


def test_pairs_are_two_different_members_or_one_member_twice(classes: Path) -> None:
    sizes = [len(c.members) for logic, c in read_classes(classes) if c.split == "train"]
    equivalent = encoded_pairs(classes, "train", "ltl", same=False)
    same = encoded_pairs(classes, "train", "ltl", same=True)
    assert len(equivalent) == sum(n * (n - 1) for n in sizes) and len(same) == sum(sizes) > 0
    assert bool((same.src == same.tgt).all()) and not bool((equivalent.src_len == 0).any())
    with pytest.raises(ValueError, match="of ltl formulas, not prop"):
        encoded_pairs(classes, "train", "prop", same=False)


def test_training_writes_weights_the_manifest_names(weights: Path) -> None:
    manifest = json.loads(weights.with_suffix(".json").read_text())
    assert manifest["config"]["arch"] == "expemb-e" and manifest["training"]["steps"] == 6
    assert "val_semantic" in manifest["training"]["validation"]  # outputs proved equivalent, or not


def test_embed_with_the_model_gives_one_vector_per_formula(weights: Path) -> None:
    done = run("embed", "--model", str(weights), "G(req -> F grant)", "G(grant -> F req)", "Y a")
    assert done.exit_code == 2  # `Y a`: past, which the model does not read; the others printed
    rows = json_lines(done.stdout)
    assert [r["input"] for r in rows] == ["G(req -> F grant)", "G(grant -> F req)"]
    assert all(len(r["vector"]) == 32 for r in rows) and rows[0]["vector"] != rows[1]["vector"]
    assert "future-time LTL" in done.stderr and "'Y'" in done.stderr


def test_a_witness_model_is_no_embedding_model_and_back(weights: Path) -> None:
    solved = run("solve", "--model", str(weights), "F a")
    assert solved.exit_code == 2 and "an embedding model (expemb-e)" in solved.stderr
    refused = run("embed", "--model", "si-ltl", "F a")
    assert refused.exit_code == 2 and "not an embedding model" in refused.stderr


def test_contrastive_training_and_h_are_written_into_the_config(classes: Path, tmp_path: Path) -> None:
    args = ["train", "--task", "ltl", "--preset", "tiny", "--data", str(classes), "--steps", "2", "--val-every", "0"]
    done = run(*args, "--arch", "expemb-e", "--out", str(tmp_path / "c"), "--contrastive", "0.5", "--hidden", "24")
    assert done.exit_code == 0, done.stderr
    config = json.loads((tmp_path / "c" / "model.json").read_text())["config"]
    assert (config["contrastive"], config["temperature"], config["d_model"]) == (0.5, 0.05, 24)
    (vector,) = ltlwit.embed(["G(a -> F b)"], model=str(tmp_path / "c" / "model.pt"))
    assert len(vector.vector) == 24
    refused = run(*args, "--arch", "dual", "--out", str(tmp_path / "d"), "--contrastive", "0.5")
    assert (
        refused.exit_code == 2 and "--contrastive: a term of the embedding models' loss, not dual's" in refused.stderr
    )
    refused = run(*args, "--arch", "dual", "--out", str(tmp_path / "d"), "--hidden", "24")
    assert refused.exit_code == 2 and "--hidden: the embedding models' H" in refused.stderr


def test_the_data_must_be_a_classes_file(tmp_path: Path) -> None:
    done = run(
        "train",
        "--task",
        "ltl",
        "--arch",
        "expemb-a",
        "--preset",
        "tiny",
        "--data",
        str(tmp_path),
        "--out",
        str(tmp_path / "o"),
    )
    assert done.exit_code == 2 and "not a file" in done.stderr


def test_equiv_prints_only_what_the_engine_proved(weights: Path) -> None:
    done = run("equiv", "--model", str(weights), "--format", "json", "G(req -> F grant)", "G(", "Y a")
    assert done.exit_code == 2  # `G(` does not parse, `Y a` the model cannot read: the first answered
    (row,) = json_lines(done.stdout)
    assert row["input"] == "G(req -> F grant)" and row["outputs"] <= 10
    for text in row["equivalents"]:  # whatever six steps of training wrote, only proved ones
        assert run("solve", "--format", "json", f"({text}) xor G(req -> F grant)").stdout.count('"unsat"') == 1
    assert "parse error" in done.stderr and "^" in done.stderr and "not 'Y'" in done.stderr


def test_equiv_wants_an_expemb_e_model(weights: Path) -> None:
    refused = run("equiv", "--model", "si-ltl", "F a")
    assert refused.exit_code == 2 and "equivalents come from an expemb-e model" in refused.stderr


def test_the_api_gives_what_the_commands_print(weights: Path) -> None:
    import ltlwit

    vectors = ltlwit.embed(["G(req -> F grant)", "G(grant -> F req)"], model=str(weights))
    printed = json_lines(run("embed", "--model", str(weights), "G(req -> F grant)", "G(grant -> F req)").stdout)
    assert [list(v.vector) for v in vectors] == [r["vector"] for r in printed]
    with pytest.raises(ValueError, match="not 'Y'"):
        ltlwit.embed(["Y a"], model=str(weights))
    found = ltlwit.equivalents("G(req -> F grant)", str(weights), beam=4)
    row = json_lines(
        run("equiv", "--model", str(weights), "--beam", "4", "--format", "json", "G(req -> F grant)").stdout
    )
    assert [str(f) for f in found.formulas] == row[0]["equivalents"] and found.outputs == row[0]["outputs"]


def test_equiv_without_a_model_asks_the_bundled_one_of_each_formulas_logic() -> None:
    """`equiv`'s default: expemb-prop for a formula without temporal operators, expemb-ltl for
    the others; what they write is still only printed where the engine proves it."""
    from ltl_reference import lassos, satisfies

    from ltlwit.api import parse
    from ltlwit.pipeline.equivalents import BUNDLED, Rewriter

    rewriter = Rewriter()
    for text in ("a & (b | c)", "F a & F b"):
        found = rewriter.equivalents(parse(text), beam=10)
        assert found.formulas, text  # the bundled models find some for these
        for g in found.formulas:
            assert all(satisfies(g, p, c) == satisfies(parse(text), p, c) for p, c in lassos(1, 2, ("a", "b", "c")))
    assert sorted(rewriter.models) == sorted(BUNDLED.values())
    done = run("equiv", "--format", "json", "a & (b | c)", "F a & F b")
    assert done.exit_code == 0, done.stderr
    assert [row["input"] for row in json_lines(done.stdout)] == ["a & (b | c)", "F a & F b"]
