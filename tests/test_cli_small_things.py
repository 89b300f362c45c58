"""Small things a new user meets in the first hour: `models show|path` take the families
`--model` takes, `models list` says where a model was trained, `check` counts in English, the
API's messages name no CLI flags, and the Spot printer quotes only the names that need it."""

from __future__ import annotations

import itertools
import json

import pytest
from cli_support import run

import ltlwit
from ltlwit.logic.formula import And, Not, ap, binop, unop
from ltlwit.logic.syntax import parse_formula, print_formula
from ltlwit.logic.syntax.infix import parse_spot
from ltlwit.logic.syntax.names import STATUS_WORDS, spot_ap
from ltlwit.pipeline.answers import plural
from ltlwit.pipeline.models import family_models, select
from ltlwit.pipeline.options import SolveOptions

# -- models --------------------------------------------------------------------------------------


@pytest.fixture
def bundled(tmp_path, monkeypatch):
    """Bundled manifests for si-ltl, si-prop and dual-ltl (no dual-prop), and no user models:
    whether real weights ship must not matter here."""
    from ltlwit.neural import registry

    folder = tmp_path / "weights"
    folder.mkdir()
    for name in ("si-ltl", "si-prop", "dual-ltl"):
        arch, task = name.split("-")
        manifest = {
            "format": "ltlwit-weights/1",
            "name": name,
            "arch": arch,
            "task": task,
            "training": {"steps": 10, "device": "NVIDIA H100 80GB HBM3"},
        }
        (folder / f"{name}.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(registry, "_bundled_folder", lambda: folder)
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path / "home"))
    return folder


def json_documents(text: str) -> list[dict]:
    """The JSON documents `models show` wrote one after the other (as `jq` reads them)."""
    decoder, documents, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        document, at = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        documents.append(document)
    return documents


def test_models_show_and_path_take_a_family_as_model_does(bundled) -> None:
    shown = run("models", "show", "si")
    assert shown.exit_code == 0, shown.stderr
    assert [d["name"] for d in json_documents(shown.stdout)] == ["si-ltl", "si-prop"]
    paths = run("models", "path", "si").stdout.splitlines()
    assert paths == [str(bundled / "si-ltl.pt"), str(bundled / "si-prop.pt")]
    one = run("models", "show", "si-prop")  # a model's own name still works
    assert [d["name"] for d in json_documents(one.stdout)] == ["si-prop"]


def test_a_family_with_a_missing_model_shows_the_others_and_says_so(bundled) -> None:
    both = run("models", "show", "both")
    assert both.exit_code == 2
    assert [d["name"] for d in json_documents(both.stdout)] == ["si-ltl", "si-prop", "dual-ltl"]
    assert both.stderr.startswith("ltlwit: no model named 'dual-prop'")
    unknown = run("models", "show", "nope")
    assert (unknown.exit_code, unknown.stdout) == (2, "") and "no model named 'nope'" in unknown.stderr


def test_family_names_mean_what_model_means(bundled) -> None:
    chosen = select(SolveOptions(model="si"))  # what `--model si` runs
    assert tuple(itertools.chain(*chosen.names.values())) == family_models("si") == ("si-ltl", "si-prop")
    assert family_models("both") == ("si-ltl", "si-prop", "dual-ltl", "dual-prop")
    assert [family_models(name) for name in ("auto", "none", "si-ltl", "mine")] == [None] * 4


def test_models_list_says_where_a_model_was_trained(bundled) -> None:
    header = next(line for line in run("models", "list").stdout.splitlines() if "name" in line)
    assert "trained on" in header and "device" not in header
    assert "NVIDIA H100 80GB HBM3" in run("models", "list").stdout


# -- check's counts ------------------------------------------------------------------------------


def test_plural() -> None:
    assert [plural(n, "spec") for n in (0, 1, 2)] == ["0 specs", "1 spec", "2 specs"]


def test_check_summary_counts_in_english(tmp_path) -> None:
    one = tmp_path / "one.spec"
    one.write_text("G(req -> F grant)\n")
    assert run("check", str(one)).stdout.splitlines()[-1] == "1 spec: 1 passed, 0 failed, 0 unknown, 0 errors"
    bad = tmp_path / "bad.spec"
    bad.write_text("a &\n")
    result = run("check", str(bad), str(one))
    assert result.stdout.splitlines()[-1] == "2 specs: 1 passed, 0 failed, 0 unknown, 1 error"
    conflict = tmp_path / "conflict.spec"
    conflict.write_text("G a\nF !a\n")
    summary = run("check", "--consistency", str(conflict)).stdout.splitlines()[-1]
    assert summary.endswith("; 1 file whose specs contradict each other")


# -- the API's messages --------------------------------------------------------------------------


def test_the_api_names_no_cli_flag_for_a_temporal_formula_under_prop() -> None:
    with pytest.raises(ValueError) as info:
        ltlwit.solve("F a", logic="prop")
    assert "--" not in str(info.value) and "temporal operators" in str(info.value)
    with pytest.raises(ValueError) as info:
        ltlwit.verify("F a", "a1", logic="prop")
    assert "--" not in str(info.value)
    cli = run("solve", "--logic", "prop", "F a")
    assert cli.exit_code == 2 and "logic prop is for propositional formulas" in cli.stderr


# -- names in Spot's syntax ----------------------------------------------------------------------

#: Names with operator letters, digits and keywords in every place, and names only quotes can hold.
NAMES = [
    *("".join(letters) for n in (1, 2, 3) for letters in itertools.product("aFGXURWeq0_", repeat=n)),
    "Req",
    "Uab",
    "F0",
    "G1",
    "X1y",
    "xorab",
    "xor",
    "wX",
    "wXa",
    "wXFa",
    "true",
    "False",
    "TRUE",
    "Once",
    "H1",
    "Sa",
    "S",
    "T",
    "Y",
    "Z",
    "O",
    "H",
    "M",
    "V",
    "first_match",
    "p0",
    "req.ack",
    "cycle",
    "UNSAT",
    "UNKNOWN",
    "ERROR",
    "UNSATx",
    "x < 3",
    'say "hi"',
    "back\\slash",
    "a;b",
    "{c}",
    "é",
]


def reads_bare(name: str) -> bool:
    """Whether Spot's syntax reads the bare name back as this very AP."""
    try:
        return parse_spot(name) is ap(name)
    except ValueError:
        return False


def test_a_name_is_quoted_exactly_when_it_would_not_read_back_bare() -> None:
    for name in NAMES:
        bare = spot_ap(name) == name
        assert bare == (reads_bare(name) and name not in STATUS_WORDS), name
    assert [spot_ap(n) for n in ("Req", "Uab", "F0", "UNSAT")] == ["Req", "Uab", "F0", '"UNSAT"']


def test_printed_names_parse_back_to_the_same_formula() -> None:
    for name in NAMES:
        p = ap(name)
        for formula in (p, unop("G", p), Not(unop("X", p)), And(p, ap("b")), unop("F", binop("U", p, ap("c")))):
            printed = print_formula(formula, "spot")
            assert parse_formula(printed, "spot") is formula, (name, printed)
            assert parse_formula(printed) is formula, (name, printed)  # auto-detection too


def test_the_terminal_table_elides_long_formulas_and_witnesses() -> None:
    """A formula of 20,000 characters takes a few lines of the table, not thousands; JSON keeps it whole."""
    from cli_support import json_lines, run, run_env

    formula = "G(" + " & ".join(f"F p{i}" for i in range(2000)) + ")"
    status, out, _ = run_env("solve", "--model", "none", "--format", "table", formula, stdout_isatty=True)
    assert status == 0 and len(out.splitlines()) < 20 and "more characters)" in " ".join(out.split())
    (record,) = json_lines(run("solve", "--model", "none", "--format", "json", formula).stdout)
    assert record["input"] == formula and "more characters" not in record["witness"]


# -- solve -F names a spec file's specs ----------------------------------------------------------


def test_solve_names_a_spec_file_s_specs_in_text_as_check_does(tmp_path) -> None:
    """Each answer after its spec's name where the file gives one (JSON had it, text did not);
    a plain formula file's lines as they were."""
    spec = tmp_path / "r.spec"
    spec.write_text("r1: G(req -> F grant)\nF q\nbad: p & !p\nwhy: G(x > 0) & F(x < 0)\n")
    result = run("solve", "--domain", "Int", "-F", str(spec))
    assert result.stdout.splitlines() == ["r1: cycle{!req}", "cycle{q}", "bad: UNSAT", "why: UNSAT"]
    plain = tmp_path / "r.txt"
    plain.write_text("F q\np & !p\n")
    assert run("solve", "-F", str(plain)).stdout == "cycle{q}\nUNSAT\n"
