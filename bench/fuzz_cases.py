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

A case's command is a list of option groups (each a list of words; `{NAME}` stands for the
case's file NAME), so that the minimiser can drop groups; `fixed` groups stay.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import fuzz_formulas as ff

FRET_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "fret"


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


# -- spec files -------------------------------------------------------------------------------

EXPECTS = ("sat", "unsat", "valid", "allowed", "forbidden", "implied")
NEAR_MISSES = (
    "# expect unsat",
    "# expected: unsat",
    "# Expect: unsat (REQ-12)",
    "# expect: unsat.",
    "# unsat",
    "# expect: sat # expect: unsat",
    "# exepct: valid",
)


def spec_formula(rng: random.Random) -> str:
    return ff.formula(rng, rng.choice(("infix", "infix", "past", "data", "declare")), depth=rng.randrange(1, 4))


def spec_text(rng: random.Random) -> bytes:
    """A .spec file: named formulas with expectations, holds and acknowledgments, file
    directives (`var`, `domain`, `holds`, `one-event`), comments, and some mistakes."""
    out = []
    if rng.random() < 0.2:
        out.append(
            rng.choice(
                ("var x, y: Int", "var speed: Real", "var mode: {off, on}", "var n: Bool", "var x: Foo", "var : Int")
            )
        )
    if rng.random() < 0.15:
        out.append(rng.choice(("domain Int", "domain Real", "domain Complex")))
    if rng.random() < 0.1:
        out.append(rng.choice(("holds always", "holds finally", "holds sometimes")))
    if rng.random() < 0.08:
        out.append("one-event")
    names = ["mutex", "resp", "quiet", "busy", "alive", "r1", "r_2", "REQ-12", "x.y"]
    for _ in range(rng.randrange(1, 8)):
        roll = rng.random()
        if roll < 0.1:
            out.append(rng.choice(("", "# a comment", "#", "   ")))
            continue
        line = (rng.choice(names) + ": " if rng.random() < 0.7 else "") + spec_formula(rng)
        if rng.random() < 0.35:
            line += "  # expect: " + rng.choice(EXPECTS)
        if rng.random() < 0.1:
            line += "  # holds: " + rng.choice(("always", "finally", "initially", "never"))
        if rng.random() < 0.05:
            line += "  # acknowledged: " + rng.choice(("vacuous a", "vacuous a:2", "redundant", "vacuos a"))
        if rng.random() < 0.04:
            line += "  " + rng.choice(NEAR_MISSES)
        out.append(line)
    return ("\n".join(out) + "\n").encode()


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value))  # a TOML basic string


def toml_text(rng: random.Random) -> bytes:
    """A .toml spec file of [[spec]] tables, top-level keys and a [variables] table, with keys of
    the wrong type or name now and then."""
    top = []
    if rng.random() < 0.15:
        top.append(f"domain = {_toml(rng.choice(('Int', 'Real', 'Bool', 3)))}")
    if rng.random() < 0.1:
        top.append(f"holds = {_toml(rng.choice(('always', 'finally', 'x', True)))}")
    if rng.random() < 0.1:
        top.append(f"one_event = {_toml(rng.choice((True, False, 'yes')))}")
    tables = []
    if rng.random() < 0.15:
        tables.append(
            "[variables]\n"
            + "\n".join(
                f"{v} = {_toml(rng.choice(('Int', 'Real', '{off, on}', 'Foo', 1)))}" for v in rng.sample(ff.VARS, 2)
            )
        )
    for i in range(rng.randrange(1, 6)):
        keys = {"name": f"s{i}", "formula": spec_formula(rng)}
        if rng.random() < 0.3:
            keys["expect"] = rng.choice(EXPECTS + ("maybe",))
        if rng.random() < 0.15:
            keys["semantics"] = rng.choice(("finite", "infinite", "weird"))
        if rng.random() < 0.05:
            keys["holds"] = rng.choice(("always", "finally"))
        if rng.random() < 0.05:
            keys["acknowledged"] = rng.choice((["vacuous a"], "redundant", [1]))
        if rng.random() < 0.08:  # a wrong type, a missing formula, a typo'd key, a repeated name
            wrong = rng.randrange(4)
            if wrong == 0:
                keys["formula"] = rng.choice((3, True, ["a"]))
            elif wrong == 1:
                del keys["formula"]
            elif wrong == 2:
                keys["expected"] = "unsat"
            else:
                keys["name"] = "s0"
        tables.append("[[spec]]\n" + "\n".join(f"{k} = {_toml(v)}" for k, v in keys.items()))
    return ("\n".join(top) + "\n\n" + "\n\n".join(tables) + "\n").encode()


def mutate_file(data: bytes, rng: random.Random, limit: int) -> bytes:
    """A file mutated by lines (one dropped, duplicated many times, or swapped) or by bytes."""
    lines = data.split(b"\n")
    roll = rng.random()
    if roll < 0.2 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    elif roll < 0.35:
        i = rng.randrange(len(lines))
        lines[i:i] = [lines[i]] * ff.repeat_count(rng, len(lines[i]) + 1, limit // 10 or 2)
    elif roll < 0.45 and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        return ff.mutate(data, rng, limit // 10 or 2)
    return b"\n".join(lines)


def spec_case(rng: random.Random, index: int, t: float, limit: int) -> Case:
    """`check` on one to four spec files, some mutated."""
    files = {}
    for i in range(rng.choice((1, 1, 2, 4))):
        toml = rng.random() < 0.3
        data = toml_text(rng) if toml else spec_text(rng)
        if rng.random() < 0.4:
            data = mutate_file(data, rng, limit)
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


# -- FRET exports -----------------------------------------------------------------------------


def _fret_pool() -> list[tuple[list[dict], list[dict]]]:
    """(requirements, variables) of each export in FRET_DIR; empty when it is not there."""
    pool = []
    for path in sorted(FRET_DIR.glob("*.json")) if FRET_DIR.is_dir() else ():
        data = json.loads(path.read_text(encoding="utf-8"))
        reqs = data if isinstance(data, list) else data.get("requirements", [])
        pool.append(
            ([r for r in reqs if isinstance(r, dict)], data.get("variables", []) if isinstance(data, dict) else [])
        )
    return pool


_POOL: list | None = None


def made_up_requirement(rng: random.Random, i: int) -> dict:
    return {
        "reqid": f"R-{i:03d}",
        "project": rng.choice(("P", "Q")),
        "fulltext": "the component shall always satisfy something",
        "semantics": {"ptExpanded": ff.data_formula(rng, 2), "component_name": "comp"},
    }


def fret_export(rng: random.Random) -> dict | list:
    """An export of one to five requirements and their variables, structurally mutated."""
    global _POOL
    if _POOL is None:
        _POOL = _fret_pool()
    if _POOL and rng.random() < 0.85:
        reqs, variables = rng.choice(_POOL)
        chosen = [json.loads(json.dumps(r)) for r in rng.sample(reqs, min(len(reqs), rng.randrange(1, 6)))]
        names = {v for r in chosen for v in (r.get("semantics") or {}).get("variables", []) if isinstance(v, str)}
        kept = [json.loads(json.dumps(v)) for v in variables if isinstance(v, dict) and v.get("variable_name") in names]
    else:
        chosen = [made_up_requirement(rng, i) for i in range(rng.randrange(1, 5))]
        kept = [
            {
                "variable_name": v,
                "dataType": rng.choice(("integer", "double", "boolean")),
                "idType": "Input",
                "component_name": "comp",
            }
            for v in ff.VARS[:4]
        ]
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        _mutate_fret(rng, chosen, kept)
    if rng.random() < 0.15:
        return chosen  # "export requirements": the list alone
    return {"requirements": chosen, "variables": kept}


def _odd_value(rng: random.Random) -> object:
    return rng.choice((None, 3, -1.5, True, [], {}, ["a"], {"x": 1}, "", "x" * 10000, 10**40))


def _mutate_fret(rng: random.Random, reqs: list[dict], variables: list[dict]) -> None:
    roll = rng.randrange(9)
    tables = [r for r in reqs if isinstance(r, dict)]
    req = rng.choice(tables) if tables else None
    if roll == 0 and req:  # a field dropped
        sem = req.get("semantics")
        target = sem if isinstance(sem, dict) and rng.random() < 0.6 else req
        if target:
            target.pop(rng.choice(sorted(target)), None)
    elif roll == 1 and req:  # a requirement duplicated (its reqid too)
        reqs.append(json.loads(json.dumps(req)))
    elif roll == 2 and req:  # a field of another type
        sem = req.get("semantics")
        target = sem if isinstance(sem, dict) and rng.random() < 0.6 else req
        if target:
            target[rng.choice(sorted(target))] = _odd_value(rng)
    elif roll == 3:  # a huge variable list
        for i in range(ff.repeat_count(rng, 120, 20000)):
            variables.append(
                {
                    "variable_name": f"v{i}",
                    "dataType": rng.choice(("integer", "double", "boolean", "int8", "weird")),
                    "idType": rng.choice(("Input", "Output", "Internal", "Function")),
                    "component_name": "comp",
                    "assignment": rng.choice(("", "3", "-2.5", "pre x")),
                }
            )
    elif roll == 4 and req and isinstance(req.get("semantics"), dict):  # the editor's HTML
        pt = req["semantics"].get("ptExpanded")
        if isinstance(pt, str):
            req["semantics"]["ptExpanded"] = (
                rng.choice(("<b><i>", "<b>", "</i>", "<br/>", "<script>")) + pt + rng.choice(("</i></b>", "", "<"))
            )
    elif roll == 5 and req and isinstance(req.get("semantics"), dict):  # another formula
        req["semantics"]["ptExpanded"] = (
            ff.data_formula(rng, 3) if rng.random() < 0.7 else ff.mutated_formula(rng, 2000).decode("utf-8", "replace")
        )
    elif roll == 6 and variables:  # a variable's type or kind changed
        var = rng.choice(variables)
        var[rng.choice(("dataType", "idType", "assignment", "variable_name", "component_name"))] = rng.choice(
            ("integer", "double", "Internal", "Function", "", "1.5", _odd_value(rng))
        )
    elif roll == 7 and req:  # another project
        req["project"] = rng.choice(("Other", "", None, 7))
    elif roll == 8:
        reqs.append(_odd_value(rng))  # type: ignore[arg-type]


def fret_case(rng: random.Random, index: int, t: float, limit: int) -> Case:
    data = json.dumps(fret_export(rng), indent=1, ensure_ascii=rng.random() < 0.5).encode()
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.15:
        data = mutate_file(data, rng, limit)
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


# -- logs -------------------------------------------------------------------------------------


def _cell(rng: random.Random, var: str) -> str:
    roll = rng.random()
    if var in ("p", "q", "flag"):
        return rng.choice(("true", "false", "TRUE", "0", "1", "yes", ""))
    if var == "mode":
        return rng.choice(ff.ENUM + ("", "unknown"))
    if roll < 0.6:
        return ff.numeral(rng)
    return rng.choice(
        ("", "nan", "inf", "-inf", "1e400", "-0", "0x10", "1_000", " 3 ", "1,5", '"2"', "9" * 5000, "2.5e-3")
    )


def csv_log(rng: random.Random, names: list[str]) -> bytes:
    """A CSV log: a header of `names`, a row per instant; quoted fields, missing and extra
    cells, blank rows; LF, CRLF or bare CR line ends, or a mix; a byte-order mark."""

    def quote(cell: str) -> str:
        return '"' + cell.replace('"', '""') + '"' if rng.random() < 0.1 or "," in cell else cell

    rows = [",".join(quote(n) for n in names)]
    for _ in range(rng.randrange(0, 12)):
        cells = [_cell(rng, v) for v in names]
        roll = rng.random()
        if roll < 0.05:
            cells.pop()
        elif roll < 0.1:
            cells.append("7")
        elif roll < 0.13:
            cells = []
        elif roll < 0.16:
            cells[0] = '"a\nb"'
        rows.append(",".join(quote(c) if not c.startswith('"') else c for c in cells))
    end = rng.choice(("\n", "\n", "\r\n", "\r", "mix"))
    if end == "mix":
        text = "".join(r + rng.choice(("\n", "\r\n", "\r")) for r in rows)
    else:
        text = end.join(rows) + (end if rng.random() < 0.8 else "")
    return ("\ufeff" if rng.random() < 0.05 else "").encode() + text.encode()


def jsonl_log(rng: random.Random, names: list[str]) -> bytes:
    """A JSON Lines log: an object per instant with values of every JSON type, broken lines."""
    rows = []
    for _ in range(rng.randrange(0, 12)):
        row = {}
        for v in names:
            if rng.random() < 0.9:
                roll = rng.random()
                if roll < 0.6:
                    row[v] = (
                        rng.choice((rng.randrange(-5, 20), rng.random() * 10, True, False))
                        if v not in ("mode",)
                        else rng.choice(ff.ENUM)
                    )
                else:
                    row[v] = rng.choice((None, "3", [1], {"a": 1}, 10**400, 1e308, float("inf"), "on", ""))
        text = json.dumps(row)
        roll = rng.random()
        if roll < 0.04:
            text = text[: rng.randrange(len(text) + 1)]
        elif roll < 0.07:
            text = rng.choice(("[1, 2]", "3", "null", "", "   "))
        rows.append(text)
    end = rng.choice(("\n", "\r\n", "\r"))
    return end.join(rows).encode() + end.encode()


LOG_VARS = ("x", "y", "speed", "mode", "p", "q", "n")


def log_formula(rng: random.Random, names: list[str]) -> str:
    roll = rng.random()
    v = rng.choice(names)
    if roll < 0.5:
        return rng.choice((
            f"G({v} < 5)", f"F({v} > 2.5)", f"G({v} = 1 -> X({v} = 2))", f"G(wnext({v}) >= {v})",
            "G(p -> F q)", "G(mode = on -> wnext(mode) = off)", f"H({v} >= prev({v}))",
            f"G({v} + {v} + {v} > 0)", f"O[<=3] ({v} = 0)", f"G(absReal({v} - 1.0) <= 100)",
        ))  # fmt: skip
    return ff.data_formula(rng, 2)


def log_case(rng: random.Random, index: int, limit: int) -> Case:
    """`verify --log` of formulas (arguments, or a spec file) against a CSV or JSON Lines log."""
    names = rng.sample(LOG_VARS, rng.randrange(1, 5))
    if rng.random() < 0.05:
        names.append(names[0])  # a column named twice
    if rng.random() < 0.05:
        names.append(rng.choice(("weird name", "x y", "", "é")))
    jsonl = rng.random() < 0.35
    data = jsonl_log(rng, names) if jsonl else csv_log(rng, names)
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
                f"r{i}: {log_formula(rng, names)}" + ("  # holds: always" if rng.random() < 0.3 else "")
                for i in range(rng.randrange(1, 4))
            ).encode()
            + b"\n"
        )
        groups.append(["-F", "{req.spec}"])
    else:
        groups += [[log_formula(rng, names)] for _ in range(rng.randrange(1, 4))]
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
        files["c.spec"] = spec_text(rng)
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
        return {"fn": fn, "args": [spec_text(rng).decode().splitlines()], "kwargs": kwargs}
    if fn == "check_path":
        toml = rng.random() < 0.5
        content = (toml_text(rng) if toml else spec_text(rng)).decode()
        return {"fn": fn, "args": [], "kwargs": kwargs, "file": ["api.toml" if toml else "api.spec", content]}
    return {"fn": fn, "args": [text], "kwargs": kwargs}


def api_case(rng: random.Random, index: int, n: int, t: float, limit: int) -> Case:
    calls = [api_call(rng, t, limit) for _ in range(n)]
    return Case(index, "api", [], {}, n, t, calls=calls, note="Python API calls")
