"""A stand-in for Spot's ltlsynt where Spot cannot be installed: its command line (`-f FORMULA`
or `-F FILE`, `--ins=A,B --outs=C,D --aiger`), its output (REALIZABLE and an ASCII AIGER circuit whose symbol
table names the propositions, or UNREALIZABLE) and its exit status (0, 1, 2 for errors), the
answer found by ltlwit's own games. FAKE_LTLSYNT says how it behaves:

    honest    the answer as ltlsynt gives it (the default)
    shuffled  honest, the circuit's inputs and outputs in the reverse order, an unused input dropped,
              its gates numbered with gaps and written last first, M an upper bound (as Spot may)
    liar      REALIZABLE whatever φ, with a controller that writes every output false
    unreal    UNREALIZABLE whatever φ
    hang      no answer, ever
    error     a parse error on stderr, exit status 2
    memory    its address-space limit on stderr, exit status 2

Each run appends its arguments and the formula to the file FAKE_LTLSYNT_LOG names, if any."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time


def main(argv: list[str]) -> int:
    text = argv[argv.index("-f") + 1] if "-f" in argv else open(argv[argv.index("-F") + 1]).read().strip()
    if os.environ.get("FAKE_LTLSYNT_LOG"):
        with open(os.environ["FAKE_LTLSYNT_LOG"], "a") as log:
            log.write(json.dumps({"argv": argv, "formula": text}) + "\n")
    mode = os.environ.get("FAKE_LTLSYNT", "honest")
    if mode == "hang":
        time.sleep(3600)
    if mode == "memory":
        import resource

        print(f"ltlsynt: address space limited to {resource.getrlimit(resource.RLIMIT_AS)[0]} bytes", file=sys.stderr)
        return 2
    if mode == "error":
        print("ltlsynt: syntax error, unexpected closing parenthesis", file=sys.stderr)
        return 2
    if mode == "unreal":
        print("UNREALIZABLE")
        return 1
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
    sys.stdout.write(_scattered(to_aiger(machine)) if mode == "shuffled" else to_aiger(machine))
    return 0


def _scattered(text: str) -> str:
    """The same circuit, its gates' variables spread apart and the gates written in reverse."""
    rows = text.splitlines()
    _, most, n_in, n_latch, n_out, n_and = rows[0].split()
    first = int(n_in) + int(n_latch) + 1  # the first gate's variable

    def lit(x: int) -> int:
        v = x >> 1
        return x if v < first else 2 * (first + 2 * (v - first) + 1) | x & 1

    body = [list(map(int, r.split())) for r in rows[1 : 1 + int(n_in) + int(n_latch) + int(n_out) + int(n_and)]]
    rest = rows[1 + len(body) :]
    ins, latches = body[: int(n_in)], body[int(n_in) : int(n_in) + int(n_latch)]
    outs, ands = (
        body[len(ins) + len(latches) : len(ins) + len(latches) + int(n_out)],
        body[-int(n_and) :] if int(n_and) else [],
    )
    lines = [f"aag {int(most) * 3 + 5} {n_in} {n_latch} {n_out} {n_and}"]
    lines += [" ".join(map(str, r)) for r in ins]
    lines += [f"{r[0]} {lit(r[1])}" for r in latches]
    lines += [str(lit(r[0])) for r in outs]
    lines += [" ".join(str(lit(x)) for x in r) for r in reversed(ands)]
    return "\n".join(lines + rest) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
