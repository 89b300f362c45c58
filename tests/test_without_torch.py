"""Without torch (`pip install ltlwit`, no `[models]` extra) the engine, the CLI and the API work,
and what needs the models says in one line how to get them. torch is hidden from a child
interpreter by a finder that refuses it, as on a machine where it was never installed."""

from __future__ import annotations

import subprocess
import sys

from cli_support import ROOT, subprocess_env

HIDE_TORCH = """
import importlib.abc, runpy, sys
class NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name="torch")
sys.meta_path.insert(0, NoTorch())
sys.argv = ["ltlwit"] + sys.argv[1:]
runpy.run_module("ltlwit", run_name="__main__")
"""


def ltlwit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", HIDE_TORCH, *args],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=120,
    )


def test_the_engine_answers_without_torch() -> None:
    out = ltlwit("solve", "G(a -> F b)", "a & !a")
    assert out.returncode == 1 and out.stdout.splitlines() == ["cycle{!a}", "UNSAT"], out.stderr
    assert out.stderr == ""
    assert ltlwit("verify", "F a", "cycle{a}").stdout == "HOLDS\n"
    assert ltlwit("models", "list").returncode == 0


def test_what_needs_the_models_says_how_to_get_them(tmp_path) -> None:
    (tmp_path / "x.txt").write_text("F a\tcycle{a}\n")
    for args in (
        ["solve", "--model", "si", "F a"],
        ["train", "--task", "ltl", "--arch", "si", "--data", str(tmp_path)],
        ["eval", "--model", "si-ltl", "--data", str(tmp_path / "x.txt")],
    ):
        out = ltlwit(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        said = [line for line in out.stderr.splitlines() if "pip install 'ltlwit[models]'" in line]
        assert len(said) == 1 and "PyTorch" in said[0], (args, out.stderr)
        assert "internal error" not in out.stderr and "Traceback" not in out.stderr
