"""Requirement sets as NASA's FRET exports them (`ltlwit check EXPORT.json`).

A FRET export is a JSON object with `requirements` (each with a `reqid`, its structured-English
`fulltext`, and `semantics.ptExpanded`: the past-time formula in nuXmv's syntax that must hold
at every step, as FRET's own analyses read it) and `variables` (`variable_name`, `dataType`:
boolean, integer, double, or Simulink's int32, single...; `idType`: Input, Output, Internal,
Mode, Function; for Internal ones an `assignment`). Each requirement becomes a spec named by
its reqid, read in nuXmv's syntax (`OPERATING_LIMITS` is a name even where no atom says so),
expected satisfiable, checked over finite traces at every instant (`Spec.holds`:
`G(ptExpanded)`); the variables' data types become sort declarations (a requirement's from
its own component's list where that lists the name: FRET analyses a component's requirements
together, and a name may be a function there and a Simulink port elsewhere), a Function's
name an uninterpreted function, and an Internal variable whose assignment is a numeral a constant of
that value (FRET's enumerations are such constants: `thrust_borne` with assignment `0`). Other
assignments, Lustre expressions (`(not standby) and supported`, `0.0 -> (x - pre x)`), and Mode
variables' mode requirements are FRET's definitions of those variables: `check` leaves those
variables free (put in, nonlinear definitions made FRET's database's redundancy questions 14 times
slower, and its vacuity speak of occurrences no one wrote); each spec carries them, in nuXmv's
syntax (`syntax.lustre`, `_definitions`), for `realize`, which keeps each defined variable equal to
its definition as FRET's realizability analysis does.
Numbers nothing declares (a variable the export does not list, a Function's arguments) are
Real, FRET's `double`. FRET's "export requirements" writes the requirements alone, as a JSON
list: read as an export without `variables`. An export of several projects (FRET's whole
database) holds a set of requirements per project: each is checked together apart from the
others (`Spec.group`), and a reqid may be another project's too.

FRET sometimes leaves the HTML of its editor in a formula (`<b><i>(mag ( x ) < r)</i></b>`):
the tags are taken out, with a warning, so that what is left is read as written.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from ltlwit.logic.theory.sorts import REAL, Declarations, Sort, SortError, base_sort

if TYPE_CHECKING:  # the spec files' module imports this one when it reads an export
    from ltlwit.specs.files import Spec, Template

_TAGS = re.compile(r"</?\s*[A-Za-z]+\s*>")
_NUMERAL = re.compile(r"\s*(-?)\s*([0-9]+(?:\.[0-9]+)?)\s*\Z")


def is_fret(path: str, head: bytes) -> bool:
    """Whether a `.json` file is read as a FRET export: it holds a JSON object or list (`head`:
    its first bytes; one that holds no requirements is then an error that says so)."""
    return path.endswith(".json") and head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[")


def read_fret(path: str) -> Iterator[Any]:
    """The export at `path` as `Spec`s (`fret_specs`); an unreadable file, one error spec."""
    from ltlwit.specs.files import Spec

    try:
        with open(path, "rb") as stream:
            text = stream.read().decode("utf-8-sig")
    except OSError as exc:
        yield Spec(path, 0, error=f"cannot open: {exc.strerror or type(exc).__name__}")
        return
    except UnicodeDecodeError as exc:
        yield Spec(path, 0, error=f"not a valid JSON file: {exc}")
        return
    yield from fret_specs(text, path)


#: The error of a requirement FRET has not formalized: it takes no part in FRET's analyses.
UNFORMALIZED = "no semantics.ptExpanded (FRET has not formalized it)"


def fret_specs(text: str, path: str) -> Iterator[Any]:
    """The export's requirements as `Spec`s (module docstring), each carrying the export's
    declarations, constants, and who controls what (`inputs`: the Input variables, `outputs`:
    the Output ones); an export that does not read, one error spec."""
    from ltlwit.specs.files import Spec

    try:
        data = json.loads(text)
    except ValueError as exc:
        yield Spec(path, 0, error=f"not a valid JSON file: {exc}")
        return
    if isinstance(data, list):
        data = {"requirements": data}
    if not isinstance(data, dict) or not isinstance(data.get("requirements"), list):
        yield Spec(path, 0, error="not a FRET export: no list of requirements")
        return
    try:
        declarations, components, constants = _variables(data.get("variables") or [])
    except SortError as exc:
        yield Spec(path, 0, error=f"variables: {exc}")
        return
    requirements = data["requirements"]
    projects = {r.get("project") for r in requirements if isinstance(r, dict) and isinstance(r.get("project"), str)}
    export = _Export(path, text, declarations, components, constants, len(projects) > 1)
    inputs, outputs = _roles(data.get("variables") or [])
    definitions = tuple(
        (n, t, b, _scoped(declarations, {}, f"{n} {t}"))
        for n, t, b in _definitions(data.get("variables") or [], declarations, dict(constants))
    )
    for requirement in requirements:
        yield replace(_spec(requirement, export), inputs=inputs, outputs=outputs, defines=definitions)


def _roles(entries: list) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The Input and the Output variables (a name's first entry with an `idType` decides)."""
    roles: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("variable_name"), str) and entry.get("idType"):
            roles.setdefault(entry["variable_name"].strip(), str(entry["idType"]))
    return tuple(n for n, k in roles.items() if k == "Input"), tuple(n for n, k in roles.items() if k == "Output")


@dataclass(frozen=True)
class _Export:
    """What each requirement of an export is read with: the file (its text: where a reqid is
    written), its variables' sorts and constants (`_variables`), whether it holds several
    projects (each a set of requirements of its own, whose reqids may be another's too), and
    what the requirements read so far leave for the next: the line of each (project, reqid),
    since a reqid names one requirement, and where each reqid was last found (`_line_of`)."""

    path: str
    text: str
    declarations: Declarations
    components: dict[str, dict[str, Sort | None]]
    constants: tuple[tuple[str, str], ...]
    by_project: bool
    seen: dict[tuple[str | None, str], int] = field(default_factory=dict)
    cursor: dict[str, int] = field(default_factory=dict)


def _spec(requirement: Any, export: _Export) -> Spec:
    """One requirement as a spec, or an error spec that says why it is none."""
    from ltlwit.specs.files import Spec

    if not isinstance(requirement, dict):
        return Spec(export.path, 0, error="a requirement must be an object")
    reqid = requirement.get("reqid")
    name = reqid if isinstance(reqid, str) and reqid.strip() else None
    line = _line_of(export.text, name, export.cursor) if name else 0
    note = requirement.get("fulltext") if isinstance(requirement.get("fulltext"), str) else None
    semantics = requirement.get("semantics")
    if not isinstance(semantics, dict):
        semantics = {}
    formula = semantics.get("ptExpanded")
    project = requirement.get("project")
    project = project if export.by_project and isinstance(project, str) else None
    if name is None:
        return Spec(export.path, line, error="a requirement without a reqid", group=project)
    if (project, name) in export.seen:
        first = export.seen[project, name]
        return Spec(export.path, line, name, error=f"duplicate reqid {name!r} (first at line {first})", group=project)
    export.seen[project, name] = line
    if not isinstance(formula, str) or not formula.strip():
        return Spec(
            export.path,
            line,
            name,
            note=note,
            error=UNFORMALIZED,
            group=project,
        )
    return _formalized(Spec(export.path, line, name, note=note, group=project), formula, semantics, export)


def _formalized(spec: Spec, formula: str, semantics: dict, export: _Export) -> Spec:
    """A requirement's spec with its formula (`ptExpanded`) read as FRET's own analyses read it
    (module docstring): over finite traces, at every instant, in nuXmv's syntax, its names as
    its component declares them."""
    warnings: tuple[str, ...] = ()
    if _TAGS.search(formula):
        formula = _TAGS.sub(" ", formula)
        warnings = ("the formula held HTML tags from FRET's editor (<b>, <i>); they were taken out",)
    component = semantics.get("component_name")
    own = export.components.get(component, {}) if isinstance(component, str) else {}
    return replace(
        spec,
        formula=" ".join(formula.split()),
        semantics="finite",
        holds="always",
        declarations=_scoped(export.declarations, own, formula),
        substitute=export.constants,
        warnings=warnings,
        syntax="nuxmv",
        component=component if isinstance(component, str) else None,
        template=_template(semantics),
        fire=True,
    )


#: FRET's slots that hold what a requirement's author wrote, and what each is.
SLOTS = {
    "scope_mode_pt": "mode",
    "regular_condition_SMV_pt": "condition",
    "stop_condition_SMV_pt": "stop condition",
    "post_condition_SMV_pt": "response",
}
_SLOT = re.compile(r"\$(\w+)\$")


def _template(semantics: dict) -> Template | None:
    """FRET's template of the requirement (`ptExpanded_fetched`) and the parts its author wrote:
    its response, its condition (where it has one), its stop condition, the mode of its scope
    (`in MODE`: the requirement acts in that mode; other scopes' modes do not trigger it)."""
    from ltlwit.specs.files import Template

    scope = semantics.get("scope")
    scoped = isinstance(scope, dict) and scope.get("type") not in (None, "null")
    text = semantics.get("ptExpanded_fetched")
    text = " ".join(text.split()) if isinstance(text, str) else None
    wanted = dict.fromkeys(_SLOT.findall(text)) if text is not None else {}
    for name in SLOTS:
        if name == "scope_mode_pt" and not scoped:
            continue
        if name == "regular_condition_SMV_pt" and semantics.get("condition") in (None, "null"):
            continue
        wanted.setdefault(name)
    slots = []
    for name in wanted:
        value = semantics.get(name)
        if not isinstance(value, (str, int, float)) or not str(value).strip() or value == "BAD_PT":
            if text is not None and f"${name}$" in text:
                text = None  # a template whose slot is not given: its parts alone
            continue
        label = SLOTS.get(name)
        if name == "scope_mode_pt" and not (isinstance(scope, dict) and scope.get("type") in ("in", "onlyIn")):
            label = None
        slots.append((name, " ".join(str(value).split()), label))
    if not slots:
        return None
    return Template(text, tuple(slots))


def _line_of(text: str, reqid: str, cursor: dict[str, int]) -> int:
    """The line of the file where the requirement's reqid is written (1-based; 0: not found),
    past where the same reqid was found before (`cursor`: a reqid may repeat). Read off an
    index of the file made once (`_written`): each requirement had been looked for, and the
    lines before it counted, from the file's start, quadratic in the requirements."""
    ends, written = _written(text)
    start = cursor.get(reqid, 0)
    places = written.get(reqid, [])
    found = bisect.bisect_left(places, start)
    at = places[found] if found < len(places) else text.find(json.dumps(reqid), start)
    if at < 0:
        return 0
    cursor[reqid] = at + 1
    return bisect.bisect_right(ends, at) + 1


#: A requirement's reqid as the export writes it: `"reqid": "LM-012"`.
_REQID = re.compile(r'"reqid"\s*:\s*("(?:[^"\\]|\\.)*")')


@functools.lru_cache(maxsize=1)
def _written(text: str) -> tuple[list[int], dict[str, list[int]]]:
    """The offsets of the export's line ends, and of each reqid's places (in the file's order)."""
    written: dict[str, list[int]] = {}
    for match in _REQID.finditer(text):
        try:
            name = json.loads(match.group(1))
        except ValueError:
            continue
        written.setdefault(name, []).append(match.start())
    return [m.start() for m in re.finditer("\n", text)], written


def _variables(entries: list) -> tuple[Declarations, dict[str, dict[str, Sort | None]], tuple[tuple[str, str], ...]]:
    """The sorts the variables' data types give: the export's (the first typed entry of a name
    decides: FRET lists a variable once per component and once more per Simulink port), each
    component's own (None: the component lists the name untyped), and the Internal variables
    whose assignment is a numeral."""
    typed: dict[str, Sort] = {}  # the declarations, gathered, made once (one by one: quadratic)
    components: dict[str, dict[str, Sort | None]] = {}
    constants: dict[str, str] = {}
    functions: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("variable_name"), str):
            continue
        name = entry["variable_name"].strip()
        if not name:
            continue
        if entry.get("idType") == "Function":
            functions.add(name)
            continue
        kind = entry.get("dataType")
        if isinstance(kind, list):
            kind = kind[0] if kind else ""
        sort = base_sort(str(kind or ""))  # (an empty type: none declared)
        if sort is not None:
            typed.setdefault(name, sort)
        if isinstance(entry.get("component_name"), str):
            own = components.setdefault(entry["component_name"], {})
            if own.get(name) is None:
                own[name] = sort
        assignment = entry.get("assignment")
        if entry.get("idType") == "Internal" and isinstance(assignment, str):
            numeral = _NUMERAL.match(assignment)
            if numeral is not None and name not in constants:
                digits = numeral.group(2)
                if sort == REAL and "." not in digits:
                    digits += ".0"  # a double assigned `1` is the Real 1.0 (`c / 2` divides exactly)
                constants[name] = numeral.group(1) + digits
    variables = Declarations(tuple((n, s) for n, s in typed.items() if n not in functions))
    # FRET's numbers are doubles unless a variable says otherwise
    return Declarations(domain=REAL).merged(variables), components, tuple(sorted(constants.items()))


#: A name as the export's formulas and assignments write one.
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _definitions(
    entries: list, declarations: Declarations, constants: dict[str, str]
) -> tuple[tuple[str, str, bool], ...]:
    """The Internal variables whose assignment is more than a numeral, and the Mode variables
    (their `modeRequirement`, else their assignment; in Lustre, or in nuXmv's syntax as FRET's
    conditions are written), each as its definition in nuXmv's syntax (`syntax.lustre`) with
    the definitions it reads put in, and whether it is a Boolean: FRET's meaning for them,
    which `realize` reads (FRET's realizability analysis computes them as a contract's locals;
    it parses them, `realizability.from_export`); `check` reads them as variables nothing
    constrains, as before. One that Lustre does not read, or that reads itself (`x = 0.0 ->
    pre x + 1.0`), is left out."""
    from ltlwit.logic.syntax.lustre import lustre_to_nuxmv

    kinds = {"Bool": "bool", "Int": "int"}
    sorts = {n: kinds.get(s.name, "real") for n, s in declarations.variables.items()}
    raw: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("idType") not in ("Internal", "Mode"):
            continue
        name = str(entry.get("variable_name") or "").strip()
        text = entry.get("modeRequirement") if entry.get("idType") == "Mode" else None
        text = text if isinstance(text, str) and text.strip() else entry.get("assignment")
        if not name or name in constants or name in raw or not isinstance(text, str) or not text.strip():
            continue
        if entry.get("idType") == "Mode":
            sorts[name] = "bool"
        try:
            raw[name] = lustre_to_nuxmv(text, sorts)[0]
        except ValueError:
            if entry.get("idType") == "Mode":  # a mode requirement written as FRET's conditions are
                raw[name] = f"({text})"
    out: dict[str, str | None] = {}  # None: left out

    def expanded(name: str, within: tuple[str, ...]) -> str | None:
        if name in out:
            return out[name]
        if name in within:
            return None  # it reads itself
        parts = {n: expanded(n, (*within, name)) for n in _uses(raw[name], raw)}
        out[name] = text = _put_in(raw[name], parts) if None not in parts.values() else None
        return text

    return tuple((name, text, sorts.get(name) == "bool") for name in raw if (text := expanded(name, ())) is not None)


def _uses(text: str, names: Mapping[str, str | None]) -> list[str]:
    """The names of `names` that `text` uses, in order."""
    return list(dict.fromkeys(n for n in NAME.findall(text) if n in names))


def _put_in(text: str, definitions: Mapping[str, str | None]) -> str:
    """`text` with each name that `definitions` defines replaced by its definition."""
    return NAME.sub(lambda m: f"({definitions[m.group(0)]})" if m.group(0) in definitions else m.group(0), text)


def _scoped(declarations: Declarations, own: dict[str, Sort | None], formula: str) -> Declarations:
    """The declarations a requirement reads: those of the names its formula uses, as its own
    component lists them where it does (`dot` untyped in the component, a function there,
    though a Simulink port elsewhere is a double), else as the export does."""
    names = set(NAME.findall(formula))
    entries = []
    declared = declarations.variables
    for name in sorted(names):
        sort = own[name] if name in own else declared.get(name)
        if sort is not None:
            entries.append((name, sort))
    return Declarations(tuple(entries), declarations.domain)
