"""Ending early: a closed pipe (`ltlwit ... | head -1`) and Ctrl-C end quietly, with the
statuses shells use (128 + signal number)."""

from __future__ import annotations

import signal
import subprocess

from cli_support import ROOT, ltlwit_command, subprocess_env

from ltlwit.cli.status import ExitStatus


def test_closed_pipe_is_quiet(tmp_path) -> None:
    path = tmp_path / "many.txt"
    path.write_text("a & !b\n" * 50_000)
    proc = subprocess.Popen(
        ltlwit_command("solve", "-F", str(path)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=ROOT,
    )
    assert proc.stdout.readline() == b"a & !b\n"
    proc.stdout.close()  # what `head -1` does after its line
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitStatus.BROKEN_PIPE == 141
    assert err == b""


def _default_sigint() -> None:
    """In the child, before exec: SIGINT back to its default disposition. A shell starts a
    background job (`pytest &`) with SIGINT ignored, a child inherits that, and Python keeps an
    ignored SIGINT ignored instead of raising KeyboardInterrupt: Ctrl-C would never arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_is_quiet() -> None:
    proc = subprocess.Popen(
        ltlwit_command("solve", "-F", "-"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=ROOT,
        preexec_fn=_default_sigint,
    )
    proc.stdin.write(b"a\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"a\n"  # now it waits for the next line
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitStatus.INTERRUPTED == 130
    assert err.strip() == b""


def test_closed_pipe_during_help_is_quiet_too() -> None:
    proc = subprocess.Popen(
        ltlwit_command("solve", "--help"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=ROOT,
    )
    proc.stdout.close()  # closed before ltlwit writes a byte
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == ExitStatus.BROKEN_PIPE
    assert err == b""


def test_closed_standard_streams_are_not_a_crash() -> None:
    """`<&-`, `>&-`, `2>&-`: no traceback; stdout closed ends like a closed pipe."""
    import shlex

    base = " ".join(shlex.quote(part) for part in ltlwit_command("solve"))

    def shell(command: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], capture_output=True, env=subprocess_env(), cwd=ROOT, timeout=60)

    no_stdin = shell(f"{base} <&-")
    assert (no_stdin.returncode, no_stdin.stdout, no_stdin.stderr) == (0, b"", b"")
    no_stdout = shell(f"{base} a >&-")
    assert (no_stdout.returncode, no_stdout.stderr) == (ExitStatus.BROKEN_PIPE, b"")
    no_stderr = shell(f"{base} '(' a 2>&-")
    assert (no_stderr.returncode, no_stderr.stdout) == (ExitStatus.ERROR, b"ERROR\na\n")


def test_check_writes_its_junit_report_though_the_reader_went_away(tmp_path) -> None:
    spec = tmp_path / "many.spec"
    spec.write_text("".join(f"s{i}: F p{i}\n" for i in range(3000)))
    report = tmp_path / "report.xml"
    proc = subprocess.Popen(
        ltlwit_command("check", "--junit", str(report), str(spec)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
        cwd=ROOT,
    )
    assert proc.stdout.readline().startswith(b"PASS")
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == ExitStatus.BROKEN_PIPE and err == b""
    assert report.read_text().count("<testcase") == 3000  # every spec, checked and reported


def test_rich_tables_end_like_other_output_when_stdout_is_closed() -> None:
    """`models list`, `data stats` and `models show` print through rich or directly: a closed
    stdout still ends them quietly with 141, not with rich's own exit or a traceback."""
    import shlex

    for args in (["models", "list"], ["data", "stats", "bench/data/prop-grid10.txt.gz"], ["models", "show", "si-ltl"]):
        command = " ".join(shlex.quote(part) for part in ltlwit_command(*args)) + " >&-"
        proc = subprocess.run(["bash", "-c", command], capture_output=True, env=subprocess_env(), cwd=ROOT, timeout=60)
        assert (proc.returncode, proc.stderr) == (ExitStatus.BROKEN_PIPE, b""), args
