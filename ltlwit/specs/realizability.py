"""Realizability of a FRET export, as FRET's own analysis asks it: per connected component,
with every minimal conflict of an unrealizable one.

The export is read as `check` reads it (`specs.fret`: its variables' sorts, the Internal
variables assigned a numeral as constants): one reading of each name for every question. The
variables' `idType` says who controls what: Input variables belong to the environment, Output
ones to the system, and an Internal or Mode variable defined by an expression (`Spec.defines`)
is the system's too, kept equal to its definition at every instant as FRET's contracts keep
their locals (a component that reads a name nothing defines, a Function, is UNKNOWN, saying so).
Requirements whose reqid contains "assumption" are the environment's. A requirement's
`ptExpanded` holds at every instant of an infinite run (FRET checks realizability over infinite
traces); a component's specification is `G(H(assumptions) -> guarantees)`, as a Lustre contract
reads it: the guarantees hold as long as the assumptions have. Over data (integers, doubles),
a component is decided where it reads no input, or where each comparison reads one instant
and one player's variables (`games.realize`, `games.theory`).

Components are FRET's: the requirements linked by the outputs they share, numbered cc0, cc1,
... in the order of their first requirement in the export, each listing its requirements in
the export's order. An unrealizable component's minimal conflicts (minimal unrealizable sets
of its guarantees, the assumptions kept) are enumerated by the MARCO that `check` uses for
unsatisfiable cores (`logic.core.all_conflicts`), over a realizability oracle."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

from ltlwit.logic.budget import Budget
from ltlwit.logic.formula import TRUE, And, Formula, binop, unop
from ltlwit.logic.ltl.games import Realizable, Unrealizable, Verdict, realize
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.logic.theory.reading import merged
from ltlwit.logic.theory.sorts import Declarations
from ltlwit.specs.subsets import names


@dataclass(frozen=True)
class FretRequirement:
    name: str
    formula: Formula
    text: str  # the structured English
    assumption: bool
    declarations: Declarations | None = None  # its names' sorts, where it reads data
    #: the project it belongs to, in an export of several (FRET analyses each apart)
    project: str | None = None
    #: why it does not read (FILE:LINE: ...), its formula then TRUE and never decided: its
    #: component is UNKNOWN, saying so; `words`, the names its text uses, link it to one
    problem: str | None = None
    words: frozenset[str] = frozenset()

    @property
    def uses(self) -> frozenset[str]:
        """The names it reads (those its text uses where it does not read)."""
        return self.words if self.problem is not None else names(self.formula)


@dataclass(frozen=True)
class Component:
    """One connected component's verdict, with its strategy (`verdict`) and, when unrealizable
    and asked for, its minimal conflicts and minimal correction sets (names), and whether they
    are all of them."""

    name: str
    requirements: tuple[str, ...]
    outputs: tuple[str, ...]
    verdict: Verdict
    conflicts: tuple[tuple[str, ...], ...] = ()
    complete: bool = False
    #: minimal correction sets: requirements whose removal leaves the rest realizable
    corrections: tuple[tuple[str, ...], ...] = ()
    #: the formula decided (assumptions and guarantees as one), None where none was
    specification: Formula | None = None


@dataclass(frozen=True)
class Export:
    """Requirements and who controls what. `contract`: read as FRET reads an export (each
    requirement at every instant, `G(H(assumptions) -> guarantees)`), else as a spec file's
    specs are (each formula as checked, from the first instant: `assumptions -> guarantees`)."""

    requirements: tuple[FretRequirement, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    undefined: tuple[str, ...] = ()  # Internal and Mode variables
    contract: bool = True
    #: FRET's definitions of its Internal and Mode variables (`v <-> ...`, `v = ...`), each
    #: kept by the system (named by its variable) in every component that reads its variable
    definitions: tuple[FretRequirement, ...] = ()


def read_export(text: str, path: str = "<export>") -> Export:
    """A FRET export's requirements and variables' roles, read as `check` reads the file
    (`from_export`); ValueError (one line) where it is not a FRET export or a requirement's
    formula does not parse."""
    from ltlwit.pipeline.options import SolveOptions
    from ltlwit.specs.fret import fret_specs
    from ltlwit.specs.reading import parse_specs

    return from_export(parse_specs(list(fret_specs(text, path)), SolveOptions()))


def from_export(parsed: list[Any]) -> Export:
    """A FRET export's requirements as its file is read (`specs.reading.ParsedSpec`, each
    formula `G(ptExpanded)` as checked: the requirement is its ptExpanded), its Input and
    Output variables (the specs' `inputs` and `outputs`, `specs.fret`), and the names read that
    are neither (Internal and Mode variables whose definitions are not read). The requirements
    FRET has not formalized are left out, as FRET leaves them; one that does not read keeps its
    component from a verdict (`FretRequirement.problem`), not the others'. ValueError where
    the file itself does not read (not a FRET export)."""
    from ltlwit.specs.fret import NAME, UNFORMALIZED

    requirements = []
    for p in parsed:
        if p.spec.error == UNFORMALIZED:
            continue
        if p.spec.name is None:  # the file's own error (or a requirement without a reqid)
            raise ValueError(f"{p.spec.where}: {p.problem or p.parse_error or p.unknown}")
        name, text = p.spec.name, p.spec.note or ""
        assumption = "assumption" in name.lower()
        if p.formula is None:
            problem = f"{p.spec.where}: {p.problem or p.parse_error or p.unknown}"
            words = frozenset(NAME.findall(p.spec.formula or ""))
            requirements.append(FretRequirement(name, TRUE, text, assumption, None, p.spec.group, problem, words))
            continue
        body = p.formula.children[0] if p.spec.holds == "always" else p.formula
        requirements.append(FretRequirement(name, body, text, assumption, p.spec.declarations, p.spec.group))
    first = parsed[0].spec if parsed else None
    inputs = first.inputs if first else ()
    outputs = (first.outputs or ()) if first else ()
    definitions = _defined(first) if first else ()
    read = {n for r in (*requirements, *definitions) if r.problem is None for n in r.uses}
    undefined = tuple(sorted(read - set(inputs) - set(outputs) - {d.name for d in definitions}))
    return Export(tuple(requirements), inputs, outputs, undefined, definitions=definitions)


def _defined(spec: Any) -> tuple[FretRequirement, ...]:
    """A FRET export's definitions of its Internal and Mode variables (`Spec.defines`), each as
    the formula its variable must keep at every instant, its constants put in; one that does
    not parse is left out (its variable then defined by nothing)."""
    from ltlwit.pipeline.parsing import parse
    from ltlwit.pipeline.verify import as_checked

    out = []
    for name, text, boolean, declarations in spec.defines:
        try:
            body = parse(f"{name} <-> ({text})" if boolean else f"{name} = ({text})", "nuxmv")
        except ValueError:
            continue
        out.append(
            FretRequirement(name, as_checked(body, None, spec.substitute), f"{name} := {text}", False, declarations)
        )
    return tuple(out)


def components(export: Export) -> list[tuple[str, list[FretRequirement], list[str]]]:
    """FRET's connected components (module docstring): (name, requirements, outputs); in an
    export of several projects, each project's apart, named `PROJECT/cc0`..."""
    projects = list(dict.fromkeys(r.project for r in export.requirements if not r.assumption))
    if projects == [None] or not projects:
        return _components(export, [r for r in export.requirements if not r.assumption], "")
    return [
        c
        for project in projects
        for c in _components(
            export, [r for r in export.requirements if not r.assumption and r.project == project], f"{project}/"
        )
    ]


def _components(
    export: Export, guarantees: list[FretRequirement], prefix: str
) -> list[tuple[str, list[FretRequirement], list[str]]]:
    """The components of one project's `guarantees` (`components`), named from `prefix`: linked
    by the outputs they read, directly or through an Internal variable's definition."""
    outputs = set(export.outputs)
    through = {d.name: d.uses for d in export.definitions}

    def reads(r: FretRequirement) -> frozenset[str]:
        return r.uses.union(*(through[n] for n in r.uses if n in through))

    parent = list(range(len(guarantees)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, r in enumerate(guarantees):
        for name in sorted(reads(r)):
            if name in outputs:
                if name in owner:
                    parent[root(i)] = root(owner[name])
                else:
                    owner[name] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(guarantees)):
        groups.setdefault(root(i), []).append(i)
    out = []
    for k, members in enumerate(sorted(groups.values(), key=min)):
        reqs = [guarantees[i] for i in members]
        used = [n for n in export.outputs if any(n in reads(r) for r in reqs)]
        out.append((f"{prefix}cc{k}", reqs, used))
    return out


def specification(guarantees: list[Formula], assumptions: list[Formula], contract: bool = True) -> Formula:
    """A contract's `G(H(assumptions) -> guarantees)` (`G(guarantees)` without assumptions),
    or else `assumptions -> guarantees`."""
    body = And(*guarantees)
    if not contract:
        return binop("->", And(*assumptions), body) if assumptions else body
    if assumptions:
        body = binop("->", unop("H", And(*assumptions)), body)
    return unop("G", body)


@dataclass(frozen=True)
class Report:
    requirements: tuple[FretRequirement, ...]
    components: tuple[Component, ...]

    @property
    def names(self) -> frozenset[str]:
        """Every name the requirements use."""
        return frozenset(n for r in self.requirements for n in names(r.formula))


def realize_export(
    text: str, timeout: float | None = 60.0, diagnose: bool = False, memory: int | None = None, path: str = "<export>"
) -> Report:
    """A FRET export's components' verdicts (`realize_all`); `path` names it in errors."""
    return realize_all(read_export(text, path), timeout, diagnose, memory)


def from_specs(parsed: list[Any], inputs: tuple[str, ...], outputs: tuple[str, ...] | None = None) -> Export:
    """A spec file's requirements (its specs expected satisfiable, `specs.reading.ParsedSpec`,
    each formula as checked) with the inputs named (`inputs`, else the file's `input` lines):
    every other proposition an output unless `outputs` (or the file's `output` lines) names
    them. ValueError where a spec is not read (its message)."""
    from ltlwit.logic.ltl.games import players

    requirements = []
    for p in parsed:
        if p.formula is None:
            raise ValueError(f"{p.spec.file}:{p.spec.line}: {p.problem or p.parse_error or p.unknown}")
        if p.spec.expect == "sat":
            name = p.spec.name or f"line {p.spec.line}"
            text = p.spec.note or p.spec.formula
            requirements.append(FretRequirement(name, p.formula, text, False, p.spec.declarations))
    if not inputs and parsed:
        inputs, outputs = parsed[0].spec.inputs, parsed[0].spec.outputs if outputs is None else outputs
    try:
        ins, outs = players(And(*(r.formula for r in requirements)), inputs, outputs)
    except ValueError as e:
        raise ValueError(f"{parsed[0].spec.file}: {e}") from None
    return Export(tuple(requirements), ins, outs, contract=False)


def realize_all(
    export: Export, timeout: float | None = 60.0, diagnose: bool = False, memory: int | None = None
) -> Report:
    """Each component's verdict (module docstring); with `diagnose`, an unrealizable one's
    minimal conflicts, within `timeout` seconds per component for the verdict and as much
    again for the diagnosis."""
    out = []
    for name, reqs, outs in components(export):
        mentioned = {n for r in reqs for n in r.uses}
        defined = [d for d in export.definitions if d.name in mentioned]
        mentioned |= {n for d in defined for n in d.uses}
        environment = [
            a for a in export.requirements if a.assumption and a.project == reqs[0].project and mentioned & a.uses
        ]
        unread = [r for r in (*reqs, *environment) if r.problem is not None]
        undefined = sorted(mentioned & set(export.undefined))
        if unread or undefined:
            why = (
                "; ".join(f"{r.name} does not read ({r.problem})" for r in unread)
                if unread
                else f"{', '.join(undefined)}: neither Input nor Output, and not defined (a Function, or an Internal "
                "or Mode variable whose definition reads itself or does not read): not decided yet"
            )
            out.append(Component(name, tuple(r.name for r in reqs), tuple(outs), Unknown(why)))
            continue
        inputs = list(export.inputs)
        assumptions = [a.formula for a in environment]
        declarations = functools.reduce(merged, (r.declarations for r in (*reqs, *environment, *defined)), None)

        def decide(guarantees: list[Formula], seconds: float | None, small: bool = True) -> Verdict:
            spec = specification([*guarantees, *(d.formula for d in defined)], assumptions, export.contract)
            budget = Budget(seconds=seconds, memory=memory)
            read = names(spec)
            return realize(
                spec, [n for n in inputs if n in read], budget=budget, small=small, declarations=declarations
            )

        formula = specification(
            [*(r.formula for r in reqs), *(d.formula for d in defined)], assumptions, export.contract
        )
        verdict = decide([r.formula for r in reqs], timeout)
        conflicts: tuple[tuple[str, ...], ...] = ()
        corrections: tuple[tuple[str, ...], ...] = ()
        complete = False
        if diagnose and isinstance(verdict, Unrealizable):
            conflicts, corrections, complete = _conflicts(reqs, decide, timeout)
        out.append(
            Component(
                name, tuple(r.name for r in reqs), tuple(outs), verdict, conflicts, complete, corrections, formula
            )
        )
    return Report(export.requirements, tuple(out))


def _conflicts(
    reqs: list[FretRequirement], decide: Any, timeout: float | None
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...], bool]:
    from ltlwit.logic.core import all_conflicts

    deadline = None if timeout is None else time.perf_counter() + timeout
    position = {r.formula: i for i, r in enumerate(reqs)}

    def oracle(conjunction: Formula) -> Result:
        parts = []  # the requirements `all_conflicts` conjoined (And's left-nested chain)
        stack = [conjunction] if conjunction.op != "1" else []
        while stack:
            node = stack.pop()
            if node in position:
                parts.append(node)
            else:
                stack.extend(node.children)
        left = None if deadline is None else max(0.01, deadline - time.perf_counter())
        verdict = decide(parts, left, False)  # the verdict alone: no strategy is shown
        if isinstance(verdict, Realizable):
            return Sat(verdict.play)
        if isinstance(verdict, Unrealizable):
            return Unsat("counter-strategy")
        return verdict

    found = all_conflicts(
        [r.formula for r in reqs], oracle, lambda: deadline is not None and time.perf_counter() > deadline
    )
    named = lambda sets: tuple(tuple(reqs[i].name for i in members) for members in sets)  # noqa: E731
    return named(found.cores), named(found.corrections), found.complete


def shown(trace: Any, names: frozenset[str]) -> Any:
    """A play over `names` only: without the past operators' monitors, which people did not
    write (the JSON keeps them, as the verified strategy reads them)."""
    from ltlwit.logic.formula import conjuncts
    from ltlwit.logic.trace import Trace

    def step(s: Formula) -> Formula:
        return And(*(c for c in conjuncts(s) if set(c.aps()) <= names))

    return Trace(tuple(map(step, trace.prefix)), tuple(map(step, trace.cycle)))
