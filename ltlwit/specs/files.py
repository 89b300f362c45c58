"""Reading specification files for `ltlwit check`.

Text spec files: one formula per line, optionally named and with an expectation,

    # the arbiter
    mutex:    G !(grant1 & grant2)
    response: G(req1 -> F grant1)
    never:    F(grant1 & grant2)       # expect: unsat
    follows:  G !(grant1 & grant2) -> !F(grant1 & grant2)   # expect: valid

blank lines and `#` comments skipped; a name is an identifier (`[A-Za-z_][A-Za-z0-9_.-]*`)
followed by `:`; the expectation is a trailing `# expect: VALUE` (keyword and value in any
case). A `#` or a `:` inside a double-quoted AP name is part of the name. Each spec is judged
alone or against the file's requirements (its specs expected `sat`, the default):

- `sat`: a requirement, satisfiable; `unsat`: unsatisfiable alone; `valid`: every trace
  satisfies it;
- `allowed`: a scenario that must stay possible together with every requirement;
  `forbidden`: one the requirements must rule out; `implied`: a property every trace the
  requirements allow satisfies (`SCENARIOS`: these are judged against the requirements).

The trailing comment is cut at each `#` into comments of their own: exactly one of them may be
the expectation, others acknowledgments of findings (`# acknowledged: vacuous grant`,
`# acknowledged: vacuous grant:2`, `# acknowledged: redundant`: `check --vacuity` and
`--redundancy` then pass with them, and report one that matches nothing), the others notes
(`F err  # expect: unsat  # REQ-12`). A spec must never
silently lose its expectation, so a comment that looks like one but is not exactly
`expect: VALUE` is an error: `# expect unsat`, `# expected: unsat`, `# Expect: unsat (REQ-12)`,
`# expect: unsat.`, `# exepct: unsat`, a bare `# unsat`, two expectations on one line, and an
expectation comment on a line of its own (it belongs to no spec).

TOML spec files (`*.toml`): an array of tables `[[spec]]` with `formula` (required), `name`,
`expect`, `semantics` (`infinite` or `finite`: the spec's own, over `--semantics`; optional)
and `acknowledged` (a list of acknowledgments); any other key is an error, so a typo like `expected` is not silently
ignored. Names must be unique within a file.

Where a spec holds: at the first instant (`initially`, the default), at every instant
(`always`: the formula is checked as `G(formula)`, as FRET's past-time requirements are meant)
or at the last instant of a finite trace (`finally`); per spec in a trailing comment (`# holds:
always`) or TOML's `holds = "always"`, for a whole file's specs in a line `holds always` or a
top-level `holds = "always"`. A file's line does not apply to its scenarios (a scenario, a
trace the requirements must allow or rule out, is read from its first instant unless its own
comment says otherwise).

Data variables' sorts (formulas over data: `speed > 50`, `mode = on`): in a text file, lines
`var speed: Real`, `var x, y: Int`, `var mode: {off, on}` and `domain Int` (the sort of data
variables nothing declares); in TOML, a `[variables]` table (`speed = "Real"`) and a top-level
`domain = "Int"`. They hold for the whole file, over the run's `--var` and `--domain`. Who
controls what, for `ltlwit realize`: lines `input req1, req2` (the environment's propositions)
and `output grant1` (the system's, where not every other one is), TOML's `inputs` and
`outputs` lists; `check` reads them and asks nothing of them. A FRET
export (`*.json`) is read by `ltlwit.specs.fret`.

Text spec files in nuXmv's style: `VAR` and `IVAR` sections (`x : integer;`, `mode : {off, on};
b : boolean;`, up to the first line that declares nothing) declare as `var` lines do,
`LTLSPEC NAME r1 := φ;` is a spec named r1 (`INVARSPEC`: one that holds always), and `--`
starts a comment as `#` does (not inside a spec's leading name, a quoted name, or Spot's arrow
`-->`); an expectation written in a `--` comment is an error, and so is a line of nuXmv's other
sections (`MODULE`, `ASSIGN`, ...).

Reading reuses the input reader's safety net: unreadable files, binary data, over-long lines
and bad encodings become error entries.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from typing import BinaryIO, Iterator

from ltlwit.logic import SEMANTICS
from ltlwit.logic.theory.sorts import Declarations, SortError, parse_declaration, parse_domain, parse_sort
from ltlwit.pipeline.inputs import STDIN_NAME, InputItem, comment_line, max_line_bytes, read_lines
from ltlwit.pipeline.verify import HOLDS

#: What a spec may be expected to be (files' module docstring).
SCENARIOS = ("allowed", "forbidden", "implied")
EXPECTATIONS = ("sat", "unsat", "valid") + SCENARIOS
_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)\s*:(?!=)\s*(.*)$")
#: A comment (its text after the `#`) that is an expectation: `expect: VALUE`, nothing more.
_EXPECT = re.compile(r"expect\s*:\s*(\S*)\Z", re.IGNORECASE)
#: What an attempt at one starts with: a word (`expect`, `expected`, `Expects`, a misspelling)
#: and, after an optional `:` or `=`, maybe a word that reads as a value.
_ATTEMPT = re.compile(r"([A-Za-z]+)\s*[:=]?\s*([A-Za-z]*)")
_VALUE_WORDS = frozenset(EXPECTATIONS + ("satisfiable", "unsatisfiable", "invalid", "unsatisfied", "satisfied"))
_EXPECT_HINT = "write exactly '# expect: sat|unsat|valid|allowed|forbidden|implied'"
_EXPECT_CHOICES = "use sat, unsat, valid, allowed, forbidden or implied"
_TOML_SPEC = re.compile(r"^\s*\[\[\s*spec\s*\]\]")
#: Where a spec holds, for one spec (a trailing comment) and for a file (a line of its own).
_HOLDS = re.compile(r"holds\s*:\s*(\S*)\Z", re.IGNORECASE)
_FILE_HOLDS = re.compile(r"^holds\s+(\S+)\s*(?:#.*)?$")
_HOLDS_CHOICES = "use initially, always or finally"
#: A comment that acknowledges a finding, and what a finding is written as.
_ACK = re.compile(r"acknowledged?\s*:\s*(.*?)\s*\Z", re.IGNORECASE)
_FINDING = re.compile(r"(?:(vacuous|undecided)\s+(.+?)(:\d+)?|redundant|undecided\s+redundancy)\Z")
_ACK_HINT = (
    "write '# acknowledged: vacuous AP', 'vacuous AP:N', 'vacuous COMPARISON[:N]' (x > 3), "
    "'undecided AP[:N]' or 'redundant'"
)


def acknowledges(ack: str, finding: str) -> bool:
    """Whether an acknowledgment covers a finding (`vacuous grant` every occurrence of grant,
    `vacuous grant:2` the second)."""
    return ack == finding or ":" not in ack and finding.rpartition(":")[0] == ack


def acknowledgment(text: str) -> str:
    """A finding as an acknowledgment writes it (`vacuous grant`, `vacuous grant:2`,
    `vacuous speed>50.0:1`, `undecided grant:1`, `redundant`, `undecided redundancy`), spaces
    normalised (none in a comparison: `speed > 50.0` is `speed>50.0`); ValueError when it is
    none of these."""
    normal = " ".join(text.split())
    match = _FINDING.match(normal)
    if match is None:
        raise ValueError(f"malformed acknowledgment {text!r}: {_ACK_HINT}")
    if match.group(1) is None or normal == "undecided redundancy":
        return normal
    return f"{match.group(1)} {finding_subject(match.group(2))}{match.group(3) or ''}"


def finding_subject(text: str) -> str:
    """A proposition or comparison as findings name it: without spaces (`speed>50.0`)."""
    return "".join(text.split())


@dataclass(frozen=True)
class Template:
    """How a spec's formula is made from what its author wrote (a FRET requirement): FRET's
    template with `$slot$`s (None where the export does not give it), and each slot's name,
    text and what it is for people (`mode`, `condition`, `stop condition`, `response`; None for
    what is not the author's words: FRET's `duration`, a scope's mode that does not trigger)."""

    text: str | None
    slots: tuple[tuple[str, str, str | None], ...]

    def part(self, kind: str) -> str | None:
        """The text of the slot that is `kind`, if any."""
        return next((text for _, text, label in self.slots if label == kind), None)


@dataclass(frozen=True)
class Spec:
    """One specification, or (with `error`) why an entry of a spec file could not be read."""

    file: str
    line: int  # 1-based; 0 for a problem with the whole file
    name: str | None = None
    formula: str = ""
    expect: str = "sat"
    error: str | None = None
    #: Its own semantics (TOML's `semantics = "finite"`), else None: the run's (`--semantics`).
    semantics: str | None = None
    #: What it says in words (a FRET requirement's structured English), shown with conflicts.
    note: str | None = None
    #: Where it holds (`pipeline.verify.HOLDS`): None or "initially" at the first instant,
    #: "always" at every one (`G(formula)`: FRET's past-time requirements are meant so),
    #: "finally" at the last instant of a finite trace.
    holds: str | None = None
    #: The sorts of its data variables (its file's declarations).
    declarations: Declarations | None = None
    #: Variables that stand for a constant (FRET's Internal variables assigned a numeral),
    #: replaced by it: (name, numeral).
    substitute: tuple[tuple[str, str], ...] = ()
    #: How its text was read, where that may not be what was meant.
    warnings: tuple[str, ...] = ()
    #: The syntax its file is written in (a FRET export: `nuxmv`), else None: the run's `--syntax`.
    syntax: str | None = None
    #: The set of specs it goes together with, apart from the file's others (a FRET export of
    #: several projects: its project), else None: the whole file's.
    group: str | None = None
    #: Within its group, the specs whose names it reads as they do (a FRET requirement's
    #: component: `specs.reading`), else None: the group's.
    component: str | None = None
    #: How its formula is made from what its author wrote (a FRET requirement's), else None:
    #: the formula is all the author's.
    template: Template | None = None
    #: Its witness shows its trigger firing unless asked otherwise (a FRET requirement's).
    fire: bool = False
    #: The findings acknowledged next to it (`acknowledgment`).
    acknowledged: tuple[str, ...] = ()
    #: Its file reads traces as one activity per instant (a line `one-event`, TOML's
    #: `one_event = true`: Declare's process traces): the activities are the file's APs.
    one_event: bool = False
    #: Who controls its propositions, for `realize` (its file's `input` and `output` lines, TOML's
    #: `inputs` and `outputs`): the environment's; the system's, None where the file leaves
    #: them to be every other one.
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] | None = None
    #: Its file's Internal and Mode variables' definitions, for `realize` (a FRET export's:
    #: `specs.fret`): (name, its definition in nuXmv's syntax, whether it is a Boolean, the
    #: sorts of the names it reads).
    defines: tuple[tuple[str, str, bool, Declarations], ...] = ()

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def cited(self) -> str:
        """How a message names it: `name (file:line)`, or the location of an unnamed spec."""
        return f"{self.name} ({self.where})" if self.name else self.where

    @property
    def label(self) -> str:
        """The name, or the location of an unnamed spec."""
        return self.name or self.where


def read_specs(path: str, stdin: BinaryIO | None = None, stdin_name: str = STDIN_NAME) -> Iterator[Spec]:
    """The specs of one file, in file order (TOML by the `.toml` suffix, a FRET export by the
    `.json` suffix and a JSON object in it; `-` is `stdin`, in the text format, named
    `stdin_name`), each with the file's declarations. A file without any spec is an error: a
    CI gate pointed at the wrong file must not pass silently."""
    from ltlwit.specs.fret import is_fret, read_fret

    read: list[_Read]
    if path.endswith(".toml"):
        read = list(_read_toml(path))
    elif path.endswith(".json") and is_fret(path, _head(path)):
        read = list(read_fret(path))
    else:
        read = list(_read_text(path, stdin, stdin_name))
    declared = [s for s in read if isinstance(s, Declarations)]
    everywhere = [s for s in read if isinstance(s, _Holds)]
    events = any(isinstance(s, _OneEvent) for s in read)
    roles = [s for s in read if isinstance(s, _Roles)]
    specs = [s for s in read if isinstance(s, Spec)]
    if roles and (roles[0].inputs or roles[0].outputs is not None):
        specs = [replace(s, inputs=roles[0].inputs, outputs=roles[0].outputs) for s in specs]
    if declared:
        specs = [replace(s, declarations=declared[0].merged(s.declarations)) if s.error is None else s for s in specs]
    if everywhere:  # a scenario holds where it says: at its first instant unless it says otherwise
        specs = [
            replace(s, holds=everywhere[0].at)
            if s.error is None and s.holds is None and s.expect not in SCENARIOS
            else s
            for s in specs
        ]
    if events:
        specs = [replace(s, one_event=True) for s in specs]
    yield from specs
    if not specs:
        yield Spec(stdin_name if path == "-" else path, 0, error="no specs in this file")


@dataclass(frozen=True)
class _OneEvent:
    """A file's `one-event` line (TOML: `one_event = true`)."""


_ONE_EVENT = _OneEvent()


@dataclass(frozen=True)
class _Holds:
    """A file's `holds` line: where its specs hold unless they say."""

    at: str


@dataclass(frozen=True)
class _Roles:
    """A file's `input` and `output` lines (TOML: `inputs`, `outputs`): who controls what."""

    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] | None = None


#: What reading a spec file gives: its specs, and what holds for all of them.
_Read = Spec | Declarations | _Holds | _OneEvent | _Roles


def _holds(value: str) -> str:
    if value.lower() not in HOLDS:
        raise ValueError(f"unknown place {value!r} for a spec to hold ({_HOLDS_CHOICES})")
    return value.lower()


def is_spec_file(path: str) -> bool:
    """Whether `solve -F` reads `path` as a spec file (`read_specs`): `*.spec`, `*.toml`, or a
    FRET export; a file that cannot be opened is not one (the line reader reports it)."""
    from ltlwit.specs.fret import is_fret

    if not os.path.isfile(path):
        return False
    return path.endswith((".spec", ".toml")) or path.endswith(".json") and is_fret(path, _head(path))


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as stream:
            return stream.read(64)
    except OSError:
        return b""


def _read_text(path: str, stdin: BinaryIO | None, stdin_name: str) -> Iterator[_Read]:
    """The specs, and last the file's declarations (`var NAME, NAME: SORT` and `domain Int|Real`
    lines, which hold for every spec of the file, wherever they stand)."""
    state = _TextReading()
    for item in read_lines(path, stdin, stdin_name):
        yield from _text_line(item, state)
    if state.declarations.entries or state.declarations.domain is not None:
        yield state.declarations
    yield state.roles


@dataclass
class _TextReading:
    """What the lines of a text spec file read so far mean for the next: the declarations (they
    hold for the whole file), each spec name's line and the line of the file's `holds` (each
    is given once), and whether nuXmv's `VAR` section goes on (its declarations need no `var`)."""

    declarations: Declarations = field(default_factory=Declarations)
    seen: dict[str, int] = field(default_factory=dict)
    holds_line: int | None = None
    in_section: bool = False
    roles: _Roles = field(default_factory=lambda: _Roles())


def _text_line(item: InputItem, state: _TextReading) -> Iterator[_Read]:
    """What one line of a text spec file gives, `state` updated. nuXmv's lines are told apart
    first, so that none of them is read as a spec: a `--` comment, a `VAR` section's
    declarations (up to a line that is none: a blank line or a comment, `--` or `#`, leaves the
    section open) and its other sections, which are not read."""
    if item.error is not None:
        yield Spec(item.file, item.line, error=item.error)
        return
    if not item.text:
        return
    if item.text.startswith("--") and comment_line(item.text):
        if _stray_expectation(item.text[2:]):
            yield Spec(item.file, item.line, error=f"an expectation in a '--' comment ({item.text!r}): {_EXPECT_HINT}")
        return
    if item.text.startswith("#"):
        yield from _lone_comment(item)
        return
    section = _SECTION.match(item.text)
    if section is not None or state.in_section and _NUXMV_DECLARATION.match(_split_comment(item.text)[0]):
        state.in_section = True
        yield from _section_line(item, item.text if section is None else section.group(1), state)
        return
    state.in_section = False
    other = _NUXMV_SECTION.match(item.text)
    if other is not None:
        yield Spec(
            item.file,
            item.line,
            error=f"nuXmv's {other.group(1)} is not read here: a spec file holds VAR and IVAR declarations "
            "and LTLSPEC or INVARSPEC specs (or ltlwit's lines)",
        )
        return
    yield from _own_line(item, state)


def _section_line(item: InputItem, text: str, state: _TextReading) -> Iterator[Spec]:
    """The declarations of a line of nuXmv's `VAR` section (`text`: after the `VAR`), into
    `state`; the problems of all of them in one error, since each declaration stands alone."""
    problems = []
    for part in _split_comment(text)[0].split(";"):
        try:
            state.declarations = _declare(state.declarations, part, None) if part.strip() else state.declarations
        except SortError as exc:
            problems.append(str(exc))
    if problems:
        yield Spec(item.file, item.line, error="; ".join(problems))


def _own_line(item: InputItem, state: _TextReading) -> Iterator[Spec | _Holds | _OneEvent]:
    """A line in ltlwit's own words, `state` updated: `one-event`, `holds`, `var` or `domain`,
    or a spec."""
    if item.text.split("#")[0].strip() == "one-event":
        yield _ONE_EVENT
        return
    everywhere = _FILE_HOLDS.match(item.text)
    if everywhere is not None:
        yield _file_holds(item, everywhere.group(1), state)
        return
    role = _ROLE.match(item.text)
    if role is not None:
        names = tuple(n.strip() for n in role.group(2).split(",") if n.strip())
        bad = next((n for n in names if not _PROPOSITION.fullmatch(n)), None)
        if not names or bad is not None:
            yield Spec(item.file, item.line, error=f"expected '{role.group(1)} NAME, NAME', got {item.text.strip()!r}")
        elif role.group(1) == "input":
            state.roles = replace(state.roles, inputs=state.roles.inputs + names)
        else:
            state.roles = replace(state.roles, outputs=(state.roles.outputs or ()) + names)
        return
    declaration = _DECLARATION.match(item.text)
    if declaration is not None:
        try:
            state.declarations = _declare(state.declarations, declaration.group(1), declaration.group(2))
        except SortError as exc:
            yield Spec(item.file, item.line, error=str(exc))
        return
    spec = parse_spec_line(item.text, item.file, item.line)
    taken = _taken(spec.name, spec.line, state.seen) if spec.error is None else None
    yield spec if taken is None else Spec(spec.file, spec.line, spec.name, error=taken)


def _file_holds(item: InputItem, value: str, state: _TextReading) -> Spec | _Holds:
    """A `holds` line: where the file's specs hold, once (`state` keeps its line), since two
    such lines would leave it to their order."""
    if state.holds_line is not None:
        return Spec(
            item.file,
            item.line,
            error=f"where the file's specs hold is given twice (first at line {state.holds_line})",
        )
    try:
        at = _Holds(_holds(value))
    except ValueError as exc:
        return Spec(item.file, item.line, error=str(exc))
    state.holds_line = item.line
    return at


def _lone_comment(item: InputItem) -> Iterator[Spec]:
    """A `#` comment on a line of its own: a note, unless it is an expectation or an
    acknowledgment, which would silently belong to no spec."""
    comment = item.text[1:]
    if _stray_expectation(comment) or _ACK.match(comment.strip()):
        what = "expectation" if _stray_expectation(comment) else "acknowledgment"
        yield Spec(
            item.file,
            item.line,
            error=f"{what} {item.text!r} on a line of its own belongs "
            "to no spec: put it after the formula, on the formula's line",
        )


def _taken(name: str | None, line: int, seen: dict[str, int]) -> str | None:
    """Why `name` cannot name the spec at `line` (`seen`: each name's first line, which it
    joins): a name taken before, since a name stands for one spec in messages, baselines and
    acknowledgments; else None."""
    if name is None:
        return None
    if name in seen:
        return f"duplicate spec name {name!r} (first at line {seen[name]})"
    seen[name] = line
    return None


#: Who controls what, for `realize`: `input req1, req2`, `output grant1, grant2`.
_ROLE = re.compile(r"^(input|output)\s+([^#]*?)\s*(?:#.*)?$")
_PROPOSITION = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")

#: A declaration line of a text spec file: `var speed: Real`, `var x, y: Int`,
#: `var mode: {off, on}`, `domain Real` (the sort of undeclared data variables).
_DECLARATION = re.compile(r"^(?:var\s+([^#]*?)\s*(?:#.*)?|domain\s+([A-Za-z]+)\s*(?:#.*)?)$")


#: nuXmv's sections of variables (`VAR`, `IVAR`: in a spec file both are variables whose value
#: may change at every instant), with declarations on the same line or the lines after it:
#: `name : integer;`, `mode : {off, on}; b : boolean;`, each read as `var name: Sort`.
_SECTION = re.compile(r"^I?VAR(?![A-Za-z0-9_.\-]|\s*:)\s*(.*)$")
_NUXMV_DECLARATION = re.compile(
    r"^[A-Za-z_][A-Za-z0-9_.]*\s*:(?!=)[^;]*;(?:\s*[A-Za-z_][A-Za-z0-9_.]*\s*:(?!=)[^;]*;)*$"
)
#: nuXmv's other sections, which a spec file does not hold.
_NUXMV_SECTION = re.compile(
    r"^(MODULE|DEFINE|ASSIGN|INIT|TRANS|INVAR|FAIRNESS|JUSTICE|COMPASSION|FROZENVAR|CONSTANTS|CTLSPEC|SPEC|PSLSPEC|COMPUTE)\b(?!\s*:)"
)


def _declare(declarations: Declarations, names: str | None, domain: str | None) -> Declarations:
    if domain is not None:
        if declarations.domain is not None:
            raise SortError("the domain is given twice")
        return Declarations(declarations.entries, parse_domain(domain))
    name_list, sep, sort = (names or "").partition(":")
    if not sep:
        raise SortError(f"expected 'var NAME: SORT' (e.g. var speed: Real), got 'var {names}'")
    parsed = None
    for name in (n.strip() for n in name_list.split(",")):
        if not name:
            raise SortError(f"a variable without a name in 'var {names}'")
        parsed = parse_declaration(f"{name}:{sort}")
        declarations = declarations.declare(*parsed)
    return declarations


def _attempt(comment: str) -> tuple[str, str] | None:
    """(first word, the value-like word after it), lower-cased, of a comment's text."""
    match = _ATTEMPT.match(comment.strip())
    return (match.group(1).lower(), match.group(2).lower()) if match else None


def _looks_like_expectation(comment: str) -> bool:
    """Whether the text of a trailing comment is (an attempt at) an expectation."""
    attempt = _attempt(comment)
    if attempt is None:
        return False
    word, value = attempt
    # `# unsat`, `# unsat (REQ-3)`, `# valid, per REQ-4`: a value first reads as an expectation
    return word in _VALUE_WORDS or word.startswith("expect") or (value in _VALUE_WORDS and _near_expect(word))


def _stray_expectation(comment: str) -> bool:
    """Whether a whole-line comment is an expectation, or an attempt at one with a value
    (`# expect: unsat`, `# Expected unsat`), as opposed to prose (`# Expected behaviour: ...`)."""
    if _EXPECT.match(comment.strip()):
        return True
    attempt = _attempt(comment)
    return (
        attempt is not None
        and attempt[1] in _VALUE_WORDS
        and (attempt[0].startswith("expect") or _near_expect(attempt[0]))
    )


def _near_expect(word: str) -> bool:
    """A likely misspelling of `expect`/`expected` (`exepct`, `expcet`, `expectd`)."""
    return any(SequenceMatcher(None, word, target).ratio() >= 0.75 for target in ("expect", "expected"))


def _expectation(comment: str | None) -> tuple[str, str | None, tuple[str, ...]]:
    """(the expectation, an error, the acknowledgments) from a line's trailing comment, which
    starts with `#`."""
    if comment is None:
        return "sat", None, ()
    found: list[str] = []
    acknowledged: list[str] = []
    parts = comment.split("#")
    if parts[0].startswith("--") and _looks_like_expectation(parts[0][2:]):
        return "sat", f"an expectation in a '--' comment ('{parts[0].strip()}'): {_EXPECT_HINT}", ()
    for part in parts[1:]:
        where = _HOLDS.match(part.strip())
        if where is not None:
            try:
                acknowledged.append("holds " + _holds(where.group(1)))
            except ValueError as exc:
                return "sat", str(exc), ()
            continue
        ack = _ACK.match(part.strip())
        if ack is not None:
            try:
                acknowledged.append(acknowledgment(ack.group(1)))
            except ValueError as exc:
                return "sat", str(exc), ()
            continue
        if not _looks_like_expectation(part):
            continue  # a note
        match = _EXPECT.match(part.strip())
        if match is None:
            return (
                "sat",
                (
                    f"malformed expectation '# {part.strip()}': {_EXPECT_HINT}, "
                    "a note in a comment of its own ('# expect: unsat  # REQ-12')"
                ),
                (),
            )
        if match.group(1).lower() not in EXPECTATIONS:
            return "sat", f"unknown expectation {match.group(1)!r} ({_EXPECT_CHOICES})", ()
        found.append(match.group(1).lower())
    if len(found) > 1:
        return "sat", f"more than one expectation on the line ({', '.join(found)})", ()
    expect = found[0] if found else "sat"
    if any(not a.startswith("holds ") for a in acknowledged) and expect != "sat":
        return "sat", f"an acknowledgment on a spec expected {expect}: findings are about requirements (sat)", ()
    return expect, None, tuple(acknowledged)


def parse_spec_line(text: str, file: str = "<spec>", line: int = 1) -> Spec:
    """`[name:] formula [# expect: VALUE] [# note]...` (the line is neither blank
    nor a comment)."""
    body, comment = _split_comment(text)
    name = None
    match = _NAME.match(body)
    if match:
        name, body = match.group(1), match.group(2)
    expect, problem, notes = _expectation(comment)
    if problem is not None:
        return Spec(file, line, name, error=problem)
    from ltlwit.logic.syntax.nuxmv import statement  # (the syntax package loads with the first parse)

    found = statement(body)  # nuXmv's `LTLSPEC NAME r1 := φ;`
    if found.name is not None:
        if name is not None:
            return Spec(file, line, name, error=f"the spec is named twice: {name}: and NAME {found.name} :=")
        name = found.name
    body = body[found.start : found.end].strip()
    if not body:
        after = f" after {found.keyword}" if found.keyword else f" after {name!r}:" if name else ""
        return Spec(file, line, name, error="no formula" + after)
    at = [n.split()[1] for n in notes if n.startswith("holds ")]
    if found.keyword == "INVARSPEC":  # an invariant: it holds at every instant
        if any(a != "always" for a in at):
            return Spec(file, line, name, error=f"an INVARSPEC holds always, not '# holds: {at[0]}'")
        at = ["always"]
    if len(at) > 1:
        return Spec(file, line, name, error="more than one '# holds:' on the line")
    return Spec(
        file,
        line,
        name,
        body,
        expect,
        acknowledged=tuple(n for n in notes if not n.startswith("holds ")),
        holds=at[0] if at else None,
    )


def _split_comment(text: str) -> tuple[str, str | None]:
    """(text before the first `#` or nuXmv's `--` outside double quotes, the comment from
    there); a `--` inside a spec's leading name (`req--1:`) or Spot's arrow `-->` is none."""
    quoted = escaped = False
    named = _NAME.match(text)
    dashes = named.start(2) if named else 0
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch == "#" or ch == "-" and i >= dashes and comment_line(text[i : i + 3]):
            return text[:i].rstrip(), text[i:].strip()
    return text, None


def _read_toml(path: str) -> Iterator[_Read]:
    """A TOML spec file as `_read_text` gives a text file: what holds for all its specs, the
    specs, and last its declarations; a problem with its top level is the file's one error,
    since its specs would be read with the wrong settings."""
    loaded = _load_toml(path)
    if isinstance(loaded, Spec):
        yield loaded
        return
    data, text = loaded
    try:
        yield from _toml_settings(data)
        declarations = _toml_declarations(data)
        yield _toml_roles(data)
    except ValueError as exc:  # (a SortError is one)
        yield Spec(path, 0, error=str(exc))
        return
    lines = [i for i, row in enumerate(text.splitlines(), 1) if _TOML_SPEC.match(row)]
    seen: dict[str, int] = {}
    for index, entry in enumerate(data.get("spec", [])):
        line = lines[index] if index < len(lines) else 0
        yield _toml_spec(entry, path, line, seen)
    if declarations is not None:
        yield declarations


def _load_toml(path: str) -> tuple[dict, str] | Spec:
    """A TOML file's data and its text (where its `[[spec]]` tables are written), or an error
    spec: one read whole, so only up to 4 times the line limit."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            return Spec(path, 0, error="TOML spec files need Python 3.11 or the tomli package")
    try:
        with open(path, "rb") as stream:
            raw = stream.read(4 * max_line_bytes() + 1)
    except OSError as exc:
        return Spec(path, 0, error=f"cannot open: {exc.strerror or type(exc).__name__}")
    if len(raw) > 4 * max_line_bytes():
        return Spec(
            path,
            0,
            error=f"larger than {4 * max_line_bytes()} bytes (4 times the line limit, LTLWIT_MAX_LINE_MIB); not read",
        )
    try:
        text = raw.decode("utf-8")
        return tomllib.loads(text), text
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Spec(path, 0, error=f"not a valid TOML file: {exc}")


def _toml_settings(data: dict) -> Iterator[_Holds | _OneEvent]:
    """What a TOML file's top level says for all its specs (`one_event`, `holds`); ValueError
    for a key it does not know, so that a typo is not silently ignored."""
    extra = sorted(set(data) - {"spec", "variables", "domain", "holds", "one_event", "inputs", "outputs"})
    if extra or not isinstance(data.get("spec", []), list):
        raise ValueError(
            "a TOML spec file holds [[spec]] tables, a [variables] table, a domain, "
            "where its specs hold, inputs and outputs" + (f" (found {', '.join(extra)})" if extra else "")
        )
    if data.get("one_event") is True:
        yield _ONE_EVENT
    elif "one_event" in data and data["one_event"] is not False:
        raise ValueError("one_event is true or false")
    if "holds" in data:
        if not isinstance(data["holds"], str):
            raise ValueError('holds is a string: holds = "always"')
        yield _Holds(_holds(data["holds"]))


def _toml_roles(data: dict) -> _Roles:
    """`inputs = ["req"]`, `outputs = ["grant"]`: who controls what, for `realize`."""
    for key in ("inputs", "outputs"):
        value = data.get(key, [])
        if not isinstance(value, list) or any(not isinstance(v, str) or not _PROPOSITION.fullmatch(v) for v in value):
            raise ValueError(f'{key} is a list of names: {key} = ["req", "ack"]')
    return _Roles(tuple(data.get("inputs", [])), tuple(data["outputs"]) if "outputs" in data else None)


def _toml_declarations(data: dict) -> Declarations | None:
    """`[variables]` (`speed = "Real"`, `mode = "{off, on}"`) and `domain = "Int"`."""
    variables, domain = data.get("variables", {}), data.get("domain")
    if not isinstance(variables, dict) or any(not isinstance(v, str) for v in variables.values()):
        raise SortError('[variables] maps each name to its sort as a string: speed = "Real"')
    if domain is not None and not isinstance(domain, str):
        raise SortError('domain is a string: domain = "Int"')
    if not variables and domain is None:
        return None
    out = Declarations(domain=parse_domain(domain) if domain is not None else None)
    for name, sort in variables.items():
        out = out.declare(name, parse_sort(sort, name))
    return out


def _toml_spec(entry: object, path: str, line: int, seen: dict[str, int]) -> Spec:
    """A `[[spec]]` table as a spec, or an error spec with the first thing wrong with it."""
    if not isinstance(entry, dict):
        return Spec(path, line, error="[[spec]] must be a table")
    name, formula, expect = entry.get("name"), entry.get("formula"), entry.get("expect", "sat")
    try:
        at, acknowledged, semantics = _toml_keys(entry)
    except ValueError as exc:
        return Spec(path, line, name if isinstance(name, str) else None, error=str(exc))
    if not isinstance(formula, str) or not formula.strip():
        return Spec(path, line, name if isinstance(name, str) else None, error="[[spec]] needs a formula string")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        return Spec(path, line, error="a spec name must be a non-empty string")
    if not isinstance(expect, str) or expect.lower() not in EXPECTATIONS:
        return Spec(path, line, name, error=f"unknown expectation {expect!r} ({_EXPECT_CHOICES})")
    taken = _taken(name, line, seen)
    if taken is not None:
        return Spec(path, line, name, error=taken)
    if acknowledged and expect.lower() != "sat":
        return Spec(
            path,
            line,
            name,
            error=f"an acknowledgment on a spec expected {expect.lower()}: findings are about requirements (sat)",
        )
    return Spec(
        path, line, name, formula.strip(), expect.lower(), semantics=semantics, acknowledged=acknowledged, holds=at
    )


def _toml_keys(entry: dict) -> tuple[str | None, tuple[str, ...], str | None]:
    """A `[[spec]]` table's keys beside its formula, name and expectation: (where it holds, its
    acknowledgments, its semantics); ValueError for a key it does not know, since `expected`,
    `Expect` or `expect_` must not leave the spec expecting sat."""
    unknown = sorted(set(entry) - {"name", "formula", "expect", "semantics", "acknowledged", "holds"})
    if unknown:
        raise ValueError(
            f"unknown key {unknown[0]!r} in [[spec]] (known: name, formula, expect, semantics, acknowledged, holds)"
        )
    at, acks, semantics = entry.get("holds"), entry.get("acknowledged", []), entry.get("semantics")
    at = _holds(at) if isinstance(at, str) else at
    if at is not None and at not in HOLDS:
        raise ValueError(f"unknown place {at!r} for a spec to hold ({_HOLDS_CHOICES})")
    if not isinstance(acks, list) or not all(isinstance(a, str) for a in acks):
        raise ValueError('acknowledged is a list of strings: acknowledged = ["vacuous grant"]')
    acknowledged = tuple(acknowledgment(a) for a in acks)
    if semantics is not None and semantics not in SEMANTICS:
        raise ValueError(f"unknown semantics {semantics!r} (use {' or '.join(SEMANTICS)})")
    return at, acknowledged, semantics
