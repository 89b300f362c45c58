"""A spec file read once, as every question about it reads it: `check` and `solve -F` alike.

Reading a file is more than reading its lines (`specs.files`): each spec is parsed (under
`--timeout` and `--max-memory` of its own), and then what the file's specs share is fixed for
all of them at once:

- the sorts of their data (`theory.reading`): each variable's sort and each function's
  signature, declared or inferred from the whole file, so that a spec alone, the file's
  conjunction, its scenarios, cores, vacuity and redundancy questions read every name the same
  way (a spec whose names cannot be read with the others' is an error, naming them);
- a `one-event` file's activities: the propositions of all its specs, exactly one of which
  holds at every instant, asked with every spec (alone, `absence(refund)` would be read over
  the activity `refund` only).

Where names are read together: the whole file, or in a FRET export each component of each
project (FRET declares variables per component and analyses components apart: `yout` may be
a variable in one and a function in another).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import BinaryIO, Iterator

from ltlwit.logic.budget import HardLimit, deadline_scope
from ltlwit.logic.formula import ATOM, And, Formula, postorder
from ltlwit.logic.polarity import Parts
from ltlwit.logic.triggers import antecedents, firing
from ltlwit.pipeline.inputs import STDIN_NAME
from ltlwit.pipeline.options import SolveOptions
from ltlwit.pipeline.parsing import name_warnings, parse
from ltlwit.pipeline.verify import as_checked
from ltlwit.specs.files import Spec, read_specs


@dataclass(frozen=True)
class ParsedSpec:
    """A spec as its file reads it: its formula (as checked: where it holds, its constants put
    in), its declarations the file's one reading (`spec.declarations`), or why it has none:
    `problem` (an error message), `parse_error` (with its caret), `unknown` (its parse ran out
    of time or memory)."""

    spec: Spec
    formula: Formula | None = None
    problem: str | None = None
    parse_error: ValueError | None = None
    unknown: str | None = None
    #: How its text was read, where that may not be what was meant.
    warnings: tuple[str, ...] = ()
    #: The parts its author wrote, where a template made its formula (a FRET requirement's
    #: condition, response...): what vacuity replaces (`specs.vacuity`).
    parts: Parts | None = None
    #: What a trace satisfies when the spec's trigger fires (`logic.triggers`; a FRET
    #: requirement's: its mode and condition, and its response's antecedents), else None.
    trigger: Formula | None = None


def read_file(
    path: str, options: SolveOptions, stdin: BinaryIO | None = None, stdin_name: str = STDIN_NAME
) -> list[ParsedSpec]:
    """The specs of the file at `path` (`-`: `stdin`, named `stdin_name`), each parsed and
    read with the others (module docstring)."""
    try:  # the file read (a FRET export's JSON, its variables) has --timeout and --max-memory of its own
        with deadline_scope(options.deadline(time.perf_counter()), options.ceiling, "reading the spec file"):
            specs = list(read_specs(path, stdin, stdin_name))
    except HardLimit as exc:
        return [ParsedSpec(Spec(stdin_name if path == "-" else path, 0), unknown=str(exc))]
    return parse_specs(specs, options)


def parse_specs(specs: list[Spec], options: SolveOptions) -> list[ParsedSpec]:
    """Specs read from a file (or a FRET export's text: `fret.fret_specs`), each parsed and
    read with the others (module docstring)."""
    parsed = [_parse(spec, options) for spec in specs]
    scopes: dict[tuple[str | None, str | None], list[int]] = {}
    for i, p in enumerate(parsed):
        if p.formula is not None:
            scopes.setdefault((p.spec.group, p.spec.component), []).append(i)
    for members in scopes.values():
        _read_scope(parsed, members, options)
    return parsed


def activities(parsed: list[ParsedSpec], one_event: bool = False) -> Formula | None:
    """For a `one-event` file (or any file, with `one_event`: `--one-event`): its activities
    (every proposition of its specs) one at a time at every instant
    (`logic.declare.one_event`), which every question is asked with; else None."""
    if not one_event and not any(p.spec.one_event for p in parsed):
        return None
    from ltlwit.logic.declare import one_event as one_at_a_time

    return one_at_a_time(sorted({n for p in parsed if p.formula is not None for n in p.formula.aps()}), True)


def _parse(spec: Spec, options: SolveOptions) -> ParsedSpec:
    if spec.error is None and spec.holds == "finally" and (spec.semantics or options.semantics) != "finite":
        spec = replace(
            spec,
            error="a spec that holds finally (at the last instant) needs finite semantics "
            '(--semantics finite, or semantics = "finite" in TOML)',
        )
    if spec.error is not None:
        return ParsedSpec(spec, problem=spec.error)
    syntax = spec.syntax or options.syntax
    try:  # its own --timeout and --max-memory: its questions come later, each on its own clock
        with deadline_scope(options.deadline(time.perf_counter()), options.ceiling):
            written = parse(spec.formula, syntax)
            formula = as_checked(written, spec.holds, spec.substitute)
            warnings = spec.warnings + name_warnings(spec.formula, formula, syntax)
            parts = _parts(spec, syntax)
            trigger = _fret_trigger(spec, syntax) if spec.template is not None else firing(formula)
    except ValueError as exc:
        return ParsedSpec(spec, parse_error=exc)
    except HardLimit as exc:  # a multi-megabyte spec whose reading took all of --timeout or --max-memory
        return ParsedSpec(spec, unknown=str(exc))
    return ParsedSpec(spec, formula, warnings=warnings, parts=parts, trigger=trigger)


def _parts(spec: Spec, syntax: str) -> Parts | None:
    """The parts a template made `spec`'s formula of (`Spec.template`), each part's atoms as
    its author wrote them (`_atoms_written`), put in as the spec is checked (where it holds,
    its constants); None where it has no template that reads. The template filled need not be
    the formula as written (FRET simplifies what it fills in): vacuity uses the parts only
    where the two are proven equivalent (`specs.vacuity`)."""
    if spec.template is None or spec.template.text is None:
        return None
    from ltlwit.specs.fret import SLOTS

    mine = [(name, text, label) for name, text, label in spec.template.slots if name in SLOTS]
    pieces: dict[str, str] = {}
    slots: list[str] = []
    atoms: list[str] = []
    labels: list[str] = []
    around: list[int] = []  # the part each atom is written in
    for k, (name, text, label) in enumerate(mine):
        piece, written = _atoms_written(text, f"__part_{k}_")
        pieces[name] = f"({piece})"
        slots += [slot for slot, _ in written]
        atoms += [atom for _, atom in written]
        labels += [label or "mode"] * len(written)
        around += [k] * len(written)
    filled = spec.template.text
    for name, text, _ in spec.template.slots:
        filled = filled.replace(f"${name}$", pieces.get(name, text))
    try:
        template = parse(filled, syntax)
        parts = tuple(parse(text, syntax) for text in atoms)
        wholes = [parse(pieces[name], syntax) for name, _, _ in mine]  # each part as written
    except ValueError:
        return None
    return Parts(
        as_checked(template, spec.holds),
        tuple(slots),
        tuple(as_checked(part, None, spec.substitute) for part in parts),
        tuple(labels),
        tuple(wholes[k] for k in around),
    )


def written_parts(spec: Spec, syntax: str, formula: Formula) -> Parts | None:
    """A spec's atoms as written, where its formula repeats some (`H[0,100] p` is 101 copies of
    `p`, one written): vacuity's occurrences are the author's, each replaced in every copy.
    None where the formula repeats none (its occurrences are those written) or the text does
    not read back so. Asked for vacuity only (it reads the spec's text again)."""
    piece, written = _atoms_written(spec.formula, "__atom_")
    if not written or len(written) >= _atom_positions(formula):
        return None
    try:
        template = parse(piece, syntax)
        parts = tuple(parse(text, syntax) for _, text in written)
    except ValueError:
        return None
    made = Parts(
        as_checked(template, spec.holds),
        tuple(slot for slot, _ in written),
        tuple(as_checked(part, None, spec.substitute) for part in parts),
    )
    return made if made.formula() is formula else None


def _atom_positions(formula: Formula) -> int:
    """How many atoms the formula's tree has, each shared subformula counted once per place
    but visited once (`O[<=3]` nested 12 times is 4^12 leaves over 37 nodes)."""
    count: dict[Formula, int] = {}
    for node in postorder(formula):
        count[node] = int(node.op in ("ap", ATOM)) + sum(count[c] for c in node.children)
    return count[formula]


def _atoms_written(text: str, prefix: str) -> tuple[str, list[tuple[str, str]]]:
    """`text` with each atom as written (`parse_data`'s `atoms`) replaced by a name of its own
    (`prefix` and a number), and each name with the atom's text; the text as it is, one part
    with no atoms named, where it does not read as a formula over data."""
    from ltlwit.logic.syntax.data import parse_data

    spans: list[tuple[int, int]] = []
    try:
        parse_data(text, atoms=spans)
    except ValueError:
        return f"{prefix}0", [(f"{prefix}0", text)]
    written = [(f"{prefix}{j}", text[start:end]) for j, (start, end) in enumerate(spans)]
    for (start, end), (slot, _) in zip(reversed(spans), reversed(written)):
        text = f"{text[:start]} {slot} {text[end:]}"
    return text, written


def _fret_trigger(spec: Spec, syntax: str) -> Formula | None:
    """When a FRET requirement fires: in its mode (`in MODE`), its condition holding, and its
    response's antecedents (`if ! level then valve`), at some instant; None where none of
    these is given."""
    assert spec.template is not None
    found: list[Formula] = []
    try:
        for kind in ("mode", "condition"):
            text = spec.template.part(kind)
            if text is not None:
                found.append(parse(text, syntax))
        response = spec.template.part("response")
        if response is not None:
            found += antecedents(parse(response, syntax))
    except ValueError:
        return None
    if not found:
        return None
    return Formula("F", (as_checked(And(*found), None, spec.substitute),))


def _read_scope(parsed: list[ParsedSpec], members: list[int], options: SolveOptions) -> None:
    """The specs at `members`, which read their names together, given the one reading."""
    from ltlwit.logic.theory.reading import explained, merged, read_together
    from ltlwit.logic.theory.sorts import SortError

    declared = options.declarations
    try:
        for i in members:
            declared = merged(declared, parsed[i].spec.declarations)
    except SortError as exc:  # a --var that clashes with the file's own declaration
        for i in members:
            formula = parsed[i].formula  # (every member has one)
            if formula is not None and formula.data:
                parsed[i] = replace(parsed[i], formula=None, problem=str(exc))
        return
    try:  # the names of a file of a million terms are read within --timeout and --max-memory
        with deadline_scope(options.deadline(time.perf_counter()), options.ceiling, "inferring the sorts"):
            reading = read_together([parsed[i].formula for i in members], declared)
    except HardLimit as exc:
        for i in members:
            formula = parsed[i].formula  # (every member has one)
            if formula is not None and formula.data:
                parsed[i] = replace(parsed[i], formula=None, unknown=str(exc))
        return
    formulas = [parsed[i].formula for i in members]
    cited = [parsed[i].spec.cited for i in members]
    for k, i in enumerate(members):
        problem = reading.problems.get(k)
        if problem is None:
            parsed[i] = replace(parsed[i], spec=replace(parsed[i].spec, declarations=reading.declarations))
            continue
        parsed[i] = replace(parsed[i], formula=None, problem=explained(problem, formulas, k, cited))


def spec_inputs(parsed: list[ParsedSpec], one_event: bool = False) -> Iterator[tuple[ParsedSpec, Formula | None]]:
    """Each spec with the formula `solve -F` asks about it: its formula with a `one-event`
    file's activities (`one_event`: any file's, `--one-event`), None where it has no formula."""
    events = activities(parsed, one_event)
    for p in parsed:
        if p.formula is None:
            yield p, None
        else:
            yield p, And(p.formula, events) if events is not None else p.formula
