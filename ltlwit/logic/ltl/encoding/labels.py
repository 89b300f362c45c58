"""Propositional labels of automaton edges and trace steps.

A label is a set of letters (valuations of the relevant APs). The engine combines labels with
the Python operators `&` and `|`, negates with `Labels.neg`, and tests emptiness with
`x == labels.false`, so two representations can serve the same code:

* `TruthTables` — a label over n APs is a 2**n-bit integer, bit v set when valuation v
  (bit i of v = value of AP i) is in the set. Measured on this machine (`python
  bench/engine.py labels`, one `(x & y) | ¬x` round): 80-250 ns up to 12 APs, 340 ns at 14,
  1 µs at 16 (4 µs at 18); dd.cudd costs 270-370 ns at any size, dd.autoref ~4.8 µs, and a
  CUDD manager takes ~10 ms to create (plus ~120 ms to import dd.cudd once). Integers also
  hash in O(1), give `bit_count()` for the cube heuristics and need no C state, so they are
  the default; the ltl35 set (5 APs) and the 10-AP grid never leave them.
* `Bdds` — CUDD BDDs through `dd.cudd` (falling back to `dd.autoref`), used above
  `MAX_TABLE_APS` = 12 APs, past the measured crossover (13-14 APs).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ltlwit.logic.formula import Formula

#: Largest AP count represented by truth tables (2**12 = 4096-bit integers, ~300 ns per op).
MAX_TABLE_APS = 12

Literal = tuple[int, bool]


class Labels:
    """Shared behaviour: translating propositional formulas and picking small cubes."""

    names: tuple[str, ...]
    index: dict[str, int]
    true: Any
    false: Any

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        if len(self.index) != len(self.names):
            raise ValueError("duplicate AP names in a label universe")
        self._memo: dict[Formula, Any] = {}

    # -- representation-specific primitives -------------------------------------------------
    def var(self, i: int, value: bool = True) -> Any:
        raise NotImplementedError

    def neg(self, x: Any) -> Any:
        raise NotImplementedError

    def minterm(self, x: Any) -> tuple[Literal, ...]:
        """One full valuation (all APs) inside the non-empty label x."""
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------------------
    def implies(self, x: Any, y: Any) -> bool:
        return (x & self.neg(y)) == self.false

    def cube(self, lits: Iterable[Literal]) -> Any:
        result = self.true
        for i, value in lits:
            result = result & self.var(i, value)
        return result

    def of(self, formula: Formula) -> Any:
        """The label of a propositional formula; iterative, so deep formulas are fine."""
        memo = self._memo
        hit = memo.get(formula)
        if hit is not None:
            return hit
        stack: list[tuple[Formula, bool]] = [(formula, False)]
        while stack:
            node, ready = stack.pop()
            if node in memo:
                continue
            if not ready:
                if node.temporal:
                    raise ValueError(f"not a propositional formula: {node.op} inside a label")
                stack.append((node, True))
                stack.extend((c, False) for c in node.children if c not in memo)
                continue
            memo[node] = self._combine(node, [memo[c] for c in node.children])
        return memo[formula]

    def _combine(self, node: Formula, kids: list[Any]) -> Any:
        op = node.op
        if op == "ap":
            if node.name not in self.index:
                raise KeyError(node.name)
            return self.var(self.index[node.name])
        if op == "1":
            return self.true
        if op == "0":
            return self.false
        if op == "!":
            return self.neg(kids[0])
        a, b = kids
        if op == "&":
            return a & b
        if op == "|":
            return a | b
        if op == "->":
            return self.neg(a) | b
        if op == "<->":
            return (a & b) | (self.neg(a) & self.neg(b))
        if op == "xor":
            return (a & self.neg(b)) | (self.neg(a) & b)
        raise ValueError(f"operator {op} in a propositional label")

    def small_cube(self, x: Any) -> tuple[Literal, ...]:
        """A prime implicant of the non-empty label x: a cube inside x none of whose literals
        can be dropped. Starts from a minterm and drops literals greedily; subclasses may
        override with something better."""
        lits = list(self.minterm(x))
        return self._drop_literals(lits, x)

    def cube_within(self, x: Any, care: Any) -> tuple[Literal, ...]:
        """A cube meeting the non-empty label x and inside `x | ~care` (outside `care`,
        anything goes), none of whose literals can be dropped."""
        return self._drop_literals(list(self.minterm(x)), x | self.neg(care))

    def primes(self, x: Any, limit: int = 8) -> list[tuple[Literal, ...]]:
        """Prime implicants of x to choose from, smallest first (here: one)."""
        return [self.small_cube(x)]

    def _drop_literals(self, lits: list[Literal], x: Any) -> tuple[Literal, ...]:
        k = 0
        while k < len(lits):
            trial = lits[:k] + lits[k + 1 :]
            if self.implies(self.cube(trial), x):
                lits = trial
            else:
                k += 1
        return tuple(lits)

    def to_formula(self, lits: Iterable[Literal]) -> Formula:
        """The cube as a formula, literals in AP order (`1` for the empty cube)."""
        from ltlwit.logic.assignment import cube

        return cube((self.names[i], v) for i, v in sorted(lits))


class TruthTables(Labels):
    """Labels as 2**n-bit integers (see the module docstring for why)."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(names)
        n = len(self.names)
        width = 1 << n
        self.true = (1 << width) - 1
        self.false = 0
        self._pos = [_pattern(i, n) for i in range(n)]
        self._neg = [self.true ^ p for p in self._pos]

    def var(self, i: int, value: bool = True) -> int:
        return self._pos[i] if value else self._neg[i]

    def neg(self, x: int) -> int:
        return self.true ^ x

    def minterm(self, x: int) -> tuple[Literal, ...]:
        v = (x & -x).bit_length() - 1
        return tuple((i, bool(v >> i & 1)) for i in range(len(self.names)))

    def small_cube(self, x: int) -> tuple[Literal, ...]:
        """Greedy: repeatedly add the literal keeping the largest fraction of the cube inside x
        (ties: the most letters of x kept), then drop redundant literals. Cheap with
        `bit_count`, and usually smaller than dropping literals from an arbitrary minterm."""
        return self._greedy_cube(x, self.true, [])

    def primes(self, x: int, limit: int = 8) -> list[tuple[Literal, ...]]:
        """Up to `limit` distinct prime implicants of x, smallest first: the greedy cube started
        from each literal that keeps letters of x. The witness search tries them in turn, since
        the smallest cube of a label is not always one the whole trace can afford."""
        if x == self.true:
            return [()]
        found: dict[tuple[Literal, ...], None] = {self.small_cube(x): None}
        for i in range(len(self.names)):
            for value in (True, False):
                if len(found) >= limit:
                    break
                start = self.true & self.var(i, value)
                if start & x:
                    found.setdefault(tuple(sorted(self._greedy_cube(x, start, [(i, value)]))), None)
        return sorted(found, key=len)

    def _greedy_cube(self, x: int, cube: int, lits: list[Literal]) -> tuple[Literal, ...]:
        if x == self.true:
            return ()
        outside = self.true ^ x
        used = {i for i, _ in lits}
        lits = list(lits)
        while cube & outside:
            best: tuple[int, int, Literal, int] | None = None
            for i in range(len(self.names)):
                if i in used:
                    continue
                for value in (True, False):
                    c2 = cube & (self._pos[i] if value else self._neg[i])
                    inside = (c2 & x).bit_count()
                    if not inside:
                        continue
                    total = c2.bit_count()
                    # compare inside/total as fractions without floats
                    if (
                        best is None
                        or inside * best[1] > best[0] * total
                        or (inside * best[1] == best[0] * total and inside > best[0])
                    ):
                        best = (inside, total, (i, value), c2)
            assert best is not None, "a non-empty label always has a useful literal"
            lits.append(best[2])
            used.add(best[2][0])
            cube = best[3]
        return self._drop_literals(lits, x)


#: CUDD's first computed-table size, in entries (its default, 262,144, is 8 MB a manager).
_FIRST_CACHE = 1 << 12


class Bdds(Labels):
    """Labels as CUDD BDDs (dd.cudd, or dd.autoref where the C extension is missing)."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(names)
        try:
            from dd import cudd as backend
        except ImportError:  # pragma: no cover - depends on the dd build
            from dd import autoref as backend
        # A small first cache (CUDD grows it where hits pay): the default's 8 MB a manager, times
        # the 256 label universes the checker keeps (`check._LABELS`), held GBs after a
        # requirement set's redundancy questions and their cores (a universe each), until every
        # later question stopped at the memory ceiling.
        self.bdd = backend.BDD(initial_cache_size=_FIRST_CACHE) if backend.__name__ == "dd.cudd" else backend.BDD()
        # No dynamic variable reordering: CUDD sifts inside whatever `&`/`|` crosses its node
        # threshold, one uninterruptible C call that took over 10 s on a 16-AP arbiter (so a
        # solve's deadline could not be honoured), and the whole solve ran >100 s with it versus
        # ~4 s without. Labels here are cube-like over APs in order of appearance.
        self.bdd.configure(reordering=False)
        self._vnames = [f"v{i}" for i in range(len(self.names))]
        if self._vnames:
            self.bdd.declare(*self._vnames)
        self.true = self.bdd.true
        self.false = self.bdd.false
        self._pos = [self.bdd.var(v) for v in self._vnames]
        self._neg = [~p for p in self._pos]

    def var(self, i: int, value: bool = True) -> Any:
        return self._pos[i] if value else self._neg[i]

    def neg(self, x: Any) -> Any:
        return ~x

    def minterm(self, x: Any) -> tuple[Literal, ...]:
        model = self.bdd.pick(x, care_vars=set(self._vnames))
        return tuple((i, bool(model[v])) for i, v in enumerate(self._vnames))

    def small_cube(self, x: Any) -> tuple[Literal, ...]:
        """Drop literals from a path of the BDD (CUDD's pick already omits don't-cares)."""
        model = self.bdd.pick(x)
        lits = [(int(v[1:]), bool(value)) for v, value in sorted(model.items())]
        return self._drop_literals(lits, x)


def _pattern(i: int, n: int) -> int:
    """Truth table of AP i among n: bit v set iff bit i of v is set."""
    block = ((1 << (1 << i)) - 1) << (1 << i)
    width = 1 << (i + 1)
    total = 1 << n
    while width < total:
        block |= block << width
        width <<= 1
    return block


def make_labels(names: Sequence[str]) -> Labels:
    """Truth tables for few APs, BDDs beyond `MAX_TABLE_APS`."""
    if len(names) <= MAX_TABLE_APS:
        return TruthTables(names)
    return Bdds(names)
