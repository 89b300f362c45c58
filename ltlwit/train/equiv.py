"""Equivalence classes of formulas: the data of the fifth paper's embeddings (`ltlwit data equiv`).

The paper ("Semantic Representations of Mathematical Expressions in a Continuous Vector
Space") trains an encoder-decoder to turn an expression into a different, equivalent one, and
measures its embedding on equivalence classes never seen in training. Its classes come from
SymPy's simplification under a time limit; here equivalence is decided: every member of a class
is proved equivalent to the class's first formula by the engine (`a xor b` unsatisfiable under
the class's semantics), so no class holds a non-equivalent member.

Two sources of members (`EquivConfig.source`). "identities": a class starts from a random
formula (`generate.RandomFormulas.normal_formula`, so it looks like the models' other data), and
its members come from identities applied at random positions, one
to five in a row, double negations removed (`RULES`: De Morgan, the F/G, U/R, W/M, past dualities, absorption `G G a = G
a`, `F G F a = G F a`, expansion laws, distribution, idempotence, commutativity...), each valid
under the semantics it is listed for. "random": random formulas grouped by the engine's
decision (`_drawn`), members that share no rewriting history: the syntactically diverse classes
on which the syntax alone gives little away (the bag of tokens' score falls to a few percent).
Two classes are never equivalent to each other: a start whose fingerprint (`logic.fingerprint`)
equals an earlier class's is asked against it and dropped where equivalent, so that the test
classes are unseen in training (the paper's UnseenEqClass). Classes are split whole: train,
validation and test.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator

from ltlwit.logic.budget import Budget
from ltlwit.logic.formula import FALSE, TRUE, WEAK_NEXT, Formula, Not, rebuilt, transform
from ltlwit.logic.result import Result, Sat, Unsat

if TYPE_CHECKING:
    from ltlwit.logic.fingerprint import Fingerprints
    from ltlwit.train.data import EncodedSplit
    from ltlwit.train.generate import RandomFormulas

Rule = Callable[[Formula], Formula | None]


def _f(op: str, *kids: Formula) -> Formula:
    return Formula(op, kids)


def _kids(node: Formula, op: str) -> tuple[Formula, ...] | None:
    return node.children if node.op == op else None


def _de_morgan(node: Formula) -> Formula | None:
    """`!(a & b)` = `!a | !b`, `!(a | b)` = `!a & !b`, and back."""
    if node.op == "!" and node.children[0].op in ("&", "|"):
        a, b = node.children[0].children
        return _f("|" if node.children[0].op == "&" else "&", Not(a), Not(b))
    if node.op in ("&", "|") and all(k.op == "!" for k in node.children):
        a, b = (k.children[0] for k in node.children)
        return Not(_f("|" if node.op == "&" else "&", a, b))
    return None


def _commute(node: Formula) -> Formula | None:
    if node.op in ("&", "|", "<->", "xor"):
        a, b = node.children
        return _f(node.op, b, a) if a is not b else None
    return None


def _implication(node: Formula) -> Formula | None:
    """`a -> b` = `!a | b`, `a <-> b` = `(a -> b) & (b -> a)`, `a xor b` = `!(a <-> b)`."""
    if node.op == "->":
        return _f("|", Not(node.children[0]), node.children[1])
    if node.op == "<->":
        a, b = node.children
        return _f("&", _f("->", a, b), _f("->", b, a))
    if node.op == "xor":
        return Not(_f("<->", *node.children))
    return None


def _distribute(node: Formula) -> Formula | None:
    """`a & (b | c)` = `(a & b) | (a & c)`, and `|` over `&`."""
    if node.op in ("&", "|"):
        a, bc = node.children
        other = "|" if node.op == "&" else "&"
        if bc.op == other:
            b, c = bc.children
            return _f(other, _f(node.op, a, b), _f(node.op, a, c))
    return None


def _idempotent(node: Formula) -> Formula | None:
    """`a & a` = `a`, `a | a` = `a`."""
    if node.op in ("&", "|") and node.children[0] is node.children[1]:
        return node.children[0]
    return None


def _absorb(node: Formula) -> Formula | None:
    """`a | (a & b)` = `a`, `a & (a | b)` = `a`."""
    if node.op in ("&", "|"):
        a, other = node.children
        if other.op == ("&" if node.op == "|" else "|") and a in other.children:
            return a
    return None


def _dual(node: Formula) -> Formula | None:
    """The dualities through negation: `G a` = `!F !a`, `F a` = `!G !a`, `a R b` = `!(!a U !b)`,
    `a U b` = `!(!a R !b)`, `a M b` = `!(!a W !b)`, `a W b` = `!(!a M !b)`; past: `H a` = `!O
    !a`, `O a` = `!H !a`, `a T b` = `!(!a S !b)`, `a S b` = `!(!a T !b)`."""
    duals = {"G": "F", "F": "G", "H": "O", "O": "H", "R": "U", "U": "R", "M": "W", "W": "M", "T": "S", "S": "T"}
    if node.op not in duals:
        return None
    return Not(_f(duals[node.op], *(Not(k) for k in node.children)))


def _eventually(node: Formula) -> Formula | None:
    """`F a` = `1 U a`, `G a` = `0 R a`, `O a` = `1 S a`, `H a` = `0 T a`, and back."""
    spelled = {"F": ("U", TRUE), "G": ("R", FALSE), "O": ("S", TRUE), "H": ("T", FALSE)}
    if node.op in spelled:
        op, first = spelled[node.op]
        return _f(op, first, node.children[0])
    back = {(op, first): unary for unary, (op, first) in spelled.items()}
    if len(node.children) == 2 and (node.op, node.children[0]) in back:
        return _f(back[(node.op, node.children[0])], node.children[1])
    return None


def _weak_until(node: Formula) -> Formula | None:
    """`a W b` = `(a U b) | G a`, `a M b` = `b U (a & b)`."""
    if node.op == "W":
        a, b = node.children
        return _f("|", _f("U", a, b), _f("G", a))
    if node.op == "M":
        a, b = node.children
        return _f("U", b, _f("&", a, b))
    return None


def _absorb_temporal(node: Formula) -> Formula | None:
    """`G G a` = `G a`, `F F a` = `F a`, `F G F a` = `G F a`, `G F G a` = `F G a`, and the
    first two back (`G a` = `G G a`)."""
    if node.op in ("F", "G"):
        inner = node.children[0]
        if inner.op == node.op:
            return inner
        if inner.op in ("F", "G") and inner.children[0].op == node.op:  # F G F a, G F G a
            return inner
        return _f(node.op, node)
    return None


def _expand(node: Formula) -> Formula | None:
    """The expansion laws (infinite traces): `F a` = `a | X F a`, `G a` = `a & X G a`, `a U b`
    = `b | (a & X(a U b))`, `a R b` = `b & (a | X(a R b))`."""
    if node.op == "F":
        return _f("|", node.children[0], _f("X", node))
    if node.op == "G":
        return _f("&", node.children[0], _f("X", node))
    if node.op == "U":
        a, b = node.children
        return _f("|", b, _f("&", a, _f("X", node)))
    if node.op == "R":
        a, b = node.children
        return _f("&", b, _f("|", a, _f("X", node)))
    return None


def _expand_finite(node: Formula) -> Formula | None:
    """The expansion laws on finite traces: the last instant has no next, so the future
    operators that must go on (`F`, `U`) use the strong next `X` and those that may stop (`G`,
    `R`) the weak next `wX`: `G a` = `a & wX G a`."""
    if node.op == "F":
        return _f("|", node.children[0], _f("X", node))
    if node.op == "G":
        return _f("&", node.children[0], _f(WEAK_NEXT, node))
    if node.op == "U":
        a, b = node.children
        return _f("|", b, _f("&", a, _f("X", node)))
    if node.op == "R":
        a, b = node.children
        return _f("&", b, _f("|", a, _f(WEAK_NEXT, node)))
    return None


def _distribute_temporal(node: Formula) -> Formula | None:
    """`X(a & b)` = `X a & X b` (and `|`, `wX`), `F(a | b)` = `F a | F b`, `G(a & b)` = `G a &
    G b`, and back."""
    spreads = {("X", "&"), ("X", "|"), (WEAK_NEXT, "&"), (WEAK_NEXT, "|"), ("F", "|"), ("G", "&")}
    if len(node.children) == 1 and (node.op, node.children[0].op) in spreads:
        a, b = node.children[0].children
        return _f(node.children[0].op, _f(node.op, a), _f(node.op, b))
    if len(node.children) == 2 and node.children[0].op == node.children[1].op:
        op = node.children[0].op
        if (op, node.op) in spreads:
            return _f(op, _f(node.op, node.children[0].children[0], node.children[1].children[0]))
    return None


def _next_negation(node: Formula) -> Formula | None:
    """Infinite traces: `!X a` = `X !a` (every instant has a next one); finite ones: `!X a` =
    `wX !a`, `!wX a` = `X !a`."""
    if node.op == "!" and node.children[0].op in ("X", WEAK_NEXT):
        inner = node.children[0]
        return _f(inner.op, Not(inner.children[0]))
    return None


def _next_negation_finite(node: Formula) -> Formula | None:
    if node.op == "!" and node.children[0].op in ("X", WEAK_NEXT):
        inner = node.children[0]
        return _f(WEAK_NEXT if inner.op == "X" else "X", Not(inner.children[0]))
    return None


_PROP: list[Rule] = [_de_morgan, _commute, _implication, _distribute, _idempotent, _absorb]
#: The identities valid under each semantics (prop: propositional formulas).
RULES: dict[str, list[Rule]] = {
    "prop": _PROP,
    "ltl": [*_PROP, _dual, _eventually, _weak_until, _absorb_temporal, _expand, _distribute_temporal, _next_negation],
    "ltlf": [*_PROP, _dual, _eventually, _weak_until, _absorb_temporal, _expand_finite, _distribute_temporal],
}
# (`_next_negation_finite` is the finite traces' `!X a` = `wX !a`: listed there.)
RULES["ltlf"].append(_next_negation_finite)


def rewrite(formula: Formula, rng: random.Random, rules: list[Rule]) -> Formula | None:
    """`formula` with one identity applied at one random position where one applies (the
    position first, then the rule), double negations then removed (`!!a` is `a`: the
    identities that negate would otherwise stack them), or None where none applies."""
    nodes = list(_positions(formula))
    rng.shuffle(nodes)
    for path in nodes:
        node = _at(formula, path)
        for rule in rng.sample(rules, len(rules)):
            done = rule(node)
            if done is not None and done is not node:
                return _without_double_negations(_replace(formula, path, done))
    return None


def _without_double_negations(formula: Formula) -> Formula:
    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.op == "!" and kids[0].op == "!":
            return kids[0].children[0]
        return rebuilt(node, kids)

    return transform(formula, rule)


def _positions(formula: Formula) -> Iterator[tuple[int, ...]]:
    stack: list[tuple[Formula, tuple[int, ...]]] = [(formula, ())]
    while stack:
        node, path = stack.pop()
        yield path
        stack.extend((kid, (*path, k)) for k, kid in enumerate(node.children))


def _at(formula: Formula, path: tuple[int, ...]) -> Formula:
    for k in path:
        formula = formula.children[k]
    return formula


def _replace(formula: Formula, path: tuple[int, ...], new: Formula) -> Formula:
    if not path:
        return new
    kids = list(formula.children)
    kids[path[0]] = _replace(kids[path[0]], path[1:], new)
    return Formula(formula.op, tuple(kids), formula.name)


@dataclass(frozen=True)
class EquivConfig:
    """What `ltlwit data equiv` makes: `classes` classes of `logic` formulas (prop, ltl, ltlf)
    over `n_aps` propositions, each started from a random formula of 3..`max_size` tokens and
    holding up to `members` formulas (each at most twice that size), each member up to
    `rewrites` identities from the start (`source` "identities"), or random formulas of that
    size grouped by the engine (`source` "random"); `seconds` of engine time per question."""

    logic: str = "ltl"
    n_aps: int = 3
    max_size: int = 10
    classes: int = 100
    members: int = 8
    rewrites: int = 5
    seed: int = 0
    seconds: float = 2.0
    val_share: float = 0.1
    test_share: float = 0.1
    source: str = "identities"


@dataclass(frozen=True)
class EquivClass:
    """A class: its members (the start first), its split, and its number."""

    number: int
    split: str
    members: tuple[Formula, ...]


def equivalence_classes(config: EquivConfig) -> Iterator[EquivClass]:
    """The classes of `config` (module docstring), in order; the same seed, the same classes."""
    from ltlwit.logic import ltl
    from ltlwit.logic.fingerprint import Fingerprints
    from ltlwit.train.generate import DEFAULT_ALPHABET, RandomFormulas

    if config.logic not in RULES:
        raise ValueError(f"unknown logic {config.logic!r} (prop, ltl or ltlf)")
    if config.source not in SOURCES:
        raise ValueError(f"unknown source {config.source!r} ({' or '.join(SOURCES)})")
    semantics = "finite" if config.logic == "ltlf" else "infinite"
    alphabet = DEFAULT_ALPHABET["prop" if config.logic == "prop" else "ltl"]
    draw = RandomFormulas(config.n_aps, alphabet)
    rng = random.Random(config.seed)
    prints = Fingerprints(semantics, 128, config.seed)
    starts: dict[int, list[Formula]] = {}  # earlier starts, by fingerprint

    def decide(question: Formula) -> Result:
        return ltl.solve(question, Budget(seconds=config.seconds), engine="builtin", semantics=semantics)

    if config.source == "random":
        for number, members in enumerate(_drawn(config, draw, rng, prints, decide)):
            yield EquivClass(number, _split(rng, config), tuple(members))
        return
    made = tries = 0
    while made < config.classes:
        tries += 1
        if tries > 50 * config.classes:
            raise ValueError(f"only {made} distinct classes found: raise --aps or --max-size")
        start = draw.normal_formula(rng.randint(3, config.max_size), rng)
        if start is None:
            continue
        mark = prints.of(start)
        if any(isinstance(decide(Formula("xor", (start, earlier))), Unsat) for earlier in starts.get(mark, [])):
            continue  # equivalent to an earlier class (or undecided: kept apart all the same)
        members = _members(start, config, rng, decide)
        if len(members) < 2:
            continue
        starts.setdefault(mark, []).append(start)
        yield EquivClass(made, _split(rng, config), tuple(members))
        made += 1


#: Where a class's members come from (module docstring).
SOURCES = ("identities", "random")


def _members(
    start: Formula, config: EquivConfig, rng: random.Random, decide: Callable[[Formula], Result]
) -> list[Formula]:
    """Formulas proved equivalent to `start`, start first (module docstring)."""
    rules = RULES[config.logic]
    members = [start]
    seen = {start}
    for _ in range(4 * config.members):
        if len(members) >= config.members:
            break
        formula = start
        for _ in range(rng.randint(1, config.rewrites)):
            formula = rewrite(formula, rng, rules) or formula  # (where no identity applies, as it was)
        if formula in seen or formula.size > 2 * config.max_size:
            continue
        seen.add(formula)
        verdict = decide(Formula("xor", (start, formula)))
        if isinstance(verdict, Unsat):
            members.append(formula)
        elif isinstance(verdict, Sat):  # an identity that is not one: a bug, said loudly
            raise AssertionError(f"{formula} was rewritten from {start} but is not equivalent to it")
    return members


#: How many random formulas `_drawn` draws at a time, per class asked, and at most in all.
DRAWS_PER_CLASS, MAX_DRAWS_PER_CLASS = 4, 200


def _drawn(
    config: EquivConfig,
    draw: RandomFormulas,
    rng: random.Random,
    prints: Fingerprints,
    decide: Callable[[Formula], Result],
) -> list[list[Formula]]:
    """The first `config.classes` groups of two or more equivalent random formulas, each group
    in the order drawn and cut at `config.members`, the groups in the order of their first
    member. Formulas are drawn a batch at a time until that many groups have a second member.
    The engine places a formula: in the first group of its fingerprint whose first member it is
    proved equivalent to, in a new group where it is proved apart from all of them, nowhere
    where a question is undecided (it might belong to a group it was kept from, and two classes
    must never be equivalent)."""
    groups: list[list[Formula]] = []
    by_print: dict[int, list[list[Formula]]] = {}
    seen: set[Formula] = set()
    drawn = 0
    while sum(len(g) >= 2 for g in groups) < config.classes:
        if drawn >= MAX_DRAWS_PER_CLASS * config.classes:
            found = sum(len(g) >= 2 for g in groups)
            raise ValueError(f"only {found} classes among {drawn} random formulas: lower --max-size or --aps")
        for _ in range(DRAWS_PER_CLASS * config.classes):
            drawn += 1
            formula = draw.normal_formula(rng.randint(3, config.max_size), rng)
            if formula is None or formula in seen:
                continue
            seen.add(formula)
            rivals = by_print.setdefault(prints.of(formula), [])
            for group in rivals:
                verdict = decide(Formula("xor", (group[0], formula)))
                if isinstance(verdict, Sat):
                    continue
                if isinstance(verdict, Unsat):
                    group.append(formula)
                break  # joined, or undecided: placed nowhere
            else:
                rivals.append([formula])
                groups.append(rivals[-1])
    return [g[: config.members] for g in groups if len(g) >= 2][: config.classes]


def _split(rng: random.Random, config: EquivConfig) -> str:
    r = rng.random()
    return "test" if r < config.test_share else "val" if r < config.test_share + config.val_share else "train"


@dataclass(frozen=True)
class SplitStats:
    """A split's size, as the paper's Table 1 gives it: classes, formulas, and their lengths in
    Polish tokens."""

    split: str
    classes: int
    formulas: int
    mean_length: float
    max_length: int


def write_classes(path: str, config: EquivConfig, progress: Callable[[int], None] | None = None) -> list[SplitStats]:
    """The classes of `config` written to `path` as JSON Lines (`.gz`: compressed), one class a
    line: `class`, `split`, `logic`, `members` (infix, the start first); their statistics."""
    import gzip
    import json

    from ltlwit.logic.syntax import print_formula

    sizes: dict[str, list[list[int]]] = {"train": [], "val": [], "test": []}
    opened = gzip.open(path, "wt", encoding="utf-8") if path.endswith(".gz") else open(path, "w", encoding="utf-8")
    with opened as out:
        for done, found in enumerate(equivalence_classes(config), 1):
            members = [print_formula(f, "infix") for f in found.members]
            out.write(
                json.dumps({"class": found.number, "split": found.split, "logic": config.logic, "members": members})
                + "\n"
            )
            sizes[found.split].append([f.size for f in found.members])
            if progress is not None:
                progress(done)
    stats = []
    for split, classes in sizes.items():
        lengths = [n for members in classes for n in members]
        mean = sum(lengths) / len(lengths) if lengths else 0.0
        stats.append(SplitStats(split, len(classes), len(lengths), round(mean, 1), max(lengths, default=0)))
    return stats


def read_classes(path: str | os.PathLike) -> Iterator[tuple[str, EquivClass]]:
    """The classes of a file `write_classes` wrote (`.gz`: compressed), each with its logic."""
    import gzip
    import json

    from ltlwit.logic.syntax import parse_formula

    opened = gzip.open(path, "rt", encoding="utf-8") if str(path).endswith(".gz") else open(path, encoding="utf-8")
    with opened as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                members = tuple(parse_formula(m, "spot") for m in row["members"])
                yield row["logic"], EquivClass(row["class"], row["split"], members)


def encoded_pairs(path: str | os.PathLike, split: str, task: str, same: bool) -> "EncodedSplit":
    """The training pairs of one split of a `data equiv` file, tokenised: every ordered pair of
    two different members of a class (ExpEmb-E: write an equivalent formula), or with `same`
    each member and itself (ExpEmb-A: write the input). `task` (ltl or prop) is the classes'
    logic; LTLf classes have a weak next the tokenizer does not write."""
    from ltlwit.neural.tokenizer import encode_formula
    from ltlwit.train.data import EncodedSplit

    src: list[list[int]] = []
    tgt: list[list[int]] = []
    aps: list[int] = []
    for logic, found in read_classes(path):
        if logic != task:
            raise ValueError(f"{path}: class {found.number} is of {logic} formulas, not {task}")
        if found.split != split:
            continue
        ids = [encode_formula(f) for f in found.members]
        names = [set(f.aps()) for f in found.members]
        n = len(ids)
        for i, j in [(i, i) for i in range(n)] if same else [(i, j) for i in range(n) for j in range(n) if i != j]:
            src.append(ids[i])
            tgt.append(ids[j])
            aps.append(len(names[i] | names[j]))
    return EncodedSplit.from_rows(src, tgt, aps, 0, str(path))
