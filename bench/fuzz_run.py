"""Running bench/fuzz.py's cases and classifying what happened.

A process case runs in a scratch directory holding its files, with stdout read line by line as
it comes (each answer is flushed as soon as it is known, so the time between two answer lines
bounds how long one input took) and a watchdog that kills the process group when no line has
come for `timeout + hang_after` seconds. The classes, most severe first:

  traceback        a Python traceback in the output
  internal error   "internal error" in the output
  hang             killed by the watchdog
  bad exit status  anything but 0, 1, 2 (and 130/143 where SIGINT/SIGTERM was sent)
  lost answers     a batch of N inputs printing other than N answers (ltlwit prints one line per
                   input, ERROR for a bad one; how many inputs a file holds follows the reader's
                   rules: blank and `#` lines skipped, a NUL byte ends the file); for check, the
                   spec lines against the summary's count
  slow             an answer later than --timeout + `slow_margin` seconds after the one before it
                   (the first: after the start); not judged for check --vacuity/--redundancy,
                   whose specs ask many questions each, nor for commands without --timeout
  clean error      exit status 2 and none of the above
  answered         exit status 0 or 1 and none of the above

A run may have several (flags); its class is the most severe. API calls are classified the same
way: an exception other than a ValueError subclass is a traceback.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from fuzz_cases import Case

from ltlwit.pipeline.inputs import comment_line

CLASSES = ("traceback", "internal error", "hang", "bad exit status", "lost answers", "slow", "clean error", "answered")
FINDINGS = CLASSES[:6]
#: What the reader sniffs for NUL bytes before it reads a file as formulas (pipeline/inputs.py).
BINARY_SNIFF = 8192
#: Options of the four commands that take a value (the rest are flags).
VALUED = frozenset(
    "-F --file --format --shard --top --timeout --syntax --syntax-out --logic --domain --var --jobs -j "
    "--max-memory --html --batch-size --validator --to --semantics --engine --model --beam --device "
    "--max-len --threads --log --junit --baseline --write-baseline".split()
)
#: Most bytes of stdout kept per run (a runaway output is cut, not stored).
MAX_OUTPUT = 64 << 20


@dataclass
class Settings:
    """How cases run: the program, its environment, the limits."""

    program: list[str]
    env: dict[str, str]
    api_program: list[str]
    hang_after: float = 30.0
    slow_margin: float = 1.0


@dataclass
class Run:
    rc: int | None
    stdout: bytes
    stderr: bytes
    #: (seconds after the start, line) for each stdout line as it came.
    lines: list[tuple[float, bytes]]
    wall: float
    killed: bool = False
    signalled: str | None = None


@dataclass
class Verdict:
    """The classes a run (or an API call) showed, with a signature each (what tells two
    findings of a class apart before they are minimised), and where to look."""

    flags: dict[str, str]
    detail: str = ""
    #: Lines (0-based, of the case's first -F file) or API calls the finding points at.
    hint: list[int] = field(default_factory=list)
    wall: float = 0.0
    #: For slow and hang: what the input looks like (`shape`), to tell findings apart.
    shape: str = ""

    @property
    def cls(self) -> str:
        return next(c for c in CLASSES if c in self.flags)


def settings(
    python: str, tree: Path, command: str | None, max_memory: int, hang_after: float, slow_margin: float
) -> Settings:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(tree), LTLWIT_MODEL="none", NO_COLOR="1", LTLWIT_MAX_MEMORY=str(max_memory))
    env.pop("LTLWIT_TRACEBACK", None)
    program = shlex.split(command) if command else [python, "-m", "ltlwit"]
    return Settings(program, env, [python, str(Path(__file__).with_name("fuzz_api.py"))], hang_after, slow_margin)


def argv(case: Case) -> list[str]:
    """The case's words with its file placeholders as plain names (the files lie in the cwd)."""
    return [w[1:-1] if w[:1] == "{" and w[-1:] == "}" and len(w) > 2 else w for w in case.words()]


def execute(
    cmd: list[str], cwd: str, env: dict[str, str], stdin: bytes | None, stall: float, sig: tuple[str, float] | None
) -> Run:
    """Run `cmd`; kill its process group when no stdout line came for `stall` seconds (or 10 s
    after `sig` was sent)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    lines: list[tuple[float, bytes]] = []
    err = bytearray()
    kept = [0]

    def read_out() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            if kept[0] < MAX_OUTPUT:
                lines.append((time.perf_counter() - start, line))
                kept[0] += len(line)
            else:
                lines.append((time.perf_counter() - start, b""))

    def read_err() -> None:
        while chunk := proc.stderr.read(65536):  # type: ignore[union-attr]
            if len(err) < MAX_OUTPUT:
                err.extend(chunk)

    def feed() -> None:
        try:
            proc.stdin.write(stdin)  # type: ignore[union-attr, arg-type]
            proc.stdin.close()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            pass

    threads = [threading.Thread(target=read_out), threading.Thread(target=read_err)]
    if stdin is not None:
        threads.append(threading.Thread(target=feed))
    for t in threads:
        t.daemon = True
        t.start()
    killed, sent, sent_at = False, None, 0.0
    while proc.poll() is None:
        now = time.perf_counter() - start
        last = lines[-1][0] if lines else 0.0
        if sig and sent is None and now >= sig[1]:
            _signal_group(proc.pid, getattr(signal, "SIG" + sig[0]))
            sent, sent_at = sig[0], now
        if now - last > stall or (sent and now - sent_at > 10):
            _signal_group(proc.pid, signal.SIGKILL)
            killed = True
            proc.wait()
            break
        time.sleep(0.01)
    for t in threads:
        t.join(timeout=5)
    _signal_group(proc.pid, signal.SIGKILL)  # workers left behind (none, normally)
    wall = time.perf_counter() - start
    return Run(proc.returncode, b"".join(line for _, line in lines), bytes(err), lines, wall, killed, sent)


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run_case(case: Case, s: Settings) -> tuple[Run, Verdict]:
    """Run a process case in a scratch directory and classify it."""
    with tempfile.TemporaryDirectory(prefix="ltlwit-fuzz-") as cwd:
        for name, data in case.files.items():
            Path(cwd, name).write_bytes(data)
        run = execute(s.program + argv(case), cwd, s.env, case.stdin, stall_limit(case, s), case.signal)
    return run, classify(case, run, s)


def stall_limit(case: Case, s: Settings) -> float:
    """Seconds without an output line before the process counts as hung."""
    t = case.timeout or 2.0
    words = set(case.words())
    if words & {"--vacuity", "--redundancy"}:
        return t * 60 + s.hang_after  # a question per AP occurrence, each with the budget
    return t + s.hang_after


# -- classification ---------------------------------------------------------------------------

_INTERNAL = re.compile(rb'internal error[^:\n]*:\s*([^\n"]*)')
_LOCATED = re.compile(rb"ltlwit: ([^\n]*?):(\d+): [^\n]*internal error")
_RESULT = re.compile(rb"^(PASS|FAIL|UNKNOWN|ERROR) ", re.M)
_CONJUNCTION = re.compile(rb"^(PASS|FAIL|UNKNOWN|ERROR) \(all ", re.M)
_SUMMARY = re.compile(rb"^(\d+) specs?: ", re.M)


def classify(case: Case, run: Run, s: Settings) -> Verdict:
    out = run.stdout + run.stderr
    flags: dict[str, str] = {}
    hint: list[int] = []
    detail = _tail(run.stderr)
    command = case.words()[0]
    if b"Traceback (most recent call last)" in out:
        flags["traceback"] = f"{command}: {traceback_signature(out.decode('utf-8', 'replace'))}"
    if b"internal error" in out.lower():
        m = _INTERNAL.search(run.stderr) or _INTERNAL.search(run.stdout)  # stderr's line, not a JSON record's
        flags["internal error"] = f"{command}: {internal_signature(m.group(1)) if m else '?'}"
        hint += [int(m.group(2)) - 1 for m in _LOCATED.finditer(run.stderr)]
    if run.killed:
        flags["hang"] = f"{case.kind} {command}"
        hint += _line_of_answer(case, len(run.lines))  # the input after the last answer
    # a shell shows death by the signal (-2, -15) as 130 and 143 too
    allowed = (
        {0, 1, 2}
        | ({130, -2} if run.signalled == "INT" else set())
        | ({143, -15} if run.signalled == "TERM" else set())
    )
    if not run.killed and run.rc not in allowed:
        flags["bad exit status"] = f"{command}: {run.rc}"
    if not run.killed and not run.signalled and run.rc in (0, 1, 2):
        lost = lost_answers(case, run)
        if lost:
            flags["lost answers"] = f"{command} {lost[0]}"
            detail = lost[1] + "; " + detail
    if not run.killed and case.timeout and not run.signalled:
        late = late_answer(case, run, s)
        if late is not None:
            flags["slow"] = f"{case.kind} {command}"
            detail = (
                f"answer {late[0] + 1} came {late[1]:.2f} s after the one before it (--timeout {case.timeout:g}); "
                + detail
            )
            hint += _line_of_answer(case, late[0])
    if run.rc == 2:
        flags.setdefault("clean error", "")
    flags.setdefault("answered", "")
    timing = "slow" in flags or "hang" in flags
    return Verdict(flags, detail, hint, run.wall, shape(_pointed_at(case, hint)) if timing else "")


def _pointed_at(case: Case, hint: list[int]) -> bytes:
    """The input a finding points at: the hinted line of a batch, else the case's largest
    file or argument."""
    if hint and len(case.files) == 1:
        rows = next(iter(case.files.values())).split(b"\n")
        if hint[0] < len(rows):
            return rows[hint[0]]
    candidates = [
        *case.files.values(),
        *(w.encode("utf-8", "surrogateescape") for w in case.words()),
        case.stdin or b"",
    ]
    return max(candidates, key=len)


#: A piece of 1 to 16 bytes repeated at least 4 times in a row.
RUN = re.compile(rb"(.{1,16}?)\1{3,}", re.S)


def shape(data: bytes) -> str:
    """The piece repeated over the most bytes (names as `a`, numbers as `0`), or the size's order
    of magnitude when nothing repeats much: slow inputs of one shape are one finding until
    minimised."""
    best = max(RUN.finditer(data), key=lambda m: len(m.group(0)), default=None)
    if best is None or len(best.group(0)) < 64:
        return f"under {10 ** len(str(len(data) >> 10))} KiB, nothing repeated"
    piece = re.sub(rb"[0-9]+", b"0", re.sub(rb"[A-Za-z_][A-Za-z0-9_]*", b"a", best.group(1)))
    return f"{piece.decode('utf-8', 'replace')!r} repeated"


def internal_signature(message: bytes) -> str:
    """An internal error's exception and message, numbers and quoted text blanked out."""
    text = message.decode("utf-8", "replace")
    text = re.sub(r"(?<!\w)'[^']*'|(?<!\w)\"[^\"]*\"", "'…'", text)  # (not the ' of "can't")
    return re.sub(r"\b[0-9]+\b", "0", text)[:80]


def _line_of_answer(case: Case, k: int) -> list[int]:
    """The line of the case's batch file whose answer is the k-th printed (a batch's file is its
    only input; else nothing is known)."""
    words = case.words()
    if "-F" not in words or len(case.files) != 1:
        return []
    data = case.files.get(words[words.index("-F") + 1][1:-1])
    lines = answering_lines(data) if data is not None else []
    return [lines[k]] if k < len(lines) else []


def traceback_signature(text: str) -> str:
    """The exception's type and the innermost frame in ltlwit's code, `Z3Exception at
    ltlwit/logic/theory/smt.py:_apply`: two tracebacks alike there are one finding."""
    frames = re.findall(r'File "([^"]*ltlwit/[^"]*)", line \d+, in (\S+)', text)
    kinds = re.findall(r"^(\w[\w.]*(?:Error|Exception|Interrupt|Exit|Warning)|\w+Error)\b", text, re.M)
    where = f" at {frames[-1][0].split('ltlwit/', 1)[-1]}:{frames[-1][1]}" if frames else ""
    return f"{kinds[-1] if kinds else '?'}{where}"


def _tail(data: bytes, keep: int = 600) -> str:
    text = data.decode("utf-8", "replace")
    return text if len(text) <= keep else "..." + text[-keep:]


def late_answer(case: Case, run: Run, s: Settings) -> tuple[int, float] | None:
    """(answer index, seconds) of the first answer later than --timeout + margin after the one
    before it (the end of the process counts as an answer), or None."""
    words = set(case.words())
    if words & {"--vacuity", "--redundancy"}:
        return None
    limit = case.timeout + s.slow_margin  # type: ignore[operator]
    if words & {"table", "vcd"}:  # printed whole at the end: the run's share per input
        expected = expected_answers(case)
        n = expected[1] if expected else 1
        return (0, run.wall) if run.wall > limit * max(n, 1) else None
    before = 0.0
    for i, (at, _) in enumerate([*run.lines, (run.wall, b"")]):
        if at - before > limit:
            return i, at - before
        before = at
    return None


# -- counting answers -------------------------------------------------------------------------


def reader_items(data: bytes, sniffed: bool = True) -> list[bool]:
    """The inputs ltlwit's line reader makes of a file (pipeline/inputs.py), each True where
    text output prints a line for it (False: a whole-file error, reported on stderr alone).
    `sniffed` False: as read when the sniff for NUL bytes missed them (a pipe's first read
    may hold less than `BINARY_SNIFF` bytes)."""
    if sniffed and b"\0" in data[:BINARY_SNIFF]:
        return [False]
    return [True] * len(answering_lines(data, sniffed))


def answering_lines(data: bytes, sniffed: bool = True) -> list[int]:
    """The 0-based lines of a file that get an answer, in order (to point at the input behind
    the k-th answer): blank lines and comments (`#`, nuXmv's `--`) skipped, a line that is not
    UTF-8 answered with its error, a NUL byte's line answered and the rest of the file not."""
    if sniffed and b"\0" in data[:BINARY_SNIFF]:
        return []
    rows = data.split(b"\n")
    if rows and rows[-1] == b"":
        rows.pop()
    out = []
    for number, raw in enumerate(rows):
        if b"\0" in raw:
            out.append(number)
            break
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            out.append(number)
            continue
        text = (text.removeprefix("\ufeff") if number == 0 else text).strip()
        if text and not comment_line(text):
            out.append(number)
    return out


def expected_answers(case: Case) -> tuple[str, int, int] | None:
    """(output format, least, most answers) that solve, fmt or verify must print for the case's
    inputs, or None where that is not known (check, verify --log of spec files, tables)."""
    words = case.words()
    command, rest = words[0], words[1:]
    if command not in ("solve", "fmt", "verify"):
        return None
    options: dict[str, str] = {}
    positional: list[str] = []
    sources: list[str] = []
    i = 0
    while i < len(rest):
        w = rest[i]
        if w == "--":
            positional += rest[i + 1 :]
            break
        if w in VALUED and i + 1 < len(rest):
            if w in ("-F", "--file"):
                sources.append(rest[i + 1])
            options[w] = rest[i + 1]
            i += 2
            continue
        if w.startswith("-") and w != "-":
            options[w] = ""
        else:
            positional.append(w)
        i += 1
    fmt = options.get("--format", "text")
    if fmt in ("table", "vcd", "auto"):
        return None
    if command == "verify":
        if "--log" in options:
            return None if sources else (fmt, len(positional), len(positional))
        items = [True] if len(positional) == 2 else []
    else:
        items = [True] * len(positional)
    variants = [items]  # the inputs as read, each way a pipe's first read may be sniffed
    for source in sources:
        data = case.stdin if source == "-" else case.files.get(source[1:-1])
        if data is None:
            return None
        ways = [reader_items(data)]
        if source == "-" and b"\0" in data[:BINARY_SNIFF]:
            ways.append(reader_items(data, sniffed=False))
        variants = [v + w for v in variants for w in ways]
    counts = []
    for items in variants:
        if "--shard" in options:
            k, n = (int(x) for x in options["--shard"].split("/"))
            items = items[k::n]
        counts.append(sum(items) if fmt == "text" else len(items))
    if "--all" in options:
        return fmt, min(counts), max(counts) * int(options.get("--top", "3"))
    return fmt, min(counts), max(counts)


def printed_answers(fmt: str, stdout: bytes) -> int:
    if fmt == "json":
        return sum(1 for line in stdout.splitlines() if line.strip())
    if fmt == "csv":
        limit = csv.field_size_limit(MAX_OUTPUT)  # a CSV answer's witness may be megabytes long;
        try:  # the limit is the process's, which tests that import this share: put back
            rows = list(csv.reader(io.StringIO(stdout.decode("utf-8", "replace"), newline="")))
        finally:
            csv.field_size_limit(limit)
        return max(len(rows) - 1, 0)
    return stdout.count(b"\n") + (1 if stdout and not stdout.endswith(b"\n") else 0)


def lost_answers(case: Case, run: Run) -> tuple[str, str] | None:
    """(signature, detail) when the run printed other than one answer per input."""
    if not run.stdout and run.rc == 2:
        return None  # the run as a whole refused (a bad option): no input was begun
    if case.words()[0] == "check" and "json" not in case.words():
        results = len(_RESULT.findall(run.stdout)) - len(_CONJUNCTION.findall(run.stdout))
        summary = _SUMMARY.search(run.stdout)
        if summary and int(summary.group(1)) != results:
            return "check", f"{results} spec lines printed, the summary counts {int(summary.group(1))}"
        return None
    expected = expected_answers(case)
    if expected is None:
        return None
    fmt, least, most = expected
    printed = printed_answers(fmt, run.stdout)
    if least <= printed <= most:
        return None
    want = str(least) if least == most else f"{least}-{most}"
    return fmt, f"{printed} answers printed for {want} inputs ({fmt})"


# -- the Python API ---------------------------------------------------------------------------


def run_api(case: Case, s: Settings) -> list[Verdict]:
    """Each call of an API case in worker processes: one verdict per call. A worker that stops
    answering is killed (the call it was on is a hang) and another takes the calls after it."""
    verdicts: list[Verdict] = []
    while len(verdicts) < len(case.calls):
        begun = len(verdicts)
        payload = json.dumps(case.calls[begun:]).encode()
        with tempfile.TemporaryDirectory(prefix="ltlwit-fuzz-api-") as cwd:
            run = execute(s.api_program, cwd, s.env, payload, (case.timeout or 2.0) + s.hang_after, None)
        for _, line in run.lines:
            try:
                result = json.loads(line)
            except ValueError:
                continue
            verdicts.append(api_verdict(case.calls[begun + result["i"]], begun + result["i"], result, case.timeout, s))
        if len(verdicts) < len(case.calls):  # the worker died or was killed on this call
            flags = {"hang": "api"} if run.killed else {"bad exit status": f"api worker: {run.rc}"}
            if b"Traceback" in run.stderr:
                flags["traceback"] = "api worker: " + traceback_signature(run.stderr.decode("utf-8", "replace"))
            verdicts.append(Verdict({**flags, "answered": ""}, _tail(run.stderr), [len(verdicts)], run.wall))
    return verdicts


def api_verdict(call: dict, index: int, result: dict, timeout: float | None, s: Settings) -> Verdict:
    flags: dict[str, str] = {}
    fn = call["fn"]
    detail = " | ".join(result.get("messages", []))
    if result["outcome"] == "exception":
        flags["traceback"] = f"api {fn}: " + traceback_signature(result.get("traceback", ""))
        detail = result.get("traceback", "")[-1500:]
    if result.get("internal"):
        flags["internal error"] = f"api {fn}"
    if result.get("lost"):
        flags["lost answers"] = f"api {fn}"
        detail = f"no answer for inputs {result['lost']}; " + detail
    limit = _api_limit(call, result, timeout, s)
    if limit is not None and result["wall"] > limit:
        flags["slow"] = f"api {fn}"
        detail = f"{result['wall']:.2f} s (limit {limit:.2f}); " + detail
    if result["outcome"] == "ValueError":
        flags["clean error"] = ""
    flags["answered"] = ""
    return Verdict(flags, detail, [index], result["wall"])


def _api_limit(call: dict, result: dict, timeout: float | None, s: Settings) -> float | None:
    """The most seconds a call may take: --timeout per formula answered, plus the margin."""
    kwargs = call.get("kwargs", {})
    if call["fn"] in ("parse", "verify") or timeout is None or any(kwargs.get(k) for k in ("vacuity", "redundancy")):
        return None
    n = result.get("answers") or (len(call["args"][0]) if call["fn"] == "solve_many" else 1)
    return timeout * max(n, 1) + s.slow_margin
