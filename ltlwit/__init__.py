"""ltlwit: satisfying traces (witnesses) for LTL and propositional formulas.

    import ltlwit
    answer = ltlwit.solve("G(req -> F grant) & F req")   # answer.status, .witness, .to_str()
    ltlwit.verify("G(req -> F grant)", "req; cycle{!grant}")   # False
    ltlwit.check("examples/arbiter.spec").passed   # True

`parse`, `solve`, `verify`, `check`, `Solver` and the types they return are documented in
`ltlwit.api` and docs/api.md. They load on first use: `import ltlwit` (and so `ltlwit --help`)
imports none of the solvers, and never torch.
"""

from __future__ import annotations

# Nothing imported here: the command's Ctrl-C handler for start-up (ltlwit.cli) comes next.

__version__ = "0.1.0"

#: The public names, and the module each comes from.
_PUBLIC = {
    "parse": "ltlwit.api",
    "solve": "ltlwit.api",
    "verify": "ltlwit.api",
    "check": "ltlwit.api",
    "similar": "ltlwit.api",
    "embed": "ltlwit.api",
    "equivalents": "ltlwit.api",
    "index": "ltlwit.api",
    "realize": "ltlwit.api",
    "realize_export": "ltlwit.api",
    "Solver": "ltlwit.api",
    "CheckReport": "ltlwit.api",
    "Solution": "ltlwit.pipeline.answers",
    "Formula": "ltlwit.logic.formula",
    "Trace": "ltlwit.logic.trace",
    "Assignment": "ltlwit.logic.assignment",
    "ParseError": "ltlwit.logic.syntax.errors",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> object:
    import importlib

    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'ltlwit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
