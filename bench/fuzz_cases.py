"""The cases bench/fuzz.py runs: each one `ltlwit` process (or one batch of Python API calls in a
worker process), generated from a `random.Random` alone.

Kinds:
  lines  a batch of formula lines (every syntax, mutated or not) in one file, through `solve`
         (sometimes `--finite`, `--one-event`, `--domain`), `fmt` or `verify -F` (FORMULA<TAB>WITNESS)
  spec   one to four spec files (.spec text: names, `# expect:`, `var`, `holds`, `one-event`;
         .toml: [[spec]] tables) through `check`, mutated or not
  fret   a FRET export (requirements taken from ../shared/data/fret/*.json, or made up when
         those are missing) with fields dropped, duplicated, of other types, huge variable
         lists, HTML tags, through `check`
  log    a CSV or JSON Lines log (CR/CRLF line ends, quoted fields, missing cells, huge
         numbers, non-UTF-8) through `verify --log`
  cli    option combinations of solve, check, verify and fmt on a few inputs; now and then the
         run is interrupted (SIGINT/SIGTERM)
  api    calls of ltlwit.parse/solve/verify/check and Solver.solve_many on good and bad input

The files (spec, TOML, FRET exports, logs) are made in bench/fuzz_files.py. A case's command is
a list of option groups (each a list of words; `{NAME}` stands for the
case's file NAME), so that the minimiser can drop groups; `fixed` groups stay.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import fuzz_files as fi
import fuzz_formulas as ff


@dataclass
class Case:
    """One process to run (or one API batch: `calls`)."""

    index: int
    kind: str
    groups: list[list[str]]
    files: dict[str, bytes] = field(default_factory=dict)
    inputs: int = 1
    #: The --timeout the command carries (None: it has none, as verify and fmt).
    timeout: float | None = None
    fixed: frozenset[int] = frozenset({0})
    stdin: bytes | None = None
    #: ("INT" or "TERM", seconds after the start) to interrupt the run.
    signal: tuple[str, float] | None = None
    calls: list[dict] = field(default_factory=list)
    note: str = ""

    def words(self) -> list[str]:
        return [w for g in self.groups for w in g]


def _opt(rng: random.Random, p: float, *words: str) -> list[list[str]]:
    return [list(words)] if rng.random() < p else []


def _timeout(t: float) -> list[str]:
    return ["--timeout", f"{t:g}"]


def _batch_line(rng: random.Random, mutation: float, limit: int) -> bytes:
    if rng.random() < 0.03:  # blank lines and comments get no answer
        return rng.choice((b"", b"   ", b"# a comment", b"  # indented comment", b"\t"))
    return ff.mutated_formula(rng, limit) if rng.random() < mutation else ff.formula(rng).encode()


def lines_case(rng: random.Random, index: int, n: int, t: float, limit: int) -> Case:
    """A batch of `n` formula lines in one file (as the reliability run had them: 400)."""
    mutation = rng.choice((0.2, 0.5, 0.8))
    roll = rng.random()
    if roll < 0.1:  # fmt: every syntax in, one out
        body = b"\n".join(_batch_line(rng, mutation, limit) for _ in range(n)) + b"\n"
        groups = [["fmt"], ["--to", rng.choice(("infix", "spot", "polish", "polish-spaced", "lbt"))]]
        return Case(index, "lines", [*groups, ["-F", "{batch.txt}"]], {"batch.txt": body}, n, note="fmt batch")
    if roll < 0.2:  # verify: FORMULA<TAB>WITNESS
        finite = rng.random() < 0.3
        rows = []
        for _ in range(n):
            pair = ff.formula(rng, depth=rng.randrange(1, 4)).encode() + b"\t" + ff.witness(rng, finite).encode()
            rows.append(ff.mutate(pair, rng, limit // 10) if rng.random() < mutation / 2 else pair)
        groups = [["verify"], *_opt(rng, float(finite), "--finite"), *_opt(rng, 0.3, "--domain", "Int")]
        return Case(
            index,
            "lines",
            [*groups, ["-F", "{pairs.txt}"]],
            {"pairs.txt": b"\n".join(rows) + b"\n"},
            n,
            note="verify -F batch",
        )
    syntax = rng.choice((None, None, None, "data", "declare", "past"))
    body = []
    for _ in range(n):
        if syntax and rng.random() < 0.7:
            line = ff.formula(rng, syntax).encode()
            body.append(ff.mutate(line, rng, limit) if rng.random() < mutation else line)
        else:
            body.append(_batch_line(rng, mutation, limit))
    groups = [
        ["solve"],
        _timeout(t),
        *_opt(rng, 0.3 if syntax != "declare" else 0.9, "--finite"),
        *_opt(rng, 0.5 if syntax == "declare" else 0.05, "--one-event"),
        *_opt(rng, 0.6 if syntax == "data" else 0.1, "--domain", rng.choice(("Int", "Real"))),
        ["-F", "{batch.txt}"],
    ]
    return Case(
        index,
        "lines",
        groups,
        {"batch.txt": b"\n".join(body) + b"\n"},
        n,
        t,
        frozenset({0, 1}),
        note=f"solve batch ({syntax or 'mixed'})",
    )


def spec_case(rng: random.Random, index: int, t: float, limit: int) -> Case:
    """`check` on one to four spec files, some mutated."""
    files = {}
    for i in range(rng.choice((1, 1, 2, 4))):
        toml = rng.random() < 0.3
        data = fi.toml_text(rng) if toml else fi.spec_text(rng)
        if rng.random() < 0.4:
            data = fi.mutate_file(data, rng, limit)
        files[f"s{i}.toml" if toml else f"s{i}.spec"] = data
    groups = [["check"], _timeout(t), *_check_options(rng), *[[f"{{{name}}}"] for name in files]]
    return Case(index, "spec", groups, files, 1, t, frozenset({0, 1}), note="check spec files")


def _check_options(rng: random.Random) -> list[list[str]]:
    return [
        *_opt(rng, 0.15, "--vacuity"),
        *_opt(rng, 0.15, "--consistency"),
        *_opt(rng, 0.08, "--redundancy"),
        *_opt(rng, 0.05, "--all-cores"),
        *_opt(rng, 0.3, "--finite"),
        *_opt(rng, 0.05, "--one-event"),
        *_opt(rng, 0.15, "--domain", rng.choice(("Int", "Real"))),
        *_opt(rng, 0.2, "--format", "json"),
        *_opt(rng, 0.1, "--jobs", "2"),
    ]


def fret_case(rng: random.Random, index: int, t: float, limit: int) -> Case:
    data = json.dumps(fi.fret_export(rng), indent=1, ensure_ascii=rng.random() < 0.5).encode()
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.15:
        data = fi.mutate_file(data, rng, limit)
    options = [
        *_opt(rng, 0.4, "--consistency"),
        *_opt(rng, 0.1, "--vacuity"),
        *_opt(rng, 0.1, "--redundancy"),
        *_opt(rng, 0.2, "--format", "json"),
    ]
    return Case(
        index,
        "fret",
        [["check"], _timeout(t), *options, ["{export.json}"]],
        {"export.json": data},
        1,
        t,
        frozenset({0, 1}),
        note="check FRET export",
    )


def log_case(rng: random.Random, index: int, limit: int) -> Case:
    """`verify --log` of formulas (arguments, or a spec file) against a CSV or JSON Lines log."""
    names = rng.sample(fi.LOG_VARS, rng.randrange(1, 5))
    if rng.random() < 0.05:
        names.append(names[0])  # a column named twice
    if rng.random() < 0.05:
        names.append(rng.choice(("weird name", "x y", "", "é")))
    jsonl = rng.random() < 0.35
    data = fi.jsonl_log(rng, names) if jsonl else fi.csv_log(rng, names)
    if rng.random() < 0.15:
        data = ff.mutate(data, rng, limit // 10 or 2)
    log_name = (
        rng.choice(("log.jsonl", "log.ndjson", "log.txt")) if jsonl else rng.choice(("log.csv", "log.csv", "log.txt"))
    )
    files = {log_name: data}
    groups = [["verify"], ["--log", f"{{{log_name}}}"]]
    if rng.random() < 0.2:
        files["req.spec"] = (
            "\n".join(
                f"r{i}: {fi.log_formula(rng, names)}" + ("  # holds: always" if rng.random() < 0.3 else "")
                for i in range(rng.randrange(1, 4))
            ).encode()
            + b"\n"
        )
        groups.append(["-F", "{req.spec}"])
    else:
        groups += [[fi.log_formula(rng, names)] for _ in range(rng.randrange(1, 4))]
    groups += [
        *_opt(rng, 0.2, "--var", f"{names[0]}:{rng.choice(('Int', 'Real', 'Bool', '{off, on}'))}"),
        *_opt(rng, 0.3, "--domain", rng.choice(("Int", "Real"))),
        *_opt(rng, 0.2, "--format", "json"),
    ]
    return Case(index, "log", groups, files, 1, note="verify --log " + ("jsonl" if jsonl else "csv"))


# -- option combinations ----------------------------------------------------------------------

#: Most bytes of formulas given as arguments (Linux takes 128 KiB an argument, about 2 MiB in
#: all); more go into a file.
ARGUMENT_BYTES = 100_000
SOLVE_OPTIONS = (
    ("--finite",), ("--semantics", "infinite"), ("--one-event",), ("--domain", "Int"), ("--domain", "Real"),
    ("--domain", "Complex"), ("--var", "x:Int"), ("--var", "speed:Real"), ("--var", "mode:{off, on}"),
    ("--var", "x:Foo"), ("--var", "x"), ("--var", "mode:{off,"), ("--jobs", "2"), ("--format", "json"),
    ("--format", "csv"), ("--format", "text"), ("--format", "table"), ("--format", "vcd"), ("--core",),
    ("--fine-core",), ("--all",), ("--top", "3"), ("--syntax", "spot"), ("--syntax", "nuxmv"),
    ("--syntax", "lbt"), ("--syntax", "polish"), ("--syntax-out", "polish"), ("--syntax-out", "lbt"),
    ("--logic", "ltl"), ("--logic", "prop"), ("--shard", "1/2"), ("--shard", "0/3"), ("--max-memory", "64"),
    ("--html", "{out.html}"), ("-q",), ("--batch-size", "1"), ("--validator", "aiger"), ("--no-fallback",),
)  # fmt: skip
CHECK_OPTIONS = (
    ("--vacuity",), ("--consistency",), ("--redundancy",), ("--all-cores",), ("--format", "json"),
    ("--junit", "{junit.xml}"), ("--html", "{out.html}"), ("--finite",), ("--one-event",), ("--domain", "Int"),
    ("--var", "x:Real"), ("--jobs", "2"), ("--write-baseline", "{base.jsonl}"), ("--max-memory", "64"), ("-q",),
)  # fmt: skip
VERIFY_OPTIONS = (
    ("--finite",), ("--format", "json"), ("--jobs", "2"), ("--logic", "prop"), ("--logic", "ltl"),
    ("--syntax", "spot"), ("--domain", "Real"), ("--var", "x:Int"), ("--validator", "aiger"), ("-q",),
)  # fmt: skip
FMT_OPTIONS = (
    ("--to", "spot"),
    ("--to", "lbt"),
    ("--to", "polish"),
    ("--to", "polish-spaced"),
    ("--syntax", "nuxmv"),
    ("--syntax", "lbt"),
)


def cli_case(rng: random.Random, index: int, t: float, limit: int) -> Case:
    """A subcommand with a random subset of its options on one to twenty inputs."""
    command = rng.choices(("solve", "check", "verify", "fmt"), (55, 20, 15, 10))[0]
    pool = {"solve": SOLVE_OPTIONS, "check": CHECK_OPTIONS, "verify": VERIFY_OPTIONS, "fmt": FMT_OPTIONS}[command]
    options = [list(o) for o in rng.sample(pool, min(len(pool), rng.randrange(0, 6)))]
    files: dict[str, bytes] = {}
    stdin: bytes | None = None
    timed = command in ("solve", "check")
    groups = [[command], *([_timeout(t)] if timed else []), *options]
    n = rng.randrange(1, 21)
    if command == "check":
        files["c.spec"] = fi.spec_text(rng)
        groups.append(["{c.spec}"])
    elif command == "verify":
        finite = ["--finite"] in options
        pairs = [ff.formula(rng, depth=rng.randrange(1, 4)) + "\t" + ff.witness(rng, finite) for _ in range(n)]
        if rng.random() < 0.5:
            files["pairs.txt"] = "\n".join(pairs).encode() + b"\n"
            groups.append(["-F", "{pairs.txt}"])
        else:
            groups.append(["--", *pairs[0].split("\t")])
    else:
        formulas = [
            ff.mutated_formula(rng, limit // 10 or 2) if rng.random() < 0.3 else ff.formula(rng).encode()
            for _ in range(n)
        ]
        where = rng.random()
        if where < 0.4 and sum(map(len, formulas)) < ARGUMENT_BYTES:
            args = [f.replace(b"\0", b"").decode("utf-8", "surrogateescape") for f in formulas]  # bytes as they are
            groups += (
                [["--"], *[[a] for a in args]] if rng.random() < 0.5 else [[a] for a in args if not a.startswith("-")]
            )
        elif where < 0.8:
            files["in.txt"] = b"\n".join(formulas) + rng.choice((b"\n", b"", b"\r\n"))
            groups.append(["-F", "{in.txt}"])
        else:
            groups.append(["-F", "-"])
            stdin = b"\n".join(formulas) + b"\n"
    signal = None
    if rng.random() < 0.06:
        signal = (rng.choice(("INT", "TERM")), round(rng.uniform(0.2, 1.5), 2))
    fixed = frozenset({0, 1}) if timed else frozenset({0})
    note = f"{command} options" + (", stdin" if stdin is not None else "")
    return Case(index, "cli", groups, files, 1, t if timed else None, fixed, stdin, signal, note=note)


# -- the Python API ---------------------------------------------------------------------------


def api_call(rng: random.Random, t: float, limit: int) -> dict:
    """One call of the public API: {"fn", "args", "kwargs"} (and "file" for check of a path)."""
    text = (
        ff.mutated_formula(rng, limit // 10 or 2).decode("utf-8", "replace") if rng.random() < 0.4 else ff.formula(rng)
    )
    fn = rng.choices(("parse", "solve", "verify", "check", "check_path", "solve_many"), (25, 30, 20, 10, 5, 10))[0]
    kwargs: dict = {}
    if fn == "parse":
        if rng.random() < 0.5:
            kwargs["syntax"] = rng.choice(("auto", "spot", "polish", "polish-spaced", "lbt", "nuxmv", "latex"))
        return {"fn": fn, "args": [text], "kwargs": kwargs}
    data_options = {
        "semantics": lambda: rng.choice(("infinite", "finite", "finite", "eventually")),
        "domain": lambda: rng.choice(("Int", "Real", "Real", "Nat")),
        "variables": lambda: {rng.choice(ff.VARS): rng.choice(("Int", "Real", "Bool", "{off, on}", "Foo", "{"))},
        "syntax": lambda: rng.choice(("auto", "spot", "nuxmv", "lbt", "polish", "bogus")),
        "logic": lambda: rng.choice(("auto", "ltl", "prop", "fol")),
    }
    for key, make in data_options.items():
        if rng.random() < 0.2:
            kwargs[key] = make()
    if fn in ("solve", "solve_many", "check", "check_path"):
        kwargs["timeout"] = t
        kwargs["model"] = rng.choice(("none",) * 19 + ("nonexistent",))
        if rng.random() < 0.1:
            kwargs["one_event"] = True
        if fn != "check" and fn != "check_path" and rng.random() < 0.1:
            kwargs["core"] = rng.choice((True, "fine", "yes"))
        if fn != "check" and fn != "check_path" and rng.random() < 0.05:
            kwargs["all"] = True
    if fn == "verify":
        kwargs.pop("one_event", None)
        witness: object = ff.witness(rng, kwargs.get("semantics") == "finite")
        if rng.random() < 0.1:
            witness = {rng.choice("abcq"): rng.choice((True, False)) for _ in range(2)}
        return {"fn": fn, "args": [text, witness], "kwargs": kwargs}
    if fn == "solve_many":
        return {
            "fn": fn,
            "args": [
                [
                    ff.formula(rng) if rng.random() < 0.7 else ff.mutated_formula(rng, 200).decode("utf-8", "replace")
                    for _ in range(rng.randrange(1, 8))
                ]
            ],
            "kwargs": kwargs,
        }
    if fn == "check":
        kwargs.pop("syntax", None)
        if rng.random() < 0.3:
            kwargs[rng.choice(("vacuity", "consistency", "redundancy"))] = True
        return {"fn": fn, "args": [fi.spec_text(rng).decode().splitlines()], "kwargs": kwargs}
    if fn == "check_path":
        toml = rng.random() < 0.5
        content = (fi.toml_text(rng) if toml else fi.spec_text(rng)).decode()
        return {"fn": fn, "args": [], "kwargs": kwargs, "file": ["api.toml" if toml else "api.spec", content]}
    return {"fn": fn, "args": [text], "kwargs": kwargs}


def api_case(rng: random.Random, index: int, n: int, t: float, limit: int) -> Case:
    calls = [api_call(rng, t, limit) for _ in range(n)]
    return Case(index, "api", [], {}, n, t, calls=calls, note="Python API calls")
