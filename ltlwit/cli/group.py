"""The `ltlwit` group: which commands exist, where each lives, and how every run ends.

Each command's module is imported only when that command runs (or its help or completion is
asked for), so `ltlwit --help` and `ltlwit <TAB>` import no command, no solver and no torch:
the group lists the commands from `COMMANDS`, whose one-line summaries are the ones the
commands show. Every way a run can end maps onto `ExitStatus`, in and out of click's
standalone mode; a bug outside the per-input error handling is one line on stderr (and its
traceback with `--traceback` or LTLWIT_TRACEBACK=1), exit status 2.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click
from click.shell_completion import CompletionItem

from ltlwit import __version__
from ltlwit.cli.environment import Environment, OutputClosed, OutputFailed
from ltlwit.cli.status import ExitStatus

#: name -> (module, attribute, one-line summary) of each command.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "solve": ("ltlwit.cli.solve", "solve", "Find a verified witness for each formula, or prove there is none."),
    "verify": ("ltlwit.cli.verify", "verify", "Check that a witness satisfies a formula."),
    "fmt": ("ltlwit.cli.fmt", "fmt", "Print formulas in another syntax."),
    "check": ("ltlwit.cli.check", "check", "Check spec files against their expectations (a CI gate)."),
    "realize": (
        "ltlwit.cli.realize",
        "realize",
        "Decide whether a system can make each specification hold against every environment.",
    ),
    "similar": ("ltlwit.cli.similar", "similar", "Find the specs nearest to each, with their relation decided."),
    "embed": ("ltlwit.cli.embed", "embed", "Print a vector (semantic fingerprint) per formula."),
    "equiv": ("ltlwit.cli.equiv", "equiv", "Print formulas a trained model writes, each proved equivalent."),
    "completion": ("ltlwit.cli.completion", "completion", "Print the tab-completion script for a shell."),
    "data": ("ltlwit.cli.data", "data", "Make and inspect training data sets."),
    "train": ("ltlwit.cli.train", "train", "Train a model and register it for solve and eval."),
    "eval": ("ltlwit.cli.eval", "eval_", "Measure a model's accuracy on a data set."),
    "experiment": (
        "ltlwit.cli.experiment",
        "experiment",
        "Train and evaluate architectures x seeds: the papers' tables.",
    ),
    "models": ("ltlwit.cli.models", "models", "List and locate the trained models."),
}


class LtlwitGroup(click.Group):
    """A group whose commands are loaded on demand from `COMMANDS`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute, summary = COMMANDS[name]
        command = getattr(importlib.import_module(module), attribute)
        command.short_help = summary
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][2]) for name in self.list_commands(ctx)])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        names = [
            CompletionItem(name, help=COMMANDS[name][2])
            for name in self.list_commands(ctx)
            if name.startswith(incomplete)
        ]
        return names + click.Command.shell_complete(self, ctx, incomplete)

    def main(  # type: ignore[override]  # click's main, returning the exit status it is given
        self,
        args: list[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        started = extra.pop("started", None)
        env = extra.get("obj")
        if not isinstance(env, Environment):
            env = extra["obj"] = Environment.from_system(started=started)
        try:
            rv = super().main(args, prog_name or "ltlwit", complete_var, standalone_mode=False, **extra)
            code = int(rv) if rv is not None else ExitStatus.SUCCESS
        except click.ClickException as exc:  # usage errors and click's other errors alike
            exc.show()
            code = ExitStatus.ERROR
        except (click.Abort, KeyboardInterrupt):
            code = ExitStatus.INTERRUPTED
        except (OutputClosed, BrokenPipeError):  # the latter from writers outside output.Printer (rich)
            _silence_stdout()
            code = ExitStatus.BROKEN_PIPE
        except OutputFailed as exc:
            _silence_stdout()
            click.echo(f"ltlwit: {exc}", err=True)
            code = ExitStatus.ERROR
        except OSError as exc:  # the system failed us elsewhere (e.g. rich writing to a full disk)
            _silence_stdout()
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"ltlwit: {where}{exc.strerror or exc}", err=True)
            code = ExitStatus.ERROR
        except SystemExit as exc:
            if os.environ.get(complete_var or "_LTLWIT_COMPLETE"):
                # Shell completion (`ltlwit completion SHELL`) answers and exits by itself.
                code = exc.code if isinstance(exc.code, int) else ExitStatus.SUCCESS
            else:
                # Outside standalone mode click exits by itself only when its own output (help,
                # version) hit EPIPE; our commands never call sys.exit.
                _silence_stdout()
                code = ExitStatus.BROKEN_PIPE
        except Exception as exc:  # noqa: BLE001 - a bug: one line (and the traceback if asked), not a crash
            if isinstance(exc, ModuleNotFoundError) and exc.name == "torch":  # not a bug: the extra is missing
                from ltlwit.neural import TORCH_MISSING

                click.echo(f"ltlwit: {_command_of(args)}{TORCH_MISSING}", err=True)
            else:
                click.echo(f"ltlwit: internal error (please report it): {type(exc).__name__}: {exc}", err=True)
                if env.traceback:
                    import traceback

                    click.echo("".join(traceback.format_exception(exc)).rstrip("\n"), err=True)
                else:
                    click.echo("ltlwit: run it again with --traceback (or LTLWIT_TRACEBACK=1) to see where", err=True)
            code = ExitStatus.ERROR
        if standalone_mode:
            sys.exit(code)
        return code


def _command_of(args: list[str] | None) -> str:
    """`train ` for `ltlwit train ...`: the command a message is about (empty if unknown)."""
    words = sys.argv[1:] if args is None else args
    name = next((w for w in words if w in COMMANDS), None)
    return f"{name} " if name else ""


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot raise EPIPE again
    (Python would print "Exception ignored ... BrokenPipeError" at shutdown)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file descriptor (tests)
        pass


@click.group("ltlwit", cls=LtlwitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="ltlwit", message="%(prog)s %(version)s")
@click.option(
    "--traceback",
    "show_traceback",
    is_flag=True,
    help="After an internal error's one-line message, show its traceback (for bug reports; also LTLWIT_TRACEBACK=1).",
)
@click.pass_context
def cli(ctx: click.Context, show_traceback: bool) -> None:
    """Satisfying traces (witnesses) for LTL and propositional formulas.

    Formulas in Spot's infix syntax, DeepLTL's Polish notation or LBT, from arguments, files
    (-F FILE, '-' for stdin) or piped stdin; one formula per line, blank lines and '#'
    comments skipped. Exit status: 0 all answered positively, 1 some unsat/unknown or failing
    witness, 2 some error (the other inputs are still processed).
    """
    if not isinstance(ctx.obj, Environment):
        ctx.obj = Environment.from_system()
    if show_traceback:
        ctx.obj.traceback = True


def main() -> None:
    """Console-script entry point: the first input's clock starts with the process, and the
    process ends as soon as its output is flushed, without freeing its objects one by one:
    after the answer on a 2 MB formula that teardown took 1.2 s, which a caller waiting for the
    process (a CI step, a `--timeout` it relies on) would pay for nothing."""
    from ltlwit.cli import STARTED

    env = Environment.from_system(started=STARTED)  # held here until `os._exit` (`Environment.kept`)
    code = cli.main(prog_name="ltlwit", obj=env, standalone_mode=False)
    if "multiprocessing" in sys.modules and sys.modules["multiprocessing"].active_children():
        sys.exit(code)  # child processes left (a training run's data workers): the normal exit reaps them
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # the reader went away, or the stream is closed
            pass
    os._exit(int(code))
