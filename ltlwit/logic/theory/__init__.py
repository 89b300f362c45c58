"""The theory layer under the LTL engine: what data atoms mean.

A formula over data (`x + 1 > y`, `mode = on`, `next(x) = x + 1`) is one formula type with
atom leaves (`formula.atom(term)`: op "atom", the `Term` as `term`); this package owns the rest:
- `terms`: terms and atoms (hash-consed), `printing`: their infix;
- `sorts`: Bool, Int, Real and enumerations, declared or inferred (`resolve` -> `Signature`);
- `abstraction`: the formula as an LTL formula over one proposition per atom, which the
  engine decides unchanged;
- `evaluate`: atoms decided exactly on concrete states, no solver (every witness's check);
- `smt`: atoms as z3 terms instant by instant (imported only when a data formula is solved).
The searches that put these together live beside the engine's (`ltl.data`).
"""
