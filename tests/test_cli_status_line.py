"""The live status line of a long solve (`ltlwit.cli.progress.StatusLine`): on a terminal's
stderr, once no answer has come for LTLWIT_STATUS_AFTER seconds (2 by default), it names the
input, the time spent on it, the engine's stage and how to bound it; it is wiped before any
other output, and never shown off a terminal or with --jobs."""

from __future__ import annotations

import io
import os
import re
import select
import signal
import struct
import subprocess
import sys
import threading
import time

import pytest
from cli_support import ROOT, ltlwit_command, subprocess_env

from ltlwit.cli.environment import Environment
from ltlwit.cli.output import SolveText
from ltlwit.cli.progress import StatusLine, _duration
from ltlwit.cli.status import ExitStatus
from ltlwit.logic import stage
from ltlwit.pipeline.answers import Solution
from ltlwit.pipeline.inputs import InputItem

#: The tests that run ltlwit in a pseudo-terminal.
needs_pty = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

ERASE = "\r\x1b[K"
#: What the line says while the engine works on an argument, with no --timeout.
STATUS = re.compile(
    r"ltlwit: <arg 1>: \d+\.\d s, (search round \d+|k-liveness|minimising the witness|"
    r"checking the witness|rewriting|engine|parsing); no time limit \(--timeout SECONDS\)"
)


def arbiter(n: int) -> str:
    """bench/arbiter.py's specification: about a second for the engine at n = 24 on the 2-core
    development machine."""
    parts = [f"G(req{i} -> F grant{i})" for i in range(n)] + [f"G F req{i}" for i in range(n)]
    parts += [f"G !(grant{i} & grant{j})" for i in range(n) for j in range(i + 1, n)]
    return " & ".join(parts)


LONG = arbiter(24)


def in_terminal(
    *args: str, stdout_too: bool = False, after: float = 0.1, until: str | None = None
) -> tuple[int, str, str]:
    """`ltlwit ARGS...` with stderr (and with `stdout_too` stdout) on a pseudo-terminal of 200
    columns and LTLWIT_STATUS_AFTER=`after`: (exit status, what the terminal got, stdout).
    `until`: Ctrl-C once the terminal got that text."""
    import fcntl
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    env = subprocess_env() | {"LTLWIT_STATUS_AFTER": str(after)}
    proc = subprocess.Popen(
        ltlwit_command(*args),
        stdin=subprocess.DEVNULL,
        stdout=slave if stdout_too else subprocess.PIPE,
        stderr=slave,
        env=env,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(slave)
    drained: list[bytes] = []  # stdout read beside the terminal: a witness over the pipe's 64 KB
    reader = threading.Thread(target=lambda: drained.append(proc.stdout.read())) if not stdout_too else None
    if reader is not None:
        reader.start()
    seen = b""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if until is not None and until.encode() in seen and proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                until = None
            if not select.select([master], [], [], 1.0)[0]:
                continue
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every writer of the terminal has exited
                break
            if not chunk:
                break
            seen += chunk
        code = proc.wait(timeout=60)
        if reader is not None:
            reader.join(timeout=60)
        out = b"".join(drained)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return code, seen.decode(), out.decode()


def screen(raw: str) -> list[str]:
    """The lines a terminal shows after `raw`: carriage returns, erase-to-end-of-line and
    overwriting applied."""
    lines: list[str] = []
    line: list[str] = []
    col = 0
    i = 0
    while i < len(raw):
        if raw.startswith("\x1b[K", i):
            del line[col:]
            i += 3
            continue
        char = raw[i]
        i += 1
        if char == "\r":
            col = 0
        elif char == "\n":
            lines.append("".join(line))
            line, col = [], 0
        else:
            line[col : col + 1] = [char]
            col += 1
    if line:
        lines.append("".join(line))
    return lines


@needs_pty
def test_a_long_solve_shows_a_status_line_and_wipes_it() -> None:
    code, terminal, out = in_terminal("solve", "--model", "none", LONG)
    assert code == ExitStatus.SUCCESS
    assert STATUS.search(terminal), terminal
    assert terminal.endswith(ERASE)  # the last thing said: the line wiped
    assert screen(terminal) == []
    assert out.count("\n") == 1 and "cycle{" in out and out.endswith("}\n") and "\x1b" not in out


@needs_pty
def test_the_answer_on_the_same_terminal_is_never_mixed_with_it() -> None:
    code, terminal, _ = in_terminal("solve", "--model", "none", "--format", "text", LONG, stdout_too=True)
    assert code == ExitStatus.SUCCESS and STATUS.search(terminal), terminal
    shown = screen(terminal)
    assert len(shown) == 1 and "cycle{" in shown[0] and shown[0].endswith("}"), shown
    assert "ltlwit" not in shown[0]


@needs_pty
def test_with_a_timeout_it_says_the_time_left() -> None:
    _, terminal, _ = in_terminal("solve", "--model", "none", "--timeout", "300", LONG)
    assert re.search(r"ltlwit: <arg 1>: \d+\.\d s, [^;]+; \d+ s left \(--timeout 300\)", terminal), terminal


@needs_pty
def test_check_says_how_long_no_answer_came(tmp_path) -> None:
    spec = tmp_path / "arbiter.spec"
    spec.write_text(f"arbiter: {LONG}\n")
    code, terminal, out = in_terminal("check", "--model", "none", str(spec))
    assert code == ExitStatus.SUCCESS, out
    assert re.search(r"ltlwit: no answer for \d+\.\d s, [^;]+; --timeout 30 per formula", terminal), terminal
    assert terminal.endswith(ERASE) and out.startswith("PASS arbiter")


@needs_pty
def test_ctrl_c_wipes_it() -> None:
    from test_ltl_budget import counter  # hours of search: the Ctrl-C always comes first (the
    # 20-client arbiter now answers in a tenth of a second, sometimes before it)

    code, terminal, _ = in_terminal("solve", "--model", "none", counter(24).to_str("spot"), until="no time limit")
    assert code == ExitStatus.INTERRUPTED
    assert "no time limit" in terminal
    assert not "".join(screen(terminal))  # wiped (click then ends the line the ^C was typed on)


@needs_pty
def test_none_below_the_threshold() -> None:
    code, terminal, out = in_terminal("solve", "--model", "none", "a", after=60)
    assert code == ExitStatus.SUCCESS and out == "a\n"
    assert "<arg 1>" not in terminal and screen(terminal) == []


def test_none_off_a_terminal() -> None:
    env = subprocess_env() | {"LTLWIT_STATUS_AFTER": "0.1"}
    done = subprocess.run(
        ltlwit_command("solve", "--model", "none", LONG), capture_output=True, env=env, cwd=ROOT, timeout=120
    )
    assert done.returncode == ExitStatus.SUCCESS and done.stderr == b""
    assert done.stdout.count(b"\n") == 1 and b"\x1b" not in done.stdout


@needs_pty
def test_none_with_jobs() -> None:
    code, terminal, out = in_terminal("solve", "--model", "none", "--jobs", "2", "a", LONG)
    assert code == ExitStatus.SUCCESS and out.count("\n") == 2
    assert "<arg" not in terminal and "--timeout" not in terminal  # the answered counter only


# -- the pieces --------------------------------------------------------------------------------


def terminal_env(after: float = 0.0) -> Environment:
    return Environment(
        stdin=io.BytesIO(),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
        stdin_isatty=False,
        stdout_isatty=False,
        stderr_isatty=True,
        color_allowed=False,
        status_after=after,
    )


def test_it_names_the_first_input_not_yet_answered_and_wipes_itself_for_an_answer() -> None:
    env = terminal_env()
    printer = SolveText(env)
    printer.status = line = StatusLine(env, None)
    first, second = InputItem("a", "f.txt", 1), InputItem("b", "f.txt", 2)
    items = line.track([first, second])
    next(items), next(items)  # a model batch: both read
    stage.enter("models (a batch of 2)")
    line.draw()
    assert re.fullmatch(
        r"\r\x1b\[Kltlwit: f.txt:1: \d+\.\d s, models \(a batch of 2\); no time limit.*", env.stderr.getvalue()
    )  # cut to 79 characters: a test's stream has no width
    printer.emit(Solution(item=first, status="unsat"))
    assert env.stderr.getvalue().endswith(ERASE) and env.stdout.getvalue() == "UNSAT\n"
    line.draw()
    assert env.stderr.getvalue().rsplit(ERASE, 1)[1].startswith("ltlwit: f.txt:2: ")
    printer.emit(Solution(item=second, status="unsat"))
    line.draw()  # nothing left to work on
    assert env.stderr.getvalue().endswith(ERASE)


def test_a_message_wipes_it_first() -> None:
    env = terminal_env()
    printer = SolveText(env)
    printer.status = line = StatusLine(env, 10)
    list(line.track([InputItem("a", "<arg 1>", 1, from_argument=True)]))
    line.draw()
    printer.notice("a model failed")
    assert env.stderr.getvalue().endswith(ERASE + "ltlwit: a model failed\n")


def test_a_long_name_loses_its_start_and_the_line_fits() -> None:
    line = StatusLine(terminal_env(), None)
    list(line.track([InputItem("a", "specs/a/long/path/to/the/clients.ltl", 12)]))
    text = line.text(line.since + 3.25, 70)
    assert len(text) <= 70 and text.startswith("ltlwit: ...") and "clients.ltl:12: 3.2 s" in text
    assert line.text(line.since + 125, 200).startswith("ltlwit: specs/a/long/path/to/the/clients.ltl:12: 2 min 05 s")


def test_durations_are_rounded_not_cut() -> None:
    assert [_duration(s) for s in (3.25, 59.94, 59.96, 125 - 1e-9, 125.4, 3599.6)] == [
        "3.2 s",
        "59.9 s",
        "1 min 00 s",
        "2 min 05 s",
        "2 min 05 s",
        "60 min 00 s",
    ]


def test_the_stage_names_its_task() -> None:
    stage.enter("search round 2")
    with stage.within("unsat core"):
        assert stage.describe() == "unsat core: search round 2"
    assert stage.describe() == "search round 2"


def test_the_threshold_comes_from_the_environment() -> None:
    assert Environment.from_system({"LTLWIT_STATUS_AFTER": "0.5"}).status_after == 0.5
    assert Environment.from_system({}).status_after == 2.0
    assert Environment.from_system({"LTLWIT_STATUS_AFTER": "soon"}).status_after == 2.0  # not a reason to fail
