"""`ltlwit fmt`: each formula in another syntax, one line per input."""

from __future__ import annotations

import click

from ltlwit.cli.choices import FMT_SYNTAXES
from ltlwit.cli.environment import Environment
from ltlwit.cli.options import emit_all, files_option, inputs, syntax_option
from ltlwit.cli.output import FmtText
from ltlwit.cli.status import ExitStatus
from ltlwit.pipeline.convert import convert_one
from ltlwit.pipeline.parsing import InputParser


@click.command()
@click.argument("formulas", nargs=-1, metavar="[FORMULA]...")
@files_option("Read formulas from FILE, one per line ('-': stdin). Repeatable.")
@click.option(
    "--to",
    "to",
    type=click.Choice(FMT_SYNTAXES),
    default="infix",
    show_default=True,
    help="Output syntax: infix (ltlwit's: Spot's, with the past operators, wX and data atoms such as "
    "x + 1 > y, which Spot's tools do not read), spot (Spot's infix, without those), polish (DeepLTL's; "
    "spaced where Spot would read it otherwise: U a b, not Uab), polish-spaced, lbt. What is written reads "
    "back as the same formula with --syntax auto.",
)
@syntax_option
@click.pass_context
def fmt(ctx: click.Context, formulas: tuple[str, ...], files: tuple[str, ...], to: str, syntax: str) -> ExitStatus:
    """Print each FORMULA in another syntax, one line per input."""
    printer = FmtText(Environment.of(ctx))
    parser = InputParser(syntax)
    return emit_all((convert_one(item, parser, to) for item in inputs(ctx, formulas, files)), printer.emit)
