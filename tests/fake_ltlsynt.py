"""A stand-in for Spot's ltlsynt where Spot cannot be installed: its command line (`-f FORMULA
--ins=A,B --outs=C,D --aiger`), its output (REALIZABLE and an ASCII AIGER circuit whose symbol
table names the propositions, or UNREALIZABLE) and its exit status (0, 1, 2 for errors), the
answer found by ltlwit's own games. FAKE_LTLSYNT says how it behaves:

    honest    the answer as ltlsynt gives it (the default)
    shuffled  honest, the circuit's inputs and outputs in the reverse order, one unused input dropped
    liar      REALIZABLE whatever φ, with a controller that writes every output false
    unreal    UNREALIZABLE whatever φ
    hang      no answer, ever
    error     a parse error on stderr, exit status 2

Each run appends its arguments to the file FAKE_LTLSYNT_LOG names, if any."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time


def main(argv: list[str]) -> int:
    if os.environ.get("FAKE_LTLSYNT_LOG"):
        with open(os.environ["FAKE_LTLSYNT_LOG"], "a") as log:
            log.write(json.dumps(argv) + "\n")
    mode = os.environ.get("FAKE_LTLSYNT", "honest")
    if mode == "hang":
        time.sleep(3600)
    if mode == "error":
        print("ltlsynt: syntax error, unexpected closing parenthesis", file=sys.stderr)
        return 2
    if mode == "unreal":
        print("UNREALIZABLE")
        return 1
    text = argv[argv.index("-f") + 1]
    given = dict(a.split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    ins = [a for a in given.get("--ins", "").split(",") if a]
    outs = [a for a in given.get("--outs", "").split(",") if a]

    from ltlwit.api import parse
    from ltlwit.logic.formula import TRUE, And, Not, ap
    from ltlwit.logic.ltl.games import Realizable, Unrealizable, realize
    from ltlwit.logic.ltl.games.aiger import to_aiger
    from ltlwit.logic.ltl.games.machine import Machine, Transition

    formula = parse(text, "spot")
    aps = formula.aps()
    ins = ins or [a for a in aps if a not in outs]
    outs = outs or [a for a in aps if a not in ins]
    if mode == "liar":
        silent = And(*(Not(ap(o)) for o in outs)) if outs else TRUE
        machine = Machine("system", tuple(ins), tuple(outs), False, ((Transition(TRUE, silent, 0),),))
    else:
        verdict = realize(formula, ins, outs)
        if isinstance(verdict, Unrealizable):
            print("UNREALIZABLE")
            return 1
        if not isinstance(verdict, Realizable) or not isinstance(verdict.controller, Machine):
            print("ltlsynt: gave up", file=sys.stderr)
            return 2
        machine = verdict.controller
    if mode == "shuffled":
        reads = tuple(reversed(machine.reads))
        used = {a for state in machine.states for t in state for a in t.guard.aps()}
        reads = tuple(a for a in reads if a in used) or reads  # an input no guard reads: left out
        machine = dataclasses.replace(machine, reads=reads, writes=tuple(reversed(machine.writes)))
    print("REALIZABLE")
    sys.stdout.write(to_aiger(machine))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
