"""The pipeline with real (tiny, untrained) networks from the model registry: loaded by family
name from `$LTLWIT_HOME`, fed canonically renamed core formulas in batches, every proposal
validated. What an untrained network proposes is arbitrary, so the tests record it and check
the pipeline's bookkeeping against it rather than expecting particular answers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from cli_support import json_lines, run
from ltl_reference import random_completions, satisfies
from prop_reference import brute_entails

from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace
from ltlwit.pipeline.coreform import CORE_OPS
from ltlwit.pipeline.sources import NeuralSource

FAST = ("--max-len", "8", "--beam", "2")
LTL = ["G(req -> F grant) & F req", "a U (b & X !a)", "GFa & FG!a", "X(c M d)"]
PROP = ["(x | y) & !x", "p <-> !p", "a | !a", "(u -> v) & u"]


def save_tiny_models(home: Path, families: tuple[str, ...] = ("si", "dual")) -> None:
    import torch

    from ltlwit.neural.config import preset
    from ltlwit.neural.weights import save_weights

    for seed, family in enumerate(families):
        for task in ("ltl", "prop"):
            torch.manual_seed(seed)
            save_weights(preset(family, task, "tiny").build(), home / "models" / f"{family}-{task}")


#: Python code that makes the registry see no bundled models (for subprocesses; in-process tests
#: use the `no_bundled` fixture): these tests must behave the same before and after the
#: bundled weights ship.
HIDE_BUNDLED = (
    "import pathlib, ltlwit.neural.registry as r; r._bundled_folder = lambda: pathlib.Path('/nonexistent'); "
    "import ltlwit.pipeline.models as m; m.gpu_visible = lambda: False"
)


@pytest.fixture(autouse=True)
def no_bundled(monkeypatch) -> None:
    """Models come only from the tests' LTLWIT_HOME, and --model takes its default (auto)."""
    from ltlwit.neural import registry

    monkeypatch.setattr(registry, "_bundled_folder", lambda: Path("/nonexistent"))
    monkeypatch.delenv("LTLWIT_MODEL", raising=False)


@pytest.fixture(scope="module")
def model_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("home")
    save_tiny_models(home)
    return home


@pytest.fixture()
def spy(monkeypatch) -> list[tuple[str, list, list]]:
    """Records (label, formulas, proposals) of every real beam search the pipeline runs."""
    calls: list[tuple[str, list, list]] = []
    original = NeuralSource.propose

    def recording(self, formulas):
        found = original(self, formulas)
        calls.append((self.label, list(formulas), found))
        return found

    monkeypatch.setattr(NeuralSource, "propose", recording)
    return calls


def check_witness(record: dict) -> None:
    formula = parse_formula(record["input"])
    if record["logic"] == "prop":
        assert brute_entails(parse_assignment(record["witness"]), formula)
    else:
        trace = parse_trace(record["witness"])
        names = list(dict.fromkeys(formula.aps() + trace.aps()))
        assert all(satisfies(formula, p, c) for p, c in random_completions(trace, names, random.Random(0)))


@pytest.mark.slow
def test_both_families_run_batched_and_every_answer_is_checked(model_home, monkeypatch, spy) -> None:
    monkeypatch.setenv("LTLWIT_HOME", str(model_home))
    result = run("solve", "--model", "both", "--format", "json", *FAST, *LTL, *PROP)
    records = json_lines(result.stdout)
    assert result.exit_code == 1 and result.stderr == ""  # two unsat inputs; nothing to complain about
    assert [r["status"] for r in records] == ["sat", "sat", "unsat", "sat", "sat", "unsat", "sat", "sat"]
    assert {label for label, _, _ in spy} == {"model:si-ltl", "model:si-prop", "model:dual-ltl", "model:dual-prop"}
    for _label, formulas, _ in spy:  # canonical slots, core operators only
        for f in formulas:
            assert f.aps() == tuple("abcd"[: len(f.aps())])
            task = "ltl" if f.temporal else "prop"
            assert all(n.op == "ap" or n.op in CORE_OPS[task] or n.op in CORE_OPS["ltl"] for n in f.walk())
    proposed: dict[int, set] = {}
    for _, formulas, found in spy:  # inputs are batched in order, ltl then prop within a chunk
        for f, cands in zip(formulas, found):
            proposed.setdefault(id(f), set()).update(c.prediction for c in cands)
    for record in records:
        if record["status"] == "sat":
            assert record["verified"] is True
            check_witness(record)
        if record["source"].startswith("model:"):
            assert 1 <= record["rank"] <= record["candidates_tried"]
        else:
            assert record["rank"] is None
    assert sum(r["candidates_tried"] for r in records) <= sum(len(v) for v in proposed.values())


def test_auto_takes_si_where_a_gpu_can_run_it(model_home, monkeypatch, spy) -> None:
    from ltlwit.pipeline import models
    from ltlwit.pipeline import run as pipeline_run

    monkeypatch.setenv("LTLWIT_HOME", str(model_home))
    monkeypatch.setattr(models, "gpu_visible", lambda: False)
    result = run("solve", "--format", "json", *FAST, "F a", "a & b")
    assert result.exit_code == 0 and [r["status"] for r in json_lines(result.stdout)] == ["sat", "sat"]
    assert spy == []  # a CPU: the engine alone
    assert run("solve", "--model", "si", *FAST, "F a").exit_code == 0 and len(spy) == 1  # unless asked
    spy.clear()
    monkeypatch.setattr(models, "gpu_visible", lambda: True)  # a driver, but torch has no CUDA here
    assert run("solve", *FAST, "F a").exit_code == 0 and spy == []
    monkeypatch.setattr(pipeline_run, "cuda_available", lambda: True)  # as on a GPU machine
    result = run("solve", "--format", "json", *FAST, "F a", "a & b")
    assert [label for label, _, _ in spy] == ["model:si-ltl", "model:si-prop"]  # one LTL and one prop batch
    assert run("solve", "--device", "cpu", *FAST, "F a").exit_code == 0 and len(spy) == 2  # cpu: engine


def test_the_dual_models_ap_limit_sends_wide_formulas_to_the_engine(model_home, monkeypatch, spy) -> None:
    monkeypatch.setenv("LTLWIT_HOME", str(model_home))
    wide = "X(" + " & ".join(f"q{i}" for i in range(33)) + ")"  # 33 APs; the tiny dual model's β set has 32
    narrow = "F q1 & F q2"
    records = json_lines(run("solve", "--model", "dual", "--format", "json", *FAST, wide, narrow).stdout)
    assert [len(f.aps()) for _, formulas, _ in spy for f in formulas] == [2]
    assert [(r["status"], r["candidates_tried"]) for r in records][0] == ("sat", 0)


def test_an_explicit_model_that_is_missing_is_a_usage_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path))
    result = run("solve", "--model", "si", "F a")
    assert result.exit_code == 2 and result.stdout == ""
    assert "--model si needs the model 'si-ltl', which is not installed" in result.stderr
    quiet = run("solve", "F a")  # auto: the engine answers, nothing said
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "cycle{a}\n", "")
    only_ltl = run("solve", "--model", "si", "--logic", "prop", "a")
    assert "'si-prop'" in only_ltl.stderr


def test_corrupt_weights_are_reported_once_and_the_engine_answers(tmp_path, monkeypatch) -> None:
    save_tiny_models(tmp_path, ("si",))
    (tmp_path / "models" / "si-ltl.pt").write_bytes(b"not a tensor file")
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path))
    result = run("solve", "--model", "si", *FAST, "F a", "G b", "X c")
    assert result.exit_code == 2
    assert result.stdout == "cycle{a}\ncycle{b}\ncycle{c}\n"
    (line,) = result.stderr.splitlines()
    assert "model 'si-ltl'" in line and "corrupt weights" in line and "answering ltl formulas with the engine" in line


def test_device_cuda_needs_a_gpu(model_home, monkeypatch) -> None:
    import torch

    monkeypatch.setenv("LTLWIT_HOME", str(model_home))
    result = run("solve", "--device", "cuda", *FAST, "F a")
    if torch.cuda.is_available():
        assert result.exit_code == 0
    else:
        assert result.exit_code == 2 and "--device cuda, but torch sees no CUDA GPU" in result.stderr
    assert run("solve", "--device", "cuda", "--model", "none", "F a").exit_code == 0  # no model, no GPU needed


def test_baselines_answer_through_solve_model(tmp_path, monkeypatch, spy) -> None:
    """The papers' baselines, registered under names, are models like the others for `solve
    --model`; a full-vocabulary model leaves inputs with more APs than its rows to the engine."""
    import torch

    from ltlwit.neural.config import preset
    from ltlwit.neural.weights import save_weights

    torch.manual_seed(5)
    for arch in ("full", "lexinv"):
        save_weights(preset(arch, "ltl", "tiny").build(), tmp_path / "models" / f"my-{arch}")
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path))
    wide = "X(" + " & ".join(f"p{i}" for i in range(11)) + ")"  # 11 APs: more than the 10 rows of `full`
    result = run("solve", "--model", "my-full,my-lexinv", "--format", "json", *FAST, "G(a -> F b)", wide)
    assert result.exit_code == 0 and result.stderr == ""
    assert [r["status"] for r in json_lines(result.stdout)] == ["sat", "sat"]
    assert sorted(label for label, _, _ in spy) == ["model:my-full", "model:my-lexinv", "model:my-lexinv"]


def test_models_are_named_directly_and_each_serves_its_own_task(tmp_path, monkeypatch, spy) -> None:
    """`--model NAME[,NAME...]`: models registered under any name (as `ltlwit train --name` does),
    alone or next to a family; a name answers the task it was trained for, the engine the rest."""
    import torch

    from ltlwit.neural.config import preset
    from ltlwit.neural.weights import save_weights

    save_tiny_models(tmp_path, ("si",))
    torch.manual_seed(3)
    save_weights(preset("dual", "ltl", "tiny").build(), tmp_path / "models" / "my-ltl.v2")
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path))
    result = run("solve", "--model", "my-ltl.v2", "--format", "json", *FAST, "F a", "a & b")
    assert result.exit_code == 0 and result.stderr == ""
    assert [label for label, _, _ in spy] == ["model:my-ltl.v2"]  # the LTL input only
    assert [r["status"] for r in json_lines(result.stdout)] == ["sat", "sat"]
    spy.clear()
    assert run("solve", "--model", "si,my-ltl.v2", *FAST, "F a", "a & b").exit_code == 0
    assert sorted(label for label, _, _ in spy) == ["model:my-ltl.v2", "model:si-ltl", "model:si-prop"]
    weights = str(tmp_path / "models" / "my-ltl.v2.pt")  # a weights file works as a name, too
    assert run("solve", "--model", weights, *FAST, "F a").exit_code == 0
    assert run("solve", "--model", weights[: -len(".pt")], *FAST, "F a").exit_code == 0  # or its stem
    for bad, message in [
        ("nosuch", "no model named 'nosuch'"),
        ("si,,dual", "comma-separated"),
        ("none,si", "comma-separated"),
    ]:
        result = run("solve", "--model", bad, "F a")
        assert result.exit_code == 2 and result.stdout == "" and message in result.stderr
    wrong_task = run("solve", "--model", "my-ltl.v2", "--logic", "prop", "a")
    assert wrong_task.exit_code == 2 and "answers ltl formulas only" in wrong_task.stderr


def test_threads_set_the_cpu_threads_of_the_process_that_runs_the_models(model_home, monkeypatch) -> None:
    import torch

    from ltlwit.api import Solver

    monkeypatch.setenv("LTLWIT_HOME", str(model_home))
    before = torch.get_num_threads()
    try:
        for threads in (3, 1):
            torch.set_num_threads(2)
            result = run("solve", "--model", "si", "--device", "cpu", "--threads", str(threads), *FAST, LTL[1])
            assert result.exit_code == 0
            assert torch.get_num_threads() == threads
        torch.set_num_threads(2)
        run("solve", "--model", "none", "--threads", "3", LTL[1])
        assert torch.get_num_threads() == 2  # no model ran: torch's setting is left alone
    finally:
        torch.set_num_threads(before)
    with pytest.raises(ValueError, match="--threads"):
        Solver(threads=0)
    assert run("solve", "--threads", "0", "a").exit_code == 2
