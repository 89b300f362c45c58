"""Pure-Python logic layer: formulas, syntaxes, traces, assignments, solving. Never imports torch.

The names of the syntaxes and logics live here, in the package every logic module loads anyway,
so that the CLI's choice lists (`ltlwit.cli.choices`) can name them without loading the syntax
layer's parsers (`ltlwit --help` stays instant).
"""

#: Formula syntaxes `parse_formula` reads; `auto` detects which one a text is written in;
#: `nuxmv` is BLACK's and nuXmv's lexing (operators whole words: `GFa` is a name), which `auto`
#: takes for a text with data atoms, and a FRET export's formulas always are.
SYNTAXES = ("auto", "spot", "polish", "polish-spaced", "lbt", "nuxmv")
#: Syntaxes formulas, traces and assignments print in (`Formula.to_str`, `Trace.to_str`, ...).
OUTPUT_SYNTAXES = ("spot", "polish", "polish-spaced", "lbt")
#: What `ltlwit fmt` writes: those, and ltlwit's own infix (`infix`: Spot's, with the past
#: operators, the weak next `wX` and data atoms, which Spot's tools do not read).
FMT_SYNTAXES = ("infix", *OUTPUT_SYNTAXES)
#: `ltl`: lasso traces witness a formula; `prop`: partial assignments do (propositional only);
#: `auto`: `prop` for a formula without temporal operators, else `ltl`.
LOGICS = ("auto", "ltl", "prop")
#: `infinite`: traces go on forever (lassos); `finite`: LTLf, non-empty finite traces.
SEMANTICS = ("infinite", "finite")
#: The sorts `--domain` gives data variables nothing else gives one (BLACK's `-d`).
DOMAINS = ("Int", "Real")
