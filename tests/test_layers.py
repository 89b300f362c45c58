"""The architecture DEVELOPERS.md draws, checked against the code's import graph.

Every `import` in ltlwit/ counts, at module level or inside a function (a lazy import is still
a dependency): logic <- neural <- pipeline <- specs <- api <- cli, with train and eval beside
them (train on neural, eval on train); the pipeline never imports eval or train. And importing
the logic or pipeline layers (or the public API) loads no torch.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import ROOT, subprocess_env

PACKAGE = ROOT / "ltlwit"

#: What each layer may import (besides the `ltlwit` package itself, for `__version__`).
ALLOWED = {
    "logic": {"logic"},
    "neural": {"logic", "neural"},
    "pipeline": {"logic", "neural", "pipeline"},
    "specs": {"logic", "neural", "pipeline", "specs"},
    "train": {"logic", "neural", "train"},
    "eval": {"logic", "neural", "train", "eval"},
    "api": {"logic", "neural", "pipeline", "specs", "api"},
    "cli": {"logic", "neural", "pipeline", "specs", "train", "eval", "api", "cli"},
}
#: The only modules outside the layers' packages: the package, `python -m ltlwit`, the API.
TOP_LEVEL = {"__init__.py", "__main__.py", "api.py"}


def layer_of(module: str) -> str:
    """`ltlwit.pipeline.run` -> `pipeline`; `ltlwit.api` -> `api`; `ltlwit` -> `` (the root)."""
    parts = module.split(".")
    if parts == ["ltlwit"]:
        return ""
    if parts[1] == "__main__":
        return "cli"
    return parts[1]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, module: str | None = None) -> set[str]:
    """The ltlwit modules `path` (the module `module`, by default its name in the checkout)
    imports, anywhere in it."""
    found: set[str] = set()
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1 packages
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(
                f"{base}.{alias.name}"
                for alias in node.names
                if (PACKAGE.parent / (f"{base}.{alias.name}".replace(".", "/") + ".py")).exists()
            )
    return {name for name in found if name == "ltlwit" or name.startswith("ltlwit.")}


def graph() -> dict[str, set[str]]:
    return {module_name(path): imports(path) for path in sorted(PACKAGE.rglob("*.py"))}


def test_every_module_sits_in_a_layer() -> None:
    loose = {p.name for p in PACKAGE.glob("*.py")} - TOP_LEVEL
    assert not loose, f"modules beside the layers' packages: {sorted(loose)}"
    layers = {layer_of(m) for m in graph()} - {""}
    assert layers == set(ALLOWED), layers


def test_dependencies_point_one_way() -> None:
    wrong = []
    for module, targets in graph().items():
        layer = layer_of(module)
        if layer == "":
            continue  # ltlwit/__init__.py names its API lazily, by strings
        for target in targets:
            if layer_of(target) not in ALLOWED[layer] | {""}:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_the_pipeline_never_imports_eval_or_train() -> None:
    """Said on its own because it was the case (pipeline -> eval.predictor) until it was not."""
    for module, targets in graph().items():
        if layer_of(module) == "pipeline":
            assert not {layer_of(t) for t in targets} & {"eval", "train", "specs", "api", "cli"}, module


#: Inside logic/: the engine (`ltl`) above the formulas, syntaxes, theories, traces and SAT it
#: is built on, and below what is built on it (cores from its proofs, the other validators,
#: fingerprints and relations from its checker and verdicts); every other module of logic/ is
#: of the ground floor, which imports neither.
LOGIC_ABOVE_THE_ENGINE = {"core", "validators", "fingerprint", "relations"}


def logic_floor(module: str) -> int | None:
    """0 for logic's ground floor, 1 for the engine, 2 above it; None outside logic/."""
    parts = module.split(".")
    if parts[:2] != ["ltlwit", "logic"] or len(parts) < 3:
        return None
    return 1 if parts[2] == "ltl" else 2 if parts[2] in LOGIC_ABOVE_THE_ENGINE else 0


def test_inside_logic_the_engine_sits_between_its_ground_and_what_is_built_on_it() -> None:
    """Syntax and theory below `ltl/`, `ltl/` below cores and validators: the largest layer's
    own import graph, checked as the layers' is."""
    wrong = []
    for module, targets in graph().items():
        floor = logic_floor(module)
        for target in targets:
            above = logic_floor(target)
            if floor is not None and above is not None and above > floor:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)
    assert logic_floor("ltlwit.logic.syntax.data") == 0 and logic_floor("ltlwit.logic.validators.aiger") == 2


#: The modules that decide satisfiability: the trace checker judges their witnesses.
SOLVERS = ("ltlwit.logic.ltl.solver", "ltlwit.logic.ltl.searches", "ltlwit.logic.ltl.spot", "ltlwit.logic.prop")


def test_the_trace_checker_asks_no_solver() -> None:
    """`check` decides a trace on its own (linear passes, then its product with the automaton
    of ¬φ, past operators eliminated by monitors): a checker that asked the solvers would
    vouch for their witnesses by their own word. Its search for an accepting cycle is the
    product's emptiness check (`searches.emptiness`), no solver's."""
    asked = {
        target
        for target in imports(PACKAGE / "logic" / "ltl" / "check.py")
        if target.startswith(SOLVERS) and target != "ltlwit.logic.ltl.searches.emptiness"
    }
    assert not asked, asked


def test_the_checker_sees_lazy_and_relative_imports(tmp_path) -> None:
    source = tmp_path / "probe.py"
    source.write_text(
        "def f():\n    from ltlwit.eval import metrics\n    import ltlwit.train.loop\n"
        "from ..logic.formula import Formula\nfrom . import checking\n"
    )
    assert imports(source, "ltlwit.pipeline.probe") == {
        "ltlwit.eval",
        "ltlwit.eval.metrics",
        "ltlwit.train.loop",
        "ltlwit.logic.formula",
        "ltlwit.pipeline",
        "ltlwit.pipeline.checking",
    }


@pytest.mark.parametrize("packages", [["logic", "pipeline"], ["specs"]])
def test_importing_the_lower_layers_loads_no_torch(packages: list[str]) -> None:
    """Every module of these layers, the public API and `import ltlwit` itself."""
    names = sorted(m for m in graph() if layer_of(m) in packages) + ["ltlwit", "ltlwit.api"]
    code = (
        f"import importlib, sys\nfor name in {names!r}:\n    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch'))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env(), cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"


def test_no_two_classes_share_a_name() -> None:
    """A name says what a thing is, so one name means one thing (there were two `Candidate`s
    and two `Outcome`s)."""
    seen: dict[str, str] = {}
    clashes = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where = module_name(path)
                if node.name in seen:
                    clashes.append(f"{node.name}: {seen[node.name]} and {where}")
                seen.setdefault(node.name, where)
    assert not clashes, clashes
