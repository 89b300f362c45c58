"""The built-in satisfiability procedure: a portfolio, cheapest first, every witness verified.

1. `simplify` (NNF + basic rewrites): `0` is unsat at once.
2. Propositional formulas (after rewriting) go to the propositional SAT solver
   (`ltlwit.logic.prop`): its subset-minimal assignment σ gives the witness `cycle{σ}`.
3. Small future-only formulas (few APs, small after rewriting: the random formulas of the
   training sets and the 10-AP grid) first get the label-based engine, within a few thousand states: the
   constant-word shortcut (`witness.constant_word`), then the on-the-fly automaton and
   Couvreur's emptiness check, a run into the first accepting SCC becoming a small lasso
   (`witness`). It answers such formulas in well under a millisecond, with Spot-like minimal
   witnesses.
4. Everything else, past operators included, and whatever step 3 leaves open, first gets
   the explicit search's constant-word check (`Search.constant_word`: does some σ^ω satisfy
   the formula? C of the formula, one SAT call, before any other encoding; future-only
   formulas on infinite words), then three SAT-based procedures over the X-normal form
   (where past operators are state, `xnf`), so big propositional parts and hundreds of APs
   never become term lists or truth tables: the bounded lasso search (`bounded`, BMC as
   BLACK does it: short lassos), k-liveness with IC3 (`liveness`, as nuXmv does it: proves unsatisfiability by an inductive
   invariant) and the explicit search (`explore`, aalta's algorithm: proves unsatisfiability
   by exhaustion, finds long lassos), in rounds of doubling work. The witness is shrunk by
   `witness.minimise`.
Every witness is re-checked with `holds` before it is returned. A budget gives `Unknown`: its
deadline is read in every stage (rewriting, search, minimisation, the final check) and by a
watchdog that interrupts a long SAT call; so is its memory ceiling; its state budget bounds the
searches.
"""

from __future__ import annotations

import time

from ltlwit.logic import stage
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.budget import Budget, HardLimit, Limit, OutOfBudget, OutOfTime, Watchdog
from ltlwit.logic.formula import FALSE, Formula, collector_paused
from ltlwit.logic.ltl.check import Prover, holds, labels_for
from ltlwit.logic.ltl.encoding.expand import Translator
from ltlwit.logic.ltl.encoding.labels import MAX_TABLE_APS
from ltlwit.logic.ltl.encoding.rewrite import simplify
from ltlwit.logic.ltl.searches.emptiness import accepting_scc
from ltlwit.logic.ltl.witness import best_word, constant_word, lasso, minimise
from ltlwit.logic.result import Result, Sat, Unknown, Unsat, WitnessRejected
from ltlwit.logic.trace import Trace

#: Step 3 is tried on formulas of at most this many APs and nodes after rewriting...
SMALL_APS = MAX_TABLE_APS
SMALL_SIZE = 120
#: ...for at most this many automaton states and this share of the time budget.
SMALL_STATES = 4000
SMALL_SHARE = 0.1
#: Step 4's first round: work for each search, in unit propagations (~10 ms here; the explicit
#: search's SAT calls also count the Python around them, `explore.CALL_WORK`).
FIRST_WORK = 50_000
#: k-liveness's time per round, as a share of what the two searches took in it, divided by
#: (1 + K)² (K: its bound): each K it refutes is a run that meets every eventuality K + 1 times,
#: evidence that the formula is satisfiable. Its proofs on BLACK's suite come at K ≤ 1 (the
#: lifts: 0.2 s, phltl_6_5: 2 s), while on the satisfiable counters and amba specifications,
#: where the explicit search needs 3-10 s, it reaches K = 3 within a second. Time, not work:
#: the searches' units cost from 0.03 to 8 µs each; and as it only ever answers unsat, the
#: witnesses still do not depend on the machine's speed.
PROOF_SHARE = 1.0
#: The witness minimiser's time, at most, as a share of what the search took to find the witness:
#: a 90-step lasso over 80 APs (the 40-client arbiter) found in 1.2 s is not worth 2 s of
#: dropping literals, one pass over the whole lasso per literal tried.
MINIMISE_OF_SEARCH = 0.5


def solve_builtin(formula: Formula, budget: Budget | None = None, end: str | None = None) -> Result:
    """The portfolio (module docstring), with Python's cyclic garbage collector paused
    (`collector_paused`): the searches free what they build by reference counting
    (`Search.close`). `end`: an AP whose first false instant
    ends every model (the finite-trace translation's alive proposition, `finite`), which
    k-liveness then asks about directly."""
    with collector_paused():
        return _portfolio(formula, budget, end)


def _portfolio(formula: Formula, budget: Budget | None, end: str | None = None) -> Result:
    limit = Limit(budget)
    try:
        stage.enter("rewriting")
        prepared = simplify(formula, limit)
        if prepared is FALSE:
            return Unsat("rewriting")
        if not prepared.temporal:
            stage.enter("propositional SAT")
            return _propositional(formula, prepared, budget)
        # the size first: a multi-MB formula's `aps()` is a walk of a quarter of a second
        if prepared.size <= SMALL_SIZE and len(prepared.aps()) <= SMALL_APS and not prepared.past:
            stage.enter("small-formula automaton")
            result = _small(formula, prepared, limit)
            if result is not None:
                return result
        return _search(formula, prepared, limit, end)
    except OutOfBudget as e:
        # the state budget bounds the searches only; any stage may run out of time: never a
        # verdict, only Unknown
        return Unknown(str(e))


def _small(formula: Formula, prepared: Formula, limit: Limit) -> Result | None:
    """Step 3 within its own share of the budget; None when that share ran out first."""
    share = limit.sub(SMALL_SHARE * limit.remaining())
    share.states = SMALL_STATES if limit.states is None else min(SMALL_STATES, limit.states)
    L = labels_for(formula.aps())
    try:
        prover = Prover(formula, L, share)
        trace = constant_word(prover, prepared)
        if trace is None:
            tr = Translator(prepared, L, limit=share)
            scc, explored = accepting_scc(tr.initial, tr.edges, tr.all_marks, share)
            if scc is None:
                return Unsat("emptiness")
            prefix, cycle = best_word(tr, scc, explored, share)
            trace = lasso(prover, prefix, cycle)
    except HardLimit as e:
        if (
            isinstance(e, OutOfTime)
            and share.deadline is not None
            and limit.deadline is not None
            and share.deadline < limit.deadline
        ):
            return None  # only this step's share of the time ran out: the search takes over
        raise  # the solve's own deadline or memory ceiling: Unknown
    except OutOfBudget:
        return None
    return _verified(formula, trace, limit.with_states(None))


def _search(formula: Formula, prepared: Formula, limit: Limit, end: str | None = None) -> Result:
    """Step 4: the bounded lasso search and the explicit search in rounds of doubling work, the
    same for both, counted in unit propagations (for the explicit search, plus a charge per SAT
    call for the Python around it: `explore.CALL_WORK`), so that the witness found does not
    depend on the machine's speed; each round is followed by k-liveness for a share of its time
    (`PROOF_SHARE`). The bounded search finds short lassos, k-liveness proves unsatisfiability
    by invariants, the explicit search by exhaustion, and it finds long lassos. (Counting the
    explicit search in states gave it 10-20 times the bounded search's time on big
    specifications, whose states cost milliseconds each, and its lassos there are thousands of
    steps long where the bounded search's probes find ones of 15-30 steps.)

    The searches and pysat load here, when the first formula of a process gets this far: most
    end in steps 1-3, and a cold `ltlwit solve` of one of those should not pay for them. The
    import (60 ms on the development machine, where pysat also loads the py-aiger it finds;
    20 ms without it) counts against that formula's deadline: the watchdog, started after
    it, stops the searches at once if the deadline passed meanwhile."""
    from ltlwit.logic.ltl.encoding.xnf import step
    from ltlwit.logic.ltl.searches.bounded import Unroller, shortest_loop
    from ltlwit.logic.ltl.searches.explore import Search, Unsatisfiable
    from ltlwit.logic.ltl.searches.liveness import Liveness

    started = time.perf_counter()
    if end is None and not prepared.past:
        trace = _constant_word(prepared, limit)
        if trace is not None:
            return _minimised(formula, trace, limit, started)
    search = Search(prepared, limit)
    encoding = step(prepared, search.x, limit=limit)
    ending = -encoding.aps[end] if end in encoding.aps else None
    lassos = Unroller(encoding, limit, end=ending, shortest=1 if ending is not None else shortest_loop(prepared, limit))
    proof = Liveness(encoding, limit, end=ending)
    work = FIRST_WORK
    stopped: OutOfBudget | None = None

    def interrupt() -> None:
        search.x.interrupt()
        lassos.interrupt()
        proof.interrupt()

    try:
        with Watchdog(limit, interrupt):
            while True:
                stage.enter(f"search round {(work // FIRST_WORK).bit_length()}")  # work doubles each round
                began = time.perf_counter()
                trace = lassos.advance(work)
                if trace is None:
                    trace = search.advance(work)
                if trace is not None:
                    break
                stage.enter("k-liveness")
                if proof.advance(PROOF_SHARE * (time.perf_counter() - began) / (1 + proof.k) ** 2):
                    return Unsat("k-liveness")
                work *= 2
    except Unsatisfiable:
        return Unsat("search")
    except OutOfBudget as e:
        # its traceback holds the searches' frames, and through them every explored state:
        # raised again afresh below, so they are freed now, not at a cyclic collection
        stopped = type(e)(*e.args)
    finally:
        search.close()
        lassos.close()
        proof.close()
    if stopped is not None:
        # so is this frame, which the exception's traceback keeps (and the exception keeps the
        # traceback, through `stopped`: a cycle): the searches are let go first, and freed by
        # reference counting here, within the deadline's reserve, not by the next cyclic
        # collection after the answer (the 19-bit counter's 780,000 objects: 1.1 s past it)
        del search, lassos, proof, encoding
        raise stopped
    assert trace is not None  # the loop ends with one, or the search returns or raises
    return _minimised(formula, trace, limit, started)


def _constant_word(prepared: Formula, limit: Limit) -> Trace | None:
    """`Search.constant_word` of a search of its own, asked before anything else is encoded: it
    needs C of the formula only, one SAT call, where the closure's E encoding, the step's
    copies and the proofs' solvers come to seconds on a multi-megabyte specification (3.7 s of
    the 13 s to a 2.7 MB tdllite specification's witness). Its own solver, not the searches':
    the step that the bounded search and k-liveness copy is a snapshot of the explicit search's
    encoding, and C's clauses and variables in it cost the bounded search several amba
    specifications (spec_cl_12: 0.7 s, UNKNOWN with them). When it fails, the explicit search
    asks the same of its first state, as it did before this was asked first."""
    from ltlwit.logic.ltl.searches.explore import Search

    probe = Search(prepared, limit, encode=False)
    try:
        with Watchdog(limit, probe.x.interrupt):
            trace = probe.constant_word()
    except OutOfBudget as e:
        stopped = type(e)(*e.args)  # afresh, as in `_search`
    else:
        return trace
    finally:
        probe.close()
    del probe  # as in `_search`
    raise stopped


def _minimised(formula: Formula, trace: Trace, limit: Limit, started: float) -> Result:
    stage.enter("minimising the witness")
    trace = minimise(formula, trace, limit, seconds=MINIMISE_OF_SEARCH * (time.perf_counter() - started))
    return _verified(formula, trace, limit.with_states(None))  # the deadline, not the state budget


def _propositional(formula: Formula, prepared: Formula, budget: Budget | None) -> Result:
    """The SAT solver's subset-minimal assignment as `cycle{cube}` (Spot's simplified word for a
    propositional formula has this shape too)."""
    from ltlwit.logic.prop import solve_prop

    result = solve_prop(prepared, budget)
    if not isinstance(result, Sat):
        return result
    assignment = result.witness
    assert isinstance(assignment, Assignment)  # what the SAT solver finds
    return _verified(formula, Trace((), (assignment.to_formula(),)))


def _verified(formula: Formula, trace: Trace, limit: Limit | None = None) -> Result:
    """The last line of defence: a witness is returned only when the checker accepts it."""
    stage.enter("checking the witness")
    if holds(formula, trace, limit):
        return Sat(trace)
    raise WitnessRejected.of(formula, trace)
