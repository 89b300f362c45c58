"""A solve's options are declared once, in `SolveOptions`; the Python API's `Solver` keywords
and `ltlwit solve`'s flags are checked against its fields here: each field reaches both front
ends (or is said to be internal), under the same name or a spelling listed here, with the same
default. A field added to one place only, or a default changed in one, fails."""

from __future__ import annotations

import dataclasses
import inspect

import click

from ltlwit.api import Solver
from ltlwit.cli import cli
from ltlwit.pipeline.options import SolveOptions

#: Fields no front end sets: the pipeline fills them (a spec file's assumptions, a batch's end).
INTERNAL = {"until", "assume"}
#: Fields a front end spells otherwise: the API's keywords, the CLI's parameters.
API_SPELLING = {"declarations": ("declarations", "variables", "domain")}
CLI_SPELLING = {
    "fallback": ("no_fallback",),
    "all": ("all_witnesses",),
    "core": ("core", "fine_core"),
    "semantics": ("semantics", "finite"),
    "declarations": ("variables", "domain"),
}
#: Defaults a front end writes in its own terms (None: the field's own default).
API_DEFAULT = {"validators": "builtin", "max_memory": None}
CLI_DEFAULT = {"validators": "builtin"}


def _fields() -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(SolveOptions) if f.name not in INTERNAL]


def _default(f: dataclasses.Field) -> object:
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]


def test_every_option_reaches_the_api_with_its_default() -> None:
    keywords = inspect.signature(Solver.__init__).parameters
    for f in _fields():
        names = API_SPELLING.get(f.name, (f.name,))
        assert all(n in keywords for n in names), (f.name, names)
        if f.name in API_SPELLING:
            continue
        expected = API_DEFAULT.get(f.name, _default(f))
        assert keywords[f.name].default == expected, f.name
    assert Solver().options == SolveOptions()  # and the keywords' defaults make the options' own


def test_every_option_reaches_the_cli_with_its_default() -> None:
    solve = cli.get_command(click.Context(cli), "solve")
    assert solve is not None
    params = {p.name: p for p in solve.params}
    for f in _fields():
        names = CLI_SPELLING.get(f.name, (f.name,))
        assert all(n in params for n in names), (f.name, names)
        if f.name in CLI_SPELLING:
            continue
        param = params[f.name]
        if isinstance(param, click.Option) and param.is_flag:
            assert _default(f) is False, f.name  # a flag's absence is the field's default
            continue
        default = param.default
        if default is None or repr(default).endswith("UNSET"):
            continue  # unset on the command line: the field's own default applies
        assert default == CLI_DEFAULT.get(f.name, _default(f)), f.name
