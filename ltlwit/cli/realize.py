"""`ltlwit realize`: can a system make each specification hold against every environment? Each
verdict is printed with its proof, checked by the engine (`ltlwit.api.realize`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import click

from ltlwit.cli.choices import REALIZE_FORMATS
from ltlwit.cli.environment import Environment
from ltlwit.cli.options import (
    data_options,
    declarations_of,
    engine_option_for,
    files_option,
    quiet_option,
    semantics_of,
    semantics_options,
    syntax_option,
    timeout_option,
)
from ltlwit.cli.output import Printer
from ltlwit.cli.status import ExitStatus, worst

if TYPE_CHECKING:
    from ltlwit.logic.ltl.games.aiger import Circuit
    from ltlwit.logic.ltl.games.machine import Machine

from ltlwit.logic.result import Unknown


def _names(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...] | None:
    """`--inputs a,b --inputs c`: the names in order; None where the option is not given."""
    if not value:
        return None
    return tuple(n.strip() for v in value for n in v.split(",") if n.strip())


@click.command()
@click.argument("formulas", nargs=-1, metavar="[FORMULA...]")
@files_option(
    "A TLSF specification (SYNTCOMP's format, basic or parameterised: its inputs, outputs and semantics come "
    "from the file), a FRET export (*.json: the variables' Input and Output kinds, per connected component, as "
    "FRET asks), a spec file (*.spec, *.toml: its requirements per component, its inputs named by its 'input' "
    "lines or --inputs), or formulas one per line (blank lines and # comments skipped). Repeatable."
)
@click.option(
    "--inputs",
    multiple=True,
    callback=_names,
    metavar="A,B",
    help="The environment's propositions (comma-separated, repeatable); every other one is an output.",
)
@click.option(
    "--outputs",
    multiple=True,
    callback=_names,
    metavar="C,D",
    help="The system's propositions; given, every proposition must be named an input or an output.",
)
@click.option(
    "--mealy/--moore",
    "mealy",
    default=None,
    help="Mealy (the default, as at SYNTCOMP): the system sees each instant's inputs before writing its outputs; "
    "Moore: it writes first. A TLSF file's SEMANTICS unless given.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(REALIZE_FORMATS),
    default="text",
    show_default=True,
    help="text: the verdict, the strategy as a table and a play; json: JSON Lines, one object per "
    "specification; dot: the strategy as a Graphviz digraph; aiger: SYNTCOMP's output, the verdict's word "
    "on a line, then a realizable specification's controller as an ASCII AIGER circuit (checked again as "
    "a circuit before it is printed).",
)
@click.option(
    "--diagnose",
    is_flag=True,
    help="For the unrealizable components of a FRET export or spec file: every minimal conflict (a minimal "
    "unrealizable set of requirements) and minimal correction set, within --timeout more per component.",
)
@engine_option_for(
    "auto (= builtin): the engine's games; spot: Spot's ltlsynt, where it is on PATH, for comparison: its controller "
    "is checked like the games' (future-time LTL: formulas and TLSF files), and its UNREALIZABLE, which comes "
    "without a counter-strategy, is the games' to prove."
)
@syntax_option
@semantics_options
@data_options
@quiet_option
@timeout_option(
    "Time per specification, the games and the engine's check of the strategy together; past it UNKNOWN.", 60.0
)
@click.pass_context
def realize(
    ctx: click.Context,
    formulas: tuple[str, ...],
    files: tuple[str, ...],
    inputs: tuple[str, ...] | None,
    outputs: tuple[str, ...] | None,
    mealy: bool | None,
    fmt: str,
    diagnose: bool,
    engine: str,
    syntax: str,
    timeout: float,
    **options: Any,
) -> ExitStatus:
    """Whether a system that writes the outputs can make each FORMULA (or specification of a FILE) hold
    whatever the environment does on the inputs.

    REALIZABLE comes with a controller (a Mealy or Moore machine), UNREALIZABLE with a counter-strategy
    (the environment's moves that defeat every system), each checked by the engine before it is printed
    (the closed loop of strategy and specification is model-checked), and with a play: the strategy
    against a player that keeps every letter false. UNKNOWN says why (time, or what is not decided yet:
    future operators inside past ones; data atoms where an input is read). Over data (integers, reals:
    --var, --domain) a specification that reads no input is decided: the system alone writes the whole
    run, and its controller writes a run the engine checked. Under --semantics finite (LTLf synthesis; a TLSF file with SEMANTICS Finite)
    the system also decides when the trace ends, through one more output, alive, that its controller
    writes: the trace is the instants where alive holds.

    Exit status 0 when every specification is realizable, 1 when one is unrealizable or unknown, 2 for
    errors (a FORMULA or FILE that does not parse: the others are still answered)."""
    from ltlwit.api import parse
    from ltlwit.logic.syntax.tlsf import parse_tlsf
    from ltlwit.logic.theory.reading import names

    env = Environment.of(ctx)
    printer = Printer(env)
    semantics = semantics_of(ctx, options)
    declarations = declarations_of(ctx, options)
    if not formulas and not files:
        raise click.UsageError("give a FORMULA or a FILE (-F)")
    if engine == "spot":
        from ltlwit.logic.ltl.games import ltlsynt

        if not ltlsynt.available():
            raise click.UsageError(f"--engine spot needs Spot's {ltlsynt.PROGRAM} on PATH, and it is not there")
    status = ExitStatus.SUCCESS
    jobs: list[tuple[str, str | None, int | None, Any, tuple[str, ...], tuple[str, ...] | None, bool, str]] = []
    plays: list[tuple[str, Any]] = []  # --format vcd: one document for every play
    default_moore = mealy is False
    named: list[Any] = []  # the formulas --inputs and --outputs name the players of
    for k, text in enumerate(formulas, 1):
        try:
            named.append(parse(text, syntax))
            jobs.append((text, f"<arg {k}>", None, named[-1], inputs or (), outputs, default_moore, semantics))
        except ValueError as error:
            printer.unread(f"<arg {k}>", f"{text}: {error}", error)
            status = ExitStatus.ERROR
    for name in files:
        try:
            content = click.open_file(name, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as error:
            printer.message(name, f"cannot read: {getattr(error, 'strerror', None) or error}")
            status = ExitStatus.ERROR
            continue
        if engine == "spot" and name.endswith((".json", ".spec", ".toml")):
            printer.message(name, "--engine spot answers formulas and TLSF files; requirements files: --engine builtin")
            status = ExitStatus.ERROR
            continue
        if name.endswith(".json"):
            status = worst(status, _export(printer, fmt, timeout, plays, name, content, diagnose))
            continue
        if name.endswith((".spec", ".toml")):
            found = _spec_file(printer, timeout, name, syntax, semantics, inputs, outputs, diagnose)
            if isinstance(found, ExitStatus):
                status = worst(status, found)
            else:
                status = worst(status, _export(printer, fmt, timeout, plays, name, None, diagnose, found))
            continue
        if name.endswith(".tlsf") or _looks_tlsf(content):
            try:
                spec = parse_tlsf(content)
            except ValueError as error:
                printer.unread(f"{name}:{getattr(error, 'line', 1)}", str(error), error)
                status = ExitStatus.ERROR
                continue
            moore = spec.moore if mealy is None else not mealy
            finite = "finite" if spec.finite else semantics
            formula = spec.formula()
            _unmentioned(printer, name, formula.aps(), spec.inputs, spec.outputs)
            jobs.append((Path(name).name, name, None, formula, spec.inputs, spec.outputs, moore, finite))
            continue
        for number, line in enumerate(content.splitlines(), 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            try:
                named.append(parse(text, syntax))
                jobs.append((text, name, number, named[-1], inputs or (), outputs, default_moore, semantics))
            except ValueError as error:
                printer.unread(f"{name}:{number}", str(error), error)
                status = ExitStatus.ERROR
    if named:  # --inputs and --outputs name the propositions of these formulas
        read = frozenset().union(*(names(f) for f in named))
        _unmentioned(printer, "", read, inputs or (), outputs or ())
    for job in jobs:
        status = worst(status, _answer(printer, fmt, timeout, plays, declarations, engine, *job))
    if fmt == "vcd":
        from ltlwit.logic.waveform import vcd

        printer.data(vcd(plays, comments=[f"{label}: {trace}" for label, trace in plays]).rstrip("\n"))
    return status


def _answer(
    printer: Printer,
    fmt: str,
    timeout: float,
    plays: list[tuple[str, Any]],
    declarations: Any,
    engine: str,
    text: str,
    file: str | None,
    line: int | None,
    formula: Any,
    inputs: Sequence[str],
    outputs: Sequence[str] | None,
    moore: bool,
    semantics: str,
) -> ExitStatus:
    from ltlwit.api import realize as realize_api
    from ltlwit.logic.ltl.games import Realizable, Unrealizable, players

    where = f"{file}:{line}" if line is not None else file or "<arg>"
    try:
        ins, outs = players(formula, inputs, outputs)
    except ValueError as error:
        printer.message(where, f"{text}: {error}")
        return ExitStatus.ERROR
    started = time.perf_counter()
    try:
        verdict = realize_api(
            formula,
            ins,
            outs,
            moore=moore,
            timeout=timeout,
            semantics=semantics,
            declarations=declarations,
            engine=engine,
        )
    except ValueError as error:  # the sorts of its data: ambiguous, or clashing with --var
        printer.message(where, f"{text}: {error}")
        return ExitStatus.ERROR
    ms = round(1000 * (time.perf_counter() - started))
    machine: Machine | Circuit | None = None
    play = reason = None
    if isinstance(verdict, Realizable):
        word, machine, play = "REALIZABLE", verdict.controller, str(verdict.play)
    elif isinstance(verdict, Unrealizable):
        word, machine, play = "UNREALIZABLE", verdict.counter_strategy, str(verdict.play)
    else:
        word, reason = "UNKNOWN", verdict.reason
    if fmt == "json":
        row = {
            "input": text,
            "file": None if file is None or file.startswith("<arg") else file,
            "line": line,
            "status": word.lower(),
            "kind": "moore" if moore else "mealy",
            "engine": "spot" if engine == "spot" else "builtin",
            "semantics": semantics,
            "inputs": list(ins),
            "outputs": list(outs),
            "controller": machine.to_dict() if machine is not None and machine.player == "system" else None,
            "counter_strategy": machine.to_dict() if machine is not None and machine.player != "system" else None,
            "play": play,
            "bound": getattr(verdict, "bound", None),
            "verified": machine is not None,
            "reason": reason,
            "time_ms": ms,
        }
        printer.data(json.dumps(row))
    elif fmt == "dot":
        if machine is not None:
            printer.data(machine.to_dot().rstrip("\n"))
        else:
            printer.message(where, f"{text}: UNKNOWN: {reason}")
    elif fmt == "vcd":
        if isinstance(verdict, (Realizable, Unrealizable)):
            plays.append((f"{word.lower()} {text}", verdict.play))
        else:
            printer.message(where, f"{text}: UNKNOWN: {reason}")
    elif fmt == "aiger":
        printer.data(word)
        if machine is not None and machine.player == "system":
            circuit = _circuit(machine, formula, semantics, moore)
            if circuit is None:
                printer.message(where, f"{text}: {NO_CIRCUIT}")
                return ExitStatus.ERROR
            printer.data(circuit.rstrip("\n"))
        elif machine is None:
            printer.message(where, f"{text}: UNKNOWN: {reason}")
    else:
        printer.data(f"{word}  {text}")
        if machine is None:
            printer.data(f"  reason: {reason}")
        else:
            for row_text in _table(machine):
                printer.data(f"  {row_text}")
            printer.data(f"  play: {play}")
    return ExitStatus.SUCCESS if isinstance(verdict, Realizable) else ExitStatus.NEGATIVE


def _spec_file(
    printer: Printer,
    timeout: float,
    name: str,
    syntax: str,
    semantics: str,
    inputs: tuple[str, ...] | None,
    outputs: tuple[str, ...] | None,
    diagnose: bool,
) -> Any:
    """A spec file's requirements' realizability, component by component, as a FRET export's
    (`specs.realizability.Report`), or the error status after saying why not."""
    from ltlwit.pipeline.options import SolveOptions
    from ltlwit.specs.reading import read_file
    from ltlwit.specs.realizability import from_specs, realize_all

    if semantics != "infinite":
        printer.message(name, "spec files are realized under infinite semantics only, for now")
        return ExitStatus.ERROR
    try:
        parsed = read_file(name, SolveOptions(syntax=syntax))
        export = from_specs(parsed, inputs or (), outputs)
    except ValueError as error:  # its message says where: FILE:LINE
        printer.message("", str(error))
        return ExitStatus.ERROR
    first = parsed[0].spec if parsed else None
    declared_in = inputs or (first.inputs if first else ())
    declared_out = outputs or (first.outputs if first and first.outputs else ())
    _unmentioned(printer, name, {*export.inputs, *export.outputs}, declared_in, declared_out)
    return realize_all(export, timeout, diagnose)


def _unmentioned(
    printer: Printer, where: str, mentioned: Any, inputs: Sequence[str], outputs: Sequence[str] | None
) -> None:
    """A warning for each input or output named that no requirement mentions (a misspelling,
    or a requirement left out): the games leave it out, so nothing depends on it."""
    if printer.env.quiet:
        return
    for role, names in (("input", inputs), ("output", outputs or ())):
        for n in dict.fromkeys(names):
            if n not in mentioned:
                printer.message(where, f"warning: {role} {n} is named, but no requirement mentions it")


def _export(
    printer: Printer,
    fmt: str,
    timeout: float,
    plays: list[tuple[str, Any]],
    name: str,
    content: str | None,
    diagnose: bool,
    found: Any = None,
) -> ExitStatus:
    """A FRET export (or a spec file's `found` report), component by component
    (`ltlwit.specs.realizability`)."""
    from ltlwit.api import realize_export
    from ltlwit.logic.ltl.games import Realizable, Unrealizable
    from ltlwit.specs.realizability import shown as _shown

    try:
        found = found or realize_export(content or "", timeout=timeout, diagnose=diagnose, name=name)
    except ValueError as error:  # its message says where: FILE:LINE
        printer.message("", str(error))
        return ExitStatus.ERROR
    texts = {r.name: r.text for r in found.requirements}
    failed = False  # a controller --format aiger cannot print
    for c in found.components:
        verdict = c.verdict
        word = (
            "REALIZABLE"
            if isinstance(verdict, Realizable)
            else "UNREALIZABLE"
            if isinstance(verdict, Unrealizable)
            else "UNKNOWN"
        )
        machine = (
            verdict.controller
            if isinstance(verdict, Realizable)
            else verdict.counter_strategy
            if isinstance(verdict, Unrealizable)
            else None
        )
        play = str(verdict.play) if isinstance(verdict, (Realizable, Unrealizable)) else None
        shown = _shown(verdict.play, found.names) if isinstance(verdict, (Realizable, Unrealizable)) else None
        if fmt == "json":
            row = {
                "file": name,
                "component": c.name,
                "requirements": list(c.requirements),
                "outputs": list(c.outputs),
                "status": word.lower(),
                "controller": machine.to_dict() if isinstance(verdict, Realizable) and machine else None,
                "counter_strategy": machine.to_dict() if isinstance(verdict, Unrealizable) and machine else None,
                "play": play,
                "conflicts": [list(k) for k in c.conflicts] if diagnose else None,
                "corrections": [list(k) for k in c.corrections] if diagnose else None,
                "conflicts_complete": c.complete if diagnose else None,
                "reason": getattr(verdict, "reason", None),
            }
            printer.data(json.dumps(row))
            continue
        if fmt == "dot":
            if machine is not None:
                printer.data(machine.to_dot().rstrip("\n"))
            continue
        if fmt == "vcd":
            if shown is not None:
                plays.append((f"{word.lower()} {c.name}", shown))
            continue
        if fmt == "aiger":
            printer.data(f"{word} {c.name}")
            if isinstance(verdict, Realizable) and c.specification is not None:
                circuit = _circuit(verdict.controller, c.specification, "infinite", False)
                if circuit is None:
                    printer.message(name, f"{c.name}: {NO_CIRCUIT}")
                    failed = True
                else:
                    printer.data(circuit.rstrip("\n"))
            continue
        printer.data(f"{word:<12}  {c.name}  {', '.join(c.requirements)}  (outputs: {', '.join(c.outputs) or 'none'})")
        if isinstance(verdict, Unknown):
            printer.data(f"  reason: {verdict.reason}")
        if isinstance(verdict, Unrealizable):
            for k, core in enumerate(c.conflicts, 1):
                printer.data(f"  conflict {k}: {', '.join(core)}")
                for req in core:
                    printer.data(f"    {req}: {texts.get(req, '')}".rstrip())
            if c.corrections:
                fixes = "; ".join("{" + ", ".join(k) + "}" for k in c.corrections)
                printer.data(f"  minimal corrections (drop one set and the rest is realizable): {fixes}")
            if diagnose and not c.complete:
                printer.data("  (not every conflict: --timeout ran out)")
            printer.data(f"  play: {shown}")
    bad = sum(not isinstance(c.verdict, Realizable) for c in found.components)
    if fmt == "text":  # (the other formats' documents have no room for one)
        summary = (
            "REALIZABLE"
            if not bad
            else "UNREALIZABLE"
            if any(isinstance(c.verdict, Unrealizable) for c in found.components)
            else "UNKNOWN"
        )
        printer.data(
            f"{summary:<12}  {name}: {len(found.components) - bad} of {len(found.components)} components realizable"
        )
    return ExitStatus.ERROR if failed else ExitStatus.NEGATIVE if bad else ExitStatus.SUCCESS


#: Why `--format aiger` prints no circuit for a controller over data.
NO_CIRCUIT = (
    "its controller writes data values (integers, reals): no AIGER circuit (--format text, json or dot show it)"
)


def _circuit(machine: Machine | Circuit, formula: Any, semantics: str, moore: bool) -> str | None:
    """The controller as AIGER, read back as a circuit and checked against the specification
    as the game played it (`StrategyRejected` if the circuit were not the controller); a
    controller that is a circuit already was checked as this very text. None for one that
    writes data values: bits cannot say them."""
    from ltlwit.logic.ltl.games import StrategyRejected, as_played, verify
    from ltlwit.logic.ltl.games.aiger import from_aiger, to_aiger
    from ltlwit.logic.ltl.games.machine import Machine

    if not isinstance(machine, Machine):
        return machine.aiger
    if any(t.write.data for ts in machine.states for t in ts):
        return None
    text = to_aiger(machine)
    if verify(as_played(formula, semantics), from_aiger(text)) is not True:
        raise StrategyRejected("the controller's AIGER circuit failed its check")
    return text


def _table(machine: Machine | Circuit) -> list[str]:
    """The strategy for people: one line per transition, `state  guard / write -> target`
    (Moore: the state's letter on a line of its own); a circuit, too large to list, in a line."""
    from ltlwit.logic.ltl.games.machine import Machine

    what = "controller" if machine.player == "system" else "counter-strategy"
    kind = "Moore" if machine.moore else "Mealy"
    reads = ", ".join(machine.reads) or "nothing"
    writes = ", ".join(machine.writes) or "nothing"
    if not isinstance(machine, Machine):
        return [
            f"{what} (Mealy circuit: {machine.latches} latches, {machine.gates} AND gates; reads {reads}; "
            f"writes {writes}; too many states to list: --format aiger prints it)"
        ]
    states = f"{machine.size} state" + ("s" if machine.size != 1 else "")
    out = [f"{what} ({kind}, {states}; reads {reads}; writes {writes}):"]
    rows = []
    for s, transitions in enumerate(machine.states):
        if machine.moore:
            out_of = [(f"s{s}", f"writes {transitions[0].write}", "")]
            rows.extend(out_of)
            rows.extend((f"s{s}", f"on {t.guard}", f"-> s{t.target}") for t in transitions)
        else:
            rows.extend((f"s{s}", f"on {t.guard} / {t.write}", f"-> s{t.target}") for t in transitions)
    width = max(len(r[1]) for r in rows)
    out.extend(f"  {a}  {b.ljust(width)}  {c}".rstrip() for a, b, c in rows)
    return out


def _looks_tlsf(content: str) -> bool:
    import re

    return re.search(r"\bMAIN\s*\{", content) is not None
