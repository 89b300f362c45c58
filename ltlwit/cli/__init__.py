"""The `ltlwit` command: click commands only — options in, answers out, no algorithms.

`group` is the `ltlwit` group (each command's module loads when that command runs, so `ltlwit
--help` stays instant and never imports torch) and maps every way a run ends onto `status`'s
exit statuses; `choices` holds every option's choice list and `options` what the commands
share; one module per command (`solve`, `verify`, `fmt`, `check`, `completion`, `data`,
`train`, `eval`, `models`), built on the library (`ltlwit.api`, `ltlwit.train`,
`ltlwit.eval`); `output` and `progress` write to the `environment`'s streams; `manpage`
generates man/ltlwit.1 from the commands themselves.
"""

import _signal  # the builtin under `signal`, which imports enum: slower than a Ctrl-C may be
import time

#: When this process began running ltlwit: `--timeout` counts start-up for the first input.
STARTED = time.perf_counter()


def _interrupted_starting(signum: int, frame: object) -> None:
    """Ctrl-C while the command loads: exit 130 as an interrupted run does, not a traceback
    from whichever import it fell in (SystemExit prints none)."""
    raise SystemExit(130)


_handled = _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler  # not one ignored (nohup, &)
if _handled:
    _signal.signal(_signal.SIGINT, _interrupted_starting)
from ltlwit.cli.group import cli, main  # noqa: E402 - after the clock reading and the handler above

if _handled:
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)

__all__ = ["STARTED", "cli", "main"]
