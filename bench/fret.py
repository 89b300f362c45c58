"""FRET requirement sets through `ltlwit check`: does every requirement read, is each set
answered (consistent, with a witness, or conflicting, with the requirements that conflict), and
is a conflict planted among a set's requirements named exactly.

    python bench/fret.py                                   # the exports in ../shared/data/fret
    python bench/fret.py other/*.json                      # any FRET exports
    python bench/fret.py --plant 10 --seed 1               # ten planted conflicts per export
    python bench/fret.py --command "env PYTHONPATH=../old python -m ltlwit"   # another version

Per export it runs `ltlwit check --model none --consistency --format json --timeout T` in a
process of its own and reports the requirements read and not read (with the reasons), the
verdict on the whole set, its wall time and the conflict named. Then, for `--plant N`
requirements R of the set picked at random (seeded), it adds a requirement that contradicts R
at the first instant (FRET's requirements hold at every instant: `(Y TRUE) | !(ptExpanded of
R)`, false only at the first) and checks that the conflict named is {R, the planted one};
where another requirement implies R's first instant too, the core named may be that one's
instead, which is as right: such cases are counted apart (`other core`), and so are those
where R holds at the first instant of every trace (`Y x -> y`), which leaves the planted one
unsatisfiable alone (`alone`).
Results and the commands are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "fret"


def program(given: str | None) -> list[str]:
    if given:
        return shlex.split(given)
    exe = shutil.which("ltlwit")
    return [exe] if exe else [sys.executable, "-m", "ltlwit"]


def check(cmd: list[str], path: Path, timeout: float) -> tuple[list[dict], float, str]:
    start = time.perf_counter()
    out = subprocess.run(
        cmd + ["check", "--model", "none", "--consistency", "--format", "json", "--timeout", str(timeout), str(path)],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")], wall, out.stderr


def planted(export: dict, reqid: str) -> dict:
    """The export with a requirement contradicting `reqid`'s at the first instant (in its
    project, for an export of several)."""
    out = json.loads(json.dumps(export))
    requirements = out if isinstance(out, list) else out["requirements"]
    target = next(r for r in requirements if r.get("reqid") == reqid)
    formula = target["semantics"]["ptExpanded"]
    requirements.append(
        {
            "reqid": "PLANTED",
            "fulltext": f"the negation of {reqid} at the first instant",
            "project": target.get("project"),
            "semantics": {"ptExpanded": f"((Y TRUE) | (! {formula}))"},
        }
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("exports", nargs="*", type=Path)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--plant", type=int, default=5, metavar="N", help="planted conflicts per export")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--command", help="the ltlwit to run (default: the installed one)")
    args = ap.parse_args()
    exports = args.exports or sorted(DATA_DIR.glob("*.json"))
    cmd = program(args.command)
    rng = random.Random(args.seed)
    failures = 0
    for path in exports:
        records, wall, _ = check(cmd, path, args.timeout)
        specs = [r for r in records if r["kind"] == "spec"]
        sets = [r for r in records if r["kind"] == "conjunction"]  # one per project in an export of several
        errors = [r for r in specs if r["status"] == "error"]
        verdicts = ", ".join(f"{r['group']}: {r['status']}" if r.get("group") else r["status"] for r in sets)
        print(
            f"{path.name}: {len(specs)} requirements, {len(specs) - len(errors)} read and answered alone, "
            f"{len(errors)} not; {'the set' if len(sets) == 1 else f'{len(sets)} projects'}: "
            f"{verdicts or 'none'} in {wall:.2f} s"
        )
        for r in errors:
            print(f"    not read: {r['name']}: {r['error']}")
        for conj in sets:
            if conj["status"] == "fail":
                print(f"    conflict: {[c['name'] for c in conj['conflict'] or []]}")
            left = (conj.get("reason") or "").partition("left out: ")[2]
            if left:
                print(f"    left out{' of ' + conj['group'] if conj.get('group') else ''}: {left}")
        if not sets or any(r["status"] not in ("pass", "fail") for r in sets) or wall > args.timeout + 0.5:
            failures += 1
        export = json.loads(path.read_text(encoding="utf-8-sig"))
        good = [r["name"] for r in specs if r["status"] == "pass"]
        exact = other = alone = wrong = 0
        slowest = 0.0
        for reqid in rng.sample(good, min(args.plant, len(good))):
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(planted(export, reqid), f)
            records, wall, _ = check(cmd, Path(f.name), args.timeout)
            slowest = max(slowest, wall)
            Path(f.name).unlink()
            conj = next(
                (
                    r
                    for r in records
                    if r["kind"] == "conjunction" and any(c["name"] == "PLANTED" for c in r.get("conflict") or [])
                ),
                None,
            )
            named = sorted(c["name"] for c in (conj or {}).get("conflict") or [])
            if named == sorted([reqid, "PLANTED"]):
                exact += 1
            elif named == ["PLANTED"]:
                alone += 1
            elif conj and conj["status"] == "fail" and "PLANTED" in named:
                other += 1
                print(f"    planted against {reqid}: another core {named}")
            else:
                wrong += 1
                print(f"    planted against {reqid}: NOT named ({conj['status'] if conj else 'none'}: {named})")
        if args.plant:
            print(
                f"    planted conflicts: {exact} named exactly, {other} another core, {alone} the planted one "
                f"alone, {wrong} missed; "
                f"slowest {slowest:.2f} s"
            )
        failures += wrong
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
