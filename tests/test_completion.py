"""Tab completion: `ltlwit completion SHELL`, the static files in completions/ (which must not
drift from it), and a real bash session completing commands, choices and options."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest
from cli_support import ROOT, run, subprocess_env

from ltlwit.cli.completion import completion_script

FILES = {"bash": "ltlwit.bash", "zsh": "_ltlwit", "fish": "ltlwit.fish"}


@pytest.mark.parametrize("shell", sorted(FILES))
def test_static_files_match_the_command(shell: str) -> None:
    printed = run("completion", shell)
    assert printed.exit_code == 0
    committed = (ROOT / "completions" / FILES[shell]).read_text()
    assert printed.stdout == committed, (
        f"completions/{FILES[shell]} is out of date: run `python -m ltlwit completion {shell} > "
        f"completions/{FILES[shell]}`"
    )
    assert printed.stdout == completion_script(shell).rstrip("\n") + "\n"
    assert "_LTLWIT_COMPLETE" in printed.stdout


def test_unknown_shell_is_a_usage_error() -> None:
    result = run("completion", "tcsh")
    assert result.exit_code == 2 and "bash" in result.stderr


def bash_complete(tmp_path, line: str) -> list[str]:
    """What bash offers for `line` (the cursor at its end), with completions/ltlwit.bash sourced
    and an `ltlwit` on PATH that runs this checkout."""
    wrapper = tmp_path / "ltlwit"
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m ltlwit "$@"\n')
    wrapper.chmod(0o755)
    words = line.split(" ")
    script = (
        f"source {shlex.quote(str(ROOT / 'completions' / 'ltlwit.bash'))}\n"
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        "_ltlwit_completion ltlwit\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    env = subprocess_env()
    env["PATH"] = f"{tmp_path}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [w for w in proc.stdout.splitlines() if w]


def test_bash_completes_commands_choices_and_options(tmp_path, monkeypatch) -> None:
    from ltlwit.neural import registry

    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    (home / "models" / "mine.json").write_text('{"format": "ltlwit-weights/1", "task": "ltl"}')
    (home / "models" / "my-emb.json").write_text('{"format": "ltlwit-weights/1", "task": "ltl", "arch": "expemb-e"}')
    monkeypatch.setenv("LTLWIT_HOME", str(home))
    assert bash_complete(tmp_path, "ltlwit so") == ["solve"]
    models = {m.name: m.arch for m in registry.list_models()}
    bundled = sorted(n for n in registry.bundled_names() if not models[n].startswith("expemb"))
    embedding = sorted(n for n in registry.bundled_names() if models[n].startswith("expemb"))
    assert embedding  # the equiv command's default models are bundled
    # solve, check and eval offer the models they run, equiv and embed the embedding models
    assert bash_complete(tmp_path, "ltlwit equiv --model ") == ["auto", *embedding, "my-emb"]
    assert bash_complete(tmp_path, "ltlwit embed --model ") == [*embedding, "my-emb"]
    assert bash_complete(tmp_path, "ltlwit models path my") == ["my-emb"]
    assert bash_complete(tmp_path, "ltlwit solve --model ") == ["auto", "si", "dual", "both", "none", *bundled, "mine"]
    assert bash_complete(tmp_path, "ltlwit check --model mi") == ["mine"]
    assert bash_complete(tmp_path, "ltlwit solve --model si,mi") == ["si,mine"]
    assert bash_complete(tmp_path, "ltlwit solve --model si,") == [
        "si,si",
        "si,dual",
        *(f"si,{n}" for n in bundled),
        "si,mine",
    ]
    assert "--vacuity" in bash_complete(tmp_path, "ltlwit check --v")
    assert set(bash_complete(tmp_path, "ltlwit completion ")) == {"bash", "zsh", "fish"}


def test_completion_answers_without_importing_torch() -> None:
    env = subprocess_env()
    env.update(_LTLWIT_COMPLETE="bash_complete", COMP_WORDS="ltlwit solve --", COMP_CWORD="2")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ltlwit"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "plain,--model" in proc.stdout.splitlines()
    assert "| ltlwit.cli" in proc.stderr and "torch" not in proc.stderr


def test_model_names_complete_wherever_a_model_is_named(tmp_path, monkeypatch) -> None:
    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    (home / "models" / "mine.json").write_text('{"format": "ltlwit-weights/1", "task": "prop"}')
    monkeypatch.setenv("LTLWIT_HOME", str(home))
    for line in ("ltlwit eval --model mi", "ltlwit models show mi", "ltlwit models path mi"):
        assert bash_complete(tmp_path, line) == ["mine"], line
