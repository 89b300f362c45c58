"""The man page, generated from the click command tree: `python -m ltlwit.cli.manpage > man/ltlwit.1`.

Every command, subcommand and option comes from the same objects `--help` prints, so the page
cannot describe options that do not exist; the sections click does not know (exit status,
environment, spec files, vacuity, examples) are written here. The output is deterministic (no
date), so tests/test_man.py can fail when the committed page drifts from the code.
"""

from __future__ import annotations

import sys
from typing import Iterator

import click

from ltlwit import __version__
from ltlwit.cli.group import cli as ltlwit_group

EXIT_STATUS = [
    (
        "0",
        "Every input was answered positively: a witness found, every verified witness holds, every "
        "spec expectation met.",
    ),
    (
        "1",
        "Some input has no witness (UNSAT or UNKNOWN), some witness does not hold, or some spec check "
        "failed (including vacuity findings and undecided vacuity questions).",
    ),
    (
        "2",
        "An error: a bad option, an unreadable file, a line that does not parse, a model that could not "
        "be loaded. The other inputs are still processed; 2 outranks 1.",
    ),
    ("130", "Interrupted (Ctrl-C), after printing every answer finished before it, in input order."),
    ("141", "Standard output was closed early (for example by head)."),
    ("143", "Terminated (SIGTERM); with --jobs, after printing every answer finished before it."),
]

ENVIRONMENT = [
    (
        "LTLWIT_HOME",
        "Where user models (models/) and training checkpoints (checkpoints/) live; default: "
        "the platform's user data directory (~/.local/share/ltlwit on Linux).",
    ),
    ("LTLWIT_MODEL", "The default of --model for solve and check (auto, si, dual, both or none)."),
    ("LTLWIT_MAX_MEMORY", "The default of --max-memory, in MiB (0: no ceiling)."),
    ("LTLWIT_MAX_LINE_MIB", "Input lines longer than this many MiB are reported and skipped (default 16)."),
    (
        "LTLWIT_STATUS_AFTER",
        "Seconds without an answer after which solve and check, on a terminal, show a "
        "live status line on stderr (elapsed time, stage, how to bound it); default 2.",
    ),
    (
        "LTLWIT_TRACEBACK",
        "When set to 1, an internal error's message is followed by its traceback (as with --traceback).",
    ),
    ("NO_COLOR", "When set to a non-empty value, no colour or other escape codes are printed."),
]

SPEC_FILES = [
    "A spec file for ltlwit check holds one formula per line, optionally named and with an expectation:",
    """mutex:    G !(grant1 & grant2)
response: G(req1 -> F grant1)
never:    G !(grant1 & grant2) & F(grant1 & grant2)   # expect: unsat
follows:  G !(grant1 & grant2) -> !F(grant1 & grant2)   # expect: valid
both:     F(grant1 & grant2)                          # expect: forbidden""",
    "Blank lines and # comments are skipped. The expectation is sat (the default: a requirement), unsat, or "
    "valid (every trace satisfies the formula), each judged on its own; or allowed, forbidden or implied, a "
    "scenario judged against the file's requirements together: allowed passes with a trace of the "
    "requirements and the scenario, forbidden when no such trace exists (the requirements that rule it out "
    "named), implied when every trace of the requirements satisfies it (those that imply it named). It is "
    "written exactly # expect: VALUE; notes go in comments of their own "
    "(# expect: unsat  # REQ-12), and anything else that looks like an expectation is an error, never "
    "silently sat. A file named *.toml holds [[spec]] tables "
    "with the keys name, formula (required), expect, and semantics (infinite or finite: that spec's own, "
    "over --semantics).",
    "Where a spec holds: at its first instant (the default), at every instant (# holds: always, checked as "
    "G(spec)) or at the last instant of a finite trace (# holds: finally); a line holds always sets it for "
    'the whole file; in TOML, holds = "always" per [[spec]] or at the top.',
    "Data variables' sorts, for formulas over data: lines var speed: Real, var x, y: Int, "
    'var mode: {off, on} and domain Int in a text file; a [variables] table (speed = "Real") and a '
    'top-level domain = "Int" in TOML. They hold for the whole file, over --var and --domain.',
    "nuXmv's text reads too: LTLSPEC NAME r1 := G(x > 3); is a spec named r1, INVARSPEC one that holds always, "
    "-- starts a comment as # does, and VAR or IVAR sections (x : integer; mode : {off, on};) declare variables "
    "as var lines do.",
    "A FRET requirements export (*.json with requirements) is read as a spec file: each requirement a spec "
    "named by its reqid, its semantics.ptExpanded checked at every instant of finite traces, the variables' "
    "data types as sorts, Internal variables assigned a numeral as constants; conflicts are named with their "
    "structured-English text.",
]

DATA = [
    "Atoms may compare data: x + 1 > y, mode = on, next(x) = x + 1, absReal(a - b) <= 1.0, f(n) = c, as BLACK, "
    "nuXmv and FRET write them. Terms: variables, integer and decimal numerals, + - * / mod, unary -, "
    "function calls (absReal, absInt, preReal, preInt, min, max built in; other functions and predicates "
    "uninterpreted and rigid), and BLACK's next, wnext, prev, wprev: an atom with a strong next (prev) is "
    "false at the last (first) instant, one with only weak ones true there. Variables are Bool, Int, Real or "
    "enumerations: --var NAME:SORT declares one, an undeclared one takes the sort of what it is compared with "
    "(a decimal numeral makes it Real) or --domain; otherwise its sort is an error. Propositions compare as in "
    "nuXmv: p = q is p <-> q. nuXmv's LTLSPEC [NAME n :=] f; and INVARSPEC f (G f), -- comments and "
    "case c1 : e1; TRUE : e2; esac (the first branch whose condition holds; the last condition TRUE) are read. "
    "Formulas over data are "
    "decided with the SMT solver z3 under the engine's step encoding; UNSAT only with a proof, else UNKNOWN. "
    "Witnesses give every value at every instant (x = 0; x = 1) and are checked by an exact evaluator that "
    "does not use z3. fmt --to infix prints such formulas; verify --log checks them against a log of states "
    "(CSV or JSON Lines), its columns' sorts inferred from their values where nothing declares them (integer "
    "numerals Int, decimals Real, true/false Bool, words an enumeration of them), each message naming the "
    "log's line as FILE:LINE (header included; CR, LF and CRLF each end a line) and the instant, from 0.",
]

SEMANTICS = [
    "By default traces are infinite and witnesses are lassos, a; cycle{b}. With --semantics finite (or "
    "--finite) on solve, verify and check, traces are finite and non-empty (LTLf, as in BLACK's -f and "
    "aalta's finite mode): witnesses are finite traces, a; b; c, and F must be fulfilled before the end "
    "while G holds on a trace that ends. A lasso under finite semantics, or a finite trace under infinite "
    "ones, is an error, never reinterpreted. The next operators are spelled as BLACK does; Spot's LTLf "
    "spelling of the strong next is read too:",
    """spelling   infinite traces   finite traces
X f        next              strong next: there is a next instant, f holds there
X[!] f     next              strong next (Spot's LTLf spelling)
wX f       next              weak next: if there is a next instant, f holds there""",
    "Spot's LTLf reading of a plain X is the weak next: write wX for it here. Every other operator keeps "
    "its meaning, the past operators too (Y f: there is a previous instant and f held there; Z f: the "
    "first instant, or f held at the previous one; O, H, S, T: once, historically, since, triggered). The "
    "neural models write lassos: under finite semantics the engine answers alone.",
]

VACUITY = [
    "With --vacuity, for each spec file: let C be the conjunction of its specs expected to be satisfiable. "
    "If C is unsatisfiable the file fails (the specs contradict each other). Otherwise, for each occurrence o "
    "of an atomic proposition in such a spec s, let v be the constant that makes s strongest when it replaces "
    "o: false for an occurrence of positive polarity, true for negative polarity (under an odd number of "
    "negations, counting the left side of ->), both for an occurrence under <-> or xor. The occurrence is "
    "vacuous when C allows exactly the same traces with s replaced by s[o := v], that is, when C implies "
    "s[o := v] (for mixed polarity also the converse).",
    "Example: with G(req -> F grant) and G !req, the occurrence of grant is vacuous: no request ever comes, "
    "so what the first spec says about grants never matters.",
    "Each question goes to the engine with the --timeout budget; an unanswered one is reported as undecided "
    "and fails the check, as does a vacuous occurrence.",
]

EXAMPLES = [
    ('ltlwit solve "G(req -> F grant) & F req"', "A lasso witness in Spot's word syntax."),
    ("ltlwit solve -F specs.txt --format json | jq .source", "Which answers came from the models."),
    ("ltlwit solve -F table.csv/-2", "Column 2 of a CSV file with a header line."),
    ("ltlwit solve -j auto -F big.txt > answers.txt", "One worker process per core; answers in input order."),
    (
        "ltlwit solve --format json --shard 2/8 -F big.txt > shard-2.jsonl",
        "The third of eight shards (one per machine); `paste -d '\\n' shard-*.jsonl | sed '/^$/d'` merges them "
        "in input order (list the files in shard order).",
    ),
    ("ltlwit check --vacuity --junit report.xml requirements.spec", "A CI gate with a JUnit report."),
    ('ltlwit verify "G(req -> F grant)" "req; cycle{!grant}"', "Prints FAILS."),
    (
        'ltlwit solve --finite "G(req -> X grant) & F req"',
        "A finite witness, req; !req & grant: a request at the last instant would need a next one.",
    ),
    (
        'ltlwit solve --finite --domain Int "x = 0 & G(wnext(x) = x + 2) & F(x = 6)"',
        "A witness with values: x = 0; x = 2; x = 4; x = 6.",
    ),
    ("ltlwit check --consistency requirements.json", "A FRET export: conflicting requirements named by reqid."),
    (
        "ltlwit verify --log run.csv -F requirements.spec",
        "Each requirement against a log; where one is first violated.",
    ),
    ("source <(ltlwit completion bash)", "Tab completion in the current bash session."),
]


def escape(text: str) -> str:
    """roff text: backslashes and hyphens escaped, no line starting with a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in text.split("\n"))


def _paragraphs(text: str) -> Iterator[str]:
    for block in click.unstyle(text or "").split("\n\n"):
        block = " ".join(line.strip() for line in block.strip().splitlines())
        if block and block != "\b":
            yield escape(block.replace("\b", "").strip())


def _options(command: click.Command, ctx: click.Context) -> Iterator[str]:
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option) or (param.name == "help" and ctx.parent is not None):
            continue  # arguments are in the usage line; --help once, at the top
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        yield ".TP"
        yield f"\\fB{escape(names)}\\fR"
        yield " ".join(_paragraphs(help_text)) or "\\&"


def _commands(group: click.Group, ctx: click.Context, path: str) -> Iterator[str]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        sub_ctx = click.Context(command, info_name=name, parent=ctx, **command.context_settings)
        usage = " ".join(command.collect_usage_pieces(sub_ctx))
        yield f'.SS "{escape(f"{path} {name} {usage}".strip())}"'
        for i, paragraph in enumerate(_paragraphs(command.help or "")):
            yield ".PP" if i else ""
            yield paragraph
        if isinstance(command, click.Group):
            yield from _commands(command, sub_ctx, f"{path} {name}")
        else:
            yield from _options(command, sub_ctx)


def _blocks(parts: list[str]) -> Iterator[str]:
    """Paragraphs; a part with line breaks is an indented literal block."""
    for i, part in enumerate(parts):
        if "\n" in part:
            yield from (".PP", ".RS", ".nf", escape(part), ".fi", ".RE")
        else:
            yield from ([".PP"] if i else []) + [escape(part)]


def render(cli: click.Group | None = None) -> str:
    cli = cli or ltlwit_group
    ctx = click.Context(cli, info_name="ltlwit", **cli.context_settings)
    summary = (cli.help or "").strip().splitlines()[0].rstrip(".")
    lines = [
        f'.TH LTLWIT 1 "" "ltlwit {escape(__version__)}" "User Commands"',
        ".SH NAME",
        f"ltlwit \\- {escape(summary[0].lower() + summary[1:])}",
        ".SH SYNOPSIS",
        "\\fBltlwit\\fR [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]...",
        ".SH DESCRIPTION",
    ]
    for i, paragraph in enumerate(_paragraphs(cli.help or "")):
        lines += [".PP"] if i else []
        lines.append(paragraph)
    lines += [".SH OPTIONS", *_options(cli, ctx), ".SH COMMANDS"]
    lines += [line for line in _commands(cli, ctx, "ltlwit") if line != ""]
    lines += [".SH SEMANTICS", *_blocks(SEMANTICS), ".SH DATA", *_blocks(DATA)]
    lines += [".SH SPEC FILES", *_blocks(SPEC_FILES), ".SH VACUITY", *_blocks(VACUITY), ".SH EXIT STATUS"]
    for code, text in EXIT_STATUS:
        lines += [".TP", f"\\fB{code}\\fR", escape(text)]
    lines.append(".SH ENVIRONMENT")
    for name, text in ENVIRONMENT:
        lines += [".TP", f"\\fB{name}\\fR", escape(text)]
    lines.append(".SH EXAMPLES")
    for command, text in EXAMPLES:
        lines += [".TP", f"\\fB{escape(command)}\\fR", escape(text)]
    lines += [".SH SEE ALSO", "\\fBltlfilt\\fR(1), \\fBltl2tgba\\fR(1) (Spot)"]
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.write(render())


if __name__ == "__main__":
    main()
