"""`--jobs N` and `--shard K/N`: the same answers, messages, exit statuses and progress line as
one process gives, in input order; Ctrl-C and a closed stdout end every worker quietly; the
shards of a run partition its inputs and merge back into its output."""

from __future__ import annotations

import io
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

import pytest
from cli_support import ROOT, json_lines, ltlwit_command, run, run_process, subprocess_env

from ltlwit.cli.status import ExitStatus


def counter(n: int) -> str:
    """An n-bit counter that must reach all ones: hours of search at n = 24."""
    from test_ltl_budget import counter as formula

    return formula(n).to_str("spot")


def mixed_inputs(tmp_path) -> list[str]:
    """Two files of every kind of line (sat, unsat, propositional, parse errors, a line that is
    not UTF-8, formulas met again), an argument and a missing file."""
    kinds = [
        "G(req{i} -> F grant) & F req{i}",
        "(a{i} -> b) & a{i}",
        "GFa{i} & FG!a{i}",
        "p{i} & !p{i}",
        "(q{i} U r) U",
        "X(c{i} M d)",
        "a{i} xor b",
        "F G x{i} | G F !x{i}",
        "&Ua{i}b!Xc",
        "G(a{i} U",
    ]
    one = tmp_path / "one.txt"
    one.write_bytes(
        "".join(kinds[i % len(kinds)].format(i=i % 97) + "\n" for i in range(1500)).encode()
        + b"\xff\xfe not utf-8\n"
        + b"# a comment\n\nGF last\n"
    )
    two = tmp_path / "two.txt"
    two.write_text("".join(kinds[(i * 7) % len(kinds)].format(i=i) + "\n" for i in range(300)))
    return ["a U b", "-F", str(one), "-F", str(tmp_path / "missing.txt"), "-F", str(two)]


def without_times(text: str) -> list[dict]:
    records = json_lines(text)
    for record in records:
        record.pop("time_ms")
    return records


def test_solve_with_workers_says_exactly_what_one_process_says(tmp_path) -> None:
    args = mixed_inputs(tmp_path)
    one = run_process("solve", *args, timeout=300)
    two = run_process("solve", "--jobs", "2", *args, timeout=300)
    assert one.returncode == two.returncode == ExitStatus.ERROR
    assert two.stdout == one.stdout and two.stderr == one.stderr
    assert one.stdout.count(b"\n") > 1000 and b"one.txt:5: parse error" in one.stderr
    assert b"missing.txt: cannot open" in one.stderr and b"one.txt:1501: not UTF-8" in one.stderr
    json_one = run_process("solve", "--format", "json", *args, timeout=300)
    json_three = run_process("solve", "--format", "json", "-j", "3", *args, timeout=300)
    assert without_times(json_three.stdout.decode()) == without_times(json_one.stdout.decode())
    assert json_three.stderr == json_one.stderr


def test_exit_statuses_are_those_of_one_process() -> None:
    assert run("solve", "-j", "2", "a", "F b", "c & d").exit_code == ExitStatus.SUCCESS
    assert run("solve", "-j", "2", "a", "b & !b", "c").exit_code == ExitStatus.NEGATIVE
    assert run("solve", "-j", "2", "a", "(", "b & !b").exit_code == ExitStatus.ERROR
    assert run("verify", "-j", "2", "F a", "cycle{!a}").exit_code == ExitStatus.NEGATIVE


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_headers_come_once(fmt: str) -> None:
    args = ["solve", "--format", fmt, *(f"F p{i}" for i in range(40))]
    # the time column, CSV's or the table's (right-aligned: its padding goes with the number's width)
    ms = re.compile(r",[0-9.]+,,,$| *[0-9]+\.[0-9]$", re.MULTILINE)  # CSV: time_ms, reason, error, warnings
    one, two = (ms.sub("", run(*args, *jobs).stdout) for jobs in ([], ["-j", "2"]))
    assert two == one and one.count({"csv": "input,file", "table": "witness"}[fmt]) == 1


def test_answers_keep_input_order(tmp_path) -> None:
    path = tmp_path / "distinct.txt"
    path.write_text("".join(f"p{i}\n" for i in range(5000)))
    result = run("solve", "-j", "3", "-F", str(path))
    assert result.stdout.splitlines() == [f"p{i}" for i in range(5000)]


def test_budgets_hold_per_formula_in_every_worker() -> None:
    slow = counter(24)
    timed = [run("solve", *jobs, "--timeout", "0.3", "a", slow, "b") for jobs in ([], ["-j", "2"])]
    assert timed[0].stdout == timed[1].stdout == "a\nUNKNOWN\nb\n"
    assert timed[0].stderr == timed[1].stderr == "ltlwit: <arg 2>: unknown: time budget exhausted\n"
    memory = [run("solve", *jobs, "--max-memory", "1", slow) for jobs in ([], ["-j", "2"])]
    assert memory[0].stderr == memory[1].stderr == "ltlwit: <arg 1>: unknown: memory limit of 1 MiB reached\n"


def test_the_progress_line_is_that_of_one_process(monkeypatch) -> None:
    from ltlwit.cli import cli
    from ltlwit.cli.environment import Environment
    from ltlwit.cli.progress import ProgressLine

    monkeypatch.setattr(ProgressLine, "INTERVAL", 0.0)  # drawn at every answer
    shown = []
    for jobs in ("1", "2"):
        out, err = io.StringIO(), io.StringIO()
        env = Environment(
            stdin=io.BytesIO(),
            stdout=out,
            stderr=err,
            stdin_isatty=True,
            stdout_isatty=False,
            stderr_isatty=True,
            color_allowed=False,
        )
        args = ["solve", "-j", jobs, *(f"F p{i}" for i in range(30)), "(", "x & !x"]
        assert cli.main(args, standalone_mode=False, obj=env) == ExitStatus.ERROR
        shown.append((out.getvalue(), re.sub(r", [0-9]+/s", "", err.getvalue())))  # the rate varies
    assert shown[0] == shown[1]
    assert "\r\x1b[Kltlwit: 32 answered (30 sat, 1 unsat, 0 unknown, 1 error)" in shown[1][1]
    assert shown[1][1].endswith("\r\x1b[K")


def test_verify_with_workers(tmp_path) -> None:
    path = tmp_path / "pairs.txt"
    pairs = ["a & b\ta1b1", "G F a\tcycle{a}", "GFa\tcycle{!a}", "(a\tx", "Uab\tab", "no tab", "F c\tc; cycle{1}"]
    path.write_text("\n".join(pairs * 200) + "\n")
    for args in (["-F", str(path)], ["--format", "json", "G a", "cycle{a}", "-F", str(path)]):
        one, two = run_process("verify", *args), run_process("verify", "-j", "2", *args)
        assert one.returncode == two.returncode == ExitStatus.ERROR
        assert two.stderr == one.stderr
        if "json" in args:
            assert without_times(two.stdout.decode()) == without_times(one.stdout.decode())
        else:
            assert two.stdout == one.stdout


def test_check_with_workers(tmp_path) -> None:
    spec = tmp_path / "many.spec"
    spec.write_text(
        "".join(f"s{i}: G(r{i % 5} -> F g{i % 5})\n" for i in range(40))
        + "quiet: G !r0\nnever: F(g1 & !g1)   # expect: unsat\nbad: (\nwrong: F x   # expect: unsat\n"
    )
    args = ["--vacuity", str(spec), str(ROOT / "examples" / "arbiter.spec")]
    one = run_process("check", *args, "--junit", str(tmp_path / "one.xml"))
    two = run_process("check", "-j", "2", *args, "--junit", str(tmp_path / "two.xml"))
    assert one.returncode == two.returncode == ExitStatus.ERROR
    assert (two.stdout, two.stderr) == (one.stdout, one.stderr)
    assert b": occurrence 1 of 'g0' can be" in one.stdout and b"  VACUOUS s" in one.stdout
    reports = [re.sub(r'time="[0-9.]+"', "", (tmp_path / name).read_text()) for name in ("one.xml", "two.xml")]
    assert reports[0] == reports[1]


def test_check_with_workers_and_a_timeout_answers_every_file(tmp_path) -> None:
    """With a timeout a worker streams each answer as it comes and closes the chunk after:
    the next file's run must not receive the last file's closing message (the fuzzer's
    'internal error: KeyError: 1')."""
    (tmp_path / "k8.spec").write_text("a\n1 != 4\n")
    (tmp_path / "k1.spec").write_text("b\n")
    files = [str(tmp_path / "k8.spec"), str(tmp_path / "k1.spec")]
    one = run_process("check", "--timeout", "5", *files)
    two = run_process("check", "--timeout", "5", "--jobs", "2", *files)
    assert one.returncode == two.returncode == ExitStatus.SUCCESS
    assert (two.stdout, two.stderr) == (one.stdout, one.stderr)
    assert two.stdout.count(b"PASS ") == 3


def test_jobs_and_shard_values() -> None:
    assert run("solve", "-j", "auto", "a").exit_code == 0
    for bad in (["-j", "0"], ["-j", "two"], ["--shard", "2/2"], ["--shard", "1"], ["--shard", "-1/3"]):
        result = run("solve", *bad, "a")
        assert result.exit_code == ExitStatus.ERROR and "Invalid value" in result.stderr, bad


def test_auto_is_the_usable_cores() -> None:
    from ltlwit.cli.jobs import Jobs

    assert Jobs().convert("auto", None, None) == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("command", ["solve", "verify"])
def test_shards_partition_the_inputs_and_merge_back_in_order(tmp_path, command: str) -> None:
    path = tmp_path / "inputs.txt"
    lines = [f"F p{i}" if command == "solve" else f"F p{i}\tcycle{{p{i}}}" for i in range(100)]
    lines[17] = "(" if command == "solve" else "( \tx"
    path.write_text("\n".join(lines) + "\n")
    whole = run_process(command, "--format", "json", "-F", str(path))
    outputs = []
    for k in range(3):
        out = tmp_path / f"shard-{k}.jsonl"
        shard = run_process(
            command, "--format", "json", "--shard", f"{k}/3", *(["-j", "2"] if k == 1 else []), "-F", str(path)
        )
        out.write_bytes(shard.stdout)
        outputs.append(out)
        assert [r["line"] for r in json_lines(shard.stdout.decode())] == list(range(k + 1, 101, 3))
    merged = subprocess.run(
        ["bash", "-c", "paste -d '\\n' " + " ".join(shlex.quote(str(o)) for o in outputs) + " | sed '/^$/d'"],
        capture_output=True,
        check=True,
    )
    assert without_times(merged.stdout.decode()) == without_times(whole.stdout.decode())


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in found]


def _gone(pids: list[int], wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not any(os.path.exists(f"/proc/{p}") and "zombie" not in _state(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _state(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/status").read().lower()
    except OSError:
        return "zombie"


def test_ctrl_c_ends_every_worker_quietly() -> None:
    """Ctrl-C on a terminal reaches the whole process group, workers included."""
    # as from a terminal: SIGINT at its default even where this test runs with it ignored (a
    # shell's background job, `nohup`), which Python, and so ltlwit, would inherit and keep
    proc = _start("solve", "-j", "2", "-F", "-", stdin=subprocess.PIPE)
    proc.stdin.write(b"a\nF b\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"a\n"
    assert proc.stdout.readline() == b"cycle{b}\n"  # answered though more input may come
    workers = _children(proc.pid)
    assert len(workers) >= 2
    os.killpg(proc.pid, signal.SIGINT)
    # stdin stays open until the run has ended: Ctrl-C alone must end it (closing stdin first
    # would race the signal with the end of the input, which ends the run normally)
    proc.wait(timeout=60)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitStatus.INTERRUPTED
    assert err.strip() == b""
    assert _gone(workers)


def _group(pgid: int) -> list[int]:
    """The processes of process group `pgid` that are still alive (zombies aside)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{entry}/stat").read() if entry.isdigit() else ""
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _group_gone(pgid: int, wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while _group(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_ctrl_c_while_the_command_loads_exits_quietly() -> None:
    """Ctrl-C that comes while the command's modules load (an import hook sends it as the
    command group's module is read): exit status 130 and no traceback, as later."""
    hook = (
        "import os, signal, sys\n"
        "class Hook:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'ltlwit.cli.group':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.meta_path.insert(0, Hook())\n"
        "sys.argv = ['ltlwit', 'solve', 'a']\n"
        "from ltlwit.cli import main\n"
        "main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", hook],
        capture_output=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # not inherited ignored
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (ExitStatus.INTERRUPTED, b"", b"")


def _start(*args: str, stdin: int | None = None) -> subprocess.Popen:
    """`ltlwit ARGS...` in a process group of its own, SIGINT at its default (as from a terminal)."""
    return subprocess.Popen(
        ltlwit_command(*args),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=ROOT,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _rest(proc: subprocess.Popen) -> tuple[bytes, bytes]:
    """The rest of stdout and stderr once `proc` has ended (after lines read from stdout: the
    stream's own buffer may hold more, which `communicate` would skip)."""
    killer = threading.Timer(60, proc.kill)
    killer.start()
    try:
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait()
    finally:
        killer.cancel()
    return out, err


@pytest.mark.parametrize(
    "signum, group, status",
    [(signal.SIGINT, True, ExitStatus.INTERRUPTED), (signal.SIGTERM, False, 143), (signal.SIGTERM, True, 143)],
    ids=["ctrl-c", "sigterm", "sigterm-to-the-group"],
)
def test_an_interrupt_prints_every_answer_finished_before_the_first_unfinished_input(
    tmp_path, signum: int, group: bool, status: int
) -> None:
    """The inputs before a formula of hours are answered while it runs, whichever worker has
    them (answers travel as they are finished, not a chunk at a time); the signal then ends
    the run with exactly those answers: none of the inputs after the slow one, which may be
    answered too, since the slow one has none."""
    before = [f"p{i} & q" for i in range(300)]
    path = tmp_path / "inputs.txt"
    path.write_text("\n".join([*before, counter(24), *(f"r{i}" for i in range(100))]) + "\n")
    proc = _start("solve", "-j", "2", "--model", "none", "-F", str(path))
    killer = threading.Timer(60, proc.kill)  # a run that never prints them fails rather than hangs
    killer.start()
    try:
        lines = [proc.stdout.readline() for _ in before]
    finally:
        killer.cancel()
    assert lines == [f"{text}\n".encode() for text in before]
    time.sleep(0.3)  # the other worker answers on past the slow formula meanwhile
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    rest, err = _rest(proc)
    assert (proc.returncode, rest, err.strip()) == (status, b"", b"")
    assert _group_gone(proc.pid)


def test_ctrl_c_at_any_moment_prints_a_prefix_of_the_answers(tmp_path) -> None:
    """Ctrl-C at random moments of a run: what is printed is always the uninterrupted run's
    output up to some input, the status is 130, and no worker is left."""
    path = tmp_path / "many.txt"
    kinds = ["a{} & !b", "F a{}", "G(a -> F b{})", "a{} U b", "X c{}", "G F p{}", "p{} & !p{}"]
    path.write_text("".join(kinds[i % len(kinds)].format(i, i) + "\n" for i in range(2000)))
    one = run_process("solve", "--model", "none", "-F", str(path), timeout=120)
    whole = one.stdout
    assert whole.count(b"\n") == 2000 and one.returncode == ExitStatus.NEGATIVE  # UNSAT among them
    rng = random.Random(7)
    cut = []
    for trial in range(20):
        proc = _start("solve", "-j", "2", "--model", "none", "-F", str(path))
        first = proc.stdout.readline()  # the run is under way
        time.sleep(rng.uniform(0.0, 0.4))
        if trial % 2:
            os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole group
        else:
            proc.send_signal(signal.SIGINT)  # `kill -INT`: the main process alone
        rest, err = _rest(proc)
        out = first + rest
        assert whole.startswith(out) and out.endswith(b"\n"), (trial, len(out))
        assert err.strip() == b"", (trial, err)
        # a run over first ends with its own status, or 130 where the signal came as it ended
        assert proc.returncode in ((one.returncode, ExitStatus.INTERRUPTED) if out == whole else (130,)), trial
        assert _group_gone(proc.pid), trial
        if out != whole:
            cut.append(out.count(b"\n"))
    assert len(cut) >= 5 and sum(cut) > 0, cut  # most runs were cut short, after some answers


def test_a_closed_stdout_ends_every_worker_quietly(tmp_path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("a & !b\n" * 100_000)
    proc = subprocess.Popen(
        ltlwit_command("solve", "-j", "2", "-F", str(path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=ROOT,
    )
    assert proc.stdout.readline() == b"a & !b\n"
    workers = _children(proc.pid)
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitStatus.BROKEN_PIPE
    assert err == b""
    assert _gone(workers)


def test_workers_die_with_a_killed_run(tmp_path) -> None:
    proc = subprocess.Popen(
        ltlwit_command("solve", "-j", "2", counter(24), counter(23)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=ROOT,
    )
    deadline = time.monotonic() + 30
    while len(workers := _children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.kill()  # no chance to clean up: the workers must notice by themselves
    proc.communicate(timeout=60)
    assert _gone(workers)


@pytest.mark.slow
def test_a_failing_model_is_reported_once_for_all_workers(tmp_path, monkeypatch) -> None:
    """Each worker loads the models itself (spawned: torch does not survive a fork); a model
    that fails to load is said once, and the engine answers, as in one process."""
    from ltlwit.neural.config import preset
    from ltlwit.neural.weights import save_weights

    save_weights(preset("si", "ltl", "tiny").build(), tmp_path / "models" / "broken")
    (tmp_path / "models" / "broken.pt").write_bytes(b"not a tensor file")
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path))
    args = ["solve", "--model", "broken", "--max-len", "8", *(f"F a{i}" for i in range(20))]
    one, two = run_process(*args, timeout=300), run_process(*args, "-j", "2", timeout=300)
    assert one.returncode == two.returncode == ExitStatus.ERROR
    assert one.stdout == two.stdout and one.stdout.decode().splitlines() == [f"cycle{{a{i}}}" for i in range(20)]
    assert one.stderr == two.stderr
    (line,) = two.stderr.decode().splitlines()
    assert "model 'broken'" in line and "corrupt weights" in line


def test_json_records_say_where_each_input_was(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("a\n\n# c\nb\n")
    records = json_lines(run("solve", "-j", "2", "--format", "json", "x", "-F", str(path)).stdout)
    assert [(r["file"], r["line"]) for r in records] == [("<arg 1>", 1), (str(path), 1), (str(path), 4)]
    assert json.loads(json.dumps(records)) == records
