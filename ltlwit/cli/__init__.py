"""The `ltlwit` command: click commands only — options in, answers out, no algorithms.

`group` is the `ltlwit` group (each command's module loads when that command runs, so `ltlwit
--help` stays instant and never imports torch) and maps every way a run ends onto `status`'s
exit statuses; `choices` holds every option's choice list and `options` what the commands
share; one module per command (`solve`, `verify`, `fmt`, `check`, `completion`, `data`,
`train`, `eval`, `models`), built on the library (`ltlwit.api`, `ltlwit.train`,
`ltlwit.eval`); `output` and `progress` write to the `environment`'s streams; `manpage`
generates man/ltlwit.1 from the commands themselves.
"""

import time

#: When this process began running ltlwit: `--timeout` counts start-up for the first input.
STARTED = time.perf_counter()

from ltlwit.cli.group import cli, main  # noqa: E402 - after the clock reading above

__all__ = ["STARTED", "cli", "main"]
