"""Formula preparation: negation normal form plus Spot-like basic rewrites, in one pass.

`simplify(f)` returns an equivalent formula in NNF (negations only on APs) where the rules
below hold everywhere: every node is built by a smart constructor that applies its operator's
rules and re-enters the constructors for whatever a rule builds, so the result is a fixpoint
(no rule applies to any node). `<->`, `xor`, `W` and `M` stay native: expanding them eagerly
doubles the formula at every nesting level. Negation of those is their dual (`xor`/`<->`,
`M`/`W`), so NNF needs no expansion either.

Everything is iterative over the formula DAG and memoised per (node, polarity), so deep
formulas (thousands of nested X) do not hit Python's recursion limit.

Rules (each an equivalence; `a`, `b` arbitrary):
constants: X1=1 X0=0 F1=1 G0=0 ..., a U 1=1, 0 U b=b, 1 U b=Fb, a R 0=0, 0 R b=Gb, 1 R b=b,
a W 0=Ga, 1 M b=b, b M 1... ; idempotence: FFa=Fa, GGa=Ga, a U a=a;
F(a U b)=Fb, G(a R b)=Gb, F(a M b)=F(a&b), G(a W b)=G(a|b), a U Fb=Fb, a R Gb=Gb;
a U (a U b)=a U b, (a U b) U b=a U b (and duals, W, M);
past: Y0=0 Z1=1 O1=1 H0=0 OOa=Oa HHa=Ha O(a S b)=Ob H(a T b)=Hb, a S 1=1, 0 S b=b, 1 S b=Ob,
a S Ob=Ob, a S (a S b)=a S b (and duals); `Y 1` and `Z 0` stay: not constants at the first instant;
Xa U Xb=X(a U b) (and R, W, M); suffix-invariant GFa, FGa absorb X, F, G;
n-ary & and |: flattening, constants, duplicates, complementary literals, absorption
(a & (a | b) = a), Ga & Gb=G(a&b), Xa & Xb=X(a&b), FGa & FGb=FG(a&b), and duals
(Fa | Fb=F(a|b), GFa | GFb=GF(a|b)).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Iterable, TypeVar

from ltlwit.logic.budget import paced
from ltlwit.logic.formula import FALSE, TRUE, Formula, Not

if TYPE_CHECKING:
    from ltlwit.logic.budget import Limit

T = TypeVar("T")

#: The results so far, per polarity: `_MEMO[neg][node]` is the simplified NNF of `node` (of
#: `!node` where neg). Two tables, not one keyed by pairs: a pair's hash is a Python-level call.
_MEMO: tuple[dict[Formula, Formula], dict[Formula, Formula]] = ({}, {})
#: The memo keeps formulas alive; it is cleared past this many entries (streams stay bounded).
_MEMO_LIMIT = 20_000


def clear_memo() -> None:
    """Forget every result (`ltlwit.logic.ltl.clear_caches`)."""
    for table in _MEMO:
        table.clear()


#: The running `simplify`'s limit, per thread, for the n-ary builds (`_mk_nary`) of more than
#: `BIG_NARY` operands: one build of a 70,000-conjunct root took 0.7 s between two of
#: `_run`'s reads of the deadline, and tdllite answers came that late.
_RUNNING = threading.local()
BIG_NARY = 4096


def simplify(f: Formula, limit: "Limit | None" = None) -> Formula:
    """Equivalent NNF formula with the basic rewrites applied to a fixpoint. `limit`: a solve's
    budget, whose deadline is read every 1024 operands built and in each big n-ary build (`OutOfTime`;
    the memo keeps only complete entries, so an interrupted run leaves it valid)."""
    if len(_MEMO[0]) + len(_MEMO[1]) > _MEMO_LIMIT:  # only here: nested runs (negate) rely on the memo
        clear_memo()
    outer = getattr(_RUNNING, "limit", None)
    _RUNNING.limit = limit
    try:
        return _run(f, False, limit)
    finally:
        _RUNNING.limit = outer


def _check_big(operands: list[Formula]) -> None:
    """Read the running simplify's deadline before a build of many operands."""
    if len(operands) > BIG_NARY:
        limit = getattr(_RUNNING, "limit", None)
        if limit is not None:
            limit.check_time()


def _paced(operands: list[T]) -> Iterable[T]:
    """`operands`, with the running simplify's deadline and memory read every 4,096 of them
    where they are more than `BIG_NARY` (a multi-MB specification's root has 100,000s, and
    each pass of `_mk_nary` over them took a tenth of a second)."""
    if len(operands) <= BIG_NARY:
        return operands
    limit = getattr(_RUNNING, "limit", None)
    return paced(operands, limit.check_time if limit is not None else None)


def negate(f: Formula) -> Formula:
    """Simplified NNF of `!f`."""
    return _run(f, True)


def _run(root: Formula, neg: bool, limit: "Limit | None" = None) -> Formula:
    memos = _MEMO
    hit = memos[neg].get(root)
    if hit is not None:
        return hit
    # (node, polarity, its dependencies once listed): a node is listed, then built after them
    stack: list[tuple[Formula, bool, list[tuple[Formula, bool]] | None]] = [(root, neg, None)]
    done, due = 0, 1024  # operands listed and built, and when the deadline is read next
    while stack:
        if limit is not None and done >= due:  # a build is linear in its operands: 2,638 stacked
            limit.check_time()  # `O[<=3]` make 1,900 n-ary nodes of about 2,600 each
            due = done + 1024
        node, n, deps = stack.pop()
        memo = memos[n]
        if node in memo:
            continue
        if deps is None:
            deps = _dependencies(node, n)
            done += len(deps)
            waiting = [(c, p, None) for c, p in _paced(deps) if c not in memos[p]]
            if waiting:
                stack.append((node, n, deps))
                stack.extend(waiting)
                continue
        memo[node] = _build(node, n, [memos[p][c] for c, p in _paced(deps)])
        done += 1 + len(deps)
    return memos[neg][root]


def _dependencies(node: Formula, neg: bool) -> list[tuple[Formula, bool]]:
    """(child, polarity) pairs whose results `_build` combines. A chain of one connective
    (`a & b & c ...`, parsed as nested binary nodes) is one n-ary node: building it level by
    level would flatten the whole chain again at every level, quadratic in its length. Each
    operand once, each shared link of the chain walked once (`a | a` is a): walked as a tree,
    a chain that repeats its links (stacked `O[<=3]` beside data's guards) doubles with each."""
    op = node.op
    if op not in ("&", "|"):
        return list(zip(node.children, _child_polarities(op, neg)))
    out: dict[Formula, None] = {}
    seen: set[Formula] = set()
    stack = [node]
    limit = getattr(_RUNNING, "limit", None)
    while stack:
        g = stack.pop()
        if g.op != op:
            out[g] = None
        elif g not in seen:
            seen.add(g)
            stack.extend(reversed(g.children))
            if limit is not None and not len(seen) & 4095:
                limit.check_time()
    return [(g, neg) for g in out]


def _child_polarities(op: str, neg: bool) -> tuple[bool, ...]:
    if op in ("1", "0", "ap"):
        return ()
    if op == "!":
        return (not neg,)
    if op in ("X", "F", "G", "Y", "Z", "O", "H"):
        return (neg,)
    if op == "->":
        return (not neg, neg)
    if op in ("<->", "xor"):
        return (False, False)
    return (neg, neg)  # & | U R W M


_DUAL = {
    "&": "|",
    "|": "&",
    "F": "G",
    "G": "F",
    "U": "R",
    "R": "U",
    "W": "M",
    "M": "W",
    "<->": "xor",
    "xor": "<->",
    "X": "X",
    "Y": "Z",
    "Z": "Y",
    "O": "H",
    "H": "O",
    "S": "T",
    "T": "S",
}


def _build(node: Formula, neg: bool, kids: list[Formula]) -> Formula:
    op = node.op
    if op == "ap":
        return Not(node) if neg else node
    if op == "1":
        return FALSE if neg else TRUE
    if op == "0":
        return TRUE if neg else FALSE
    if op == "!":
        return kids[0]
    if op == "->":
        return mk_and(kids) if neg else mk_or(kids)
    if neg:
        op = _DUAL[op]
    return _MAKERS[op](*kids) if op not in ("&", "|") else _MAKERS[op](kids)


# -- unary ------------------------------------------------------------------------------------


def _suffix_invariant(f: Formula) -> bool:
    """GFa and FGa: true at one position iff true at every position."""
    return f.op in ("G", "F") and f.children[0].op == ("F" if f.op == "G" else "G")


def mk_X(a: Formula) -> Formula:  # noqa: N802
    if a.is_constant or _suffix_invariant(a):
        return a
    return Formula("X", (a,))


def mk_F(a: Formula) -> Formula:  # noqa: N802
    if a.is_constant or a.op == "F" or _suffix_invariant(a):
        return a
    if a.op == "U":
        return mk_F(a.children[1])
    if a.op == "M":
        return mk_F(mk_and(list(a.children)))
    return Formula("F", (a,))


def mk_G(a: Formula) -> Formula:  # noqa: N802
    if a.is_constant or a.op == "G" or _suffix_invariant(a):
        return a
    if a.op == "R":
        return mk_G(a.children[1])
    if a.op == "W":
        return mk_G(mk_or(list(a.children)))
    return Formula("G", (a,))


# -- past ------------------------------------------------------------------------------------
# The mirror images of the future rules, where the past has them: a past operator looks back
# over finitely many instants, so `Y` is not `X` (`Y 1` is false at the first instant, `Z 0`
# true there) and stays.


def mk_Y(a: Formula) -> Formula:  # noqa: N802
    return a if a is FALSE else Formula("Y", (a,))


def mk_Z(a: Formula) -> Formula:  # noqa: N802
    return a if a is TRUE else Formula("Z", (a,))


def mk_O(a: Formula) -> Formula:  # noqa: N802
    if a.is_constant or a.op == "O":
        return a
    if a.op == "S":  # O(a S b) = O b
        return mk_O(a.children[1])
    return Formula("O", (a,))


def mk_H(a: Formula) -> Formula:  # noqa: N802
    if a.is_constant or a.op == "H":
        return a
    if a.op == "T":  # H(a T b) = H b
        return mk_H(a.children[1])
    return Formula("H", (a,))


def mk_S(a: Formula, b: Formula) -> Formula:  # noqa: N802
    if b.is_constant or a is FALSE or a is b:
        return b
    if a is TRUE:
        return mk_O(b)
    if b.op == "O":  # a S O b = O b
        return b
    if b.op == "S" and b.children[0] is a:
        return b
    return Formula("S", (a, b))


def mk_T(a: Formula, b: Formula) -> Formula:  # noqa: N802
    if b.is_constant or a is TRUE or a is b:
        return b
    if a is FALSE:
        return mk_H(b)
    if b.op == "H":  # a T H b = H b
        return b
    if b.op == "T" and b.children[0] is a:
        return b
    return Formula("T", (a, b))


# -- binary temporal -------------------------------------------------------------------------


def _x_wrap(d: int, f: Formula) -> Formula:
    for _ in range(d):
        f = mk_X(f)
    return f


def _common_x(fs: list[Formula]) -> tuple[int, list[Formula]]:
    """Strip the X prefix all of `fs` share (X a op X b = X(a op b) for every binary temporal
    operator and for & and |); iterative, so X-chains thousands deep merge without recursion."""
    d = 0
    while all(f.op == "X" for f in fs):
        fs = [f.children[0] for f in fs]
        d += 1
    return d, fs


def _x_peeled(make, a: Formula, b: Formula) -> Formula | None:
    if a.op == "X" and b.op == "X":
        d, (a2, b2) = _common_x([a, b])
        return _x_wrap(d, make(a2, b2))
    return None


def mk_U(a: Formula, b: Formula) -> Formula:  # noqa: N802
    if b.is_constant or a is FALSE or a is b:
        return b
    if a is TRUE:
        return mk_F(b)
    if b.op == "F":
        return b
    if b.op == "U" and b.children[0] is a:
        return b
    if a.op == "U" and a.children[1] is b:
        return a
    peeled = _x_peeled(mk_U, a, b)
    if peeled is not None:
        return peeled
    return Formula("U", (a, b))


def mk_R(a: Formula, b: Formula) -> Formula:  # noqa: N802
    if b.is_constant or a is TRUE or a is b:
        return b
    if a is FALSE:
        return mk_G(b)
    if b.op == "G":
        return b
    if b.op == "R" and b.children[0] is a:
        return b
    if a.op == "R" and a.children[1] is b:
        return a
    peeled = _x_peeled(mk_R, a, b)
    if peeled is not None:
        return peeled
    return Formula("R", (a, b))


def mk_W(a: Formula, b: Formula) -> Formula:  # noqa: N802
    if b is TRUE or a is TRUE:
        return TRUE
    if b is FALSE:
        return mk_G(a)
    if a is FALSE or a is b:
        return b
    if b.op == "W" and b.children[0] is a:
        return b
    if a.op == "W" and a.children[1] is b:
        return a
    peeled = _x_peeled(mk_W, a, b)
    if peeled is not None:
        return peeled
    return Formula("W", (a, b))


def mk_M(a: Formula, b: Formula) -> Formula:  # noqa: N802
    if b is FALSE or a is FALSE:
        return FALSE
    if a is TRUE or a is b:
        return b
    if b is TRUE:
        return mk_F(a)
    if b.op == "M" and b.children[0] is a:
        return b
    if a.op == "M" and a.children[1] is b:
        return a
    peeled = _x_peeled(mk_M, a, b)
    if peeled is not None:
        return peeled
    return Formula("M", (a, b))


def mk_iff(a: Formula, b: Formula) -> Formula:
    if a is b:
        return TRUE
    if a.is_constant:
        a, b = b, a
    if b is TRUE:
        return a
    if b is FALSE:
        return negate(a)
    return Formula("<->", (a, b))


def mk_xor(a: Formula, b: Formula) -> Formula:
    if a is b:
        return FALSE
    if a.is_constant:
        a, b = b, a
    if b is FALSE:
        return a
    if b is TRUE:
        return negate(a)
    return Formula("xor", (a, b))


# -- n-ary & and | ---------------------------------------------------------------------------


def _flatten(op: str, args: list[Formula]) -> list[Formula]:
    out: list[Formula] = []
    seen: set[Formula] = set()
    stack = list(reversed(args))
    popped = 0
    while stack:
        f = stack.pop()
        popped += 1
        if not popped & 65535:
            _check_big(out)
        if f.op == op:
            stack.extend(reversed(f.children))
        elif f not in seen:
            seen.add(f)
            out.append(f)
    return out


def _meets(f: Formula, op: str, present: set[Formula]) -> bool:
    """Some operand of the `op`-chain f is in `present` (a walk that stops at the first: the
    absorption test runs on every operand of a conjunction of 60,000)."""
    stack = [f]
    while stack:
        g = stack.pop()
        if g.op == op:
            stack.extend(g.children)
        elif g in present:
            return True
    return False


def _is_literal(f: Formula) -> bool:
    return f.op == "ap" or (f.op == "!" and f.children[0].op == "ap")


def _complement(f: Formula) -> Formula:
    return f.children[0] if f.op == "!" else Not(f)


def mk_and(args: list[Formula]) -> Formula:
    return _mk_nary("&", args)


def mk_or(args: list[Formula]) -> Formula:
    return _mk_nary("|", args)


def _mk_nary(op: str, args: list[Formula]) -> Formula:
    unit, zero = (TRUE, FALSE) if op == "&" else (FALSE, TRUE)
    other = "|" if op == "&" else "&"
    # G a & G b = G(a & b) and X a & X b = X(a & b); dually F and X for |.
    merge_un = "G" if op == "&" else "F"
    fs = _flatten(op, args)
    _check_big(fs)
    if zero in fs:
        return zero
    fs = [f for f in fs if f is not unit]
    present = set(_paced(fs))
    for f in _paced(fs):
        if _is_literal(f) and _complement(f) in present:
            return zero
    # absorption: a & (a | b) = a; a | (a & b) = a
    if any(f.op == other for f in fs):
        fs = [f for f in _paced(fs) if f.op != other or not _meets(f, other, present)]
    # groups of operands that merge: key -> (original operands, their bodies)
    groups: dict[str, tuple[list[Formula], list[Formula]]] = {"un": ([], []), "X": ([], []), "inv": ([], [])}
    rest: list[Formula] = []
    for f in _paced(fs):
        if _suffix_invariant(f) and f.op == ("F" if op == "&" else "G"):
            key, body = "inv", f.children[0].children[0]
        elif f.op == merge_un:
            key, body = "un", f.children[0]
        elif f.op == "X":
            key, body = "X", f.children[0]
        else:
            rest.append(f)
            continue
        groups[key][0].append(f)
        groups[key][1].append(body)
    merged = False
    for key, (originals, bodies) in groups.items():
        if len(bodies) < 2:
            rest.extend(originals)
            continue
        merged = True
        if key == "X":
            d, bodies = _common_x(bodies)
            rest.append(_x_wrap(d + 1, _mk_nary(op, bodies)))
        elif key == "un":
            body = _mk_nary(op, bodies)
            rest.append(mk_G(body) if op == "&" else mk_F(body))
        else:
            body = _mk_nary(op, bodies)
            rest.append(mk_F(mk_G(body)) if op == "&" else mk_G(mk_F(body)))
    if merged:
        return _mk_nary(op, rest)
    if not rest:
        return unit
    built = rest[0]
    for f in _paced(rest[1:]):  # And(*rest) or Or(*rest): left-nested
        built = Formula(op, (built, f))
    return built


_MAKERS: dict[str, Callable[..., Formula]] = {
    "X": mk_X,
    "F": mk_F,
    "G": mk_G,
    "U": mk_U,
    "R": mk_R,
    "W": mk_W,
    "M": mk_M,
    "<->": mk_iff,
    "xor": mk_xor,
    "&": mk_and,
    "|": mk_or,
    "Y": mk_Y,
    "Z": mk_Z,
    "O": mk_O,
    "H": mk_H,
    "S": mk_S,
    "T": mk_T,
}
