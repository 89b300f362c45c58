"""Start-up of the `ltlwit` command: cold processes, one input each, as a shell loop over spec
files runs it (a cold single-formula `solve`
within 0.12 s on the project's 2-core machine).

    python bench/startup.py                  # each command 5 times: min and median wall
    python bench/startup.py --repeat 9 --top 30

Each row runs its command `--repeat` times in a fresh process (the installed console script,
else `python -m ltlwit`) and reports the min and median wall clock (interpreter start, imports
and the answer) and the least CPU time (user and system: what the wall clock is on an idle
machine; on a busy one the wall clock waits for a core too). Twice, runs alternating: in this environment as it is, and with the bytecode
cached (a fresh PYTHONPYCACHEPREFIX, filled by a first run that is not counted), as a `pip
install` leaves it. They differ where Python compiles ltlwit from source on every run: an
editable install with PYTHONDONTWRITEBYTECODE=1 (the development machines'), where that is
about half of a cold solve's time. Then the plain solve once more under `-X importtime`
(PYTHONPROFILEIMPORTTIME): the modules it imported, the costliest first (cumulative: a module
and what it imported first; wall clock, so a busy machine inflates it). The propositional row
and the arbiter's formula load the SAT solver (pysat), the arbiter's the SAT-based searches
too: the start-up share of a real piece of work.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arbiter import arbiter  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: The command of the target, and the target.
PLAIN = ("solve", "G(a -> F b)")
TARGET_S = 0.12
#: (label, arguments, stdin) of each row.
ROWS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("`ltlwit --help`", ("--help",), None),
    ("`ltlwit solve --help`", ("solve", "--help"), None),
    ('`ltlwit solve "G(a -> F b)"`', PLAIN, None),
    ('`ltlwit solve --model none "G(a -> F b)"`', ("solve", "--model", "none", "G(a -> F b)"), None),
    ('`ltlwit solve --format json "G(a -> F b)"`', ("solve", "--format", "json", "G(a -> F b)"), None),
    ('`ltlwit solve "(a | b) & !a"` (propositional: pysat)', ("solve", "(a | b) & !a"), None),
    ('`ltlwit verify "F a" "cycle{a}"`', ("verify", "F a", "cycle{a}"), None),
    ("12-client arbiter, `ltlwit solve -F -` (the SAT-based searches)", ("solve", "-F", "-"), arbiter(12) + "\n"),
)


def ltlwit() -> list[str]:
    """The installed console script when there is one (what users run), else `python -m ltlwit`."""
    script = Path(sys.executable).with_name("ltlwit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ltlwit"]


def env(**extra: str) -> dict[str, str]:
    """This environment with this checkout first on the path, and `extra`."""
    e = dict(os.environ, **extra)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH")]))
    return e


def cached(prefix: str) -> dict[str, str]:
    """An environment whose processes keep their bytecode under `prefix`."""
    e = env(PYTHONPYCACHEPREFIX=prefix)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    return e


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def once(args: tuple[str, ...], stdin: str | None, environment: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `ltlwit ARGS`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(ltlwit() + list(args), input=stdin, capture_output=True, text=True, env=environment)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"ltlwit {' '.join(args)}: exit status {proc.returncode}\n{proc.stderr}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def imports(args: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """(cumulative us, self us, module) of each module `ltlwit ARGS` imported."""
    proc = subprocess.run(ltlwit() + list(args), capture_output=True, text=True, env=env(PYTHONPROFILEIMPORTTIME="1"))
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "cumulative" not in line:
            own, cumulative, name = line[len("import time:") :].split("|")
            rows.append((int(cumulative), int(own), name.strip()))
    return rows


def startup(repeat: int, top: int = 20) -> None:
    """The start-up table, then the plain solve's import profile (module docstring)."""
    compiled = os.environ.get("PYTHONDONTWRITEBYTECODE") and not (ROOT / "ltlwit" / "__pycache__").exists()
    print(
        f"`{' '.join(ltlwit())}`, {os.cpu_count()} cores, Python {sys.version.split()[0]}; this environment "
        f"{'compiles ltlwit from source on every run' if compiled else 'reads cached bytecode'}\n"
    )
    print(f"## start-up (min and median of {repeat} cold runs; load average before: {load()})\n")
    print(
        "| command | wall min s | wall median s | CPU min s | bytecode cached: wall min s | wall median s | CPU min s |"
    )
    print("|---|---|---|---|---|---|---|")
    plain: tuple[list[tuple[float, float]], ...] = ()
    with tempfile.TemporaryDirectory() as prefix:
        for label, args, stdin in ROWS:
            once(args, stdin, cached(prefix))  # fills the cache
            runs: tuple[list[tuple[float, float]], ...] = ([], [])
            for _ in range(repeat):
                runs[0].append(once(args, stdin, env()))
                runs[1].append(once(args, stdin, cached(prefix)))
            plain = runs if args == PLAIN else plain
            cells = (
                f"{min(r)[0]:.3f} | {statistics.median(w for w, _ in r):.3f} | {min(c for _, c in r):.3f}" for r in runs
            )
            print(f"| {label} | {' | '.join(cells)} |", flush=True)
    verdicts = (
        f"{how} {min(r)[0]:.3f} s wall, {min(c for _, c in r):.3f} s CPU"
        for r, how in zip(plain, ("here", "bytecode cached"))
    )
    print(
        f"\nload average after: {load()}. The plain solve against its target of {TARGET_S} s: {'; '.join(verdicts)}\n"
    )

    profile = imports(PLAIN)
    ours = sorted({name for _, _, name in profile if name.split(".")[0] == "ltlwit"})
    print(
        f'## `-X importtime` of `ltlwit {PLAIN[0]} "{PLAIN[1]}"` (this environment): {len(profile)} modules, '
        f"{len(ours)} of them ltlwit's, {sum(own for _, own, _ in profile) / 1000:.1f} ms in all\n"
    )
    print("| cumulative ms | self ms | module |")
    print("|---|---|---|")
    for cumulative, own, name in sorted(profile, reverse=True)[:top]:
        print(f"| {cumulative / 1000:.1f} | {own / 1000:.1f} | `{name}` |")
    print("\nltlwit's modules:", " ".join(ours))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="cold runs per command and environment")
    parser.add_argument("--top", type=int, default=20, help="modules listed from the import profile")
    args = parser.parse_args()
    startup(args.repeat, args.top)


if __name__ == "__main__":
    main()
