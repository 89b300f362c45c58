"""Every choice list of the CLI's options, in one module.

A list a library layer owns comes from where that layer defines it, in modules that are cheap
to import (`ltlwit solve --help` loads no parser, solver or torch). Five lists belong to
modules that are expensive to load for a `--help` (the LTL engine, torch's model configs, the
formula generator); they are written out here, and tests/test_cli_version_help.py fails when
one drifts from its owner.
"""

from __future__ import annotations

from ltlwit.logic import DOMAINS, FMT_SYNTAXES, LOGICS, OUTPUT_SYNTAXES, SEMANTICS, SYNTAXES
from ltlwit.pipeline.options import DEVICES, MODELS

__all__ = [
    "ALPHABETS",
    "ARCHS",
    "DEVICES",
    "DOMAINS",
    "ENGINES",
    "EQUIV_LOGICS",
    "EQUIV_SOURCES",
    "FMT_SYNTAXES",
    "FORMATS",
    "LOGICS",
    "MODELS",
    "OUTPUT_SYNTAXES",
    "PRESETS",
    "REALIZE_FORMATS",
    "SEMANTICS",
    "SHELLS",
    "SOLVE_FORMATS",
    "SYNTAXES",
    "TASKS",
    "VECTOR_FORMATS",
]

#: `ltlwit.logic.ltl.ENGINES`.
ENGINES = ("auto", "builtin", "spot")
#: `ltlwit.neural.config.ARCHS`, the architectures `preset` builds: symbol-invariant, dual-part,
#: the baselines (full vocabulary, the same with alpha-renaming, lexinvariant), and the fifth
#: paper's embedding models (ExpEmb-E, ExpEmb-A) and ExpEmb-E with interchangeable AP tokens.
ARCHS = ("si", "dual", "full", "renaming", "lexinv", "expemb-e", "expemb-a", "expemb-i")
#: `ltlwit.neural.config.PRESETS`.
PRESETS = ("paper", "small", "tiny")
#: The operator priorities of `ltlwit.train.generate.PRIORITIES`.
ALPHABETS = ("ltl35", "ltl", "prop", "ltl35-matched", "prop-matched")
#: `ltlwit.neural.config.TASKS`: what a model or a data set is for, lasso traces of LTL
#: formulas or assignments of propositional ones.
TASKS = ("ltl", "prop")

#: Every command's `--format` (text for people, json for machines) ...
FORMATS = ("text", "json")
#: `data equiv --logic`: `ltlwit.train.equiv.RULES`.
EQUIV_LOGICS = ("prop", "ltl", "ltlf")
#: `data equiv --source`: `ltlwit.train.equiv.SOURCES`.
EQUIV_SOURCES = ("identities", "random")
#: `embed --format`.
VECTOR_FORMATS = ("json", "csv")
#: ... but `solve`'s, which adds a streamed table (auto: on a terminal, else text) and CSV.
SOLVE_FORMATS = ("auto", "table", "text", "json", "csv", "vcd")
#: `realize --format`: the strategy as a Graphviz digraph, the controller as SYNTCOMP's AIGER,
#: the plays as a VCD document.
REALIZE_FORMATS = ("text", "json", "dot", "aiger", "vcd")
SHELLS = ("bash", "zsh", "fish")
