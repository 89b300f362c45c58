"""Fuzz ltlwit: generated and mutated inputs of every kind it reads, each process classified, each
failure minimised to a reproducer.

    python bench/fuzz.py --count 20000 --jobs 2 --out /tmp/fuzz          # seed 1
    python bench/fuzz.py --count 3000 --seed 7 --kinds lines,api          # some kinds only
    python bench/fuzz.py --show 17 --count 20000                          # case 17's command and files
    python bench/fuzz.py --cases 17,40 --count 20000 --out /tmp/again     # cases 17 and 40 alone
    python bench/fuzz.py --tree ../other --count 20000 --out /tmp/other   # another checkout
    python bench/fuzz.py --count 100000 --part 2/4 --out /tmp/p2          # a quarter of one run

What runs (bench/fuzz_cases.py; `--count` inputs split among the kinds by `--mix`):
  lines  formula lines in batches of `--batch` (400) to one process, as `ltlwit solve -F`, `fmt -F`
         or `verify -F`: Spot infix, Polish, LBT, nuXmv with data atoms and comparisons, past
         operators, bounded `O[<=3]` and `F[2,5]`, Declare templates (`response(a, b)`, with
         `--one-event`), generated from a grammar and mutated (bench/fuzz_formulas.py: byte flips,
         truncation, a piece repeated up to `--repeat` times: long names, deep nesting, long sums
         `x + x + ...`, stacked operators; invalid UTF-8, bare CR, NUL bytes)
  spec   .spec and .toml spec files through `check` (names, `# expect:`, `var`, `holds`, `one-event`)
  fret   FRET exports made from ../shared/data/fret/*.json: fields dropped, duplicated, retyped,
         huge variable lists, HTML tags
  log    CSV and JSON Lines logs through `verify --log` (CR/CRLF, quoted fields, missing cells,
         huge numbers, non-UTF-8)
  cli    option combinations of solve, check, verify and fmt (--finite, --one-event, --domain,
         --var, --jobs 2, --format json/csv, --core, --all, --vacuity, ...), some interrupted
  api    ltlwit.parse/solve/verify/check and Solver.solve_many in worker processes (a batch of
         `--api-batch` calls each): bad input must raise a ValueError subclass and nothing else
Every process gets `--timeout` (default 2) where its command has one, LTLWIT_MODEL=none and
LTLWIT_MAX_MEMORY=`--max-memory`. Inputs count as formula lines, API calls, and one per other
process. The same `--seed`, `--count`, `--mix` and batch sizes give the same inputs (each case
is drawn from its own generator, seeded by seed and position), whatever `--jobs`.

Classes (bench/fuzz_run.py, most severe first): traceback, internal error, hang (no answer for
--timeout + `--hang-after` seconds: killed), bad exit status, lost answers, slow (an answer more
than --timeout + `--slow-margin` seconds after the one before it), clean error (exit status 2),
answered. Findings (the classes but the last two) are told apart by a signature (the exception
and where it was raised, the command; for slow and hang also the piece the input repeats); the
first case of each is run again to confirm it, cut to the input it points at, and up to
`--minimise-max` of each class are minimised (bench/fuzz_minimise.py) within `--minimise-seconds`.

Written to `--out`: report.jsonl (a record per finding: class, signature, kind, case, whether
confirmed, the exact command, the reproducer's path, what the run said), summary.json, and
repro/NNN-CLASS.sh (or .py for the API): self-contained, it writes its input files into a
scratch directory and runs the command (`LTLWIT="python -m ltlwit" sh repro/001-....sh` runs
another ltlwit than the one on PATH; a .py runs with the ltlwit it imports). Printed at the end:
the classes per kind, inputs per second and each finding with its reproducer. Exit status 1 when
a confirmed finding other than slow was found, else 0.

Formula lines go 400 to a process, as the reliability run that found the first of these did, so
that 100,000 inputs need hundreds of processes, not 100,000. On the project's 2-core machine
20,000 inputs take about 40 minutes (8.6 inputs/s: a batch of lines answers 19 a second, the
spec, FRET and option cases cost a process of 1-2 s each), and each finding minimised up to
`--minimise-seconds` more (a slow or hung input costs --timeout + `--hang-after` a try).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shlex
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import fuzz_cases as fc
from fuzz_minimise import minimise
from fuzz_run import CLASSES, FINDINGS, Settings, Verdict, argv, run_api, run_case, settings

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("lines", "spec", "fret", "log", "cli", "api")
DEFAULT_MIX = "lines=70,api=6,cli=10,spec=7,log=5,fret=2"


@dataclass
class Finding:
    cls: str
    signature: str
    case: fc.Case
    verdict: Verdict
    occurrences: int = 1
    confirmed: bool | None = None
    #: The case cut to what it points at, then minimised (None: not confirmed).
    minimised: fc.Case | None = None
    reproducer: str | None = None
    #: Its place among the findings of its class and signature, most frequent first.
    rank: int = 0


def plan(count: int, mix: dict[str, float], batch: int, api_batch: int) -> list[tuple[str, int]]:
    """(kind, inputs) per case, the kinds interleaved evenly through the run."""
    total = sum(mix.values())
    cases: list[tuple[float, int, str, int]] = []
    for order, kind in enumerate(KINDS):
        share = round(count * mix.get(kind, 0) / total)
        size = batch if kind == "lines" else api_batch if kind == "api" else 1
        sizes = [size] * (share // size) + ([share % size] if share % size else [])
        cases += [((j + 0.5) / len(sizes), order, kind, n) for j, n in enumerate(sizes)]
    return [(kind, n) for _, _, kind, n in sorted(cases)]


def make_case(seed: int, index: int, kind: str, n: int, args: argparse.Namespace) -> fc.Case:
    rng = random.Random(f"{seed}:{index}:{kind}")
    t, limit = args.timeout, args.repeat
    if kind == "cli":
        case = fc.cli_case(rng, index, t, limit)
        return case if args.signals else replace(case, signal=None)
    if kind == "lines":
        return fc.lines_case(rng, index, n, t, limit)
    if kind == "api":
        return fc.api_case(rng, index, n, t, limit)
    if kind == "spec":
        return fc.spec_case(rng, index, t, limit)
    if kind == "fret":
        return fc.fret_case(rng, index, t, limit)
    return fc.log_case(rng, index, limit)


def verdicts_of(case: fc.Case, s: Settings) -> list[Verdict]:
    return run_api(case, s) if case.kind == "api" else [run_case(case, s)[1]]


def campaign(args: argparse.Namespace, s: Settings, log=print) -> tuple[list[Finding], dict]:
    """Run every case of the plan: the findings (one per class, signature and shape, with how
    often each was met) and the counts."""
    cases = plan(args.count, parse_mix(args.mix), args.batch, args.api_batch)
    k, n = args.part
    run = args.cases if args.cases is not None else range(k - 1, len(cases), n)
    counts: dict[str, Counter] = defaultdict(Counter)
    inputs: Counter = Counter()
    seconds: Counter = Counter()
    findings: dict[tuple[str, str, str], Finding] = {}
    lock = threading.Lock()
    harness: list[int] = []
    start = time.perf_counter()
    progress = [0, start]

    def work(i: int) -> None:
        kind, n = cases[i]
        case = make_case(args.seed, i, kind, n, args)
        began = time.perf_counter()
        try:
            verdicts = verdicts_of(case, s)
        except Exception as exc:  # the harness's, not ltlwit's: say so and go on, the run kept
            log(f"[case {i}] not run: {type(exc).__name__}: {exc}")
            with lock:
                harness.append(i)
            return
        with lock:
            seconds[kind] += time.perf_counter() - began
            for v in verdicts:
                counts[kind][v.cls] += 1
                for cls in FINDINGS:
                    if cls in v.flags:
                        key = (cls, v.flags[cls], v.shape if cls in ("slow", "hang") else "")
                        if key in findings:
                            findings[key].occurrences += 1
                        else:
                            findings[key] = Finding(cls, v.flags[cls], case, v)
                            log(f"[case {i}] {cls}: {v.flags[cls]}{' ' + v.shape if v.shape else ''} ({case.note})")
            inputs[kind] += case.inputs
            progress[0] += 1
            if time.perf_counter() - progress[1] > 60:
                progress[1] = time.perf_counter()
                rate = sum(inputs.values()) / (progress[1] - start)
                log(
                    f"[{progress[0]}/{len(run)} cases, {sum(inputs.values())} inputs, {rate:.0f}/s, {len(findings)} findings]"
                )

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(work, run))
    wall = time.perf_counter() - start
    stats = {
        "seed": args.seed,
        "count": args.count,
        "part": "{}/{}".format(*args.part),
        "cases": len(run),
        "inputs": dict(inputs),
        "process_s": {kind: round(x, 1) for kind, x in seconds.items()},
        "classes": {kind: dict(c) for kind, c in counts.items()},
        "not_run": harness,
        "wall_s": round(wall, 1),
        "inputs_per_s": round(sum(inputs.values()) / wall, 1) if wall else None,
    }
    return sorted(findings.values(), key=lambda f: (CLASSES.index(f.cls), f.signature, f.verdict.shape)), stats


def still(finding: Finding, s: Settings) -> Callable[[fc.Case], bool]:
    """Whether a case still shows the finding: its class with its signature."""

    def test(case: fc.Case) -> bool:
        return any(v.flags.get(finding.cls) == finding.signature for v in verdicts_of(case, s))

    return test


def confirmed(f: Finding, s: Settings) -> fc.Case | None:
    """The finding's case run again, cut to what it points at where that still shows it (the API
    call; the line of a batch that an internal error names, or whose answer came late); None
    when the finding does not show again."""
    case, test = f.case, still(f, s)
    if case.kind == "api":
        case = replace(case, calls=[case.calls[i] for i in f.verdict.hint], inputs=len(f.verdict.hint))
    elif f.verdict.hint and len(case.files) == 1:
        name, data = next(iter(case.files.items()))
        rows = data.split(b"\n")
        picked = [rows[i] for i in sorted(set(f.verdict.hint)) if i < len(rows)]
        narrow = replace(case, files={name: b"\n".join(picked) + b"\n"}, inputs=len(picked))
        if picked and test(narrow):
            return narrow
    return case if test(case) else None


def settle(findings: list[Finding], args: argparse.Namespace, s: Settings, log=print) -> None:
    """Confirm each finding and minimise the confirmed ones, at most --minimise-max of each
    class: the most frequent of each signature first."""

    def confirm(f: Finding) -> None:
        f.minimised = confirmed(f, s)
        f.confirmed = f.minimised is not None
        if not f.confirmed:
            log(f"unconfirmed: {f.cls}: {f.signature} (case {f.case.index})")

    def shrink(f: Finding) -> None:
        f.minimised = minimise(f.minimised, still(f, s), args.minimise_seconds)
        log(f"minimised: {f.cls}: {f.signature} (case {f.case.index}): {_size(f.case)} -> {_size(f.minimised)} bytes")

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(confirm, findings))
        chosen: list[Finding] = []
        for cls in FINDINGS:  # the most frequent of each signature first, then the next ones
            mine = sorted((f for f in findings if f.cls == cls and f.confirmed), key=lambda f: -f.occurrences)
            rank = Counter()
            for f in mine:
                rank[f.signature] += 1
                f.rank = rank[f.signature]
            chosen += sorted(mine, key=lambda f: f.rank)[: args.minimise_max]
        if args.minimise_seconds > 0:
            list(pool.map(shrink, chosen))


def _size(case: fc.Case) -> int:
    return (
        sum(map(len, case.files.values()))
        + len(case.stdin or b"")
        + sum(len(w) for w in case.words())
        + len(json.dumps(case.calls))
    )


# -- reproducers ------------------------------------------------------------------------------

ENV = "LTLWIT_MODEL=none NO_COLOR=1 LTLWIT_MAX_MEMORY={mem}"


def _printf(data: bytes) -> str:
    """A POSIX printf format string that writes exactly `data`."""
    out = []
    for b in data:
        c = chr(b)
        if c in "\\'%" or not (32 <= b < 127):
            out.append(f"\\{b:03o}")
        else:
            out.append(c)
    return "'" + "".join(out) + "'"


def _word(w: str) -> str:
    data = w.encode("utf-8", "surrogateescape")
    if all(32 <= b < 127 for b in data):
        return shlex.quote(w)
    return f'"$(printf {_printf(data)})"'


def command_line(case: fc.Case, mem: int) -> str:
    line = ENV.format(mem=mem) + " ${LTLWIT:-ltlwit} " + " ".join(_word(w) for w in argv(case))
    if case.stdin is not None:
        line = f"printf {_printf(case.stdin)} | {line}"
    if case.signal:
        line = line.replace(
            "${LTLWIT:-ltlwit}",
            f"timeout --preserve-status -s {case.signal[0]} {case.signal[1]} ${{LTLWIT:-ltlwit}}",
            1,
        )
    return line


def shell_reproducer(f: Finding, case: fc.Case, args: argparse.Namespace) -> str:
    head = [
        "#!/bin/sh",
        f"# ltlwit fuzz finding: {f.cls} ({f.signature}); bench/fuzz.py --seed {args.seed} --count {args.count}, case {f.case.index} ({f.case.note})",
        '# LTLWIT: the ltlwit to run (default: the one on PATH), e.g. LTLWIT="python -m ltlwit"',
        'dir=$(mktemp -d) && cd "$dir" || exit 1',
    ]
    body = [f"printf {_printf(data)} > {shlex.quote(name)}" for name, data in case.files.items()]
    return "\n".join([*head, *body, command_line(case, args.max_memory)]) + "\n"


def python_reproducer(f: Finding, case: fc.Case, args: argparse.Namespace) -> str:
    lines = [
        f"# ltlwit fuzz finding: {f.cls} ({f.signature}); bench/fuzz.py --seed {args.seed} --count {args.count}, case {f.case.index}",
        "import ltlwit",
    ]
    for call in case.calls:
        kwargs = ", ".join(f"{k}={v!r}" for k, v in call.get("kwargs", {}).items())
        given = ", ".join([*(repr(a) for a in call["args"]), *([kwargs] if kwargs else [])])
        if call["fn"] == "check_path":
            name, text = call["file"]
            lines.append(f"open({name!r}, 'w', encoding='utf-8').write({text!r})")
            lines.append(f"print(list(ltlwit.check({name!r}{', ' + kwargs if kwargs else ''})))")
        elif call["fn"] == "solve_many":
            formulas, kw = call["args"][0], dict(call.get("kwargs", {}))
            lines.append(f"print(list(ltlwit.Solver(**{kw!r}).solve_many({formulas!r})))")
        else:
            lines.append(f"print(ltlwit.{call['fn']}({given}))")
    return "\n".join(lines) + "\n"


def write_report(findings: list[Finding], stats: dict, args: argparse.Namespace) -> None:
    out = Path(args.out)
    (out / "repro").mkdir(parents=True, exist_ok=True)
    first: dict[tuple, int] = {}
    with open(out / "report.jsonl", "w", encoding="utf-8") as report:
        for n, f in enumerate(findings, 1):
            case = f.minimised or f.case
            same = first.setdefault((f.cls, f.signature, repr(case.groups), repr(case.files), repr(case.calls)), n)
            slug = re.sub(r"[^a-z]+", "-", f.cls)
            api = case.kind == "api"
            path = out / "repro" / f"{n:03d}-{slug}.{'py' if api else 'sh'}"
            path.write_text(
                (python_reproducer if api else shell_reproducer)(f, case, args),
                encoding="utf-8",
                errors="surrogateescape",
            )
            f.reproducer = str(path)
            record = {
                "id": n,
                "class": f.cls,
                "signature": f.signature,
                "shape": f.verdict.shape or None,
                "same_as": same if same != n else None,
                "kind": f.case.kind,
                "case": f.case.index,
                "note": f.case.note,
                "occurrences": f.occurrences,
                "confirmed": f.confirmed,
                "bytes": [_size(f.case), _size(case)],
                "command": None if api else command_line(case, args.max_memory),
                "calls": case.calls if api else None,
                "files": {name: data.decode("utf-8", "backslashreplace") for name, data in case.files.items()},
                "reproducer": str(path),
                "detail": f.verdict.detail[-2000:],
            }
            report.write(json.dumps(record) + "\n")
    (out / "summary.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")


def print_summary(findings: list[Finding], stats: dict) -> None:
    names = [c.replace("bad exit status", "bad exit").replace("internal error", "internal") for c in CLASSES]
    print(f"{'kind':<6} {'inputs':>7} {'/s':>6} " + " ".join(f"{c:>12}" for c in names))
    for kind in KINDS:
        if kind in stats["inputs"]:
            row = stats["classes"].get(kind, {})
            rate = stats["inputs"][kind] / max(stats["process_s"][kind], 1e-9)
            cells = " ".join(f"{row.get(c, 0):>12}" for c in CLASSES)
            print(f"{kind:<6} {stats['inputs'][kind]:>7} {rate:>6.1f} {cells}")
    total = sum(stats["inputs"].values())
    print(
        f"{total} inputs, {stats['cases']} cases, {stats['wall_s']} s: {stats['inputs_per_s']} inputs/s (seed {stats['seed']})"
    )
    print("(/s: inputs per second of one process; then cases by class, an API call a case of its own)")
    if stats["not_run"]:
        print(f"not run (the harness could not start them): cases {stats['not_run']}")
    for f in findings:
        state = "confirmed" if f.confirmed else "unconfirmed" if f.confirmed is False else "not rerun"
        shape = f", {f.verdict.shape}" if f.verdict.shape else ""
        print(f"- {f.cls}: {f.signature}{shape} x{f.occurrences} ({state}) {f.reproducer or ''}")


def parse_mix(text: str) -> dict[str, float]:
    mix = {}
    for part in text.split(","):
        kind, _, weight = part.partition("=")
        if kind not in KINDS:
            raise SystemExit(f"--mix: unknown kind {kind!r} (known: {', '.join(KINDS)})")
        mix[kind] = float(weight or 1)
    return mix


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=20000, help="inputs to generate (default 20000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2, help="cases run at a time (default 2: this machine's cores)")
    p.add_argument("--timeout", type=float, default=2.0, help="--timeout of every command that has one (default 2)")
    p.add_argument(
        "--hang-after",
        type=float,
        default=30.0,
        help="seconds past --timeout without an answer before a process is killed",
    )
    p.add_argument(
        "--slow-margin", type=float, default=1.0, help="seconds past --timeout an answer may take before it is slow"
    )
    p.add_argument("--batch", type=int, default=400, help="formula lines per process (default 400)")
    p.add_argument("--api-batch", type=int, default=200, help="API calls per worker process (default 200)")
    p.add_argument("--repeat", type=int, default=20000, help="most repetitions of a repeated piece (default 20000)")
    p.add_argument("--mix", default=DEFAULT_MIX, help=f"share of the inputs per kind (default {DEFAULT_MIX})")
    p.add_argument("--kinds", help="only these kinds, comma-separated (their --mix shares)")
    p.add_argument(
        "--no-signals",
        dest="signals",
        action="store_false",
        help="interrupt no run (whether a signal meets start-up or an answer is timing)",
    )
    p.add_argument("--max-memory", type=int, default=1024, help="LTLWIT_MAX_MEMORY of each process, MiB (default 1024)")
    p.add_argument("--minimise-seconds", type=float, default=300, help="time to minimise each finding (0: none)")
    p.add_argument(
        "--minimise-max", type=int, default=8, help="findings minimised per class, the most frequent first (default 8)"
    )
    p.add_argument("--out", default="fuzz-out", help="directory for report.jsonl, summary.json and repro/")
    p.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose ltlwit runs (default: this one)")
    p.add_argument("--python", default=sys.executable, help="the interpreter that runs it")
    p.add_argument("--command", help='the ltlwit command for CLI cases instead (e.g. "ltlwit")')
    p.add_argument(
        "--show", type=int, metavar="CASE", help="print case CASE's reproducer (of this seed and count) and exit"
    )
    p.add_argument(
        "--part",
        type=_part,
        default=(1, 1),
        metavar="K/N",
        help="run every N-th case of the plan from the K-th (1/2 and 2/2 on two machines or days: one run)",
    )
    p.add_argument(
        "--cases",
        type=lambda text: [int(n) for n in text.split(",")],
        metavar="N,M,...",
        help="run only these cases of the plan (of this seed and count): to confirm and minimise them again",
    )
    return p


def _part(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N with 1 <= K <= N")
    return int(k), int(n)


def main(argv_: list[str] | None = None) -> int:
    args = parser().parse_args(argv_)
    if args.kinds:
        mix = parse_mix(args.mix)
        args.mix = ",".join(f"{k}={mix.get(k, 1)}" for k in args.kinds.split(","))
    s = settings(args.python, args.tree.resolve(), args.command, args.max_memory, args.hang_after, args.slow_margin)
    if args.show is not None:
        kind, n = plan(args.count, parse_mix(args.mix), args.batch, args.api_batch)[args.show]
        case = make_case(args.seed, args.show, kind, n, args)
        f = Finding("case", case.note, case, Verdict({}))
        print((python_reproducer if kind == "api" else shell_reproducer)(f, case, args), end="")
        return 0
    findings, stats = campaign(args, s, log=lambda m: print(m, file=sys.stderr, flush=True))
    settle(findings, args, s, log=lambda m: print(m, file=sys.stderr, flush=True))
    stats["commit"] = subprocess.run(
        ["git", "-C", str(args.tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    stats["findings"] = Counter(f.cls for f in findings if f.confirmed)
    write_report(findings, stats, args)
    print_summary(findings, stats)
    return 1 if any(f.confirmed and f.cls != "slow" for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
