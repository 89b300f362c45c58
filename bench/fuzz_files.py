"""Files for bench/fuzz.py's cases, from a `random.Random` alone: .spec and .toml spec files,
FRET exports (requirements taken from ../shared/data/fret/*.json, or made up where those are
missing, then structurally mutated), CSV and JSON Lines logs, and file-level mutations."""

from __future__ import annotations

import json
import random
from pathlib import Path

import fuzz_formulas as ff

FRET_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "fret"

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
